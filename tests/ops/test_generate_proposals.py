"""GenerateProposals-9 and ExperimentalDetectronGenerateProposalsSingleImage-6: OpenVINO's
measured answers (opsets_expectations, the CPU plugin) and the box refinement by hand."""

import numpy as np
import pytest

from helpers import run_op
from nn_cases import case_ids, replay


@pytest.mark.parametrize("case", case_ids("GenerateProposals", "ExperimentalDetectronGenerateProposalsSingleImage"))
def test_openvino_case(case):
    replay(case)


def test_zero_deltas_keep_the_anchor():
    # one anchor [2, 3, 10, 7] with zero deltas comes back as itself (normalized: no +1 offsets)
    anchors = np.float32([[[[2, 3, 10, 7]]]])
    a = {"min_size": "0", "nms_threshold": "0.5", "pre_nms_count": "10", "post_nms_count": "10", "normalized": "true"}
    rois, scores, num = run_op("GenerateProposals", [np.float32([[20, 20, 1]]), anchors, np.zeros((1, 4, 1, 1), np.float32),
                                                     np.float32([[[[0.7]]]])], a, "opset9", n_out=3, params=(0, 1, 2, 3))
    np.testing.assert_allclose(rois, [[2, 3, 10, 7]])
    np.testing.assert_allclose(scores, [0.7])
    np.testing.assert_array_equal(num, [1])
