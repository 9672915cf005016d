"""Proposal-1/4: OpenVINO's measured answers (opsets_expectations, the CPU plugin) and the
anchor rule by hand (the Caffe anchors of a 16-pixel base)."""

import numpy as np
import pytest

from irrun.ops.proposal import anchors
from nn_cases import case_ids, replay


@pytest.mark.parametrize("case", case_ids("Proposal"))
def test_openvino_case(case):
    replay(case)


def test_caffe_anchors():
    # py-faster-rcnn's generate_anchors(base_size=16, ratios=[0.5, 1, 2], scales=[8]) first rows
    got = anchors(16, [0.5, 1.0, 2.0], [8.0], tf=False)
    np.testing.assert_array_equal(got, [[-84, -40, 99, 55], [-56, -56, 71, 71], [-36, -80, 51, 95]])
