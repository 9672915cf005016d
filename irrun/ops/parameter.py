"""Parameter-1: a model input. Spec: https://docs.openvino.ai/2026/documentation/openvino-ir-format/operation-sets/operation-specs/infrastructure/parameter-1.html"""
from __future__ import annotations

from .base import Attr, Op, Role, TensorInfo
from .registry import register


@register
class Parameter(Op):
    """The executor feeds the user's array; shape may be dynamic or hold intervals."""
    role = Role.PARAMETER

    type, version = "Parameter", "opset1"
    spec = "https://docs.openvino.ai/2026/documentation/openvino-ir-format/operation-sets/operation-specs/infrastructure/parameter-1.html"
    attrs = {"shape": Attr("pshape", required=True), "element_type": Attr("etype", required=True)}
    num_inputs = (0, 0)

    def infer(self, inputs):
        return [TensorInfo(self.element_type, self.shape)]
