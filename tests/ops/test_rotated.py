"""NMSRotated-13 and ROIAlignRotated-15: OpenVINO's measured answers (opsets_expectations, the CPU
plugin) and the rotated-box geometry by hand."""

import math

import numpy as np
import pytest

from irrun.ops.rotated import rotated_iou
from nn_cases import case_ids, replay


@pytest.mark.parametrize("case", case_ids("NMSRotated", "ROIAlignRotated"))
def test_openvino_case(case):
    replay(case)


def test_rotated_iou():
    a = np.float32([0, 0, 2, 2, 0])
    assert rotated_iou(a, a) == pytest.approx(1)
    assert rotated_iou(a, np.float32([1, 0, 2, 2, 0])) == pytest.approx(2 / 6)        # half overlap
    # a square turned 45 degrees inside the same square: the octagon of area 8(sqrt 2 - 1)
    inter = 8 * (math.sqrt(2) - 1)
    assert rotated_iou(a, np.float32([0, 0, 2, 2, math.pi / 4])) == pytest.approx(inter / (8 - inter), rel=1e-6)
