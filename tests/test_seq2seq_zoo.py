"""The seq2seq zoo (tools/zoo/seq2seq_zoo.py --write-fixtures): a tiny random-weight BART exported by
``optimum-cli export openvino --task text2text-generation-with-past --weight-format int8`` — an
encoder IR and a stateful decoder IR (self-attention KV cache and cross-attention keys/values in
ReadValue/Assign variables) — must run like OpenVINO's CPU plugin (f32 inference, f32 KV cache,
no dynamic quantisation): the encoder once (two of seven source tokens masked out), then the
decoder from a reset state, the start token and three steps, greedy (batch 1) and as two beams
(batch 2, beam_idx forking then swapping the state's rows). Each output within rtol/atol, the
same tokens, and ``irrun check`` finds nothing on either IR.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import irrun
from irrun.debug.layer_diff import compare_arrays

ZOO = Path(__file__).parent / "fixtures" / "seq2seq_zoo"
MODELS = sorted(p.name for p in ZOO.iterdir() if (p / "case.json").exists()) if ZOO.is_dir() else []
IRS = ("openvino_encoder_model.xml", "openvino_decoder_model.xml")


def _trace(path: Path) -> tuple[dict[str, np.ndarray], list[dict[str, np.ndarray]], dict[str, np.ndarray]]:
    """(encoder inputs, decoder inputs per step, OpenVINO's outputs) of one trace npz."""
    source: dict[str, np.ndarray] = {}
    steps: dict[int, dict[str, np.ndarray]] = {}
    expected: dict[str, np.ndarray] = {}
    with np.load(path) as f:
        for key in f.files:
            head, name = key.split(".", 1)
            if head == "source":
                source[name] = f[key]
            elif head == "expected":
                expected[name] = f[key]
            else:
                steps.setdefault(int(head), {})[name] = f[key]
    return source, [steps[i] for i in sorted(steps)], expected


def test_seq2seq_fixtures_present():
    assert MODELS, "run python -m tools.zoo.seq2seq_zoo --write-fixtures"
    for m in MODELS:
        assert {p.name for p in (ZOO / m).glob("*.npz")} == {"greedy.npz", "beam2.npz"}, m
        assert sum(p.stat().st_size for p in (ZOO / m).iterdir()) < 300 << 10, m


@pytest.mark.parametrize("trace", ["greedy", "beam2"])
@pytest.mark.parametrize("model", MODELS)
def test_encoder_and_decoder_match_openvino_step_by_step(model, trace):
    d = ZOO / model
    meta = json.loads((d / "case.json").read_text())
    source, steps, want = _trace(d / f"{trace}.npz")
    tol = meta["rtol"], meta["atol"]
    hidden = next(iter(irrun.read_model(d / IRS[0]).run(source).values()))
    diff = compare_arrays("encoder", hidden, want["encoder"], *tol)
    assert diff.equal, (diff.bad, diff.max_abs)
    assert len(steps) == 4 and steps[0]["input_ids"].shape[1] == 1
    np.testing.assert_array_equal(steps[0]["encoder_hidden_states"][:1], want["encoder"])
    decoder = irrun.read_model(d / IRS[1])
    decoder.reset_state()
    for i, feeds in enumerate(steps):
        ref = want[str(i)]
        if trace == "beam2":
            assert feeds["beam_idx"].tolist() == [[0, 1], [0, 0], [1, 0], [1, 0]][i]
        if i and trace == "greedy":      # the step feeds OpenVINO's greedy token of the previous step
            assert feeds["input_ids"].tolist() == [[int(want[str(i - 1)][0, -1].argmax())]]
        got = next(iter(decoder.run(feeds).values()))
        diff = compare_arrays(f"step {i}", got, ref, *tol)
        assert diff.equal, (i, diff.bad, diff.max_abs, diff.max_rel)
        assert got[:, -1].argmax(-1).tolist() == ref[:, -1].argmax(-1).tolist(), i
    if trace == "beam2":        # the beams' states differ: the swap at the last steps was seen
        assert not np.allclose(want["3"][0], want["3"][1])


@pytest.mark.parametrize("ir", IRS)
@pytest.mark.parametrize("model", MODELS)
def test_check_finds_nothing_on_an_openvino_written_ir(model, ir):
    assert irrun.check(ZOO / model / ir) == []
