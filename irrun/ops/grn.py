"""GRN-1: Global Response Normalization, ``x / sqrt(sum over channels of x^2 + bias)``.

The sum runs over axis 1 (channels) of a 2-D to 4-D input, in f64 for f16/bf16/f32 inputs, the
result in the input's type.
"""
from __future__ import annotations

import numpy as np

from ..errors import OpError
from .base import Attr, Op, TensorInfo, spec_url
from .registry import register


@register
class GRN1(Op):
    """GRN-1; see the module docstring."""
    category = "normalize"

    type, version = "GRN", "opset1"
    spec = spec_url("normalization/grn-1")
    attrs = {"bias": Attr("float", required=True, default=0.0)}
    num_inputs = (1, 1)

    def infer(self, inputs):
        x = inputs[0]
        if x.shape.rank is not None and not 2 <= x.shape.rank <= 4:
            raise OpError(f"Input tensor rank must be 2, 3 or 4 dimensional (actual input shape: {x.shape}).",
                          port="input 0")
        if not (x.etype.is_dynamic or x.etype.is_float):
            raise OpError(f"irrun runs GRN on floating-point data only, not {x.etype}", port="input 0",
                          unsupported=True)
        return [TensorInfo(x.etype, x.shape)]

    def run(self, x):
        w = x.astype(np.float64)
        with np.errstate(all="ignore"):
            return [(w / np.sqrt(np.sum(w * w, axis=1, keepdims=True) + self.bias)).astype(x.dtype)]
