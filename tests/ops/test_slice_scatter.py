"""SliceScatter-15 and Xor-1: OpenVINO's measured answers (opsets_expectations, the CPU plugin)
and the spec's rule by hand: the slice Slice-8 would take, replaced by the updates."""

import numpy as np
import pytest

from helpers import Param, infer_op, raises_for, run_op, shape_str
from irrun.errors import ExecutionError, ShapeError
from nn_cases import case_ids, replay

MESSAGES: dict[str, str] = {}


@pytest.mark.parametrize("case", case_ids("SliceScatter", "Xor"))
def test_openvino_case(case):
    replay(case, messages=MESSAGES)


def test_replaces_the_slice():
    x = np.arange(10, dtype=np.int64)
    out = run_op("SliceScatter", [x, np.array([-1, -2, -3]), np.int64([8]), np.int64([-11]), np.int64([-3])],
                 version="opset15")[0]
    want = x.copy()
    want[8::-3] = [-1, -2, -3]
    np.testing.assert_array_equal(out, want)
    np.testing.assert_array_equal(x, np.arange(10))          # the input is not written


def test_shapes_and_errors():
    info = infer_op("SliceScatter", [Param("f32", "2..5,?"), Param("f32", "1,3"), np.int64([0]), np.int64([1]),
                                     np.int64([1]), np.int64([0])], version="opset15", params=(0, 1))[0]
    assert shape_str(info) == "[2..5,?]"
    raises_for("SliceScatter", ExecutionError, "is not the slice's shape", run_op, "SliceScatter",
               [np.zeros((4, 3)), np.zeros((2, 3)), np.int64([0]), np.int64([1]), np.int64([1])], None,
               "opset15", 1, (0, 1, 2, 3, 4))
    raises_for("SliceScatter", ShapeError, "same type", infer_op, "SliceScatter",
               [Param("f32", "4"), Param("i32", "1"), np.int64([0]), np.int64([1]), np.int64([1])], None, "opset15")
