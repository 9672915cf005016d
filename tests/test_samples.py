"""The README's samples run to OpenVINO's outputs (expected.npy, written by tools/docs/make_samples.py)
and check clean, through the CLI exactly as the README shows."""
from pathlib import Path

import numpy as np
import pytest

from irrun.cli.main import main

SAMPLES = sorted(p.parent for p in (Path(__file__).parent.parent / "samples").glob("*/model.xml"))


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda p: p.name)
def test_sample_runs_to_openvino_output(sample, tmp_path, capsys):
    assert main([str(sample / "model.xml"), "--input", str(sample / "input.npy"),
                 "--output", str(tmp_path / "out.npz")]) == 0
    (got,) = np.load(tmp_path / "out.npz").values()
    want = np.load(sample / "expected.npy")
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)
    assert main(["check", str(sample / "model.xml")]) == 0
    assert capsys.readouterr().out.strip().endswith("OK, no problems found")


def test_there_are_samples():
    assert {p.name for p in SAMPLES} >= {"shufflenet_block"}
