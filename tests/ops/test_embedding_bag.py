"""EmbeddingBagOffsetsSum-3, EmbeddingBagOffsets-15, EmbeddingBagPackedSum-3, EmbeddingBagPacked-15,
EmbeddingSegmentsSum-3: OpenVINO's measured answers (opsets_expectations, the CPU plugin), the
spec's example by hand and the index checks irrun adds."""

import numpy as np
import pytest

from helpers import raises_for, run_op
from irrun.errors import ExecutionError, ShapeError
from nn_cases import case_ids, replay

TYPES = ("EmbeddingBagOffsetsSum", "EmbeddingBagOffsets", "EmbeddingBagPackedSum", "EmbeddingBagPacked",
         "EmbeddingSegmentsSum")
MESSAGES = {"EmbeddingBagOffsetsSum-shape-bad-idx": "indices must be 1D."}


@pytest.mark.parametrize("case", case_ids(*TYPES))
def test_openvino_case(case):
    replay(case, messages=MESSAGES)


TABLE = np.array([[-0.2, -0.6], [-0.1, -0.4], [-1.9, -1.8], [-1.0, 1.5], [0.8, -0.7]], np.float32)


def test_spec_example_offsets():
    # the spec's example: bags [0, 2], [], [3, 4]; weights 0.5; the empty bag takes row 0
    out = run_op("EmbeddingBagOffsetsSum", [TABLE, np.int64([0, 2, 3, 4]), np.int64([0, 2, 2]), np.int64(0),
                                            np.full(4, 0.5, np.float32)], version="opset3")[0]
    np.testing.assert_allclose(out, [[-1.05, -1.2], [-0.2, -0.6], [-0.1, 0.4]], rtol=1e-6)


def test_out_of_table_and_mean_with_weights():
    raises_for("EmbeddingBagPackedSum", ExecutionError, "out of the embedding table", run_op,
               "EmbeddingBagPackedSum", [TABLE, np.int64([[0, 5]])], None, "opset3", 1, (0, 1))
    raises_for("EmbeddingBagPacked", ShapeError, "only be used in Reduction::SUM mode", run_op, "EmbeddingBagPacked",
               [TABLE, np.int64([[0, 1]]), np.ones((1, 2), np.float32)], {"reduction": "mean"}, "opset15")
