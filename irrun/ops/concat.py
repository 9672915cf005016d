"""Concat-1: join tensors along an axis."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..errors import OpError
from ..limits.memory import check_alloc
from ..types.elements import DYNAMIC
from ..types.shapes import DYN, Dim, PartialShape
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
    moves_values = "all"          # value bounds pass through (irrun/ops/bounds.py)

    def infer(self, inputs):
        etype = DYNAMIC
        for t in inputs:
            if not t.etype.is_dynamic:
                if not etype.is_dynamic and t.etype != etype:
                    raise OpError("Argument element types are inconsistent.")
                etype = t.etype
        return [TensorInfo(etype, concat_shape([t.shape for t in inputs], self.axis))]

    def run(self, *xs):
        if len(xs) == 1:
            normalize_axis(self.axis, xs[0].ndim)
            return [xs[0][...]]
        shape = concatenated([x.shape for x in xs], self.axis)
        if shape is None:       # the general rule's error (a run-time mismatch of dynamic dims)
            shape = concat_shape([PartialShape(x.shape) for x in xs], self.axis).to_tuple()
        check_alloc(shape, xs[0].dtype, like=xs)
        return [np.concatenate(xs, axis=normalize_axis(self.axis, len(shape)))]


def concat_shape(shapes: Sequence[PartialShape], axis: int) -> PartialShape:
    """The output shape (OpenVINO's rule, see :class:`Concat1`), for ``infer`` and for a run the
    fast path declines (so that a run-time mismatch gets the same message)."""
    ranked = [s.dims for s in shapes if s.dims is not None]
    if not ranked:
        return PartialShape(None)
    if any(not d for d in ranked):
        raise OpError("Accessing out-of-range dimension")
    rank = len(ranked[0])
    ax = normalize_axis(axis, rank)
    dims = list(ranked[0])
    for i, s in enumerate(shapes):
        if s.rank is None:
            continue
        merged = [d.intersect(e) for d, e in zip(dims, s)] if s.rank == rank else None
        if merged is None or any(m is None for j, m in enumerate(merged) if j != ax):
            raise OpError("Argument shapes are inconsistent; they must have the same rank, and "
                          "must have equal dimension everywhere except on the concatenation "
                          f"axis (axis {ax}).", port=f"input {i}")
        dims = [d if j == ax or m is None else m for j, (d, m) in enumerate(zip(dims, merged))]
    dims[ax] = sum((DYN if s.rank is None else s[ax] for s in shapes), start=Dim(0, 0))
    return PartialShape(dims)


def concatenated(shapes: Sequence[tuple[int, ...]], axis: int) -> tuple[int, ...] | None:
    """:func:`concat_shape` of concrete shapes on plain ints (the kernel's common case); None
    where the general rule must decide (a scalar, an axis out of range, shapes that differ off
    the axis: its error message)."""
    first = shapes[0]
    r = len(first)
    ax = axis + r if axis < 0 else axis
    if not 0 <= ax < r:
        return None
    head, tail = first[:ax], first[ax + 1:]
    total = 0
    for s in shapes:
        if len(s) != r or s[:ax] != head or s[ax + 1:] != tail:
            return None
        total += s[ax]
    return head + (total,) + tail
