"""Tile-1: repeat a tensor along each axis (``np.tile``, a copy)."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..limits.memory import check_alloc
from ..types.shapes import Dim, PartialShape
from . import bounds
from .base import Op, TensorInfo, as_int64, check_index_input, spec_url
from .registry import register


def tile_repeats(shape: PartialShape, repeats: Sequence[int | Dim]) -> list[int | Dim]:
    """Repeats left-padded with 1s to the output rank; negative repeats count as 0 (measured:
    ``[2,3]`` x ``[-1,2]`` -> ``[0,6]``). A repeat may be an interval (value bounds)."""
    reps = [r if isinstance(r, Dim) else max(0, int(r)) for r in repeats]
    rank = shape.rank if shape.rank is not None else 0
    ones: list[int | Dim] = [1] * (rank - len(reps))
    return ones + reps


def tile_shape(shape: PartialShape, repeats: Sequence[int | Dim]) -> PartialShape:
    """Data shape left-padded with 1s to the longer of (rank, len(repeats)), times the repeats."""
    if shape.rank is None:
        return PartialShape(None)
    reps = tile_repeats(shape, repeats)
    dims = [Dim(1, 1)] * (len(reps) - shape.rank) + list(shape)
    return PartialShape(d * r for d, r in zip(dims, reps))


@register
class Tile1(Op):
    """Repeats known only at run time give rank max(data rank, number of repeats) with dynamic
    dims (dynamic rank when either is unknown); repeats with value bounds give intervals (the
    leading dims, repeated once, stay)."""
    category = "movement"
    allocation = "checked"        # irrun/ops/base.py: Op.allocation

    type, version = "Tile", "opset1"
    spec = spec_url("movement/tile-1")
    num_inputs = (2, 2)
    moves_values = (0,)          # value bounds pass through (irrun/ops/bounds.py)

    def infer(self, inputs):
        data, repeats = inputs
        check_index_input(repeats, "input 1",
                          f"Tile repeats must have any integer element type, but has {repeats.etype}",
                          "Tile repeats must be of rank 1")
        rs = repeats.shape
        if repeats.value is not None:
            return [TensorInfo(data.etype, tile_shape(data.shape, as_int64(repeats.value).tolist()))]
        if repeats.lower is not None and rs.rank == 1:       # value bounds: interval dims
            return [TensorInfo(data.etype, tile_shape(data.shape, bounds.dims(repeats, "input 1")))]
        if data.shape.rank is None or rs.rank is None or not rs[0].is_static:
            return [TensorInfo(data.etype, PartialShape(None))]
        return [TensorInfo(data.etype, PartialShape.dynamic(max(data.shape.rank, rs[0].lo)))]

    def run(self, x, repeats):
        reps = as_int64(repeats).tolist()
        out = tile_shape(PartialShape(x.shape), reps).to_tuple()
        check_alloc(out, x.dtype, like=x)
        if 0 in out:      # np.tile's intermediates can pass NumPy's size limit even then
            return [np.empty(out, x.dtype)]
        return [np.tile(x, tile_repeats(PartialShape(x.shape), reps))]
