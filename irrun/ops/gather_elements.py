"""GatherElements-6: ``out[i][j][k] = data[i][indices[i][j][k]][k]`` (axis 1) — ``take_along_axis``."""
from __future__ import annotations

import numpy as np

from ..errors import OpError
from ..types.shapes import DYN, PartialShape
from ._indices import wrap_indices
from .base import Attr, Op, TensorInfo, normalize_axis, spec_url
from .registry import register

_NOTE = "OpenVINO's CPU plugin refuses it: indices values of GatherElement exceed data size"


def gather_elements_shape(data: PartialShape, indices: PartialShape, axis: int) -> tuple[PartialShape, int | None]:
    """The indices' shape, merged with data's outside ``axis`` (OpenVINO's order of checks).
    Also returns the normalised axis (None while the data rank is unknown)."""
    if data.rank == 0:
        raise OpError("data rank must be >= 1.", port="input 0")
    if indices.rank == 0:
        raise OpError("indices rank must be >= 1.", port="input 1")
    if data.dims is None:                   # a dynamic rank
        return indices, None
    axis = normalize_axis(axis, len(data.dims))
    if indices.dims is None:
        return PartialShape(data.dims[:axis] + (DYN,) + data.dims[axis + 1:]), axis
    if data.rank != indices.rank:
        raise OpError(f"data and indices rank must be equal. But instead got: {data.rank} and {indices.rank}",
                      port="input 1")
    dims = []
    for i, (d, n) in enumerate(zip(data.dims, indices.dims)):
        m = n if i == axis else d.intersect(n)
        if m is None:
            raise OpError(f"Shapes {data} and {indices} are not consistent, `data` and `indices` must have equal "
                          f"or intersecting dimensions, except for the dimension at axis index.{axis}", port="input 1")
        dims.append(m)
    return PartialShape(dims), axis


@register
class GatherElements6(Op):
    """Indices must be i32 or i64 (OpenVINO rejects other integer types) and have data's rank;
    outside ``axis`` their dims must match data's. Negative indices count from the end (OpenVINO's
    CPU plugin wraps them, measured; it has no reference kernel); indices outside
    ``[-dim, dim)`` are refused, as the CPU plugin does at inference."""
    category = "movement"
    allocation = "inputs"        # irrun/ops/base.py: Op.allocation (the output is the indices' shape)

    type, version = "GatherElements", "opset6"
    spec = spec_url("movement/gather-elements-6")
    attrs = {"axis": Attr("int", 0, required=True)}
    num_inputs = (2, 2)

    def infer(self, inputs):
        data, indices = inputs
        if indices.etype.name not in ("i32", "i64", "dynamic"):
            raise OpError(f"indices must be of int32 or int64 type. But instead got: {indices.etype}", port="input 1")
        shape, axis = gather_elements_shape(data.shape, indices.shape, self.axis)
        if indices.value is not None and axis is not None and data.shape[axis].is_static:
            wrap_indices(indices.value, data.shape[axis].lo, note=_NOTE)
        return [TensorInfo(data.etype, shape)]

    def run(self, data, indices):
        _, axis = gather_elements_shape(PartialShape(data.shape), PartialShape(indices.shape), self.axis)
        idx = wrap_indices(indices, data.shape[axis], note=_NOTE)
        return [np.take_along_axis(data, idx, axis=axis)]
