"""The clamped-slice computation Slice-8 and StridedSlice-1 share: :func:`clamp_slice` for one
concrete dimension, :func:`sliced_dim` for a partial one, :func:`bounded_dim` for bounds."""
from __future__ import annotations

import numpy as np

from ..errors import OpError
from ..types.shapes import Dim
from .base import int_list

INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1


_INT32_MIN, _INT32_MAX = -(1 << 31), (1 << 31) - 1


def index_values(value: np.ndarray) -> list[int]:
    """An index-like input as Python ints. Unsigned values keep their magnitude (u8 255 is 255;
    u64 >= 2**63 wraps negative, as in OpenVINO). The i32 extremes widen to the int64 ones: OpenVINO's
    shape inference reads both as "to the end" sentinels, and at run time they clamp alike."""
    ints = int_list(value)
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
    (hi None: unbounded; irrun/ops/bounds.py). While a bound keeps its sign the length is monotonic in
    it (a later start or an earlier stop takes no more elements, for a positive step; the reverse
    for a negative one), so the extremes are at two corners; bounds that straddle 0 (an index
    that may count from either end) are split there and the results joined."""
    def parts(lo: int, hi: int | None) -> list[tuple[int, int]]:     # split at 0: one sign each
        hi = INT64_MAX if hi is None else hi
        return [(lo, -1), (0, hi)] if lo < 0 <= hi else [(lo, hi)]

    out: Dim | None = None
    for s0, s1 in parts(*start):
        for e0, e1 in parts(*stop):
            fewest, most = ((s1, e0), (s0, e1)) if step > 0 else ((s0, e1), (s1, e0))
            lo, hi = sliced_dim(dim, *fewest, step).lo, sliced_dim(dim, *most, step).hi
            out = Dim(lo, hi) if out is None else \
                Dim(min(out.lo, lo), None if hi is None or out.hi is None else max(out.hi, hi))
    assert out is not None      # parts() gives each bound at least one range
    return out


def up_to(dim: Dim) -> Dim:
    """``0..upper(dim)``: what a slice with unknown bounds can leave of ``dim``."""
    return Dim(0, dim.hi)
