"""Element-wise math, comparison and logic: two declarative tables and one broadcasting rule.

``UNARY`` maps an op type to its float kernel and its rule for integers; ``BINARY`` maps an op to
its kernel and its element-type family (arithmetic, comparison, logical). One class per table row
is generated and registered (``Add`` -> ``Add-opset1`` ...), each with a docstring that links its
spec. Every binary op shares :func:`broadcast_shapes` (``auto_broadcast`` numpy / none / pdpd),
which follows OpenVINO's ``broadcast_merge`` on intervals exactly, and is called by ``infer`` on
partial shapes and by ``run`` on the concrete ones, so a run-time mismatch fails with the same text.

Numerics, as measured on OpenVINO 2026.4.1's reference evaluator (tests/fixtures/math_expectations):

* floats compute in the input's type; f16/bf16 compute in f32 and round once (OpenVINO's
  ``float16``/``bfloat16`` convert to float for every math function);
* integers wrap on overflow (the CPU plugin saturates instead); integer Divide floors when
  ``m_pythondiv`` (the default) and truncates otherwise; FloorMod takes the divisor's sign, Mod
  the dividend's; an integer division or modulo by zero is refused (OpenVINO: "integer division
  by zero" for Divide, an undefined INT_MIN for FloorMod);
* Maximum/Minimum return the first input when a comparison with NaN is false
  (``a < b ? b : a``): Maximum(NaN, 1) = NaN but Maximum(1, NaN) = 1;
* transcendental functions of integers compute in f64 and then truncate (Exp, Log, Sin, Asin) or
  round half away from zero (Cos, Erf, Sqrt, Tanh, Acos, Atan, Cosh, Sinh, Tan, Acosh, Asinh)
  like the reference kernels; a result with no integer value (Log(0), Sqrt(-1), Acos(2)) is
  refused (OpenVINO returns INT_MIN garbage); Atanh's spec defines its integers (min, 0, max);
* the bitwise ops (BitwiseAnd/Or/Xor/Not-13, BitwiseLeftShift/RightShift-15) compute on the
  integers' full width; the CPU plugin computes 64-bit integers in 32 bits (measured: BitwiseOr
  of i64 INT64_MAX gives -1; u32 right shifts are arithmetic there), the reference kernels do not.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from typing import ClassVar

import numpy as np

from .. import bounds
from ..budget import check_alloc
from ..elements import TYPES, ElementType
from ..errors import OpError
from ..shapes import PartialShape
from .base import Attr, Op, TensorInfo, spec_url
from ._broadcast import AUTO_BROADCAST, align_pdpd, broadcast_shapes
from ._numerics import (DIRECT, NUMERIC, RESTRICTION, erf, fits, float_math, put_zero_signs, round_half_away,
                        ties_keep_second, unsupported, work_dtype, zero_signs)
from .registry import define
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


def _shift(left: bool) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """BitwiseLeftShift/RightShift as the reference kernel's C++ ``a << b`` / ``a >> b`` on x86:
    types narrower than 32 bits are promoted to int32 first, the count is taken modulo the
    (promoted) width, the result is cut back to the type (wrapping); right shifts are arithmetic
    for signed and logical for unsigned types."""
    def kernel(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        wide = np.dtype(np.int32) if a.dtype.itemsize < 4 else a.dtype
        count = (b.astype(np.int64) & (wide.itemsize * 8 - 1)).astype(wide)
        with np.errstate(all="ignore"):
            y = np.left_shift(a.astype(wide), count) if left else np.right_shift(a.astype(wide), count)
        return y.astype(a.dtype)
    return kernel


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
# Binary ops

def _int_divide(a: np.ndarray, b: np.ndarray, floor: bool) -> np.ndarray:
    if not np.all(b):
        raise OpError("integer division by zero")
    q = np.floor_divide(a, b)
    if not floor and a.dtype.kind == "i":      # C truncation: round toward zero instead
        q = q + ((q * b != a) & ((a < 0) != (b < 0))).astype(q.dtype)
    return q


def _int_modulo(name: str, fn: Callable) -> Callable:
    def kernel(a, b):
        if not np.all(b):
            raise OpError(f"integer {name} by zero (OpenVINO's result is undefined)")
        return fn(a, b)
    return kernel


def _int_power(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Exact integer powers (wrapping like C++); a negative exponent gives ``trunc(a ** b)``:
    1 for a == 1, +-1 for a == -1, 0 otherwise (measured); 0 ** negative is refused."""
    neg = b < 0
    with np.errstate(all="ignore"):
        out = np.power(a, np.where(neg, 0, b).astype(b.dtype))
    if neg.any():
        a, b, neg, out = np.broadcast_arrays(a, b, neg, out)
        if np.any(neg & (a == 0)):
            raise OpError("integer 0 raised to a negative power (OpenVINO's result is undefined)")
        odd = (b % 2) != 0
        repl = np.where(a == 1, 1, np.where(a == -1, np.where(odd, -1, 1), 0)).astype(out.dtype)
        out = np.where(neg, repl, out)
    return out


def _maximum(a, b):
    return np.where(a < b, b, a)


def _minimum(a, b):
    return np.where(b < a, b, a)


def _squared_difference(a, b):
    d = a - b
    return d * d


class Binary:
    """One row of ``BINARY``: ``kind`` is arithmetic / comparison / logical (OpenVINO's three
    base classes and their element-type checks), ``floats``/``ints`` the kernels (``ints`` also
    gets booleans for comparisons)."""

    def __init__(self, kind: str, spec: str, doc: str, floats: Callable, ints: Callable | None = None,
                 version: str = "opset1", interval: Callable | None = None):
        self.kind, self.spec, self.doc = kind, spec_url(spec), doc
        self.floats, self.ints = floats, ints or floats
        self.version = version
        #: value-bound rule ``(op, a, b) -> (lo, hi) | None`` on two intervals (irrun/bounds.py)
        self.interval = interval


def _divide_interval(op, a, b):
    """Monotone in each argument while the divisor keeps its sign; a finite divisor only."""
    if b[0] <= 0 <= b[1] or math.isinf(b[0]) or math.isinf(b[1]):
        return None
    return bounds.corners(bounds.div(getattr(op, "m_pythondiv", True)), a, b)


BINARY: dict[str, Binary] = {
    "Add": Binary("arithmetic", "arithmetic/add-1", "a + b (integers wrap).", np.add,
        interval=lambda op, a, b: (a[0] + b[0], a[1] + b[1])),
    "Subtract": Binary("arithmetic", "arithmetic/subtract-1", "a - b (integers wrap).", np.subtract,
        interval=lambda op, a, b: (a[0] - b[1], a[1] - b[0])),
    "Multiply": Binary("arithmetic", "arithmetic/multiply-1", "a * b (integers wrap).", np.multiply,
        interval=lambda op, a, b: bounds.corners(bounds.mul, a, b)),
    "Divide": Binary("arithmetic", "arithmetic/divide-1", "a / b; integers floor when "
                     "``m_pythondiv`` (default true), else truncate; integer division by zero is "
                     "refused, as by OpenVINO's reference evaluator.", np.divide,
        interval=_divide_interval),
    "Power": Binary("arithmetic", "arithmetic/power-1", "a ** b; integers exact, negative "
                    "exponents truncate (2 ** -1 = 0).", np.power, _int_power),
    "Maximum": Binary("arithmetic", "arithmetic/maximum-1", "``a < b ? b : a`` (NaN: see module).",
                      _maximum,
                      interval=lambda op, a, b: (max(a[0], b[0]), max(a[1], b[1]))),
    "Minimum": Binary("arithmetic", "arithmetic/minimum-1", "``b < a ? b : a`` (NaN: see module).",
                      _minimum,
                      interval=lambda op, a, b: (min(a[0], b[0]), min(a[1], b[1]))),
    "FloorMod": Binary("arithmetic", "arithmetic/floormod-1", "Remainder with the divisor's sign "
                       "(Python's %).", np.mod, _int_modulo("FloorMod", np.mod)),
    "Mod": Binary("arithmetic", "arithmetic/mod-1", "Remainder with the dividend's sign (C's "
                  "fmod / %).", np.fmod, _int_modulo("Mod", np.fmod)),
    "SquaredDifference": Binary("arithmetic", "arithmetic/squared-difference-1", "(a - b) ** 2.",
                                _squared_difference),
    "Equal": Binary("comparison", "comparison/equal-1", "a == b.", np.equal),
    "NotEqual": Binary("comparison", "comparison/notequal-1", "a != b.", np.not_equal),
    "Less": Binary("comparison", "comparison/less-1", "a < b.", np.less),
    "LessEqual": Binary("comparison", "comparison/lessequal-1", "a <= b.", np.less_equal),
    "Greater": Binary("comparison", "comparison/greater-1", "a > b.", np.greater),
    "GreaterEqual": Binary("comparison", "comparison/greater-equal-1", "a >= b.", np.greater_equal),
    "LogicalAnd": Binary("logical", "logical/logical-and-1", "a and b.", np.logical_and),
    "LogicalOr": Binary("logical", "logical/logical-or-1", "a or b.", np.logical_or),
    "LogicalXor": Binary("logical", "logical/logical-xor-1", "a xor b (written version=\"opset2\", "
                         "in every opset table from opset1).", np.logical_xor),
    "BitwiseAnd": Binary("bitwise", "bitwise/bitwise-and-13", "a & b on integers or booleans.", np.bitwise_and,
                         version="opset13"),
    "BitwiseOr": Binary("bitwise", "bitwise/bitwise-or-13", "a | b on integers or booleans.", np.bitwise_or,
                        version="opset13"),
    "BitwiseXor": Binary("bitwise", "bitwise/bitwise-xor-13", "a ^ b on integers or booleans.", np.bitwise_xor,
                         version="opset13"),
    "BitwiseLeftShift": Binary("shift", "bitwise/bitwise-left-shift-15", "a << b on integers, as the "
                               "reference kernel's C++ on x86 (counts modulo the width, see _shift).",
                               _shift(True), version="opset15"),
    "BitwiseRightShift": Binary("shift", "bitwise/bitwise-right-shift-15", "a >> b on integers, as the "
                                "reference kernel's C++ on x86 (arithmetic for signed types, logical "
                                "for unsigned).", _shift(False), version="opset15"),
}


def same_type(a: ElementType, b: ElementType) -> ElementType:
    """The common element type of two inputs that must match (a dynamic one takes the other)."""
    if a.is_dynamic:
        return b
    if not b.is_dynamic and a != b:
        raise OpError(f"Arguments do not have the same element type (arg0 element type: {a}, "
                      f"arg1 element type: {b}).")
    return a


class BinaryOp(Op):
    """Base of the ``BINARY`` ops; ``auto_broadcast`` numpy (default), none/explicit, pdpd.
    f32/f64 arithmetic calls the ufunc directly, into the buffer of an input of the result's
    shape when the planner offers one (``inplace``)."""
    allocation = "checked"        # irrun/ops/base.py: Op.allocation
    elementwise = True

    row: ClassVar[Binary]
    attrs = {"auto_broadcast": AUTO_BROADCAST}
    num_inputs = (2, 2)
    restrictions = RESTRICTION
    inplace = (0, 1)
    fresh_outputs = True

    def out_type(self, a: ElementType, b: ElementType) -> ElementType:
        kind = self.row.kind
        if kind == "logical":
            for et in (a, b):
                if not (et.is_dynamic or et.name == "boolean"):
                    raise OpError("Operands for logical operators must have boolean element type "
                                  f"but have element type {et}.")
            return BOOL
        et = same_type(a, b)
        if kind == "arithmetic" and et.name == "boolean":
            raise OpError("This operation does not support inputs with element type: boolean")
        if kind == "bitwise" and not (et.is_dynamic or et.is_integer or et.name == "boolean"):
            raise OpError("The element type of the input tensor must be integer or boolean.", port="input 0")
        if kind == "shift" and not (et.is_dynamic or et.is_integer):
            raise OpError("The element type of the input tensor must be integer number.", port="input 0")
        if not (et.is_dynamic or et.name in NUMERIC or et.name == "boolean"):
            raise unsupported(self.type, et, port=None)
        return BOOL if kind == "comparison" else et

    def infer(self, inputs):
        a, b = inputs
        et = self.out_type(a.etype, b.etype)
        return [TensorInfo(et, broadcast_shapes(a.shape, b.shape, self.auto_broadcast))]

    def rows_of(self, inputs, outputs):
        return super().rows_of(inputs, outputs) if self.auto_broadcast != "pdpd" else None

    def bounds(self, inputs, outputs):
        if self.row.interval is None:
            return None
        return bounds.elementwise(self, inputs, outputs, self.row.interval)

    def run(self, a, b, out=None):
        shape = a.shape if a.shape == b.shape else None
        if shape is None and self.auto_broadcast == "numpy":
            try:
                shape = np.broadcast_shapes(a.shape, b.shape)     # the same rule, for static shapes
            except ValueError:
                pass
        if shape is None:             # pdpd/none, or a mismatch: OpenVINO's rule and message
            shape = broadcast_shapes(PartialShape(a.shape), PartialShape(b.shape), self.auto_broadcast).to_tuple()
        check_alloc(shape, a.dtype)
        if self.auto_broadcast == "pdpd":
            b = align_pdpd(b, a.ndim)
        with np.errstate(all="ignore"):
            if a.dtype in DIRECT and self.row.kind == "arithmetic" and isinstance(self.row.floats, np.ufunc) \
                    and b.dtype == a.dtype:
                return [self.row.floats(a, b, out=out if out is not None and out.shape == shape
                                        and out.dtype == a.dtype and out.flags.writeable else None)]
            return [np.asarray(self.compute(a, b))]

    def compute(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        if a.dtype.kind in "iub":
            return self.row.ints(a, b)
        if self.row.kind == "comparison":
            wd = work_dtype(a.dtype)
            return self.row.floats(a.astype(wd, copy=False), b.astype(wd, copy=False))
        return float_math(self.row.floats, a, b)


class _Divide(BinaryOp):
    attrs = {"auto_broadcast": AUTO_BROADCAST, "m_pythondiv": Attr("bool", True)}

    def compute(self, a, b):
        if a.dtype.kind in "iu":
            return _int_divide(a, b, self.m_pythondiv)
        return super().compute(a, b)


# ---------------------------------------------------------------------------------------------
# Unary ops with attributes

@register
class Round5(Op):
    """Round-5: to the nearest integer, ties per ``mode``: ``half_to_even`` (default) or
    ``half_away_from_zero`` (C's ``std::round``); integers and booleans pass unchanged."""

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


for _name, _row in UNARY.items():
    globals()[f"{_name}{_row.version[5:]}"] = define(UnaryOp, _name, _row.version, _row.spec, _row.doc, row=_row,
                                                     fresh_outputs=_row.ints is not _identity)

for _name, _row in BINARY.items():
    _ver = "opset2" if _name == "LogicalXor" else _row.version
    globals()[f"{_name}{_ver[5:]}"] = define(_Divide if _name == "Divide" else BinaryOp, _name, _ver,
                                             _row.spec, _row.doc, row=_row,
                                             restrictions="" if _row.kind == "logical" else RESTRICTION)
del _name, _row, _ver
