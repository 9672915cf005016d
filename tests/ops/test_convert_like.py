"""ConvertLike-1 (irrun/ops/convert.py): OpenVINO's measured answers (expectations.py), the
``like`` input's type and not its values or shape, partial shapes."""
from __future__ import annotations

import numpy as np
import pytest

from expectations import cases, check
from helpers import Param, infer_op, run_op, shape_str


@pytest.mark.parametrize("case", cases("ConvertLike"))
def test_openvino_expectations(case):
    check(case)


@pytest.mark.parametrize("params", [(0,), (0, 1), ()], ids=["param-data", "params", "const"])
def test_takes_the_type_of_like(params):
    out = run_op("ConvertLike", [np.array([-2.7, 0.5, 300.2], np.float32), np.zeros((4, 5), np.int32)], params=params)[0]
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out, [-2, 0, 300])
    out = run_op("ConvertLike", [np.array([True, False]), np.zeros((), np.float16)], params=params)[0]
    assert out.dtype == np.float16
    np.testing.assert_array_equal(out, [1, 0])


def test_shapes():
    (info,) = infer_op("ConvertLike", [Param("f32", "?,2..3"), Param("i8", "1")])
    assert shape_str(info) == "[?,2..3]" and info.etype.name == "i8"
