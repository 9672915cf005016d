"""Result-1: a model output."""
from __future__ import annotations

from .base import Op, Role, spec_url
from .registry import register


@register
class Result1(Op):
    """Has one input and no output port; the executor returns its input under the output's name."""
    role = Role.RESULT

    type, version = "Result", "opset1"
    spec = spec_url("infrastructure/result-1")

    def infer(self, inputs):
        return []

    def run(self, x):
        return []
