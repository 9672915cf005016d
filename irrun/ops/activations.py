"""Activations with attributes or extra inputs: Clamp-1, Elu-1, Swish-4, Gelu-2/7, PRelu-1,
HardSigmoid-1, Selu-1, SoftPlus-4, SoftSign-9, and Identity-16.

The attribute-free activations (ReLU, Sigmoid, HSwish, HSigmoid, Mish) are rows of the unary
table in :mod:`irrun.ops.elementwise`; these share its numerics (:func:`float_math`: f16/bf16
compute in f32 and round once). Measured on OpenVINO 2026.4.1 (tests/fixtures/math_expectations):
Clamp on integers clamps to ``ceil(min)``/``floor(max)`` and lets NaN through; PRelu uses a 1-D
slope per channel (axis 1) when its length is the channel count, else NumPy broadcasting, and
converts a slope of another float type to the data's type; the reference evaluator has no Elu,
Gelu-2 or integer PRelu kernel, so those follow the CPU plugin (integers: f64 math rounded to
nearest even). HardSigmoid, Selu and Identity have no reference kernel either (the CPU plugin is
the oracle, which also fails when alpha/beta/lambda are Parameters; irrun runs them); the CPU
plugin's integer HardSigmoid is not the formula, so irrun refuses integers there.
"""
from __future__ import annotations

import math

import ml_dtypes
import numpy as np

from ..errors import OpError
from ..types.elements import ElementType
from ..types.shapes import PartialShape
from ._numerics import (
    CLIP,
    DIRECT,
    NUMERIC,
    RESTRICTION,
    check_float,
    clip_is_clamp,
    fits,
    float_math,
    put_zero_signs,
    ties_keep_second,
    unsupported,
    zero_signs,
)
from .base import Attr, Op, TensorInfo, spec_url
from .registry import register


def _check_numeric(op: str, et: ElementType, boolean_msg: str | None = None) -> None:
    if et.is_dynamic:
        return
    if et.name == "boolean" and boolean_msg is not None:
        raise OpError(boolean_msg, port="input 0")
    if et.name not in NUMERIC and et.name != "boolean":
        raise unsupported(op, et)


@register
class Clamp1(Op):
    """Clamp-1: ``x < min ? min : x > max ? max : x`` (NaN passes). Integer data clamps to
    ``ceil(min)`` and ``floor(max)`` limited to the type's range (min 0.2, max 0.8 on i32 gives
    1 below and 0 above: the lower bound is applied first)."""
    category = "elementwise"
    allocation = "inputs"        # irrun/ops/base.py: Op.allocation

    type, version = "Clamp", "opset1"
    spec = spec_url("activation/clamp-1")
    attrs = {"min": Attr("float", required=True), "max": Attr("float", required=True)}
    restrictions = RESTRICTION
    inplace = (0,)
    fresh_outputs = True

    def infer(self, inputs):
        (x,) = inputs
        _check_numeric(self.type, x.etype, f"Input element type must be numeric. Got: {x.etype}")
        if not self.min <= self.max:     # NaN fails it too, as in OpenVINO
            raise OpError(f"Attribute 'min' must be less or equal than 'max'. Got: {self.min:g} and {self.max:g}")
        return [TensorInfo(x.etype, x.shape)]

    def run(self, x, out=None):
        if x.dtype.kind in "iu":
            info = np.iinfo(x.dtype)
            lo, hi = (x.dtype.type(min(max(f(max(min(v, 2.0**64), -2.0**64)), info.min), info.max))
                      for v, f in ((self.min, math.ceil), (self.max, math.floor)))  # +-inf saturate
            return [np.where(x < lo, lo, np.where(x > hi, hi, x))]
        lo, hi = (np.asarray(v, dtype=x.dtype) for v in (self.min, self.max))  # rounded to the type
        if x.dtype in DIRECT:        # max/min pass NaN like the comparisons; zero ties keep x's sign
            out = out if fits(out, x) else np.empty_like(x)   # (a 0-d result of out=None is a scalar)
            if clip_is_clamp(x.dtype):
                return [CLIP(x, lo, hi, out=out)]
            if ties_keep_second(x.dtype):
                y = np.maximum(lo, x, out=out)
                return [np.minimum(hi, y, out=y)]
            signs = zero_signs(x) if lo == 0 or hi == 0 else None
            y = np.maximum(x, lo, out=out)
            return [put_zero_signs(np.minimum(y, hi, out=y), signs)]
        return [float_math(lambda v, a, b: np.where(v < a, a, np.where(v > b, b, v)), x, lo, hi)]


@register
class Elu1(Op):
    """Elu-1: ``x > 0 ? x : alpha * (exp(x) - 1)``. OpenVINO's reference evaluator has no Elu
    kernel; the CPU plugin is the oracle: integers compute in f64 and round to nearest even,
    booleans pass unchanged."""
    category = "elementwise"
    allocation = "inputs"        # irrun/ops/base.py: Op.allocation

    type, version = "Elu", "opset1"
    spec = spec_url("activation/elu-1")
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
    of the data's floating-point type."""
    category = "elementwise"
    allocation = "inputs"        # irrun/ops/base.py: Op.allocation

    type, version = "Swish", "opset4"
    spec = spec_url("activation/swish-4")
    num_inputs = (1, 2)
    restrictions = RESTRICTION

    def infer(self, inputs):
        x = inputs[0]
        check_float(self.type, x.etype, "Swish input tensor must be floating point type({}).")
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
        return [float_math(_swish, x, np.asarray(b, dtype=x.dtype), into=True)]


def _swish(v: np.ndarray, beta: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """``v / (1 + exp(-v * beta))`` in one temporary, updated in place (4 passes, no other
    allocation: YOLOv8's Swish layers are ~9% of yolov8n-int8's time); ``v * -beta`` is
    ``-v * beta`` bit for bit (negation is exact). The temporary is ``out`` when given
    (float_math's ``into``: f32/f64 blocks computed in the result itself, no copy of them —
    [1, 16, 320, 320] 1.66 -> 1.34 ms; the same operations in the same order: the same bits).
    ``out`` is never ``v``: Swish is not run in place (``v`` is read by the last pass)."""
    t = np.asarray(np.multiply(v, -beta, out=out))
    np.exp(t, out=t)
    t += 1
    return np.divide(v, t, out=t)


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
    Integers (no reference kernel; the CPU plugin) multiply exactly."""
    category = "elementwise"

    allocation = "inputs"        # irrun/ops/base.py: Op.allocation
    inplace = (0,)
    fresh_outputs = True

    type, version = "PRelu", "opset1"
    spec = spec_url("activation/prelu-1")
    num_inputs = (2, 2)
    restrictions = RESTRICTION

    def infer(self, inputs):
        x, slope = inputs
        for t in inputs:
            _check_numeric(self.type, t.etype, f"This operation does not support input with element type: {t.etype}")
        prelu_slope_shape(x.shape, slope.shape)
        return [TensorInfo(x.etype, x.shape)]

    def run(self, x, slope, out=None):
        memo = self.__dict__.get("_slope_memo")
        if memo is not None and memo[0] is slope and memo[1] == x.shape and memo[2] == x.dtype:
            s, kernel = memo[3], memo[4]
        else:
            s = slope.reshape(prelu_slope_shape(PartialShape(x.shape), PartialShape(slope.shape)))
            s = s.astype(x.dtype, copy=False)
            kernel = None if x.dtype.kind in "iu" else _prelu_kernel(s)
            if not slope.flags.writeable:   # a constant slope (the usual case): decided once, not per run
                self._slope_memo = (slope, x.shape, x.dtype, s, kernel)
        if kernel is None:
            with np.errstate(over="ignore"):
                return [np.where(x < 0, x * s, x)]
        return [float_math(kernel, x, s, out=out, into=getattr(kernel, "into", False))]


def _prelu_kernel(slope: np.ndarray):
    """PRelu's element-wise kernel for this slope. ``x < 0 ? x * k : x`` is a masked select,
    3-5x slower than an arithmetic pass; a slope in ``(0, 1]`` gives the same bits as
    ``max(x, x * k)`` and a finite one >= 1 as ``min(x, x * k)`` (both return one of their
    operands: ``x * k`` for negative ``x``, ``x`` otherwise, the signs of zeros, infinities and
    NaN kept; a zero slope would turn ``inf`` into NaN), so the usual slopes take two in-place
    passes. A finite negative slope (landmarks-regression-retail-0009: -0.05 to -0.16) is
    ``max(x, x * k)`` too (the product has the other sign), except for zeros: ``x * k`` is a
    zero of the other sign and NumPy's maximum of two zeros returns the second, so zeros are
    put back from ``x`` (one comparison and a masked copy that almost never writes: 13 vs
    44 us on [1, 16, 48, 48] for the select)."""
    with np.errstate(invalid="ignore"):
        k = slope.astype(np.float64)
        plain = np.isfinite(k) & (k != 0)
        pick: np.ufunc
        if k.size and np.all(plain & (k <= 1)):
            pick = np.maximum
        elif k.size and np.all(plain & (k >= 1)):
            pick = np.minimum
        else:
            return lambda v, k: np.where(v < 0, v * k, v)
        negative = bool(np.any(k < 0))

    def picked(v: np.ndarray, k: np.ndarray) -> np.ndarray:
        q = np.asarray(np.multiply(v, k))     # (0-d data: an array, not a scalar)
        q = pick(v, q, out=q)
        np.copyto(q, v, where=v == 0)
        return q

    def picked_into(v: np.ndarray, k: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        # a slope >= 0: written straight into the result block (float_math's ``into``; ``out``
        # may be ``v`` itself, read by the same pass), no copy of a temporary. Zeros tie with
        # zeros of their own sign (a zero times a positive slope), NaN with its own NaN: the
        # same bits (tests/ops/test_activations.py, in place and in blocks).
        return np.asarray(pick(v, np.multiply(v, k), out=out))
    if negative:
        return picked
    picked_into.into = True                   # type: ignore[attr-defined]
    return picked_into


def _scalar_input(info: TensorInfo, name: str, port: str, one_element: bool = False) -> None:
    """HardSigmoid's alpha/beta must be scalars; Selu's alpha/lambda one element (OpenVINO accepts
    more and cycles through them element by element; irrun refuses)."""
    s = info.shape
    if not one_element:
        if s.rank not in (None, 0):
            raise OpError(f"A scalar is expected for the '{name}' input. Got: {s}", port=port)
    elif s.is_static and math.prod(s.to_tuple()) != 1:
        raise OpError(f"the '{name}' input has {math.prod(s.to_tuple())} elements, not one (OpenVINO "
                      "cycles through them element by element)", port=port, openvino_loads=True)


@register
class HardSigmoid1(Op):
    """HardSigmoid-1: ``max(0, min(1, alpha * x + beta))`` with scalar inputs ``alpha`` and
    ``beta`` of the data's type (NaN gives 1: ``std::min(1, NaN)`` is 1)."""
    category = "elementwise"
    allocation = "inputs"        # irrun/ops/base.py: Op.allocation

    type, version = "HardSigmoid", "opset1"
    spec = spec_url("activation/hard-sigmoid-1")
    num_inputs = (3, 3)
    restrictions = "floating-point data only (OpenVINO's CPU plugin also takes integers)"

    def infer(self, inputs):
        x, alpha, beta = inputs
        if not x.etype.is_dynamic and (not x.etype.is_float or x.etype.name not in NUMERIC):
            raise OpError(f"irrun does not support HardSigmoid on {x.etype} (f64/f32/f16/bf16 only)",
                          port="input 0", unsupported=True)
        _scalar_input(alpha, "alpha", "input 1")
        _scalar_input(beta, "beta", "input 2")
        if any(not (t.etype.is_dynamic or x.etype.is_dynamic) and t.etype != x.etype for t in (alpha, beta)):
            raise OpError("The element types of both alpha and beta inputs must match the data input type.",
                          port="input 1")
        return [TensorInfo(x.etype, x.shape)]

    def run(self, x, alpha, beta):
        def hard_sigmoid(v, a, b):
            y = a * v + b
            return np.where(y > 0, np.where(y < 1, y, 1), np.where(np.isnan(y), 1, 0)).astype(v.dtype)
        return [float_math(hard_sigmoid, x, alpha, beta)]


@register
class Selu1(Op):
    """Selu-1: ``lambda * (x > 0 ? x : alpha * (exp(x) - 1))``, alpha and lambda one-element inputs
    of the data's floating-point type."""
    category = "elementwise"
    allocation = "inputs"        # irrun/ops/base.py: Op.allocation

    type, version = "Selu", "opset1"
    spec = spec_url("activation/selu-1")
    num_inputs = (3, 3)
    restrictions = RESTRICTION

    def infer(self, inputs):
        x, alpha, lam = inputs
        known = [t.etype for t in inputs if not t.etype.is_dynamic]
        if any(t != known[0] for t in known):
            raise OpError("Input element types do not match : " + " and ".join(str(t.etype) for t in inputs))
        if known and not known[0].is_float:
            raise OpError(f"Input element types must be floating-point. Got: {known[0]}")
        check_float(self.type, x.etype, "Input element types must be floating-point. Got: {}")
        _scalar_input(alpha, "alpha", "input 1", one_element=True)
        _scalar_input(lam, "lambda", "input 2", one_element=True)
        return [TensorInfo(known[0] if known else x.etype, x.shape)]

    def run(self, x, alpha, lam):
        def selu(v, a, lam):
            return np.where(v > 0, lam * v, a * lam * np.expm1(np.minimum(v, 0)))
        return [float_math(selu, x, alpha.reshape(()), lam.reshape(()))]


@register
class SoftPlus4(Op):
    """SoftPlus-4: ``log(exp(x) + 1)`` below ``log(max of the type)`` (88.7 for f32, 11.1 for
    f16), ``x`` from there on, as the reference kernel computes it (in f32 for f16/bf16, so
    ``softplus(-20)`` is 0)."""
    category = "elementwise"
    allocation = "inputs"        # irrun/ops/base.py: Op.allocation

    type, version = "SoftPlus", "opset4"
    spec = spec_url("activation/softplus-4")
    restrictions = RESTRICTION

    def infer(self, inputs):
        (x,) = inputs
        check_float(self.type, x.etype, "Input element type must be float. Got: {}")
        return [TensorInfo(x.etype, x.shape)]

    def run(self, x):
        threshold = np.asarray(np.log(np.float64(ml_dtypes.finfo(x.dtype).max))).astype(x.dtype)
        return [float_math(lambda v, t: np.where(v < t, np.log(np.exp(v) + 1), v), x, threshold)]


@register
class SoftSign9(Op):
    """SoftSign-9: ``x / (1 + |x|)``."""
    category = "elementwise"
    allocation = "inputs"        # irrun/ops/base.py: Op.allocation

    type, version = "SoftSign", "opset9"
    spec = spec_url("activation/softsign-9")
    restrictions = RESTRICTION

    def infer(self, inputs):
        (x,) = inputs
        check_float(self.type, x.etype, "Input element type must be float, instead got: {}")
        return [TensorInfo(x.etype, x.shape)]

    def run(self, x):
        return [float_math(lambda v: v / (1 + np.abs(v)), x)]


@register
class Identity16(Op):
    """Identity-16: the input itself, any element type (irrun returns the same array, no copy)."""
    category = "elementwise"
    allocation = "inputs"        # irrun/ops/base.py: Op.allocation

    type, version = "Identity", "opset16"
    spec = spec_url("activation/identity-16")

    def infer(self, inputs):
        (x,) = inputs
        return [TensorInfo(x.etype, x.shape, x.value)]

    def run(self, x):
        return [x]
