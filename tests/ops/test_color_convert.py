"""NV12toRGB/BGR-8, I420toRGB/BGR-8: OpenVINO's measured answers (opsets_expectations, the CPU
plugin) and the spec's conversion by hand for one pixel."""

import numpy as np
import pytest

from helpers import run_op
from nn_cases import case_ids, replay


@pytest.mark.parametrize("case", case_ids("NV12toRGB", "NV12toBGR", "I420toRGB", "I420toBGR"))
def test_openvino_case(case):
    replay(case)


def test_one_grey_and_one_red_pixel_block():
    # Y=128, U=V=128 -> grey 1.164*112 = 130.4 -> 130; V=240 adds red 1.596*112 = 178.8
    y = np.full((1, 2, 2, 1), 128, np.uint8)
    for v, want in ((128, [130, 130, 130]), (240, [255, 39, 130])):
        uv = np.array([128, v], np.uint8).reshape(1, 1, 1, 2)
        out = run_op("NV12toRGB", [y, uv], None, "opset8", params=(0, 1))[0]
        np.testing.assert_array_equal(out[0, 0, 0], want)
