"""MulticlassNms-8/9: OpenVINO's measured answers (opsets_expectations, the CPU plugin) and the
suppression rule by hand."""

import numpy as np
import pytest

from helpers import run_op
from nn_cases import case_ids, replay


@pytest.mark.parametrize("case", case_ids("MulticlassNms"))
def test_openvino_case(case):
    replay(case)


def test_overlapping_box_is_suppressed():
    boxes = np.float32([[[0, 0, 10, 10], [1, 1, 11, 11], [20, 20, 30, 30]]])
    scores = np.float32([[[0.9, 0.8, 0.7]]])
    a = {"iou_threshold": "0.5", "score_threshold": "0", "sort_result_type": "score"}
    out, idx, num = run_op("MulticlassNms", [boxes, scores], a, "opset8", n_out=3, params=(0, 1))
    np.testing.assert_array_equal(idx[:, 0], [0, 2])           # IoU(0, 1) = 81/119 > 0.5
    np.testing.assert_allclose(out[:, 1], [0.9, 0.7])
    np.testing.assert_array_equal(num, [2])
