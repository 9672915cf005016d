"""ONNX forms of the ops that emulate low-precision arithmetic: FakeConvert-13 (f8 rounding)."""
from __future__ import annotations

import numpy as np

from ..types import elements
from .emitter import Call, Emitter, onnx_type, onnx_type_named
from .table import converts

F32 = elements.TYPES["f32"]
F16 = elements.TYPES["f16"]
#: FakeConvert's destination type -> (ONNX float8 type, largest finite value)
_F8 = {"f8e4m3": ("FLOAT8E4M3FN", 448.0), "f8e5m2": ("FLOAT8E5M2", 57344.0)}


@converts("FakeConvert")
def fake_convert(e: Emitter, c: Call) -> None:
    """OpenVINO's CPU arithmetic in f32 (irrun.ops.fake_convert): y = x * scale - shift, rounded
    to the data type once, clamped to +-max (NaN to -max), Cast to f16 then to ONNX's float8
    type (round to nearest even) and back, + shift, * (1 / scale rounded to the data type). A
    constant all-zero shift is left out (so -0.0 stays -0.0)."""
    et = c.in_info[0].etype
    f8, top = _F8[c.op.destination_type.strip()]

    def f32(i: int) -> str:
        return c.inputs[i] if c.in_info[i].etype.name == "f32" else e.cast(c.inputs[i], F32)

    def in_data_type(x: str) -> str:
        return x if et.name == "f32" else e.one("Cast", [e.cast(x, et)], to=onnx_type(F32))

    scale = f32(1)
    shift = None
    if len(c.inputs) > 2:
        value = c.in_info[2].value
        shift = None if value is not None and not np.any(value) else f32(2)
    y = e.one("Mul", [f32(0), scale])
    if shift is not None:
        y = e.one("Sub", [y, shift])
    y = e.one("Clip", [in_data_type(y), e.scalar(-top, F32), e.scalar(top, F32)])
    y = e.where(e.one("IsNaN", [y]), e.scalar(-top, F32), y, F32)
    y = e.one("Cast", [e.one("Cast", [e.cast(y, F16)], to=onnx_type_named(f8))], to=onnx_type(F32))
    if shift is not None:
        y = e.one("Add", [y, shift])
    inverse = in_data_type(e.one("Div", [e.scalar(1, F32), scale]))
    y = e.one("Mul", [y, inverse])
    if et.name == "f32":
        e.one("Identity", [y], c.outputs[0])
    else:
        e.one("Cast", [y], c.outputs[0], to=onnx_type(et))
