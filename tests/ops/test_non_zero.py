"""NonZero-3: the nonzero-3.rst example, scalars, IEEE zeros and NaN, the ``[rank, 0..numel]`` shape
rule (measured with OpenVINO 2026.4.1), element types, and the OpenVINO measurements of
tools/expectations/make_select_expectations.py."""
from functools import partial

import numpy as np
import pytest

from helpers import ALL_DTYPES, Param, infer_op, raises_for, run_op, shape_str
from irrun.types import elements
from irrun.errors import ShapeError
from nn_cases import case_ids, replay

PATHS = [(0,), ()]
PATH_IDS = ["param", "const"]
#: a scalar zero: the reference evaluator (what folds the Const case) gives shape [0, 0], the CPU
#: plugin [1, 0]; irrun treats a scalar as one element everywhere, as for a non-zero scalar ([[0]])
OWN = {"NonZero-scalar-zero-const"}
rejects = partial(raises_for, "NonZero")


@pytest.mark.parametrize("case", [c for c in case_ids("NonZero") if c not in OWN])
def test_openvino_case(case):
    replay(case)


def non_zero(x, output_type="i64", params=(0,)):
    return run_op("NonZero", [x], {"output_type": output_type}, "opset3", params=params)[0]


@pytest.mark.parametrize("params", PATHS, ids=PATH_IDS)
@pytest.mark.parametrize("output_type, dtype", [("i64", np.int64), ("i32", np.int32)])
def test_spec_example(output_type, dtype, params):
    out = non_zero(np.array([[1, 0], [1, 1]], np.float32), output_type, params)
    np.testing.assert_array_equal(out, [[0, 1, 1], [0, 0, 1]])
    assert out.dtype == dtype


@pytest.mark.parametrize("params", PATHS, ids=PATH_IDS)
@pytest.mark.parametrize("x, shape, rows", [
    (np.float32(2.5), (1, 1), [[0]]), (np.float32(0), (1, 0), [[]]),
    (np.zeros((2, 3), np.float32), (2, 0), [[], []]), (np.zeros((0, 3), np.float32), (2, 0), [[], []]),
    (np.array([0.0, -0.0, np.nan, np.inf, -1e-30, 0.0], np.float32), (1, 3), [[2, 3, 4]]),
])
def test_edge_values(x, shape, rows, params):
    out = non_zero(np.asarray(x), params=params)
    assert out.shape == shape
    np.testing.assert_array_equal(out.reshape(shape), np.array(rows, np.int64).reshape(shape))


def test_row_major_order_rank_3():
    x = np.zeros((2, 2, 3), np.int32)
    x[0, 1, 2] = x[1, 0, 0] = x[0, 0, 1] = 7
    np.testing.assert_array_equal(non_zero(x), [[0, 0, 1], [0, 1, 0], [1, 2, 0]])


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_every_type(dtype):
    if np.dtype(dtype) == elements.STRING_DTYPE:
        x = np.array([["", "a", ""], ["b", "", "0"]], dtype=dtype)       # a string is non-zero when not empty
    else:
        x = np.array([[0, 1, 0], [2, 0, 3]]).astype(dtype)
    np.testing.assert_array_equal(non_zero(x), [[0, 1, 1], [1, 0, 2]])


@pytest.mark.parametrize("shape, out", [
    ("3,10,100,200", "[4,0..600000]"),          # nonzero-3.rst example: [4, -1], the bound is OpenVINO's
    ("3,4", "[2,0..12]"), ("?,4", "[2,?]"), ("2..3,4", "[2,0..12]"), ("..3,4", "[2,0..12]"), ("2..,4", "[2,?]"),
    ("0,4", "[2,0]"), ("0,?", "[2,0]"), ("7", "[1,0..7]"), ("", "[?,?]"), ("...", "[?,?]"),
])
def test_shapes(shape, out):
    (info,) = infer_op("NonZero", [Param("f32", shape)], {"output_type": "i32"}, "opset3", params=())
    assert shape_str(info) == out and info.etype.name == "i32"


def test_const_input_folds_to_its_value():
    (info,) = infer_op("NonZero", [np.array([[0, 5], [6, 0]], np.int32)], {"output_type": "i64"}, "opset3", params=())
    assert shape_str(info) == "[2,2]"
    np.testing.assert_array_equal(info.value, [[0, 1], [1, 0]])


@pytest.mark.parametrize("output_type", ["f32", "u8"])
def test_output_type_rejected(output_type):
    rejects(ShapeError, "Output type must be i32 or i64", non_zero, np.ones(3, np.float32), output_type)


def test_default_output_type_is_i64():
    assert run_op("NonZero", [np.ones(2, np.float32)], {}, "opset3")[0].dtype == np.int64
