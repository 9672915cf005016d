"""Roll-7: the roll-7.rst examples, scalar shift over several axes, repeated and negative axes,
Const and Parameter shift/axes, partial shapes, errors, every element type, and the OpenVINO
measurements of tools/expectations/make_select_expectations.py (CPU plugin; the reference evaluator has no
Roll kernel)."""
from functools import partial

import numpy as np
import pytest

from helpers import ALL_DTYPES, Param, infer_op, raises_for, run_op, sample, shape_str
from irrun.errors import ExecutionError, OpError, ShapeError
from irrun.ops.roll import Roll7
from nn_cases import case_ids, replay

SPEC = np.arange(1, 13, dtype=np.float32).reshape(4, 3)
PATHS = [(0,), (0, 1, 2), ()]
PATH_IDS = ["param-data", "params", "all-const"]
rejects = partial(raises_for, "Roll")


@pytest.mark.parametrize("case", case_ids("Roll"))
def test_openvino_case(case):
    replay(case)


def roll(x, shift, axes, params=(0,)):
    return run_op("Roll", [np.asarray(x), np.asarray(shift, np.int64), np.asarray(axes, np.int64)], {}, "opset7",
                  params=params)[0]


@pytest.mark.parametrize("params", PATHS, ids=PATH_IDS)
@pytest.mark.parametrize("shift, axes, out", [
    (1, 0, [[10, 11, 12], [1, 2, 3], [4, 5, 6], [7, 8, 9]]),                  # example 1
    ([-1, 2], [0, 1], [[5, 6, 4], [8, 9, 7], [11, 12, 10], [2, 3, 1]]),       # example 2
    ([1, 2, 1], [0, 1, 0], [[8, 9, 7], [11, 12, 10], [2, 3, 1], [5, 6, 4]]),  # example 3: axis 0 rolled by 1 + 1
])
def test_spec_examples(shift, axes, out, params):
    np.testing.assert_array_equal(roll(SPEC, shift, axes, params), out)


@pytest.mark.parametrize("params", PATHS, ids=PATH_IDS)
def test_scalar_shift_rolls_every_axis(params):
    # the spec: a scalar shift applies to each axis (OpenVINO's CPU plugin refuses this, measured)
    np.testing.assert_array_equal(roll(SPEC, 1, [0, 1], params), [[12, 10, 11], [3, 1, 2], [6, 4, 5], [9, 7, 8]])


@pytest.mark.parametrize("shift, axes", [([-1], [-2]), ([7], [0]), ([-13, 0], [-2, 1]), (3, 0), ([1, 2], [0, 0])])
def test_negative_axes_and_big_shifts(shift, axes):
    # all of these move the rows up by one, like shift -1 on axis 0 (7, -13 and 3 are -1 mod 4; 1 + 2 too)
    want = [[4, 5, 6], [7, 8, 9], [10, 11, 12], [1, 2, 3]]
    np.testing.assert_array_equal(roll(SPEC, shift, axes, (0, 1, 2)), want)


def test_scalar_data_and_empty_dims():
    np.testing.assert_array_equal(roll(np.float32(4), 1, np.zeros(0, np.int64)), 4)
    assert roll(np.zeros((2, 0, 3), np.float32), [1, 5], [1, 2]).shape == (2, 0, 3)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_every_type(dtype):
    x = sample((2, 3), dtype)
    out = roll(x, [1, -1], [0, 1])
    assert out.dtype == x.dtype
    np.testing.assert_array_equal(out, x[[1, 0]][:, [1, 2, 0]])


def test_i32_shift_and_axes():
    out = run_op("Roll", [SPEC, np.array([1], np.int32), np.array([1], np.int32)], {}, "opset7", params=(0, 1, 2))[0]
    np.testing.assert_array_equal(out[0], [3, 1, 2])


@pytest.mark.parametrize("data, shift, axes, out", [
    (Param("f32", "?,3..5,4"), np.array([1]), np.array([0]), "[?,3..5,4]"),
    (Param("f32", "..."), np.array([1, 2]), np.array([0, 5]), "[...]"),
    (Param("f32", "2,3"), Param("i64", "?"), np.array([0, 1]), "[2,3]"),
    (Param("f32", "2,3"), np.array([1, 1]), Param("i32", "2"), "[2,3]"),
    (Param("string", "2,3"), np.int64(1), np.array([0]), "[2,3]"),
])
def test_shapes(data, shift, axes, out):
    (info,) = infer_op("Roll", [data, shift, axes], {}, "opset7", params=())
    assert shape_str(info) == out and info.etype.name == data.etype


@pytest.mark.parametrize("shift, axes, fragment", [
    (np.zeros((1, 1), np.int64), np.array([0]), "Shift must be a scalar or 1D tensor."),
    (np.int64(1), np.zeros((1, 1), np.int64), "Axes must be a scalar or 1D tensor."),
    (np.array([1, 2]), np.array([0]), "If shift is a 1D vector, axes must be a 1D tensor of the same size."),
    (np.array([1]), np.array([0, 1]), "If shift is a 1D vector, axes must be a 1D tensor of the same size."),
    (Param("i64", "3"), np.array([0, 1]), "If shift is a 1D vector, axes must be a 1D tensor of the same size."),
    (np.array([1]), np.array([2]), "Axis 2 out of the tensor rank range [-2, 1]."),
    (np.array([1]), np.array([-3]), "Axis -3 out of the tensor rank range [-2, 1]."),
    (np.array([1], np.float32), np.array([0]), "Shift must have int32 or int64 element type."),
    (np.array([1]), np.array([0], np.uint8), "Axes must have int32 or int64 element type."),
])
def test_rejected(shift, axes, fragment):
    rejects(ShapeError, fragment, infer_op, "Roll", [Param("f32", "2,3"), shift, axes], {}, "opset7", params=())


def test_runtime_axes_checked_by_the_kernel():
    rejects(ExecutionError, "Axis 2 out of the tensor rank range [-2, 1].", roll, SPEC, [1], [2], (0, 1, 2))
    with pytest.raises(OpError, match="If shift is a 1D vector"):     # shapes only known at run time
        Roll7().run(SPEC, np.array([1, 1]), np.array([0]))
