"""Element-wise math and logic: one declarative table, one class per row.

``UNARY`` maps an op type to its float kernel and its rule for integers. One class per table row
is generated and registered (``Exp`` -> ``Exp-opset1`` ...), each with a docstring that links its
spec; Round-5 and IsInf-10, which have attributes, are written out. The two-input ops are in
:mod:`irrun.ops.binary`.

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
    DIRECT,
    NUMERIC,
    RESTRICTION,
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
from .registry import define, register

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
    """``x < 0 ? 0 : x`` as np.maximum (np.where is ~20x slower), -0.0 and NaN kept."""
    zero = np.asarray(0, x.dtype)
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
    """One row of ``UNARY``: how an op computes, and which element types it takes.

    ``ints``: the kernel for integer inputs (None: OpenVINO refuses integers with ``refuse``),
    ``floats`` likewise for floating-point ones;
    ``boolean``: whether OpenVINO accepts boolean inputs (then they pass through ``ints``)."""

    def __init__(self, version: str, spec: str, doc: str, floats: Callable | None,
                 ints: Callable | None, refuse: str = "This operation does not support input with "
                 "element type: {}", boolean: bool = False, out_bool: bool = False,
                 direct: Callable | None = None):
        self.version, self.spec, self.doc = version, spec_url(spec), doc
        self.floats, self.ints, self.refuse = floats, ints, refuse
        self.boolean, self.out_bool = boolean, out_bool
        #: ``direct(x, out)``: the f32/f64 kernel run on the whole array as it is, into ``out``
        #: when given (exact in the input's type, so no f32 detour and no blocks are needed)
        self.direct = direct


UNARY: dict[str, Unary] = {
    "Abs": Unary("opset1", "arithmetic/abs-1", "|x|.", np.abs, np.abs),
    "Ceiling": Unary("opset1", "arithmetic/ceiling-1", "Round up; integers unchanged.", np.ceil, _identity),
    "Floor": Unary("opset1", "arithmetic/floor-1", "Round down; integers unchanged.", np.floor, _identity),
    "Negative": Unary("opset1", "arithmetic/negative-1", "-x (unsigned integers wrap).", np.negative,
                      np.negative),
    "Sign": Unary("opset1", "arithmetic/sign-1", "-1, 0 or 1 (NaN stays NaN, -0.0 gives 0.0).", _sign, np.sign),
    "Exp": Unary("opset1", "activation/exp-1", "e**x; integers: truncated.", np.exp, _trunc_of(np.exp, "Exp")),
    "Log": Unary("opset1", "arithmetic/log-1", "Natural log; integers: truncated.", np.log,
                 _trunc_of(np.log, "Log")),
    "Sin": Unary("opset1", "arithmetic/sin-1", "sin(x); integers: truncated.", np.sin, _trunc_of(np.sin, "Sin")),
    "Cos": Unary("opset1", "arithmetic/cos-1", "cos(x); integers: rounded.", np.cos, _round_of(np.cos, "Cos")),
    "Tanh": Unary("opset1", "arithmetic/tanh-1", "tanh(x); integers: rounded.", np.tanh,
                  _round_of(np.tanh, "Tanh")),
    "Sqrt": Unary("opset1", "arithmetic/sqrt-1", "Square root; integers: rounded.", np.sqrt,
                  _round_of(np.sqrt, "Sqrt")),
    "Erf": Unary("opset1", "arithmetic/erf-1", "The Gauss error function (Cody's rational "
                 "approximations in f64); integers: rounded.", erf, _round_of(erf, "Erf")),
    "Acos": Unary("opset1", "arithmetic/acos-1", "arccos(x) (NaN outside [-1, 1]); integers: rounded.",
                  np.arccos, _round_of(np.arccos, "Acos")),
    "Asin": Unary("opset1", "arithmetic/asin-1", "arcsin(x) (NaN outside [-1, 1]); integers: truncated.",
                  np.arcsin, _trunc_of(np.arcsin, "Asin")),
    "Atan": Unary("opset1", "arithmetic/atan-1", "arctan(x); integers: rounded.", np.arctan,
                  _round_of(np.arctan, "Atan")),
    "Cosh": Unary("opset1", "arithmetic/cosh-1", "cosh(x); integers: rounded.", np.cosh, _round_of(np.cosh, "Cosh")),
    "Sinh": Unary("opset1", "arithmetic/sinh-1", "sinh(x); integers: rounded.", np.sinh, _round_of(np.sinh, "Sinh")),
    "Tan": Unary("opset1", "arithmetic/tan-1", "tan(x); integers: rounded, negative results wrap on "
                 "unsigned types.", np.tan, _via_f64(np.tan, round_half_away, "Tan", wrap=True)),
    "Acosh": Unary("opset4", "arithmetic/acosh-3", "arccosh(x) (NaN below 1), written version=\"opset4\" (the "
                   "spec calls it Acosh-3); integers: rounded.", np.arccosh, _round_of(np.arccosh, "Acosh")),
    "Asinh": Unary("opset4", "arithmetic/asinh-3", "arcsinh(x), written version=\"opset4\" (the spec calls "
                   "it Asinh-3); integers: rounded.", np.arcsinh, _round_of(np.arcsinh, "Asinh")),
    "Atanh": Unary("opset4", "arithmetic/atanh-3", "arctanh(x) (+-inf at +-1, NaN outside), written "
                   "version=\"opset4\" (the spec calls it Atanh-3); integers as the spec defines them: "
                   "the type's minimum at x <= -1, its maximum at x >= 1, else 0.", np.arctanh, _atanh_int),
    "BitwiseNot": Unary("opset13", "bitwise/bitwise-not-13", "~x on integers (two's complement), not x on "
                        "booleans; floats are refused.", None, np.invert, boolean=True,
                        refuse="The element type of the input tensor must be integer or boolean."),
    "Relu": Unary("opset1", "activation/relu-1", "max(x, 0), written ``ReLU`` in IR (NaN and -0.0 "
                  "pass through: ``x < 0 ? 0 : x``).", _relu, _relu, direct=_relu),
    "Sigmoid": Unary("opset1", "activation/sigmoid-1", "1 / (1 + e**-x); integers: 1 where x > 0, "
                     "else 0 (the reference kernel's integer arithmetic).", _sigmoid,
                     lambda x: (x > 0).astype(x.dtype)),
    "HSwish": Unary("opset4", "activation/hswish-4", "x * min(max(x + 3, 0), 6) / 6; integers: in "
                    "f64, rounded to nearest even (the CPU plugin; the reference has no integer "
                    "kernel).", _hswish, _rint_of(_hswish, "HSwish")),
    "HSigmoid": Unary("opset5", "activation/hsigmoid-5", "min(max(x + 3, 0), 6) / 6; integers as "
                      "HSwish.", _hsigmoid, _rint_of(_hsigmoid, "HSigmoid")),
    "Mish": Unary("opset4", "activation/mish-4", "x * tanh(softplus(x)).", _mish, None,
                  refuse="Element must be of floating point type, Got: {}"),
    "LogicalNot": Unary("opset1", "logical/logical-not-1", "not x; any element type (numbers: 1 where "
                        "x == 0, else 0, in the input's type).", lambda x: (x == 0).astype(x.dtype),
                        lambda x: (x == 0).astype(x.dtype), boolean=True),
    "IsNaN": Unary("opset10", "comparison/isnan-10", "x is NaN.", np.isnan, None,
                   refuse="The element type of the input tensor must be a floating point number.",
                   out_bool=True),
    "IsFinite": Unary("opset10", "comparison/isfinite-10", "x is neither infinite nor NaN.", np.isfinite,
                      None, refuse="The element type of the input tensor must be a floating point "
                      "number or dynamic (got {}).", out_bool=True),
}


class UnaryOp(Op):
    """Base of the ``UNARY`` ops: same shape out, same element type (boolean for IsNaN...).
    Float results may be written into the input's buffer (``inplace``)."""
    category = "elementwise"
    allocation = "inputs"        # irrun/ops/base.py: Op.allocation
    elementwise = True

    row: ClassVar[Unary]
    restrictions = RESTRICTION
    inplace = (0,)
    fresh_outputs = True          # (not for rows whose integer kernel returns x itself: define())

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


# ---------------------------------------------------------------------------------------------
# Class generation


#: how OpenVINO's precision passes see these ops (irrun/debug/accuracy/precision.py)
_PRECISION = {"Exp": Precision.EXP, "Sqrt": Precision.EPSILON}

for _name, _row in UNARY.items():
    globals()[f"{_name}{_row.version[5:]}"] = define(UnaryOp, _name, _row.version, _row.spec, _row.doc, row=_row,
                                                     fresh_outputs=_row.ints is not _identity,
                                                     precision=_PRECISION.get(_name, Precision.NONE))

del _name, _row
