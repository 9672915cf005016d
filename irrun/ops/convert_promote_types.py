"""ConvertPromoteTypes-14: both inputs converted to one common element type, by PyTorch-like
promotion rules (the PyTorch frontend writes it; a transformation usually resolves it first).

Spec: https://docs.openvino.ai/2026/documentation/openvino-ir-format/operation-sets/operation-specs/type/convert-promote-types-14.html

The common type, as OpenVINO's ``evaluate_common_type``: equal types stay; boolean yields to the
other; float with integer gives the float (safe mode: only if it has at least twice the bits);
with ``pytorch_scalar_promotion`` a scalar of the same kind (both float or both integer) takes
the other input's type (safe mode: if that can hold it); signed with unsigned integers give the
signed type of twice the unsigned bits (or the signed one if wider; u64: the
``u64_integer_promotion_target``, unsafe mode only); same kind and sign: the wider; f16 with bf16
give f32 and f8e4m3 with f8e5m2 f16 (unsafe mode only). Anything else is rejected. Each output
is then Convert-1 of its input, with the input's shape.
"""
from __future__ import annotations

from ..elements import TYPES, ElementType
from ..errors import OpError
from .base import Attr, Op, TensorInfo
from .convert import Convert
from .registry import register

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
class ConvertPromoteTypes(Op):
    """ConvertPromoteTypes-14; see the module docstring."""

    type, version = "ConvertPromoteTypes", "opset14"
    spec = "https://docs.openvino.ai/2026/documentation/openvino-ir-format/operation-sets/operation-specs/type/convert-promote-types-14.html"
    attrs = {"promote_unsafe": Attr("bool", False), "pytorch_scalar_promotion": Attr("bool", False),
             "u64_integer_promotion_target": Attr("etype", TYPES["f32"])}
    num_inputs = (2, 2)

    def infer(self, inputs):
        a, b = inputs
        t = common_type(a, b, self.promote_unsafe, self.pytorch_scalar_promotion, self.u64_integer_promotion_target)
        self.converts = [Convert(destination_type=t), Convert(destination_type=t)]
        if not t.is_dynamic:
            for c, info in zip(self.converts, inputs):
                c.infer([info])
        return [TensorInfo(t, a.shape), TensorInfo(t, b.shape)]

    def run(self, a, b):
        return [self.converts[0].run(a)[0], self.converts[1].run(b)[0]]
