"""The EmbeddingBag family: rows of an embedding table gathered by index and reduced per bag.

* Offsets: ``indices`` is 1-D, bag ``b`` is ``indices[offsets[b]:offsets[b+1]]`` (the last runs to
  the end); an empty bag gives the row ``default_index`` (or zeros when it is absent or -1).
* Packed: ``indices`` is ``[bags, per_bag]``, every bag the same length.
* Segments: ``segment_ids[i]`` names the bag of ``indices[i]``; ``num_segments`` bags; empty ones
  as in Offsets.

Optional ``per_sample_weights`` (same shape as ``indices``) multiply each row before the sum
(``reduction="sum"`` only: the -15 versions refuse weights with ``mean``). ``reduction="mean"``
divides by the bag's size. Every index is checked against the table (OpenVINO reads out of
bounds). The output is ``[bags, *table.shape[1:]]`` in the table's type.
"""
from __future__ import annotations

import numpy as np

from ..errors import OpError
from ..limits.memory import check_alloc
from ..types.shapes import DYN, Dim, PartialShape
from .base import Attr, Op, TensorInfo, as_int64, spec_url
from .registry import register

_INDEX = ("i32", "i64")


def _check_index_type(info: TensorInfo, what: str, port: int) -> None:
    if not (info.etype.is_dynamic or info.etype.name in _INDEX):
        raise OpError(f"{what} element type must be i32 or i64. Got: {info.etype}", port=f"input {port}")


def _check_rank(info: TensorInfo, rank: int, what: str, port: int) -> None:
    if info.shape.rank not in (None, rank):
        raise OpError(f"{what} must be {'a scalar' if rank == 0 else f'{rank}D'}.", port=f"input {port}")


def _rows(table: np.ndarray, idx: np.ndarray, port: int) -> np.ndarray:
    n = table.shape[0]
    if idx.size and (idx.min() < 0 or idx.max() >= n):
        raise OpError(f"an index is out of the embedding table's {n} rows", port=f"input {port}")
    return table[idx]


def _reduce(table: np.ndarray, bags: list[np.ndarray], weights: np.ndarray | None, default: int,
            mean: bool) -> np.ndarray:
    """One output row per bag (``bags`` holds each bag's positions into indices/weights)."""
    shape = (len(bags), *table.shape[1:])
    check_alloc(shape, table.dtype)
    out = np.zeros(shape, table.dtype)
    for b, rows in enumerate(bags):
        if rows[0].size == 0:
            if default >= 0:
                out[b] = table[default]
            continue
        r = rows[1].astype(np.float64 if table.dtype.kind == "f" else table.dtype)
        if weights is not None:
            r = r * weights[rows[0]].reshape((-1,) + (1,) * (table.ndim - 1))
        s = r.sum(axis=0)
        out[b] = s / rows[0].size if mean else s
    return out


def _default(table: np.ndarray, default: np.ndarray | None) -> int:
    if default is None:
        return -1
    d = int(as_int64(default))
    if d >= table.shape[0] or d < -1:
        raise OpError(f"default_index {d} is out of the embedding table's {table.shape[0]} rows", port="input 3")
    return d


class _Bag(Op):
    reduction = "sum"

    def out_info(self, table: TensorInfo, bags: Dim) -> list[TensorInfo]:
        if not table.etype.is_dynamic and not (table.etype.is_float or table.etype.is_integer):
            raise OpError(f"The embedding table must be numeric. Got: {table.etype}", port="input 0")
        if table.shape.rank == 0:
            raise OpError("The embedding table must have at least rank 1.", port="input 0")
        if table.shape.rank is None:
            return [TensorInfo(table.etype, PartialShape(None))]
        return [TensorInfo(table.etype, PartialShape([bags, *list(table.shape)[1:]]))]

    def check_weights(self, indices: TensorInfo, weights: TensorInfo, table: TensorInfo, port: int) -> None:
        if self.reduction == "mean":
            raise OpError("Per sample weights can only be used in Reduction::SUM mode.", port=f"input {port}")
        if not (weights.etype.is_dynamic or table.etype.is_dynamic or weights.etype == table.etype):
            raise OpError("Per sample weight element type must match the embedding table type.", port=f"input {port}")
        if not weights.shape.compatible(indices.shape):
            raise OpError("Per sample weights must have the shape of the indices.", port=f"input {port}")


class _Offsets(_Bag):
    num_inputs = (3, 5)

    def infer(self, inputs):
        table, indices, offsets, *rest = inputs
        for i, (t, what, rank) in enumerate([(indices, "indices", 1), (offsets, "offsets", 1)], 1):
            _check_index_type(t, what, i)
            _check_rank(t, rank, what, i)
        if rest:
            _check_index_type(rest[0], "default_index", 3)
            _check_rank(rest[0], 0, "default_index", 3)
        if len(rest) > 1:
            self.check_weights(indices, rest[1], table, 4)
        return self.out_info(table, offsets.shape[0] if offsets.shape.rank == 1 else DYN)

    def run(self, table, indices, offsets, default=None, weights=None):
        idx, off = as_int64(indices), as_int64(offsets)
        if off.size and (off[0] < 0 or np.any(off[1:] < off[:-1]) or off[-1] > idx.size):
            raise OpError("offsets must be ascending and within the indices", port="input 2")
        rows = _rows(table, idx, 1)
        ends = np.r_[off[1:], idx.size].astype(np.int64)
        pos = np.arange(idx.size)
        bags = [(pos[s:e], rows[s:e]) for s, e in zip(off, ends)]
        return [_reduce(table, bags, weights, _default(table, default), self.reduction == "mean")]


class _Packed(_Bag):
    num_inputs = (2, 3)

    def infer(self, inputs):
        table, indices, *rest = inputs
        _check_index_type(indices, "indices", 1)
        _check_rank(indices, 2, "indices", 1)
        if rest:
            self.check_weights(indices, rest[0], table, 2)
        return self.out_info(table, indices.shape[0] if indices.shape.rank == 2 else DYN)

    def run(self, table, indices, weights=None):
        idx = as_int64(indices)
        rows = _rows(table, idx.reshape(-1), 1).reshape(*idx.shape, *table.shape[1:])
        pos = np.arange(idx.size).reshape(idx.shape)
        return [_reduce(table, list(zip(pos, rows)), None if weights is None else weights.reshape(-1), -1,
                        self.reduction == "mean")]


@register
class EmbeddingBagOffsetsSum3(_Offsets):
    """EmbeddingBagOffsetsSum-3: table, indices, offsets, optional default_index and weights."""
    category = "normalize"
    type, version = "EmbeddingBagOffsetsSum", "opset3"
    spec = spec_url("sparse/embedding-bag-offsets-sum-3")


@register
class EmbeddingBagOffsets15(_Offsets):
    """EmbeddingBagOffsets-15: EmbeddingBagOffsetsSum-3 with ``reduction`` sum or mean."""
    category = "normalize"
    type, version = "EmbeddingBagOffsets", "opset15"
    spec = spec_url("sparse/embedding-bag-offsets-15")
    attrs = {"reduction": Attr("enum", "sum", choices=("sum", "mean"))}


@register
class EmbeddingBagPackedSum3(_Packed):
    """EmbeddingBagPackedSum-3: table, indices [bags, per_bag], optional weights."""
    category = "normalize"
    type, version = "EmbeddingBagPackedSum", "opset3"
    spec = spec_url("sparse/embedding-bag-packed-sum-3")


@register
class EmbeddingBagPacked15(_Packed):
    """EmbeddingBagPacked-15: EmbeddingBagPackedSum-3 with ``reduction`` sum or mean."""
    category = "normalize"
    type, version = "EmbeddingBagPacked", "opset15"
    spec = spec_url("sparse/embedding-bag-packed-15")
    attrs = {"reduction": Attr("enum", "sum", choices=("sum", "mean"))}


@register
class EmbeddingSegmentsSum3(_Bag):
    """EmbeddingSegmentsSum-3: table, indices, segment_ids, num_segments, optional default_index
    and weights. Segment ids must be sorted (the spec; the CPU plugin picks wrong rows for unsorted
    ones, measured) and in [0, num_segments): irrun refuses others."""
    category = "normalize"
    type, version = "EmbeddingSegmentsSum", "opset3"
    spec = spec_url("sparse/embedding-segments-sum-3")
    num_inputs = (4, 6)

    def infer(self, inputs):
        table, indices, seg, num, *rest = inputs
        for i, (t, what, rank) in enumerate([(indices, "indices", 1), (seg, "segment_ids", 1),
                                             (num, "num_segments", 0)], 1):
            _check_index_type(t, what, i)
            _check_rank(t, rank, what, i)
        if not indices.shape.compatible(seg.shape):
            raise OpError("segment_ids must have the shape of the indices.", port="input 2")
        if rest:
            _check_index_type(rest[0], "default_index", 4)
            _check_rank(rest[0], 0, "default_index", 4)
        if len(rest) > 1:
            self.check_weights(indices, rest[1], table, 5)
        bags = Dim.of(int(as_int64(num.value))) if num.value is not None else DYN
        return self.out_info(table, bags)

    def run(self, table, indices, seg, num, default=None, weights=None):
        idx, seg, n = as_int64(indices), as_int64(seg), int(as_int64(num))
        if n < 0 or (seg.size and (seg.min() < 0 or seg.max() >= n)):
            raise OpError(f"a segment id is outside [0, {n})", port="input 2")
        if np.any(seg[1:] < seg[:-1]):
            raise OpError("segment_ids are not sorted (the spec requires it; OpenVINO's CPU plugin "
                          "sums the wrong rows then)", port="input 2")
        if idx.shape != seg.shape:
            raise OpError("segment_ids must have the shape of the indices.", port="input 2")
        rows = _rows(table, idx, 1)
        check_alloc((n, *table.shape[1:]), table.dtype)
        pos = np.arange(idx.size)
        bags = [(pos[seg == b], rows[seg == b]) for b in range(n)]
        if default is not None:
            d = int(as_int64(default))
            if d >= table.shape[0] or d < -1:
                raise OpError(f"default_index {d} is out of the embedding table's rows", port="input 4")
            default = np.int64(d)
        return [_reduce(table, bags, weights, _default(table, default), False)]
