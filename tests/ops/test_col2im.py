"""Col2Im-15: OpenVINO's measured answers (opsets_expectations, the CPU plugin) and torch's
``nn.Fold`` rule on a tiny case by hand."""

import numpy as np
import pytest

from helpers import Param, infer_op, raises_for, run_op, shape_str
from irrun.errors import ShapeError
from nn_cases import case_ids, replay



@pytest.mark.parametrize("case", case_ids("Col2Im"))
def test_openvino_case(case):
    replay(case)


def test_overlapping_blocks_add_up():
    # one channel, a 1x2 kernel over a 1x3 image: blocks at columns 0 and 1 overlap in column 1
    data = np.array([[1, 10], [2, 20]], np.float32)            # [k=2, L=2]
    out = run_op("Col2Im", [data, np.int64([1, 3]), np.int64([1, 2])], version="opset15")[0]
    np.testing.assert_array_equal(out, [[[1, 12, 20]]])


def test_shapes_and_errors():
    info = infer_op("Col2Im", [Param("f32", "?,12,9"), np.int64([4, 4]), np.int64([2, 2])], version="opset15")[0]
    assert shape_str(info) == "[?,3,4,4]"
    raises_for("Col2Im", ShapeError, "unbatched (2D) or a batched (3D)", infer_op, "Col2Im",
               [Param("f32", "1,1,12,9"), np.int64([4, 4]), np.int64([2, 2])], None, "opset15")
