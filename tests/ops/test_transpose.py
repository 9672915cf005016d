"""Transpose-1: data-movement-ops.md §9 (values, empty order, measured errors), Const and
Parameter orders, partial-shape inference (measured with OpenVINO 2026.4.1), views, element types."""
from functools import partial

import numpy as np
import pytest

from helpers import ALL_DTYPES, Param, infer_op, raises_for, run_op, sample, shape_str
from irrun.errors import ExecutionError, ShapeError

X = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
PATHS = [(), (0,), (0, 1)]
PATH_IDS = ["const", "param-data", "params"]


def transpose(x, order, params=(0, 1)):
    return run_op("Transpose", [x, np.asarray(order, np.int64)], params=params)[0]


def tshape(data, order, params=()):
    return shape_str(infer_op("Transpose", [data, order], params=params)[0])


rejects = partial(raises_for, "Transpose")


@pytest.mark.parametrize("params", PATHS, ids=PATH_IDS)
def test_permutation_values(params):
    out = transpose(X, [2, 0, 1], params)
    assert out.shape == (4, 2, 3)
    np.testing.assert_array_equal(out[:, 1, 2], [20, 21, 22, 23])   # x[1, 2, :]
    np.testing.assert_array_equal(out[3, :, 0], [3, 15])            # x[:, 0, 3]


@pytest.mark.parametrize("params", [(0,), (0, 1)], ids=["const-order", "param-order"])
def test_empty_order_reverses(params):
    out = transpose(X, np.zeros(0, np.int64), params)
    assert out.shape == (4, 3, 2)
    np.testing.assert_array_equal(out[1, 2], [9, 21])                # x[:, 2, 1]


@pytest.mark.parametrize("params", [(0,), (0, 1)], ids=["const-order", "param-order"])
def test_scalar_with_empty_order(params):
    out = transpose(np.float32(5), np.zeros(0, np.int64), params)
    assert out.shape == () and out == 5


def test_identity_and_2d():
    np.testing.assert_array_equal(transpose(np.array([[1, 2, 3], [4, 5, 6]]), [1, 0]),
                                  [[1, 4], [2, 5], [3, 6]])
    np.testing.assert_array_equal(transpose(np.array([[1, 2], [3, 4]]), [0, 1]), [[1, 2], [3, 4]])


@pytest.mark.parametrize("otype", [np.int32, np.uint8, np.uint64])
def test_order_types(otype):
    out = run_op("Transpose", [X, np.array([1, 2, 0], otype)])[0]
    assert out.shape == (3, 4, 2)


# ---------------------------------------------------------------------------------------------
# Errors (measured messages)

ERRORS = [
    ([0, 0, 1], "Permutation AxisVector{0, 0, 1} is not valid for input shape [2,3,4]"),
    ([0, 1, 3], "Permutation AxisVector{0, 1, 3} is not valid for input shape [2,3,4]"),
    ([-1, 0, 1], "Permutation AxisVector{18446744073709551615, 0, 1} is not valid for input shape [2,3,4]"),
    ([0, 1], "Input order must have shape [n], where n is the rank of arg."),
]


@pytest.mark.parametrize("order, fragment", ERRORS, ids=["duplicate", "out-of-range", "negative", "length"])
def test_errors_const(order, fragment):
    rejects(ShapeError, fragment, transpose, X, order, params=(0,))


@pytest.mark.parametrize("order, fragment", ERRORS[:3], ids=["duplicate", "out-of-range", "negative"])
def test_errors_runtime(order, fragment):
    rejects(ExecutionError, fragment, transpose, X, order, params=(0, 1))


def test_error_runtime_length():      # the order's length is static, so inference catches it
    rejects(ShapeError, "Input order must have shape [n]", transpose, X, [0, 1], params=(0, 1))


@pytest.mark.parametrize("order, fragment", [
    (np.array([0.0, 1, 2]), "Input order must have an integral number element type."),
    (np.array([False, True, True]), "Input order must have an integral number element type."),
    (np.int64(1), "Input order must be a vector."),
    (np.array([[0, 1, 2]]), "Input order must be a vector."),
], ids=["f64", "boolean", "scalar", "2-D"])
def test_order_input_errors(order, fragment):
    rejects(ShapeError, fragment, run_op, "Transpose", [X, order])


# ---------------------------------------------------------------------------------------------
# Partial shapes (measured with OpenVINO 2026.4.1 unless noted)

@pytest.mark.parametrize("data, order, expect", [
    (Param("f32", "?,3,2..5"), np.array([2, 0, 1]), "[2..5,?,3]"),
    (Param("f32", "?,3,2..5"), np.zeros(0, np.int64), "[2..5,3,?]"),
    (Param("f32", "?,3,2..5"), Param("i64", "3"), "[?,?,?]"),
    (Param("f32", "..."), np.array([1, 0, 2]), "[?,?,?]"),
    (Param("f32", "..."), np.zeros(0, np.int64), "[...]"),
    (Param("f32", "..."), Param("i64", "?"), "[...]"),
    (Param("f32", "..."), Param("i64", "3"), "[?,?,?]"),          # OpenVINO: [...]
    (Param("f32", "?,3,2..5"), Param("i64", "0"), "[2..5,3,?]"),  # OpenVINO: [?,?,?]
])
def test_partial_shapes(data, order, expect):
    assert tshape(data, order) == expect


@pytest.mark.parametrize("data, order, fragment", [
    (Param("f32", "..."), np.array([0, 0, 1]), "Permutation AxisVector{0, 0, 1} is not valid for input shape [...]"),
    (Param("f32", "?,3"), Param("i64", "3"), "Input order must have shape [n]"),
])
def test_partial_errors(data, order, fragment):
    rejects(ShapeError, fragment, tshape, data, order)


# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("params", [(0,), (0, 1)], ids=["const-order", "param-order"])
def test_view(params):
    out = transpose(X, [1, 2, 0], params)
    assert out.shape == (3, 4, 2) and np.shares_memory(out, X)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_dtypes(dtype):
    x = sample((2, 3), dtype)
    out = transpose(x, [1, 0])
    flat = x.reshape(-1)
    assert out.dtype == x.dtype and out.shape == (3, 2)
    assert np.array_equal(out, flat[[0, 3, 1, 4, 2, 5]].reshape(3, 2)) and np.shares_memory(out, x)
