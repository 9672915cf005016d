"""Unsqueeze-1: data-movement-ops.md §11 (every duplicate-collapse example and error), Const and
Parameter axes, partial-shape inference (measured with OpenVINO 2026.4.1), views, element types."""
from functools import partial

import numpy as np
import pytest

from helpers import ALL_DTYPES, Param, infer_op, raises_for, run_op, sample, shape_str
from irrun.errors import ExecutionError, ShapeError

X = np.arange(6, dtype=np.float32).reshape(2, 3)
PATHS = [(), (0,), (0, 1)]
PATH_IDS = ["const", "param-data", "params"]


def unsqueeze(x, axes, params=(0, 1)):
    return run_op("Unsqueeze", [x, axes], params=params)[0]


def ushape(data, axes):
    return shape_str(infer_op("Unsqueeze", [data, axes], params=())[0])


rejects = partial(raises_for, "Unsqueeze")


# §11 examples on [2,3] (measured)
CASES = [
    ([0, 3], (1, 2, 3, 1)), ([-1], (2, 3, 1)), ([0, 0], (1, 2, 3)), ([1, -2], (2, 1, 1, 3)),
    ([0, 0, -1], (1, 2, 3, 1)), ([3, -1], (2, 3, 1)), ([0, -4], (1, 2, 3)), ([0, -3], (1, 1, 2, 3)),
    ([3, 0], (1, 2, 3, 1)), ([1], (2, 1, 3)), ([2], (2, 3, 1)), ([0, 1, 2, 3], (1, 1, 1, 1, 2, 3)),
]


@pytest.mark.parametrize("params", PATHS, ids=PATH_IDS)
@pytest.mark.parametrize("axes, out", CASES, ids=[str(c[0]) for c in CASES])
def test_examples(axes, out, params):
    res = unsqueeze(X, np.array(axes, np.int64), params)
    assert res.shape == out and res.dtype == np.float32
    np.testing.assert_array_equal(res.reshape(-1), np.arange(6))


@pytest.mark.parametrize("params", PATHS, ids=PATH_IDS)
def test_scalar_axis(params):
    assert unsqueeze(X, np.int64(1), params).shape == (2, 1, 3)


@pytest.mark.parametrize("params", PATHS, ids=PATH_IDS)
def test_scalar_data(params):
    out = unsqueeze(np.float32(5), np.array([0]), params)
    assert out.shape == (1,) and out[0] == 5


@pytest.mark.parametrize("axes, out", [(np.array([0.5, 1.9], np.float32), (1, 1, 2, 3)),
                                       (np.array([2], np.uint8), (2, 3, 1)),
                                       (np.array([-1], np.int32), (2, 3, 1))],
                         ids=["f32-truncated", "u8", "i32"])
def test_axes_types(axes, out):
    assert unsqueeze(X, axes).shape == out


# ---------------------------------------------------------------------------------------------
# Errors (measured messages)

ERRORS = [
    (X, [0, 0, 4], "Axis 4 out of the tensor rank range [-4, 3]."),
    (X, [-4], "Axis -4 out of the tensor rank range [-3, 2]."),
    (X, [3], "Axis 3 out of the tensor rank range [-3, 2]."),
    (X, [4, -1], "Axis 4 out of the tensor rank range [-4, 3]."),
    (np.float32(5), [3, -1, 2, -2], "provided 'axes' value 2 is not valid."),
    (X, [5, -1, 4, -2], "provided 'axes' value 4 is not valid."),
]


@pytest.mark.parametrize("x, axes, fragment", ERRORS, ids=[str(e[1]) for e in ERRORS])
def test_errors_const(x, axes, fragment):
    rejects(ShapeError, fragment, unsqueeze, x, np.array(axes), params=(0,))


@pytest.mark.parametrize("x, axes, fragment", ERRORS, ids=[str(e[1]) for e in ERRORS])
def test_errors_runtime(x, axes, fragment):
    rejects(ExecutionError, fragment, unsqueeze, x, np.array(axes), params=(0, 1))


@pytest.mark.parametrize("axes, params, fragment", [
    (np.zeros(0, np.int64), (0,), "'axes' input is mandatory"),
    (np.zeros(0, np.int64), (0, 1), "'axes' input is mandatory"),   # shape [0] known at inference
    (np.array([[0]]), (0,), "Second input (axes) should not be of rank higher than 1. Got: 2"),
    (np.array([True]), (0,), "Element not supported"),
], ids=["empty", "empty-param", "2-D", "boolean"])
def test_axes_input_errors(axes, params, fragment):
    rejects(ShapeError, fragment, unsqueeze, X, axes, params=params)


# ---------------------------------------------------------------------------------------------
# Partial shapes (measured with OpenVINO 2026.4.1 unless noted)

@pytest.mark.parametrize("data, axes, expect", [
    ("?,2..3", np.array([1]), "[?,1,2..3]"),
    ("?,2..3", np.array([-1, 0]), "[1,?,2..3,1]"),
    ("...", np.array([0]), "[...]"),
    ("?,2..3", Param("i64", "1"), "[?,?,?]"),      # OpenVINO 2026.4: [...]
    ("?,2..3", Param("i64", ""), "[?,?,?]"),
    ("?,2..3", Param("i64", "2"), "[...]"),       # duplicates may collapse
    ("?,2..3", Param("i64", "?"), "[...]"),
])
def test_partial_shapes(data, axes, expect):
    assert ushape(Param("f32", data), axes) == expect


# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("params", [(0,), (0, 1)], ids=["const-axes", "param-axes"])
def test_view(params):
    out = unsqueeze(X, np.array([0, 3]), params)
    assert out.shape == (1, 2, 3, 1) and np.shares_memory(out, X)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_dtypes(dtype):
    x = sample((2, 3), dtype)
    out = unsqueeze(x, np.array([1, -1]))
    assert out.dtype == x.dtype and out.shape == (2, 1, 3, 1)
    assert np.array_equal(out.reshape(-1), x.reshape(-1)) and np.shares_memory(out, x)
