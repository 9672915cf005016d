"""Element-wise ops of two inputs: arithmetic, comparison, logical and bitwise, one short class
per op (``Add1``: ``Add`` of opset1 ...) holding its ``row`` (:class:`Binary`: kernel,
element-type family, value-bound rule); :class:`BinaryOp` does the rest.

Every binary op shares :func:`irrun.ops._broadcast.broadcast_shapes` (``auto_broadcast`` numpy /
none / pdpd), which follows OpenVINO's ``broadcast_merge`` on intervals exactly, and is called by
``infer`` on partial shapes and by ``run`` on the concrete ones, so a run-time mismatch fails with
the same text. Arithmetic ops declare their interval rule for value bounds (``Binary.interval``,
:mod:`irrun.ops.bounds`).

Numerics, as measured on OpenVINO 2026.4.1's reference evaluator (tests/fixtures/math_expectations):

* floats compute in the input's type; f16/bf16 compute in f32 and round once;
* integers wrap on overflow (the CPU plugin saturates instead); integer Divide floors when
  ``m_pythondiv`` (the default) and truncates otherwise; FloorMod takes the divisor's sign, Mod
  the dividend's; an integer division or modulo by zero is refused (OpenVINO: "integer division
  by zero" for Divide, an undefined INT_MIN for FloorMod);
* Maximum/Minimum return the first input when a comparison with NaN is false
  (``a < b ? b : a``): Maximum(NaN, 1) = NaN but Maximum(1, NaN) = 1;
* the bitwise ops (BitwiseAnd/Or/Xor-13, BitwiseLeftShift/RightShift-15) compute on the
  integers' full width; the CPU plugin computes 64-bit integers in 32 bits (measured: BitwiseOr
  of i64 INT64_MAX gives -1; u32 right shifts are arithmetic there), the reference kernels do not.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from typing import ClassVar

import numpy as np

from ..errors import OpError
from ..limits.memory import check_alloc
from ..types.elements import TYPES, ElementType
from ..types.shapes import PartialShape
from . import bounds, fast_paths
from ._broadcast import AUTO_BROADCAST, align_pdpd, broadcast_shapes, numpy_shape
from ._numerics import DIRECT, NUMERIC, RESTRICTION, float_math, quiet, unsupported, work_dtype
from .base import Attr, Op, Precision, TensorInfo, spec_url
from .registry import register

BOOL = TYPES["boolean"]


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
    """How a two-input op computes (its class's ``row``): ``kind`` is arithmetic / comparison / logical (OpenVINO's three
    base classes and their element-type checks), ``floats``/``ints`` the kernels (``ints`` also
    gets booleans for comparisons)."""

    def __init__(self, kind: str, floats: Callable, ints: Callable | None = None,
                 interval: Callable | None = None):
        self.kind = kind
        self.floats, self.ints = floats, ints or floats
        #: value-bound rule ``(op, a, b) -> (lo, hi) | None`` on two intervals (irrun/ops/bounds.py)
        self.interval = interval


def _divide_interval(op, a, b):
    """Monotone in each argument while the divisor keeps its sign; a finite divisor only."""
    if b[0] <= 0 <= b[1] or math.isinf(b[0]) or math.isinf(b[1]):
        return None
    return bounds.corners(bounds.div(getattr(op, "m_pythondiv", True)), a, b)


def same_type(a: ElementType, b: ElementType) -> ElementType:
    """The common element type of two inputs that must match (a dynamic one takes the other)."""
    if a.is_dynamic:
        return b
    if not b.is_dynamic and a != b:
        raise OpError(f"Arguments do not have the same element type (arg0 element type: {a}, "
                      f"arg1 element type: {b}).")
    return a


class BinaryOp(Op):
    """Base of the one-row binary ops below (``row``: their :class:`Binary`); ``auto_broadcast``
    numpy (default), none/explicit, pdpd. f32/f64 arithmetic calls the ufunc directly, into the buffer of an input of the result's
    shape when the planner offers one (``inplace``)."""
    category = "elementwise"
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

    def bounds(self, inputs, outputs):
        if self.row.interval is None:
            return None
        return bounds.elementwise(self, inputs, outputs, self.row.interval)

    def run(self, a, b, out=None):
        if out is not None and out.shape == a.shape and a.dtype in DIRECT and b.dtype == a.dtype \
                and out.dtype == a.dtype and (a.shape == b.shape or self.auto_broadcast == "numpy") \
                and self.row.kind == "arithmetic" and isinstance(self.row.floats, np.ufunc) and out.flags.writeable:
            # the planner's buffer (an input's, of the result's shape): nothing is allocated, so
            # nothing to check against the budget, and NumPy refuses an ``out`` that is not the
            # broadcast shape — then the path below gives OpenVINO's message. (The shape rule and
            # the budget check cost ~1-3 us a call: a small Add's own work on tiny models.)
            try:
                with quiet():
                    return [self.row.floats(a, b, out=out)]
            except ValueError:
                pass
        shape = a.shape if a.shape == b.shape else None
        if shape is None and self.auto_broadcast == "numpy":
            shape = numpy_shape(a.shape, b.shape)       # the same rule, for static shapes
        if shape is None:             # pdpd/none, or a mismatch: OpenVINO's rule and message
            shape = broadcast_shapes(PartialShape(a.shape), PartialShape(b.shape), self.auto_broadcast).to_tuple()
        check_alloc(shape, a.dtype)
        if self.auto_broadcast == "pdpd":
            b = align_pdpd(b, a.ndim)
        with quiet():
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


#: Element-wise by NumPy's broadcasting, so rows by it; pdpd aligns dims differently: no rows.
fast_paths.ROWS[BinaryOp] = fast_paths.Rows(
    lambda op, inputs, outputs: None if op.auto_broadcast == "pdpd"
    else fast_paths.ELEMENTWISE_ROWS.rows_of(op, inputs, outputs))


# ---------------------------------------------------------------------------------------------
# The binary ops: one class each, a row apiece

@register
class Add1(BinaryOp):
    """Add-1: a + b (integers wrap)."""
    type, version, spec = "Add", "opset1", spec_url("arithmetic/add-1")
    row = Binary("arithmetic", np.add, interval=lambda op, a, b: (a[0] + b[0], a[1] + b[1]))
    precision = Precision.EPSILON


@register
class Subtract1(BinaryOp):
    """Subtract-1: a - b (integers wrap)."""
    type, version, spec = "Subtract", "opset1", spec_url("arithmetic/subtract-1")
    row = Binary("arithmetic", np.subtract, interval=lambda op, a, b: (a[0] - b[1], a[1] - b[0]))


@register
class Multiply1(BinaryOp):
    """Multiply-1: a * b (integers wrap)."""
    type, version, spec = "Multiply", "opset1", spec_url("arithmetic/multiply-1")
    row = Binary("arithmetic", np.multiply, interval=lambda op, a, b: bounds.corners(bounds.mul, a, b))
    precision = Precision.SQUARE


@register
class Divide1(BinaryOp):
    """Divide-1: a / b; integers floor when ``m_pythondiv`` (default true), else truncate; integer
    division by zero is refused, as by OpenVINO's reference evaluator."""
    type, version, spec = "Divide", "opset1", spec_url("arithmetic/divide-1")
    row = Binary("arithmetic", np.divide, interval=_divide_interval)
    precision = Precision.DIVIDE
    attrs = {"auto_broadcast": AUTO_BROADCAST, "m_pythondiv": Attr("bool", True)}

    def compute(self, a, b):
        if a.dtype.kind in "iu":
            return _int_divide(a, b, self.m_pythondiv)
        return super().compute(a, b)


@register
class Power1(BinaryOp):
    """Power-1: a ** b; integers exact, negative exponents truncate (2 ** -1 = 0)."""
    type, version, spec = "Power", "opset1", spec_url("arithmetic/power-1")
    row = Binary("arithmetic", np.power, _int_power)
    precision = Precision.EPSILON | Precision.SQUARE | Precision.POWER


@register
class Maximum1(BinaryOp):
    """Maximum-1: ``a < b ? b : a`` (NaN: see module)."""
    type, version, spec = "Maximum", "opset1", spec_url("arithmetic/maximum-1")
    row = Binary("arithmetic", _maximum, interval=lambda op, a, b: (max(a[0], b[0]), max(a[1], b[1])))
    precision = Precision.EPSILON


@register
class Minimum1(BinaryOp):
    """Minimum-1: ``b < a ? b : a`` (NaN: see module)."""
    type, version, spec = "Minimum", "opset1", spec_url("arithmetic/minimum-1")
    row = Binary("arithmetic", _minimum, interval=lambda op, a, b: (min(a[0], b[0]), min(a[1], b[1])))


@register
class FloorMod1(BinaryOp):
    """FloorMod-1: Remainder with the divisor's sign (Python's %)."""
    type, version, spec = "FloorMod", "opset1", spec_url("arithmetic/floormod-1")
    row = Binary("arithmetic", np.mod, _int_modulo("FloorMod", np.mod))


@register
class Mod1(BinaryOp):
    """Mod-1: Remainder with the dividend's sign (C's fmod / %)."""
    type, version, spec = "Mod", "opset1", spec_url("arithmetic/mod-1")
    row = Binary("arithmetic", np.fmod, _int_modulo("Mod", np.fmod))


@register
class SquaredDifference1(BinaryOp):
    """SquaredDifference-1: (a - b) ** 2."""
    type, version, spec = "SquaredDifference", "opset1", spec_url("arithmetic/squared-difference-1")
    row = Binary("arithmetic", _squared_difference)
    precision = Precision.SQUARE


@register
class Equal1(BinaryOp):
    """Equal-1: a == b."""
    type, version, spec = "Equal", "opset1", spec_url("comparison/equal-1")
    row = Binary("comparison", np.equal)


@register
class NotEqual1(BinaryOp):
    """NotEqual-1: a != b."""
    type, version, spec = "NotEqual", "opset1", spec_url("comparison/notequal-1")
    row = Binary("comparison", np.not_equal)


@register
class Less1(BinaryOp):
    """Less-1: a < b."""
    type, version, spec = "Less", "opset1", spec_url("comparison/less-1")
    row = Binary("comparison", np.less)


@register
class LessEqual1(BinaryOp):
    """LessEqual-1: a <= b."""
    type, version, spec = "LessEqual", "opset1", spec_url("comparison/lessequal-1")
    row = Binary("comparison", np.less_equal)


@register
class Greater1(BinaryOp):
    """Greater-1: a > b."""
    type, version, spec = "Greater", "opset1", spec_url("comparison/greater-1")
    row = Binary("comparison", np.greater)


@register
class GreaterEqual1(BinaryOp):
    """GreaterEqual-1: a >= b."""
    type, version, spec = "GreaterEqual", "opset1", spec_url("comparison/greater-equal-1")
    row = Binary("comparison", np.greater_equal)


@register
class LogicalAnd1(BinaryOp):
    """LogicalAnd-1: a and b."""
    type, version, spec = "LogicalAnd", "opset1", spec_url("logical/logical-and-1")
    row = Binary("logical", np.logical_and)
    restrictions = ""


@register
class LogicalOr1(BinaryOp):
    """LogicalOr-1: a or b."""
    type, version, spec = "LogicalOr", "opset1", spec_url("logical/logical-or-1")
    row = Binary("logical", np.logical_or)
    restrictions = ""


@register
class LogicalXor2(BinaryOp):
    """LogicalXor-2: a xor b (written version="opset2", in every opset table from opset1)."""
    type, version, spec = "LogicalXor", "opset2", spec_url("logical/logical-xor-1")
    row = Binary("logical", np.logical_xor)
    restrictions = ""


@register
class Xor1(BinaryOp):
    """Xor-1: a xor b: opset1's older name of LogicalXor (ov::op::v0::Xor), the same rule."""
    type, version, spec = "Xor", "opset1", spec_url("logical/logical-xor-1")
    row = Binary("logical", np.logical_xor)
    restrictions = ""


@register
class BitwiseAnd13(BinaryOp):
    """BitwiseAnd-13: a & b on integers or booleans."""
    type, version, spec = "BitwiseAnd", "opset13", spec_url("bitwise/bitwise-and-13")
    row = Binary("bitwise", np.bitwise_and)


@register
class BitwiseOr13(BinaryOp):
    """BitwiseOr-13: a | b on integers or booleans."""
    type, version, spec = "BitwiseOr", "opset13", spec_url("bitwise/bitwise-or-13")
    row = Binary("bitwise", np.bitwise_or)


@register
class BitwiseXor13(BinaryOp):
    """BitwiseXor-13: a ^ b on integers or booleans."""
    type, version, spec = "BitwiseXor", "opset13", spec_url("bitwise/bitwise-xor-13")
    row = Binary("bitwise", np.bitwise_xor)


@register
class BitwiseLeftShift15(BinaryOp):
    """BitwiseLeftShift-15: a << b on integers, as the reference kernel's C++ on x86 (counts modulo the
    width, see _shift)."""
    type, version, spec = "BitwiseLeftShift", "opset15", spec_url("bitwise/bitwise-left-shift-15")
    row = Binary("shift", _shift(True))


@register
class BitwiseRightShift15(BinaryOp):
    """BitwiseRightShift-15: a >> b on integers, as the reference kernel's C++ on x86 (arithmetic for
    signed types, logical for unsigned)."""
    type, version, spec = "BitwiseRightShift", "opset15", spec_url("bitwise/bitwise-right-shift-15")
    row = Binary("shift", _shift(False))

