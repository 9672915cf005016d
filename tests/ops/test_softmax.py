"""Softmax-1/8 (IR ``SoftMax``) and LogSoftmax-5 (irrun/ops/softmax.py): OpenVINO's measured answers
(expectations.py), the definitions evaluated in f64, axis rules and messages of OpenVINO 2026.4.1
(Softmax-1's axis is unsigned), NaN slices, partial shapes."""
from __future__ import annotations

import numpy as np
import pytest

from expectations import cases, check
from helpers import Param, infer_op, raises_for, run_op, shape_str
from irrun.types import elements
from irrun.errors import ShapeError, UnsupportedError

BF16 = elements.TYPES["bf16"].dtype
X = np.array([[[1.0, 2.0, 3.0, 4.0], [-1.0, 0.0, 0.5, 8.0], [3.0, 3.0, 3.0, 3.0]],
              [[-5.0, 5.0, 0.0, 1.0], [100.0, 101.0, 99.0, 100.0], [0.25, -0.25, 2.0, -2.0]]])


@pytest.mark.parametrize("case", cases("SoftMax", "LogSoftmax"))
def test_openvino_expectations(case):
    check(case)


def softmax_ref(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16, BF16], ids=["f64", "f32", "f16", "bf16"])
@pytest.mark.parametrize("op, version, axis", [("SoftMax", "opset1", 0), ("SoftMax", "opset1", 2),
                                               ("SoftMax", "opset8", -1), ("SoftMax", "opset8", 1),
                                               ("LogSoftmax", "opset5", -3), ("LogSoftmax", "opset5", 2)])
def test_definition(op, version, axis, dtype):
    x = X.astype(dtype)
    out = run_op(op, [x], {"axis": axis}, version=version)[0]
    ref = softmax_ref(x.astype(np.float64), axis)
    if op == "LogSoftmax":
        ref = np.log(ref)
    rtol = 1e-12 if dtype == np.float64 else 1e-6 if dtype == np.float32 else 2 ** -7
    assert out.dtype == np.dtype(dtype)
    np.testing.assert_allclose(out.astype(np.float64), ref, rtol=rtol, atol=rtol * 0.1)


def test_nan_poisons_its_slice_and_inf():
    x = np.array([[1000.0, 1001.0, -np.inf], [np.nan, 0.0, 1.0], [-np.inf, -np.inf, 0.0]], np.float32)
    out = run_op("SoftMax", [x], {"axis": 1}, version="opset8")[0]
    np.testing.assert_allclose(out, [[0.26894143, 0.7310586, 0], [np.nan] * 3, [0, 0, 1]], rtol=1e-6)


def test_axis_errors():
    x = np.ones((2, 3, 4), np.float32)
    raises_for("SoftMax", ShapeError, "Reduction axis (18446744073709551615) is out of bounds (argument shape: "
               "[2,3,4]).", run_op, "SoftMax", [x], {"axis": -1})
    raises_for("SoftMax", ShapeError, "Reduction axis (3) is out of bounds (argument shape: [2,3,4]).",
               run_op, "SoftMax", [x], {"axis": 3})
    raises_for("SoftMax", ShapeError, "Axis 3 out of the tensor rank range [-3, 2].", run_op, "SoftMax", [x],
               {"axis": 3}, version="opset8")
    raises_for("LogSoftmax", ShapeError, "Axis -4 out of the tensor rank range [-3, 2].", run_op, "LogSoftmax",
               [x], {"axis": -4}, version="opset5")
    raises_for("SoftMax", UnsupportedError, "irrun does not support Softmax on i32", run_op, "SoftMax",
               [np.ones((1, 2), np.int32)], version="opset8")


def test_shapes():
    assert shape_str(infer_op("SoftMax", [Param("f32", "?,2..5")], {"axis": -1}, version="opset8")[0]) == "[?,2..5]"
    assert shape_str(infer_op("SoftMax", [Param("f32", "...")], {"axis": 5}, version="opset8")[0]) == "[...]"
    assert run_op("SoftMax", [np.zeros((0, 3), np.float32)], {"axis": 1}, version="opset8")[0].shape == (0, 3)
    assert run_op("SoftMax", [np.zeros((2, 0), np.float32)], {"axis": 1}, version="opset8")[0].shape == (2, 0)
