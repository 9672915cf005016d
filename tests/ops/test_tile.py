"""Tile-1: data-movement-ops.md §12 (shapes, values, negative repeats, errors), the tile-1.rst
examples, Const and Parameter repeats, partial-shape inference (measured with OpenVINO
2026.4.1), element types."""
from functools import partial

import numpy as np
import pytest

from helpers import ALL_DTYPES, Param, infer_op, raises_for, run_op, sample, shape_str
from irrun.errors import ShapeError

PATHS = [(), (0,), (0, 1)]
PATH_IDS = ["const", "param-data", "params"]


def tile(x, repeats, params=(0, 1)):
    return run_op("Tile", [x, np.asarray(repeats, np.int64)], params=params)[0]


def tshape(data, repeats):
    return shape_str(infer_op("Tile", [data, repeats], params=())[0])


rejects = partial(raises_for, "Tile")


SHAPES = [
    ((2, 3, 4), [1, 2, 3], (2, 6, 12)),
    ((2, 3, 4), [5, 1, 2, 3], (5, 2, 6, 12)),
    ((5, 2, 3, 4), [1, 2, 3], (5, 2, 6, 12)),
    ((2, 3), [-1, 2], (0, 6)),                   # negative repeats count as 0 (measured)
    ((2, 3), [0, 1], (0, 3)),
    ((), [3], (3,)),
    ((0, 2), [3, 2], (0, 4)),
]


@pytest.mark.parametrize("params", PATHS, ids=PATH_IDS)
@pytest.mark.parametrize("shape, reps, out", SHAPES, ids=[f"{s[0]}x{s[1]}" for s in SHAPES])
def test_shapes(shape, reps, out, params):
    x = np.ones(shape, np.float32)
    res = tile(x, reps, params)
    assert res.shape == out and res.dtype == np.float32
    assert (res == 1).all()


@pytest.mark.parametrize("params", [(0,), (0, 1)], ids=["const-repeats", "param-repeats"])
def test_empty_repeats(params):
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    out = tile(x, np.zeros(0, np.int64), params)
    assert out.shape == (2, 3, 4)
    np.testing.assert_array_equal(out.reshape(-1), np.arange(24))


@pytest.mark.parametrize("params", PATHS, ids=PATH_IDS)
def test_values_1d(params):
    np.testing.assert_array_equal(tile(np.array([0, 1]), [2], params), [0, 1, 0, 1])


@pytest.mark.parametrize("params", PATHS, ids=PATH_IDS)
def test_values_rows_repeated(params):
    out = tile(np.array([[0, 1], [2, 3]]), [2, 1], params)
    np.testing.assert_array_equal(out.reshape(-1), [0, 1, 2, 3, 0, 1, 2, 3])


def test_rst_example_1():
    out = tile(np.array([[1, 2, 3], [4, 5, 6]]), [2, 2])
    np.testing.assert_array_equal(out, [[1, 2, 3, 1, 2, 3], [4, 5, 6, 4, 5, 6],
                                        [1, 2, 3, 1, 2, 3], [4, 5, 6, 4, 5, 6]])


def test_more_repeats_than_rank_values():
    out = tile(np.array([7, 8]), [2, 1, 2])
    assert out.shape == (2, 1, 4)
    np.testing.assert_array_equal(out.reshape(-1), [7, 8, 7, 8, 7, 8, 7, 8])


@pytest.mark.parametrize("rtype", [np.int32, np.uint8, np.uint64])
def test_repeats_types(rtype):
    out = run_op("Tile", [np.array([[1, 2]]), np.array([2, 1], rtype)])[0]
    np.testing.assert_array_equal(out, [[1, 2], [1, 2]])


# ---------------------------------------------------------------------------------------------
# Errors (measured messages)

@pytest.mark.parametrize("repeats, fragment", [
    (np.int64(2), "Tile repeats must be of rank 1"),
    (np.array([[1, 2]]), "Tile repeats must be of rank 1"),
    (np.array([2.0], np.float32), "Tile repeats must have any integer element type, but has f32"),
    (np.array([True]), "Tile repeats must have any integer element type, but has boolean"),
], ids=["scalar", "2-D", "f32", "boolean"])
def test_errors(repeats, fragment):
    rejects(ShapeError, fragment, run_op, "Tile", [np.zeros((2, 3)), repeats])
    rejects(ShapeError, fragment, run_op, "Tile", [np.zeros((2, 3)), repeats], params=(0, 1))


# ---------------------------------------------------------------------------------------------
# Partial shapes (measured with OpenVINO 2026.4.1)

@pytest.mark.parametrize("data, repeats, expect", [
    ("?,2..3", np.array([2, 3]), "[?,6..9]"),
    ("?,2..3", np.array([2, 0]), "[?,0]"),
    ("?,2..3", np.array([4, 1, -2]), "[4,?,0]"),
    ("?,2..3", Param("i64", "3"), "[?,?,?]"),
    ("?,2..3", Param("i64", "1"), "[?,?]"),
    ("?,2..3", Param("i64", "?"), "[...]"),
    ("...", np.array([2, 3]), "[...]"),
])
def test_partial_shapes(data, repeats, expect):
    assert tshape(Param("f32", data), repeats) == expect


# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_dtypes(dtype):
    x = sample((2, 2), dtype)
    out = tile(x, [1, 2])
    flat = x.reshape(-1)
    assert out.dtype == x.dtype and out.shape == (2, 4)
    assert np.array_equal(out, flat[[0, 1, 0, 1, 2, 3, 2, 3]].reshape(2, 4))
    assert not np.shares_memory(out, x)
