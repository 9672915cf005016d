"""AdaptiveMaxPool-8, GRN-1, GatherTree-1, Inverse-14, ExtractImagePatches-3: OpenVINO's measured
answers (opsets_expectations, the CPU plugin) and each spec's rule by hand on a tiny case."""

import numpy as np
import pytest

from helpers import run_op
from nn_cases import case_ids, replay

TYPES = ("AdaptiveMaxPool", "GRN", "GatherTree", "Inverse", "ExtractImagePatches")


@pytest.mark.parametrize("case", case_ids(*TYPES))
def test_openvino_case(case):
    replay(case)


def test_adaptive_max_pool_bins_overlap():
    # 5 -> 3 bins: [0,2) [1,4) [3,5)
    x = np.float32([[[5, 1, 2, 9, 0]]])
    out, idx = run_op("AdaptiveMaxPool", [x, np.int64([3])], None, "opset8", n_out=2)
    np.testing.assert_array_equal(out, [[[5, 9, 9]]])
    np.testing.assert_array_equal(idx, [[[0, 3, 3]]])


def test_grn_and_inverse():
    x = np.float32([[3], [4]])[None]                       # channels 3 and 4: norm 5 (bias 0)
    np.testing.assert_allclose(run_op("GRN", [x], {"bias": "0"})[0], [[[0.6], [0.8]]], rtol=1e-6)
    m = np.float32([[2, 1], [0, 4]])
    np.testing.assert_allclose(run_op("Inverse", [m], None, "opset14")[0], [[0.5, -0.125], [0, 0.25]])
    np.testing.assert_allclose(run_op("Inverse", [m], {"adjoint": "true"}, "opset14")[0], [[0.5, 0], [-0.125, 0.25]])


def test_gather_tree_spec_rule():
    # one batch, two beams, three steps: beam 0 (parent 0 at step 2) came from beam 1 at step 1
    steps = np.int32([[[1, 2]], [[3, 4]], [[5, 6]]])
    parents = np.int32([[[0, 0]], [[1, 0]], [[0, 1]]])
    out = run_op("GatherTree", [steps, parents, np.int32([3]), np.int32(0)], None, "opset1", params=(0, 1))[0]
    np.testing.assert_array_equal(out[:, 0, :], [[2, 1], [3, 4], [5, 6]])
