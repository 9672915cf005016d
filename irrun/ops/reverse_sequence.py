"""ReverseSequence-1: reverse the first ``seq_lengths[b]`` elements along ``seq_axis`` of every batch ``b``.


One gather along ``seq_axis`` with a per-batch index (``len - 1 - t`` for ``t < len``, else
``t``) — a copy. Lengths of any numeric type (floats truncate); 0 and 1 leave the sequence
as is. A length beyond the sequence axis or below 0 is refused at run time with the CPU plugin's
message (OpenVINO has no reference kernel).
"""
from __future__ import annotations

import numpy as np

from ..errors import OpError
from ..types.shapes import PartialShape
from .base import Attr, Op, TensorInfo, as_int64, normalize_axis, spec_url
from .registry import register


def sequence_axes(shape: PartialShape, batch_axis: int, seq_axis: int) -> tuple[int, int] | None:
    """Both axes normalized (None for a dynamic rank)."""
    if shape.rank is None:
        return None
    return normalize_axis(batch_axis, shape.rank), normalize_axis(seq_axis, shape.rank)


def check_distinct(axes: tuple[int, int] | None) -> None:
    """OpenVINO accepts the same axis twice and indexes the lengths by the sequence position."""
    if axes is not None and axes[0] == axes[1]:
        raise OpError(f"batch_axis and seq_axis are the same axis ({axes[0]})", openvino_loads=True)


@register
class ReverseSequence1(Op):
    """ReverseSequence-1; attributes ``batch_axis`` (default 0) and ``seq_axis`` (default 1),
    negative values counting from the end."""
    category = "movement"

    type, version = "ReverseSequence", "opset1"
    spec = spec_url("movement/reverse-sequence-1")
    attrs = {"batch_axis": Attr("int", 0), "seq_axis": Attr("int", 1)}
    num_inputs = (2, 2)

    def infer(self, inputs):
        x, lens = inputs
        if lens.shape.rank not in (None, 1):
            raise OpError(f"Sequence lengths rank must be equal to 1. Got: {lens.shape}", port="input 1")
        if not (lens.etype.is_dynamic or lens.etype.is_integer or lens.etype.is_float):
            raise OpError(f"Sequence lengths element type must be numeric type. Got: {lens.etype}", port="input 1")
        axes = sequence_axes(x.shape, self.batch_axis, self.seq_axis)
        if axes is not None and lens.shape.rank == 1 and x.shape[axes[0]].intersect(lens.shape[0]) is None:
            raise OpError(f"Sequence lengths input size ({lens.shape[0]}) is not equal to batch axis dimension "
                          f"of data input ({x.shape[axes[0]]}) (argument shape: {x.shape}, sequence indices "
                          f"shape: {lens.shape}).", port="input 1")
        check_distinct(axes)
        shape = x.shape
        if axes is not None and lens.shape.rank == 1:
            dims = list(shape)
            dims[axes[0]] = dims[axes[0]].intersect(lens.shape[0])
            shape = PartialShape(dims)
        return [TensorInfo(x.etype, shape)]

    def run(self, x, lens):
        b, s = sequence_axes(PartialShape(x.shape), self.batch_axis, self.seq_axis)
        if lens.shape[0] != x.shape[b]:
            raise OpError(f"Sequence lengths input size ({lens.shape[0]}) is not equal to batch axis dimension "
                          f"of data input ({x.shape[b]}).", port="input 1")
        check_distinct((b, s))
        n = as_int64(np.trunc(lens) if lens.dtype.kind == "f" else lens)
        if np.any(n < 0) or np.any(n > x.shape[s]):
            raise OpError("Incorrect input 'seq_lengths' values!", port="input 1")
        t = np.arange(x.shape[s])
        idx = np.where(t[None, :] < n[:, None], n[:, None] - 1 - t[None, :], t[None, :])   # [B, S]
        shape = [1] * x.ndim
        shape[b], shape[s] = x.shape[b], x.shape[s]
        if b > s:
            idx = idx.T
        idx = np.broadcast_to(idx.reshape(shape), x.shape)
        return [np.take_along_axis(x, idx, axis=s)]
