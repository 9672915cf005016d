"""SearchSorted-15: OpenVINO's measured answers (opsets_expectations, the CPU plugin: no reference
kernel) and the lower/upper bound rule by hand."""

import numpy as np
import pytest

from helpers import run_op
from nn_cases import case_ids, replay

MESSAGES = {"SearchSorted-shape-bad-dims": "All dimensions but the last one have to be compatible."}


@pytest.mark.parametrize("case", case_ids("SearchSorted"))
def test_openvino_case(case):
    replay(case, messages=MESSAGES)


@pytest.mark.parametrize("right, want", [(False, [0, 1, 3, 4]), (True, [0, 3, 3, 4])])
def test_bounds(right, want):
    # [1, 2, 2, 5]: 2 goes before the 2s (lower bound) or after them (upper bound)
    out = run_op("SearchSorted", [np.array([1, 2, 2, 5], np.int32), np.array([0, 2, 4, 9], np.int32)],
                 {"right_mode": str(right).lower()}, "opset15")[0]
    assert out.dtype == np.int64
    np.testing.assert_array_equal(out, want)
