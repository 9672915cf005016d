"""ScatterUpdate-3, ScatterNDUpdate-3 (IR opset4) / -15, ScatterElementsUpdate-3/-12: the worked
examples of their .rst specs (with the corrections OpenVINO's measured values call for), duplicate
indices, reductions, negative and out-of-range indices, errors, partial shapes, every element
type, inputs never written, and the OpenVINO measurements (tools/expectations/make_index_expectations.py)."""
from functools import partial

import numpy as np
import pytest

from helpers import ALL_DTYPES, Param, infer_op, raises_for, run_op, sample, shape_str
from irrun.types import elements
from irrun.errors import ExecutionError, ShapeError, UnsupportedError
from nn_cases import array, assert_close, case_ids, entry, replay, run_case

SCATTERS = ("ScatterUpdate", "ScatterNDUpdate", "ScatterElementsUpdate")
ONE_VALUE = "they must hold one value"
BEYOND = "those updates would land outside the data"
SCALAR = "ScatterElementsUpdate of scalar data cannot run"
STRINGS = "irrun does not support reduction 'sum' on string tensors"
#: layers OpenVINO builds but cannot run (its CPU plugin refuses them, its reference evaluator
#: guesses, crashes or writes outside the tensor), and what irrun does not implement
REFUSE = {"ScatterNDUpdate4-scalar-update-5": ONE_VALUE, "ScatterNDUpdate15-scalar-update-5": ONE_VALUE,
          "ScatterNDUpdate4-shape-upd-scalar-any": ONE_VALUE, "ScatterNDUpdate15-shape-upd-scalar-any": ONE_VALUE,
          "ScatterElementsUpdate3-shape-idx-bigger": BEYOND, "ScatterElementsUpdate12-shape-idx-bigger": BEYOND,
          "ScatterElementsUpdate3-shape-scalar": SCALAR, "ScatterElementsUpdate12-shape-scalar": SCALAR,
          "ScatterNDUpdate15-shape-string-sum": STRINGS, "ScatterElementsUpdate12-shape-string-sum": STRINGS}
#: where the CPU plugin and the reference evaluator differ, irrun follows the reference (the spec)
REFERENCE = {
    "ScatterNDUpdate4-k0": "empty index tuples address all of data; the CPU plugin leaves it unchanged",
    "ScatterNDUpdate15-k0": "the same",
    "ScatterNDUpdate15-bool-xor-sub": "boolean sub is xor; the CPU plugin computes 0 - 1 - 1 -> true",
    "ScatterElementsUpdate12-i32-mean": "integer mean rounds down; the CPU plugin truncates",
    "ScatterElementsUpdate12-i64-mean": "the same",
    "ScatterElementsUpdate12-nan-min": "a NaN on either side gives the update; the CPU plugin propagates NaN",
    "ScatterElementsUpdate12-nan-max": "the same",
}


@pytest.mark.parametrize("case", [c for c in case_ids(*SCATTERS) if c not in REFERENCE])
def test_openvino_case(case):
    replay(case, REFUSE)


@pytest.mark.parametrize("case", sorted(REFERENCE))
def test_openvino_reference_evaluator(case):
    e = entry(case)
    assert e["reference"].startswith("differs")
    for got, key, out in zip(run_case(case), e["reference_arrays"], e["outputs"]):
        assert_close(got, array(key, out["etype"], e["fixture"]), out["etype"], case)


def su(data, idx, upd, axis, params=(0, 1, 2)):
    return run_op("ScatterUpdate", [data, np.asarray(idx), upd, axis], version="opset3", params=params)[0]


def snd(data, idx, upd, reduction=None, params=(0, 1, 2)):
    version, attrs = ("opset4", {}) if reduction is None else ("opset15", {"reduction": reduction})
    return run_op("ScatterNDUpdate", [data, np.asarray(idx), upd], attrs, version, params=params)[0]


def seu(data, idx, upd, axis, reduction=None, init=True, params=(0, 1, 2)):
    version, attrs = ("opset3", {}) if reduction is None else ("opset12", {"reduction": reduction, "use_init_val": init})
    return run_op("ScatterElementsUpdate", [data, np.asarray(idx), upd, axis], attrs, version, params=params)[0]


def shape_of(type_, version, inputs, attrs=None):
    return shape_str(infer_op(type_, inputs, attrs, version, params=())[0])


PATHS = [(), (0,), (0, 1, 2)]
PATH_IDS = ["const", "param-data", "params"]
F4 = np.array([1, 2, 3, 4], np.float32)


# =============================================================================================
# ScatterUpdate-3

D35 = np.array([[-1, 1, -1, 3, 4], [-1, 6, -1, 8, 9], [-1, 11, 1, 13, 14]], np.float32)
U32 = np.array([[1, 1], [1, 1], [1, 2]], np.float32)


@pytest.mark.parametrize("params", PATHS + [(0, 1, 2, 3)], ids=PATH_IDS + ["param-axis"])
@pytest.mark.parametrize("axis", [np.int64(1), np.array([1], np.int32), np.int64(-1)], ids=["1", "[1]", "-1"])
def test_su_spec_example_2(axis, params):
    out = su(D35, [0, 2], U32, axis, params)
    np.testing.assert_array_equal(out, [[1, 1, 1, 3, 4], [1, 6, 1, 8, 9], [1, 11, 2, 13, 14]])


def test_su_scalar_and_2d_indices():
    # spec cases 1 and 3: data[indices, ...] = updates[...]; data[indices[i, j], ...] = updates[i, j, ...]
    np.testing.assert_array_equal(su(np.zeros((3, 2)), np.int64(1), np.array([5., 6.]), np.int64(0)),
                                  [[0, 0], [5, 6], [0, 0]])
    np.testing.assert_array_equal(su(np.zeros((4, 1)), [[3, 0], [1, 2]], np.array([[[10.], [1.]], [[20.], [2.]]]),
                                     np.int64(0)), [[1], [20], [2], [10]])


@pytest.mark.parametrize("params", PATHS, ids=PATH_IDS)
def test_su_duplicates_last_wins(params):
    # measured (both evaluators): applied in index order
    np.testing.assert_array_equal(su(F4, [1, 1, 1, 2, 2], np.arange(10, 60, 10, dtype=np.float32), np.int64(0), params),
                                  [1, 30, 50, 4])


@pytest.mark.parametrize("idx", [[-1, 0], [4, 0]], ids=["negative", "too-big"])
def test_su_out_of_range(idx):
    # both evaluators refuse: "ScatterUpdate indices value -1 is out of bounds for axis 0 of size 4"
    e = raises_for("ScatterUpdate", ExecutionError, f"index {idx[0]} at [0] is out of range [0, 3]",
                   su, F4, idx, np.zeros(2, np.float32), np.int64(0))
    assert e.openvino_loads
    raises_for("ScatterUpdate", ShapeError, "is out of range [0, 3]", su, F4, idx, np.zeros(2, np.float32), np.int64(0),
               params=(0,))


rejects_su = partial(raises_for, "ScatterUpdate")


@pytest.mark.parametrize("inputs, fragment", [
    ([Param("f32", "2,3"), Param("i64", "2"), Param("f32", "2,3,1"), np.int64(0)],
     "Updates rank is expected to be rank(indices) + rank(data) - 1. Got: rank(data) = 2, rank(indices) = 1, rank(updates) = 3"),
    ([Param("f32", "2,3"), Param("i64", "2"), Param("f32", "2,4"), np.int64(0)],
     "Updates shape must have appropriate dimensions equal to indices and data dimensions. Updates shape:[2,4], "
     "data shape: [2,3], indices_shape: [2], axis: 0."),
    ([Param("f32", "2,3"), Param("i64", "2"), Param("f32", "2,2"), np.int64(2)], "Axis 2 out of the tensor rank range [-2, 1]."),
    ([Param("f32", "4,3"), Param("i64", "2"), Param("f16", "2,3"), np.int64(0)],
     "Element types for input data and updates do not match (data element type: f32, updates element type: f16)."),
    ([Param("f32", "4,3"), Param("f32", "2"), Param("f32", "2,3"), np.int64(0)], "Indices element type must be of an integral number type."),
    ([Param("f32", "4,3"), Param("i64", "2"), Param("f32", "2,3"), np.float32(0)], "Axis element type must be of an integral number type."),
    ([Param("f32", "4,3"), Param("i64", "2"), Param("f32", "2,3"), np.array([0, 0])], "Axis input shape is required to be scalar or 1D tensor. Got: [2]"),
], ids=["upd-rank", "upd-shape", "axis-range", "types", "idx-f32", "axis-f32", "axis-shape"])
def test_su_errors(inputs, fragment):
    rejects_su(ShapeError, fragment, shape_of, "ScatterUpdate", "opset3", inputs)


def test_su_runtime_axis_checks_updates():
    rejects_su(ExecutionError, "Updates shape must have appropriate dimensions", su, D35, [0, 2], U32, np.int64(0),
               params=(0, 1, 2, 3))


@pytest.mark.parametrize("d, i, u, axis, expect", [
    ("?,3..5,4", "2", "?,?,2", np.int64(2), "[?,3..5,4]"),
    ("...", "2", "3,2", np.int64(0), "[...]"),
    ("2,3", "2", "2,2", Param("i64", ""), "[2,3]"),
    ("4,3", "2..3", "1..2,3", np.int64(0), "[4,3]"),
])
def test_su_partial_shapes(d, i, u, axis, expect):
    assert shape_of("ScatterUpdate", "opset3", [Param("f32", d), Param("i64", i), Param("f32", u), axis]) == expect


# =============================================================================================
# ScatterNDUpdate-3 (opset4) / -15

A4 = np.array([[1, 2, 3, 4], [5, 6, 7, 8], [8, 7, 6, 5], [4, 3, 2, 1]], np.float32)
EX2_DATA = np.stack([A4, A4, A4[::-1, ::-1], A4[::-1, ::-1]])
EX2_UPD = np.stack([np.repeat([[5], [6], [7], [8]], 4, 1), np.repeat([[1], [2], [3], [4]], 4, 1)]).astype(np.float32)


@pytest.mark.parametrize("params", PATHS, ids=PATH_IDS)
@pytest.mark.parametrize("reduction", [None, "none"], ids=["v4", "v15"])
def test_snd_spec_examples(reduction, params):
    np.testing.assert_array_equal(snd(np.arange(1, 9, dtype=np.float32), [[4], [3], [1], [7]],
                                      np.array([9, 10, 11, 12], np.float32), reduction, params),
                                  [1, 11, 3, 10, 9, 6, 7, 12])
    out = snd(EX2_DATA, [[0], [2]], EX2_UPD, reduction, params)
    np.testing.assert_array_equal(out, [EX2_UPD[0], A4, EX2_UPD[1], A4[::-1, ::-1]])


def test_snd15_spec_example_1_negative_and_duplicate():
    # the spec says [1, 11, 3, 10, 4, 6, 13, 12]; index 4 is written twice (9, then 14 via -4):
    # OpenVINO (both evaluators) gives 14 there
    out = snd(np.arange(1, 9, dtype=np.float32), [[4], [3], [1], [7], [-2], [-4]],
              np.arange(9, 15, dtype=np.float32), "none")
    np.testing.assert_array_equal(out, [1, 11, 3, 10, 14, 6, 13, 12])


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32])
@pytest.mark.parametrize("reduction, expect", [
    ("none", [50, 40, 20, 4]),        # spec: [50, 20, 20, 4] (typo; measured: index 1 gets 30 then 40)
    ("sum", [61, 72, 23, 4]),
    ("sub", [-59, -68, -17, 4]),
    ("prod", [500, 2400, 60, 4]),     # spec: [500, 3600, 40, 4] (typo; 2*30*40 and 3*20, measured)
    ("min", [1, 2, 3, 4]),
    ("max", [50, 40, 20, 4]),
])
def test_snd15_spec_xml_examples(reduction, expect, dtype):
    out = snd(F4.astype(dtype), np.array([0, 2, -3, -3, 0], np.int32).reshape(5, 1),
              np.array([10, 20, 30, 40, 50], dtype), reduction)
    assert out.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(out, expect)


@pytest.mark.parametrize("reduction, expect", [
    ("sum", [-29, -4, 5, 7]), ("sub", [-27, 60, 5, 7]), ("prod", [-80, 64, 5, 7]),
    ("min", [27, -100, 5, 7]), ("max", [100, -60, 5, 7]),
])
def test_snd15_integers_wrap(reduction, expect):
    # measured (CPU plugin; the reference has no i8 kernel): 100 + 100 + 27 = 227 -> -29
    out = snd(np.array([100, -100, 5, 7], np.int8), [[0], [0], [1], [1]], np.array([100, 27, -100, -60], np.int8), reduction)
    np.testing.assert_array_equal(out, expect)


@pytest.mark.parametrize("reduction, expect", [
    ("sum", [1, 1, 1, 0]), ("sub", [0, 0, 1, 0]), ("prod", [0, 0, 0, 0]), ("min", [0, 0, 0, 0]), ("max", [1, 1, 1, 0]),
])
def test_snd15_boolean_reductions_are_logical(reduction, expect):
    # the spec: sum, sub, prod = or, xor, and (min = and, max = or); the reference evaluator
    out = snd(np.array([1, 0, 1, 0], bool), [[0], [1], [1], [2], [0]], np.array([1, 1, 1, 0, 0], bool), reduction)
    assert out.dtype == np.bool_
    np.testing.assert_array_equal(out, np.array(expect, bool))


def test_snd15_f16_accumulates_in_f32():
    # 2048 + 1 + 1 + 1 + 1: f16 steps would stay at 2048; OpenVINO gives 2052 (measured)
    out = snd(np.array([2048, 0], np.float16), [[0], [0], [0], [0], [1], [1], [1]],
              np.array([1, 1, 1, 1, 1, 1, 2048], np.float16), "sum")
    np.testing.assert_array_equal(out, [2052, 2050])


@pytest.mark.parametrize("reduction, expect", [("min", [np.nan, 1, np.nan, 5, np.nan]), ("max", [np.nan, 4, np.nan, 8, np.nan])])
def test_snd15_nan_follows_std_min_max(reduction, expect):
    # measured (both evaluators): a NaN in data stays, NaN updates are ignored
    out = snd(np.array([np.nan, 1, np.nan, 5, np.nan], np.float32), np.array([0, 0, 1, 1, 2, 2, 3, 3, 3, 4]).reshape(-1, 1),
              np.array([3, 2, np.nan, 4, np.nan, 1, np.nan, 7, 8, 2], np.float32), reduction)
    np.testing.assert_array_equal(out, expect)


@pytest.mark.parametrize("reduction, expect", [(None, [[5, 6], [7, 8]]), ("sum", [[6, 8], [10, 12]])])
def test_snd_empty_index_tuples_address_all_of_data(reduction, expect):
    # indices [2, 0]: each update replaces (or reduces into) the whole data tensor (reference evaluator)
    upd = np.arange(1, 9, dtype=np.float32).reshape(2, 2, 2)
    np.testing.assert_array_equal(snd(np.zeros((2, 2), np.float32), np.zeros((2, 0), np.int64), upd, reduction), expect)


@pytest.mark.parametrize("upd", [np.float32(7), np.array([7], np.float32)], ids=["scalar", "[1]"])
def test_snd_single_element_update(upd):
    out = snd(np.zeros((2, 3), np.float32), [1, 2], upd)
    np.testing.assert_array_equal(out, [[0, 0, 0], [0, 0, 7]])


def test_snd_single_element_update_must_hold_one_value():
    e = raises_for("ScatterNDUpdate", ShapeError, ONE_VALUE, snd, np.zeros((2, 3), np.float32), [1, 2],
                   np.arange(5, dtype=np.float32))
    assert e.openvino_loads


@pytest.mark.parametrize("idx, fragment", [([[1, 3]], "index 3 at [0, 1] is out of range [-3, 2]"),
                                           ([[-3, 0]], "index -3 at [0, 0] is out of range [-2, 1]")])
def test_snd_out_of_range(idx, fragment):
    # OpenVINO: "Index is out of bounds" (reference), a refusal by the CPU plugin too
    data, upd = np.zeros((2, 3), np.float32), np.ones(1, np.float32)
    assert raises_for("ScatterNDUpdate", ExecutionError, fragment, snd, data, idx, upd).openvino_loads
    raises_for("ScatterNDUpdate", ShapeError, fragment, snd, data, idx, upd, "max", params=(0,))


@pytest.mark.parametrize("d, i, u, ie, ue, fragment", [
    ("2,3", "4,3", "4", "i64", "f32", "Last dimension of indices can be at most the rank of inputs"),
    ("2,3", "4,1", "4", "i64", "f32", "Rank of updates must be rank of inputs + rank of indices - last dimension of indices - 1"),
    ("2,3", "4,1", "5,3", "i64", "f32", "updates_shape[0:indices_rank-1] shape must be indices_shape[:-1]"),
    ("2,3", "4,1", "4,2", "i64", "f32", "updates_shape[indices_rank-1:] shape must be input_shape[indices_shape[-1]:]"),
    ("", "1", "1", "i64", "f32", "Indices rank and inputs_rank are expected to be at least 1"),
    ("2,3", "4,1", "4,3", "u8", "f32", "Indices element type must be i64 or i32"),
    ("2,3", "4,1", "4,3", "i64", "f16", "Updates element type must be the same as inputs"),
], ids=["k", "upd-rank", "upd-idx-dims", "upd-data-dims", "scalar", "idx-u8", "types"])
@pytest.mark.parametrize("version", ["opset4", "opset15"])
def test_snd_errors(d, i, u, ie, ue, fragment, version):
    raises_for("ScatterNDUpdate", ShapeError, fragment, shape_of, "ScatterNDUpdate", version,
               [Param("f32", d), Param(ie, i), Param(ue, u)])


@pytest.mark.parametrize("d, i, u, expect", [
    ("?,3..5,4", "?,2", "2..3,4", "[?,3..5,4]"), ("...", "2,1", "...", "[...]"), ("2,3", "4,?", "4,3", "[2,3]"),
    ("2,3..6", "1..4,1", "3..7,5..8", "[2,3..6]"),
])
def test_snd_partial_shapes(d, i, u, expect):
    assert shape_of("ScatterNDUpdate", "opset15", [Param("f32", d), Param("i64", i), Param("f32", u)]) == expect


# =============================================================================================
# ScatterElementsUpdate-3 / -12

SPEC_D, SPEC_U = np.array([2, 3, 4, 6], np.float32), np.array([10, 20, 30, 40, 70, 60], np.float32)
U22 = np.array([[11, 12], [13, 14]], np.int32)


@pytest.mark.parametrize("params", PATHS + [(0, 1, 2, 3)], ids=PATH_IDS + ["param-axis"])
def test_seu12_spec_examples_1_2(params):
    out = seu(SPEC_D, [1, 0, 0, -2, -1, 2], SPEC_U, np.array([0]), "sum", True, params)
    np.testing.assert_array_equal(out, [52, 13, 104, 76])
    out = seu(SPEC_D, [1, 0, 0, 2, 3, 2], SPEC_U, np.array([0]), "sum", False, params)
    np.testing.assert_array_equal(out, [50, 10, 100, 70])


@pytest.mark.parametrize("reduction", [None, "none"], ids=["v3", "v12"])
def test_seu_spec_example_3(reduction):
    out = seu(np.zeros((3, 4), np.int32), [[1, 2], [0, 3]], U22, np.array([1]), reduction)
    np.testing.assert_array_equal(out, [[0, 11, 12, 0], [13, 0, 0, 14], [0, 0, 0, 0]])


@pytest.mark.parametrize("fill, reduction, expect", [
    (1, "sum", [[1, 24, 1, 1], [14, 1, 1, 15], [1, 1, 1, 1]]),
    (2, "prod", [[2, 264, 2, 2], [26, 2, 2, 28], [2, 2, 2, 2]]),
], ids=["example-4", "example-5"])
def test_seu12_spec_examples_4_5(fill, reduction, expect):
    np.testing.assert_array_equal(seu(np.full((3, 4), fill, np.int32), [[1, 1], [0, 3]], U22, np.array([1]), reduction), expect)


@pytest.mark.parametrize("reduction, expect", [
    ("sum", [14, 1, -8, 4]), ("prod", [45, -42, -8, 4]), ("min", [5, -6, -8, 4]), ("max", [9, 7, -8, 4]),
    ("mean", [7, 0.5, -8, 4]),
])
def test_seu12_without_init_value(reduction, expect):
    # measured: the targeted elements forget data; untouched ones (index 3) keep it
    out = seu(F4, [0, 1, 1, 2, 0], np.array([5, -6, 7, -8, 9], np.float32), np.int64(0), reduction, False)
    np.testing.assert_array_equal(out, expect)


@pytest.mark.parametrize("init, expect", [(True, [-1, 0, -1, 4]), (False, [-2, -1, 1, 4])])
def test_seu12_integer_mean_rounds_down(init, expect):
    # reference evaluator: (1 - 6 + 2) / 3 = -1, (2 - 1) / 2 -> 0, (-3 + 1 + 1) / 3 -> -1 (CPU: 0)
    out = seu(np.array([1, 2, -3, 4], np.int32), [0, 0, 2, 2, 1], np.array([-6, 2, 1, 1, -1], np.int32), np.int64(0),
              "mean", init)
    np.testing.assert_array_equal(out, expect)


@pytest.mark.parametrize("reduction, init, expect", [
    ("sum", True, [1, 1, 1, 0]), ("sum", False, [1, 1, 0, 0]), ("prod", True, [0, 0, 0, 0]), ("prod", False, [0, 1, 0, 0]),
    ("min", False, [0, 1, 0, 0]), ("max", True, [1, 1, 1, 0]),
])
def test_seu12_boolean_reductions(reduction, init, expect):
    out = seu(np.array([1, 0, 1, 0], bool), [0, 1, 1, 2, 0], np.array([1, 1, 1, 0, 0], bool), np.int64(0), reduction, init)
    np.testing.assert_array_equal(out, np.array(expect, bool))


def test_seu12_boolean_mean_is_refused():
    raises_for("ScatterElementsUpdate", ShapeError, "The 'mean' reduction type is not supported for boolean tensors",
               seu, np.array([1, 0], bool), [0], np.array([1], bool), np.int64(0), "mean")


@pytest.mark.parametrize("reduction, init, expect", [
    ("min", True, [2, 4, 1, 7, 2]), ("max", True, [3, 4, 1, 8, 2]), ("sum", True, [np.nan] * 5),
])
def test_seu12_nan_reference_semantics(reduction, init, expect):
    # the reference evaluator computes `out < u ? out : u`: a NaN on either side yields u
    out = seu(np.array([np.nan, 1, np.nan, 5, np.nan], np.float32), [0, 0, 1, 1, 2, 2, 3, 3, 3, 4],
              np.array([3, 2, np.nan, 4, np.nan, 1, np.nan, 7, 8, 2], np.float32), np.int64(0), reduction, init)
    np.testing.assert_array_equal(out, expect)


def test_seu12_nan_last_update_wins():
    out = seu(np.array([1, 5], np.float32), [0, 0, 1], np.array([2, np.nan, np.nan], np.float32), np.int64(0), "max")
    np.testing.assert_array_equal(out, [np.nan, np.nan])


def test_seu12_neutral_values_are_finite():
    # measured: use_init_val=false starts min at FLT_MAX and max at -FLT_MAX, not at +-inf
    big = np.finfo(np.float32).max
    np.testing.assert_array_equal(seu(np.float32([1, 2]), [0, 1], np.float32([np.inf, -np.inf]), np.int64(0), "min", False),
                                  [big, -np.inf])
    np.testing.assert_array_equal(seu(np.float32([1, 2]), [0, 1], np.float32([np.inf, -np.inf]), np.int64(0), "max", False),
                                  [np.inf, -big])


def test_seu12_u8_mean_wraps_before_dividing():
    # measured (CPU plugin): 250 + 3 + 4 wraps to 1, then 1 // 3 = 0
    out = seu(np.array([1, 2, 250, 7], np.uint8), [0, 0, 2, 2], np.array([5, 3, 3, 4], np.uint8), np.int64(0), "mean")
    np.testing.assert_array_equal(out, [3, 2, 0, 7])


@pytest.mark.parametrize("reduction", [None, "none"])
def test_seu_duplicates_last_wins_and_axes(reduction):
    data = np.zeros((2, 3), np.int64)
    out = seu(data, [[2, 2], [-1, 0]], np.array([[1, 2], [3, 4]]), np.int64(-1), reduction)
    np.testing.assert_array_equal(out, [[0, 0, 2], [4, 0, 3]])
    out = seu(data, [[1, 0, 1], [1, 1, 0]], np.array([[1, 2, 3], [4, 5, 6]]), np.int64(0), reduction)
    np.testing.assert_array_equal(out, [[0, 2, 6], [4, 5, 3]])


def test_seu_axis_with_two_values_uses_the_first():
    # OpenVINO accepts any 1-D axis input (measured); the first value counts
    out = seu(np.zeros((2, 2), np.int64), [[1, 0]], np.array([[7, 8]]), np.array([0, 1]))
    np.testing.assert_array_equal(out, [[0, 8], [7, 0]])


@pytest.mark.parametrize("idx", [[4], [-5]], ids=["too-big", "too-negative"])
def test_seu_out_of_range(idx):
    # reference: "ScatterElementsUpdate index 4 is out of bounds for the axis of size 4"
    frag = f"index {idx[0]} at [0] is out of range [-4, 3]"
    assert raises_for("ScatterElementsUpdate", ExecutionError, frag, seu, F4, idx, F4[:1], np.int64(0)).openvino_loads
    raises_for("ScatterElementsUpdate", ShapeError, frag, seu, F4, idx, F4[:1], np.int64(0), "sum", params=(0,))


def test_seu_indices_beyond_data_outside_axis():
    # OpenVINO loads [3, 2] indices on [2, 4] data (axis 1) and writes past the tensor's end
    e = raises_for("ScatterElementsUpdate", ExecutionError, BEYOND, seu, np.zeros((2, 4), np.float32),
                   np.zeros((3, 2), np.int64), np.ones((3, 2), np.float32), np.int64(1), params=(0, 1, 2, 3))
    assert e.openvino_loads


def test_seu_scalar_data():
    raises_for("ScatterElementsUpdate", ShapeError, SCALAR, seu, np.float32(1), np.int64(0), np.float32(5), np.int64(0))


@pytest.mark.parametrize("inputs, fragment", [
    ([Param("f32", "2,3"), Param("i64", "2,3,1"), Param("f32", "2,3,1"), np.int64(0)],
     "Indices rank and data rank are required to be equal. Got: 3 and: 2"),
    ([Param("f32", "2,3"), Param("i64", "2,3"), Param("f32", "2,2"), np.int64(0)],
     "Indices and updates input shapes are required to be equal. Got: [2,3] and: [2,2]"),
    ([Param("f32", "2,3"), Param("i64", "2,3"), Param("f32", "2,3"), np.int64(-3)], "Axis -3 out of the tensor rank range [-2, 1]."),
    ([Param("f32", "2,3"), Param("i64", "2,3"), Param("f32", "2,3"), np.zeros((1, 1), np.int64)],
     "Axis input shape are required to be scalar or 1D tensor. Got: [1,1]"),
    ([Param("f32", "2,3"), Param("i64", "2,3"), Param("f32", "2,3"), np.float32(0)], "Axis element type must be integral_number, but is: f32"),
    ([Param("f32", "2,3"), Param("f32", "2,3"), Param("f32", "2,3"), np.int64(0)], "Indices element type must be integral_number, but is: f32"),
    ([Param("f32", "2,3"), Param("i64", "2,3"), Param("f16", "2,3"), np.int64(0)], "Data type and updates type are required to be the same. Got: f32 and: f16"),
], ids=["rank", "upd", "axis-range", "axis-rank", "axis-f32", "idx-f32", "types"])
@pytest.mark.parametrize("version", ["opset3", "opset12"])
def test_seu_errors(inputs, fragment, version):
    raises_for("ScatterElementsUpdate", ShapeError, fragment, shape_of, "ScatterElementsUpdate", version, inputs)


@pytest.mark.parametrize("d, i, u, axis, expect", [
    ("?,3..5", "2,?", "?,4", np.int64(0), "[?,3..5]"), ("...", "2,3", "2,3", np.int64(0), "[...]"),
    ("2,3", "...", "2,3", np.int64(1), "[2,3]"), ("2,3", "2,3", "2,3", Param("i64", "1"), "[2,3]"),
    ("2,3", "5,3", "5,3", np.int64(0), "[2,3]"),
])
def test_seu_partial_shapes(d, i, u, axis, expect):
    got = shape_of("ScatterElementsUpdate", "opset12", [Param("f32", d), Param("i64", i), Param("f32", u), axis])
    assert got == expect


# =============================================================================================
# All three: every element type, index types, inputs never written

def _scatters(x, upd2, upd1):
    """The same update (rows 2 and 0 of a [3, 2] tensor) through the three ops."""
    return [su(x, [2, 0], upd2, np.int64(0)), snd(x, [[2], [0]], upd2), seu(x, [[2, 2], [0, 0]], upd2, np.int64(0)),
            snd(x, [[2, 1]], upd1), seu(x, [[2]], upd1.reshape(1, 1), np.int64(0))]


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_every_element_type(dtype):
    x = sample((3, 2), dtype)
    upd = sample((2, 2), dtype)[::-1].copy()
    outs = _scatters(x, upd, upd[0, :1])
    rows = x.copy()
    rows[[2, 0]] = upd
    for out in outs[:3]:
        assert out.dtype == x.dtype and np.array_equal(out, rows)
    one = x.copy()
    one[2, 1] = upd[0, 0]
    assert np.array_equal(outs[3], one)
    one = x.copy()
    one[2, 0] = upd[0, 0]
    assert np.array_equal(outs[4], one)


NUMERIC = [d for d in ALL_DTYPES if np.dtype(d) not in (np.dtype(np.bool_), elements.STRING_DTYPE)]


@pytest.mark.parametrize("dtype", NUMERIC, ids=str)
def test_sum_every_numeric_type(dtype):
    x, u = np.array([1, 2, 3, 4]).astype(dtype), np.array([1, 2, 3]).astype(dtype)
    for out in (snd(x, [[0], [0], [3]], u, "sum"), seu(x, [0, 0, 3], u, np.int64(0), "sum")):
        assert out.dtype == x.dtype
        np.testing.assert_array_equal(out.astype(np.float64), [4, 2, 3, 7])
    mean = np.array([4 / 3, 2, 3, 3.5]).astype(dtype) if np.dtype(dtype).kind in "fV" else [1, 2, 3, 3]
    np.testing.assert_array_equal(seu(x, [0, 0, 3], u, np.int64(0), "mean"), mean)   # (f16/bf16: 4/3 rounded once)


def test_strings_cannot_be_reduced():
    s = np.array(["a", "b"], dtype=elements.STRING_DTYPE)
    raises_for("ScatterNDUpdate", UnsupportedError, STRINGS, snd, s, [[0]], s[:1], "sum")
    raises_for("ScatterElementsUpdate", UnsupportedError, STRINGS, seu, s, [0], s[:1], np.int64(0), "sum")


@pytest.mark.parametrize("itype", [np.int8, np.uint8, np.int16, np.int32, np.int64, np.uint32, np.uint64])
def test_index_types(itype):
    idx = np.array([2, 0], itype)
    np.testing.assert_array_equal(su(F4, idx, np.float32([7, 8]), itype(0)), [8, 2, 7, 4])
    np.testing.assert_array_equal(seu(F4, idx, np.float32([7, 8]), itype(0)), [8, 2, 7, 4])
    if itype in (np.int32, np.int64):                 # ScatterNDUpdate: i32/i64 only
        np.testing.assert_array_equal(snd(F4, idx.reshape(2, 1), np.float32([7, 8])), [8, 2, 7, 4])


@pytest.mark.parametrize("params", [(0, 1, 2), ()], ids=["params", "const"])
def test_inputs_are_never_written(params):
    data, upd = np.arange(6, dtype=np.float32).reshape(3, 2), np.full((1, 2), 9, np.float32)
    keep = data.copy()
    outs = [su(data, [1], upd, np.int64(0), params), snd(data, [[1]], upd, "sum", params),
            seu(data, [[1, 1]], upd, np.int64(0), "max", params=params)]
    np.testing.assert_array_equal(data, keep)
    for out in outs:
        assert not np.shares_memory(out, data)
        np.testing.assert_array_equal(out[1], [9, 9] if out is not outs[1] else [11, 12])
