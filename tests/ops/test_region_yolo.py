"""RegionYolo-1: the spec's shape examples, hand-computed sigmoid/softmax values, the batch
addressing OpenVINO uses with extra channels, shapes, and the OpenVINO measurements of
tools/expectations/make_detection_expectations.py."""
import numpy as np
import pytest

from helpers import Param, infer_op, raises_for, run_op, shape_str
from irrun.types import elements
from irrun.errors import ShapeError
from nn_cases import case_ids, replay

FEW = "regions need"
REFUSE = {"RegionYolo-shape-few-channels": FEW, "RegionYolo-shape-few-channels-v3": FEW}
FLOATS = [np.float32, np.float16, elements.TYPES["bf16"].dtype, np.float64]


@pytest.mark.parametrize("case", case_ids("RegionYolo"))
def test_openvino_case(case):
    replay(case, REFUSE)


def attrs(classes=2, num=2, soft=True, mask="", axis=1, end_axis=3, coords=4):
    return dict(coords=coords, classes=classes, num=num, do_softmax=soft, mask=mask, axis=axis, end_axis=end_axis,
                anchors="10,14,23,27")


@pytest.mark.parametrize("x, a, out", [
    ("1,255,26,26", dict(classes=80, num=6, soft=False, mask="0,1,2"), "[1,255,26,26]"),   # YOLO v3
    ("1,125,13,13", dict(classes=20, num=5), "[1,21125]"),                                 # YOLO v2
    ("?,125,?,13", dict(classes=20, num=5), "[?,?]"),
    ("1..2,125,2..4,13", dict(classes=20, num=5, axis=0, end_axis=2), "[250..1000,13]"),
    ("2,16,3,3", dict(axis=2, end_axis=1), "[2,16,3,3]"),
    ("...", {}, "[...]"),
])
def test_shapes(x, a, out):
    (info,) = infer_op("RegionYolo", [Param("f32", x)], attrs(**a))
    assert shape_str(info) == out


@pytest.mark.parametrize("params", [(0,), ()], ids=["param", "const"])
@pytest.mark.parametrize("dtype", FLOATS)
def test_v2_values(dtype, params):
    # one region of 4 coords + confidence + 2 classes: x, y, confidence -> sigmoid, w, h copied,
    # the classes -> softmax
    x = np.log(np.array([1, 3, 1, 1, 1 / 3, 1, 2], np.float64)).reshape(1, 7, 1, 1)
    x[0, 2:4] = [[[2]], [[-1]]]
    out = run_op("RegionYolo", [x.astype(dtype)], attrs(num=1), params=params)[0]
    assert out.shape == (1, 7) and out.dtype == np.dtype(dtype)
    tol = 1e-6 if np.dtype(dtype).itemsize >= 4 else 1e-2
    np.testing.assert_allclose(out.astype(np.float64)[0], [0.5, 0.75, 2, -1, 0.25, 1 / 3, 2 / 3], rtol=tol, atol=tol)


def test_v3_values():
    # mask of one region: the classes get a sigmoid each; channels beyond the region are dropped
    x = np.log(np.array([1, 3, 1, 1, 1 / 3, 1, 2, 5], np.float32)).reshape(1, 8, 1, 1)
    out = run_op("RegionYolo", [x], attrs(num=3, soft=False, mask="1"))[0]
    np.testing.assert_allclose(out.reshape(-1), [0.5, 0.75, 0, 0, 0.25, 0.5, 2 / 3], rtol=1e-6, atol=1e-7)


def test_extra_channels_shift_later_batches():
    # 7 channels needed, 8 given, 2 images: OpenVINO addresses image 1's region at 7 * H * W, i.e.
    # channel 7 of image 0 (its x: sigmoid) and image 1's channels 0-5 (its y, w, h, confidence, classes)
    x = np.zeros((2, 8, 1, 1), np.float32)
    out = run_op("RegionYolo", [x], attrs(num=1))[0]
    np.testing.assert_allclose(out.reshape(2, 8)[0], [0.5, 0.5, 0, 0, 0.5, 0.5, 0.5, 0.5], rtol=1e-6)
    np.testing.assert_allclose(out.reshape(2, 8)[1], [0.5, 0, 0, 0.5, 0.5, 0.5, 0, 0], rtol=1e-6)


def test_errors():
    raises_for("RegionYolo", ShapeError, "Input must be a tensor of rank 4, but got 3", infer_op, "RegionYolo",
               [Param("f32", "1,16,4")], attrs())
    raises_for("RegionYolo", ShapeError, "Type of input is expected to be a floating point type. Got: i32",
               infer_op, "RegionYolo", [Param("i32", "1,16,4,4")], attrs())
    e = raises_for("RegionYolo", ShapeError, "the 2 regions need 14", infer_op, "RegionYolo",
                   [Param("f32", "1,13,4,4")], attrs())
    assert e.openvino_loads
