"""atheris (libFuzzer for CPython) target: hostile IR bytes must only ever raise irrun's own errors.

The input is split like OpenVINO's read_model fuzzer (tests/fuzz/src/read_model-fuzzer.cc):
``xml FUZZ_NEXT_FIELD bin``. Each case goes through the whole pipeline a user can reach with a
file: read -> graph -> shape inference -> check, and when inference succeeds a run on small
constant inputs (dynamic dims at their least size) under a 64 MiB memory budget and an iteration
budget of 2000 body executions; stateful models run twice, show their state, reset, run again.
The outputs and a dump are then written through irrun.io.writers and read back (names and values must
survive; a third field, ``... FUZZ_NEXT_FIELD manifest``, is fed to the dump reader as the dump's
manifest.json). The seeds hold every fixture (TensorIterator/Loop/If bodies and ReadValue/Assign
state included) and the hostile corpus; the dictionary (``--dict``) holds the words of bodies, port
maps and variables. Only :class:`IrrunError`
subclasses are graceful — and not :class:`InternalError`, which is irrun admitting a bug; any
other exception (KeyError, IndexError, RecursionError, MemoryError...) is a finding and stops the
fuzzer with the reproducer saved as ``crash-<sha1>``.

    pip install atheris
    python -m tools.fuzz.fuzz_reader --seed-corpus /tmp/fuzz/seeds     # fixtures + hostile corpus
    python -m tools.fuzz.fuzz_reader --dict /tmp/fuzz/ir.dict            # body and state words
    python -m tools.fuzz.fuzz_reader -max_total_time=1800 -rss_limit_mb=2048 -timeout=5 \\
        -dict=/tmp/fuzz/ir.dict /tmp/fuzz/corpus /tmp/fuzz/seeds

libFuzzer grows /tmp/fuzz/corpus and stops at the first finding (``crash-*`` in the working
directory); run the target on that file to reproduce it, fix irrun, and keep the file in
tests/hostile/fuzz/ (tests/test_hostile_props.py replays them).
"""
from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

from tools import ROOT

SEP = b"FUZZ_NEXT_FIELD"
_WORK = tempfile.mkdtemp(prefix="irrun-fuzz-", dir="/dev/shm" if os.path.isdir("/dev/shm") else None)
XML, BIN = os.path.join(_WORK, "m.xml"), os.path.join(_WORK, "m.bin")


#: What one case may spend: memory (as the CLI's --max-memory) and body executions (--max-iterations).
MAX_MEMORY, MAX_ITERATIONS = 64 << 20, 2000


def _feeds(model, rng_byte: int) -> dict | None:
    """Inputs for every Parameter: dynamic dims at their least size (at least 1), small integer
    values (so that a trip-count or condition input takes 0, 1, 2... and -1), None when an input
    has no rank or type."""
    import numpy as np

    feeds = {}
    for p in model.inputs:
        if p.shape.rank is None or p.etype.dtype is None:
            return None
        shape = tuple(max(d.lo, 1) if not d.is_static else d.lo for d in p.shape)
        if p.etype.name == "string":
            feeds[p.name] = np.full(shape, "ab" * (rng_byte % 4), dtype=p.etype.dtype)
        else:
            feeds[p.name] = np.full(shape, (rng_byte % 5) - 1).astype(p.etype.dtype)
    return feeds


def one_input(data: bytes) -> None:
    """Run one fuzz case; returns normally for any graceful outcome. Models with sub-graph bodies
    (TensorIterator/Loop/If) run under a small iteration budget; stateful ones (ReadValue/Assign)
    run twice, are read through ``Model.state``, reset and run again."""
    import irrun
    from irrun import check as check_model
    from irrun.errors import InternalError, IrrunError

    xml, _, weights = data.partition(SEP)
    weights, _, manifest = weights.partition(SEP)
    with open(XML, "wb") as f:
        f.write(xml)
    with open(BIN, "wb") as f:
        f.write(weights)
    try:
        check_model(XML)
        model = irrun.read_model(XML)
        model.types()
        model.check_memory(MAX_MEMORY)     # as the CLI does before reading inputs
        feeds = _feeds(model, data[-1] if data else 0)
        if feeds is None:
            return
        runs = 2 if model.variables else 1
        for _ in range(runs):
            outputs = model.run(feeds, max_memory=MAX_MEMORY, max_iterations=MAX_ITERATIONS)
        if model.variables:
            for k in model.state:
                model.state[k]
            model.reset_state()
            outputs = model.run(feeds, max_memory=MAX_MEMORY, max_iterations=MAX_ITERATIONS)
        round_trip(model, feeds, outputs, manifest)
    except InternalError:
        raise
    except IrrunError:
        pass


def round_trip(model, feeds, outputs, manifest: bytes) -> None:
    """Outputs to .npz and a dump, written by irrun.io.writers into a fresh directory and read back;
    then the fuzzed ``manifest`` replaces the dump's manifest.json (must be refused gracefully)."""
    import shutil

    import numpy as np

    from irrun import debug
    from irrun.io import writers
    from irrun.io.outputs import storable
    from irrun.errors import IrrunError
    from irrun.io.npy import load_npz
    out = tempfile.mkdtemp(dir=_WORK)
    try:
        writers.write_files([(os.path.join(out, "o.npz"), writers.npz(
            {k: storable(v) for k, v in outputs.items()}))], protect=[XML, BIN])
        back = load_npz(os.path.join(out, "o.npz"))
        assert list(back) == list(outputs), (list(back), list(outputs))
        from irrun.limits import memory as budget, iterations
        with budget.limit(MAX_MEMORY), iterations.limit(MAX_ITERATIONS):
            t = debug.trace(model, feeds)
        t.save(os.path.join(out, "d"))
        tensors, _ = debug.load_tensors(os.path.join(out, "d"))
        for k, v in t.tensors().items():
            assert tensors[k].shape == v.shape and (v.dtype.kind in "fcV" or np.array_equal(tensors[k], v)), k
        if manifest:
            with open(os.path.join(out, "d", "manifest.json"), "wb") as f:
                f.write(manifest)
            try:
                debug.load_tensors(os.path.join(out, "d"))
            except IrrunError:
                pass
    finally:
        shutil.rmtree(out, ignore_errors=True)


#: libFuzzer dictionary (``-dict=``): the words of bodies, port maps and state, so that mutations
#: rewire sub-graphs and variables instead of only breaking the XML.
WORDS = ["<body>", "</body>", "<then_body>", "<else_body>", "<port_map>", "<then_port_map>",
         "<else_port_map>", "<back_edges>", "<edge from-layer=", "to-layer=", "external_port_id=",
         "internal_layer_id=", 'purpose="execution_condition"', 'purpose="current_iteration"',
         "axis=", "start=", "end=", "stride=", "part_size=", 'type="Loop"', 'type="TensorIterator"',
         'type="If"', 'type="ReadValue"', 'type="Assign"', "variable_id=", "variable_shape=",
         "variable_type=", 'version="opset5"', 'version="opset6"', 'version="opset8"', "-1",
         "9223372036854775807", "2147483647", 'element_type="boolean"', 'element_type="i64"']


def write_seeds(out: str) -> None:
    """Every fixture and every hostile-corpus model as one seed file each."""
    os.makedirs(out, exist_ok=True)
    for xml in sorted([*ROOT.glob("tests/fixtures/**/*.xml"), *ROOT.glob("tests/hostile/corpus/*/*.xml")]):
        if not xml.is_file():
            continue
        b = xml.with_suffix(".bin")
        data = xml.read_bytes() + SEP + (b.read_bytes() if b.is_file() else b"")
        (Path(out) / f"{xml.parent.parent.name}_{xml.parent.name}").write_bytes(data)


def main() -> None:
    if sys.argv[1:2] == ["--seed-corpus"]:
        write_seeds(sys.argv[2])
        return
    if sys.argv[1:2] == ["--dict"]:
        esc = lambda w: w.replace("\\", "\\\\").replace('"', "\\x22")   # noqa: E731
        Path(sys.argv[2]).write_text("".join(f'"{esc(w)}"\n' for w in WORDS))
        return
    import atheris

    with atheris.instrument_imports():
        import irrun  # noqa: F401
        import irrun.analysis.check
    sys.setrecursionlimit(1000)          # the default; deep recursion must be an irrun error
    atheris.Setup(sys.argv, one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
