"""STFT-15 and ISTFT-16: OpenVINO's measured answers (opsets_expectations, the CPU plugin) and the
round trip: ISTFT of STFT gives the signal back where the windows cover it."""

import numpy as np
import pytest

from helpers import run_op
from nn_cases import case_ids, replay


@pytest.mark.parametrize("case", case_ids("STFT", "ISTFT"))
def test_openvino_case(case):
    replay(case)


def test_round_trip():
    rng = np.random.default_rng(5)
    sig = rng.normal(size=40).astype(np.float32)
    win = np.hanning(8).astype(np.float32) + np.float32(0.1)
    spec = run_op("STFT", [sig, win, np.int64(8), np.int64(2)], {"transpose_frames": "true"}, "opset15",
                  params=(0, 1))[0]
    assert spec.shape == (5, 17, 2)
    back = run_op("ISTFT", [spec, win, np.int64(8), np.int64(2)], {"center": "false", "normalized": "false"},
                  "opset16", params=(0, 1))[0]
    np.testing.assert_allclose(back, sig, rtol=1e-4, atol=1e-5)
