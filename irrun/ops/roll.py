"""Roll-7: shift elements cyclically along the given axes (``np.roll``).

A scalar ``shift`` applies to every axis in ``axes``, as the spec says (OpenVINO's CPU plugin
refuses that with more than one axis: "'shift' and 'axes' dimensions mismatch"; its reference
evaluator has no Roll kernel). A repeated axis is shifted by the sum of its shifts.
"""
from __future__ import annotations

import numpy as np

from ..errors import OpError
from .base import Op, TensorInfo, as_int64, normalize_axis, spec_url
from .registry import register

_MISMATCH = "If shift is a 1D vector, axes must be a 1D tensor of the same size."


def roll_axes(axes: np.ndarray, rank: int) -> list[int]:
    """Normalise the axes against the data rank (OpenVINO's message when one is out of range)."""
    return [normalize_axis(a, rank, port="input 2") for a in as_int64(axes).reshape(-1).tolist()]


@register
class Roll7(Op):
    """A copy (a roll cannot be a view); every element type, strings included."""
    category = "movement"
    allocation = "inputs"        # irrun/ops/base.py: Op.allocation (the output is the data's shape)

    type, version = "Roll", "opset7"
    spec = spec_url("movement/roll-7")
    num_inputs = (3, 3)

    def infer(self, inputs):
        data, shift, axes = inputs
        for info, name, port in ((shift, "Shift", 1), (axes, "Axes", 2)):
            if not (info.etype.is_dynamic or info.etype.name in ("i32", "i64")):
                raise OpError(f"{name} must have int32 or int64 element type.", port=f"input {port}")
        for info, name, port in ((shift, "Shift", 1), (axes, "Axes", 2)):
            if info.shape.rank is not None and info.shape.rank > 1:
                raise OpError(f"{name} must be a scalar or 1D tensor.", port=f"input {port}")
        if not (shift.shape.is_static and shift.shape.rank == 0) and not shift.shape.compatible(axes.shape):
            raise OpError(_MISMATCH, port="input 2")
        if axes.value is not None and data.shape.rank is not None:
            roll_axes(axes.value, data.shape.rank)
        return [TensorInfo(data.etype, data.shape)]

    def run(self, data, shift, axes):
        ax = roll_axes(axes, data.ndim)
        sh = as_int64(shift).reshape(-1).tolist()
        if shift.ndim == 0:
            sh = sh * len(ax)
        elif len(sh) != len(ax):
            raise OpError(_MISMATCH, port="input 2")
        if not ax or data.size == 0:
            return [data]
        return [np.roll(data, sh, ax)]
