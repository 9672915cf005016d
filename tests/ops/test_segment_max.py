"""SegmentMax-16: OpenVINO's measured answers (opsets_expectations, the CPU plugin: no reference
kernel), the spec's example and the value checks irrun adds."""

import numpy as np
import pytest

from helpers import raises_for, run_op
from irrun.limits.memory import MemoryBudgetError, limit
from irrun.errors import ExecutionError
from nn_cases import case_ids, replay


@pytest.mark.parametrize("case", case_ids("SegmentMax"))
def test_openvino_case(case):
    replay(case)


def segment_max(data, ids, *num, mode="zero", params=(0, 1)):
    return run_op("SegmentMax", [data, ids, *num], {"fill_mode": mode}, "opset16", params=params)[0]


def test_spec_example():
    # the spec's example 1: segments [0, 0, 2, 3, 3] of five rows
    out = segment_max(np.array([-0.5, 1.0, 2.5, 3.0, 0.0], np.float32), np.array([0, 0, 2, 3, 3], np.int32))
    np.testing.assert_array_equal(out, [1.0, 0.0, 2.5, 3.0])
    out = segment_max(np.array([-0.5, 1.0, 2.5, 3.0, 0.0], np.float32), np.array([0, 0, 2, 3, 3], np.int32),
                      mode="lowest")
    np.testing.assert_array_equal(out, [1.0, np.finfo(np.float32).min, 2.5, 3.0])


def test_refusals():
    raises_for("SegmentMax", ExecutionError, "non-negative and sorted", segment_max,
               np.ones(3, np.float32), np.array([1, 0, 2], np.int64))
    with limit(1 << 20):
        raises_for("SegmentMax", MemoryBudgetError, "", segment_max, np.ones((1, 1000), np.float32),
                   np.array([10 ** 6], np.int64))
