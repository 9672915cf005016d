"""Squeeze-1/15: data-movement-ops.md §10 and the squeeze-15.rst examples (non-1 dims kept,
duplicates, no-axes form, scalars, allow_axis_skip), Const and Parameter axes, partial-shape
inference (measured with OpenVINO 2026.4.1), views, element types."""
from functools import partial

import numpy as np
import pytest

from helpers import ALL_DTYPES, Param, infer_op, raises_for, run_op, sample, shape_str
from irrun.errors import ExecutionError, ShapeError

VERSIONS = ["opset1", "opset15"]
X = np.arange(6, dtype=np.float32).reshape(1, 3, 1, 2)


def squeeze(x, axes=None, version="opset1", params=(0, 1), attrs=None):
    inputs = [x] if axes is None else [x, axes]
    return run_op("Squeeze", inputs, attrs, version=version, params=params)[0]


def sshape(data, axes=None, version="opset1", allow_axis_skip=None):
    attrs = None if allow_axis_skip is None else {"allow_axis_skip": allow_axis_skip}
    inputs = [data] if axes is None else [data, axes]
    return shape_str(infer_op("Squeeze", inputs, attrs, version=version, params=())[0])


rejects = partial(raises_for, "Squeeze")


# (axes, output shape) on X = [1,3,1,2]
CASES = [
    (np.array([0, 2]), (3, 2)),                  # squeeze-15.rst example 1
    (np.array([1]), (1, 3, 1, 2)),               # non-1 dim silently kept (since 2024.3)
    (np.array([0, -4]), (3, 1, 2)),              # duplicate via a negative alias
    (np.array([2, 2, -2]), (1, 3, 2)),
    (np.array([1, 2, 3]), (1, 3, 2)),            # 3 and 2 kept, the 1 removed
    (np.int64(2), (1, 3, 2)),                    # scalar axes
    (np.array([0.7, 2.0], np.float32), (3, 2)),  # f32 axes truncate (OpenVINO accepts them)
    (np.array([-1.5], np.float32), (1, 3, 1, 2)),
    (np.array([0, 2], np.uint8), (3, 2)),
    (np.zeros(0, np.int64), (3, 2)),             # empty axes = no axes
]
CASE_IDS = ["[0,2]", "[1]-kept", "[0,-4]", "[2,2,-2]", "[1,2,3]", "scalar-2", "f32", "f32-neg",
            "u8", "empty"]


@pytest.mark.parametrize("params", [(), (0,), (0, 1)], ids=["const", "param-data", "params"])
@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("axes, out", CASES, ids=CASE_IDS)
def test_axes(axes, out, version, params):
    if params == () and axes.size == 0:
        params = (1,)     # irrun's reader rejects a zero-size Const after other data (reported)
    res = squeeze(X, axes, version, params)
    assert res.shape == out and res.dtype == np.float32
    np.testing.assert_array_equal(res.reshape(-1), np.arange(6))


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("shape, out", [((1, 3, 1, 2), (3, 2)), ((1,), ()), ((2, 3), (2, 3)),
                                        ((1, 1), ()), ((), ()), ((0, 1), (0,))])
def test_no_axes_form(shape, out, version):
    x = np.ones(shape, np.int32)
    assert squeeze(x, None, version, params=(0,)).shape == out
    assert squeeze(x, None, version, params=()).shape == out


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("axes", [np.array([0]), np.array([-1]), np.array([0, -1])])
def test_scalar_data_axis_0_or_minus_1(axes, version):
    out = squeeze(np.float32(5), axes, version)
    assert out.shape == () and out == 5


def test_rst_example_2_one_element_to_scalar():
    out = squeeze(np.array([7], np.int64), np.array([0]), "opset15", params=())
    assert out.shape == () and out == 7


# ---------------------------------------------------------------------------------------------
# Errors (measured messages)

@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("x, axes, fragment", [
    (X, np.array([4]), "Axis 4 out of the tensor rank range [-4, 3]."),
    (X, np.array([0, -5]), "Axis -5 out of the tensor rank range [-4, 3]."),
    (np.float32(5), np.array([1]), "Axis 1 out of the tensor rank range [-1, 0]."),
])
def test_axis_range_errors(x, axes, fragment, version):
    rejects(ShapeError, fragment, squeeze, x, axes, version, params=(0,))
    rejects(ExecutionError, fragment, squeeze, x, axes, version, params=(0, 1))


@pytest.mark.parametrize("axes, fragment", [
    (np.array([[0]]), "Second input (axes) should not be of rank higher than 1. Got: 2"),
    (np.array([True]), "Element not supported"),
], ids=["2-D", "boolean"])
def test_axes_input_errors(axes, fragment):
    rejects(ShapeError, fragment, squeeze, X, axes, params=(0,))


# ---------------------------------------------------------------------------------------------
# Partial shapes (measured with OpenVINO 2026.4.1 unless noted)

@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("data, axes, expect", [
    ("?,3", np.array([0]), "[3]"),                    # a listed ? is assumed to be 1
    ("2..5,3", np.array([0]), "[2..5,3]"),            # an interval without 1 is kept
    ("0..1,3", np.array([0]), "[3]"),
    ("1,?,2..3", np.array([0, 1, 2]), "[2..3]"),
    ("?,3", None, "[...]"),                           # no axes: a ? may be 1
    ("2..4,3", None, "[2..4,3]"),
    ("1,2..4", None, "[2..4]"),
    ("...", np.array([0]), "[...]"),
    ("2,3", Param("i64", "1"), "[2,3]"),              # nothing can be squeezed
    ("?,3,1", Param("i64", "1"), "[...]"),            # OpenVINO-1: [?,?] (wrong when the axis hits 3)
    ("1,3,1", Param("i64", "2"), "[...]"),
    ("1,3,1", Param("i64", "0"), "[3]"),              # axes known to be empty; OpenVINO: [...]
])
def test_partial_shapes(data, axes, expect, version):
    assert sshape(Param("f32", data), axes, version) == expect


@pytest.mark.parametrize("data, axes, skip, expect", [
    ("?,3", np.array([0]), True, "[...]"),
    ("?,3", np.array([0]), False, "[3]"),
    ("1,?,2..3", np.array([0, 2]), True, "[?,2..3]"),
    ("1,?,1..3", np.array([0, 2]), True, "[...]"),
    ("?,3", None, True, "[...]"),
])
def test_allow_axis_skip(data, axes, skip, expect):
    assert sshape(Param("f32", data), axes, "opset15", skip) == expect


def test_allow_axis_skip_values_unchanged():
    out = squeeze(X, np.array([0, 1]), "opset15", attrs={"allow_axis_skip": True})
    assert out.shape == (3, 1, 2)


def test_runtime_axes_values():
    out = squeeze(np.zeros((1, 3, 1), np.float32), np.array([-1]), params=(0, 1))
    assert out.shape == (1, 3)


# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("params", [(0,), (0, 1)], ids=["const-axes", "param-axes"])
def test_view(params, version):
    out = squeeze(X, np.array([0, 2]), version, params)
    assert out.shape == (3, 2) and np.shares_memory(out, X)
    assert np.shares_memory(squeeze(X, None, version, params=(0,)), X)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_dtypes(dtype):
    x = sample((1, 3, 1, 2), dtype)
    out = squeeze(x, np.array([0, 2]))
    assert out.dtype == x.dtype and out.shape == (3, 2)
    assert np.array_equal(out.reshape(-1), x.reshape(-1)) and np.shares_memory(out, x)
