"""Constant-1 (written ``Const`` in IR): a tensor stored in the .bin.
Spec: https://docs.openvino.ai/2026/documentation/openvino-ir-format/operation-sets/operation-specs/infrastructure/constant-1.html"""
from __future__ import annotations

import numpy as np

from .base import Attr, Op, Role, TensorInfo
from .registry import register


@register
class Constant(Op):
    """The reader decodes the bytes (a view of the memory-mapped .bin where possible)."""
    role = Role.CONSTANT

    type, version = "Constant", "opset1"
    spec = "https://docs.openvino.ai/2026/documentation/openvino-ir-format/operation-sets/operation-specs/infrastructure/constant-1.html"
    attrs = {"element_type": Attr("etype", required=True), "shape": Attr("shape", required=True),
             "offset": Attr("int", 0), "size": Attr("int", 0)}
    num_inputs = (0, 0)
    value: np.ndarray

    @classmethod
    def from_layer(cls, data, const_value=None):
        op = super().from_layer(data)
        op.value = const_value
        return op

    def infer(self, inputs):
        return [TensorInfo.of(self.value, self.element_type)]

    def run(self):
        return [self.value]
