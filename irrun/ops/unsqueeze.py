"""Unsqueeze-1: insert dimensions of size 1 (a view)."""
from __future__ import annotations

from collections.abc import Sequence

from ..errors import OpError
from ..types.shapes import DYN, Dim, PartialShape
from ._indices import axes_values, check_axes_info
from .base import Op, TensorInfo, normalize_axis, spec_url
from .registry import register


def unsqueeze_shape(shape: PartialShape, axes: Sequence[int]) -> PartialShape:
    """OpenVINO's duplicate rules (data-movement-ops.md §11): axes are normalised against
    ``rank + number of distinct raw values``, then the distinct normalised axes are inserted in
    ascending order (appended when past the end), so ``[3,-1]`` on ``[2,3]`` gives ``[2,3,1]``."""
    if not axes:
        raise OpError("'axes' input is mandatory", port="input 1")
    if shape.rank is None:
        return PartialShape(None)
    return PartialShape(unsqueezed(list(shape), axes, Dim(1, 1)))


def unsqueezed(dims: list, axes: Sequence[int], one: object = 1) -> list:
    """The rule of :func:`unsqueeze_shape` on a list of dims (Dims, or the ints of a concrete
    shape, the kernel's: no PartialShape per run), ``one`` inserted at each axis."""
    raw = set(axes)
    out_rank = len(dims) + len(raw)
    out = list(dims)
    for a in sorted({normalize_axis(a, out_rank) for a in raw}):
        if a > len(out) + 1:
            raise OpError(f"provided 'axes' value {a} is not valid.", port="input 1")
        out.insert(a, one)             # list.insert past the end appends, as OpenVINO does
    return out


@register
class Unsqueeze1(Op):
    """``x.reshape`` to the new shape, a view. Axes known only at run time: one axis gives rank + 1
    with dynamic dims, several (duplicates may collapse) a dynamic rank."""
    category = "movement"
    allocation = "inputs"        # irrun/ops/base.py: Op.allocation

    type, version = "Unsqueeze", "opset1"
    spec = spec_url("shape/unsqueeze-1")
    num_inputs = (2, 2)
    moves_values = (0,)          # value bounds pass through (irrun/ops/bounds.py)

    def infer(self, inputs):
        data, axes = inputs
        check_axes_info(axes)
        if axes.value is not None:
            return [TensorInfo(data.etype, unsqueeze_shape(data.shape, axes_values(axes.value)))]
        n = axes.shape.max_numel()
        if n == 0:
            raise OpError("'axes' input is mandatory", port="input 1")
        if n == 1 and data.shape.rank is not None:
            return [TensorInfo(data.etype, PartialShape([DYN] * (data.shape.rank + 1)))]
        return [TensorInfo(data.etype, PartialShape(None))]

    def run(self, x, axes):
        ax = axes_values(axes)
        if not ax:
            raise OpError("'axes' input is mandatory", port="input 1")
        return [x.reshape(unsqueezed(list(x.shape), ax))]
