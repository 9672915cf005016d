"""Gather-1/7/8: data-movement-ops.md §7 and the gather-8.rst examples (values, shapes, errors),
Const and Parameter index inputs, partial-shape inference (measured with OpenVINO 2026.4.1),
every element type."""
from functools import partial

import numpy as np
import pytest

from helpers import ALL_DTYPES, Param, infer_op, raises_for, run_op, sample, shape_str
from irrun.errors import ExecutionError, ShapeError

D25 = np.arange(1, 11).reshape(2, 5)            # [[1..5],[6..10]]
IDX23 = np.array([[0, 0, 4], [4, 0, 0]])
PATHS = [(), (0,), (0, 1, 2)]                    # all Const (folded) / data Param / all Params
PATH_IDS = ["const", "param-data", "params"]


def gather(data, idx, axis, version="opset8", batch_dims=None, params=(0, 1, 2)):
    attrs = {} if batch_dims is None else {"batch_dims": batch_dims}
    return run_op("Gather", [data, idx, axis], attrs, version=version, params=params)[0]


def gshape(data, idx, axis, batch_dims=0, version="opset8", params=()):
    attrs = {} if version == "opset1" else {"batch_dims": batch_dims}
    return shape_str(infer_op("Gather", [data, idx, axis], attrs, version=version, params=params)[0])


rejects = partial(raises_for, "Gather")


# ---------------------------------------------------------------------------------------------
# Spec examples (gather-8.rst examples 1-7; Example 1 holds for every version)

@pytest.mark.parametrize("params", PATHS, ids=PATH_IDS)
@pytest.mark.parametrize("version", ["opset1", "opset7", "opset8"])
def test_example_1_default_batch_dims(version, params):
    out = gather(np.array([1, 2, 3, 4, 5]), np.array([0, 0, 4]), np.int64(0), version, params=params)
    np.testing.assert_array_equal(out, [1, 1, 5])


@pytest.mark.parametrize("params", PATHS, ids=PATH_IDS)
@pytest.mark.parametrize("version", ["opset7", "opset8"])
@pytest.mark.parametrize("axis, b", [(1, 1), (1, -1), (-1, 1), (-1, -1)])
def test_example_2_5_batch_dims_1(version, axis, b, params):
    out = gather(D25, IDX23, np.int64(axis), version, batch_dims=b, params=params)
    np.testing.assert_array_equal(out, [[1, 1, 5], [10, 6, 6]])
    assert out.shape == (2, 3)


@pytest.mark.parametrize("params", PATHS, ids=PATH_IDS)
def test_example_3_batch_dims_2(params):
    data = np.arange(1, 21).reshape(2, 2, 5)
    idx = np.array([[[0, 0, 4], [4, 0, 0]], [[1, 2, 4], [4, 3, 2]]])
    out = gather(data, idx, np.int64(2), batch_dims=2, params=params)
    np.testing.assert_array_equal(out, [[[1, 1, 5], [10, 6, 6]], [[12, 13, 15], [20, 19, 18]]])


@pytest.mark.parametrize("params", PATHS, ids=PATH_IDS)
@pytest.mark.parametrize("version", ["opset7", "opset8"])
def test_example_4_axis_after_batch(version, params):
    data = np.arange(1, 41).reshape(2, 1, 5, 4)
    out = gather(data, np.array([[1, 2, 4], [4, 3, 2]]), np.int64(2), version, batch_dims=1,
                 params=params)
    assert out.shape == (2, 1, 3, 4)
    np.testing.assert_array_equal(out, [[[[5, 6, 7, 8], [9, 10, 11, 12], [17, 18, 19, 20]]],
                                        [[[37, 38, 39, 40], [33, 34, 35, 36], [29, 30, 31, 32]]]])


@pytest.mark.parametrize("params", PATHS, ids=PATH_IDS)
def test_example_6_negative_indices(params):
    out = gather(np.array([1, 2, 3, 4, 5]), np.array([0, -2, -1]), np.int64(0), params=params)
    np.testing.assert_array_equal(out, [1, 4, 5])


@pytest.mark.parametrize("params", PATHS, ids=PATH_IDS)
def test_example_7_out_of_range_gives_zero(params):
    out = gather(np.array([1, 2, 3, 4, 5]), np.array([3, 10, -20]), np.int64(0), params=params)
    np.testing.assert_array_equal(out, [4, 0, 0])


def test_xml_example_shape():
    assert gshape(Param("f32", "2,64,128"), Param("i32", "2,32,21"), np.int64(1), 1) == "[2,32,21,128]"


@pytest.mark.parametrize("version", ["opset1", "opset7"])
def test_v1_v7_follow_the_reference_evaluator(version):
    """Measured: the reference evaluator wraps negatives and zeroes out-of-range for v1/v7 too."""
    out = gather(np.array([1, 2, 3, 4, 5]), np.array([0, -2, 7]), np.int64(0), version)
    np.testing.assert_array_equal(out, [1, 4, 0])


# ---------------------------------------------------------------------------------------------
# Measured rows of §7

@pytest.mark.parametrize("params", PATHS, ids=PATH_IDS)
def test_scalar_index_drops_rank(params):
    out = gather(np.arange(10).reshape(2, 5), np.int64(3), np.int64(1), params=params)
    np.testing.assert_array_equal(out, [3, 8])
    assert out.shape == (2,)


@pytest.mark.parametrize("params", PATHS, ids=PATH_IDS)
def test_2d_indices_axis_0(params):
    out = gather(np.arange(10).reshape(2, 5), np.array([[1], [0]]), np.int64(0), params=params)
    assert out.shape == (2, 1, 5)
    np.testing.assert_array_equal(out, [[[5, 6, 7, 8, 9]], [[0, 1, 2, 3, 4]]])


@pytest.mark.parametrize("params", PATHS, ids=PATH_IDS)
def test_batch_dims_equal_to_indices_rank(params):
    out = gather(np.arange(10).reshape(2, 5), np.array([1, 3]), np.int64(1), batch_dims=1,
                 params=params)
    np.testing.assert_array_equal(out, [1, 8])


@pytest.mark.parametrize("axis", [np.int64(1), np.array([1]), np.array([-1], np.int32)], ids=["scalar", "[1]", "i32[-1]"])
@pytest.mark.parametrize("params", PATHS, ids=PATH_IDS)
def test_axis_scalar_or_one_element(axis, params):
    out = gather(D25, np.array([1, 3]), axis, "opset1", params=params)
    np.testing.assert_array_equal(out, [[2, 4], [7, 9]])


def test_axis_u64_max_is_minus_one():
    out = gather(D25, np.array([1, 3]), np.uint64(2**64 - 1), params=())
    np.testing.assert_array_equal(out, [[2, 4], [7, 9]])


@pytest.mark.parametrize("params", [(0,), (0, 1)], ids=["const-idx", "param-idx"])
def test_empty_indices(params):
    out = gather(np.arange(6, dtype=np.float32).reshape(2, 3), np.zeros((2, 0), np.int64),
                 np.int64(1), batch_dims=1, params=params)
    assert out.shape == (2, 0) and out.dtype == np.float32


@pytest.mark.parametrize("params", PATHS, ids=PATH_IDS)
def test_batch_with_dims_between_batch_and_axis(params):
    out = gather(np.arange(24).reshape(2, 3, 4), np.array([[3, 0], [1, 2]]), np.int64(2),
                 batch_dims=1, params=params)
    np.testing.assert_array_equal(out, [[[3, 0], [7, 4], [11, 8]], [[13, 14], [17, 18], [21, 22]]])


def test_batch_oob_rows_zeroed():
    data = np.arange(1, 41).reshape(2, 1, 5, 4)
    out = gather(data, np.array([[1, 9, -1], [-5, 5, 2]]), np.int64(2), batch_dims=1)
    np.testing.assert_array_equal(out, [[[[5, 6, 7, 8], [0, 0, 0, 0], [17, 18, 19, 20]]],
                                        [[[21, 22, 23, 24], [0, 0, 0, 0], [29, 30, 31, 32]]]])


def test_zero_size_axis_gives_zeros():
    out = gather(np.zeros((2, 0), np.int32), np.array([0, 1]), np.int64(1))
    np.testing.assert_array_equal(out, [[0, 0], [0, 0]])


@pytest.mark.parametrize("itype", [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16,
                                   np.uint32, np.uint64])
def test_index_types(itype):
    out = gather(D25, IDX23.astype(itype), itype(1), batch_dims=1)
    np.testing.assert_array_equal(out, [[1, 1, 5], [10, 6, 6]])


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_dtypes(dtype):
    x = sample((2, 5), dtype)
    out = gather(x, np.array([[0, 0, 4], [4, 9, -5]]), np.int64(1), batch_dims=1)
    flat = x.reshape(-1)
    expect = np.stack([flat[[0, 0, 4]], np.concatenate([flat[[9]], np.zeros(1, x.dtype), flat[[5]]])])
    assert out.dtype == x.dtype and out.shape == (2, 3)
    assert np.array_equal(out, expect)


# ---------------------------------------------------------------------------------------------
# Errors (messages measured with OpenVINO 2026.4.1)

@pytest.mark.parametrize("idx, axis, b, fragment", [
    (IDX23, np.int64(0), 1, "After normalization batch_dims must be <= axis. But instead got: batch_dims = 1, axis = 0"),
    (IDX23, np.array([1, 1]), 1, "Axis input must be scalar or have 1 element. But instead got axis_shape = [2]"),
    (IDX23, np.float32(1), 1, "Axis element type must be of an integral number type."),
    (IDX23.astype(np.float32), np.int64(1), 1, "Indices element type must be of an integral number type."),
    (np.zeros((3, 3), np.int64), np.int64(1), 1, "Shapes [2,5] and [3,3] are not consistent. data and indices must have equal or intersecting sizes until batch_dims"),
    (np.array([1, 3]), np.int64(1), 3, "After normalization batch_dims must be <= axis. But instead got: batch_dims = 3, axis = 1"),
    (np.array([1, 3]), np.int64(2), 0, "Axis 2 out of the tensor rank range [-2, 1]."),
    (np.array([1, 3]), np.int64(1), -3, "Accessing out-of-range dimension"),
], ids=["b>axis", "axis[2]", "axis-f32", "idx-f32", "batch-mismatch", "b3", "axis-range", "b-negative"])
def test_errors_const(idx, axis, b, fragment):
    rejects(ShapeError, fragment, gather, D25, idx, axis, batch_dims=b, params=(0,))


def test_error_batch_dims_above_indices_rank():
    rejects(ShapeError, "The batch_dims must be <= indices_rank. But instead got: batch_dims = 2, indices_rank = 1",
                 gather, np.zeros((2, 5, 3)), np.array([0, 1]), np.int64(2), batch_dims=2, params=(0,))


@pytest.mark.parametrize("params", [(0,), (0, 2)], ids=["const-axis", "param-axis"])
def test_error_scalar_data(params):
    rejects(ShapeError, "Accessing out-of-range dimension", gather, np.int64(5), np.array([0]),
                 np.int64(0), params=params)


@pytest.mark.parametrize("axis, b, fragment", [
    (np.int64(0), 1, "batch_dims must be <= axis. But instead got: batch_dims = 1, axis = 0"),
    (np.int64(2), 0, "Axis 2 out of the tensor rank range [-2, 1]."),
    (np.int64(-3), 0, "Axis -3 out of the tensor rank range [-2, 1]."),
])
def test_errors_runtime_axis(axis, b, fragment):
    e = rejects(ExecutionError, fragment, gather, D25, IDX23, axis, batch_dims=b)
    assert e.layer.type == "Gather"


# ---------------------------------------------------------------------------------------------
# Partial shapes (measured with OpenVINO 2026.4.1 unless noted)

@pytest.mark.parametrize("data, idx, axis, b, expect", [
    (Param("f32", "?,5,4"), Param("i64", "2,?"), Param("i64", ""), 1, "[2,?,?]"),
    (Param("f32", "?,5,4"), Param("i64", "2,?"), Param("i64", "1"), 1, "[2,?,?]"),
    (Param("f32", "3,?"), Param("i64", "2..4,?"), np.int64(1), 1, "[3,?]"),
    (Param("f32", "?,5,4"), Param("i64", "2,?"), np.int64(1), -1, "[2,?,4]"),
    (Param("f32", "?,5,4"), Param("i64", "2,?"), np.int64(-1), 1, "[2,5,?]"),
    (Param("f32", "2..4,5,4"), Param("i64", "?,3"), np.int64(2), 1, "[2..4,5,3]"),
    (Param("f32", "?,5,4"), Param("i64", "..."), np.int64(1), 1, "[...]"),
    (Param("f32", "..."), Param("i64", "2,?"), np.int64(1), 1, "[...]"),
    (Param("f32", "?,5"), np.array([1, 3]), Param("i64", ""), 0, "[?,?]"),
    (Param("f32", "?,5"), np.array([1, 3, 2]), np.int64(0), 0, "[3,5]"),
    (Param("f32", "?,5"), np.int64(0), np.int64(1), 0, "[?]"),
])
def test_partial_shapes(data, idx, axis, b, expect):
    assert gshape(data, idx, axis, b) == expect


def test_partial_v1_axis_param():
    assert gshape(Param("f32", "?,5"), np.array([1, 3]), Param("i64", ""), version="opset1") == "[?,?]"


@pytest.mark.parametrize("data, idx, axis, b, fragment", [
    (Param("f32", "3,?"), Param("i64", "5,?"), np.int64(1), 1, "Shapes [3,?] and [5,?] are not consistent"),
    (Param("f32", "..."), Param("i64", "2,?"), np.int64(0), 1, "batch_dims must be <= axis. But instead got: batch_dims = 1, axis = 0"),
])
def test_partial_errors(data, idx, axis, b, fragment):
    rejects(ShapeError, fragment, gshape, data, idx, axis, b)


def test_runtime_axis_result_matches_inferred_rank():
    out = gather(np.arange(24).reshape(2, 3, 4), np.array([[2, 0]]), np.int64(-1), "opset1",
                 params=(0, 2))
    assert out.shape == (2, 3, 1, 2)
    np.testing.assert_array_equal(out[1, 2, 0], [22, 20])


def test_every_entry_in_order_gives_the_data_unchanged_and_unshared(tmp_path):
    """A decoder's beam_idx of one beam (indices 0..n-1 on axis 0) takes the data as it is, a
    view rather than a copy of the KV cache: the values are np.take's, and nothing written into
    a consumer's result (an Add that may work in place) reaches the data, which a later layer
    still reads. A permutation ([1, 0, 2]) is np.take's copy."""
    import irrun
    from irrun.ir.builder import IRWriter

    w = IRWriter()
    x = w.parameter("x", "f32", [3, 4])
    fresh = w.layer("Relu", [x])                        # a fresh buffer an in-place op could take
    axis = w.const(np.array(0, np.int64))
    same = w.layer("Gather", [fresh, w.const(np.array([0, 1, 2], np.int64)), axis], {"batch_dims": 0}, "opset8")
    swapped = w.layer("Gather", [fresh, w.const(np.array([1, 0, 2], np.int64)), axis], {"batch_dims": 0}, "opset8")
    w.result(w.layer("Add", [same, w.const(np.ones((1, 4), np.float32))]), "plus_one")
    w.result(w.layer("Multiply", [fresh, w.const(np.full((1, 4), 2, np.float32))]), "twice")
    w.result(swapped, "swapped")
    model = irrun.read_model(w.save(tmp_path / "m.xml"))
    xs = np.arange(12, dtype=np.float32).reshape(3, 4) - 5
    for _ in range(2):
        got = model.run({"x": xs})
        relu = np.maximum(xs, 0)
        np.testing.assert_array_equal(got["plus_one"], np.take(relu, [0, 1, 2], axis=0) + 1)
        np.testing.assert_array_equal(got["twice"], relu * 2)
        np.testing.assert_array_equal(got["swapped"], np.take(relu, [1, 0, 2], axis=0))
    got, = run_op("Gather", [xs, np.array([0, 1, 2], np.int64), np.array(0, np.int64)],
                  {"batch_dims": "0"}, "opset8")
    np.testing.assert_array_equal(got, xs)
