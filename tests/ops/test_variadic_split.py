"""VariadicSplit-1: data-movement-ops.md §2 (type_prop / op_reference variadic_split.cpp rows and
measured rows)."""
from functools import partial

import numpy as np
import pytest

from helpers import ALL_DTYPES, Param, infer_op, raises_for, run_op, sample, shape_str
from irrun.errors import ExecutionError, ShapeError


def vsplit(x, axis, lengths, params=(0,)):
    n = np.asarray(lengths).shape[0]
    return run_op("VariadicSplit", [x, axis, lengths], n_out=n, params=params)


def shapes(data, axis, lengths, n=None, params=(0,)):
    n = n if n is not None else np.asarray(lengths).shape[0]
    return [shape_str(t) for t in infer_op("VariadicSplit", [data, axis, lengths], n_out=n, params=params)]


rejects = partial(raises_for, "VariadicSplit")


@pytest.mark.parametrize("data, axis, lengths, out", [
    ("6,2", 0, [6], ["[6,2]"]),
    ("6,2,10", -1, [6, -1, 3], ["[6,2,6]", "[6,2,1]", "[6,2,3]"]),
    ("1,20,3", 1, [-1, 10, 3, 5], ["[1,2,3]", "[1,10,3]", "[1,3,3]", "[1,5,3]"]),
    ("2..6,2", 0, [4], ["[4,2]"]),
    ("2..6,2", 0, [4, 1, -1], ["[4,2]", "[1,2]", "[?,2]"]),
    ("12,?", -2, [7, -1, 2], ["[7,?]", "[3,?]", "[2,?]"]),
    ("?,?,6", 2, [3, 1, 2], ["[?,?,3]", "[?,?,1]", "[?,?,2]"]),
    ("?,6", 1, [6, 0], ["[?,6]", "[?,0]"]),
    ("2..4,?", 1, [4, 1, -1, 3], ["[2..4,4]", "[2..4,1]", "[2..4,?]", "[2..4,3]"]),
    ("?,2", 0, [-1], ["[?,2]"]),                                  # measured
    ("2,6", 1, [6, 0], ["[2,6]", "[2,0]"]),
    ("2,6", 1, [6, -1], ["[2,6]", "[2,0]"]),
    ("0,4", 0, [0, -1], ["[0,4]", "[0,4]"]),
    ("...", -1, [3, 3], ["[...]", "[...]"]),                      # measured
])
def test_shapes(data, axis, lengths, out):
    assert shapes(Param("f32", data), np.int64(axis), np.array(lengths)) == out


@pytest.mark.parametrize("axis, lengths, out", [
    (np.int64(1), Param("i64", "3"), ["[2,?]"] * 3),              # lengths only known at run time
    (Param("i64", ""), np.array([3, 3]), ["[?,?]"] * 2),          # axis only known at run time
    (Param("i64", "1"), np.array([3, 3]), ["[?,?]"] * 2),
    (Param("i64", "?"), np.array([3, 3]), ["[?,?]"] * 2),         # measured: ? is compatible with [1]
])
def test_shapes_with_runtime_inputs(axis, lengths, out):
    assert shapes(Param("f32", "2,6"), axis, lengths, n=len(out)) == out


def test_runtime_lengths_on_interval_data():
    assert shapes(Param("f32", "2..6,2"), np.int64(0), Param("i32", "2"), n=2) == ["[?,2]", "[?,2]"]


# --- values -------------------------------------------------------------------------------------

ALL_PARAMS = (0, 1, 2)


@pytest.mark.parametrize("params", [(), (0,), ALL_PARAMS], ids=["const", "param-data", "params"])
class TestTableValues:
    def test_axis_of_shape_1(self, params):
        a, b, c = vsplit(np.arange(1, 11, dtype=np.float32), np.array([0]), np.array([5, 3, 2]), params)
        np.testing.assert_array_equal(a, [1, 2, 3, 4, 5])
        np.testing.assert_array_equal(b, [6, 7, 8])
        np.testing.assert_array_equal(c, [9, 10])

    def test_scalar_axis(self, params):
        a, b = vsplit(np.arange(1, 13, dtype=np.float32).reshape(6, 2), np.int64(0), np.array([4, 2]), params)
        np.testing.assert_array_equal(a, [[1, 2], [3, 4], [5, 6], [7, 8]])
        np.testing.assert_array_equal(b, [[9, 10], [11, 12]])

    def test_axis_1(self, params):
        a, b = vsplit(np.arange(1, 13, dtype=np.float32).reshape(4, 3), np.int64(1), np.array([1, 2]), params)
        np.testing.assert_array_equal(a.ravel(), [1, 4, 7, 10])
        np.testing.assert_array_equal(b.ravel(), [2, 3, 5, 6, 8, 9, 11, 12])

    def test_rank_4(self, params):
        x = np.arange(36, dtype=np.float32).reshape(6, 2, 3, 1)
        a, b, c = vsplit(x, np.array([0]), np.array([3, 1, 2]), params)
        np.testing.assert_array_equal(a.ravel(), np.arange(0, 18))
        np.testing.assert_array_equal(b.ravel(), np.arange(18, 24))
        np.testing.assert_array_equal(c.ravel(), np.arange(24, 36))

    def test_u64_axis_and_lengths(self, params):
        x = np.arange(64, dtype=np.float32).reshape(2, 8, 2, 2)
        outs = vsplit(x, np.array([1], np.uint64), np.array([1, 3, 2, 2], np.uint64), params)
        want = [[*range(0, 4), *range(32, 36)], [*range(4, 16), *range(36, 48)],
                [*range(16, 24), *range(48, 56)], [*range(24, 32), *range(56, 64)]]
        for o, w in zip(outs, want):
            np.testing.assert_array_equal(o.ravel(), w)

    def test_u32_axis_and_lengths(self, params):
        x = np.arange(24, dtype=np.float32).reshape(2, 1, 6, 2)
        outs = vsplit(x, np.array([2], np.uint32), np.array([3, 1, 2], np.uint32), params)
        want = [[*range(0, 6), *range(12, 18)], [6, 7, 18, 19], [*range(8, 12), *range(20, 24)]]
        for o, w in zip(outs, want):
            np.testing.assert_array_equal(o.ravel(), w)

    @pytest.mark.parametrize("lengths, out_shapes", [
        ([6, 0], [(2, 6), (2, 0)]), ([6, -1], [(2, 6), (2, 0)]), ([-1], [(2, 6)]),
        ([2, -1, 0, 1], [(2, 2), (2, 3), (2, 0), (2, 1)])])
    def test_zero_and_minus_one(self, params, lengths, out_shapes):
        x = np.arange(12, dtype=np.int32).reshape(2, 6)
        outs = vsplit(x, np.int64(1), np.array(lengths), params)
        assert [o.shape for o in outs] == out_shapes
        np.testing.assert_array_equal(outs[0], x[:, :out_shapes[0][1]])

    def test_zero_size_axis(self, params):
        a, b = vsplit(np.zeros((0, 4), np.float32), np.int64(0), np.array([0, -1]), params)
        assert a.shape == b.shape == (0, 4)

    def test_negative_axis_minus_one_in_the_middle(self, params):
        a, b, c = vsplit(np.arange(12, dtype=np.int16).reshape(1, 12), np.int64(-1),
                         np.array([7, -1, 2]), params)
        np.testing.assert_array_equal(a, [[0, 1, 2, 3, 4, 5, 6]])
        np.testing.assert_array_equal(b, [[7, 8, 9]])
        np.testing.assert_array_equal(c, [[10, 11]])


@pytest.mark.parametrize("ldtype", [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16,
                                    np.uint32, np.uint64, np.float32], ids=str)
@pytest.mark.parametrize("params", [(), (0,), ALL_PARAMS], ids=["const", "param-data", "params"])
def test_index_types(ldtype, params):
    a, b = vsplit(np.arange(12, dtype=np.float32).reshape(2, 6), ldtype(1), np.array([2, 4], ldtype), params)
    np.testing.assert_array_equal(a, [[0, 1], [6, 7]])
    np.testing.assert_array_equal(b, [[2, 3, 4, 5], [8, 9, 10, 11]])


def test_signed_minus_one_in_small_types():
    a, b = vsplit(np.arange(6, dtype=np.float32), np.int8(0), np.array([-1, 4], np.int8))
    np.testing.assert_array_equal(a, [0, 1])
    np.testing.assert_array_equal(b, [2, 3, 4, 5])


def test_f32_lengths_and_axis_truncate():      # measured: [2.7, 3.2, 1] -> [2, 3, 1], axis 1.7 -> 1
    outs = vsplit(np.arange(12, dtype=np.float32).reshape(2, 6), np.float32(1.7),
                  np.array([2.7, 3.2, 1], np.float32))
    assert [o.shape for o in outs] == [(2, 2), (2, 3), (2, 1)]


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_dtypes(dtype):
    x = sample((3, 5), dtype)
    a, b = vsplit(x, np.int64(1), np.array([-1, 3]))
    assert a.dtype == b.dtype == x.dtype
    assert (a == x[:, :2]).all() and (b == x[:, 2:]).all()


@pytest.mark.parametrize("params", [(0,), ALL_PARAMS], ids=["const-lengths", "runtime-lengths"])
def test_outputs_are_views_of_the_input(params):
    x = np.arange(24, dtype=np.float32).reshape(4, 6)
    outs = vsplit(x, np.int64(1), np.array([1, -1, 2]), params)
    assert [o.shape for o in outs] == [(4, 1), (4, 3), (4, 2)]
    assert all(np.shares_memory(o, x) for o in outs)


# --- errors -------------------------------------------------------------------------------------

@pytest.mark.parametrize("axis, lengths, fragment", [
    (np.int64(1), np.array([-1, -1]), "Cannot infer split with multiple -1 values at 0 and 1"),
    (np.int64(1), np.array([-2, 8]), "Invalid value -2 in split lengths input. Should be >= -1."),
    (np.int64(1), np.array([2, 3]), "Total length of splits: 5 must match the length of the chosen axis: 6"),
    (np.int64(1), np.array([4, 4]), "Total length of splits: 8 must match the length of the chosen axis: 6"),
    (np.int64(1), np.array([8, -1]), "Total length of splits: 8 is larger than the length of the "
                                     "chosen axis: 6"),     # OpenVINO accepts this (bug)
    (np.int64(2), np.array([3, 3]), "Axis 2 out of the tensor rank range [-2, 1]."),
    (np.int64(-3), np.array([3, 3]), "Axis -3 out of the tensor rank range [-2, 1]."),
    (np.array([0, 1]), np.array([3, 3]), "Axis should be a scalar or of shape [1]. Got [2] instead."),
    (np.array([[1]]), np.array([3, 3]), "Axis should be a scalar or of shape [1]. Got [1,1] instead."),
    (np.int64(1), np.array([[3, 3]]), "Split lengths should be a 1-D tensor. Got 2 instead."),
    (np.int64(1), np.array([True, True]), "Element not supported"),     # measured
    (np.bool_(True), np.array([3, 3]), "Element not supported"),         # measured
])
@pytest.mark.parametrize("params", [(), (0,)], ids=["const", "param-data"])
def test_rejected_by_shape_inference(axis, lengths, fragment, params):
    x = np.zeros((2, 6), np.float32)
    n = np.asarray(lengths).shape[-1]
    rejects(ShapeError, fragment, run_op, "VariadicSplit", [x, axis, lengths], n_out=n, params=params)


def test_scalar_lengths_rejected():
    rejects(ShapeError, "Split lengths should be a 1-D tensor. Got 0 instead.", infer_op, "VariadicSplit",
            [Param("f32", "2,6"), np.int64(1), np.int64(6)], n_out=1)


def test_scalar_data_rejected():
    rejects(ShapeError, "Accessing out-of-range dimension", infer_op, "VariadicSplit",
            [Param("f32", ""), np.int64(0), np.array([3, 3])], n_out=2)


def test_lengths_of_unknown_shape_rejected():
    rejects(ShapeError, "the number of outputs is unknown", infer_op, "VariadicSplit",
            [Param("f32", "2,6"), np.int64(1), Param("i64", "?")], n_out=2)


@pytest.mark.parametrize("data, lengths, fragment", [
    ("2..6,2", [8, -1], "Total length of splits: 8 can never match the length of the chosen axis: 2..6"),
    ("2..6,2", [1], "Total length of splits: 1 can never match"),
    ("2..6,2", [4, 3], "Total length of splits: 7 can never match"),
    ("...", [-2, 3], "Invalid value -2"),
    ("...", [-1, -1], "Cannot infer split with multiple -1 values"),
])
def test_interval_lengths_that_can_never_run(data, lengths, fragment):   # OpenVINO accepts these
    rejects(ShapeError, fragment, infer_op, "VariadicSplit",
            [Param("f32", data), np.int64(0), np.array(lengths)], n_out=len(lengths))


@pytest.mark.parametrize("lengths, fragment", [
    ([8, -1], "Total length of splits: 8 is larger than the length of the chosen axis: 6"),
    ([2, 3], "Total length of splits: 5 must match the length of the chosen axis: 6"),
    ([-1, -1], "Cannot infer split with multiple -1 values at 0 and 1"),
    ([-3, 9], "Invalid value -3 in split lengths input"),
])
def test_runtime_lengths_checked_by_the_kernel(lengths, fragment):
    rejects(ExecutionError, fragment, vsplit, np.zeros((2, 6), np.float32), np.int64(1), np.array(lengths),
            params=(0, 2))


def test_runtime_axis_checked_by_the_kernel():
    rejects(ExecutionError, "Axis -3 out of the tensor rank range [-2, 1].", vsplit,
            np.zeros((2, 6), np.float32), np.int64(-3), np.array([3, 3]), params=(0, 1))


def test_interval_model_run_on_concrete_shapes(tmp_path):
    """Declared [2..6,2] with lengths [4,1,-1]: the -1 is ? until the input arrives."""
    import irrun
    from irrun.ir.builder import IRWriter
    b = IRWriter("vs")
    x = b.parameter("x", "f32", "2..6,2")
    parts = b.layer("VariadicSplit", [x, b.const(np.int64(0)), b.const(np.array([4, 1, -1]))], n_out=3)
    for i, p in enumerate(parts):
        b.result(p, f"y{i}")
    model = irrun.read_model(b.save(tmp_path / "vs.xml"))
    outs = model.run({"x": np.arange(12, dtype=np.float32).reshape(6, 2)})
    assert [o.shape for o in outs.values()] == [(4, 2), (1, 2), (1, 2)]
    np.testing.assert_array_equal(outs["y2"], [[10, 11]])
    rejects(ShapeError, "Total length of splits: 5 is larger than the length of the chosen axis: 4",
            model.run, {"x": np.zeros((4, 2), np.float32)})   # 4 + 1 > 4 rows: the -1 would be -1
