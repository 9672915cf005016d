"""Slice-8: ``data[start:stop:step]`` on the listed axes, with OpenVINO's clamping rules.
Spec: https://docs.openvino.ai/2026/documentation/openvino-ir-format/operation-sets/operation-specs/movement/slice-8.html

This module also holds the clamped-slice computation shared with StridedSlice-1
(:func:`clamp_slice` for one concrete dimension, :func:`sliced_dim` for a partial one).
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .. import bounds
from ..errors import OpError
from ..shapes import Dim, PartialShape
from .base import Op, TensorInfo, as_int64, check_index_input, normalize_axis
from .registry import register

INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1
_INT32_MIN, _INT32_MAX = -(1 << 31), (1 << 31) - 1


def index_values(value: np.ndarray) -> list[int]:
    """An index-like input as Python ints. Unsigned values keep their magnitude (u8 255 is 255;
    u64 >= 2**63 wraps negative, as in OpenVINO). The i32 extremes widen to the int64 ones: OpenVINO's
    shape inference reads both as "to the end" sentinels, and at run time they clamp alike."""
    ints = [int(v) for v in as_int64(value).reshape(-1)]
    if value.dtype == np.int32:
        ints = [INT64_MAX if v == _INT32_MAX else INT64_MIN if v == _INT32_MIN else v for v in ints]
    return ints


def clamp_slice(n: int, start: int, stop: int, step: int) -> tuple[slice, int]:
    """What ``[start:stop:step]`` selects on a dimension of size ``n``: a NumPy slice (start and stop
    already clamped, so basic indexing gives a view) and the number of elements.

    Python's rule, except that for a negative step a start still negative after adding ``n`` is
    clamped to 0 (element 0 is taken) where Python gives an empty slice: ``[0,1,2][-4:-4:-3]`` is
    ``[0]`` in OpenVINO. INT64_MIN/INT64_MAX are ordinary values that clamp to the ends.
    """
    if step == 0:
        raise OpError("Step must be non-zero")
    start += n if start < 0 else 0
    stop += n if stop < 0 else 0
    if step > 0:
        start, stop = min(max(start, 0), n), min(max(stop, 0), n)
        length = max(0, -((start - stop) // step))
    else:
        start, stop = min(max(start, 0), n - 1), min(max(stop, -1), n - 1)
        length = max(0, -((stop - start) // -step)) if n > 0 else 0
    if length == 0:
        return slice(0, 0), 0
    return slice(start, None if stop < 0 else stop, step), length


def _length(n: int, start: int, stop: int, step: int) -> int:
    return clamp_slice(n, start, stop, step)[1]


def sliced_dim(dim: Dim, start: int, stop: int, step: int) -> Dim:
    """The output dimension of ``[start:stop:step]`` on a dimension that may be an interval.

    The exact range of the length over every size ``dim`` allows: between the sizes where a bound
    changes how it clamps (``|start|``, ``|stop|`` and their neighbours) the length is monotonic,
    so its extremes are at those sizes or at the interval's ends. For an unbounded dim, sizes past
    every breakpoint (2**64, 2**65) show whether the length stays put or grows without bound;
    there INT64_MIN/INT64_MAX count as infinite, as in OpenVINO's shape inference, and so does any
    bound beyond +-2**62 (no real dimension is that long; they clamp alike on every real size).
    """
    if dim.is_static:
        return Dim.of(_length(dim.lo, start, stop, step))
    start, stop = (v if abs(v) < 1 << 62 else 1 << 80 if v > 0 else -(1 << 80) for v in (start, stop))
    sizes = {dim.lo, 0, 1} | {abs(v) + d for v in (start, stop) for d in (-1, 0, 1, 2)}
    if dim.hi is not None:
        sizes.add(dim.hi)
    lengths = [_length(n, start, stop, step) for n in sizes
               if dim.lo <= n < (1 << 64) and (dim.hi is None or n <= dim.hi)]
    hi: int | None = None
    if dim.hi is None:
        far = _length(1 << 64, start, stop, step)
        lengths.append(far)
        if _length(1 << 65, start, stop, step) == far:
            hi = max(lengths)
    else:
        hi = max(lengths)
    return Dim(min(lengths), hi)


def bounded_dim(dim: Dim, start: tuple[int, int | None], stop: tuple[int, int | None], step: int) -> Dim:
    """The output dim of a slice whose start and stop are known only as (lo, hi) value bounds
    (hi None: unbounded; irrun/bounds.py). While a bound keeps its sign the length is monotonic in
    it (a later start or an earlier stop takes no more elements, for a positive step; the reverse
    for a negative one), so the extremes are at two corners; bounds that straddle 0 (an index
    that may count from either end) are split there and the results joined."""
    def parts(lo: int, hi: int | None) -> list[tuple[int, int]]:     # split at 0: one sign each
        hi = INT64_MAX if hi is None else hi
        return [(lo, -1), (0, hi)] if lo < 0 <= hi else [(lo, hi)]

    out = None
    for s0, s1 in parts(*start):
        for e0, e1 in parts(*stop):
            fewest, most = ((s1, e0), (s0, e1)) if step > 0 else ((s0, e1), (s1, e0))
            lo, hi = sliced_dim(dim, *fewest, step).lo, sliced_dim(dim, *most, step).hi
            out = Dim(lo, hi) if out is None else \
                Dim(min(out.lo, lo), None if hi is None or out.hi is None else max(out.hi, hi))
    return out


def up_to(dim: Dim) -> Dim:
    """``0..upper(dim)``: what a slice with unknown bounds can leave of ``dim``."""
    return Dim(0, dim.hi)


# ---------------------------------------------------------------------------------------------

_NAMES = ("start", "stop", "step", "axes")


def slice_plan(rank: int, start: list[int] | None, stop: list[int] | None, step: list[int] | None,
               axes: list[int] | None, n_default: int | None, has_axes: bool
               ) -> dict[int, tuple[int, int, int] | None] | None:
    """Which axes Slice-8 slices and how, with OpenVINO's value checks, for known and unknown values.

    Returns ``{axis: (start, stop, step)}``, the triple being None while a value is unknown, or
    None when the sliced axes are unknown (``axes`` not constant, or no ``axes`` input and no
    known length of ``start``). ``n_default`` is the length of ``start`` when known.
    """
    if rank == 0:
        raise OpError("Slice `data` input can't be a scalar.", port="input 0")
    for i, (name, v) in enumerate(zip(_NAMES, (start, stop, step, axes))):
        if v is not None and len(v) > rank:
            raise OpError(f"Slice `{name}` input dim size can't be bigger than `data` rank.",
                          port=f"input {i + 1}")
    lengths = {len(v) for v in (start, stop, step) if v is not None}
    if len(lengths) > 1:
        raise OpError("Slice `start`, `stop`, `step` inputs must have compatible shapes.")
    if axes is not None and lengths and len(axes) not in lengths:
        raise OpError("Slice `axes` input must have compatible shape with `start`, `stop`, `step` inputs.")
    if step is not None and 0 in step:
        raise OpError("Step must be non-zero")
    if has_axes:
        if axes is None:
            return None
        order = [normalize_axis(a, rank, port="input 4") for a in axes]
        if len(set(order)) != len(order):
            raise OpError("Slice values in `axes` input must be unique.", port="input 4")
    elif n_default is None:
        return None
    else:
        order = list(range(n_default))
    triples = list(zip(start, stop, step)) if None not in (start, stop, step) else [None] * len(order)
    return dict(zip(order, triples))


@register
class Slice8(Op):
    """Slice-8: ``data[start:stop:step]`` per listed axis (``axes`` defaults to ``0..len-1``; axes
    not listed are kept whole). Python semantics except the negative-step start clamp of
    :func:`clamp_slice`. The kernel is basic indexing, so the result is a view (also for negative
    steps). Index inputs may be any integer type; an empty ``start`` is a no-op.

    Shape rule: exact intervals for partial dims (:func:`sliced_dim`); a sliced dim whose bounds
    are not constant becomes ``0..upper``, or narrower with value bounds (:func:`bounded_dim`,
    e.g. start ``2..4`` of 10 -> ``6..8``); unknown axes make every dim ``0..upper``; dynamic data
    rank gives a dynamic rank.
    """
    allocation = "inputs"        # irrun/ops/base.py: Op.allocation

    type, version = "Slice", "opset8"
    spec = "https://docs.openvino.ai/2026/documentation/openvino-ir-format/operation-sets/operation-specs/movement/slice-8.html"
    num_inputs = (4, 5)
    moves_values = (0,)          # value bounds pass through (irrun/bounds.py)

    def infer(self, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
        data, *idx = inputs
        for i, (name, info) in enumerate(zip(_NAMES, idx)):
            check_index_input(info, f"input {i + 1}", f"Slice `{name}` input type must be integer.")
        rank = data.shape.rank
        if rank is None:
            return [TensorInfo(data.etype, PartialShape(None))]
        if rank == 0:
            raise OpError("Slice `data` input can't be a scalar.", port="input 0")
        lens: dict[int, Dim] = {}          # input position (0 = start) -> its length, if 1-D
        for i, (name, info) in enumerate(zip(_NAMES, idx)):
            check_index_input(info, f"input {i + 1}", None,
                              f"Slice `{name}` input must be a 1D tensor. Got rank: {info.shape.rank}")
            if info.shape.rank == 1:
                lens[i] = info.shape[0]
                if lens[i].lo > rank:
                    raise OpError(f"Slice `{name}` input dim size can't be bigger than `data` rank.",
                                  port=f"input {i + 1}")
        sss = [d for i, d in lens.items() if i < 3]
        if any(a.intersect(b) is None for a in sss for b in sss):
            raise OpError("Slice `start`, `stop`, `step` inputs must have compatible shapes.")
        if 3 in lens and any(d.intersect(lens[3]) is None for d in sss):
            raise OpError("Slice `axes` input must have compatible shape with `start`, `stop`, `step` inputs.",
                          port="input 4")
        values = [None if i.value is None else index_values(i.value) for i in idx] + [None] * (4 - len(idx))
        n_default = len(values[0]) if values[0] is not None else \
            lens[0].lo if 0 in lens and lens[0].is_static else None
        plan = slice_plan(rank, *values, n_default=n_default, has_axes=len(idx) == 4)
        ranges = {}        # axis -> (start, stop, step) with value bounds for start and stop
        starts, stops, steps = bounds.pairs(idx[0]), bounds.pairs(idx[1]), values[2]
        if plan is not None and None not in (starts, stops, steps) \
                and len({len(starts), len(stops), len(steps), len(plan)}) == 1:
            ranges = {axis: (starts[k], stops[k], steps[k]) for k, axis in enumerate(plan)}
        dims = []
        for axis, dim in enumerate(data.shape):
            if plan is None:
                dims.append(up_to(dim))
            elif axis not in plan:
                dims.append(dim)
            else:
                t = plan[axis]
                dims.append(sliced_dim(dim, *t) if t is not None else bounded_dim(dim, *ranges[axis])
                            if axis in ranges else up_to(dim))
        return [TensorInfo(data.etype, PartialShape(dims))]

    def run(self, x: np.ndarray, *idx: np.ndarray) -> list[np.ndarray]:
        values = [index_values(v) for v in idx] + [None] * (4 - len(idx))
        plan = slice_plan(x.ndim, *values, n_default=len(values[0]), has_axes=len(idx) == 4)
        index = [slice(None)] * x.ndim
        for axis, (start, stop, step) in plan.items():
            index[axis] = clamp_slice(x.shape[axis], start, stop, step)[0]
        return [x[tuple(index)]]
