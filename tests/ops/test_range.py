"""Range-1/4 (irrun/ops/range.py): the range-4.rst examples, OpenVINO's measured answers
(expectations.py), the truncation of inputs for integer outputs, lengths, run-time inputs, partial
shapes and the errors."""
from __future__ import annotations

import numpy as np
import pytest

from expectations import cases, check
from helpers import Param, infer_op, raises_for, run_op, shape_str
from irrun.limits.memory import MemoryBudgetError, limit
from irrun.errors import ExecutionError, ShapeError

PATHS = [(), (0, 1, 2)]


@pytest.mark.parametrize("case", cases("Range"))
def test_openvino_expectations(case):
    check(case)


def rng(start, stop, step, out=None, params=(), dtype=None):
    vals = [np.array(v, dtype) if dtype else np.asarray(v) for v in (start, stop, step)]
    if out is None:
        return run_op("Range", vals, params=params)[0]
    return run_op("Range", vals, {"output_type": out}, version="opset4", params=params)[0]


@pytest.mark.parametrize("params", PATHS, ids=["const", "params"])
def test_spec_examples(params):
    np.testing.assert_array_equal(rng(2, 23, 3, "i32", params, np.int32), [2, 5, 8, 11, 14, 17, 20])
    np.testing.assert_array_equal(rng(23, 2, -3, "i32", params, np.int32), [23, 20, 17, 14, 11, 8, 5])
    out = rng(1, 2.5, 0.5, "f32", params, np.float32)
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out, [1.0, 1.5, 2.0])


@pytest.mark.parametrize("params", PATHS, ids=["const", "params"])
def test_integer_output_truncates_inputs(params):
    np.testing.assert_array_equal(rng(0.5, 7.9, 2.6, "i32", params, np.float32), [0, 2, 4, 6])
    np.testing.assert_array_equal(rng(2.9, 9.9, 2.9, "i64", params, np.float32), [2, 4, 6, 8])
    assert rng(1.2, 3.0, 0.5, "i64", params, np.float64).shape == (0,)      # the step truncates to 0


@pytest.mark.parametrize("params", PATHS, ids=["const", "params"])
def test_range1_types_and_lengths(params):
    out = rng(0, 1, 0.1, params=params, dtype=np.float32)
    assert out.dtype == np.float32 and out.shape == (10,)
    np.testing.assert_allclose(out, np.arange(10) * np.float32(0.1), rtol=1e-6)
    assert rng(5, 5, 1, params=params, dtype=np.int32).shape == (0,)
    assert rng(0, 10, -1, params=params, dtype=np.int32).shape == (0,)
    np.testing.assert_array_equal(rng(1.0, -2.0, -0.5, params=params, dtype=np.float64), [1, 0.5, 0, -0.5, -1, -1.5])


def test_mixed_input_types_and_f16_output():
    out = run_op("Range", [np.int32(1), np.float32(7.5), np.int64(2)], {"output_type": "f32"}, version="opset4",
                 params=())[0]
    np.testing.assert_array_equal(out, [1, 3, 5, 7])
    out = rng(-1.5, 4.2, 1.1, "f16", (), np.float32)
    np.testing.assert_array_equal(out, np.array([-1.5, -0.4, 0.7, 1.8, 2.9, 4.0], np.float32).astype(np.float16))


def test_errors():
    raises_for("Range", ShapeError, "'step' cannot be zero, nan, or infinite.", rng, 0, 5, 0, "i32", (), np.int32)
    raises_for("Range", ExecutionError, "'step' cannot be zero, nan, or infinite.", rng, 0, 5, 0, "i32", (0, 1, 2), np.int32)
    raises_for("Range", ShapeError, "'start' cannot be nan or infinite.", rng, np.nan, 5, 1, "f32", (), np.float32)
    raises_for("Range", ShapeError, "'start' input is not a scalar", run_op, "Range",
               [np.array([0], np.int32), np.int32(5), np.int32(1)], {"output_type": "i32"}, version="opset4", params=())
    raises_for("Range", ShapeError, "Element types for start, stop, and step do not match.", run_op, "Range",
               [np.int32(0), np.int64(5), np.int32(1)], params=())
    raises_for("Range", ShapeError, "output tensor type should be a numeric type. Got: boolean", rng, 0, 5, 1,
               "boolean", (), np.int32)


def test_huge_range_refused_before_allocating():
    with limit(1 << 20):
        with pytest.raises(MemoryBudgetError):
            rng(0, 10 ** 9, 1, "i64", (0, 1, 2), np.int64)


def test_shapes():
    (info,) = infer_op("Range", [Param("i32", ""), Param("i32", ""), Param("i32", "")], {"output_type": "i64"},
                       version="opset4")
    assert shape_str(info) == "[?]" and info.etype.name == "i64"
    raises_for("Range", ShapeError, "'step' cannot be zero", infer_op, "Range", [np.int32(0), Param("i32", ""),
               np.int32(0)], {"output_type": "i64"}, version="opset4", params=())
    (info,) = infer_op("Range", [np.int32(2), np.int32(23), np.int32(3)], {"output_type": "i32"}, version="opset4",
                       params=())
    assert shape_str(info) == "[7]"
    np.testing.assert_array_equal(info.value, [2, 5, 8, 11, 14, 17, 20])
