"""OneHot-1/16: the one-hot-1/16.rst examples, negative and out-of-range indices, depth from a Const
or at run time, partial shapes, errors, on/off values of every type, and the OpenVINO
measurements of tools/expectations/make_select_expectations.py."""
from functools import partial

import numpy as np
import pytest

from helpers import ALL_DTYPES, Param, infer_op, raises_for, run_op, shape_str
from irrun.errors import ExecutionError, ShapeError
from nn_cases import array, assert_close, case_ids, entry, replay, run_case

#: OpenVINO's shape inference accepts these index types; neither evaluator runs them
REFUSE = {f"OneHot1-shape-indices-{t}": "only runs i32/i64 indices" for t in ("u8", "i8", "boolean")}
#: OpenVINO refuses the spec's spelling "ignore-negative" (its enum says ignore_negative)
MESSAGES = {"OneHot16-shape-spec-spelling": 'negative_indices_mode="ignore-negative" is not one of: ignore_negative, normalize'}
PATHS = [(0,), (0, 1), ()]
PATH_IDS = ["const-depth", "param-depth", "all-const"]
rejects = partial(raises_for, "OneHot")


@pytest.mark.parametrize("case", case_ids("OneHot"))
def test_openvino_case(case):
    e = entry(case)
    if e["kind"] == "shape" or e["status"] != "ok" or "reference_arrays" not in e:
        replay(case, REFUSE, MESSAGES)
        return
    # the CPU plugin truncates i64 indices and values to 32 bits; the reference evaluator does not
    (got,) = run_case(case)
    assert_close(got, array(e["reference_arrays"][0], e["outputs"][0]["etype"], e["fixture"]), e["outputs"][0]["etype"], case)


def one_hot(indices, depth, on, off, axis, version="opset1", params=(0,), **a):
    return run_op("OneHot", [np.asarray(indices), np.asarray(depth), np.asarray(on), np.asarray(off)],
                  dict(axis=axis, **a), version, params=params)[0]


@pytest.mark.parametrize("params", PATHS, ids=PATH_IDS)
@pytest.mark.parametrize("version", ["opset1", "opset16"])
def test_spec_example_1(version, params):
    out = one_hot(np.array([0, 3, 1, 2], np.int64), np.int64(3), np.int32(1), np.int32(2), -1, version, params)
    np.testing.assert_array_equal(out, [[1, 2, 2], [2, 2, 2], [2, 1, 2], [2, 2, 1]])
    assert out.dtype == np.int32


@pytest.mark.parametrize("params", PATHS, ids=PATH_IDS)
@pytest.mark.parametrize("version", ["opset1", "opset16"])
def test_spec_example_2(version, params):
    out = one_hot(np.array([[0, 3, 1], [1, 2, 4]], np.int64), np.int64(3), np.int32(1), np.int32(0), 1, version, params)
    np.testing.assert_array_equal(out, [[[1, 0, 0], [0, 0, 1], [0, 0, 0]], [[0, 0, 0], [1, 0, 0], [0, 1, 0]]])


@pytest.mark.parametrize("params", PATHS, ids=PATH_IDS)
def test_spec_example_16_normalize(params):
    out = one_hot(np.array([0, -5, -2, 2], np.int64), np.int64(3), np.int32(1), np.int32(2), -1, "opset16", params,
                  negative_indices_mode="normalize")
    np.testing.assert_array_equal(out, [[1, 2, 2], [2, 2, 2], [2, 1, 2], [2, 2, 1]])


@pytest.mark.parametrize("version, mode, rows", [
    ("opset1", None, [[0, 0, 0], [0, 0, 0], [0, 0, 0], [1, 0, 0]]),     # negative -> off (measured)
    ("opset16", "ignore_negative", [[0, 0, 0], [0, 0, 0], [0, 0, 0], [1, 0, 0]]),
    ("opset16", "normalize", [[0, 0, 1], [1, 0, 0], [0, 0, 0], [1, 0, 0]]),
])
def test_negative_and_out_of_range(version, mode, rows):
    a = {} if mode is None else {"negative_indices_mode": mode}
    out = one_hot(np.array([-1, -3, -4, 0], np.int32), np.int32(3), np.float32(1), np.float32(0), -1, version, **a)
    np.testing.assert_array_equal(out, rows)
    out = one_hot(np.array([3, 7, 2**40], np.int64), np.int64(3), np.float32(1), np.float32(0), -1, version, **a)
    np.testing.assert_array_equal(out, np.zeros((3, 3)))


@pytest.mark.parametrize("axis, shape", [(0, (4, 2, 3)), (1, (2, 4, 3)), (2, (2, 3, 4)), (-1, (2, 3, 4)), (-3, (4, 2, 3))])
def test_axis(axis, shape):
    idx = np.array([[0, 3, 1], [2, 2, 0]], np.int64)
    out = one_hot(idx, np.int64(4), np.float32(1), np.float32(0), axis)
    assert out.shape == shape
    np.testing.assert_array_equal(np.argmax(out, axis=axis), idx)


def test_scalar_indices_and_zero_depth():
    np.testing.assert_array_equal(one_hot(np.int64(2), np.int64(4), np.float32(1), np.float32(0), 0), [0, 0, 1, 0])
    assert one_hot(np.array([0, 1], np.int64), np.int64(0), np.float32(1), np.float32(0), -1).shape == (2, 0)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_on_off_of_every_type(dtype):
    on, off = (np.array("on", dtype), np.array("off", dtype)) if np.dtype(dtype).kind == "T" else \
        (np.array(True), np.array(False)) if dtype == np.bool_ else (np.array(7).astype(dtype), np.array(3).astype(dtype))
    out = one_hot(np.array([1, 0], np.int32), np.int32(2), on, off, -1, params=(0, 2, 3))
    assert out.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(out, np.array([[off, on], [on, off]], dtype=dtype))


@pytest.mark.parametrize("indices, depth, out", [
    (Param("i64", "?,3"), np.int64(4), "[?,3,4]"), (Param("i64", "2..5,3"), np.int64(4), "[2..5,3,4]"),
    (Param("i64", "..."), np.int64(4), "[...]"), (Param("i64", "2,3"), Param("i64", ""), "[2,3,?]"),
    (Param("i32", ""), np.int32(4), "[4]"), (Param("i64", "2,3"), np.uint8(4), "[2,3,4]"),
])
def test_shapes(indices, depth, out):
    (info,) = infer_op("OneHot", [indices, depth, np.float16(1), np.float16(0)], {"axis": -1}, params=())
    assert shape_str(info) == out and info.etype.name == "f16"


@pytest.mark.parametrize("inputs, axis, fragment", [
    ([Param("i64", "2,3"), np.int64(-1), np.float32(1), np.float32(0)], 1, "OneHot depth value can't be negative."),
    ([Param("i64", "2,3"), np.array([4]), np.float32(1), np.float32(0)], 1, "depth input must be scalar."),
    ([Param("i64", "2,3"), np.int64(4), np.array([1], np.float32), np.float32(0)], 1, "on_value input must be scalar."),
    ([Param("i64", "2,3"), np.int64(4), np.float32(1), np.zeros(2, np.float32)], 1, "off_value input must be scalar."),
    ([Param("i64", "2,3"), np.int64(4), np.float32(1), np.int32(0)], 1,
     "on_value element type must be compatible with off_value element type."),
    ([Param("f32", "2,3"), np.int64(4), np.float32(1), np.float32(0)], 1, "Indices must be integral element type."),
    ([Param("i64", "2,3"), np.float32(4), np.float32(1), np.float32(0)], 1, "Depth must be integral element type."),
    ([Param("i64", "2,3"), np.int64(4), np.float32(1), np.float32(0)], 3, "Axis 3 out of the tensor rank range [-3, 2]."),
    ([Param("i64", "2,3"), np.int64(4), np.float32(1), np.float32(0)], -4, "Axis -4 out of the tensor rank range [-3, 2]."),
    ([Param("u8", "2,3"), np.int64(4), np.float32(1), np.float32(0)], 1, "only runs i32/i64 indices"),  # OpenVINO loads it
])
def test_rejected(inputs, axis, fragment):
    rejects(ShapeError, fragment, infer_op, "OneHot", inputs, {"axis": axis}, params=())


def test_runtime_depth_checked_by_the_kernel():
    rejects(ExecutionError, "OneHot depth value can't be negative.", one_hot, np.array([0, 1], np.int64), np.int64(-2),
            np.float32(1), np.float32(0), -1, params=(0, 1))
    out = one_hot(np.array([0, 4], np.int64), np.int64(5), np.float32(1), np.float32(0), 0, params=(0, 1))
    np.testing.assert_array_equal(out, [[1, 0], [0, 0], [0, 0], [0, 0], [0, 1]])


def test_v16_default_mode_and_bad_mode():
    out = one_hot(np.array([-1, 1], np.int32), np.int32(2), np.float32(1), np.float32(0), -1, "opset16")
    np.testing.assert_array_equal(out, [[0, 0], [0, 1]])
    rejects(ShapeError, "is not one of: ignore_negative, normalize", one_hot, np.array([0], np.int32), np.int32(2),
            np.float32(1), np.float32(0), -1, "opset16", negative_indices_mode="ignore-negative")
