"""ConvertLike-1: convert ``data`` to the element type of ``like`` (whose values are ignored).
Spec: https://docs.openvino.ai/2026/documentation/openvino-ir-format/operation-sets/operation-specs/type/convert-like-1.html

The conversion is Convert-1's (:class:`irrun.ops.convert.Convert`): one rule for both ops.
"""
from __future__ import annotations

from .base import Op, TensorInfo
from .convert import Convert
from .registry import register


@register
class ConvertLike1(Op):
    type, version = "ConvertLike", "opset1"
    spec = "https://docs.openvino.ai/2026/documentation/openvino-ir-format/operation-sets/operation-specs/type/convert-like-1.html"
    rounds_to_declared_type = True
    num_inputs = (2, 2)
    restrictions = Convert.restrictions

    def infer(self, inputs):
        data, like = inputs
        self._convert = Convert(destination_type=like.etype)
        if like.etype.is_dynamic:
            return [TensorInfo(like.etype, data.shape)]
        return self._convert.infer([data])

    def run(self, data, like):
        return self._convert.run(data)
