"""Constant-1 (written ``Const`` in IR): a tensor stored in the .bin."""
from __future__ import annotations

import numpy as np

from .base import Attr, Op, Role, TensorInfo, spec_url
from .registry import register


@register
class Constant1(Op):
    """The reader decodes the bytes (a view of the memory-mapped .bin where possible)."""
    role = Role.CONSTANT

    type, version = "Constant", "opset1"
    spec = spec_url("infrastructure/constant-1")
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
