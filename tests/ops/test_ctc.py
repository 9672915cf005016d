"""CTCGreedyDecoder-1, CTCGreedyDecoderSeqLen-6, CTCLoss-4: OpenVINO's measured answers
(opsets_expectations, the CPU plugin) and the CTC rules by hand on tiny cases."""

import math

import numpy as np
import pytest

from helpers import run_op
from irrun.errors import ExecutionError
from nn_cases import case_ids, replay


@pytest.mark.parametrize("case", case_ids("CTCGreedyDecoder", "CTCGreedyDecoderSeqLen", "CTCLoss"))
def test_openvino_case(case):
    replay(case)


def test_greedy_merges_then_drops_blanks():
    # frames' arg-max: 1 1 2(blank) 1 0 -> merged "1 1" -> [1, 1, 0] with blank 2
    eye = np.eye(3, dtype=np.float32)
    data = eye[[1, 1, 2, 1, 0]][None]                                  # [N=1, T=5, C=3]
    dec, n = run_op("CTCGreedyDecoderSeqLen", [data, np.int32([5])], None, "opset6", n_out=2)
    np.testing.assert_array_equal(dec, [[1, 1, 0, -1, -1]])
    np.testing.assert_array_equal(n, [3])


def test_loss_of_one_frame():
    # T=1, label [0]: the only alignment emits class 0 -> loss = -log softmax(logits)[0]
    logits = np.float32([[[1.0, 2.0, 0.5]]])
    loss = run_op("CTCLoss", [logits, np.int32([1]), np.int32([[0]]), np.int32([1])], None, "opset4")[0]
    want = -(1.0 - math.log(math.exp(1) + math.exp(2) + math.exp(0.5)))
    np.testing.assert_allclose(loss, [want], rtol=1e-6)


def test_empty_and_too_long_labels():
    logits = np.zeros((1, 2, 3), np.float32)          # uniform: every frame p(blank) = 1/3
    loss = run_op("CTCLoss", [logits, np.int32([2]), np.int32([[0, 0]]), np.int32([0])], None, "opset4")[0]
    np.testing.assert_allclose(loss, [2 * math.log(3)], rtol=1e-6)
    with pytest.raises(ExecutionError, match="Label len: 2"):
        run_op("CTCLoss", [logits, np.int32([1]), np.int32([[0, 1]]), np.int32([2])], None, "opset4", params=(0, 1))
