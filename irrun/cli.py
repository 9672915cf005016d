"""The ``irrun`` command line.

    irrun MODEL.xml [--input x.npy | --input NAME=x.npy ... | --input inputs.npz] [--output out.npz]
    irrun check MODEL.xml [--shape NAME=1,3,224,224 ...] [--json] [--strict]
    irrun ops

Exit codes: 0 success / clean; 1 check found problems; 2 bad model, bad input or usage;
3 the model uses something irrun does not support; 4 internal error (a bug in irrun).
"""
from __future__ import annotations

import argparse
import os
import sys

import numpy as np

from .errors import EXIT_ERROR, EXIT_FINDINGS, EXIT_INTERNAL, EXIT_OK, EXIT_UNSUPPORTED, InputError, IrrunError

COMMANDS = ("run", "check", "ops")


def _parser(cmd: str) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="irrun" if cmd == "run" else f"irrun {cmd}",
                                description=__doc__.split("\n\n")[0])
    if cmd in ("run", "check"):
        p.add_argument("model", help="the IR .xml file (its .bin is read from beside it)")
    if cmd == "run":
        p.add_argument("--input", "-i", action="append", default=[], metavar="[NAME=]FILE",
                       help="x.npy for a one-input model, NAME=x.npy per input, or inputs.npz "
                            "keyed by input name (repeatable)")
        p.add_argument("--output", "-o", metavar="OUT.npz",
                       help="write the outputs to an .npz keyed by output name")
    if cmd == "check":
        p.add_argument("--shape", action="append", default=[], metavar="NAME=DIMS",
                       help="check as if input NAME had DIMS, e.g. x=1,3,224,224 or x=?,3,1..8,8")
        p.add_argument("--json", action="store_true", help="print the findings as JSON")
        p.add_argument("--strict", action="store_true", help="exit 1 on warnings too")
    p.add_argument("--debug", action="store_true", help="show Python tracebacks")
    return p


def _split_named(arg: str, what: str) -> tuple[str | None, str]:
    if os.path.exists(arg) or "=" not in arg:
        return None, arg
    name, _, value = arg.partition("=")
    if not name:
        raise InputError(f'bad {what} "{arg}": expected NAME=VALUE')
    return name, value


def _load_inputs(model, specs: list[str]) -> dict[str, np.ndarray]:
    from .npyio import load_npy, load_npz

    feeds: dict[str, np.ndarray] = {}
    names = [p.name for p in model.inputs]
    if not specs:
        raise InputError(f"no input given; the model's inputs are: {', '.join(names)} "
                         "(use --input NAME=FILE.npy or --input inputs.npz)", file=model.path)
    for spec in specs:
        name, path = _split_named(spec, "--input")
        if path.endswith(".npz") and name is None:
            for k, v in load_npz(path).items():
                if k in feeds:
                    raise InputError(f'input "{k}" is given twice', file=path)
                feeds[k] = v
            continue
        arr = load_npy(path)
        if name is None:
            if len(names) != 1 or len(specs) != 1:
                raise InputError(f"the model has {len(names)} inputs ({', '.join(names)}); name "
                                 f"each one: --input NAME={path}", file=path)
            name = names[0]
        if name in feeds:
            raise InputError(f'input "{name}" is given twice', file=path)
        feeds[name] = arr
    return feeds


def _summary_row(name: str, arr: np.ndarray) -> tuple[str, ...]:
    """name, dtype[shape], min, max, mean, and the first values (flattened)."""
    flat = arr.reshape(-1)
    numeric = arr.dtype.kind in "fiub" or str(arr.dtype).startswith(("bfloat", "float"))
    stats = ["", "", ""]
    if numeric and arr.size:
        a = flat.astype(np.float64)
        stats = [f"min {a.min():.6g}", f"max {a.max():.6g}", f"mean {a.mean():.6g}"]
    head = flat[:8].tolist()
    values = "[" + ", ".join(f"{v:.6g}" if isinstance(v, float) else repr(v) if isinstance(v, str)
                             else str(v) for v in head) + (", …]" if flat.size > 8 else "]")
    dtype = "string" if arr.dtype.kind == "T" else str(arr.dtype)
    return (name, f"{dtype}[{','.join(map(str, arr.shape))}]", *stats, values)


def _summary(outputs: dict[str, np.ndarray]) -> str:
    rows = [_summary_row(k, v) for k, v in outputs.items()]
    widths = [max(len(r[i]) for r in rows) for i in range(5)]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r[:5], widths)) + "  " + r[5] for r in rows)


def cmd_run(args) -> int:
    from . import read_model

    model = read_model(args.model)
    feeds = _load_inputs(model, args.input)
    outputs = model.run(feeds)
    if args.output:
        try:
            np.savez(args.output, **outputs)
        except OSError as e:
            raise InputError(f"cannot write the outputs: {e.strerror or e}", file=args.output) from None
        print(f"wrote {len(outputs)} output(s) to {args.output}: {', '.join(outputs)}")
    else:
        print(_summary(outputs))
    return EXIT_OK


def cmd_check(args) -> int:
    from .checker import check_model, format_json, format_text

    shapes = {}
    for s in args.shape:
        name, dims = _split_named(s, "--shape")
        if name is None:
            raise InputError(f'bad --shape "{s}": expected NAME=DIMS, e.g. x=1,3,224,224')
        shapes[name] = dims
    try:
        findings = check_model(args.model, shapes or None)
    except ValueError as e:
        raise InputError(f"bad --shape: {e}") from None
    print(format_json(findings) if args.json else format_text(args.model, findings))
    sev = {f.severity for f in findings}
    if "error" in sev or (args.strict and sev):
        return EXIT_FINDINGS
    return EXIT_UNSUPPORTED if "unchecked" in sev else EXIT_OK


def cmd_ops(args) -> int:
    from .ops.registry import all_ops

    rows = [("type", "versions", "restrictions")]
    by_type: dict[str, list] = {}
    for cls in all_ops():
        by_type.setdefault(cls.type, []).append(cls)
    for t, classes in by_type.items():
        rows.append((t, ", ".join(c.version for c in classes),
                     "; ".join(dict.fromkeys(c.restrictions for c in classes if c.restrictions))))
    w = [max(len(r[i]) for r in rows) for i in range(2)]
    print("\n".join(f"{r[0].ljust(w[0])}  {r[1].ljust(w[1])}  {r[2]}".rstrip() for r in rows))
    return EXIT_OK


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    cmd = argv.pop(0) if argv and argv[0] in COMMANDS else "run"
    args = _parser(cmd).parse_args(argv)
    try:
        return {"run": cmd_run, "check": cmd_check, "ops": cmd_ops}[cmd](args)
    except IrrunError as e:
        if args.debug:
            raise
        print(f"irrun: {e.kind}: {e}", file=sys.stderr)
        return e.exit_code
    except KeyboardInterrupt:
        return 130
    except Exception as e:  # a bug in irrun: say so, briefly
        if args.debug:
            raise
        print(f"irrun: internal error (a bug in irrun): {type(e).__name__}: {e}\n"
              "Run again with --debug for the traceback, and please report it.", file=sys.stderr)
        return EXIT_INTERNAL


if __name__ == "__main__":
    sys.exit(main())
