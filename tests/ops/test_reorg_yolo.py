"""ReorgYolo-2: the spec's shape example, a hand-derived permutation for every element type,
channel counts that are not a multiple of stride^2, shapes, and the OpenVINO measurements of
tools/expectations/make_detection_expectations.py."""
from functools import partial

import numpy as np
import pytest

from helpers import ALL_DTYPES, Param, infer_op, raises_for, run_op, sample, shape_str
from irrun.errors import ShapeError
from nn_cases import case_ids, replay

REFUSE = {"ReorgYolo-shape-stride-0": "should be greater than 0"}
rejects = partial(raises_for, "ReorgYolo")


@pytest.mark.parametrize("case", case_ids("ReorgYolo"))
def test_openvino_case(case):
    replay(case, REFUSE)


def reorg(x, stride=2, params=(0,)):
    return run_op("ReorgYolo", [x], {"stride": stride}, "opset2", params=params)[0]


@pytest.mark.parametrize("x, out", [("1,64,26,26", "[1,256,13,13]"),       # reorg-yolo-1.rst
                                    ("1..2,64,5..9,?", "[1..2,256,3..4,?]"), ("1,?,26,26", "[1,?,13,13]"),
                                    ("...", "[...]")])
def test_shapes(x, out):
    (info,) = infer_op("ReorgYolo", [Param("f32", x)], {"stride": 2}, "opset2")
    assert shape_str(info) == out


@pytest.mark.parametrize("params", [(0,), ()], ids=["param", "const"])
@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_values_every_type(dtype, params):
    # [1, 4, 2, 2] read as one 4 x 4 plane: output channel a*2+b holds rows 2h+a, columns 2w+b
    x = sample((1, 4, 2, 2), dtype)
    out = reorg(x, params=params)
    assert out.shape == (1, 16, 1, 1) and out.dtype == x.dtype
    perm = [0, 2, 8, 10, 1, 3, 9, 11, 4, 6, 12, 14, 5, 7, 13, 15]
    np.testing.assert_array_equal(out.reshape(-1), x.reshape(-1)[perm])


def test_channels_not_a_multiple_of_stride_squared():
    # C = 6, s = 2: C' = 1, channel c reads offset c of the [1, 1, 8, 8] view (rows 2h + c // 2)
    x = np.arange(96, dtype=np.int32).reshape(1, 6, 4, 4)
    out = reorg(x)
    assert out.shape == (1, 24, 2, 2)
    flat = out.reshape(6, 4, 4)
    np.testing.assert_array_equal(flat[4, 0], [16, 18, 20, 22])           # row 2 of the 8 x 8 view
    np.testing.assert_array_equal(flat[5, 3], [65, 67, 69, 71])      # row 2 * 3 + 2 = 8, odd columns


def test_errors():
    rejects(ShapeError, "H and W should be divisible by stride.", infer_op, "ReorgYolo", [Param("f32", "1,8,5,4")],
            {"stride": 2}, "opset2")
    rejects(ShapeError, "C >= (stride*stride) is required.", infer_op, "ReorgYolo", [Param("f32", "1,3,4,4")],
            {"stride": 2}, "opset2")
    rejects(ShapeError, "[N, C, H, W] input shape is required.", infer_op, "ReorgYolo", [Param("f32", "1,8,4")],
            {"stride": 2}, "opset2")
    e = rejects(ShapeError, "should be greater than 0", infer_op, "ReorgYolo", [Param("f32", "1,8,4,4")],
                {"stride": 0}, "opset2")
    assert e.openvino_loads
