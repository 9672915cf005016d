"""Reverse-1 (opset1 only): flip the data along the given axes — a view (``np.flip``).


``mode="index"``: input 1 lists axes (any integer type, negative from the end, repeats allowed);
``mode="mask"``: input 1 is a boolean per axis.
"""
from __future__ import annotations

import numpy as np

from ..errors import OpError
from ..types.shapes import PartialShape
from .base import Attr, Op, TensorInfo, as_int64, spec_url
from .registry import register


def reverse_axes(shape: PartialShape, axes: np.ndarray, mode: str) -> list[int]:
    """The axes to flip, checked like OpenVINO (shared by ``infer`` and ``run``)."""
    rank = shape.rank
    if mode == "mask":
        flags = np.asarray(axes).reshape(-1)
        if rank is not None and flags.size != rank:
            raise OpError(f"The number of elements in the reversed_axes tensor ({flags.size}) must match the "
                          f"input data tensor rank ({rank}) in 'mask' mode.", port="input 1")
        return [i for i, f in enumerate(flags.tolist()) if f]
    vals = as_int64(axes).reshape(-1).tolist()
    if rank is None:
        return vals
    bad = [a for a in vals if not -rank <= a < rank]
    if bad:
        raise OpError(f"Some of the provided axes (AxisSet{{{', '.join(map(str, sorted(set(bad))))}}}) are out of "
                      f"bounds (input rank: {rank}).", port="input 1")
    return sorted({a % rank for a in vals})


@register
class Reverse1(Op):
    """Reverse-1; see the module docstring."""
    category = "movement"

    type, version = "Reverse", "opset1"
    spec = spec_url("movement/reverse-1")
    attrs = {"mode": Attr("enum", required=True, choices=("index", "mask"))}
    num_inputs = (2, 2)

    def infer(self, inputs):
        x, axes = inputs
        if axes.shape.rank not in (None, 1):
            raise OpError(f"The reversed_axes input must be a 1D tensor (got {axes.shape.rank}).", port="input 1")
        et = axes.etype
        if self.mode == "mask" and not (et.is_dynamic or et.name == "boolean"):
            raise OpError("In 'mask' mode the second input must contain boolean values.", port="input 1")
        if self.mode == "index" and not (et.is_dynamic or et.is_integer):
            raise OpError("In 'index' mode the second input must contain integer values.", port="input 1")
        if axes.value is not None:
            reverse_axes(x.shape, axes.value, self.mode)
        elif self.mode == "mask" and x.shape.rank is not None and axes.shape.rank == 1 \
                and axes.shape[0].is_static and axes.shape[0].lo != x.shape.rank:
            reverse_axes(x.shape, np.zeros(axes.shape[0].lo, bool), self.mode)
        return [TensorInfo(x.etype, x.shape)]

    def run(self, x, axes):
        ax = reverse_axes(PartialShape(x.shape), axes, self.mode)
        return [np.flip(x, axis=tuple(ax)) if ax else x]
