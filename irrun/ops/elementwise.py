"""Element-wise math and logic of one input: one short class per op.

Each class (``Exp1``: ``Exp`` of opset1 ...) names its type, version and spec and holds its
``row`` (:class:`Unary`): the float kernel and the rule for integers; :class:`UnaryOp` does the
rest. Round-5 and IsInf-10, which have attributes, are written out in full. The two-input ops are
in :mod:`irrun.ops.binary`.

Numerics, as measured on OpenVINO 2026.4.1's reference evaluator (tests/fixtures/math_expectations):

* floats compute in the input's type; f16/bf16 compute in f32 and round once (OpenVINO's
  ``float16``/``bfloat16`` convert to float for every math function);
* transcendental functions of integers compute in f64 and then truncate (Exp, Log, Sin, Asin) or
  round half away from zero (Cos, Erf, Sqrt, Tanh, Acos, Atan, Cosh, Sinh, Tan, Acosh, Asinh)
  like the reference kernels; a result with no integer value (Log(0), Sqrt(-1), Acos(2)) is
  refused (OpenVINO returns INT_MIN garbage); Atanh's spec defines its integers (min, 0, max);
* BitwiseNot-13 computes on the integers' full width (see :mod:`irrun.ops.binary`).
"""
from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

import numpy as np

from ..errors import OpError
from ..types.elements import TYPES, ElementType
from ._numerics import (
    CLIP,
    DIRECT,
    NUMERIC,
    RESTRICTION,
    clip_is_clamp,
    erf,
    fits,
    float_math,
    put_zero_signs,
    round_half_away,
    ties_keep_second,
    unsupported,
    work_dtype,
    zero_signs,
)
from .base import Attr, Op, Precision, TensorInfo, spec_url
from .registry import register

BOOL = TYPES["boolean"]


def _via_f64(fn: Callable, to_int: Callable, name: str, wrap: bool = False) -> Callable[[np.ndarray], np.ndarray]:
    """Integer kernel: ``fn`` in f64, then ``to_int`` (trunc / round), saturated to the type (or,
    with ``wrap``, cast through int64 like C: Tan(2) on u8 is 254, measured); results with no
    value (NaN, infinity) are refused."""
    def kernel(x: np.ndarray) -> np.ndarray:
        with np.errstate(all="ignore"):
            y = to_int(fn(x.astype(np.float64)))
        bad = ~np.isfinite(y)
        if bad.any():
            v = x[bad].reshape(-1)[0]
            raise OpError(f"{name} of the integer {v} has no {x.dtype} value (OpenVINO's result is "
                          "undefined)")
        info = np.iinfo(x.dtype)           # out of range: saturate (the CPU plugin; C++ leaves it undefined)
        if wrap:
            return np.clip(y, -2.0**63, 2.0**63 - 1024).astype(np.int64).astype(x.dtype)
        return np.clip(y, info.min, info.max).astype(x.dtype)
    return kernel


# ---------------------------------------------------------------------------------------------
# Unary ops

def _relu(x, out=None):
    """``x < 0 ? 0 : x`` as np.clip to [0, inf] where that is the rule bit for bit
    (:func:`clip_is_clamp`: one vectorised pass, 3.5x faster than np.maximum with a scalar on
    1.2M f32), else np.maximum (np.where is ~20x slower); -0.0 and NaN kept."""
    zero = np.asarray(0, x.dtype)
    if x.dtype in DIRECT and clip_is_clamp(x.dtype):
        return CLIP(x, zero, np.asarray(np.inf, x.dtype), out=out)
    if x.dtype.kind != "f" or ties_keep_second(x.dtype):
        return np.maximum(zero, x, out=out)
    return put_zero_signs(np.maximum(x, zero, out=out), zero_signs(x))


def _sign(x):
    return np.sign(x) + x.dtype.type(0)          # -0.0 -> 0.0 as in OpenVINO


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _hsigmoid(x):
    return np.clip(x + 3, 0, 6) / 6


def _hswish(x):
    return x * np.clip(x + 3, 0, 6) / 6


def _mish(x):
    return x * np.tanh(np.logaddexp(0, x))


def _identity(x):
    return x


def _trunc_of(fn, name):
    return _via_f64(fn, np.trunc, name)


def _round_of(fn, name):
    return _via_f64(fn, round_half_away, name)


def _rint_of(fn, name):
    return _via_f64(fn, np.rint, name)


def _atanh_int(x: np.ndarray) -> np.ndarray:
    """Atanh-3's integer rule (the spec; the reference kernel agrees, the CPU plugin does not)."""
    info = np.iinfo(x.dtype)
    return np.where(x <= -1, info.min, np.where(x >= 1, info.max, 0)).astype(x.dtype)


class Unary:
    """How a table-driven unary op computes (its class's ``row``), and which element types it takes.

    ``ints``: the kernel for integer inputs (None: OpenVINO refuses integers with ``refuse``),
    ``floats`` likewise for floating-point ones;
    ``boolean``: whether OpenVINO accepts boolean inputs (then they pass through ``ints``)."""

    def __init__(self, floats: Callable | None, ints: Callable | None,
                 refuse: str = "This operation does not support input with element type: {}",
                 boolean: bool = False, out_bool: bool = False, direct: Callable | None = None):
        self.floats, self.ints, self.refuse = floats, ints, refuse
        self.boolean, self.out_bool = boolean, out_bool
        #: ``direct(x, out)``: the f32/f64 kernel run on the whole array as it is, into ``out``
        #: when given (exact in the input's type, so no f32 detour and no blocks are needed)
        self.direct = direct


class UnaryOp(Op):
    """Base of the one-row unary ops below (``row``: their :class:`Unary`): same shape out, same
    element type (boolean for IsNaN...). Float results may be written into the input's buffer
    (``inplace``)."""
    category = "elementwise"
    allocation = "inputs"        # irrun/ops/base.py: Op.allocation
    elementwise = True

    row: ClassVar[Unary]
    restrictions = RESTRICTION
    inplace = (0,)
    fresh_outputs = True          # (not Ceiling/Floor, whose integer kernel returns x itself)

    def out_type(self, et: ElementType) -> ElementType:
        """Check the input's element type as OpenVINO does; the output's element type."""
        row = self.row
        if et.is_dynamic:
            return BOOL if row.out_bool else et
        if et.name == "boolean" and not row.boolean or et.is_integer and row.ints is None \
                and et.name in NUMERIC or et.is_float and row.floats is None:
            raise OpError(row.refuse.format(et), port="input 0")
        if et.name not in NUMERIC and et.name != "boolean":
            raise unsupported(self.type, et)
        return BOOL if row.out_bool else et

    def infer(self, inputs):
        (x,) = inputs
        return [TensorInfo(self.out_type(x.etype), x.shape)]

    def run(self, x, out=None):
        if x.dtype.kind in "iub":
            return [np.asarray(self.row.ints(x))]
        if self.row.out_bool:
            return [np.asarray(self.row.floats(x.astype(work_dtype(x.dtype), copy=False)))]
        if self.row.direct is not None and x.dtype in DIRECT:
            return [self.row.direct(x, out if fits(out, x) else None)]
        return [float_math(self.row.floats, x, out=out)]


# ---------------------------------------------------------------------------------------------
# The unary ops: one class each, a row apiece

@register
class Abs1(UnaryOp):
    """Abs-1: |x|."""
    type, version, spec = "Abs", "opset1", spec_url("arithmetic/abs-1")
    row = Unary(np.abs, np.abs)


@register
class Ceiling1(UnaryOp):
    """Ceiling-1: Round up; integers unchanged."""
    type, version, spec = "Ceiling", "opset1", spec_url("arithmetic/ceiling-1")
    row = Unary(np.ceil, _identity)
    fresh_outputs = False       # integers pass through: the kernel returns x itself


@register
class Floor1(UnaryOp):
    """Floor-1: Round down; integers unchanged."""
    type, version, spec = "Floor", "opset1", spec_url("arithmetic/floor-1")
    row = Unary(np.floor, _identity)
    fresh_outputs = False       # integers pass through: the kernel returns x itself


@register
class Negative1(UnaryOp):
    """Negative-1: -x (unsigned integers wrap)."""
    type, version, spec = "Negative", "opset1", spec_url("arithmetic/negative-1")
    row = Unary(np.negative, np.negative)


@register
class Sign1(UnaryOp):
    """Sign-1: -1, 0 or 1 (NaN stays NaN, -0.0 gives 0.0)."""
    type, version, spec = "Sign", "opset1", spec_url("arithmetic/sign-1")
    row = Unary(_sign, np.sign)


@register
class Exp1(UnaryOp):
    """Exp-1: e**x; integers: truncated."""
    type, version, spec = "Exp", "opset1", spec_url("activation/exp-1")
    row = Unary(np.exp, _trunc_of(np.exp, "Exp"))
    precision = Precision.EXP


@register
class Log1(UnaryOp):
    """Log-1: Natural log; integers: truncated."""
    type, version, spec = "Log", "opset1", spec_url("arithmetic/log-1")
    row = Unary(np.log, _trunc_of(np.log, "Log"))


@register
class Sin1(UnaryOp):
    """Sin-1: sin(x); integers: truncated."""
    type, version, spec = "Sin", "opset1", spec_url("arithmetic/sin-1")
    row = Unary(np.sin, _trunc_of(np.sin, "Sin"))


@register
class Cos1(UnaryOp):
    """Cos-1: cos(x); integers: rounded."""
    type, version, spec = "Cos", "opset1", spec_url("arithmetic/cos-1")
    row = Unary(np.cos, _round_of(np.cos, "Cos"))


@register
class Tanh1(UnaryOp):
    """Tanh-1: tanh(x); integers: rounded."""
    type, version, spec = "Tanh", "opset1", spec_url("arithmetic/tanh-1")
    row = Unary(np.tanh, _round_of(np.tanh, "Tanh"))


@register
class Sqrt1(UnaryOp):
    """Sqrt-1: Square root; integers: rounded."""
    type, version, spec = "Sqrt", "opset1", spec_url("arithmetic/sqrt-1")
    row = Unary(np.sqrt, _round_of(np.sqrt, "Sqrt"))
    precision = Precision.EPSILON


@register
class Erf1(UnaryOp):
    """Erf-1: The Gauss error function (Cody's rational approximations in f64); integers: rounded."""
    type, version, spec = "Erf", "opset1", spec_url("arithmetic/erf-1")
    row = Unary(erf, _round_of(erf, "Erf"))


@register
class Acos1(UnaryOp):
    """Acos-1: arccos(x) (NaN outside [-1, 1]); integers: rounded."""
    type, version, spec = "Acos", "opset1", spec_url("arithmetic/acos-1")
    row = Unary(np.arccos, _round_of(np.arccos, "Acos"))


@register
class Asin1(UnaryOp):
    """Asin-1: arcsin(x) (NaN outside [-1, 1]); integers: truncated."""
    type, version, spec = "Asin", "opset1", spec_url("arithmetic/asin-1")
    row = Unary(np.arcsin, _trunc_of(np.arcsin, "Asin"))


@register
class Atan1(UnaryOp):
    """Atan-1: arctan(x); integers: rounded."""
    type, version, spec = "Atan", "opset1", spec_url("arithmetic/atan-1")
    row = Unary(np.arctan, _round_of(np.arctan, "Atan"))


@register
class Cosh1(UnaryOp):
    """Cosh-1: cosh(x); integers: rounded."""
    type, version, spec = "Cosh", "opset1", spec_url("arithmetic/cosh-1")
    row = Unary(np.cosh, _round_of(np.cosh, "Cosh"))


@register
class Sinh1(UnaryOp):
    """Sinh-1: sinh(x); integers: rounded."""
    type, version, spec = "Sinh", "opset1", spec_url("arithmetic/sinh-1")
    row = Unary(np.sinh, _round_of(np.sinh, "Sinh"))


@register
class Tan1(UnaryOp):
    """Tan-1: tan(x); integers: rounded, negative results wrap on unsigned types."""
    type, version, spec = "Tan", "opset1", spec_url("arithmetic/tan-1")
    row = Unary(np.tan, _via_f64(np.tan, round_half_away, "Tan", wrap=True))


@register
class Acosh4(UnaryOp):
    """Acosh-4: arccosh(x) (NaN below 1), written version="opset4" (the spec calls it Acosh-3);
    integers: rounded."""
    type, version, spec = "Acosh", "opset4", spec_url("arithmetic/acosh-3")
    row = Unary(np.arccosh, _round_of(np.arccosh, "Acosh"))


@register
class Asinh4(UnaryOp):
    """Asinh-4: arcsinh(x), written version="opset4" (the spec calls it Asinh-3); integers: rounded."""
    type, version, spec = "Asinh", "opset4", spec_url("arithmetic/asinh-3")
    row = Unary(np.arcsinh, _round_of(np.arcsinh, "Asinh"))


@register
class Atanh4(UnaryOp):
    """Atanh-4: arctanh(x) (+-inf at +-1, NaN outside), written version="opset4" (the spec calls it
    Atanh-3); integers as the spec defines them: the type's minimum at x <= -1, its maximum at x >=
    1, else 0."""
    type, version, spec = "Atanh", "opset4", spec_url("arithmetic/atanh-3")
    row = Unary(np.arctanh, _atanh_int)


@register
class BitwiseNot13(UnaryOp):
    """BitwiseNot-13: ~x on integers (two's complement), not x on booleans; floats are refused."""
    type, version, spec = "BitwiseNot", "opset13", spec_url("bitwise/bitwise-not-13")
    row = Unary(None, np.invert, boolean=True,
                refuse="The element type of the input tensor must be integer or boolean.")


@register
class Relu1(UnaryOp):
    """Relu-1: max(x, 0), written ``ReLU`` in IR (NaN and -0.0 pass through: ``x < 0 ? 0 : x``)."""
    type, version, spec = "Relu", "opset1", spec_url("activation/relu-1")
    row = Unary(_relu, _relu, direct=_relu)


@register
class Sigmoid1(UnaryOp):
    """Sigmoid-1: 1 / (1 + e**-x); integers: 1 where x > 0, else 0 (the reference kernel's integer
    arithmetic)."""
    type, version, spec = "Sigmoid", "opset1", spec_url("activation/sigmoid-1")
    row = Unary(_sigmoid, lambda x: (x > 0).astype(x.dtype))


@register
class HSwish4(UnaryOp):
    """HSwish-4: x * min(max(x + 3, 0), 6) / 6; integers: in f64, rounded to nearest even (the CPU
    plugin; the reference has no integer kernel)."""
    type, version, spec = "HSwish", "opset4", spec_url("activation/hswish-4")
    row = Unary(_hswish, _rint_of(_hswish, "HSwish"))


@register
class HSigmoid5(UnaryOp):
    """HSigmoid-5: min(max(x + 3, 0), 6) / 6; integers as HSwish."""
    type, version, spec = "HSigmoid", "opset5", spec_url("activation/hsigmoid-5")
    row = Unary(_hsigmoid, _rint_of(_hsigmoid, "HSigmoid"))


@register
class Mish4(UnaryOp):
    """Mish-4: x * tanh(softplus(x))."""
    type, version, spec = "Mish", "opset4", spec_url("activation/mish-4")
    row = Unary(_mish, None, refuse="Element must be of floating point type, Got: {}")


@register
class LogicalNot1(UnaryOp):
    """LogicalNot-1: not x; any element type (numbers: 1 where x == 0, else 0, in the input's type)."""
    type, version, spec = "LogicalNot", "opset1", spec_url("logical/logical-not-1")
    row = Unary(lambda x: (x == 0).astype(x.dtype), lambda x: (x == 0).astype(x.dtype), boolean=True)


@register
class IsNaN10(UnaryOp):
    """IsNaN-10: x is NaN."""
    type, version, spec = "IsNaN", "opset10", spec_url("comparison/isnan-10")
    row = Unary(np.isnan, None,
                refuse="The element type of the input tensor must be a floating point number.", out_bool=True)


@register
class IsFinite10(UnaryOp):
    """IsFinite-10: x is neither infinite nor NaN."""
    type, version, spec = "IsFinite", "opset10", spec_url("comparison/isfinite-10")
    row = Unary(np.isfinite, None, out_bool=True, refuse="The element type of the input tensor must be a "
                "floating point number or dynamic (got {}).")



# ---------------------------------------------------------------------------------------------
# Unary ops with attributes

@register
class Round5(Op):
    """Round-5: to the nearest integer, ties per ``mode``: ``half_to_even`` (default) or
    ``half_away_from_zero`` (C's ``std::round``); integers and booleans pass unchanged."""
    category = "elementwise"

    type, version = "Round", "opset5"
    spec = spec_url("arithmetic/round-5")
    attrs = {"mode": Attr("enum", "half_to_even", required=True,
                          choices=("half_to_even", "half_away_from_zero"))}
    restrictions = RESTRICTION

    def infer(self, inputs):
        (x,) = inputs
        if not (x.etype.is_dynamic or x.etype.name in NUMERIC or x.etype.name == "boolean"):
            raise unsupported(self.type, x.etype)
        return [TensorInfo(x.etype, x.shape)]

    def run(self, x):
        if x.dtype.kind in "iub":
            return [x]
        return [float_math(np.round if self.mode == "half_to_even" else round_half_away, x)]


@register
class IsInf10(Op):
    """IsInf-10: x is +inf (``detect_positive``, default true) or -inf (``detect_negative``,
    default true); floating-point inputs only, boolean output."""
    category = "elementwise"

    type, version = "IsInf", "opset10"
    spec = spec_url("comparison/isinf-10")
    attrs = {"detect_negative": Attr("bool", True), "detect_positive": Attr("bool", True)}
    restrictions = RESTRICTION

    def infer(self, inputs):
        (x,) = inputs
        et = x.etype
        if not (et.is_dynamic or et.is_float):
            raise OpError("The element type of the input tensor must be a floating point number.",
                          port="input 0")
        if not (et.is_dynamic or et.name in NUMERIC):
            raise unsupported(self.type, et)
        return [TensorInfo(BOOL, x.shape)]

    def run(self, x):
        x = x.astype(work_dtype(x.dtype), copy=False)
        return [np.asarray((np.isposinf(x) & self.detect_positive) | (np.isneginf(x) & self.detect_negative))]
