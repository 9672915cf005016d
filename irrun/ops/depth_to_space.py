"""DepthToSpace-1 and SpaceToDepth-1: move blocks between the channel axis and the K = rank-2
spatial axes of ``[N, C, D1..DK]``, each the inverse of the other for the same mode."""
from __future__ import annotations

from typing import ClassVar

from ..errors import OpError
from ..types.shapes import Dim, PartialShape
from ._indices import exact_div
from .base import Attr, Op, TensorInfo, spec_url
from .registry import register


class _BlockOp(Op):
    """Shared attributes, checks and shape rule; subclasses give ``_out_dims`` and ``_index``.

    Both attributes read as OpenVINO reads a missing one: ``mode`` -> blocks_first and
    ``block_size`` -> **0**, which is rejected (measured with 2026.4.1; the spec says default 1).
    """
    category = "movement"

    attrs = {"mode": Attr("enum", "blocks_first", required=True, choices=("blocks_first", "depth_first")),
             "block_size": Attr("int", 0)}
    _zero_block_size: ClassVar[str]        # OpenVINO's message for block_size 0 (differs per op)

    def _out_shape(self, shape: PartialShape) -> PartialShape:
        """OpenVINO's checks and the output shape; ``run`` calls it on the concrete shape."""
        bs = self.block_size
        if shape.rank is not None and shape.rank < 3:
            raise OpError("The input tensor with rank lower than 3 is not supported "
                          f"(input rank: {shape.rank})", port="input 0")
        if bs == 0:
            raise OpError(self._zero_block_size)
        if bs < 0:
            raise OpError("divisor must be greater than 0")
        if shape.rank is None:
            return shape
        return PartialShape(self._out_dims(list(shape), bs, bs ** (shape.rank - 2)))

    def infer(self, inputs):
        (x,) = inputs
        return [TensorInfo(x.etype, self._out_shape(x.shape))]

    def run(self, x):
        out = self._out_shape(PartialShape(x.shape)).to_tuple()
        k, bs = x.ndim - 2, self.block_size
        shape, perm = self._index(x.shape, k, bs)
        return [x.reshape(shape).transpose(perm).reshape(out)]


@register
class DepthToSpace1(_BlockOp):
    """``[N, C, D..] -> [N, C/bs^K, D*bs..]``: the spec's reshape-transpose-reshape (a copy)."""

    type, version = "DepthToSpace", "opset1"
    spec = spec_url("movement/depth-to-space-1")
    _zero_block_size = "DepthToSpace: The divisor must not be 0"

    @staticmethod
    def _out_dims(dims: list[Dim], bs: int, divisor: int) -> list[Dim]:
        return [dims[0], exact_div(dims[1], divisor)] + [d * bs for d in dims[2:]]

    def _index(self, shape, k, bs):
        n, c, *ds = shape
        c2 = c // bs ** k
        if self.mode == "blocks_first":    # C = [bs]*K + [C']
            perm = [0, k + 1] + [a for i in range(k) for a in (k + 2 + i, 1 + i)]
            return (n, *[bs] * k, c2, *ds), perm
        perm = [0, 1] + [a for i in range(k) for a in (k + 2 + i, 2 + i)]   # C = [C'] + [bs]*K
        return (n, c2, *[bs] * k, *ds), perm


@register
class SpaceToDepth1(_BlockOp):
    """``[N, C, D..] -> [N, C*bs^K, D/bs..]``: the spec's reshape-transpose-reshape (a copy)."""

    type, version = "SpaceToDepth", "opset1"
    spec = spec_url("movement/space-to-depth-1")
    _zero_block_size = "The block size must be greater than 0 0"

    @staticmethod
    def _out_dims(dims: list[Dim], bs: int, multiplier: int) -> list[Dim]:
        return [dims[0], dims[1] * multiplier] + [exact_div(d, bs) for d in dims[2:]]

    def _index(self, shape, k, bs):
        n, c, *ds = shape
        split = [a for d in ds for a in (d // bs, bs)]                # [N, C, D1/bs, bs, ...]
        odd, even = list(range(3, 2 * k + 2, 2)), list(range(2, 2 * k + 1, 2))
        perm = [0] + odd + [1] + even if self.mode == "blocks_first" else [0, 1] + odd + even
        return (n, c, *split), perm
