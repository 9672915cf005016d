"""The ONNX export measured on generated model folders (issue 24: "95% of every zoo suite"):
every ``<dir>/<name>/model.xml`` exported by irrun, then decoded in onnxruntime and in irrun on
the same inputs.

    python -m tools.conformance.export_generated DIR [DIR ...] [-k SUBSTR] [--max-mb 50] [-v]

The checked-in fixtures are measured by tools/conformance/export_suite.py against OpenVINO's
recorded outputs; the suites' generated models (tools/zoo/make_tiny_llms.py's optimum-intel
decoders, tens of MB each with the real-size ones) are not checked in and have no recorded
outputs, so here irrun is the reference: irrun itself matches OpenVINO on them (the llm suite).

A stateful decoder (ReadValue/Assign, optimum-intel's ``text-generation-with-past`` export) is
driven the llm suite's way (tools/zoo/llm_zoo.py ``step_feeds``): a prefill of ``PROMPT`` tokens
(seed 0), then ``STEPS`` greedy tokens chosen by irrun's logits; irrun carries its state in its
variables, onnxruntime through the export's state inputs/outputs (past_key_values.* -> present.*,
empty at the prefill). A model without state gets one run on the same prefill inputs.

One row per model: ``pass`` exported and matched (every step's logits within the llm suite's
tolerance: 1e-4, wider for nf4 weights, and the same greedy token; the detail gives the max abs
difference per step); ``unsupported`` the export refused it (the ops named); ``fail`` exported
but differs, or onnxruntime cannot load/run it; ``excluded`` irrun itself cannot run the model,
or the folder is over ``--max-mb`` (the real-size models: say ``--max-mb 0`` to run them too).
The table gives the percentages per directory (suite).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

import numpy as np

from tools.conformance.conformance_rows import SEP, Row
from tools.conformance.export_suite import _model_error, _session, _short, _state_names, empty_states
from tools.zoo.llm_zoo import PROMPT, STEPS, step_feeds, tolerance


def _size_mb(d: Path) -> float:
    return sum(p.stat().st_size for p in d.iterdir() if p.is_file()) / 2**20


def _max_abs(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.max(np.abs(a.astype(np.float64) - b))) if a.size else 0.0


def measure(suite: str, d: Path) -> Row:
    """One model folder: exported, then irrun and onnxruntime step by step on the same inputs."""
    import irrun
    from irrun.errors import IrrunError
    from irrun.export.onnx import build_onnx
    xml = d / "model.xml"
    try:
        model = irrun.read_model(xml)
        model.types()
    except IrrunError as e:
        return Row(suite, d.name, "excluded", f"irrun cannot read the model{SEP}{_short(e)}")
    try:
        proto = build_onnx(model)
    except Exception as e:                       # refused (ops named) or an export crash: one row
        return _model_error(suite, d.name, e)
    try:
        session = _session(proto)
    except Exception as e:
        return Row(suite, d.name, "fail", f"onnxruntime cannot load the export{SEP}{_short(e)}")
    if "input_ids" not in {p.name for p in model.inputs}:
        return _one_shot(suite, d, model, session)
    config = json.loads((d / "config.json").read_text(encoding="utf-8")) if (d / "config.json").exists() else {}
    dtypes = {p.name: p.etype.dtype for p in model.inputs}
    state_in, state_out = _state_names(proto)
    state = empty_states(session, state_in, 1)
    names = [o.name for o in session.get_outputs()]
    vocab = int(config.get("vocab_size", 100))
    ids = np.random.default_rng(0).integers(3, vocab, PROMPT).tolist()
    rtol, atol = tolerance(d.name)
    model.reset_state()
    diffs: list[float] = []
    past = 0
    for step in range(STEPS + 1 if state_in else 1):
        feeds = step_feeds(ids, past, dtypes, int(config.get("conv_kernel", 0)))
        want = np.asarray(next(iter(model.run(feeds).values())))
        try:
            got = dict(zip(names, session.run(None, {**feeds, **state})))
        except Exception as e:
            return Row(suite, d.name, "fail", f"onnxruntime fails to run it{SEP}step {step}: "
                       f"{_short(e)}")
        logits = got[names[0]]
        if logits.shape != want.shape:
            return Row(suite, d.name, "fail", f"logits of another shape{SEP}step {step}: onnxruntime "
                       f"{list(logits.shape)}, irrun {list(want.shape)}")
        diffs.append(_max_abs(logits, want))
        if not np.allclose(logits, want, rtol=rtol, atol=atol):
            return Row(suite, d.name, "fail", f"logits differ{SEP}step {step}: max abs {diffs[-1]:.3g} "
                       f"(rtol {rtol:g}, atol {atol:g}); earlier steps {[f'{x:.2g}' for x in diffs[:-1]]}")
        token = int(want[0, -1].argmax())
        if int(logits[0, -1].argmax()) != token:
            return Row(suite, d.name, "fail", f"another greedy token{SEP}step {step}: onnxruntime "
                       f"{int(logits[0, -1].argmax())}, irrun {token}")
        state = {state_in[v]: got[state_out[v]] for v in state_in}
        past += len(ids)
        ids = [token]
    return Row(suite, d.name, "pass", "max abs per step " + " ".join(f"{x:.2g}" for x in diffs))


def _one_shot(suite: str, d: Path, model: Any, session: Any) -> Row:
    """A model that is not a decoder: its inputs.npz (the bench's and the zoo folders'), else
    seeded random inputs of its static shapes; every output of irrun against onnxruntime's, at
    the export's f32 bound (irrun.export.verify: 1e-4)."""
    from irrun.export.verify import compare
    from tools.conformance.export_suite import _alias
    names = _alias(model.inputs)
    if (d / "inputs.npz").exists():
        with np.load(d / "inputs.npz") as f:
            feeds = {names[k]: f[k] for k in f.files if k in names}
    else:
        rng = np.random.default_rng(0)
        feeds = {}
        for p in model.inputs:
            if not p.shape.is_static:
                return Row(suite, d.name, "excluded", f"no inputs.npz and a dynamic input shape{SEP}{p}")
            feeds[p.name] = rng.standard_normal(p.shape.to_tuple()).astype(p.etype.dtype)
    from irrun.errors import IrrunError
    try:
        want = {k: np.asarray(v) for k, v in model.run(feeds).items()}
    except IrrunError as e:              # e.g. an inputs.npz written for another shape of the model
        return Row(suite, d.name, "excluded", f"irrun cannot run it on these inputs{SEP}"
                   f"{_short(e)}")
    try:
        got = dict(zip([o.name for o in session.get_outputs()], session.run(None, feeds)))
    except Exception as e:
        return Row(suite, d.name, "fail", f"onnxruntime fails to run it{SEP}{_short(e)}")
    agreements = compare(want, got)
    worst = max(agreements, key=lambda a: a.max_abs if a.ok else np.inf)
    if not worst.ok:
        return Row(suite, d.name, "fail", f"outputs differ{SEP}{worst.name}: max abs {worst.max_abs:.3g} "
                   f"max rel {worst.max_rel:.3g} {worst.problem}".rstrip())
    return Row(suite, d.name, "pass", f"max abs {worst.max_abs:.2g}")


def run(directories: list[Path], k: str = "", max_mb: float = 50) -> list[Row]:
    rows = []
    for root in directories:
        suite = f"generated:{root.name}"
        for d in sorted(p for p in root.iterdir() if (p / "model.xml").exists() and k in p.name):
            if max_mb and _size_mb(d) > max_mb:
                row = Row(suite, d.name, "excluded", f"over --max-mb{SEP}{_size_mb(d):.0f} MB")
            else:
                try:
                    row = measure(suite, d)
                except Exception as e:           # an irrun error on the decode: a row, not the end of the run
                    row = _model_error(suite, d.name, e)
            print(f"{row.suite}\t{row.case}\t{row.status}\t{row.detail}", file=sys.stderr, flush=True)
            rows.append(row)
    return rows


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    p.add_argument("directories", nargs="+", type=Path, help="folders holding one model folder per model")
    p.add_argument("-k", default="", help="only models whose folder name contains this")
    p.add_argument("--max-mb", type=float, default=50, help="skip folders larger than this (0: none)")
    p.add_argument("-v", "--verbose", action="store_true", help="list every case of every reason")
    args = p.parse_args(argv)
    for d in args.directories:
        if not d.is_dir():
            p.error(f"{d}: not a directory (give folders holding one model folder per model)")
    os.environ["CI"] = "true"
    rows = run(args.directories, args.k, args.max_mb)
    from tools.conformance.conformance import report
    return report(rows, False, args.verbose)


if __name__ == "__main__":
    sys.exit(main())
