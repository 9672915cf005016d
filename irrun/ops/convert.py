"""Convert-1: element-wise type conversion; ConvertLike-1: the same conversion to the element type
of a second input (whose values are ignored); ConvertPromoteTypes-14: both inputs converted to a
common type: one conversion rule for the three ops.

ConvertPromoteTypes' common type, as OpenVINO's ``evaluate_common_type``: equal types stay;
boolean yields to the other; float with integer gives the float (safe mode: only if it has at least twice the bits);
with ``pytorch_scalar_promotion`` a scalar of the same kind (both float or both integer) takes
the other input's type (safe mode: if that can hold it); signed with unsigned integers give the
signed type of twice the unsigned bits (or the signed one if wider; u64: the
``u64_integer_promotion_target``, unsafe mode only); same kind and sign: the wider; f16 with bf16
give f32 and f8e4m3 with f8e5m2 f16 (unsafe mode only). Anything else is rejected. Each output
is then Convert-1 of its input, with the input's shape.
"""
from __future__ import annotations

import ml_dtypes
import numpy as np

from ..errors import OpError
from ..types.elements import NF4_TABLE, TYPES, ElementType
from . import bounds, fast_paths
from .base import Attr, Op, Precision, TensorInfo, spec_url
from .registry import register

_NO_TARGET = {"u1", "u2", "u3", "u6", "nf4", "string", "dynamic"}


@register
class Convert1(Op):
    """Floats to integers truncate toward zero, then wrap modulo 2^N like integers do (measured
    on OpenVINO 2026.4.1: f32 -300.2 -> u8 212, -> i8 -44); negative integers wrap into unsigned
    types (C++ rules, as the spec says); out-of-range floats to i32/i64 are undefined in the spec;
    anything to boolean is ``x != 0``; nf4 codes decode through
    the NF4 table (the weight-decompression pattern Const(nf4) -> Convert -> Multiply).
    Low float targets, measured (CPU and reference agree): f32/f64 -> f8e4m3/f8e5m2 round twice,
    through f16; f4e2m1 turns NaN into +-6; f8e8m0 has its own rule (:func:`_to_f8e8m0`)."""
    category = "elementwise"
    precision = Precision.CONVERT | Precision.INSERTED
    allocation = "inputs"        # irrun/ops/base.py: Op.allocation
    elementwise = True

    type, version = "Convert", "opset1"
    spec = spec_url("type/convert-1")
    attrs = {"destination_type": Attr("etype", required=True)}
    restrictions = "no conversion to u1/u2/u3/u6/nf4/string"
    rounds_to_declared_type = True

    def bounds(self, inputs, outputs):
        return bounds.cast(inputs[0], outputs[0])

    def infer(self, inputs):
        (x,) = inputs
        if self.destination_type.name in _NO_TARGET:
            raise OpError(f"irrun does not support Convert to {self.destination_type}", unsupported=True)
        if x.etype.name == "string":
            raise OpError("irrun does not support Convert from string", unsupported=True)
        if {x.etype.name, self.destination_type.name} == {"i4", "u4"}:
            # (ml_dtypes casts neither way between int4 and uint4; OpenVINO's rule is unmeasured)
            raise OpError(f"irrun does not support Convert from {x.etype} to {self.destination_type}",
                          unsupported=True)
        self.source_type = x.etype  # nf4 arrays hold codes: run() must know to decode them
        return [TensorInfo(self.destination_type, x.shape)]

    #: A Convert to f16 in a constant sub-graph widened to f32 (:meth:`widen_f16`): the f16 step
    #: that still rounds its values, as OpenVINO folds the Convert before computing in f32.
    rounding: "Convert1 | None" = None

    def widen_f16(self, constant: bool) -> None:
        """A Convert to f16 becomes one to f32: a no-op on a live path (OpenVINO's CPU plugin at
        f32 inference precision), a rounding through f16 in a constant sub-graph (measured:
        irrun/analysis/execution_types.py)."""
        if self.destination_type.name == "f16" and constant:
            self.rounding = Convert1(destination_type=self.destination_type)
        super().widen_f16(constant)

    def run(self, x):
        dst = self.destination_type
        if self.rounding is not None:
            self.rounding.source_type = getattr(self, "source_type", None)
            (x,) = self.rounding.run(x)
            return [x.astype(dst.dtype)]
        if getattr(self, "source_type", None) is not None and self.source_type.name == "nf4":
            x = NF4_TABLE[x]
        if x.dtype == dst.dtype:
            return [x]
        if dst.name == "boolean":
            return [x != 0]
        if dst.dtype.kind in "iu" and x.dtype.kind not in "iub":   # any float type -> integer
            with np.errstate(invalid="ignore"):
                t = np.trunc(x.astype(np.float64))
                # then wraps like integers; NaN -> INT_MIN of a 32/64-bit target, 0 of a narrower one
                x = t.astype(np.int32) if dst.dtype.itemsize == 4 else t.astype(np.int64)
        elif dst.name == "f16" and x.dtype.kind in "iu":
            x = np.clip(x, -65504, 65504)        # OpenVINO saturates integers to f16's range
        elif dst.name in ("f8e4m3", "f8e5m2") and x.dtype.kind not in "iub":
            x = x.astype(np.float16)             # OpenVINO rounds twice: to f16, then to f8
        elif dst.name == "f8e8m0":
            return [_to_f8e8m0(x)]
        elif dst.name == "f4e2m1" and x.dtype.kind not in "iub":   # NaN saturates, sign kept
            with np.errstate(invalid="ignore"):
                return [np.where(np.isnan(x), np.copysign(6.0, x), x).astype(dst.dtype)]
        return [x.astype(dst.dtype)]


#: Sources whose every value a narrow float (f16, bf16: 8 significant bits) holds exactly.
_SMALL_INTS = frozenset({"u1", "u2", "u3", "u4", "u6", "u8", "i4", "i8", "boolean"})


def _exact(op: Convert1, x: np.ndarray) -> np.ndarray | None:
    """Small integers to f16/bf16 are exact: their f32 value, without the slow narrow cast."""
    src = getattr(op, "source_type", None)
    if src is not None and src.name in _SMALL_INTS and op.destination_type.name in ("f16", "bf16"):
        return x.astype(np.float32)
    return None


fast_paths.EXACT_CONSTANT[Convert1] = _exact


def _to_f8e8m0(x: np.ndarray) -> np.ndarray:
    """OpenVINO's rounding to f8e8m0 (a bare power of two, code = biased exponent), measured on
    2026.4.1 for f32/f16 inputs (CPU and reference agree; other sources have no OpenVINO kernel
    and go through f32 here): the f32 bits round to the nearest code, ties to the even code
    (1.5 -> 2, 3 -> 2); anything with the sign bit set (-0, negatives, -inf, -NaN) -> code 0
    (2^-127); +inf and overflow saturate to code 254 (2^127); NaN -> code 255. f32 subnormals
    give code 1 above 1.5 * 2^-127, else 0. (ml_dtypes' cast differs: NaN for <= 0, ties up.)"""
    bits = np.asarray(x, np.float32).view(np.uint32)
    exp, mant = (bits >> 23) & 0xFF, bits & 0x7FFFFF
    up = (mant > 0x400000) | ((mant == 0x400000) & ((exp & 1) == 1))
    code = np.minimum(np.where(exp == 0, mant > 0x600000, exp + up), 254)
    code = np.where(exp == 255, np.where(mant != 0, 255, 254), code)
    code = np.where(bits >> 31 != 0, 0, code)
    return code.astype(np.uint8).view(ml_dtypes.float8_e8m0fnu)


@register
class ConvertLike1(Op):
    category = "elementwise"
    type, version = "ConvertLike", "opset1"
    spec = spec_url("type/convert-like-1")
    rounds_to_declared_type = True
    num_inputs = (2, 2)
    restrictions = Convert1.restrictions

    def infer(self, inputs):
        data, like = inputs
        self._convert = Convert1(destination_type=like.etype)
        if like.etype.is_dynamic:
            return [TensorInfo(like.etype, data.shape)]
        return self._convert.infer([data])

    def run(self, data, like):
        return self._convert.run(data)


_SUPPORTED = {"dynamic", "boolean", "f16", "f32", "f64", "i4", "i8", "i16", "i32", "i64", "u1", "u4", "u8",
              "u16", "u32", "u64", "f8e4m3", "f8e5m2", "bf16"}


def common_type(a: TensorInfo, b: TensorInfo, unsafe: bool, scalar_rule: bool, u64_target: ElementType) -> ElementType:
    """The promoted element type; OpError where OpenVINO rejects the pair."""
    x, y = a.etype, b.etype
    if x.name not in _SUPPORTED or y.name not in _SUPPORTED:
        raise OpError(f"ConvertPromoteTypes does not take {x} and {y}.")
    if x.is_dynamic or y.is_dynamic:
        return TYPES["dynamic"]
    if x == y:
        return x
    if x.name == "boolean":
        return y
    if y.name == "boolean":
        return x
    if x.is_float != y.is_float:
        real, integer = (x, y) if x.is_float else (y, x)
        if not unsafe and real.bits < integer.bits * 2:
            raise OpError("Integer input cannot be safely promoted to floating-point.")
        return real
    scalar = [t.shape.rank == 0 for t in (a, b)]
    signed = [t.is_float or t.name.startswith("i") for t in (x, y)]
    if scalar_rule and scalar[0] != scalar[1]:
        target, small = (y, x) if scalar[0] else (x, y)
        t_signed, s_signed = (signed[1], signed[0]) if scalar[0] else (signed[0], signed[1])
        if not unsafe and not ((t_signed == s_signed and target.bits >= small.bits) or
                               (t_signed and not s_signed and target.bits * 2 >= small.bits)):
            raise OpError("Scalar input cannot be PyTorch-like promoted using safe promotion rules.")
        return target
    if signed[0] != signed[1]:
        ubits, ibits = (y.bits, x.bits) if signed[0] else (x.bits, y.bits)
        if ubits <= 32 and (unsafe or ubits * 2 <= ibits):
            return TYPES[f"i{max(ubits * 2, ibits)}"]
        if not unsafe:
            raise OpError("Unsigned integer input cannot be safely promoted into any supported signed integer.")
        return u64_target
    if x.bits != y.bits:
        return x if x.bits > y.bits else y
    if unsafe and {x.name, y.name} == {"f8e4m3", "f8e5m2"}:
        return TYPES["f16"]
    if unsafe and {x.name, y.name} == {"f16", "bf16"}:
        return TYPES["f32"]
    raise OpError("Unsupported input element types for ConvertPromoteTypes with given attributes.")


@register
class ConvertPromoteTypes14(Op):
    """ConvertPromoteTypes-14; see the module docstring."""
    category = "elementwise"
    rounds_to_declared_type = True

    type, version = "ConvertPromoteTypes", "opset14"
    spec = spec_url("type/convert-promote-types-14")
    attrs = {"promote_unsafe": Attr("bool", False), "pytorch_scalar_promotion": Attr("bool", False),
             "u64_integer_promotion_target": Attr("etype", TYPES["f32"])}
    num_inputs = (2, 2)

    def infer(self, inputs):
        a, b = inputs
        t = common_type(a, b, self.promote_unsafe, self.pytorch_scalar_promotion, self.u64_integer_promotion_target)
        self.converts = [Convert1(destination_type=t), Convert1(destination_type=t)]
        if not t.is_dynamic:
            for c, info in zip(self.converts, inputs):
                c.infer([info])
        return [TensorInfo(t, a.shape), TensorInfo(t, b.shape)]

    def run(self, a, b):
        return [self.converts[0].run(a)[0], self.converts[1].run(b)[0]]
