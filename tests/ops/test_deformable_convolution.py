"""DeformableConvolution-1/8: OpenVINO's measured answers (opsets_expectations, the CPU plugin)
and the rule that zero offsets make it a plain convolution."""

import numpy as np
import pytest

from helpers import run_op
from nn_cases import case_ids, replay

ATTRS = {"strides": "1,1", "pads_begin": "0,0", "pads_end": "0,0", "dilations": "1,1"}


@pytest.mark.parametrize("case", case_ids("DeformableConvolution"))
def test_openvino_case(case):
    replay(case)


def test_zero_offsets_and_whole_pixel_shift():
    rng = np.random.default_rng(3)
    x, w = rng.normal(size=(1, 2, 5, 5)).astype(np.float32), rng.normal(size=(3, 2, 2, 2)).astype(np.float32)
    plain = run_op("Convolution", [x, w], ATTRS, params=(0, 1))[0]
    zero = run_op("DeformableConvolution", [x, np.zeros((1, 8, 4, 4), np.float32), w], ATTRS, "opset8",
                  params=(0, 1))[0]
    np.testing.assert_allclose(zero, plain, rtol=1e-5, atol=1e-6)
    # every tap shifted one row down: output row r is the plain row r+1 (the last row reads zeros)
    shift = np.zeros((1, 8, 4, 4), np.float32)
    shift[:, 0::2] = 1
    moved = run_op("DeformableConvolution", [x, shift, w], ATTRS, "opset8", params=(0, 1))[0]
    np.testing.assert_allclose(moved[:, :, :3], plain[:, :, 1:], rtol=1e-5, atol=1e-6)
