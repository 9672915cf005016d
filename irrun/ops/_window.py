"""Sliding-window arithmetic shared by convolutions and pooling: ``auto_pad``, output sizes over
intervals (OpenVINO 2026.4.1's convolution_shape_inference_util.hpp, measured: an interval dim maps
bound by bound, ``[5..10]`` with k3 s2 p1 -> ``[3..5]``; a lower bound never drops below 1; same_upper/
same_lower give ``ceil(dim / stride)``), padding and strided window views."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from ..errors import OpError
from ..types.shapes import Dim, PartialShape

AUTO_PAD = ("explicit", "same_upper", "same_lower", "valid")


_INF = 1 << 62


def check_rank(shape: PartialShape) -> None:
    if shape.rank is not None and shape.rank not in (3, 4, 5):
        raise OpError(f"Expected a 3D, 4D or 5D tensor for the input. Got: {shape}", port="input 0")


def same_pads(size: int, kernel: int, stride: int, upper: bool) -> tuple[int, int]:
    """(begin, end) padding of auto_pad same_upper/same_lower for one static axis: the output
    has ``ceil(size / stride)`` positions and the odd pixel goes to the end (upper) or begin."""
    total = max(0, (-(-size // stride) - 1) * stride + kernel - size)
    small = total // 2
    return (small, total - small) if upper else (total - small, small)


def resolve_pads(auto_pad: str, dims: Sequence[Dim], kernels: Sequence[int | None],
                 strides: Sequence[int], begin: Sequence[int], end: Sequence[int]
                 ) -> tuple[list[int], list[int]]:
    """Pads after auto_pad: explicit keeps the attributes, valid is zero, same_* is computed for
    static axes with a known (dilated) kernel and zero otherwise (as OpenVINO does)."""
    n = len(strides)
    if auto_pad == "valid":
        return [0] * n, [0] * n
    if auto_pad == "explicit":
        return list(begin) or [0] * n, list(end) or [0] * n
    pb, pe = [0] * n, [0] * n
    for i, (d, k, s) in enumerate(zip(dims, kernels, strides)):
        if d.is_static and k is not None:
            pb[i], pe[i] = same_pads(d.lo, k, s, auto_pad == "same_upper")
    return pb, pe


def _window_count(size: int, pads: int, kernel: int, stride: int, rounding: str, pad_begin: int) -> int:
    v = max(size + pads - kernel, 0)
    out = (v // stride if rounding == "floor" else -(-v // stride)) + 1
    if rounding == "ceil_torch" and (out - 1) * stride >= size + pad_begin:
        out -= 1          # PyTorch: the last window must start inside the input or the begin pad
    return max(out, 1)


def window_dim(d: Dim, pads: int, kernel: Dim, stride: int, rounding: str = "floor",
               pad_begin: int = 0) -> Dim:
    """Number of window positions along an axis of size ``d`` (an interval, mapped bound by bound)
    with ``pads`` in total and a dilated kernel extent ``kernel`` (itself possibly an interval)."""
    lo = _window_count(d.lo, pads, _INF if kernel.hi is None else kernel.hi, stride, rounding, pad_begin)
    hi = None if d.hi is None else _window_count(d.hi, pads, max(kernel.lo, 1), stride, rounding, pad_begin)
    return Dim(lo, hi)


def check_kernel_fits(size: int, pads: int, kernel: int, axis: int) -> None:
    if kernel < 1:
        raise OpError(f"Kernel after dilation has dimension less than 1 (dim: {kernel}) at axis {axis}.")
    if kernel > size + pads:
        raise OpError(f"Kernel after dilation has size (dim: {kernel}) larger than the data shape after "
                      f"padding (dim: {size + pads}) at axis {axis}.", port="input 0")


def pad_spatial(x: np.ndarray, begin: Sequence[int], end: Sequence[int], value=0) -> np.ndarray:
    """Pad (or, for negative amounts, crop) the axes after the first two with ``value``."""
    crop = (slice(None),) * 2 + tuple(slice(max(-b, 0), x.shape[2 + i] - max(-e, 0))
                                       for i, (b, e) in enumerate(zip(begin, end)))
    x = x[crop]
    if any(b > 0 or e > 0 for b, e in zip(begin, end)):     # (np.pad: ~50 us more per call)
        shape = x.shape[:2] + tuple(n + max(b, 0) + max(e, 0) for n, b, e in zip(x.shape[2:], begin, end))
        padded = np.full(shape, value, x.dtype)
        padded[(slice(None),) * 2 + tuple(slice(max(b, 0), max(b, 0) + n) for n, b in zip(x.shape[2:], begin))] = x
        x = padded
    return x


def windows(xp: np.ndarray, kernel: Sequence[int], strides: Sequence[int], dilations: Sequence[int],
            out: Sequence[int]) -> np.ndarray:
    """A view ``[N, C, *out, *kernel]`` of the (padded) input: element ``[n, c, o.., k..]`` is
    ``xp[n, c, o*stride + k*dilation ...]``. ``xp`` must be long enough on every axis."""
    nsp = len(kernel)
    ext = [(k - 1) * d + 1 for k, d in zip(kernel, dilations)]
    v = sliding_window_view(xp, ext, axis=tuple(range(2, 2 + nsp)))
    return v[(slice(None),) * 2 + tuple(slice(0, (o - 1) * s + 1, s) for o, s in zip(out, strides))
             + tuple(slice(None, None, d) for d in dilations)]
