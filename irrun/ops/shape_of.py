"""ShapeOf-1/3: the shape of a tensor as a 1-D integer tensor."""
from __future__ import annotations

import numpy as np

from ..errors import OpError
from ..types.elements import TYPES
from ..types.shapes import PartialShape
from . import bounds
from .base import Attr, Op, TensorInfo, spec_url
from .registry import register


@register
class ShapeOf1(Op):
    """ShapeOf-1 always returns i64. Its value is known to shape inference whenever the input
    shape is static, which is what lets constant sub-graphs (ShapeOf -> Gather -> Concat ->
    Reshape) resolve; with a static rank its dims' intervals are value bounds (irrun/ops/bounds.py)."""
    category = "shape"

    type, version = "ShapeOf", "opset1"
    spec = spec_url("shape/shape-of-1")
    out_type = TYPES["i64"]

    def infer(self, inputs):
        (x,) = inputs
        out_shape = PartialShape([x.shape.rank] if x.shape.rank is not None else [-1])
        if x.shape.is_static:
            return [TensorInfo(self.out_type, out_shape, np.array(x.shape.to_tuple(), dtype=self.out_type.dtype))]
        info = TensorInfo(self.out_type, out_shape)
        b = bounds.of_shape(x.shape, self.out_type)      # each dim's interval: value bounds
        return [info if b is None else bounds.with_bounds(info, *b)]

    def run(self, x):
        return [np.array(x.shape, dtype=self.out_type.dtype)]


@register
class ShapeOf3(ShapeOf1):
    """ShapeOf-3 adds ``output_type`` (i32 or i64, default i64)."""

    version = "opset3"
    spec = spec_url("shape/shape-of-3")
    attrs = {"output_type": Attr("etype", required=True)}   # OpenVINO refuses it missing

    def __init__(self, **attrs):
        super().__init__(**attrs)
        if self.output_type.name not in ("i32", "i64"):
            raise OpError(f"output_type must be i32 or i64, got {self.output_type}")
        self.out_type = self.output_type
