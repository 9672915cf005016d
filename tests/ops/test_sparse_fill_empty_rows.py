"""SparseFillEmptyRows-16: OpenVINO's measured answers (opsets_expectations, the CPU plugin) and
the spec's example by hand."""

import numpy as np
import pytest

from helpers import raises_for, run_op
from irrun.errors import ExecutionError
from nn_cases import case_ids, replay


@pytest.mark.parametrize("case", case_ids("SparseFillEmptyRows"))
def test_openvino_case(case):
    replay(case)


def fill(values, shape, indices, default):
    return run_op("SparseFillEmptyRows", [values, np.int64(shape), np.int64(indices), default], None, "opset16",
                  n_out=3, params=(0, 2))


def test_spec_example():
    # rows 1 and 4 of a [5, 6] tensor have no entry: [1, 0] and [4, 0] get -1
    idx, vals, empty = fill(np.float32([1, 2, 3, 4]), [5, 6], [[0, 1], [0, 3], [2, 0], [3, 1]], np.float32(-1))
    np.testing.assert_array_equal(idx, [[0, 1], [0, 3], [1, 0], [2, 0], [3, 1], [4, 0]])
    np.testing.assert_array_equal(vals, [1, 2, -1, 3, 4, -1])
    np.testing.assert_array_equal(empty, [False, True, False, False, True])
    raises_for("SparseFillEmptyRows", ExecutionError, "outside the dense shape", fill, np.float32([1]), [2, 2],
               [[2, 0]], np.float32(0))
