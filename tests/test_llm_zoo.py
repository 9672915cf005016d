"""The LLM zoo (tools/zoo/llm_zoo.py --write-fixtures): tiny random-weight decoders exported by
``optimum-cli export openvino --task text-generation-with-past`` (stateful: the KV cache lives in
ReadValue/Assign variables) must decode like OpenVINO's CPU plugin (f32 inference, f32 KV cache,
no dynamic quantisation): a prefill and three greedy steps, the state carried from step to step,
each step's logits within the case's rtol/atol and the same greedy token. ``irrun check`` must find
nothing on these OpenVINO-written IRs.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import irrun
from irrun.debug.layer_diff import compare_arrays

ZOO = Path(__file__).parent / "fixtures" / "llm_zoo"
CASES = sorted(p.name for p in ZOO.iterdir() if (p / "model.xml").exists()) if ZOO.is_dir() else []


def _steps(d: Path) -> list[dict[str, np.ndarray]]:
    with np.load(d / "steps.npz") as f:
        steps: dict[int, dict[str, np.ndarray]] = {}
        for key in f.files:
            i, name = key.split(".", 1)
            steps.setdefault(int(i), {})[name] = f[key]
    return [steps[i] for i in sorted(steps)]


def test_llm_zoo_fixtures_present():
    assert len(CASES) >= 2, "run python -m tools.zoo.llm_zoo --write-fixtures"
    for c in CASES:
        assert sum(p.stat().st_size for p in (ZOO / c).iterdir()) < 1 << 20, c


@pytest.mark.parametrize("case", CASES)
def test_decode_matches_openvino_step_by_step(case):
    d = ZOO / case
    meta = json.loads((d / "case.json").read_text())
    steps = _steps(d)
    with np.load(d / "expected.npz") as e:
        want = [e[str(i)] for i in range(len(steps))]
    assert len(steps) == 4 and steps[0]["input_ids"].shape[1] > 1       # a prefill, then single tokens
    model = irrun.read_model(d / "model.xml")
    for i, (feeds, ref) in enumerate(zip(steps, want)):
        if i:       # the step feeds OpenVINO's greedy token of the previous step
            assert feeds["input_ids"].tolist() == [[int(want[i - 1][0, -1].argmax())]]
        got = next(iter(model.run(feeds).values()))
        diff = compare_arrays(f"step {i}", got, ref, meta["rtol"], meta["atol"])
        assert diff.equal, (i, diff.bad, diff.max_abs, diff.max_rel)
        assert int(got[0, -1].argmax()) == int(ref[0, -1].argmax()), i


@pytest.mark.parametrize("case", CASES)
def test_check_finds_nothing_on_an_openvino_written_ir(case):
    assert irrun.check(ZOO / case / "model.xml") == []
