"""``irrun MODEL.xml --input ...``: run a model and print or save its outputs."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from ..errors import EXIT_FINDINGS, EXIT_OK, InputError, IrrunError, printable
from ..io.inputs import input_dir_files, input_files, load_inputs
from ..io.outputs import output_file, write_outputs


def add_arguments(p) -> None:
    p.add_argument("model", help="the IR .xml file (its .bin is read from beside it)")
    p.add_argument("--input", "-i", action="append", default=[], metavar="[NAME=]FILE",
                   help="x.npy for a one-input model, NAME=x.npy per input, or inputs.npz "
                        "keyed by input name (repeatable); or a directory DIR/ of such files: "
                        "one run per file, one OUTDIR/<file>.npz each (needs --output OUTDIR/)")
    p.add_argument("--output", "-o", metavar="OUT.npz",
                   help="write the outputs to an .npz keyed by output name (OUT without a suffix: "
                        "OUT.npz; OUT.npy: the one output as .npy)")
    p.add_argument("--random-inputs", action="store_true",
                   help="make every input not given by --input a seeded random array (dims: "
                        "static as declared, an interval or ? its lower bound but at least 1; "
                        "floats in [-1,1), integers in [0,8)), like benchmark_app without files")
    p.add_argument("--seed", type=int, default=0, help="seed of --random-inputs (default 0)")
    p.add_argument("--max-iterations", type=_iterations, metavar="N",
                   help="stop the run (exit 2) once its TensorIterator/Loop bodies have run N "
                        "times in all, nested loops included (default: 1000000, and a work budget "
                        "of 250000 body layers + 8 per body run, which a given N lifts)")
    d = p.add_argument_group("debugging")
    d.add_argument("--dump", metavar="DIR", help="write every executed layer's outputs to "
                   'DIR/tensors.npz (keys "<layer id>:<port id>") and DIR/manifest.json (stats)')
    d.add_argument("--dump-ops", action="append", metavar="TYPE[,TYPE]",
                   help="dump only layers of these op types, e.g. Transpose,Concat")
    d.add_argument("--dump-names", action="append", metavar="GLOB",
                   help="dump only layers whose name matches, e.g. 'block1/*'")
    d.add_argument("--stop-at", metavar="LAYER", help="run only what LAYER (id or name) needs and "
                   "print or save its outputs instead of the model's")
    d.add_argument("--profile", action="store_true",
                   help="time every layer over several runs: per-layer medians and spread, "
                        "slowest layers, medians per op type")
    d.add_argument("--iterations", "-n", type=int, metavar="N",
                   help="with --profile: timed runs (default 5)")
    d.add_argument("--warmup", type=int, metavar="K",
                   help="with --profile: untimed runs first (default 1)")
    d.add_argument("--json", action="store_true", help="with --profile: print the profile as JSON")
    from .accuracy import add_precision_arguments
    add_precision_arguments(d)
    from .distributed import add_arguments as add_batch_arguments
    add_batch_arguments(p)


def _iterations(text: str) -> int:
    import argparse

    from ..limits.iterations import parse
    try:
        return parse(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _summary_row(name: str, arr: np.ndarray) -> tuple[str, ...]:
    """name, dtype[shape], min, max, mean, and the first values (flattened)."""
    flat = arr.reshape(-1)
    numeric = arr.dtype.kind in "fiub" or str(arr.dtype).startswith(("bfloat", "float"))
    stats = ["", "", ""]
    if numeric and arr.size:
        a = flat.astype(np.float64)
        with np.errstate(all="ignore"):           # inf - inf in the mean is nan, not a warning
            stats = [f"min {a.min():.6g}", f"max {a.max():.6g}", f"mean {a.mean():.6g}"]
    head = flat[:8].tolist()
    values = "[" + ", ".join(f"{v:.6g}" if isinstance(v, float) else repr(v) if isinstance(v, str)
                             else str(v) for v in head) + (", …]" if flat.size > 8 else "]")
    dtype = "string" if arr.dtype.kind == "T" else str(arr.dtype)
    return (printable(name), f"{dtype}[{','.join(map(str, arr.shape))}]", *stats, printable(values))


def _summary(outputs: dict[str, np.ndarray]) -> str:
    rows = [_summary_row(k, v) for k, v in outputs.items()]
    widths = [max(len(r[i]) for r in rows) for i in range(5)]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r[:5], widths)) + "  " + r[5] for r in rows)


def _check_options(args, model) -> None:
    """Options that would silently do nothing are errors, before anything runs."""
    if not args.dump:
        used = [o for o, v in (("--dump-ops", args.dump_ops), ("--dump-names", args.dump_names)) if v]
        if used:
            raise InputError(f"{' and '.join(used)} choose{'s' * (len(used) == 1)} what --dump writes; "
                             "give --dump DIR too")
    if not args.profile:
        used = [o for o, v in (("--iterations", args.iterations is not None),
                               ("--warmup", args.warmup is not None), ("--json", args.json)) if v]
        if used:
            raise InputError(f"{', '.join(used)} go{'es' * (len(used) == 1)} with --profile")
    if args.dump_ops:
        from ..debug.tracing import check_op_types
        check_op_types(model, args.dump_ops)
    if args.dump_names:
        from ..debug.tracing import check_name_globs
        check_name_globs(model, args.dump_names)


def main(args) -> int:
    from ..limits import iterations
    with iterations.limit(args.max_iterations):
        return _main(args)


def _main(args) -> int:
    from .. import read_model
    from ..io.writers import model_files
    from . import distributed as batch

    batch.check_args(args)                    # --workers / --cluster: before the model is read
    model = read_model(args.model)
    _check_options(args, model)
    model.check_memory()                  # a huge tensor is refused before inputs are read
    if len(args.input) == 1 and Path(args.input[0]).is_dir():
        return _run_dir(model, args)
    protect = model_files(model) + input_files(args.input)
    out = None if not args.output else output_file(
        args.output, len(model.outputs) if args.stop_at is None else None, protect)
    if args.dump:
        from ..debug.dumps import MANIFEST, TENSORS, dump_target
        from ..io.writers import distinct
        dump_target(args.dump, protect)
        distinct([("--output", out), *(("--dump", Path(args.dump) / n) for n in (TENSORS, MANIFEST))])
    if args.random_inputs:
        from ..debug.profiling import random_inputs
        feeds = random_inputs(model, load_inputs(model, args.input, partial=True), args.seed)
    else:
        feeds = load_inputs(model, args.input)
    if args.precision or args.find_nonfinite:
        return _run_accuracy(model, feeds, args)
    if args.profile:
        from ..debug.profiling import dumps, profile
        prof = profile(model, feeds, 5 if args.iterations is None else args.iterations,
                       1 if args.warmup is None else args.warmup, args.stop_at)
        outputs = prof.outputs
    t = None
    if args.dump:
        from ..debug.tracing import trace
        t = trace(model, feeds, stop_at=args.stop_at, ops=args.dump_ops, names=args.dump_names)
        outputs = t.outputs
    elif not args.profile:
        outputs = model.run(feeds, stop_at=args.stop_at)
    note = sys.stderr if args.json else sys.stdout      # stdout holds only the JSON then
    if out is not None:
        written = write_outputs(out, outputs, protect)
        print(f"wrote {len(outputs)} output(s) to {printable(written)}: "
              f"{', '.join(map(printable, outputs))}", file=note)
    elif not args.json:
        print(_summary(outputs))
    if t is not None:                                   # (args.dump)
        d = t.save(args.dump, protect)
        n = len(t.tensors())
        print(f"dumped {n} tensor{'s' * (n != 1)} of {sum(r.arrays is not None for r in t.layers)} "
              f"layers to {printable(d)}/ (tensors.npz, manifest.json)", file=note)
    if args.profile:
        print(dumps(prof) if args.json else "\n" + prof.text())
    return EXIT_OK


def _run_accuracy(model, feeds: dict, args) -> int:
    """``--precision`` / ``--find-nonfinite`` (:mod:`irrun.debug.accuracy`)."""
    from .accuracy import nonfinite_text, run_model
    if args.dump or args.profile or args.stop_at or args.output:
        raise InputError("--precision and --find-nonfinite print the outputs; they do not combine "
                         "with --dump, --profile, --stop-at or --output")
    outputs, finding = run_model(model, feeds, args.precision, args.find_nonfinite)
    print(_summary(outputs))
    if args.find_nonfinite:
        print("\n" + nonfinite_text(finding))
        return EXIT_FINDINGS if finding is not None else EXIT_OK
    return EXIT_OK


def _run_dir(model, args) -> int:
    """``--input DIR/``: one run per .npy/.npz file, one OUTDIR/<file stem>.npz each (each file
    written atomically; files of runs that succeeded stay when a later one fails). With
    ``--workers``/``--cluster``: :mod:`irrun.distributed`."""
    from ..io.writers import destination, model_files
    from . import distributed as batch
    src = Path(args.input[0])
    if args.dump or args.profile:
        raise InputError("--dump and --profile take one set of inputs, not a directory")
    if not args.output:
        raise InputError("with --input DIR/, give --output OUTDIR/ (one .npz per input file goes there)")
    files = input_dir_files(src)
    stems = [f.stem for f in files]
    if len(set(stems)) < len(stems):
        dup = next(s for s in stems if stems.count(s) > 1)
        raise InputError(f"{dup}.npy and {dup}.npz would both write {dup}.npz; keep one", file=str(src))
    if batch.wanted(args):
        return batch.main(args, files)
    protect = model_files(model) + [str(f) for f in files]
    out = destination(args.output, directory=True, protect=protect)
    targets = [destination(out / f"{f.stem}.npz", protect=protect) for f in files]
    bar = sys.stderr.isatty()
    for k, (f, target) in enumerate(zip(files, targets)):
        if bar:
            done = 30 * k // len(files)
            sys.stderr.write(f"\r[{'#' * done}{'.' * (30 - done)}] {k}/{len(files)} "
                             f"{printable(f.name)[:40]:<40}")
            sys.stderr.flush()
        try:
            write_outputs(target, model.run(load_inputs(model, [str(f)]), stop_at=args.stop_at), protect)
        except IrrunError as e:
            if bar:
                sys.stderr.write("\n")
            if e.file != str(f):
                e.message += f" (input file {f})"
            raise
    if bar:
        sys.stderr.write("\r" + " " * 80 + "\r")
    print(f"ran {len(files)} input file{'s' * (len(files) != 1)} from {printable(src)}: one .npz each "
          f"in {printable(out)}")
    return EXIT_OK
