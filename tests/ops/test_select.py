"""Select-1 (irrun/ops/select.py): OpenVINO's measured answers (expectations.py), the three
broadcast modes with OpenVINO's messages, partial shapes measured with OpenVINO 2026.4.1, every
element type (Select moves data), and the type checks."""
from __future__ import annotations

import numpy as np
import pytest

from expectations import cases, check
from helpers import ALL_DTYPES, Param, infer_op, raises_for, run_op, sample, shape_str
from irrun.errors import ShapeError


@pytest.mark.parametrize("case", cases("Select"))
def test_openvino_expectations(case):
    check(case)


def select(c, t, e, mode="numpy", params=(0, 1, 2)):
    return run_op("Select", [np.asarray(c), np.asarray(t), np.asarray(e)], {"auto_broadcast": mode}, params=params)[0]


@pytest.mark.parametrize("params", [(), (0,), (0, 1, 2)], ids=["const", "param-cond", "params"])
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=lambda d: str(np.dtype(d)))
def test_every_type(dtype, params):
    c = np.array([[True, False, True], [False, False, True]])
    t, e = sample((2, 3), dtype), sample((3,), dtype)
    out = select(c, t, e, params=params)
    assert out.dtype == np.dtype(dtype) and out.shape == (2, 3)
    want = np.where(c, t, e)
    assert want.tolist() == out.tolist()


def test_numpy_three_way_broadcast():
    c = np.array([True, False, True, False]).reshape(2, 1, 2)
    out = select(c, np.arange(3, dtype=np.float32).reshape(3, 1), np.float32(-1))
    np.testing.assert_array_equal(out, np.where(c, np.arange(3).reshape(3, 1), -1))
    assert out.shape == (2, 3, 2)


def test_pdpd_broadcasts_into_then_at_axis_0():
    c, t, e = np.array([[True], [False]]), np.arange(24, dtype=np.float32).reshape(2, 3, 4), np.array([[9, 8, 7], [6, 5, 4]], np.float32)
    out = select(c, t, e, "pdpd")
    np.testing.assert_array_equal(out, np.where(c.reshape(2, 1, 1), t, e.reshape(2, 3, 1)))
    raises_for("Select", ShapeError, "'Else' tensor shape is not broadcastable.", select, np.array([True]), t,
               np.ones((3, 4), np.float32), "pdpd")
    raises_for("Select", ShapeError, "'Cond' tensor shape is not broadcastable.", select, np.ones((2, 5), bool), t,
               np.ones((2, 3), np.float32), "pdpd")


def test_errors():
    f = np.ones((2, 3), np.float32)
    raises_for("Select", ShapeError, "Argument shapes are inconsistent.", select, np.ones((2, 1, 5), bool), f, f)
    raises_for("Select", ShapeError, "Argument shapes are inconsistent.", select, np.ones(3, bool), f, f, "none")
    raises_for("Select", ShapeError, "Argument 0 must have boolean element type (element type: u8).", select,
               np.ones(3, np.uint8), f, f)
    raises_for("Select", ShapeError, "Argument 1 and 2 element types must match.", select, np.ones(3, bool), f,
               f.astype(np.float16))


#: (cond, then, else) -> output per mode, measured with OpenVINO 2026.4.1; None: refused.
PARTIAL = [("2,1,4", "3,1", "4", "[2,3,4]", None, None), ("?", "2,3", "1", "[2,3]", None, "[2,3]"),
           ("...", "2,3", "2,3", "[...]", "[2,3]", "[...]"), ("2,3", "2,3", "?,?", "[2,3]", "[2,3]", "[2,3]")]


@pytest.mark.parametrize("mode, col", [("numpy", 3), ("none", 4), ("pdpd", 5)])
@pytest.mark.parametrize("row", PARTIAL, ids=["|".join(r[:3]) for r in PARTIAL])
def test_partial_shapes(row, mode, col):
    args = [Param("boolean", row[0]), Param("f32", row[1]), Param("f32", row[2])], {"auto_broadcast": mode}
    if row[col] is None:
        raises_for("Select", ShapeError, "", infer_op, "Select", *args)
    else:
        assert shape_str(infer_op("Select", *args)[0]) == row[col]
