"""ROIPooling-2 and PSROIPooling-1: OpenVINO's measured answers (opsets_expectations, the CPU
plugin, checked against the reference kernel where it has one) and the max rule by hand."""

import numpy as np
import pytest

from helpers import raises_for, run_op
from irrun.errors import ExecutionError
from nn_cases import case_ids, replay

MESSAGES = {"PSROIPooling-shape-bad-channels": "Number of input's channels must be 18"}


@pytest.mark.parametrize("case", case_ids("ROIPooling", "PSROIPooling"))
def test_openvino_case(case):
    replay(case, messages=MESSAGES)


def roi_max(feat, rois, ph, pw):
    a = {"pooled_h": str(ph), "pooled_w": str(pw), "spatial_scale": "1", "method": "max"}
    return run_op("ROIPooling", [feat, rois], a, "opset2", params=(0, 1))[0]


def test_max_of_each_bin():
    feat = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
    out = roi_max(feat, np.float32([[0, 0, 0, 3, 3]]), 2, 2)        # four 2x2 quadrants
    np.testing.assert_array_equal(out, [[[[5, 7], [13, 15]]]])
    raises_for("ROIPooling", ExecutionError, "batch index", roi_max, feat, np.float32([[1, 0, 0, 3, 3]]), 2, 2)


@pytest.mark.parametrize("case", case_ids("DeformablePSROIPooling"))
def test_openvino_deformable_case(case):
    replay(case)


def test_deformable_without_offsets_samples_bin_corners():
    # one 1x1 bin over the whole 2x2 map: the box (0,0)-(1,1) starts at -0.5 -> clamped to pixel 0
    data = np.arange(4, dtype=np.float32).reshape(1, 1, 2, 2)
    a = {"output_dim": "1", "spatial_scale": "1", "group_size": "1"}
    out = run_op("DeformablePSROIPooling", [data, np.float32([[0, 0, 0, 1, 1]])], a, "opset1", params=(0, 1))[0]
    np.testing.assert_array_equal(out, [[[[0]]]])
