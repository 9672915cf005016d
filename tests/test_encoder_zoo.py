"""The encoder zoo (tools/zoo/encoder_zoo.py --write-fixtures): tiny random-weight encoders made with the
tools users use (optimum-cli export openvino, nncf, openvino.convert_model on a diffusers UNet) must
run in irrun to the outputs OpenVINO's CPU plugin (INFERENCE_PRECISION_HINT f32) gave on the same three
input sets, and ``irrun check`` must find nothing on these OpenVINO-written IRs.
"""
from __future__ import annotations

from pathlib import Path

import pytest
from helpers import assert_fixture_matches

import irrun

ZOO = Path(__file__).parent / "fixtures" / "encoder_zoo"
CASES = sorted(p.name for p in ZOO.iterdir() if (p / "model.xml").exists()) if ZOO.is_dir() else []


def test_encoder_zoo_fixtures_present():
    assert len(CASES) >= 2, "run python -m tools.zoo.encoder_zoo --write-fixtures"
    for c in CASES:
        assert sum(p.stat().st_size for p in (ZOO / c).iterdir()) < 300 << 10, c


@pytest.mark.parametrize("case", CASES)
def test_encoder_matches_openvino(case):
    assert (ZOO / case / "inputs_3.npz").exists(), "three input sets of different shapes"
    assert_fixture_matches(ZOO / case)


@pytest.mark.parametrize("case", CASES)
def test_check_finds_nothing_on_an_openvino_written_ir(case):
    assert irrun.check(ZOO / case / "model.xml") == []


def test_fixtures_are_the_quantised_exports_they_claim():
    """ptq: nncf.quantize's FakeQuantize on activations; int8: optimum's u8 weights decompressed
    by a Convert/Subtract/Multiply chain; mxfp4: nncf's f4e2m1 weights with f8e8m0 group scales
    (the patterns irrun must run)."""
    kinds = {c.rsplit("_", 1)[1] for c in CASES}
    assert {"ptq", "int8", "mxfp4"} <= kinds, kinds
    for case in CASES:
        xml = (ZOO / case / "model.xml").read_text(encoding="utf-8")
        if case.endswith("_ptq"):
            assert xml.count('type="FakeQuantize"') >= 4, case
        if case.endswith("_int8"):
            assert 'element_type="u8"' in xml and 'type="Subtract"' in xml, case
        if case.endswith("_mxfp4"):
            assert 'element_type="f4e2m1"' in xml and 'element_type="f8e8m0"' in xml, case
