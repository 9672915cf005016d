"""Gather-1/7/8: pick slices of ``data`` along ``axis`` at the positions in ``indices``."""
from __future__ import annotations

import numpy as np

from ..errors import OpError
from ..limits.memory import check_alloc
from ..types.shapes import DYN, PartialShape
from . import fast_paths
from .base import Attr, Op, TensorInfo, as_int64, check_index_input, normalize_axis, spec_url
from .registry import register

#: ops an index flows through unchanged on its way to a Gather (token ids are often converted or
#: reshaped first)
_INDEX_PASSES = {"Convert", "Reshape", "Squeeze", "Unsqueeze"}


def table_size(g, types, node) -> int | None:
    """The size of the table that layer ``node``'s output 0 indexes: the data dim, along the axis, of
    a Gather whose indices it feeds (through :data:`_INDEX_PASSES`); the smallest if several, None if
    none or the size is not static. ``g``: the model's graph (``Model.dag``), ``types``: its
    inferred ports. ``--random-inputs`` keeps token ids below the embedding table with it."""
    bounds, todo, seen = [], [(node, 0)], set()
    while todo:
        u, port = todo.pop()
        for v, k, sp in g.outs.get(u, ()):
            if sp != port or (v, k) in seen:
                continue
            seen.add((v, k))
            kind = g.nodes[v]["layer"].type
            if kind in _INDEX_PASSES and k == 0:
                todo.append((v, 0))
            elif kind == "Gather" and k == 1:
                ins = g.inputs(v)
                data, axis = types.get(ins[0]), types.get(ins[2]) if len(ins) > 2 else None
                if data is None or data.shape.dims is None or axis is None or axis.value is None:
                    continue
                ax = int(np.asarray(axis.value).reshape(-1)[0])
                dims = data.shape.dims
                if -len(dims) <= ax < len(dims) and dims[ax].hi is not None and dims[ax].lo == dims[ax].hi:
                    bounds.append(dims[ax].lo)
    return min(bounds) if bounds else None


def gather_params(data_rank: int | None, idx_rank: int | None, axis: int | None,
                  batch_dims: int) -> tuple[int | None, int]:
    """Normalise ``axis`` (against the data rank) and ``batch_dims`` (negative: ``+ rank(indices)``)
    and check them in OpenVINO's order (data-movement-ops.md §7). Either rank may be unknown
    (``None``), and so may the axis; what cannot be normalised yet is returned as given."""
    b = batch_dims + idx_rank if batch_dims < 0 and idx_rank is not None else batch_dims
    if data_rank == 0:
        raise OpError("Accessing out-of-range dimension", port="input 0")
    if axis is not None and data_rank is not None:
        axis = normalize_axis(axis, data_rank)
    if axis is not None and b >= 0 and axis >= 0 and b > axis:
        raise OpError("After normalization batch_dims must be <= axis. But instead got: "
                      f"batch_dims = {b}, axis = {axis}")
    if idx_rank is not None:
        if b < 0:   # OpenVINO: "Accessing out-of-range dimension"
            raise OpError(f"batch_dims = {batch_dims} is out of the range [-{idx_rank}, {idx_rank}] "
                          "(Accessing out-of-range dimension)")
        if b > idx_rank:
            raise OpError("The batch_dims must be <= indices_rank. But instead got: "
                          f"batch_dims = {b}, indices_rank = {idx_rank}")
    if axis is None and data_rank is not None and b >= data_rank:
        raise OpError(f"batch_dims = {b} must be smaller than the data rank {data_rank}")
    return axis, b


def gather_shape(data: PartialShape, indices: PartialShape, axis: int | None,
                 batch_dims: int) -> tuple[PartialShape, int | None, int]:
    """``data[:axis] + indices[batch_dims:] + data[axis+1:]``, the first ``batch_dims`` dims of
    data and indices merged (they must intersect). Unknown axis: the right rank, dynamic dims.
    Also returns the normalised axis and batch_dims (for the kernel)."""
    axis, b = gather_params(data.rank, indices.rank, axis, batch_dims)
    if data.dims is None or indices.dims is None:      # a dynamic rank
        return PartialShape(None), axis, b
    batch = []
    for d, i in zip(data.dims[:b], indices.dims[:b]):
        m = d.intersect(i)
        if m is None:
            raise OpError(f"Shapes {data} and {indices} are not consistent. data and indices must "
                          "have equal or intersecting sizes until batch_dims", port="input 1")
        batch.append(m)
    if axis is None:
        return PartialShape(batch + [DYN] * (len(data.dims) + len(indices.dims) - 1 - 2 * b)), axis, b
    return PartialShape(batch + list(data.dims[b:axis]) + list(indices.dims[b:])
                        + list(data.dims[axis + 1:])), axis, b


def _axis_value(value: np.ndarray) -> int:
    return int(as_int64(value).reshape(-1)[0])


def _check_types(inputs) -> None:
    _, indices, axis = inputs
    check_index_input(indices, "input 1", "Indices element type must be of an integral number type.")
    check_index_input(axis, "input 2", "Axis element type must be of an integral number type.")
    a = axis.shape
    if a.is_static and not (a.rank == 0 or (a.rank == 1 and a[0].lo == 1)):
        raise OpError(f"Axis input must be scalar or have 1 element. But instead got axis_shape = {a}",
                      port="input 2")


def _positions(indices: np.ndarray, dim: int) -> tuple[np.ndarray, np.ndarray]:
    """Indices with negatives wrapped once, and which of them lie in ``[0, dim)``."""
    idx = as_int64(indices)
    idx = np.where(idx < 0, idx + dim, idx)
    return idx, (idx >= 0) & (idx < dim)


def _in_range(indices: np.ndarray, dim: int) -> bool:
    """Whether every index lies in ``[0, dim)`` (nothing to wrap or zero); a few indices (a
    shape's dims, one token) are checked as Python ints."""
    if indices.size <= 16:
        return all(0 <= i < dim for i in indices.reshape(-1).tolist())
    return indices.dtype.kind in "iu" and 0 <= indices.min() and indices.max() < dim


def gather(data: np.ndarray, indices: np.ndarray, axis: int, b: int) -> np.ndarray:
    """The kernel for normalised ``axis``/``b``: negative indices wrap once, anything still
    outside ``[0, dim)`` gives 0 (OpenVINO's reference evaluator, every version). Vectorised:
    the batch dims are flattened into one and gathered with advanced indexing."""
    dim = data.shape[axis]
    out_shape = data.shape[:axis] + indices.shape[b:] + data.shape[axis + 1:]
    check_alloc(out_shape, data.dtype, like=data)
    if b == 0 and dim and _in_range(indices, dim):     # the common case: a plain np.take
        if indices.ndim == 1 and indices.size == dim <= 16 and indices.tolist() == list(range(dim)):
            # every entry in order (a decoder's beam_idx reordering its KV cache for one beam):
            # the data as it is, a view (Gather's outputs are not fresh: nobody writes into it),
            # not a copy of the whole cache per layer and token
            return data[...]
        return np.take(data, as_int64(indices).reshape(-1), axis=axis).reshape(out_shape)
    idx, valid = _positions(indices, dim)
    if dim == 0:
        return np.zeros(out_shape, dtype=data.dtype)
    safe = np.where(valid, idx, 0)
    if b == 0:
        out = np.take(data, safe.reshape(-1), axis=axis).reshape(out_shape)   # 0-d stays an array
    else:
        nb = int(np.prod(data.shape[:b], dtype=np.int64))
        pre = int(np.prod(data.shape[b:axis], dtype=np.int64))
        post = int(np.prod(data.shape[axis + 1:], dtype=np.int64))
        d4 = data.reshape(nb, pre, dim, post)
        i2 = safe.reshape(nb, int(np.prod(safe.shape[b:], dtype=np.int64)))
        # advanced indices separated by a slice put their broadcast dims first: [nb, n_idx, pre, post]
        out = d4[np.arange(nb)[:, None], :, i2].transpose(0, 2, 1, 3).reshape(out_shape)
    if not valid.all():
        mask = valid.reshape(idx.shape[:b] + (1,) * (axis - b) + idx.shape[b:]
                             + (1,) * (data.ndim - axis - 1))
        out = np.where(mask, out, np.zeros((), dtype=data.dtype))
    return out


@register
class Gather1(Op):
    """Gather-1 has no ``batch_dims``. The spec allows indices in ``[0, dim)`` only; OpenVINO's
    reference evaluator wraps negatives and returns 0 out of range (its CPU plugin gives 0 for
    negatives too), and irrun follows the reference evaluator. An axis known only at run time
    gives the output rank with dynamic dims."""
    category = "movement"
    allocation = "checked"        # irrun/ops/base.py: Op.allocation

    type, version = "Gather", "opset1"
    spec = spec_url("movement/gather-1")
    num_inputs = (3, 3)
    moves_values = (0,)          # value bounds pass through (irrun/ops/bounds.py)
    batch_dims = 0

    def infer(self, inputs):
        _check_types(inputs)
        data, indices, axis = inputs
        ax = None if axis.value is None else _axis_value(axis.value)
        return [TensorInfo(data.etype, gather_shape(data.shape, indices.shape, ax, self.batch_dims)[0])]

    def run(self, data, indices, axis):
        ax, b = gather_params(data.ndim, indices.ndim, _axis_value(axis), self.batch_dims)
        if b:                       # the batch dims must also agree (checked by the shape rule)
            _, ax, b = gather_shape(PartialShape(data.shape), PartialShape(indices.shape),
                                    _axis_value(axis), self.batch_dims)
        return [gather(data, indices, ax, b)]


@register
class Gather7(Gather1):
    """Gather-7 adds ``batch_dims`` (negative: counted from the indices rank; must be <= axis):
    the first ``batch_dims`` dims of data and indices are matched element by element."""

    version = "opset7"
    spec = spec_url("movement/gather-7")
    attrs = {"batch_dims": Attr("int", 0)}


@register
class Gather8(Gather7):
    """Gather-8 makes negative indices (``-1`` = last) and the 0 for out-of-range ones part of
    the spec; the kernel is the same as Gather-1/7."""

    version = "opset8"
    spec = spec_url("movement/gather-8")


def _picks_rows(op: Gather1, inputs) -> bool:
    """Axis 0 and no batch dims: output 0 holds rows of the data picked by the indices."""
    data, indices, axis = inputs
    if axis.value is None or data.shape.rank in (None, 0) or indices.shape.rank is None:
        return False
    ax, b = gather_params(data.shape.rank, indices.shape.rank, _axis_value(axis.value), op.batch_dims)
    return ax == 0 and b == 0


def _gather_rows(op: Gather1, take, n_rows: int, indices: np.ndarray) -> np.ndarray:
    """Rows of a table computed only where picked (the embedding of a compressed LLM)."""
    idx, valid = _positions(indices, n_rows)
    rows = take(np.where(valid, idx, 0).reshape(-1) if n_rows else np.zeros(0, np.int64))
    out_shape = idx.shape + rows.shape[1:]
    if not n_rows:
        check_alloc(out_shape, rows.dtype)
        return np.zeros(out_shape, rows.dtype)
    out = rows.reshape(out_shape)
    if not valid.all():
        out = np.where(valid.reshape(idx.shape + (1,) * (rows.ndim - 1)), out, np.zeros((), rows.dtype))
    return out


fast_paths.ROW_GATHER[Gather1] = fast_paths.RowGather(_picks_rows, _gather_rows)
