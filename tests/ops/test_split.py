"""Split-1: data-movement-ops.md §1 (type_prop/split.cpp rows and measured rows)."""
from functools import partial

import numpy as np
import pytest

from helpers import ALL_DTYPES, Param, infer_op, raises_for, run_op, sample, shape_str
from irrun.errors import ExecutionError, ShapeError


def split(x, axis, n, params=(0,)):
    return run_op("Split", [x, axis], {"num_splits": n}, n_out=n, params=params)


def shapes(data, axis, n, params=(0,)):
    return [shape_str(t) for t in infer_op("Split", [data, axis], {"num_splits": n}, n_out=n, params=params)]


rejects = partial(raises_for, "Split")


@pytest.mark.parametrize("data, axis, n, out", [
    (Param("f16", "2,3,4"), np.int64(1), 3, "[2,1,4]"),
    (Param("i32", "2,6"), np.int64(-2), 2, "[1,6]"),
    (Param("f32", "2,12,?"), np.int64(1), 3, "[2,4,?]"),
    (Param("f32", "2,?,?"), np.int64(0), 2, "[1,?,?]"),
    (Param("f32", "4,?,3,5"), np.int64(1), 3, "[4,?,3,5]"),
    (Param("f32", "4,3..6,3..6,5"), np.int64(1), 2, "[4,1..3,3..6,5]"),
    (Param("f32", "4,2..4,3,5"), np.int64(1), 3, "[4,0..1,3,5]"),
    (Param("f32", "6,2"), np.int64(0), 1, "[6,2]"),
    (Param("f32", "6"), np.int64(0), 2, "[3]"),
    (Param("f32", "3,6,7,3"), np.int64(1), 2, "[3,3,7,3]"),
    (Param("f32", "2..6,2"), np.int64(0), 1, "[2..6,2]"),
    (Param("f32", "4..8"), np.int64(0), 2, "[2..4]"),
    (Param("f32", "3,6,10..20,1..3"), np.int64(2), 2, "[3,6,5..10,1..3]"),
    (Param("f32", "3..,2"), np.int64(0), 2, "[1..,2]"),            # measured
    (Param("f32", "0,6"), np.int64(0), 2, "[0,6]"),                # measured
    (Param("f32", "?,?,?,?"), np.int64(2), 3, "[?,?,?,?]"),
    (Param("f32", "?,?,?,?"), Param("i64", ""), 3, "[?,?,?,?]"),  # axis known only at run time
    (Param("f32", "2,6"), Param("i64", ""), 2, "[?,?]"),           # measured
    (Param("f32", "..."), np.int64(0), 3, "[...]"),
])
def test_shapes(data, axis, n, out):
    assert shapes(data, axis, n) == [out] * n


def test_values_negative_axis():
    a, b, c = split(np.arange(12, dtype=np.float32).reshape(2, 6), np.int64(-1), 3)
    np.testing.assert_array_equal(a, [[0, 1], [6, 7]])
    np.testing.assert_array_equal(b, [[2, 3], [8, 9]])
    np.testing.assert_array_equal(c, [[4, 5], [10, 11]])


@pytest.mark.parametrize("params", [(), (0,), (0, 1)], ids=["const", "param-data", "param-axis"])
def test_values_paths(params):
    a, b = split(np.arange(4, dtype=np.float32), np.int32(-1), 2, params=params)
    np.testing.assert_array_equal(a, [0, 1])
    np.testing.assert_array_equal(b, [2, 3])
    assert a.dtype == np.float32


def test_zero_size():
    a, b = split(np.zeros((0, 6), np.float32), np.int64(0), 2)
    assert a.shape == b.shape == (0, 6)


@pytest.mark.parametrize("axis_dtype", [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16,
                                        np.uint32, np.uint64])
def test_axis_integer_types(axis_dtype):
    a, b = split(np.arange(12, dtype=np.float32).reshape(2, 6), axis_dtype(1), 2)
    np.testing.assert_array_equal(a, [[0, 1, 2], [6, 7, 8]])
    np.testing.assert_array_equal(b, [[3, 4, 5], [9, 10, 11]])


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_dtypes(dtype):
    x = sample((2, 6), dtype)
    parts = split(x, np.int64(1), 3)
    for i, p in enumerate(parts):
        assert p.dtype == x.dtype
        assert p.shape == (2, 2)
        assert (p == x[:, 2 * i:2 * i + 2]).all()


def test_outputs_are_views_of_the_input():
    x = np.arange(24, dtype=np.float32).reshape(2, 12)
    parts = split(x, np.int64(1), 4)
    assert all(np.shares_memory(p, x) for p in parts)
    np.testing.assert_array_equal(x, np.arange(24).reshape(2, 12))   # input untouched


@pytest.mark.parametrize("shape, axis", [((5,), 0), ((2, 3, 4), -1), ((0, 3), 0)])
def test_one_part_is_the_input(shape, axis):
    x = np.arange(int(np.prod(shape)), dtype=np.int32).reshape(shape)
    (out,) = split(x, np.int64(axis), 1)
    assert out.shape == x.shape and out.dtype == x.dtype
    assert (out == x).all()


# --- errors -------------------------------------------------------------------------------------

@pytest.mark.parametrize("x, axis, n, fragment", [
    (Param("f32", "2,6"), np.int64(-5), 4, "Axis -5 out of the tensor rank range [-2, 1]."),
    (Param("f32", "2,6"), np.int64(1), 4, "Dimension of data input shape along 'axis': 6 must be "
                                          "evenly divisible by 'num_splits' attribute value: 4"),
    (Param("f32", "2,6"), np.int64(1), 12, "along 'axis': 6 must be evenly divisible by "
                                           "'num_splits' attribute value: 12"),
    (Param("f32", "2,6"), np.float32(1), 2, "Element type of 'axis' input must be integer. Got: f32"),
    (Param("f32", "2,6"), np.bool_(True), 2, "Element type of 'axis' input must be integer. Got: boolean"),
    (Param("f32", "2,6"), np.array([1, 1]), 1, "'axis' input must be a scalar. Got: [2]"),
    (Param("f32", "2,6"), np.array([1]), 2, "'axis' input must be a scalar. Got: [1]"),
    (Param("f32", "2,6"), np.int64(1), 0, "Attribute 'num_splits' must be greater than zero. Got: 0"),
    (Param("f32", "2,6"), np.int64(1), -1, "Attribute 'num_splits' must be greater than zero. Got: -1"),
    (Param("f32", "4,1..2,3,5"), np.int64(1), 3, "The interval maximum of the dimension for data input "
                                                 "shape along 'axis' must be greater or equal to "
                                                 "'num_splits' attribute. Got: 1..2 and 3"),
    (Param("f32", "0..1,6"), np.int64(0), 2, "must be greater or equal to 'num_splits'"),  # measured
    (Param("f32", ""), np.int64(0), 1, "Accessing out-of-range dimension"),
])
def test_rejected_by_shape_inference(x, axis, n, fragment):
    n_out = max(n, 1)
    rejects(ShapeError, fragment, infer_op, "Split", [x, axis], {"num_splits": n}, n_out=n_out)


def test_missing_num_splits_reads_as_zero():
    rejects(ShapeError, "must be greater than zero. Got: 0", infer_op, "Split",
            [Param("f32", "2,6"), np.int64(1)], {}, n_out=2)


def test_fixed_shape_rejected_when_constant():
    rejects(ShapeError, "evenly divisible", split, np.zeros((2, 6), np.float32), np.int64(1), 4,
            params=())


@pytest.mark.parametrize("axis, fragment", [
    (np.int64(1), "'axis': 6 must be evenly divisible by 'num_splits' attribute value: 4"),
    (np.int64(2), "Axis 2 out of the tensor rank range [-2, 1]."),
])
def test_runtime_axis_checked_by_the_kernel(axis, fragment):
    rejects(ExecutionError, fragment, split, np.zeros((2, 6), np.float32), axis, 4, params=(0, 1))
