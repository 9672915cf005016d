"""The model zoo (tools/zoo/zoo.py --write-fixtures): small torch models converted by
``openvino.convert_model``, with fp32 and fp16-compressed weights, must run in irrun to the outputs
OpenVINO's CPU plugin (INFERENCE_PRECISION_HINT f32) gave for the same inputs.

Tolerance (issue 3): integer and boolean outputs exactly; floats within
``|irrun - ov| <= atol + rtol * |ov|``, rtol 1e-4 / atol 1e-5, unless the case's case.json
declares (and explains) a wider bound. The fp16 variants use the same bound: both runtimes turn
the f16 weights into f32 before computing.
"""
from __future__ import annotations

from pathlib import Path

import pytest
from helpers import assert_fixture_matches

ZOO = Path(__file__).parent / "fixtures" / "zoo"
CASES = sorted(p.name for p in ZOO.iterdir() if (p / "model.xml").exists()) if ZOO.is_dir() else []
MODELS = {"resnet", "mobilenet_v2", "mobilenet_v3", "shufflenet_v2", "unet", "dynamic_cnn", "detection",
          "bert", "gpt2", "gpt2_sdpa", "vit", "lstm_gru"}

def test_zoo_fixtures_present():
    have = {(c.rsplit("_", 1)[0], c.rsplit("_", 1)[1]) for c in CASES}
    assert have == {(m, v) for m in MODELS for v in ("fp32", "fp16")}, "run python -m tools.zoo.zoo --write-fixtures"
    assert sum(p.stat().st_size for p in ZOO.rglob("*") if p.is_file()) < 3 << 20


@pytest.mark.parametrize("case", CASES)
def test_zoo_model_matches_openvino(case):
    assert_fixture_matches(ZOO / case)


def test_fp16_variant_really_has_compressed_weights():
    """The fp16 fixtures are what compress_to_fp16=True writes: f16 Consts decompressed by a
    Convert (the pattern irrun must run), and the fp32 ones have no f16 Const."""
    for model in sorted(MODELS):
        f16 = (ZOO / f"{model}_fp16" / "model.xml").read_text(encoding="utf-8")
        f32 = (ZOO / f"{model}_fp32" / "model.xml").read_text(encoding="utf-8")
        assert 'element_type="f16"' in f16 and 'type="Convert"' in f16, model
        assert 'element_type="f16"' not in f32, model
