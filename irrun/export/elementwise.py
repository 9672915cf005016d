"""ONNX forms of the element-wise ops: arithmetic, comparisons, logic, unary math, activations,
Convert. The IR's ``auto_broadcast="numpy"`` is ONNX's multidirectional broadcasting; ``none``
(same shapes) is a special case of it. ``pdpd`` broadcasting has no ONNX form."""
from __future__ import annotations

import numpy as np

from ..types import elements
from ..types.elements import ElementType
from .emitter import Call, Emitter, Unexpressible, onnx_type
from .table import converts


def _broadcast(c: Call) -> None:
    if getattr(c.op, "auto_broadcast", "numpy") not in ("numpy", "none"):
        raise Unexpressible(f'auto_broadcast="{c.op.auto_broadcast}" has no ONNX form')


#: IR binary op -> the ONNX op of the same semantics
BINARY = {"Add": "Add", "Subtract": "Sub", "Multiply": "Mul", "Maximum": "Max", "Minimum": "Min",
           "Power": "Pow", "Equal": "Equal", "Less": "Less", "LessEqual": "LessOrEqual",
           "Greater": "Greater", "GreaterEqual": "GreaterOrEqual", "LogicalAnd": "And",
           "LogicalOr": "Or", "LogicalXor": "Xor", "Xor": "Xor", "BitwiseAnd": "BitwiseAnd",
           "BitwiseOr": "BitwiseOr", "BitwiseXor": "BitwiseXor", "PRelu": "PRelu"}


#: ONNX's bitwise ops take integers only: on booleans the IR's are the logical ones
_ON_BOOLEANS = {"BitwiseAnd": "And", "BitwiseOr": "Or", "BitwiseXor": "Xor", "BitwiseNot": "Not"}


@converts(*BINARY)
def binary(e: Emitter, c: Call) -> None:
    """ONNX's op of the same semantics (table ``BINARY``); bitwise ops on booleans are the logical
    ones; float Maximum/Minimum keep the first input where the second is NaN, as OpenVINO."""
    _broadcast(c)
    name = BINARY[c.op.type]
    if c.in_info[0].etype.name == "boolean":
        name = _ON_BOOLEANS.get(c.op.type, name)
    inputs = list(c.inputs)
    if c.in_info[0].etype.name == "boolean" and name in ("Less", "LessOrEqual", "Greater", "GreaterOrEqual"):
        inputs = [e.cast(x, elements.TYPES["u8"]) for x in inputs]      # false < true
    if name == "PRelu":       # a 1-D slope of the channel count applies along axis 1
        from ..ops.activations import prelu_slope_shape
        data, slope = c.in_info[0].shape, c.in_info[1].shape
        if slope.rank == 0:               # one slope for every element: ONNX broadcasts it as it is
            e.one(name, inputs, c.outputs[0])
            return
        shape = prelu_slope_shape(data, slope)
        if shape is None and slope.rank == 1 and slope.is_static and data.rank is not None and data.rank > 1 \
                and data[1].is_static and data[1].lo == slope[0].lo:     # the channel count, data dynamic elsewhere
            shape = tuple(slope[0].lo if i == 1 else 1 for i in range(data.rank))
        if shape is None:
            raise Unexpressible("the data or slope shape is not static")
        inputs[1] = e.one("Reshape", [inputs[1], e.ints(shape)])
    if name in ("Max", "Min") and c.in_info[0].etype.is_float and may_hold_nan(c, 1):
        # OpenVINO's ``a < b ? b : a`` (Minimum: ``b < a``) keeps the first input when the
        # second is NaN; ONNX Max/Min propagate any NaN (Maximum(1, NaN) = 1, not NaN)
        e.where(e.one("IsNaN", [inputs[1]]), inputs[0], e.one(name, inputs), c.out_info[0].etype, c.outputs[0])
        return
    e.one(name, inputs, c.outputs[0])


def may_hold_nan(c: Call, i: int) -> bool:
    """Whether input ``i`` can be NaN at run time: anything but a constant without NaN."""
    value = c.in_info[i].value
    return value is None or bool(np.isnan(np.asarray(value, dtype=np.float64)).any())


@converts("NotEqual")
def not_equal(e: Emitter, c: Call) -> None:
    """Not(Equal)."""
    _broadcast(c)
    e.one("Not", [e.one("Equal", c.inputs)], c.outputs[0])


@converts("SquaredDifference")
def squared_difference(e: Emitter, c: Call) -> None:
    """(a - b) * (a - b)."""
    _broadcast(c)
    d = e.one("Sub", c.inputs)
    e.one("Mul", [d, d], c.outputs[0])


@converts("Divide")
def divide(e: Emitter, c: Call) -> None:
    """ONNX Div truncates integers; the IR's ``m_pythondiv`` (the default) floors them."""
    _broadcast(c)
    et = c.out_info[0].etype
    if not et.is_integer or not c.op.m_pythondiv:
        e.one("Div", c.inputs, c.outputs[0])
        return
    a, b = c.inputs
    q = e.one("Div", [a, b])
    rem = e.one("Sub", [a, e.one("Mul", [q, b])])
    zero = e.scalar(0, et)
    if et.name.startswith("u"):
        e.one("Identity", [q], c.outputs[0])
        return
    inexact = e.one("Not", [e.one("Equal", [rem, zero])])
    signs_differ = e.one("Xor", [e.one("Less", [a, zero]), e.one("Less", [b, zero])])
    fix = e.one("Cast", [e.one("And", [inexact, signs_differ])], to=onnx_type(et))
    e.one("Sub", [q, fix], c.outputs[0])


@converts("Mod")
def mod(e: Emitter, c: Call) -> None:
    """The IR's Mod takes the dividend's sign: ONNX Mod with fmod=1."""
    _broadcast(c)
    e.one("Mod", c.inputs, c.outputs[0], fmod=1)


@converts("FloorMod")
def floor_mod(e: Emitter, c: Call) -> None:
    """The divisor's sign: ONNX Mod fmod=0 for integers; floats as a - floor(a/b)*b."""
    _broadcast(c)
    if c.out_info[0].etype.is_integer:
        e.one("Mod", c.inputs, c.outputs[0], fmod=0)
        return
    a, b = c.inputs
    e.one("Sub", [a, e.one("Mul", [e.one("Floor", [e.one("Div", [a, b])]), b])], c.outputs[0])


@converts("BitwiseLeftShift", "BitwiseRightShift")
def shift(e: Emitter, c: Call) -> None:
    """ONNX BitShift (unsigned integers only). The IR counts modulo the width the value is
    shifted in (the type's, at least 32 bits: irrun.ops.binary); ONNX leaves a count past the
    width undefined, so counts not known to be below it are taken modulo it first."""
    et = c.out_info[0].etype
    if not et.name.startswith("u"):
        raise Unexpressible("ONNX BitShift takes unsigned integers only")
    x, count = c.inputs
    width = max(8 * np.dtype(et.dtype).itemsize, 32)
    known = c.in_info[1].value
    if known is None or np.any(np.asarray(known) >= width):
        count = e.one("Mod", [count, e.scalar(width, et)], fmod=0)
    e.one("BitShift", [x, count], c.outputs[0],
          direction="LEFT" if c.op.type == "BitwiseLeftShift" else "RIGHT")


UNARY = {"Abs": "Abs", "Acos": "Acos", "Acosh": "Acosh", "Asin": "Asin", "Asinh": "Asinh",
          "Atan": "Atan", "Atanh": "Atanh", "Ceiling": "Ceil", "Cos": "Cos", "Cosh": "Cosh",
          "Erf": "Erf", "Exp": "Exp", "Floor": "Floor", "Log": "Log", "Negative": "Neg",
          "Relu": "Relu", "Sigmoid": "Sigmoid", "Sign": "Sign", "Sin": "Sin", "Sinh": "Sinh",
          "Sqrt": "Sqrt", "Tan": "Tan", "Tanh": "Tanh", "LogicalNot": "Not", "BitwiseNot": "BitwiseNot",
          "SoftPlus": "Softplus", "SoftSign": "Softsign", "Mish": "Mish", "HSwish": "HardSwish",
          "IsNaN": "IsNaN", "Identity": "Identity"}


#: ONNX ops defined on floats only; the IR runs them on integers too (in f64, then truncated)
_FLOAT_ONLY = frozenset({"Acos", "Acosh", "Asin", "Asinh", "Atan", "Atanh", "Ceil", "Cos", "Cosh", "Erf",
                         "Exp", "Floor", "Log", "Sigmoid", "Sin", "Sinh", "Sqrt", "Tan", "Tanh", "Softplus",
                         "Softsign", "Mish", "HardSwish", "Round"})


#: float-only ops whose integer form is the f64 result truncated, as OpenVINO computes it
#: (checked against OpenVINO's answers in tests/fixtures/math_expectations)
_INTEGER_VIA_F64 = frozenset({"Exp", "Log", "Sin"})


@converts(*UNARY)
def unary(e: Emitter, c: Call) -> None:
    """ONNX's op of the same semantics (table ``UNARY``); integer inputs of float-only ops: see ``_INTEGER_VIA_F64``."""
    name = UNARY[c.op.type]
    et = c.in_info[0].etype
    x = c.inputs[0]
    if et.name == "boolean":
        name = _ON_BOOLEANS.get(c.op.type, name)
    elif name == "Not":            # LogicalNot of numbers: x == 0
        e.one("Cast", [e.one("Equal", [x, e.scalar(0, et)])], c.outputs[0], to=onnx_type(c.out_info[0].etype))
        return
    if et.is_integer and (name in _FLOAT_ONLY or name == "Relu"):
        if name == "Relu":
            e.one("Max", [x, e.scalar(0, et)], c.outputs[0])
            return
        if name in ("Round", "Floor", "Ceil"):       # integers are whole already
            e.one("Identity", [x], c.outputs[0])
            return
        if name not in _INTEGER_VIA_F64:
            raise Unexpressible(f"{c.op.type} of integers: OpenVINO's integer rounding of it is not written yet")
        y = e.one(name, [e.cast(x, elements.TYPES["f64"])])
        e.one("Cast", [y], c.outputs[0], to=onnx_type(c.out_info[0].etype))
        return
    if name == "Sigmoid" and et.name in _EXACT_EXP:
        e.one("Div", [e.scalar(1, et), one_plus_exp_of_minus(e, x, et)], c.outputs[0])
        return
    e.one(name, [x], c.outputs[0])


#: types onnxruntime's Exp computes to the last place (<= 1 ulp, measured on [-20, 20])
_EXACT_EXP = frozenset({"f32", "f64"})


def one_plus_exp_of_minus(e: Emitter, x: str, et: ElementType) -> str:
    """``1 + exp(-x)``, the denominator of OpenVINO's (and irrun's) sigmoid and swish. Why not ONNX
    Sigmoid: onnxruntime's is an approximation, measured on f32 against the f64 formula: up to
    1.8e-6 relative on [-3, 0] and 2.4e-3 on [-10, -3] (its Exp: <= 1 ulp). In an INT8 model
    that error moves values across the next FakeQuantize's rounding steps, layer after layer
    (YOLOv8's SiLUs: boxes 0.02 relative L2 off OpenVINO's)."""
    return e.one("Add", [e.scalar(1, et), e.one("Exp", [e.one("Neg", [x])])])


@converts("HSigmoid")
def hsigmoid(e: Emitter, c: Call) -> None:
    """ONNX HardSigmoid with alpha 1/6, beta 0.5."""
    e.one("HardSigmoid", c.inputs, c.outputs[0], alpha=1 / 6, beta=0.5)


@converts("HardSigmoid")
def hard_sigmoid(e: Emitter, c: Call) -> None:
    """alpha and beta are inputs in the IR, attributes in ONNX: min(max(alpha*x + beta, 0), 1),
    NaN giving 1."""
    x, alpha, beta = c.inputs
    et = c.out_info[0].etype
    y = e.one("Add", [e.one("Mul", [x, alpha]), beta])
    clipped = e.one("Clip", [y, e.scalar(0, et), e.scalar(1, et)])
    # OpenVINO gives 1 where alpha * x + beta is NaN (``y > 0 ? (y < 1 ? y : 1) : 0`` with
    # NaN failing the first test the other way: irrun.ops.activations); ONNX Clip passes NaN
    e.where(e.one("IsNaN", [y]), e.scalar(1, et), clipped, et, c.outputs[0])


@converts("Selu")
def selu(e: Emitter, c: Call) -> None:
    """ONNX Selu; alpha and lambda must be constants (attributes in ONNX)."""
    alpha, lam = float(np.ravel(c.const(1))[0]), float(np.ravel(c.const(2))[0])
    e.one("Selu", c.inputs[:1], c.outputs[0], alpha=alpha, gamma=lam)


@converts("Elu")
def elu(e: Emitter, c: Call) -> None:
    """ONNX Elu."""
    e.one("Elu", c.inputs, c.outputs[0], alpha=float(c.op.alpha))


@converts("Swish")
def swish(e: Emitter, c: Call) -> None:
    """x / (1 + exp(-x * beta)) (beta an input, default 1), as OpenVINO's reference computes it
    (:func:`one_plus_exp_of_minus`: not ONNX Sigmoid); other types x * Sigmoid(beta * x)."""
    x = c.inputs[0]
    et = c.in_info[0].etype
    z = e.one("Mul", [x, c.inputs[1]]) if len(c.inputs) > 1 else x
    if et.name in _EXACT_EXP:
        e.one("Div", [x, one_plus_exp_of_minus(e, z, et)], c.outputs[0])
        return
    e.one("Mul", [x, e.one("Sigmoid", [z])], c.outputs[0])


@converts("Gelu")
def gelu(e: Emitter, c: Call) -> None:
    """ONNX Gelu-20 (approximate none / tanh)."""
    mode = getattr(c.op, "approximation_mode", "erf")
    e.one("Gelu", c.inputs, c.outputs[0], approximate="tanh" if mode == "tanh" else "none")


@converts("Clamp")
def clamp(e: Emitter, c: Call) -> None:
    """Integer tensors clamp to the bounds rounded inward (ceil(min), floor(max)), as OpenVINO;
    when that crosses them (min 0.2, max 0.8) the lower bound is tested first, as OpenVINO's
    ``x < min ? min : x > max ? max : x`` (ONNX Clip would give max everywhere)."""
    et = c.in_info[0].etype
    lo, hi = float(c.op.min), float(c.op.max)
    if et.is_integer:
        info = np.iinfo(et.dtype)
        lo, hi = max(np.ceil(lo), info.min), min(np.floor(hi), info.max)
        if lo > hi:     # min and max between two integers: x < ceil(min) ? ceil(min) : floor(max)
            x = c.inputs[0]
            e.where(e.one("Less", [x, e.scalar(lo, et)]), e.scalar(lo, et), e.scalar(hi, et), et, c.outputs[0])
            return
    e.one("Clip", [c.inputs[0], e.scalar(lo, et), e.scalar(hi, et)], c.outputs[0])


@converts("Round")
def round_(e: Emitter, c: Call) -> None:
    """half_to_even is ONNX Round; half_away_from_zero is sign(x) * floor(|x| + 0.5)."""
    if not c.in_info[0].etype.is_float:       # integers and booleans are whole already
        e.one("Identity", c.inputs, c.outputs[0])
        return
    if c.op.mode == "half_to_even":
        e.one("Round", c.inputs, c.outputs[0])
        return
    x = c.inputs[0]
    half = e.scalar(0.5, c.in_info[0].etype)
    e.one("Mul", [e.one("Sign", [x]), e.one("Floor", [e.one("Add", [e.one("Abs", [x]), half])])],
          c.outputs[0])


@converts("IsInf")
def is_inf(e: Emitter, c: Call) -> None:
    """ONNX IsInf with the same detect_negative/detect_positive."""
    e.one("IsInf", c.inputs, c.outputs[0], detect_negative=int(c.op.detect_negative),
          detect_positive=int(c.op.detect_positive))


@converts("IsFinite")
def is_finite(e: Emitter, c: Call) -> None:
    """Not(IsNaN or IsInf)."""
    x = c.inputs[0]
    e.one("Not", [e.one("Or", [e.one("IsNaN", [x]), e.one("IsInf", [x])])], c.outputs[0])


@converts("Select")
def select(e: Emitter, c: Call) -> None:
    """ONNX Where (in a wider carrier type where onnxruntime has none: :meth:`Emitter.where`)."""
    _broadcast(c)
    cond, a, b = c.inputs
    e.where(cond, a, b, c.out_info[0].etype, c.outputs[0])


@converts("Convert")
def convert(e: Emitter, c: Call) -> None:
    """ONNX Cast (float to integer truncates in both; integers to f16 saturate first, as
    OpenVINO: :func:`saturated_for_f16`). nf4 codes are decoded by a Gather from the NF4 table
    first, since ONNX has no nf4 type."""
    src, dst = c.in_info[0].etype, c.op.destination_type
    x = c.inputs[0]
    if src.name == "nf4":
        codes = e.one("Cast", [x], to=onnx_type(elements.TYPES["i64"]))
        x = e.one("Gather", [e.const(np.asarray(elements.NF4_TABLE, dtype=np.float32), "nf4_values"), codes])
        e.notes.append("nf4 weights are stored as uint8 codes and decoded by a Gather from the NF4 table")
    e.one("Cast", [saturated_for_f16(e, x, src, dst)], c.outputs[0], to=onnx_type(dst))


@converts("ConvertLike")
def convert_like(e: Emitter, c: Call) -> None:
    """ONNX CastLike (integers to f16 saturated first: :func:`saturated_for_f16`)."""
    src, dst = c.in_info[0].etype, c.in_info[1].etype
    x = saturated_for_f16(e, c.inputs[0], src, dst)
    if x != c.inputs[0]:
        e.one("Cast", [x], c.outputs[0], to=onnx_type(dst))
        return
    e.one("CastLike", c.inputs, c.outputs[0])


#: f16's largest finite value
_F16_MAX = 65504.0


def saturated_for_f16(e: Emitter, x: str, src: ElementType, dst: ElementType) -> str:
    """``x``, limited to f16's range when integers of ``src`` can pass it on their way to f16:
    OpenVINO saturates them (-70000 -> -65504; irrun.ops.convert), ONNX Cast gives inf. Through
    f32, which holds every integer of f16's range exactly, so the rounding stays a single one."""
    if dst.name != "f16" or not src.is_integer:
        return x
    info = np.iinfo(src.dtype)
    if -_F16_MAX <= info.min and info.max <= _F16_MAX:
        return x
    f32 = elements.TYPES["f32"]
    return e.one("Clip", [e.cast(x, f32), e.scalar(-_F16_MAX, f32), e.scalar(_F16_MAX, f32)])

