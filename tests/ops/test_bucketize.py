"""Bucketize-3: bucket indices by the spec's interval rules on hand-picked values, NaN, empty and
duplicate boundaries, mixed types, the errors, and OpenVINO's measured answers (attention_quantize_movement_expectations:
the CPU plugin; OpenVINO has no reference kernel)."""

import numpy as np
import pytest

from helpers import Param, infer_op, raises_for, run_op, shape_str
from irrun.types import elements
from irrun.errors import ExecutionError, ShapeError
from nn_cases import case_ids, replay

BF16 = elements.TYPES["bf16"].dtype
NUMERIC = [np.float64, np.float32, np.float16, BF16, np.int64, np.int32, np.int16, np.int8,
           np.uint64, np.uint32, np.uint16, np.uint8]
REFUSE = {"Bucketize-unsorted": "the buckets are not sorted"}
rejects = lambda *a, **k: raises_for("Bucketize", *a, **k)  # noqa: E731


@pytest.mark.parametrize("case", case_ids("Bucketize"))
def test_openvino_case(case):
    replay(case, REFUSE)


def bucketize(x, b, right=True, output_type="i64", params=(0,)):
    a = {"output_type": output_type, "with_right_bound": str(right).lower()}
    return run_op("Bucketize", [x, b], a, "opset3", params=params)[0]


@pytest.mark.parametrize("params", [(0,), (0, 1), ()], ids=["const-buckets", "param-buckets", "folded"])
@pytest.mark.parametrize("right, want", [
    (True, [0, 0, 1, 1, 2, 2]),        # (-inf, 0], (0, 2], (2, inf)
    (False, [0, 1, 1, 2, 2, 2]),       # (-inf, 0), [0, 2), [2, inf)
])
def test_interval_rules(right, want, params):
    x = np.array([-1, 0, 1, 2, 2.5, 3], np.float32)
    np.testing.assert_array_equal(bucketize(x, np.array([0, 2], np.float32), right, params=params), want)


@pytest.mark.parametrize("dtype", NUMERIC, ids=str)
@pytest.mark.parametrize("output_type", ["i32", "i64"])
def test_every_numeric_type(dtype, output_type):
    x = np.array([[0, 1], [2, 7]]).astype(dtype)
    out = bucketize(x, np.array([1, 2, 5], np.int64), output_type=output_type)
    assert out.dtype == np.dtype(output_type.replace("i", "int"))
    np.testing.assert_array_equal(out, [[0, 0], [1, 3]])


def test_nan_empty_and_duplicate_buckets():
    x = np.array([np.nan, -np.inf, 1, np.inf], np.float32)
    np.testing.assert_array_equal(bucketize(x, np.array([0, 2], np.float32)), [0, 0, 1, 2])
    np.testing.assert_array_equal(bucketize(x, np.array([0, 2], np.float32), right=False), [2, 0, 1, 2])
    np.testing.assert_array_equal(bucketize(x, np.zeros(0, np.float32)), [0, 0, 0, 0])
    np.testing.assert_array_equal(bucketize(np.array([0, 1], np.int32), np.array([0, 0, 1, 1]), right=False), [2, 4])


def test_mixed_types_compare_exactly():
    # 2**53 + 1 is not an f64 but compares above the bucket 2**53 as int64
    big = 2 ** 53
    np.testing.assert_array_equal(bucketize(np.array([big + 1], np.int64), np.array([big], np.int64)), [1])
    np.testing.assert_array_equal(bucketize(np.array([-3, 2, 8], np.int64), np.array([-0.5, 2.5, 5], np.float32)),
                                  [0, 1, 3])


def test_shapes_and_errors():
    assert shape_str(infer_op("Bucketize", [Param("f32", "?,2..4"), Param("f32", "?")], {"output_type": "i32"},
                              "opset3", params=())[0]) == "[?,2..4]"
    rejects(ShapeError, "Output type must be i32 or i64. Got: f32", bucketize, np.ones(2, np.float32),
            np.ones(1, np.float32), output_type="f32")
    rejects(ShapeError, "Data input type must be numeric. Got: boolean", bucketize, np.ones(2, bool), np.ones(1))
    rejects(ShapeError, "Buckets input type must be numeric. Got: boolean", bucketize, np.ones(2), np.ones(1, bool))
    rejects(ShapeError, "Buckets input must be a 1D tensor. Got: [2,3]", bucketize, np.ones(2), np.ones((2, 3)))
    rejects(ShapeError, "the buckets are not sorted", bucketize, np.ones(2), np.array([3.0, 1.0]))
    rejects(ExecutionError, "the buckets are not sorted", bucketize, np.ones(2), np.array([3.0, 1.0]), params=(0, 1))
