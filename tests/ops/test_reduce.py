"""Reductions (irrun/ops/reduce.py): OpenVINO's measured answers (expectations.py), the reduce-sum-1.rst
shape examples, keep_dims, axes forms (scalar, 1-D, negative, duplicates, run-time, empty: also as
an empty Const, which OpenVINO cannot read back), empty reductions, NaN, accumulation, partial shapes
measured with OpenVINO 2026.4.1, and the errors."""
from __future__ import annotations

import numpy as np
import pytest

from expectations import cases, check
from helpers import Param, infer_op, raises_for, run_op, shape_str
from irrun.types import elements
from irrun.errors import ExecutionError, ShapeError
from irrun.ops.reduce import ReduceOp

TYPES = [c.type for c in ReduceOp.__subclasses__()]
VERSION = {c.type: c.version for c in ReduceOp.__subclasses__()}
NUMERIC = [np.float64, np.float32, np.float16, elements.TYPES["bf16"].dtype, np.int64, np.int32, np.int16,
           np.int8, np.uint64, np.uint32, np.uint16, np.uint8]


@pytest.mark.parametrize("case", cases(*TYPES))
def test_openvino_expectations(case):
    check(case)


def reduce(op, x, axes, keep=False, params=(0,)):
    return run_op(op, [np.asarray(x), np.asarray(axes)], {"keep_dims": keep}, version=VERSION[op], params=params)[0]


@pytest.mark.parametrize("params", [(), (0,), (0, 1)], ids=["const", "param-data", "params"])
@pytest.mark.parametrize("axes, keep, out", [([2, 3], True, (6, 12, 1, 1)), ([2, 3], False, (6, 12)),
                                             ([1], False, (6, 10, 24)), ([-2], False, (6, 12, 24))])
def test_spec_shape_examples(axes, keep, out, params):
    x = np.ones((6, 12, 10, 24), np.float32)
    res = reduce("ReduceSum", x, np.array(axes, np.int64), keep, params)
    assert res.shape == out
    np.testing.assert_array_equal(res, np.sum(x, axis=tuple(a % 4 for a in axes), keepdims=keep))


X = np.array([[[1.0, -2.0, 3.0], [4.0, 5.0, -6.0]], [[-7.0, 8.0, 0.5], [0.0, -1.0, 2.0]]])
DEFINITIONS = {
    "ReduceSum": lambda x, a, k: np.sum(x, axis=a, keepdims=k),
    "ReduceMean": lambda x, a, k: np.mean(x, axis=a, keepdims=k),
    "ReduceMax": lambda x, a, k: np.max(x, axis=a, keepdims=k),
    "ReduceMin": lambda x, a, k: np.min(x, axis=a, keepdims=k),
    "ReduceProd": lambda x, a, k: np.prod(x, axis=a, keepdims=k),
    "ReduceL1": lambda x, a, k: np.sum(np.abs(x), axis=a, keepdims=k),
    "ReduceL2": lambda x, a, k: np.sqrt(np.sum(x * x, axis=a, keepdims=k)),
}


@pytest.mark.parametrize("keep", [False, True])
@pytest.mark.parametrize("axes", [np.int64(1), np.array([0, -1], np.int32), np.array([2, 2, -1], np.int64),
                                  np.array([0, 1, 2], np.uint8)], ids=["scalar", "0,-1", "duplicates", "all"])
@pytest.mark.parametrize("op", DEFINITIONS)
def test_definitions(op, axes, keep):
    ax = tuple(sorted({int(a) % 3 for a in np.atleast_1d(axes)}))
    out = reduce(op, X.astype(np.float32), axes, keep)
    np.testing.assert_allclose(out, DEFINITIONS[op](X, ax, keep), rtol=1e-6)


@pytest.mark.parametrize("dtype", NUMERIC, ids=lambda d: np.dtype(d).name)
def test_types(dtype):
    x = np.array([[1, 2, 3], [4, 5, 6]], dtype)
    for op, want in [("ReduceSum", [6, 15]), ("ReduceMean", [2, 5]), ("ReduceMax", [3, 6]), ("ReduceMin", [1, 4]),
                     ("ReduceProd", [6, 120]), ("ReduceL1", [6, 15])]:
        out = reduce(op, x, np.int64(1))
        assert out.dtype == np.dtype(dtype), op
        np.testing.assert_array_equal(out.astype(np.float64), want, err_msg=op)


def test_logical():
    x = np.array([[True, False], [True, True]])
    np.testing.assert_array_equal(reduce("ReduceLogicalAnd", x, np.int64(1)), [False, True])
    np.testing.assert_array_equal(reduce("ReduceLogicalOr", x, np.array([0, 1]), keep=True), [[True]])
    raises_for("ReduceLogicalOr", ShapeError, "Element type of data input must be boolean.", reduce,
               "ReduceLogicalOr", np.ones(2, np.float32), np.int64(0))


@pytest.mark.parametrize("params", [(0,), (0, 1)], ids=["const-axes", "param-axes"])
def test_empty_axes(params):
    """Reduce over no axes: the data (ReduceL1/L2: |x|). OpenVINO cannot read back its own IR with
    an empty Const axes ("ptr is Null"); irrun reads it."""
    x = np.array([[-1.5, 2.0], [3.0, -4.0]], np.float32)
    for op in DEFINITIONS:
        out = reduce(op, x, np.zeros(0, np.int64), params=params)
        np.testing.assert_array_equal(out, np.abs(x) if op in ("ReduceL1", "ReduceL2") else x, err_msg=op)
    assert reduce("ReduceSum", np.float32(2.5), np.zeros(0, np.int64), params=params) == 2.5


def test_empty_reductions():
    """Measured: Mean of nothing is 0, Max the type's lowest (not -inf), Min +inf / the type's max."""
    z = np.zeros((2, 0), np.float32)
    want = {"ReduceSum": 0, "ReduceMean": 0, "ReduceMax": np.finfo(np.float32).min, "ReduceMin": np.inf,
            "ReduceProd": 1, "ReduceL1": 0, "ReduceL2": 0}
    for op, v in want.items():
        np.testing.assert_array_equal(reduce(op, z, np.int64(1)), [v, v], err_msg=op)
    zi = np.zeros((2, 0), np.int32)
    np.testing.assert_array_equal(reduce("ReduceMax", zi, np.int64(1)), [-2 ** 31] * 2)
    np.testing.assert_array_equal(reduce("ReduceMin", zi, np.int64(1)), [2 ** 31 - 1] * 2)
    np.testing.assert_array_equal(reduce("ReduceLogicalAnd", np.zeros((2, 0), bool), np.int64(1)), [True, True])


def test_nan_and_accumulation():
    x = np.array([[np.nan, 1], [1, np.nan], [np.inf, -np.inf]], np.float32)
    np.testing.assert_array_equal(reduce("ReduceMax", x[:2], np.int64(1)), [1, 1])
    np.testing.assert_array_equal(reduce("ReduceMin", x[:2], np.int64(1)), [1, 1])
    np.testing.assert_array_equal(reduce("ReduceSum", x, np.int64(1)), [np.nan] * 3)
    big = np.concatenate([[1e8], np.ones(1000)]).astype(np.float32)
    assert reduce("ReduceSum", big, np.int64(0)) == np.float32(100001000.0)
    np.testing.assert_array_equal(reduce("ReduceMean", np.array([[-7, 2], [7, 2], [-5, -6]], np.int32), np.int64(1)),
                                  [-2, 4, -5])


def test_errors():
    x = np.ones((2, 3, 4), np.float32)
    raises_for("ReduceSum", ShapeError, "Axis 3 out of the tensor rank range [-3, 2].", reduce, "ReduceSum", x, np.int64(3))
    raises_for("ReduceSum", ExecutionError, "Axis 3 out of the tensor rank range [-3, 2].", reduce, "ReduceSum", x,
               np.array([3]), params=(0, 1))
    raises_for("ReduceMean", ShapeError, "Element type of axes input must be integer. Got: f32", reduce,
               "ReduceMean", x, np.float32(1))
    raises_for("ReduceMax", ShapeError, "Axes input must be a scalar or 1D input. Got: [1,1]", reduce,
               "ReduceMax", x, np.zeros((1, 1), np.int64))
    raises_for("ReduceProd", ShapeError, "Element type of data input must be numeric. Got: boolean", reduce,
               "ReduceProd", np.array([True]), np.int64(0))


#: (data, axes, keep_dims) -> output shape, measured with OpenVINO 2026.4.1 (ReduceSum).
PARTIAL = [("2,?,4", [1], False, "[2,4]"), ("2,?,4", [1], True, "[2,1,4]"), ("2,?,4", [0, -1], False, "[?]"),
           ("...", [1], False, "[...]"), ("...", [1], True, "[...]"), ("2..5,3", [1], True, "[2..5,1]"),
           ("2..5,3", [0, -1], False, "[]")]
UNKNOWN_AXES = [("2,?,4", "1", False, "[?,?]"), ("2,?,4", "", False, "[?,?]"), ("2,?,4", "2", False, "[...]"),
                ("2,?,4", "2", True, "[?,?,?]"), ("2,?,4", "?", False, "[...]"), ("...", "1", False, "[...]"),
                ("2..5,3", "2", True, "[?,?]")]


@pytest.mark.parametrize("data, axes, keep, out", PARTIAL)
def test_partial_shapes(data, axes, keep, out):
    info = infer_op("ReduceSum", [Param("f32", data), np.array(axes, np.int64)], {"keep_dims": keep})[0]
    assert shape_str(info) == out


@pytest.mark.parametrize("data, axes, keep, out", UNKNOWN_AXES)
def test_partial_shapes_unknown_axes(data, axes, keep, out):
    info = infer_op("ReduceSum", [Param("f32", data), Param("i64", axes)], {"keep_dims": keep})[0]
    assert shape_str(info) == out
