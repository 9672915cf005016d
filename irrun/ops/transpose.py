"""Transpose-1: permute the axes of a tensor (a view)."""
from __future__ import annotations

from collections.abc import Sequence

from ..errors import OpError
from ..types.shapes import Dim, PartialShape
from .base import Op, TensorInfo, check_index_input, int_list, spec_url
from .registry import register

_P = "input 1"


def transpose_order(shape: PartialShape, order: Sequence[int]) -> list[int] | None:
    """Check ``input_order`` against the data shape (data-movement-ops.md §9) and return the
    permutation; an empty order reverses all axes (None while the rank is unknown)."""
    rank = shape.rank
    if not order:
        return None if rank is None else list(range(rank - 1, -1, -1))
    if rank is not None and len(order) != rank:
        raise OpError("Input order must have shape [n], where n is the rank of arg.", port=_P)
    if sorted(order) != list(range(len(order))):
        text = ", ".join(str(v + (1 << 64) if v < 0 else v) for v in order)   # printed as size_t
        raise OpError(f"Permutation AxisVector{{{text}}} is not valid for input shape {shape}",
                      port=_P)
    return list(order)


@register
class Transpose1(Op):
    """The output is ``x.transpose(order)``, a view. An order known only at run time gives the
    data rank with dynamic dims; the kernel then checks it with the same rule."""
    category = "movement"
    allocation = "inputs"        # irrun/ops/base.py: Op.allocation

    type, version = "Transpose", "opset1"
    spec = spec_url("movement/transpose-1")
    num_inputs = (2, 2)
    moves_values = (0,)          # value bounds pass through (irrun/ops/bounds.py)

    def infer(self, inputs):
        data, order = inputs
        check_index_input(order, _P, "Input order must have an integral number element type.",
                          "Input order must be a vector.")
        os_ = order.shape
        n = os_[0] if os_.rank == 1 else None
        rank = data.shape.rank
        if rank is not None and n is not None and n.is_static and n.lo not in (0, rank):
            raise OpError("Input order must have shape [n], where n is the rank of arg.", port=_P)
        if order.value is not None:
            order_value = int_list(order.value)
        elif n == Dim(0, 0):
            order_value = []                               # known to be empty: reverse
        else:
            if rank is None and n is not None and n.is_static:
                rank = n.lo
            return [TensorInfo(data.etype, PartialShape.dynamic(rank))]
        perm = transpose_order(data.shape, order_value)
        if perm is None:
            return [TensorInfo(data.etype, PartialShape(None))]
        if rank is None:
            return [TensorInfo(data.etype, PartialShape.dynamic(len(perm)))]
        return [TensorInfo(data.etype, PartialShape(data.shape[i] for i in perm))]

    def run(self, x, order):
        perm = int_list(order)
        if len(perm) != x.ndim or sorted(perm) != list(range(x.ndim)):   # (else: a valid order)
            perm = transpose_order(PartialShape(x.shape), perm)
        return [x.transpose(perm)]
