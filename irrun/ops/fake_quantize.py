"""FakeQuantize-1: element-wise quantization of floats onto ``levels`` steps, kept in floating point.


Measured on OpenVINO 2026.4.1 (tests/fixtures/attention_quantize_movement_expectations,
tools/expectations/make_attention_quantize_movement_expectations.py):

* The reference kernel (``Node.evaluate``; ConstantFolding never folds FakeQuantize) computes the
  spec formula literally in f32, rounding half to even (``std::nearbyint``):
  ``x <= min(il, ih) ? ol : x > max(il, ih) ? oh :
  rint((x - il) / (ih - il) * (levels-1)) / (levels-1) * (oh - ol) + ol``.
  f16 and bf16 give exactly that f32 result rounded once (checked on every f16 in [-5, 5]).
  irrun computes exactly this (f64 data in f64: OpenVINO has no f64 reference kernel).
* The CPU plugin computes ``rint(clamp(x) * scale + shift) * scale' + shift'``: within an ulp of
  the reference in f32, a whole step apart now and then in f16 (ties after rounding), and it
  differs where the formula has no step: NaN data gives ``output_low`` (the reference: NaN),
  ``input_low == input_high`` gives NaN everywhere (the reference: ``ol`` at or below, ``oh``
  above), and bf16 data comes back unchanged. irrun follows the reference there.
* Shape rule: each limit is broadcast-merged (numpy/pdpd) or merged (none) into the data shape in
  turn ("Argument shapes are inconsistent."); the output has the data's shape. OpenVINO accepts
  limits *larger* than the data (the reference reads part of them, the CPU plugin corrupts its
  heap), ``levels`` below 2 (division by zero) and limits of another element type than the data
  (read as the data's type), and integer data: irrun refuses all four.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..errors import OpError
from ..types.shapes import PartialShape
from ._broadcast import AUTO_BROADCAST, broadcast_shapes
from ._numerics import NUMERIC, float_math, unsupported
from .base import Attr, Op, Precision, TensorInfo, spec_url
from .registry import register

_LIMITS = ("input_low", "input_high", "output_low", "output_high")


def limit_shape(data: PartialShape, limit: PartialShape, mode: str, port: str) -> tuple[int, ...] | None:
    """The shape a limit is viewed with to broadcast against the data (NumPy rules), checking
    that it broadcasts *to* the data's shape (leading 1s beyond the data's rank allowed);
    None until both shapes are static. With pdpd only limits of one element or of the data's
    own shape (OpenVINO's evaluators disagree on the others)."""
    if not (data.is_static and limit.is_static):
        return None
    d, s = data.to_tuple(), limit.to_tuple()
    if mode == "pdpd" and int(np.prod(s)) != 1 and s != d:
        raise OpError(f"irrun does not support FakeQuantize with auto_broadcast pdpd and a limit of "
                      f"shape {limit} for data of shape {data}", port=port, unsupported=True)
    extra = len(s) - len(d)
    if extra > 0 and all(v == 1 for v in s[:extra]):
        s = s[extra:]
    if len(s) > len(d) or any(b not in (1, a) for a, b in zip(d[len(d) - len(s):], s)):
        raise OpError(f"the limit's shape {limit} does not broadcast to the data shape {data} "
                      "(OpenVINO keeps the data's shape and reads part of the limit)", port=port,
                      openvino_loads=True)
    return s


def fake_quantize(x: np.ndarray, il: np.ndarray, ih: np.ndarray, ol: np.ndarray, oh: np.ndarray,
                  levels: int) -> np.ndarray:
    """The reference formula, in f32 (f64 for f64 data), rounded once to the data's type."""
    def kernel(v, a, b, c, d):
        steps = v.dtype.type(levels - 1)
        q = np.rint((v - a) / (b - a) * steps) / steps * (d - c) + c
        return np.where(v <= np.minimum(a, b), c, np.where(v > np.maximum(a, b), d, q))
    return float_math(kernel, x, il, ih, ol, oh)


@register
class FakeQuantize1(Op):
    """FakeQuantize-1; see the module docstring for the rounding and what irrun refuses."""
    category = "elementwise"
    precision = Precision.INSERTED

    type, version = "FakeQuantize", "opset1"
    spec = spec_url("quantization/fake-quantize-1")
    attrs = {"levels": Attr("int", required=True), "auto_broadcast": AUTO_BROADCAST}
    num_inputs = (5, 5)
    restrictions = ("floating-point data only (no f8); auto_broadcast pdpd only with limits of one "
                    "element or of the data's shape")

    def _mode(self) -> str:
        return "none" if self.auto_broadcast == "explicit" else self.auto_broadcast

    def infer(self, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
        x = inputs[0]
        if not x.etype.is_dynamic and (not x.etype.is_float or x.etype.name not in NUMERIC):
            raise unsupported(self.type, x.etype)
        if self.levels < 2:
            raise OpError(f"levels must be at least 2, got {self.levels} (OpenVINO divides by "
                          "levels - 1)", openvino_loads=True)
        merged = x.shape
        for i, lim in enumerate(inputs[1:], 1):
            if not (lim.etype.is_dynamic or x.etype.is_dynamic) and lim.etype != x.etype:
                raise OpError(f"{_LIMITS[i - 1]} is {lim.etype}, the data {x.etype} (OpenVINO accepts "
                              "it and reads the limit's bytes as the data's type)", port=f"input {i}",
                              openvino_loads=True)
            try:
                merged = broadcast_shapes(merged, lim.shape, self._mode())
            except OpError as e:
                raise OpError(e.message, port=f"input {i}") from None
            limit_shape(x.shape, lim.shape, self._mode(), f"input {i}")
        etype = next((t.etype for t in inputs if not t.etype.is_dynamic), x.etype)
        return [TensorInfo(etype, x.shape)]

    def run(self, x, *limits):
        data = PartialShape(x.shape)
        views = [lim.reshape(limit_shape(data, PartialShape(lim.shape), self._mode(), f"input {i}"))
                 for i, lim in enumerate(limits, 1)]
        return [fake_quantize(x, *views, self.levels)]
