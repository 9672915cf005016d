"""Convert-1: element-wise type conversion. Spec: https://docs.openvino.ai/2026/documentation/openvino-ir-format/operation-sets/operation-specs/type/convert-1.html"""
from __future__ import annotations

import numpy as np

from ..elements import NF4_TABLE
from ..errors import OpError
from .base import Attr, Op, TensorInfo
from .registry import register

_NO_TARGET = {"u1", "u2", "u3", "u6", "nf4", "string", "dynamic"}


@register
class Convert(Op):
    """Floats to integers truncate toward zero, then wrap modulo 2^N like integers do (measured
    on OpenVINO 2026.4.1: f32 -300.2 -> u8 212, -> i8 -44); negative integers wrap into unsigned
    types (C++ rules, as the spec says); out-of-range floats to i32/i64 are undefined in the spec; anything to boolean is ``x != 0``; nf4 codes decode through
    the NF4 table (the weight-decompression pattern Const(nf4) -> Convert -> Multiply)."""

    type, version = "Convert", "opset1"
    spec = "https://docs.openvino.ai/2026/documentation/openvino-ir-format/operation-sets/operation-specs/type/convert-1.html"
    attrs = {"destination_type": Attr("etype", required=True)}
    restrictions = "no conversion to u1/u2/u3/u6/nf4/string"

    def infer(self, inputs):
        (x,) = inputs
        if self.destination_type.name in _NO_TARGET:
            raise OpError(f"irrun does not support Convert to {self.destination_type}", unsupported=True)
        if x.etype.name == "string":
            raise OpError("irrun does not support Convert from string", unsupported=True)
        self.source_type = x.etype  # nf4 arrays hold codes: run() must know to decode them
        return [TensorInfo(self.destination_type, x.shape)]

    def run(self, x):
        dst = self.destination_type
        if getattr(self, "source_type", None) is not None and self.source_type.name == "nf4":
            x = NF4_TABLE[x]
        if x.dtype == dst.dtype:
            return [x]
        if dst.name == "boolean":
            return [x != 0]
        if dst.dtype.kind in "iu" and x.dtype.kind not in "iub":   # any float type -> integer
            with np.errstate(invalid="ignore"):
                t = np.trunc(x.astype(np.float64))
                # then wraps like integers; NaN -> INT_MIN of a 32/64-bit target, 0 of a narrower one
                x = t.astype(np.int32) if dst.dtype.itemsize == 4 else t.astype(np.int64)
        elif dst.name == "f16" and x.dtype.kind in "iu":
            x = np.clip(x, -65504, 65504)        # OpenVINO saturates integers to f16's range
        return [x.astype(dst.dtype)]
