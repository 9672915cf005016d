"""SpaceToBatch-2 and BatchToSpace-2: move blocks of the spatial axes into the batch axis and back.


Both are the spec's reshape -> transpose -> reshape (plus a zero pad before, or a crop after);
the block offsets are the *outer* part of the output batch index. The three index inputs are
1-D with one value per data axis. Measured on OpenVINO 2026.4.1: ``block_shape[0] != 1`` and a
pad/crop of the batch axis are accepted but computed as garbage (the evaluators disagree, the
reference crashes), negative pads are accepted by shape inference and refused by the CPU plugin,
and index inputs of the wrong length are read past their end: irrun refuses all of these.
"""
from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ..errors import OpError
from ..types.shapes import DYN, Dim, PartialShape
from ._indices import exact_div
from .base import Op, TensorInfo, as_int64, check_index_input, spec_url
from .registry import register


class _BlockBatch(Op):
    """Shared checks: subclasses name the inputs, give OpenVINO's messages and the shape rule."""
    category = "movement"

    num_inputs = (4, 4)
    names: tuple[str, str, str]
    rank_msg: str

    def check_inputs(self, inputs: Sequence[TensorInfo]) -> None:
        raise NotImplementedError

    def values(self, rank: int, block, begin, end) -> tuple[list[int], list[int], list[int]]:
        """The three index inputs as lists, checked (shared by ``infer`` and ``run``)."""
        vals = [as_int64(v).reshape(-1).tolist() for v in (block, begin, end)]
        if any(len(v) != rank for v in vals):
            raise OpError(f"{', '.join(self.names[:2])} and {self.names[2]} must have one value per data "
                          f"axis ({rank}), got {', '.join(str(len(v)) for v in vals)} (OpenVINO reads past "
                          "their end)", port="input 1", openvino_loads=True)
        b, pb, pe = vals
        if any(v < 1 for v in b):
            raise OpError(self.block_msg, port="input 1")
        if any(v < 0 for v in pb + pe):
            i = next(i for i, v in enumerate(pb + pe) if v < 0)
            which, idx = (self.names[1], i) if i < rank else (self.names[2], i - rank)
            raise OpError(self.negative_msg.format(which=which, i=idx, v=(pb + pe)[i]),
                          port=f"input {2 if i < rank else 3}")
        if b[0] != 1 or pb[0] or pe[0]:
            raise OpError(f"{self.names[0]}[0] must be 1 and {self.names[1]}[0], {self.names[2]}[0] "
                          f"must be 0, got {b[0]}, {pb[0]}, {pe[0]} (OpenVINO computes garbage)",
                          port="input 1", openvino_loads=True)
        return b, pb, pe

    def out_shape(self, data: PartialShape, infos: Sequence[TensorInfo | np.ndarray]) -> PartialShape:
        if data.rank is not None and data.rank < 2:
            raise OpError(self.rank_msg.format(data.rank), port="input 0")
        if data.rank is None:
            return PartialShape(None)
        vals = [i if isinstance(i, np.ndarray) else i.value for i in infos]
        if any(v is None for v in vals):
            return self.partial(data, vals)
        return self.shape_of(list(data), *self.values(data.rank, *vals))

    def infer(self, inputs):
        self.check_inputs(inputs)
        return [TensorInfo(inputs[0].etype, self.out_shape(inputs[0].shape, inputs[1:]))]


@register
class SpaceToBatch2(_BlockBatch):
    """SpaceToBatch-2: zero-pad, then move ``block_shape`` blocks of every spatial axis into the
    batch: output ``[N * prod(block), (D_i + pads_i) / block_i ...]``."""

    type, version = "SpaceToBatch", "opset2"
    spec = spec_url("movement/space-to-batch-2")
    names = ("block_shape", "pads_begin", "pads_end")
    rank_msg = "The data tensor with rank lower than 2 is not supported (data rank: {})"
    block_msg = "block_shape values must be greater than 0"
    negative_msg = "SpaceToBatch: {which}[{i}] must be non-negative, got {v}"

    def check_inputs(self, inputs):
        for i, (info, name) in enumerate(zip(inputs[1:], self.names), 1):
            check_index_input(info, f"input {i}", f"{name} must be an integral number but got ({info.etype}).",
                              f"{name} input must be a 1D tensor. Got: {info.shape}")

    def shape_of(self, d: list[Dim], b, pb, pe) -> PartialShape:
        spatial = [exact_div(x + (p + q), k) for x, k, p, q in zip(d[1:], b[1:], pb[1:], pe[1:])]
        return PartialShape([d[0] * math.prod(b), *spatial])

    def partial(self, data: PartialShape, vals) -> PartialShape:
        b = None if vals[0] is None else as_int64(vals[0]).reshape(-1).tolist()
        if b is None or len(b) != data.rank:
            return PartialShape.dynamic(data.rank)
        return PartialShape([data[0] * math.prod(b)] + [DYN] * (data.rank - 1))

    def run(self, x, block, begin, end):
        b, pb, pe = self.values(x.ndim, block, begin, end)
        out = self.shape_of([Dim(n, n) for n in x.shape], b, pb, pe).to_tuple()
        xp = np.pad(x, list(zip(pb, pe)), constant_values=np.zeros((), x.dtype)) if any(pb + pe) else x
        n, k = x.shape[0], x.ndim - 1
        split = [n] + [v for i in range(1, x.ndim) for v in (xp.shape[i] // b[i], b[i])]
        perm = [2 * i for i in range(1, k + 1)] + [0] + [2 * i - 1 for i in range(1, k + 1)]
        return [xp.reshape(split).transpose(perm).reshape(out)]


@register
class BatchToSpace2(_BlockBatch):
    """BatchToSpace-2: the inverse — split the batch into ``block_shape`` blocks interleaved into
    the spatial axes, then crop: output ``[N / prod(block), D_i * block_i - crops_i ...]``."""

    type, version = "BatchToSpace", "opset2"
    spec = spec_url("movement/batch-to-space-2")
    names = ("block_shape", "crops_begin", "crops_end")
    rank_msg = "data input must have rank greater or equal than 2. Got: {}"
    block_msg = "Elements of block_shape input must be greater or equal to one."
    negative_msg = "Elements of crops_begin and crops_end inputs must be greater or equal to zero."

    def check_inputs(self, inputs):
        idx = inputs[1:]
        known = [t.etype for t in idx if not t.etype.is_dynamic]
        if any(t != known[0] for t in known):
            raise OpError("block_shape, crops_begin and crops_end inputs must have same element type. Got: "
                          f"{idx[0].etype}, {idx[1].etype} and {idx[2].etype}", port="input 1")
        if known and not known[0].is_integer:
            raise OpError(f"block_shape and crops inputs must have integer element type. Got: {known[0]}",
                          port="input 1")
        for i, t in enumerate(idx, 1):
            check_index_input(t, f"input {i}", None, f"{self.names[i - 1]} input must be a 1D tensor. Got: {t.shape}")
        d = inputs[0].shape
        lens = {t.shape[0].lo for t in idx if t.shape.rank == 1 and t.shape[0].is_static}
        if d.rank is not None and lens and lens != {d.rank}:
            raise OpError("block_shape and crop inputs must have same number of elements as data input rank. "
                          f"Got: {min(lens - {d.rank})} and {d.rank}", port="input 1")

    def shape_of(self, d: list[Dim], b, cb, ce) -> PartialShape:
        batch = exact_div(d[0], math.prod(b))
        spatial = []
        for x, k, p, q in zip(d[1:], b[1:], cb[1:], ce[1:]):
            if x.is_static and p + q > x.lo * k:
                raise OpError("crops_begin[i] + crops_end[i] must be less or equal to block_shape[i] * "
                              "input_shape[i]", port="input 2")
            spatial.append(Dim(max(x.lo * k - p - q, 0), None if x.hi is None else x.hi * k - p - q))
        return PartialShape([batch, *spatial])

    def partial(self, data: PartialShape, vals) -> PartialShape:
        b, cb, ce = (None if v is None else as_int64(v).reshape(-1).tolist() for v in vals)
        if b is not None and len(b) == data.rank:
            return PartialShape([exact_div(data[0], math.prod(b))] + [DYN] * (data.rank - 1))
        if cb is None or ce is None or len(cb) != data.rank or len(ce) != data.rank:
            return PartialShape.dynamic(data.rank)
        spatial = [Dim(max(x.lo - p - q, 0), None) for x, p, q in zip(list(data)[1:], cb[1:], ce[1:])]
        return PartialShape([DYN, *spatial])           # block >= 1: at least the cropped size

    def run(self, x, block, begin, end):
        b, cb, ce = self.values(x.ndim, block, begin, end)
        self.shape_of([Dim(n, n) for n in x.shape], b, cb, ce)        # the checks
        k = x.ndim - 1
        n = x.shape[0] // math.prod(b)
        y = x.reshape(*b[1:], n, *x.shape[1:])
        perm = [k] + [v for i in range(k) for v in (k + 1 + i, i)]
        y = y.transpose(perm).reshape([n] + [x.shape[i] * b[i] for i in range(1, x.ndim)])
        crop = (slice(None),) + tuple(slice(p, y.shape[i + 1] - q) for i, (p, q) in enumerate(zip(cb[1:], ce[1:])))
        return [y[crop]]
