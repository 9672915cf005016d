"""GatherND-5/8: the gather-nd-5/8.rst examples (v5 multiplies the batch dims together, v8 keeps
them), negative and out-of-range indices, errors, partial shapes, every element type, and the
OpenVINO measurements (tools/expectations/make_index_expectations.py; no reference kernel: CPU plugin only)."""
from functools import partial

import numpy as np
import pytest

from helpers import ALL_DTYPES, Param, infer_op, raises_for, run_op, sample, shape_str
from irrun.errors import ExecutionError, ShapeError
from nn_cases import case_ids, replay

PATHS = [(), (0,), (0, 1)]
PATH_IDS = ["const", "param-data", "params"]
K0 = "hold empty index tuples (last dim 0)"
#: indices [..., 0]: OpenVINO infers a shape, then its CPU plugin returns uninitialised memory
REFUSE = {"GatherND5-shape-k0": K0, "GatherND8-shape-k0": K0}
rejects = partial(raises_for, "GatherND")
D22 = np.array([[1, 2], [3, 4]], np.int32)
D234 = np.arange(1, 25, dtype=np.int32).reshape(2, 3, 4)


@pytest.mark.parametrize("case", case_ids("GatherND"))
def test_openvino_case(case):
    replay(case, REFUSE)


def gnd(data, idx, batch_dims=0, version="opset8", params=(0, 1)):
    return run_op("GatherND", [data, np.asarray(idx)], {"batch_dims": batch_dims}, version, params=params)[0]


def gnd_shape(data, idx, batch_dims=0, version="opset8"):
    return shape_str(infer_op("GatherND", [data, idx], {"batch_dims": batch_dims}, version, params=())[0])


# ---------------------------------------------------------------------------------------------
# gather-nd-8.rst examples 1-7 (5 and 8 agree except on the shape of 6 and 7)

@pytest.mark.parametrize("params", PATHS, ids=PATH_IDS)
@pytest.mark.parametrize("version", ["opset5", "opset8"])
@pytest.mark.parametrize("data, idx, b, expect", [
    (D22, [[0, 0], [1, 0]], 0, [1, 3]),
    (D22, [[1], [0]], 0, [[3, 4], [1, 2]]),
    (D22, [[[1]], [[0]]], 0, [[[3, 4]], [[1, 2]]]),
    (D22, [[1], [0]], 1, [2, 3]),
    (D234, [[1], [0]], 1, [[5, 6, 7, 8], [13, 14, 15, 16]]),
], ids=["example-1", "example-2", "example-3", "example-4", "example-5"])
def test_spec_examples(data, idx, b, expect, version, params):
    out = gnd(data, idx, b, version, params)
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out, expect)


@pytest.mark.parametrize("params", PATHS, ids=PATH_IDS)
def test_example_6_batch_dims_2(params):
    idx = np.array([1, 0, 2, 0, 2, 2]).reshape(2, 3, 1, 1)
    np.testing.assert_array_equal(gnd(D234, idx, 2, "opset8", params), [[[2], [5], [11]], [[13], [19], [23]]])
    out5 = gnd(D234, idx, 2, "opset5", params)
    assert out5.shape == (6, 1)                              # v5: the batch dims multiplied together
    np.testing.assert_array_equal(out5, [[2], [5], [11], [13], [19], [23]])


@pytest.mark.parametrize("version, shape", [("opset8", (1, 2, 2)), ("opset5", (4,))])
def test_example_7_batch_dims_3(version, shape):
    data = np.arange(1, 17).reshape(1, 2, 2, 4)
    out = gnd(data, np.array([1, 0, 3, 2]).reshape(1, 2, 2, 1), 3, version)
    assert out.shape == shape
    np.testing.assert_array_equal(out.reshape(-1), [2, 5, 12, 15])


@pytest.mark.parametrize("version, expect", [
    ("opset8", ["[25,125,15]", "[30,2,3,35]", "[1,64,64,1]"]),
    ("opset5", ["[25,125,15]", "[60,3,35]", "[4096,1]"]),
])
def test_xml_examples(version, expect):
    got = [gnd_shape(Param("f32", "1000,256,10,15"), Param("i64", "25,125,3"), 0, version),
           gnd_shape(Param("f32", "30,2,100,35"), Param("i64", "30,2,3,1"), 2, version),
           gnd_shape(Param("f32", "1,64,64,320"), Param("i64", "1,64,64,1,1"), 3, version)]
    assert got == expect


@pytest.mark.parametrize("params", PATHS, ids=PATH_IDS)
@pytest.mark.parametrize("version", ["opset5", "opset8"])
def test_negative_indices(version, params):
    # measured: the CPU plugin wraps negatives in both versions (v8's spec says so since 2025.3)
    np.testing.assert_array_equal(gnd(D234, [[-1, -1], [0, -1]], 0, version, params), [[21, 22, 23, 24], [9, 10, 11, 12]])


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_dtypes(dtype):
    x = sample((2, 3), dtype)
    out = gnd(x, [[[2], [0]], [[-1], [1]]], 1)
    assert out.dtype == x.dtype and out.shape == (2, 2)
    assert np.array_equal(out, np.stack([x[0, [2, 0]], x[1, [2, 1]]]))


@pytest.mark.parametrize("itype", [np.int8, np.uint8, np.int16, np.int32, np.int64, np.uint64])
def test_index_types(itype):
    np.testing.assert_array_equal(gnd(D22, np.array([[1, 1], [0, 1]], itype)), [4, 2])


def test_empty_indices():
    out = gnd(np.zeros((3, 4), np.float32), np.zeros((0, 2), np.int64))
    assert out.shape == (0,) and out.dtype == np.float32


# ---------------------------------------------------------------------------------------------
# Indices OpenVINO cannot run: out of range (its CPU plugin reads outside the data) and empty
# tuples (uninitialised output); refused with openvino_loads

@pytest.mark.parametrize("idx, fragment", [
    ([[0, 2]], "index 2 at [0, 1] is out of range [-2, 1]"),
    ([[-3, 0]], "index -3 at [0, 0] is out of range [-2, 1]"),
])
def test_out_of_range(idx, fragment):
    assert rejects(ExecutionError, fragment, gnd, D22, idx).openvino_loads
    assert rejects(ShapeError, fragment, gnd, D22, idx, params=(0,)).openvino_loads    # seen by inference


def test_out_of_range_in_batch():
    rejects(ExecutionError, "index 3 at [1, 0] is out of range [-3, 2]", gnd, D234, [[1], [3]], 1)


def test_empty_index_tuples():
    assert rejects(ShapeError, K0, gnd, D22, np.zeros((3, 0), np.int64)).openvino_loads


# ---------------------------------------------------------------------------------------------
# Errors and partial shapes (measured; more in the fixture)

@pytest.mark.parametrize("data, idx, b, fragment", [
    ("2,5", "3,1", 1, "Batch dimensions of data and indices must be the same."),
    ("1,5", "3,1", 1, "Batch dimensions of data and indices must be the same."),   # not broadcast
    ("2,3", "5,3", 0, "Length of a tuple with indices must not exceed a rank of data tensor excluding batch dimensions."),
    ("2,3", "2,3,1", 2, "Number of batch dimensions must not exceed a rank of data."),
    ("2,3,4", "2,1", 2, "Number of batch dimensions must not exceed a rank of indices."),
    ("2,3", "2,1", -1, "Number of batch dimensions must not exceed a rank of data."),
    ("", "1", 0, "Data rank must be at least 1."),
    ("3", "", 0, "Indices rank must be at least 1."),
])
@pytest.mark.parametrize("version", ["opset5", "opset8"])
def test_errors(data, idx, b, fragment, version):
    rejects(ShapeError, fragment, gnd_shape, Param("f32", data), Param("i64", idx), b, version)


def test_error_float_indices():
    rejects(ShapeError, "The indices type is expected to be an integer type. Got: f32", gnd_shape,
            Param("f32", "2,3"), Param("f32", "4,1"))


@pytest.mark.parametrize("data, idx, b, v8, v5", [
    ("?,3..5,7", "2,?,6,1", 2, "[2,3..5,6]", "[6..10,6]"),
    ("2..4,5", "3..6,1", 1, "[3..4]", "[3..4]"),
    ("2,3,4", "5,?", 0, "[...]", "[...]"),
    ("...", "5,2", 0, "[...]", "[...]"),
    ("?,?,?", "?,2", 0, "[?,?]", "[?,?]"),
])
def test_partial_shapes(data, idx, b, v8, v5):
    assert gnd_shape(Param("f32", data), Param("i64", idx), b, "opset8") == v8
    assert gnd_shape(Param("f32", data), Param("i64", idx), b, "opset5") == v5
