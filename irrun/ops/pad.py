"""Pad-1/12: grow (or crop, with negative pads) a tensor at both ends of every axis (a copy).

Measured against OpenVINO 2026.4.1 (data-movement-ops.md §14): both versions accept negative
pads and strings (constant mode only; the default pad value is ``""``). Output element j of an
axis reads input coordinate ``j - pads_begin`` of the *uncropped* axis, mapped into range by the
mode: constant -> pad value, edge -> clamp, reflect -> mirror without the edge, symmetric ->
mirror with the edge. That is what OpenVINO computes: the spec's mixed example (reflect,
b=-1 e=3 on a dim of 4 -> ``2,3,4,3,2,1``) reaches back into the cropped-off part, so
"crop, then np.pad" is not the rule. The reflect/symmetric limits (pads <= dim-1 / dim) keep
every coordinate within one mirror of the axis.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..errors import OpError
from ..limits.memory import check_alloc
from ..types.shapes import DYN, Dim, PartialShape
from . import bounds
from .base import Attr, Op, TensorInfo, as_int64, check_index_input, spec_url
from .registry import register

_MODES = ("constant", "edge", "reflect", "symmetric")


def _check_length(rank: int | None, n: int, name: str, port: str) -> None:
    if n != rank:
        raise OpError(f"length of {name} mismatches with rank of input, expect {rank}, but got {n}",
                      port=port)


def pad_shape(mode: str, data: PartialShape, begin: Sequence[int], end: Sequence[int]) -> PartialShape:
    """Output shape for known pads, with OpenVINO's checks; an interval dim is rejected only
    when no size in it could work. Called by ``infer`` and, with the concrete shape, by ``run``."""
    if data.rank is None:
        if len(begin) != len(end):
            _check_length(len(begin), len(end), "pads_end", "input 2")
        return PartialShape.dynamic(len(begin))
    _check_length(data.rank, len(begin), "pads_begin", "input 1")
    _check_length(data.rank, len(end), "pads_end", "input 2")
    out = []
    for axis, (d, b, e) in enumerate(zip(data, begin, end)):
        big = d.hi if d.hi is not None else max(b, e, 2) + 1   # the largest size the dim can take
        if b > 0 or e > 0:
            if mode == "edge" and big < 1:
                raise OpError("EDGE padding mode requires an input of dimension of at least 1 at each "
                              "spatial axis.", port="input 0")
            if mode == "reflect" and big < 2:
                raise OpError("REFLECT padding mode requires an input of dimension of at least 2 at "
                              "each spatial axis.", port="input 0")
        if mode == "reflect" and not (b < big and e < big):
            raise OpError("REFLECT padding mode requires that 'pads_begin[D]' and 'pads_end[D]' must "
                          "be not greater than 'data_shape[D] - 1'.", port="input 1" if b >= big else "input 2")
        if mode == "symmetric" and not (b <= big and e <= big):
            raise OpError("SYMMETRIC padding mode requires that 'pads_begin[D]' and 'pads_end[D]' must "
                          "be not greater than 'data_shape[D]'.", port="input 1" if b > big else "input 2")
        hi = None if d.hi is None else d.hi + b + e
        if hi is not None and hi < 0:
            raise OpError(f"Pad crops axis {axis} below zero: {b} + {d} + {e} < 0 (OpenVINO loads "
                          "this but cannot evaluate it)", port="input 1", openvino_loads=True)
        out.append(Dim(max(d.lo + b + e, 0), hi))
    return PartialShape(out)


def pad_bounds_shape(data: PartialShape, begin: Sequence[tuple[int, int | None]],
                     end: Sequence[tuple[int, int | None]]) -> PartialShape:
    """Output shape for pads known as (lo, hi) intervals (value bounds, irrun/ops/bounds.py; hi None
    is unbounded): each dim is ``dim + begin + end`` (at least 0). The modes' limits on pads are
    checked when the values are known, at run time."""
    _check_length(data.rank, len(begin), "pads_begin", "input 1")
    _check_length(data.rank, len(end), "pads_end", "input 2")
    out = []
    for d, (b0, b1), (e0, e1) in zip(data, begin, end):
        hi = None if d.hi is None or b1 is None or e1 is None else max(d.hi + b1 + e1, 0)
        out.append(Dim(max(d.lo + b0 + e0, 0), hi))
    return PartialShape(out)


def _coords(n_out: int, dim: int, begin: int, mode: str) -> np.ndarray:
    """Input coordinate read by each output position along one axis (non-constant modes)."""
    c = np.arange(n_out, dtype=np.int64) - begin
    if mode == "edge":
        return np.clip(c, 0, dim - 1)
    if mode == "reflect":
        c = np.abs(c)
        return np.where(c > dim - 1, 2 * (dim - 1) - c, c)
    c = np.where(c < 0, -c - 1, c)                                  # symmetric
    return np.where(c >= dim, 2 * dim - 1 - c, c)


def pad(x: np.ndarray, begin: Sequence[int], end: Sequence[int], mode: str,
        value: np.ndarray | None = None) -> np.ndarray:
    out_shape = pad_shape(mode, PartialShape(x.shape), begin, end).to_tuple()
    check_alloc(out_shape, x.dtype, like=x)
    if 0 in out_shape:    # nothing to copy; the index vectors below could still be huge
        return np.empty(out_shape, x.dtype)
    if mode == "constant":
        fill = value if value is not None else np.zeros((), x.dtype) if x.dtype.kind != "T" else ""
        out = np.full(out_shape, fill, dtype=x.dtype)
        src, dst = [], []
        for d, b, e in zip(x.shape, begin, end):
            lo, hi = max(0, -b), min(d, d + e)
            n = max(hi - lo, 0)
            src.append(slice(lo, lo + n))
            dst.append(slice(max(0, b), max(0, b) + n))
        out[tuple(dst)] = x[tuple(src)]
        return out
    if x.ndim == 0:
        return x.copy()
    return x[np.ix_(*(_coords(n, d, b, mode) for n, d, b in zip(out_shape, x.shape, begin)))]


@register
class Pad1(Op):
    """Pads known only at run time give dynamic dims of the data rank (dynamic rank when the
    data rank is unknown and the pads' length too); pads with value bounds give intervals
    (:func:`pad_bounds_shape`). ``pad_value`` (scalar, the data's type) is
    used in constant mode only; with other modes it is accepted and ignored, as in OpenVINO."""
    category = "movement"
    allocation = "checked"        # irrun/ops/base.py: Op.allocation

    type, version = "Pad", "opset1"
    spec = spec_url("movement/pad-1")
    attrs = {"pad_mode": Attr("enum", "constant", required=True, choices=_MODES)}
    num_inputs = (3, 4)
    moves_values = (0, 3)          # value bounds pass through (irrun/ops/bounds.py)

    def infer(self, inputs):
        data, begin, end = inputs[:3]
        mode = self.pad_mode
        if mode == "constant" and len(inputs) == 4:
            pv = inputs[3]
            if pv.shape.rank is not None and pv.shape.rank != 0:
                raise OpError("Argument for padding value is not a scalar.", port="input 3")
            if not (pv.etype.is_dynamic or data.etype.is_dynamic) and pv.etype != data.etype:
                raise OpError(f"Argument element types do not match (input arg element type: "
                              f"{data.etype}, arg_pad element type: {pv.etype}).", port="input 3")
        if data.etype.name == "string" and mode != "constant":
            raise OpError("Only CONSTANT pad mode is supported for element::string", port="input 0")
        for info, name, port in ((begin, "pads_begin", "input 1"), (end, "pads_end", "input 2")):
            check_index_input(info, port, f"{name} must be an integral number, but is: {info.etype}).",
                              f"Argument for {name} is not 1D.")
        if begin.value is not None and end.value is not None:
            shape = pad_shape(mode, data.shape, as_int64(begin.value).tolist(), as_int64(end.value).tolist())
            return [TensorInfo(data.etype, shape)]
        pb, pe = bounds.pairs(begin), bounds.pairs(end)
        if pb is not None and pe is not None and data.shape.rank is not None:    # value bounds
            return [TensorInfo(data.etype, pad_bounds_shape(data.shape, pb, pe))]
        lengths = [p.shape[0].lo for p in (begin, end) if p.shape.rank == 1 and p.shape[0].is_static]
        rank = data.shape.rank
        if rank is not None:
            for n, name, port in zip(lengths, ("pads_begin", "pads_end"), ("input 1", "input 2")):
                _check_length(rank, n, name, port)
            return [TensorInfo(data.etype, PartialShape([DYN] * rank))]
        if len(lengths) == 2:
            _check_length(lengths[0], lengths[1], "pads_end", "input 2")
        return [TensorInfo(data.etype, PartialShape.dynamic(lengths[0]) if lengths else PartialShape(None))]

    def run(self, x, begin, end, value=None):
        if self.pad_mode != "constant":
            value = None
        return [pad(x, as_int64(begin).tolist(), as_int64(end).tolist(), self.pad_mode, value)]


@register
class Pad12(Pad1):
    """Pad-12 documents negative pads and string data; OpenVINO runs both versions alike."""

    version = "opset12"
    spec = spec_url("movement/pad-12")
