"""Result-1: a model output. Spec: https://docs.openvino.ai/2026/documentation/openvino-ir-format/operation-sets/operation-specs/infrastructure/result-1.html"""
from __future__ import annotations

from .base import Op, Role
from .registry import register


@register
class Result(Op):
    """Has one input and no output port; the executor returns its input under the output's name."""
    role = Role.RESULT

    type, version = "Result", "opset1"
    spec = "https://docs.openvino.ai/2026/documentation/openvino-ir-format/operation-sets/operation-specs/infrastructure/result-1.html"

    def infer(self, inputs):
        return []

    def run(self, x):
        return []
