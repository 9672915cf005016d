"""CumSum-3 (irrun/ops/cumsum.py): the four cumsum-3.rst examples, OpenVINO's measured answers
(expectations.py), axis handling (scalar or one element, i32/i64, negative), the refusals where
OpenVINO cannot read or crashes, element types and partial shapes."""
from __future__ import annotations

import numpy as np
import pytest

from expectations import cases, check
from helpers import Param, infer_op, raises_for, run_op, shape_str
from irrun.types import elements
from irrun.errors import ShapeError

NUMERIC = [np.float64, np.float32, np.float16, elements.TYPES["bf16"].dtype, np.int64, np.int32, np.int16,
           np.int8, np.uint64, np.uint32, np.uint16, np.uint8]


@pytest.mark.parametrize("case", cases("CumSum"))
def test_openvino_expectations(case):
    check(case)


def cumsum(x, axis, exclusive=False, reverse=False, params=(0,)):
    return run_op("CumSum", [np.asarray(x), np.asarray(axis)], {"exclusive": exclusive, "reverse": reverse},
                  version="opset3", params=params)[0]


@pytest.mark.parametrize("params", [(), (0,), (0, 1)], ids=["const", "param-data", "params"])
@pytest.mark.parametrize("exclusive, reverse, want", [(False, False, [1, 3, 6, 10, 15]), (True, False, [0, 1, 3, 6, 10]),
                                                      (False, True, [15, 14, 12, 9, 5]), (True, True, [14, 12, 9, 5, 0])])
def test_spec_examples(exclusive, reverse, want, params):
    out = cumsum(np.array([1.0, 2.0, 3.0, 4.0, 5.0], np.float32), np.int64(0), exclusive, reverse, params)
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("axis", [np.int32(-1), np.int64(1), np.array([1], np.int64)], ids=["i32 -1", "i64 1", "[1]"])
def test_axis_forms(axis):
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_array_equal(cumsum(x, axis), [[0, 1, 3], [3, 7, 12]])


@pytest.mark.parametrize("dtype", NUMERIC, ids=lambda d: np.dtype(d).name)
def test_types(dtype):
    out = cumsum(np.array([[1, 2], [3, 4]], dtype), np.int64(0), exclusive=True)
    assert out.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(out.astype(np.float64), [[0, 0], [1, 2]])


def test_integers_wrap():
    np.testing.assert_array_equal(cumsum(np.array([100, 100], np.int8), np.int32(0)), [100, -56])


def test_errors():
    x = np.ones((2, 3), np.float32)
    rejects = lambda exc, frag, *a, **k: raises_for("CumSum", exc, frag, *a, **k)  # noqa: E731
    rejects(ShapeError, "Axis 2 out of the tensor rank range [-2, 1].", cumsum, x, np.int64(2))
    rejects(ShapeError, "axis element type must be either int64_t or int32_t but got (f32).", cumsum, x, np.float32(1))
    rejects(ShapeError, "Axis 0 out of the tensor rank range", cumsum, np.float32(2), np.int64(0))
    rejects(ShapeError, "CumSum without its axis input", run_op, "CumSum", [x], version="opset3")
    rejects(ShapeError, "CumSum axis must be a scalar", cumsum, x, np.array([0, 1], np.int64))


def test_shapes():
    (info,) = infer_op("CumSum", [Param("f32", "?,3"), Param("i64", "")], version="opset3")
    assert shape_str(info) == "[?,3]" and info.etype.name == "f32"
