"""Concat-1: join tensors along an axis."""
from __future__ import annotations

import numpy as np

from ..budget import check_alloc
from ..elements import DYNAMIC
from ..errors import OpError
from ..shapes import DYN, Dim, PartialShape
from .base import Attr, Op, TensorInfo, normalize_axis, spec_url
from .registry import register


@register
class Concat1(Op):
    """``np.concatenate`` (a copy; one input is returned as a view). Shape inference follows
    OpenVINO: dims off the axis are merged (intervals intersected: ``[?,3]+[2,?]`` on axis 1 ->
    ``[2,3..]``), the axis dim is the sum, and a dynamic-rank input adds ``?`` to it.
    A missing ``axis`` reads as 0, as in OpenVINO."""
    category = "movement"
    allocation = "checked"        # irrun/ops/base.py: Op.allocation

    type, version = "Concat", "opset1"
    spec = spec_url("movement/concat-1")
    attrs = {"axis": Attr("int", 0, required=True)}
    num_inputs = (1, None)
    moves_values = "all"          # value bounds pass through (irrun/bounds.py)

    def infer(self, inputs):
        etype = DYNAMIC
        for t in inputs:
            if not t.etype.is_dynamic:
                if not etype.is_dynamic and t.etype != etype:
                    raise OpError("Argument element types are inconsistent.")
                etype = t.etype
        ranked = [t.shape for t in inputs if t.shape.rank is not None]
        if not ranked:
            return [TensorInfo(etype, PartialShape(None))]
        if any(s.rank == 0 for s in ranked):
            raise OpError("Accessing out-of-range dimension")
        rank = ranked[0].rank
        ax = normalize_axis(self.axis, rank)
        dims = list(ranked[0])
        for i, t in enumerate(inputs):
            s = t.shape
            if s.rank is None:
                continue
            merged = [d.intersect(e) for d, e in zip(dims, s)] if s.rank == rank else None
            if merged is None or any(m is None for j, m in enumerate(merged) if j != ax):
                raise OpError("Argument shapes are inconsistent; they must have the same rank, and "
                              "must have equal dimension everywhere except on the concatenation "
                              f"axis (axis {ax}).", port=f"input {i}")
            dims = [d if j == ax else m for j, (d, m) in enumerate(zip(dims, merged))]
        dims[ax] = sum((DYN if t.shape.rank is None else t.shape[ax] for t in inputs), start=Dim(0, 0))
        return [TensorInfo(etype, PartialShape(dims))]

    def run(self, *xs):
        ax = normalize_axis(self.axis, xs[0].ndim)
        if len(xs) == 1:
            return [xs[0][...]]
        check_alloc(xs[0].shape[:ax] + (sum(x.shape[ax] for x in xs),) + xs[0].shape[ax + 1:],
                    xs[0].dtype, like=xs)
        return [np.concatenate(xs, axis=ax)]
