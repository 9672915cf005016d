"""Eye-9: the spec's three worked examples and two IR examples, diagonals inside and outside the
matrix, batch shapes, run-time inputs, every output type, partial shapes, errors, and OpenVINO's
answers (tools/expectations/make_trig_bitwise_dft_sampling_expectations.py)."""
from functools import partial

import numpy as np
import pytest

from helpers import Param, infer_op, raises_for, run_op, shape_str
from irrun.types import elements
from irrun.errors import ShapeError, UnsupportedError
from nn_cases import case_ids, replay

rejects = partial(raises_for, "Eye")
#: output_type dynamic: OpenVINO's evaluators fail ("Tensor was not initialized"); a negative row
#: count fed at run time: OpenVINO's shape inference refuses it once the value is known, irrun
#: when it runs the layer (an ExecutionError, not a ShapeError)
REFUSE = {"Eye-shape-type-dynamic": "output_type dynamic", "Eye-negative-rows-param": "Value -1 not in range"}
TYPES = ["f64", "f32", "f16", "bf16", "i64", "i32", "i16", "i8", "u64", "u32", "u16", "u8", "boolean"]


@pytest.mark.parametrize("case", case_ids("Eye"))
def test_openvino_case(case):
    replay(case, REFUSE)


def eye(rows, cols, diag, batch=None, et="f32", params=()):
    ins = [np.array(rows, np.int32), np.array(cols, np.int32), np.array(diag, np.int32)]
    if batch is not None:
        ins.append(np.array(batch, np.int32))
    return run_op("Eye", ins, {"output_type": et}, "opset9", params=params)[0]


@pytest.mark.parametrize("params", [(), (0, 1, 2)], ids=["consts", "params"])
def test_spec_examples(params):
    np.testing.assert_array_equal(eye([3], [4], [2], et="i32", params=params),
                                  [[0, 0, 1, 0], [0, 0, 0, 1], [0, 0, 0, 0]])
    np.testing.assert_array_equal(eye([3], [4], [-1], et="i32", params=params),
                                  [[0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0]])
    out = eye([2], [2], [5], batch=[1, 2], et="f16", params=params)
    assert out.dtype == np.float16 and out.shape == (1, 2, 2, 2) and not out.any()


def test_spec_ir_examples():
    """Example 1: 5x5 i8 from Consts; example 2: batch_shape [2, 3] with run-time rows/columns."""
    assert shape_str(infer_op("Eye", [np.int32(5), np.int32(5), np.int32(0)], {"output_type": "i8"},
                              "opset9", params=())[0]) == "[5,5]"
    out = infer_op("Eye", [Param("i32", ""), Param("i32", ""), np.int32(0), np.array([2, 3], np.int32)],
                   {"output_type": "f32"}, "opset9", params=())[0]
    assert shape_str(out) == "[2,3,?,?]" and out.etype.name == "f32"


def test_batch_repeats_the_matrix():
    out = eye(2, 3, 1, batch=[2, 1])
    assert out.shape == (2, 1, 2, 3)
    np.testing.assert_array_equal(out[1, 0], [[0, 1, 0], [0, 0, 1]])


@pytest.mark.parametrize("et", TYPES)
def test_every_output_type(et):
    out = eye(2, 2, 0, et=et)
    assert out.dtype == elements.TYPES[et].dtype
    np.testing.assert_array_equal(out.astype(np.float64), [[1, 0], [0, 1]])


def test_string_output_is_refused():
    rejects(UnsupportedError, "output_type string", eye, 2, 2, 0, et="string")


def test_negative_count_at_run_time():
    rejects(Exception, "Value -2 not in range [0:9223372036854775807]", eye, [-2], [3], [0], params=(0,))


@pytest.mark.parametrize("ins, message", [
    ([np.array([2, 2], np.int64), np.int64(3), np.int64(0)], "'num_rows' value input should have 1 element."),
    ([np.int64(2), np.array([[3]], np.int64), np.int64(0)], "'num_columns' value must be a scalar or 1D tensor."),
    ([np.int64(2), np.int64(3), np.float32(0)], "Type of the 'diagonal_index' should be int32 or int64. Got: f32"),
    ([np.int64(2), np.int64(3), np.int64(0), np.array([[2]], np.int64)], "'batch_shape' input must be a 1D tensor.")])
def test_errors(ins, message):
    rejects(ShapeError, message, infer_op, "Eye", ins, {"output_type": "f32"}, "opset9", params=())


@pytest.mark.parametrize("batch, want", [(Param("i64", "2"), "[?,?,2,3]"), (Param("i64", "?"), "[...]")])
def test_run_time_batch_shapes(batch, want):
    out = infer_op("Eye", [np.int64(2), np.int64(3), np.int64(0), batch], {"output_type": "f32"}, "opset9", params=())
    assert shape_str(out[0]) == want
