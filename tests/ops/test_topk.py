"""TopK-1/3/11: the top-k-*.rst examples and order tables, the stable tie rule, the v3 spec's NaN
sentence, k from a Const or at run time, partial shapes, errors, element types, and the OpenVINO
measurements of tools/expectations/make_select_expectations.py."""
from functools import partial

import numpy as np
import pytest

from helpers import ALL_DTYPES, Param, infer_op, raises_for, run_op, shape_str
from irrun.types import elements
from irrun.errors import ExecutionError, ShapeError, UnsupportedError
from nn_cases import array, assert_close, case_ids, entry, replay, run_case

NUMERIC = [d for d in ALL_DTYPES if np.dtype(d) != elements.STRING_DTYPE]      # and boolean
#: OpenVINO's shape inference accepts these; its evaluators refuse them or return something else
REFUSE = {"TopK11-k0": "K (0) must be greater or equal to 1", "TopK11-k0-param": "K (0) must be greater or equal to 1",
          "TopK11-shape-k-zero": "K (0) must be greater or equal to 1",
          "TopK11-shape-k-greater": "K (7) exceeds the axis dimension (5)",
          "TopK11-shape-interval-axis-k-big": "K (12) exceeds the axis dimension (10)",
          "TopK11-shape-type-string": "irrun does not support TopK on strings"}
#: OpenVINO's message ends in "'INDEX'.none" (its formatting); irrun says "(sort is none)"
MESSAGES = {"TopK11-shape-stable-none": "Stable sort can only be used when TopK's sorting mode is set to 'VALUE' or 'INDEX'"}
PATHS = [(0,), (0, 1), ()]
PATH_IDS = ["const-k", "param-k", "all-const"]
rejects = partial(raises_for, "TopK")


def by_index(values, indices, axis):
    order = np.argsort(indices, axis=axis, kind="stable")
    return np.take_along_axis(values, order, axis), np.take_along_axis(indices, order, axis)


@pytest.mark.parametrize("case", case_ids("TopK"))
def test_openvino_case(case):
    e = entry(case)
    if e["kind"] == "shape" or e["status"] != "ok" or case in REFUSE:
        replay(case, REFUSE, MESSAGES)
        return
    # Where the CPU plugin and the reference evaluator differ (ties, i64 beyond 32 bits, sort=none),
    # the reference is compared: it ranks ties by index, which is the spec's stable order.
    keys = e.get("reference_arrays") or [o["array"] for o in e["outputs"]]
    want = [array(k, o["etype"], e["fixture"]) for k, o in zip(keys, e["outputs"])]
    got = run_case(case)
    if e["attrs"]["sort"] == "none":       # unspecified order: compare the selected elements
        axis = int(e["attrs"]["axis"])
        got, want = by_index(*got, axis), by_index(*want, axis)
    for j, (g, w) in enumerate(zip(got, want)):
        assert_close(g, w, e["outputs"][j]["etype"], f"{case} output {j}")


def topk(x, k, mode="max", sort="value", axis=-1, version="opset11", params=(0,), **a):
    attrs = dict(axis=axis, mode=mode, sort=sort, **a)
    return run_op("TopK", [np.asarray(x), np.asarray(k, np.int64)], attrs, version, n_out=2, params=params)


def tshape(x, k, version="opset11", **a):
    attrs = dict(dict(axis=1, mode="max", sort="value"), **a)
    return [shape_str(i) for i in infer_op("TopK", [x, k], attrs, version, n_out=2, params=())]


# ---------------------------------------------------------------------------------------------
# The spec's order tables (top-k-1/3/11.rst): x = [2, 7, 1, 9, 4], k = 3

@pytest.mark.parametrize("version", ["opset1", "opset3", "opset11"])
@pytest.mark.parametrize("params", PATHS, ids=PATH_IDS)
@pytest.mark.parametrize("mode, sort, values, indices", [
    ("max", "value", [9, 7, 4], [3, 1, 4]),        # descending by value
    ("max", "index", [7, 9, 4], [1, 3, 4]),        # ascending by index
    ("min", "value", [1, 2, 4], [2, 0, 4]),        # ascending by value
    ("min", "index", [2, 1, 4], [0, 2, 4]),        # ascending by index
])
def test_order_table(mode, sort, values, indices, params, version):
    v, i = topk(np.array([2, 7, 1, 9, 4], np.float32), 3, mode, sort, 0, version, params)
    np.testing.assert_array_equal(v, values)
    np.testing.assert_array_equal(i, indices)
    assert i.dtype == np.int32                     # index_element_type defaults to i32


@pytest.mark.parametrize("stable", [True, False])
def test_spec_stable_example(stable):
    # top-k-11.rst: [5, 3, 1, 2, 5, 5], min, index, k=4: with stable=true only [5,3,1,2] / [0,1,2,3];
    # without, that answer is one of three correct ones (irrun gives the stable one always)
    v, i = topk(np.array([5, 3, 1, 2, 5, 5], np.float32), 4, "min", "index", 0, stable=stable)
    np.testing.assert_array_equal(v, [5, 3, 1, 2])
    np.testing.assert_array_equal(i, [0, 1, 2, 3])


@pytest.mark.parametrize("mode, sort, indices", [("max", "value", [0, 4, 5, 1]), ("min", "value", [2, 3, 1, 0]),
                                                 ("max", "index", [0, 1, 4, 5])])
def test_ties_keep_input_order(mode, sort, indices):
    _, i = topk(np.array([5, 3, 1, 2, 5, 5], np.float32), 4, mode, sort, 0, stable=True)
    np.testing.assert_array_equal(i, indices)


def test_sort_none_selects_the_top_k():
    v, i = topk(np.array([2, 7, 1, 9, 4], np.float32), 3, "max", "none", 0)
    assert sorted(i.tolist()) == [1, 3, 4] and sorted(v.tolist()) == [4, 7, 9]


def test_nan_is_smaller_than_any_number():
    # top-k-3.rst: "in max mode, NaN values will not appear in top-K results unless fewer than K
    # valid numbers exist"; irrun reads "smaller than any valid number" for min mode too
    x = np.array([np.nan, 1, np.nan, 3, 2], np.float32)
    v, i = topk(x, 3, "max", "value", 0)
    np.testing.assert_array_equal(v, [3, 2, 1])
    np.testing.assert_array_equal(i, [3, 4, 1])
    v, i = topk(x, 4, "max", "value", 0)
    np.testing.assert_array_equal(i, [3, 4, 1, 0])
    assert np.isnan(v[3])
    v, i = topk(x, 3, "min", "value", 0)
    np.testing.assert_array_equal(i, [0, 2, 1])


def test_infinities_and_signed_zero():
    v, i = topk(np.array([0.0, -np.inf, -0.0, np.inf], np.float32), 4, "max", "value", 0)
    np.testing.assert_array_equal(i, [3, 0, 2, 1])          # 0.0 == -0.0: input order
    np.testing.assert_array_equal(v, [np.inf, 0, 0, -np.inf])


def test_axis_and_index_type():
    x = np.array([[[1, 8], [5, 2], [3, 4]]], np.float32)   # [1, 3, 2], axis 1 (= -2)
    for axis in (1, -2):
        v, i = topk(x, 2, "max", "value", axis, index_element_type="i64")
        np.testing.assert_array_equal(v, [[[5, 8], [3, 4]]])
        np.testing.assert_array_equal(i, [[[1, 0], [2, 2]]])
        assert i.dtype == np.int64


@pytest.mark.parametrize("dtype", NUMERIC, ids=str)
def test_every_numeric_type(dtype):
    x = np.array([[3, 0, 2, 1], [0, 1, 0, 1]]).astype(dtype)
    v, i = topk(x, 2, "max", "value", 1)
    assert v.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(v.astype(np.float64), [[1, 1], [1, 1]] if dtype == np.bool_ else [[3, 2], [1, 1]])
    np.testing.assert_array_equal(i, [[0, 2], [1, 3]])
    v, i = topk(x, 2, "min", "index", 1)
    np.testing.assert_array_equal(i, [[0, 1] if dtype == np.bool_ else [1, 3], [0, 2]])


def test_extreme_integers():
    x = np.array([-128, 127, 0, -128], np.int8)
    np.testing.assert_array_equal(topk(x, 2, "min", "value", 0)[1], [0, 3])
    x = np.array([0, 2**64 - 1, 2**63], np.uint64)
    np.testing.assert_array_equal(topk(x, 2, "max", "value", 0)[0], [2**64 - 1, 2**63])
    x = np.array([2**40 + 1, 2**40, 5], np.int64)           # the CPU plugin truncates these to 32 bits
    np.testing.assert_array_equal(topk(x, 2, "max", "value", 0)[1], [0, 1])


def test_strings_unsupported():
    x = np.array(["b", "a"], dtype=elements.STRING_DTYPE)
    rejects(UnsupportedError, "irrun does not support TopK on strings", topk, x, 1)


def test_zero_size_batch():
    v, i = topk(np.zeros((0, 5), np.float32), 2, axis=1)
    assert v.shape == i.shape == (0, 2)


# ---------------------------------------------------------------------------------------------
# Shapes (measured with OpenVINO 2026.4.1)

@pytest.mark.parametrize("x, k, version, out", [
    (Param("f32", "1,3,224,224"), np.int64(10), "opset11", "[1,3,224,10]"),     # top-k-11.rst example (axis 3)
    (Param("f32", "6,12,10,24"), np.int64(3), "opset1", "[6,3,10,24]"),          # top-k-1.rst example (axis 1)
    (Param("f32", "?,5"), np.int64(3), "opset11", "[?,3]"),
    (Param("f32", "2,?"), np.int64(3), "opset11", "[2,3]"),
    (Param("f32", "2,3..10"), np.int64(3), "opset3", "[2,3]"),
    (Param("f32", "2,10"), Param("i64", ""), "opset11", "[2,0..10]"),           # k known at run time only
    (Param("f32", "2,3..10"), Param("i32", ""), "opset11", "[2,0..10]"),
    (Param("f32", "2,4.."), Param("i64", ""), "opset1", "[2,?]"),
    (Param("f32", "2,10"), Param("i64", "..."), "opset11", "[2,0..10]"),
    (Param("f32", "..."), np.int64(3), "opset11", "[...]"),
])
def test_shapes(x, k, version, out):
    axis = 3 if "224" in x.shape else 1
    assert tshape(x, k, version, axis=axis) == [out, out]


def test_output_types():
    vals, idx = infer_op("TopK", [Param("f16", "2,5"), np.int64(2)], dict(axis=1, mode="max", sort="value",
                                                                            index_element_type="i64"), "opset3", n_out=2, params=())
    assert (vals.etype.name, idx.etype.name) == ("f16", "i64")


@pytest.mark.parametrize("x, k, version, attrs, fragment", [
    (Param("f32", ""), np.int64(1), "opset11", {}, "Input rank must be greater than 0."),
    (Param("f32", "2,5"), np.array([3]), "opset11", {}, "The 'K' input must be a scalar."),
    (Param("f32", "2,5"), Param("i64", "1"), "opset11", {}, "The 'K' input must be a scalar."),
    (Param("f32", "2,5"), np.int64(-1), "opset11", {}, "The value of 'K' must be greater or equal to zero. (got -1)."),
    (Param("f32", "2,5"), np.float32(3), "opset11", {}, "K input has to be an integer type, which does match the provided one:f32"),
    (Param("f32", "2,5"), np.uint8(3), "opset1", {}, "K input element type must be i8, i32 or i64 (got u8)."),
    (Param("f32", "2,5"), np.int64(1), "opset11", {"axis": 2}, "Axis 2 out of the tensor rank range [-2, 1]."),
    (Param("f32", "2,5"), np.int64(1), "opset11", {"index_element_type": "u8"},
     "Index element type attribute should be either 'i32' or 'i64'. Got: u8"),
    (Param("f32", "2,5"), np.int64(1), "opset11", {"sort": "none", "stable": True}, "Stable sort can only be used"),
    # OpenVINO accepts these two at shape inference and cannot run them
    (Param("f32", "2,5"), np.int64(0), "opset11", {}, "K (0) must be greater or equal to 1"),
    (Param("f32", "2,3..5"), np.int64(6), "opset11", {}, "K (6) exceeds the axis dimension (5)"),
])
def test_rejected(x, k, version, attrs, fragment):
    rejects(ShapeError, fragment, tshape, x, k, version, **attrs)


@pytest.mark.parametrize("k, fragment", [(7, "K (7) exceeds the axis dimension (5)"),
                                         (0, "K (0) must be greater or equal to 1"),
                                         (-2, "The value of 'K' must be greater or equal to zero. (got -2).")])
def test_runtime_k_checked_by_the_kernel(k, fragment):
    rejects(ExecutionError, fragment, topk, np.zeros((2, 5), np.float32), k, params=(0, 1))


def test_runtime_k_within_an_interval_axis():
    assert tshape(Param("f32", "2,3..10"), np.int64(4)) == ["[2,4]", "[2,4]"]
    v, i = topk(np.arange(10, dtype=np.float32).reshape(2, 5), 4, params=(0, 1), axis=1)
    np.testing.assert_array_equal(i, [[4, 3, 2, 1]] * 2)
