"""BinaryConvolution-1: a 2-D convolution of binary data with a binary (u1) kernel, by
XNOR and popcount.

``Output = 2 * popcount(XNOR(patch, kernel)) - bits``: with data bit ``x > 0`` (the spec's inputs
are 0/1; for other values this is the CPU plugin's rule, measured) and the kernel's u1 bits as
OpenVINO's u1 element type defines them (element 0 in a byte's most significant bit — what the
reference kernel reads), it is the ordinary convolution of the +-1 values, the padding being the
binarised ``pad_value``. Shape rule and pads as Convolution-1.

OpenVINO's CPU plugin reads the kernel's bytes least significant bit first, against its own u1
layout, so its results differ from the reference kernel's and irrun's on any kernel whose bytes
are not bit-palindromes; the tests follow the spec's formula (tests/ops/test_binary_convolution.py).
"""
from __future__ import annotations

import numpy as np

from ..errors import OpError
from ..types.shapes import Dim
from ._conv import CONV_ATTRS, DenseConvolution, conv_kernel
from ._window import pad_spatial
from .base import Attr, Precision, TensorInfo, spec_url
from .registry import register


@register
class BinaryConvolution1(DenseConvolution):
    """BinaryConvolution-1; see the module docstring."""
    precision = Precision.NONE        # not among the CPU plugin's precision-significant ops

    type, version = "BinaryConvolution", "opset1"
    spec = spec_url("convolution/binary-convolution-1")
    attrs = {**CONV_ATTRS, "mode": Attr("enum", required=True, default="xnor-popcount", choices=("xnor-popcount",)),
             "pad_value": Attr("float", required=True, default=0.0)}

    def infer(self, inputs):
        data, filters = inputs
        if not (filters.etype.is_dynamic or filters.etype.name == "u1"):
            raise OpError(f"The filters of BinaryConvolution must be u1. Got: {filters.etype}", port="input 1")
        if data.shape.rank not in (None, 4):
            raise OpError(f"Expected 4D for the input. Got: {data.shape}", port="input 0")
        if not (data.etype.is_dynamic or data.etype.is_float or data.etype.is_integer):
            raise OpError(f"Data batch element type must be numeric. Got: {data.etype}", port="input 0")
        return super().infer([data, TensorInfo(data.etype, filters.shape)])   # (the u1 kernel is not the data type)

    def run(self, x, w):
        if x.shape[1] != w.shape[1]:
            raise OpError(f"Data batch channel count ({x.shape[1]}) does not match filter input channel count "
                          f"({w.shape[1]}).", port="input 1")
        pb, pe, _ = self.geometry([Dim.of(n) for n in x.shape[2:]], [Dim.of(n) for n in w.shape[2:]])
        xs = np.where(x > 0, 1.0, -1.0)
        xs = pad_spatial(xs, pb, pe, 1.0 if self.pad_value > 0 else -1.0)
        ws = np.where(w > 0, 1.0, -1.0)[None]
        out = conv_kernel(xs, ws, self.strides, self.dilations, [0, 0], [0, 0])
        return [out.astype(x.dtype)]
