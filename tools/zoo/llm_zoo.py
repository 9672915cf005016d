"""The LLM suite of the conformance tool: optimum-intel stateful decoder exports, irrun vs OpenVINO.

    python -m tools.zoo.llm_zoo [-k SUBSTR] [--workdir DIR] [--write-fixtures]
    python -m tools.conformance.conformance --suite llm ...        (the same, through the shared driver)

Every tiny model of tools/zoo/make_llms.py (random weights, fixed seed, exported by ``optimum-cli
export openvino --task text-generation-with-past``; int8, int4, nf4 and uncompressed weights) is
built into the work directory (cached), then decoded twice with its KV cache carried in the
state: a prefill of ``PROMPT`` tokens (fixed seed) and ``STEPS`` greedy decode steps.

* OpenVINO (the expected values): CPU plugin with ``INFERENCE_PRECISION_HINT=f32``,
  ``KV_CACHE_PRECISION=f32`` and ``DYNAMIC_QUANTIZATION_GROUP_SIZE=0`` (otherwise it computes in
  bf16/u8 or quantises activations), in a worker process (tools/ovoracle.py). Each next token is
  OpenVINO's argmax; the step inputs (input_ids, attention_mask, position_ids, beam_idx) it was
  fed are kept.
* irrun: ``read_model``, ``reset_state``, then the same step inputs in order (teacher-forced with
  OpenVINO's tokens, so one diverging token does not hide the later steps).

Agreement: every step's logits within ``|irrun - ov| <= ATOL + RTOL*|ov|`` (wider for nf4 weights:
``WIDER`` says why) and the same greedy token. Also ``irrun.check`` on every IR: any finding (warnings too) on an IR OpenVINO wrote is a
false alarm, and fails the case. Status: ``pass``; ``fail`` (worst error and step, or the token
that differs, or the finding); ``unsupported`` (irrun raised UnsupportedError); ``excluded`` when
the export or OpenVINO fails.

``--write-fixtures`` writes the cases of ``FIXTURE_CASES`` to tests/fixtures/llm_zoo/<name>/
(model.xml, model.bin, steps.npz keyed ``"<step>.<input>"``, expected.npz keyed ``"<step>"``
with OpenVINO's logits, case.json) for tests/test_llm_zoo.py, which needs no OpenVINO.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
from pathlib import Path

import numpy as np

from tools import ROOT
from tools.conformance.conformance_rows import SEP, Row

SUITE = "llm"
PROMPT, STEPS = 6, 3
#: Measured: irrun and OpenVINO differ by at most 9.5e-7 on these logits (|logits| ~ 1); 1e-4 leaves
#: room for summation order in the KV-cache attention without hiding a wrong kernel.
RTOL, ATOL = 1e-4, 1e-4
#: Wider bounds, with the reason. nf4: OpenVINO's CPU plugin decompresses nf4 weights inside its fused
#: FullyConnected kernel, whose logits differ from its own unfused graph by up to ~1.6e-4 (measured on
#: tiny_llama-nf4 and tiny_qwen3-nf4); with every port an output (``irrun compare``) all layers agree
#: with irrun within rtol 1e-5 / atol 1e-6.
WIDER = {"-nf4": (1e-4, 5e-4)}
OV_CONFIG = {"INFERENCE_PRECISION_HINT": "f32", "KV_CACHE_PRECISION": "f32", "DYNAMIC_QUANTIZATION_GROUP_SIZE": 0}
FIXTURES = ROOT / "tests" / "fixtures" / "llm_zoo"
FIXTURE_CASES = ("tiny_gpt2-int8", "tiny_llama-int4", "tiny_qwen2_moe-int8")
FIXTURE_LIMIT = 1 << 20             # per checked-in case


def step_feeds(ids: list[int], past: int, dtypes: dict[str, np.dtype], conv_kernel: int = 0) -> dict[str, np.ndarray]:
    """One step's inputs: ``ids`` after ``past`` cached tokens (batch 1, beam 0), for the inputs
    the model has (``dtypes``: name -> element type). State-space models (mamba: a
    ``cache_position`` input) are fed as optimum-intel's generate feeds them: cache_position
    ``arange(conv_kernel)`` at the prefill, then ``conv_kernel + k`` at decode step k (k from 0),
    and an attention mask over the new tokens only."""
    n = len(ids)
    feeds = {"input_ids": np.array([ids]), "attention_mask": np.ones((1, past + n)),
             "position_ids": np.arange(past, past + n)[None], "beam_idx": np.zeros(1)}
    if "cache_position" in dtypes:
        feeds["attention_mask"] = np.ones((1, n))
        feeds["cache_position"] = np.arange(conv_kernel) if not past else np.array([conv_kernel + past - PROMPT])
    return {k: v.astype(dtypes[k]) for k, v in feeds.items() if k in dtypes}


def greedy_steps(request, feeds_for, first: list[int], steps: int = STEPS) -> dict:
    """Run in the OpenVINO worker: from a reset state, ``first`` (the prefill) then ``steps`` greedy
    tokens, each fed by ``feeds_for(ids, past)`` (``past``: tokens already in the state); the step
    inputs and the logits (output 0) of each step. Shared by the llm and seq2seq suites."""
    feeds, logits, past, ids = [], [], 0, first
    request.reset_state()
    for _ in range(steps + 1):
        f = feeds_for(ids, past)
        request.infer(f)
        out = np.array(request.get_output_tensor(0).data, np.float32, copy=True)
        feeds.append(f)
        logits.append(out)
        past += len(ids)
        ids = [int(out[0, -1].argmax())]
    return {"feeds": feeds, "logits": logits}


def compiled_for_cpu(xml: str):
    """Run in the OpenVINO worker: the IR compiled for the CPU plugin with OV_CONFIG, and its
    inputs' element types (name -> numpy dtype)."""
    import openvino as ov
    core = ov.Core()
    compiled = core.compile_model(core.read_model(xml), "CPU", OV_CONFIG)
    return compiled, {p.get_any_name(): np.dtype(p.get_element_type().to_dtype()) for p in compiled.inputs}


def openvino_decode(xml: str, config: dict, prompt: int = PROMPT, steps: int = STEPS) -> dict:
    """Run in the OpenVINO worker: prefill + greedy steps, state carried; the step inputs and the
    logits of each step."""
    compiled, dtypes = compiled_for_cpu(xml)
    ids = np.random.default_rng(0).integers(3, config["vocab_size"], prompt).tolist()
    return greedy_steps(compiled.create_infer_request(),
                        lambda ids, past: step_feeds(ids, past, dtypes, config.get("conv_kernel", 0)), ids, steps)


def irrun_decode(xml: Path, feeds: list[dict]) -> list[np.ndarray]:
    """irrun's logits for the same step inputs, state carried from a fresh start."""
    import irrun
    model = irrun.read_model(xml)
    model.reset_state()
    return [np.asarray(next(iter(model.run(f).values()))) for f in feeds]


def disagreement(got: list[np.ndarray], want: list[np.ndarray], rtol: float = RTOL, atol: float = ATOL) -> str:
    """'' when every step's logits agree and give the same greedy token, else the first problem."""
    from irrun.debug.layer_diff import compare_arrays
    for i, (g, w) in enumerate(zip(got, want)):
        if g.shape != w.shape:
            return f"step {i}: logits of shape {list(g.shape)}, OpenVINO {list(w.shape)}"
        d = compare_arrays("", g.astype(np.float32), w, rtol, atol)
        if not d.equal:
            return (f"logits differ{SEP}step {i}: {d.bad} of {d.size} values off, max abs err "
                    f"{d.max_abs:.3g}, max rel err {d.max_rel:.3g}" if d.max_abs is not None else d.note)
        if int(g[0, -1].argmax()) != int(w[0, -1].argmax()):
            return f"greedy token differs{SEP}step {i}: irrun {int(g[0, -1].argmax())}, OpenVINO {int(w[0, -1].argmax())}"
    return ""


def findings(xml: Path) -> str:
    """``irrun check``'s findings on an OpenVINO-written IR ('' when none: any is a false alarm)."""
    import irrun
    found = irrun.check(xml)
    return "; ".join(f"{f.severity}: {f.message}" for f in found[:3]) + (
        f" (+{len(found) - 3} more)" if len(found) > 3 else "")


def tolerance(name: str) -> tuple[float, float]:
    """(rtol, atol) of a case: RTOL/ATOL, or its WIDER bound."""
    return next((t for suffix, t in WIDER.items() if name.endswith(suffix)), (RTOL, ATOL))


def check_case(name: str, xml: Path, ref: dict) -> Row:
    from irrun.errors import UnsupportedError
    try:
        got = irrun_decode(xml, ref["feeds"])
    except UnsupportedError as e:
        return Row(SUITE, name, "unsupported", str(e).split(": ", 1)[-1])
    except Exception as e:          # any error of irrun's is a failure of the case, said in the table
        return Row(SUITE, name, "fail", f"irrun raised {type(e).__name__}{SEP}{str(e)[:300]}")
    bad = disagreement(got, ref["logits"], *tolerance(name))
    if not bad:
        alarm = findings(xml)
        bad = f"irrun check reports a finding{SEP}{alarm}" if alarm else ""
    worst = max(float(np.abs(g.astype(np.float64) - w).max()) for g, w in zip(got, ref["logits"]))
    return Row(SUITE, name, "fail" if bad else "pass", bad or f"max abs err {worst:.3g}")


def write_fixture(d: Path, src: Path, ref: dict, tol: tuple[float, float]) -> None:
    """One checked-in case: the IR, the step inputs and OpenVINO's logits per step."""
    shutil.rmtree(d, ignore_errors=True)
    d.mkdir(parents=True)
    for f in ("model.xml", "model.bin"):
        shutil.copyfile(src / f, d / f)
    np.savez_compressed(d / "steps.npz", **{f"{i}.{k}": v for i, f in enumerate(ref["feeds"]) for k, v in f.items()})
    np.savez_compressed(d / "expected.npz", **{str(i): v for i, v in enumerate(ref["logits"])})
    build = json.loads((src / "build.json").read_text()) if (src / "build.json").exists() else {}
    (d / "case.json").write_text(json.dumps({
        "doc": f"{d.name}: prefill of {PROMPT} tokens + {STEPS} greedy steps, state carried; expected: "
               f"OpenVINO CPU {OV_CONFIG} (tools/zoo/llm_zoo.py --write-fixtures)",
        "command": build.get("command", ""), "rtol": tol[0], "atol": tol[1]}, indent=1) + "\n")
    warn_if_over(d, FIXTURE_LIMIT)


def warn_if_over(d: Path, limit: int) -> None:
    """Say so when the checked-in case ``d`` is over ``limit`` bytes (its test_*_zoo.py test fails
    it). Shared by the llm, seq2seq and encoder suites."""
    size = sum(p.stat().st_size for p in d.iterdir())
    if size > limit:
        print(f"{d}: {size >> 10} KiB, over the {limit >> 10} KiB limit", file=sys.stderr)


def run(workdir: Path, k: str = "", *, write_fixtures: bool = False) -> list[Row]:
    """Export (or reuse), decode and compare every tiny model whose name contains ``k``."""
    from tools.zoo import make_llms
    from tools.ovoracle import Oracle
    rows: list[Row] = []
    workdir = Path(workdir)
    with Oracle(timeout=600) as oracle:
        for name in [n for n in make_llms.TINY_NAMES if k in n]:
            d = workdir / name

            def expected():
                make_llms.export(name, workdir)
                return oracle.call(openvino_decode, str(d / "model.xml"), json.loads((d / "config.json").read_text()))
            row, ref = case_row(SUITE, name, expected, lambda ref: check_case(name, d / "model.xml", ref))
            rows.append(row)
            if write_fixtures and name in FIXTURE_CASES and row.status == "pass":
                write_fixture(FIXTURES / name, d, ref, tolerance(name))
    return rows


def case_row(suite: str, case: str, expected, check) -> tuple[Row, object]:
    """One case of a suite whose models are exported then run by OpenVINO: ``expected()`` exports
    and returns the oracle's result (SystemExit when the export fails), ``check(value)`` compares
    irrun with it. The row (``excluded`` when the export or OpenVINO fails; printed) and the
    oracle's value. Shared by the llm and seq2seq suites."""
    from tools.ovoracle import short_message
    ref = None
    try:
        r = expected()
    except SystemExit as e:
        row = Row(suite, case, "excluded", f"optimum-cli export failed{SEP}{str(e)[-300:]}")
    else:
        ref = r.value
        row = check(ref) if r.ok else Row(suite, case, "excluded",
                                          f"OpenVINO CPU cannot run it{SEP}{short_message(r.message)}")
    print(f"  {case:28} {row.status} {row.detail}", file=sys.stderr, flush=True)
    return row, ref


def main(argv: list[str] | None = None, doc: str = __doc__, suite_run=None, suite: str = SUITE,
         fixtures: Path = FIXTURES) -> int:
    """The command line of a suite module (this one, or tools/zoo/seq2seq_zoo.py passing its own)."""
    p = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    p.add_argument("-k", default="", help="only models whose name contains this")
    p.add_argument("--workdir", type=Path, default=None, help="where the exports are cached")
    p.add_argument("--write-fixtures", action="store_true", help=f"write FIXTURE_CASES to {fixtures.relative_to(ROOT)}/")
    args = p.parse_args(argv)
    os.environ["CI"] = "true"
    from tools.conformance.conformance import default_workdir, report
    rows = (suite_run or run)(args.workdir or default_workdir() / suite, args.k, write_fixtures=args.write_fixtures)
    return report(rows)


if __name__ == "__main__":
    sys.exit(main())
