"""Inverse-14: the inverse of each square matrix in the last two dims (or of its transpose with
``adjoint``; the inputs are real).

Spec: https://docs.openvino.ai/2026/documentation/openvino-ir-format/operation-sets/operation-specs/matrix/inverse-14.html

Computed by LU with partial pivoting in f64 (NumPy's ``inv``), the result in the input's type. A
singular matrix has no inverse: OpenVINO's reference LU divides by the zero pivot and returns
inf/NaN; irrun does the same (NaN-filled inverse) rather than guess.
"""
from __future__ import annotations

import numpy as np

from ..errors import OpError
from .base import Attr, Op, TensorInfo
from .registry import register


@register
class Inverse(Op):
    """Inverse-14; see the module docstring."""

    type, version = "Inverse", "opset14"
    spec = "https://docs.openvino.ai/2026/documentation/openvino-ir-format/operation-sets/operation-specs/matrix/inverse-14.html"
    attrs = {"adjoint": Attr("bool", False)}
    num_inputs = (1, 1)

    def infer(self, inputs):
        x = inputs[0]
        if not (x.etype.is_dynamic or x.etype.name in ("f32", "f16", "bf16", "f64")):
            raise OpError(f"Expected floating point type as element type for the 'data' input. Got: {x.etype}",
                          port="input 0")
        if x.shape.rank is not None:
            if x.shape.rank < 2:
                raise OpError(f"Input must be at least a 2D matrix. Got: {x.shape}", port="input 0")
            if x.shape[-1].intersect(x.shape[-2]) is None:
                raise OpError("Input must contain square matrices of the same shape.", port="input 0")
        return [TensorInfo(x.etype, x.shape)]

    def run(self, x):
        a = x.astype(np.float64)
        if self.adjoint:
            a = np.swapaxes(a, -1, -2)
        out = np.empty_like(a)
        flat, res = a.reshape(-1, *a.shape[-2:]), out.reshape(-1, *a.shape[-2:])
        for i, m in enumerate(flat):
            try:
                res[i] = np.linalg.inv(m)
            except np.linalg.LinAlgError:
                res[i] = np.nan
        return [out.astype(x.dtype)]
