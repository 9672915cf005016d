"""MatrixNms-8: OpenVINO's measured answers (opsets_expectations, the CPU plugin) and the linear
decay by hand."""

import numpy as np
import pytest

from helpers import run_op
from nn_cases import case_ids, replay


@pytest.mark.parametrize("case", case_ids("MatrixNms"))
def test_openvino_case(case):
    replay(case)


def test_linear_decay():
    # box 1 overlaps box 0 with IoU 0.5: its score decays by (1 - 0.5) / (1 - 0) to 0.4
    boxes = np.float32([[[0, 0, 2, 2], [0, 0, 2, 1]]])
    scores = np.float32([[[0.9, 0.8]]])
    a = {"sort_result_type": "score", "decay_function": "linear", "post_threshold": "0.01"}
    out, idx, num = run_op("MatrixNms", [boxes, scores], a, "opset8", n_out=3, params=(0, 1))
    np.testing.assert_allclose(out[:, 1], [0.9, 0.4], rtol=1e-6)
    np.testing.assert_array_equal(idx[:, 0], [0, 1])
