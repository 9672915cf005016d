"""Activations with attributes or extra inputs: Clamp-1, Elu-1, Swish-4, Gelu-2/7, PRelu-1.

The attribute-free activations (ReLU, Sigmoid, HSwish, HSigmoid, Mish) are rows of the unary
table in :mod:`irrun.ops.elementwise`; these share its numerics (:func:`float_math`: f16/bf16
compute in f32 and round once). Measured on OpenVINO 2026.4.1 (tests/fixtures/math_expectations):
Clamp on integers clamps to ``ceil(min)``/``floor(max)`` and lets NaN through; PRelu uses a 1-D
slope per channel (axis 1) when its length is the channel count, else NumPy broadcasting, and
converts a slope of another float type to the data's type; the reference evaluator has no Elu,
Gelu-2 or integer PRelu kernel, so those follow the CPU plugin (integers: f64 math rounded to
nearest even).
"""
from __future__ import annotations

import math

import numpy as np

from ..elements import ElementType
from ..errors import OpError
from ..shapes import PartialShape
from .base import Attr, Op, TensorInfo
from .elementwise import NUMERIC, RESTRICTION, SPECS, erf, float_math, unsupported
from .registry import register


def _check_numeric(op: str, et: ElementType, boolean_msg: str | None = None) -> None:
    if et.is_dynamic:
        return
    if et.name == "boolean" and boolean_msg is not None:
        raise OpError(boolean_msg, port="input 0")
    if et.name not in NUMERIC and et.name != "boolean":
        raise unsupported(op, et)


def _check_float(op: str, et: ElementType, message: str) -> None:
    if not et.is_dynamic and not et.is_float:
        raise OpError(message.format(et), port="input 0")
    if not et.is_dynamic and et.name not in NUMERIC:
        raise unsupported(op, et)


@register
class Clamp1(Op):
    """Clamp-1: ``x < min ? min : x > max ? max : x`` (NaN passes). Integer data clamps to
    ``ceil(min)`` and ``floor(max)`` limited to the type's range (min 0.2, max 0.8 on i32 gives
    1 below and 0 above: the lower bound is applied first).
    Spec: https://docs.openvino.ai/2026/documentation/openvino-ir-format/operation-sets/operation-specs/activation/clamp-1.html"""

    type, version = "Clamp", "opset1"
    spec = SPECS + "activation/clamp-1.html"
    attrs = {"min": Attr("float", required=True), "max": Attr("float", required=True)}
    restrictions = RESTRICTION

    def infer(self, inputs):
        (x,) = inputs
        _check_numeric(self.type, x.etype, f"Input element type must be numeric. Got: {x.etype}")
        if self.min > self.max:
            raise OpError(f"Attribute 'min' must be less or equal than 'max'. Got: {self.min:g} and {self.max:g}")
        return [TensorInfo(x.etype, x.shape)]

    def run(self, x):
        if x.dtype.kind in "iu":
            info = np.iinfo(x.dtype)
            lo, hi = (x.dtype.type(min(max(v, info.min), info.max))
                      for v in (math.ceil(self.min), math.floor(self.max)))
            return [np.where(x < lo, lo, np.where(x > hi, hi, x))]
        lo, hi = (np.asarray(v, dtype=x.dtype) for v in (self.min, self.max))  # rounded to the type
        return [float_math(lambda v, a, b: np.where(v < a, a, np.where(v > b, b, v)), x, lo, hi)]


@register
class Elu1(Op):
    """Elu-1: ``x > 0 ? x : alpha * (exp(x) - 1)``. OpenVINO's reference evaluator has no Elu
    kernel; the CPU plugin is the oracle: integers compute in f64 and round to nearest even,
    booleans pass unchanged.
    Spec: https://docs.openvino.ai/2026/documentation/openvino-ir-format/operation-sets/operation-specs/activation/elu-1.html"""

    type, version = "Elu", "opset1"
    spec = SPECS + "activation/elu-1.html"
    attrs = {"alpha": Attr("float", required=True)}
    restrictions = RESTRICTION

    def infer(self, inputs):
        (x,) = inputs
        _check_numeric(self.type, x.etype)
        return [TensorInfo(x.etype, x.shape)]

    def _elu(self, v):
        return np.where(v > 0, v, self.alpha * np.expm1(np.minimum(v, 0)))

    def run(self, x):
        if x.dtype == np.bool_:
            return [x]
        if x.dtype.kind in "iu":
            return [np.rint(self._elu(x.astype(np.float64))).astype(x.dtype)]
        return [float_math(self._elu, x)]


@register
class Swish4(Op):
    """Swish-4: ``x / (1 + exp(-x * beta))``, ``beta`` an optional scalar input (default 1.0)
    of the data's floating-point type.
    Spec: https://docs.openvino.ai/2026/documentation/openvino-ir-format/operation-sets/operation-specs/activation/swish-4.html"""

    type, version = "Swish", "opset4"
    spec = SPECS + "activation/swish-4.html"
    num_inputs = (1, 2)
    restrictions = RESTRICTION

    def infer(self, inputs):
        x = inputs[0]
        _check_float(self.type, x.etype, "Swish input tensor must be floating point type({}).")
        if len(inputs) == 2:
            beta = inputs[1]
            if beta.shape.rank not in (None, 0):
                raise OpError(f"Swish input with beta must be scalar but it has rank: {beta.shape.rank}",
                              port="input 1")
            if not (x.etype.is_dynamic or beta.etype.is_dynamic) and x.etype != beta.etype:
                raise OpError(f"Swish inputs must have the same type but they are: {x.etype} and {beta.etype}",
                              port="input 1")
        return [TensorInfo(x.etype, x.shape)]

    def run(self, x, beta=None):
        b = np.float64(1.0) if beta is None else beta
        return [float_math(lambda v, bb: v / (1 + np.exp(-v * bb)), x, np.asarray(b, dtype=x.dtype))]


def gelu_erf(v: np.ndarray) -> np.ndarray:
    """In f64, like the tanh form: OpenVINO keeps the tiny negative tail (-8e-11 at x = -6)."""
    x = v.astype(np.float64)
    return (0.5 * x * (1.0 + erf(x * (1 / math.sqrt(2))))).astype(v.dtype)


def gelu_tanh(v: np.ndarray) -> np.ndarray:
    x = v.astype(np.float64)
    return (0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))).astype(v.dtype)


_GELU_TYPES = "Argument element type must be f16, bf16, f32, f64 or dynamic (got {})."


@register
class Gelu2(Op):
    """Gelu-2: ``0.5 * x * (1 + erf(x / sqrt(2)))`` (erf in f64). No reference kernel in
    OpenVINO (the CPU plugin is the oracle).
    Spec: https://docs.openvino.ai/2026/documentation/openvino-ir-format/operation-sets/operation-specs/activation/gelu-2.html"""

    type, version = "Gelu", "opset2"
    spec = SPECS + "activation/gelu-2.html"
    restrictions = RESTRICTION
    approximation_mode = "erf"

    def infer(self, inputs):
        (x,) = inputs
        _check_float(self.type, x.etype, _GELU_TYPES)
        return [TensorInfo(x.etype, x.shape)]

    def run(self, x):
        return [float_math(gelu_erf if self.approximation_mode == "erf" else gelu_tanh, x)]


@register
class Gelu7(Gelu2):
    """Gelu-7: ``approximation_mode`` ``erf`` (default) or ``tanh``:
    ``0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x**3)))``.
    Spec: https://docs.openvino.ai/2026/documentation/openvino-ir-format/operation-sets/operation-specs/activation/gelu-7.html"""

    version = "opset7"
    spec = SPECS + "activation/gelu-7.html"
    attrs = {"approximation_mode": Attr("enum", "erf", choices=("erf", "tanh"))}


def prelu_slope_shape(data: PartialShape, slope: PartialShape) -> tuple[int, ...] | None:
    """The shape the slope takes against static ``data``/``slope`` shapes: ``[1, C, 1...]`` for a
    1-D slope of the channel count (axis 1, or 0 for 1-D data), else the slope's own shape, which
    must broadcast to the data shape (leading 1s beyond its rank allowed). OpenVINO accepts any
    slope and then reads past its end; irrun refuses. None when a shape is not static yet."""
    if not (data.is_static and slope.is_static):
        return None
    d, s = data.to_tuple(), slope.to_tuple()
    ch = 1 if len(d) > 1 else 0
    if len(s) == 1 and len(d) > 0 and d[ch] == s[0]:
        return tuple(s[0] if i == ch else 1 for i in range(len(d)))
    extra = len(s) - len(d)
    if extra > 0 and all(v == 1 for v in s[:extra]):
        s = s[extra:]
    if len(s) > len(d) or any(b not in (1, a) for a, b in zip(d[len(d) - len(s):], s)):
        raise OpError(f"PRelu slope shape {slope} does not broadcast to the data shape {data} "
                      "(OpenVINO accepts it and reads past the end of the slope)", port="input 1",
                      openvino_loads=True)
    return s


@register
class PRelu1(Op):
    """PRelu-1 (written ``PReLU``): ``x < 0 ? x * slope : x``; see :func:`prelu_slope_shape`.
    Integers (no reference kernel; the CPU plugin) multiply exactly.
    Spec: https://docs.openvino.ai/2026/documentation/openvino-ir-format/operation-sets/operation-specs/activation/prelu-1.html"""

    type, version = "PRelu", "opset1"
    spec = SPECS + "activation/prelu-1.html"
    num_inputs = (2, 2)
    restrictions = RESTRICTION

    def infer(self, inputs):
        x, slope = inputs
        for t in inputs:
            _check_numeric(self.type, t.etype, f"This operation does not support input with element type: {t.etype}")
        prelu_slope_shape(x.shape, slope.shape)
        return [TensorInfo(x.etype, x.shape)]

    def run(self, x, slope):
        s = slope.reshape(prelu_slope_shape(PartialShape(x.shape), PartialShape(slope.shape)))
        s = s.astype(x.dtype, copy=False)
        if x.dtype.kind in "iu":
            with np.errstate(over="ignore"):
                return [np.where(x < 0, x * s, x)]
        return [float_math(lambda v, k: np.where(v < 0, v * k, v), x, np.broadcast_to(s, x.shape))]
