"""ShuffleChannels-1: interleave the groups of one axis (the ShuffleNet channel shuffle)."""
from __future__ import annotations

import math

from ..errors import OpError
from ..types.shapes import PartialShape
from .base import Attr, Op, TensorInfo, normalize_axis, spec_url
from .registry import register


def channel_axis(shape: PartialShape, axis: int, group: int) -> int | None:
    """OpenVINO's checks (data-movement-ops.md §5); the normalised axis, None for dynamic rank.
    Divisibility is only checked on a static dim, as OpenVINO does; ``run`` sees static ones."""
    if group < 1:
        raise OpError("The 'group' parameter must be greater or equal to 1.")
    if shape.rank is None:
        return None
    if shape.rank == 0:
        raise OpError("The input tensor's shape is expected to be at least 1D.", port="input 0")
    ax = normalize_axis(axis, shape.rank)
    if shape[ax].is_static and shape[ax].lo % group:
        raise OpError("The channel dimension size has to be a multiple of the groups parameter "
                      "value.", port="input 0")
    return ax


@register
class ShuffleChannels1(Op):
    """View as ``[outer, group, C/group, inner]``, swap the middle pair, reshape back (a copy)."""
    category = "movement"

    type, version = "ShuffleChannels", "opset1"
    spec = spec_url("movement/shuffle-channels-1")
    attrs = {"axis": Attr("int", 1), "group": Attr("int", 1)}

    def infer(self, inputs):
        (x,) = inputs
        channel_axis(x.shape, self.axis, self.group)
        return [TensorInfo(x.etype, x.shape)]

    def run(self, x):
        ax = channel_axis(PartialShape(x.shape), self.axis, self.group)
        g, c = self.group, x.shape[ax]
        outer, inner = math.prod(x.shape[:ax]), math.prod(x.shape[ax + 1:])
        return [x.reshape(outer, g, c // g, inner).transpose(0, 2, 1, 3).reshape(x.shape)]
