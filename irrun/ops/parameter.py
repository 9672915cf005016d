"""Parameter-1: a model input."""
from __future__ import annotations

from .base import Attr, Op, Role, TensorInfo, spec_url
from .registry import register


@register
class Parameter1(Op):
    """The executor feeds the user's array; shape may be dynamic or hold intervals."""
    role = Role.PARAMETER

    type, version = "Parameter", "opset1"
    spec = spec_url("infrastructure/parameter-1")
    attrs = {"shape": Attr("pshape", required=True), "element_type": Attr("etype", required=True)}
    num_inputs = (0, 0)

    def infer(self, inputs):
        return [TensorInfo(self.element_type, self.shape)]
