"""FakeConvert-13: round a tensor to the values of an 8-bit float type (f8e4m3 or f8e5m2) in its
own type, with an affine scale/shift around the rounding.

``y = x * scale - shift``, rounded to ``destination_type`` and back, then ``(y + shift) / scale``
— as OpenVINO's CPU plugin computes it (measured on OpenVINO 2026.4.1, every f16 value and the
edges in tests/fixtures/trig_bitwise_dft_sampling_expectations), which is also what ONNX QuantizeLinear to float8
converts to:

* the arithmetic is f32; for f16/bf16 data ``x * scale - shift`` is rounded to the data type
  once (a bf16 43.9375 becomes 44, a tie that f8e5m2 rounds to 48); the rounding then goes
  through f16, then to the nearest f8 value (ties to even, subnormals kept: 0.001 -> 2**-9 for
  f8e4m3);
* values beyond the type saturate to +-448 (f8e4m3) / +-57344 (f8e5m2), infinities too, and
  NaN becomes -448 / -57344 (the CPU plugin's ``min(max(y, -max), max)``);
* the inverse scale is ``y * (1 / scale)``, ``1 / scale`` rounded to the data type; an all-zero
  shift is left out (so -0.0 stays -0.0).

The reference kernel differs: it flushes f8e4m3 values below 2**-9 to zero, maps NaN to 448
(f8e4m3) or NaN (f8e5m2), and divides by the scale. Data must be f32, f16 or bf16; scale and
shift of the same type, numpy-broadcastable into the data shape (unidirectionally).
"""
from __future__ import annotations

from typing import Type

import ml_dtypes
import numpy as np

from ..errors import OpError
from ..types.shapes import PartialShape
from ._broadcast import broadcast_shapes
from .base import Attr, Op, TensorInfo, spec_url
from .registry import register

_TARGETS = {"f8e4m3": (448.0, ml_dtypes.float8_e4m3fn), "f8e5m2": (57344.0, ml_dtypes.float8_e5m2)}
_DATA = frozenset({"f32", "f16", "bf16"})


def fake_convert_shape(data: PartialShape, scale: PartialShape, shift: PartialShape | None) -> PartialShape:
    """The output shape with OpenVINO's checks (fake_convert_shape_inference.hpp)."""
    if shift is not None and not scale.compatible(shift):
        raise OpError("FakeConvert scale shape is not compatible with shift shape.", port="input 2")
    out = broadcast_shapes(data, scale, "numpy")
    if not data.compatible(out):
        raise OpError("FakeConvert support only unidirectional broadcasting, inputs cannot be broadcast "
                      "into data.", port="input 1")
    return out


@register
class FakeConvert13(Op):
    """Inputs: data, scale, optional shift (all f32, f16 or bf16)."""
    category = "elementwise"

    type, version = "FakeConvert", "opset13"
    spec = spec_url("quantization/fake-convert-13")
    attrs = {"destination_type": Attr("str", "f8e4m3", required=True)}
    num_inputs = (2, 3)
    fresh_outputs = True

    def _target(self) -> tuple[float, Type[np.generic]]:      # (``type`` here: the op's name)
        t = _TARGETS.get(self.destination_type.strip())
        if t is None:
            raise OpError(f"Bad format for f8 conversion type: {self.destination_type}")
        return t

    def infer(self, inputs):
        self._target()
        et = inputs[0].etype
        if not (et.is_dynamic or et.name in _DATA):
            raise OpError(f"The element type of the input tensor must be a bf16, f16, f32 but got: {et}", port="input 0")
        if any(not (i.etype.is_dynamic or et.is_dynamic) and i.etype != et for i in inputs[1:]):
            raise OpError("Mixed input types are not supported.", port="input 1")
        shift = inputs[2].shape if len(inputs) > 2 else None
        return [TensorInfo(et, fake_convert_shape(inputs[0].shape, inputs[1].shape, shift))]

    def run(self, x, scale, shift=None):
        top, f8 = self._target()
        out_shape = fake_convert_shape(PartialShape(x.shape), PartialShape(scale.shape),
                                       None if shift is None else PartialShape(shift.shape)).to_tuple()
        f32 = np.float32
        s = scale.astype(f32)
        h = shift.astype(f32) if shift is not None and np.any(shift) else None
        with np.errstate(all="ignore"):
            y = x.astype(f32) * s
            if h is not None:
                y = y - h
            y = y.astype(x.dtype).astype(f32)             # (f16/bf16: rounded to the data type once)
            y = np.minimum(np.maximum(y, f32(-top)), f32(top))
            y = np.where(np.isnan(y), f32(-top), y)
            y = y.astype(np.float16).astype(f8).astype(f32)
            if h is not None:
                y = y + h
            y = y * (f32(1) / s).astype(x.dtype).astype(f32)
        return [np.broadcast_to(y, out_shape).astype(x.dtype)]
