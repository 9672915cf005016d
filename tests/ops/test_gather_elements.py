"""GatherElements-6: the gather-elements-6.rst examples, negative and out-of-range indices, errors,
partial shapes, every element type, and the OpenVINO measurements (tools/expectations/make_index_expectations.py;
OpenVINO has no reference kernel for this op, so the CPU plugin is the oracle)."""
from functools import partial

import numpy as np
import pytest

from helpers import ALL_DTYPES, Param, infer_op, raises_for, run_op, sample, shape_str
from irrun.errors import ExecutionError, ShapeError
from nn_cases import case_ids, replay

PATHS = [(), (0,), (0, 1)]                       # all Const (folded) / data Param / both Params
PATH_IDS = ["const", "param-data", "params"]
rejects = partial(raises_for, "GatherElements")


@pytest.mark.parametrize("case", case_ids("GatherElements"))
def test_openvino_case(case):
    replay(case)


def ge(data, idx, axis, params=(0, 1)):
    return run_op("GatherElements", [data, idx], {"axis": axis}, "opset6", params=params)[0]


def ge_shape(data, idx, axis):
    return shape_str(infer_op("GatherElements", [data, idx], {"axis": axis}, "opset6", params=())[0])


# ---------------------------------------------------------------------------------------------
# gather-elements-6.rst examples 1-3

@pytest.mark.parametrize("params", PATHS, ids=PATH_IDS)
@pytest.mark.parametrize("data, idx, axis, expect", [
    ([[1, 2], [3, 4]], [[0, 1], [0, 0]], 0, [[1, 4], [1, 2]]),
    ([[1, 7], [4, 3]], [[1, 1, 0], [1, 0, 1]], 1, [[7, 7, 1], [3, 4, 3]]),
    ([[1, 2, 3], [4, 5, 6], [7, 8, 9]], [[1, 0, 1], [1, 2, 0]], 0, [[4, 2, 6], [4, 8, 3]]),
], ids=["example-1", "example-2-bigger", "example-3-smaller"])
def test_spec_examples(data, idx, axis, expect, params):
    out = ge(np.array(data, np.int32), np.array(idx, np.int64), axis, params)
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out, expect)


@pytest.mark.parametrize("params", PATHS, ids=PATH_IDS)
def test_negative_indices_and_axis(params):
    # measured (CPU plugin): -1 is the last element along the axis
    out = ge(np.array([[1, 7], [4, 3]], np.float32), np.array([[-1, -2, 0], [-1, 0, -2]], np.int32), -1, params)
    np.testing.assert_array_equal(out, [[7, 1, 1], [3, 4, 4]])


def test_3d_formula_axis_1():
    data = np.arange(24).reshape(2, 3, 4)
    idx = np.array([[[2, 0, 1, 2]], [[1, 1, 0, -3]]])            # shape [2, 1, 4]
    # out[i][0][k] = data[i][idx[i][0][k]][k]
    np.testing.assert_array_equal(ge(data, idx, 1), [[[8, 1, 6, 11]], [[16, 17, 14, 15]]])


def test_empty_indices():
    out = ge(np.zeros((2, 3), np.float32), np.zeros((2, 0), np.int64), 1)
    assert out.shape == (2, 0) and out.dtype == np.float32


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_dtypes(dtype):
    x = sample((2, 3), dtype)
    out = ge(x, np.array([[2, 0, -1, 1]] * 2), 1)
    assert out.dtype == x.dtype
    assert np.array_equal(out, x[:, [2, 0, 2, 1]])


@pytest.mark.parametrize("itype", [np.int32, np.int64])
def test_index_types(itype):
    np.testing.assert_array_equal(ge(np.array([5, 6, 7]), np.array([2, 0], itype), 0), [7, 5])


# ---------------------------------------------------------------------------------------------
# Out-of-range indices: OpenVINO's CPU plugin refuses them at inference ("indices values of
# GatherElement exceed data size"); irrun refuses them when it sees them

@pytest.mark.parametrize("idx", [[0, 3], [-4, 0]], ids=["too-big", "too-negative"])
def test_out_of_range_at_run_time(idx):
    e = rejects(ExecutionError, "is out of range [-3, 2] for a dimension of size 3", ge,
                np.array([5, 6, 7]), np.array(idx), 0)
    assert e.openvino_loads


@pytest.mark.parametrize("params", [(), (0,)], ids=["const", "param-data"])
def test_out_of_range_constant_indices_found_by_inference(params):
    e = rejects(ShapeError, "index 3 at [1] is out of range [-3, 2]", ge, np.array([5, 6, 7]), np.array([0, 3]), 0,
                params)
    assert e.openvino_loads


# ---------------------------------------------------------------------------------------------
# Errors and partial shapes (messages and shapes measured with OpenVINO 2026.4.1; more in the fixture)

@pytest.mark.parametrize("data, idx, axis, fragment", [
    (Param("f32", "2,3"), Param("i64", "2,3,1"), 0, "data and indices rank must be equal. But instead got: 2 and 3"),
    (Param("f32", "2,3,4"), Param("i64", "2,5,4"), 0, "Shapes [2,3,4] and [2,5,4] are not consistent, `data` and "
                                                      "`indices` must have equal or intersecting dimensions, except "
                                                      "for the dimension at axis index.0"),
    (Param("f32", "2,3"), Param("i64", "2,3"), 2, "Axis 2 out of the tensor rank range [-2, 1]."),
    (Param("f32", ""), Param("i64", "1"), 0, "data rank must be >= 1."),
    (Param("f32", "3"), Param("i64", ""), 0, "indices rank must be >= 1."),
    (Param("f32", "2,3"), Param("i8", "4,3"), 0, "indices must be of int32 or int64 type. But instead got: i8"),
    (Param("f32", "2,3"), Param("f32", "4,3"), 0, "indices must be of int32 or int64 type. But instead got: f32"),
], ids=["rank", "dims", "axis", "scalar-data", "scalar-idx", "idx-i8", "idx-f32"])
def test_errors(data, idx, axis, fragment):
    rejects(ShapeError, fragment, ge_shape, data, idx, axis)


@pytest.mark.parametrize("data, idx, axis, expect", [
    ("3,7,5", "3,10,5", 1, "[3,10,5]"),
    ("4,4,?", "1,?,5", 0, "[1,4,5]"),
    ("2..6,?,3", "3..8,5,1..4", 2, "[3..6,5,1..4]"),
    ("...", "2,3", 0, "[2,3]"),
    ("2,?,4", "...", -1, "[2,?,?]"),
    ("...", "...", 3, "[...]"),
])
def test_partial_shapes(data, idx, axis, expect):
    assert ge_shape(Param("f32", data), Param("i64", idx), axis) == expect
