"""GatherND-5/8: gather elements or slices of ``data`` addressed by the tuples in the last axis of
``indices``, after ``batch_dims`` leading dims shared by both; every index is checked by
:func:`irrun.ops._indices.wrap_indices`, the check shared by the gather/scatter family."""
from __future__ import annotations

import numpy as np

from ..errors import OpError
from ..limits.memory import check_alloc
from ..types.shapes import Dim, PartialShape
from ._indices import wrap_indices
from .base import Attr, Op, TensorInfo, check_index_input, spec_url
from .registry import register


def gather_nd_shape(data: PartialShape, indices: PartialShape, batch_dims: int,
                    fuse_batch: bool) -> PartialShape:
    """``indices[:b] + indices[b:-1] + data[b+k:]`` (k = ``indices.shape[-1]``), the batch dims
    of data and indices merged; GatherND-5 (``fuse_batch``) multiplies the batch dims into one
    when b > 1. Checks and messages in OpenVINO's order; the output rank is unknown until k is."""
    b = batch_dims if batch_dims >= 0 else 1 << 64        # OpenVINO stores it as size_t
    if data.rank is not None:
        if data.rank == 0:
            raise OpError("Data rank must be at least 1.", port="input 0")
        if data.rank <= b:
            raise OpError("Number of batch dimensions must not exceed a rank of data.")
    if indices.rank is not None:
        if indices.rank == 0:
            raise OpError("Indices rank must be at least 1.", port="input 1")
        if indices.rank <= b:
            raise OpError("Number of batch dimensions must not exceed a rank of indices.")
    if data.dims is None or indices.dims is None or not indices[-1].is_static:   # (dims: rank known)
        return PartialShape(None)
    k = indices[-1].lo
    if k + b > len(data.dims):
        raise OpError("Length of a tuple with indices must not exceed a rank of data tensor excluding "
                      "batch dimensions.", port="input 1")
    if k == 0:
        raise OpError(f"indices of shape {indices} hold empty index tuples (last dim 0): OpenVINO loads this but "
                      "its CPU plugin returns uninitialised memory (it has no reference kernel)",
                      port="input 1", openvino_loads=True)
    batch = []
    for d, i in zip(data.dims[:b], indices.dims[:b]):
        m = d.intersect(i)
        if m is None:
            raise OpError("Batch dimensions of data and indices must be the same.", port="input 1")
        batch.append(m)
    rest = list(indices.dims[b:-1]) + list(data.dims[b + k:])
    if fuse_batch and b > 1:
        prod = Dim(1, 1)
        for d in batch:
            prod = prod * d
        batch = [prod]
    return PartialShape(batch + rest)


def gather_nd(data: np.ndarray, indices: np.ndarray, b: int) -> np.ndarray:
    """The kernel (shapes already checked, k >= 1): flatten the batch dims into one, then one
    advanced index per tuple element. The output keeps the batch dims (GatherND-8's layout)."""
    k = indices.shape[-1]
    nb = int(np.prod(data.shape[:b], dtype=np.int64))
    m = int(np.prod(indices.shape[b:-1], dtype=np.int64))
    out_shape = indices.shape[:-1] + data.shape[b + k:]
    check_alloc(out_shape, data.dtype, like=data)
    d = data.reshape((nb,) + data.shape[b:])
    idx = wrap_indices(indices, data.shape[b:b + k], note="OpenVINO's CPU plugin reads outside the data")
    idx = idx.reshape(nb, m, k)
    return d[(np.arange(nb)[:, None],) + tuple(idx[..., j] for j in range(k))].reshape(out_shape)


@register
class GatherND5(Op):
    """GatherND-5. Indices may be of any integer type; negative indices wrap (OpenVINO's CPU
    plugin does so for both versions, measured) and anything outside ``[-dim, dim)`` is refused
    (OpenVINO reads memory outside the tensor there). The batch dims of data and indices must
    be equal (the spec says broadcastable; OpenVINO rejects 1 vs 2). With ``batch_dims`` > 1 the
    output's batch dims are multiplied into one (the spec's note on v5)."""
    category = "movement"
    allocation = "checked"        # irrun/ops/base.py: Op.allocation (gather_nd checks its output)

    type, version = "GatherND", "opset5"
    spec = spec_url("movement/gather-nd-5")
    attrs = {"batch_dims": Attr("int", 0)}
    num_inputs = (2, 2)
    fuse_batch = True

    def infer(self, inputs):
        data, indices = inputs
        check_index_input(indices, "input 1",
                          f"The indices type is expected to be an integer type. Got: {indices.etype}")
        shape = gather_nd_shape(data.shape, indices.shape, self.batch_dims, self.fuse_batch)
        if indices.value is not None and shape.rank is not None:
            k, b = indices.shape[-1].lo, self.batch_dims
            dims = data.shape.dims[b:b + k]
            if all(d.is_static for d in dims):
                wrap_indices(indices.value, [d.lo for d in dims], note="OpenVINO's CPU plugin reads outside the data")
        return [TensorInfo(data.etype, shape)]

    def run(self, data, indices):
        shape = gather_nd_shape(PartialShape(data.shape), PartialShape(indices.shape), self.batch_dims, self.fuse_batch)
        return [gather_nd(data, indices, self.batch_dims).reshape(shape.to_tuple())]


@register
class GatherND8(GatherND5):
    """GatherND-8 keeps the batch dims in the output instead of multiplying them together, and
    documents negative indices (``[-dim, dim-1]``)."""

    version = "opset8"
    spec = spec_url("movement/gather-nd-8")
    fuse_batch = False
