"""The resize arithmetic of the Interpolate ops (see :mod:`irrun.ops.interpolate` for the rules as
measured): output shapes, per-axis taps and weights for every mode, and the separable resize.
"""
from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ..errors import OpError
from ..limits.memory import check_alloc
from ..types.shapes import DYN, Dim, PartialShape
from ._numerics import compute_dtype, round_half_away

MODES_4 = ("nearest", "linear", "linear_onnx", "cubic")
MODES_11 = MODES_4 + ("bilinear_pillow", "bicubic_pillow")
CTM = ("half_pixel", "pytorch_half_pixel", "asymmetric", "tf_half_pixel_for_nn", "align_corners")
NEAREST = ("round_prefer_floor", "round_prefer_ceil", "floor", "ceil", "simple")
F32 = np.float32
_EPS = F32(1e-6)


# ---------------------------------------------------------------------------------------------
# Shapes

def scale_dim(d: Dim, scale: float) -> Dim:
    """OpenVINO's ``dim::scale``: each bound times ``scale + 1e-6`` in float32, truncated."""
    s = F32(scale)
    if s == F32(1.0):
        return d
    s = s + _EPS
    f = lambda v: int(F32(v) * s)  # noqa: E731
    return Dim(f(d.lo), None if d.hi is None else f(d.hi))


def padded_pads(pads: Sequence[int], rank: int) -> list[int]:
    """pads_begin/pads_end resized to the rank: cut, or extended with zeros."""
    p = list(pads)[:rank]
    return p + [0] * (rank - len(p))


def check_axes(axes: Sequence[int], rank: int, port: str | None = None) -> list[int]:
    if any(a < 0 or a >= rank for a in axes):
        raise OpError(f"All axes values should less than input rank: {rank}", port=port)
    return list(axes)


def check_count(n: int, axes: Sequence[int], what: str, port: str) -> None:
    if n < len(axes):
        raise OpError(f"The number of elements in the '{what}' input does not match the number of axes "
                      f"{len(axes)}", port=port)


def out_shape(data: PartialShape, pb: Sequence[int], pe: Sequence[int], axes: Sequence[int] | None,
              sizes: Sequence[int] | None, scales: Sequence[float] | None) -> PartialShape:
    """Padded data shape with the axes set from ``sizes`` or scaled by ``scales`` (either may be
    None = unknown, making those dims ``?``); ``axes`` None = unknown (every dim ``?``)."""
    if data.rank is None:
        return PartialShape(None)
    if axes is None:
        return PartialShape.dynamic(data.rank)
    dims = [d + (b + e) for d, b, e in zip(data, pb, pe)]
    for i, a in enumerate(axes):
        if sizes is not None:
            dims[a] = Dim.of(sizes[i])
        elif scales is not None:
            dims[a] = scale_dim(dims[a], scales[i])
        else:
            dims[a] = DYN
    return PartialShape(dims)


# ---------------------------------------------------------------------------------------------
# Per-axis taps

def source_coords(n_out: int, n_in: int, scale: np.float32, ctm: str) -> np.ndarray:
    """float32 input coordinate of every output position (OpenVINO's GetOriginalCoordinate)."""
    o = np.arange(n_out, dtype=F32)
    if scale == F32(1.0) or n_out == n_in:
        return o
    h = F32(0.5)
    if ctm == "pytorch_half_pixel":
        return (o + h) / scale - h if n_out > 1 else np.zeros(n_out, F32)
    if ctm == "asymmetric":
        return o / scale
    if ctm == "tf_half_pixel_for_nn":
        return (o + h) / scale
    if ctm == "align_corners":
        return np.zeros(n_out, F32) if n_out == 1 else o * F32(n_in - 1) / F32(n_out - 1)
    return (o + h) / scale - h


def nearest_index(c: np.ndarray, mode: str, downsample: bool) -> np.ndarray:
    c64 = c.astype(np.float64)
    if mode == "round_prefer_floor":
        r = np.where(c64 == np.trunc(c64) + 0.5, np.floor(c64), round_half_away(c64))
    elif mode == "round_prefer_ceil":
        r = round_half_away(c64)
    elif mode == "floor":
        r = np.floor(c64)
    elif mode == "ceil":
        r = np.ceil(c64)
    else:                                                   # simple
        r = np.ceil(c64) if downsample else np.trunc(c64)
    return r.astype(np.int64)


def cubic_coeffs(s: np.ndarray, a: float | np.floating) -> np.ndarray:
    """``[n, 4]`` float32 weights of the taps at floor(c)-1 .. floor(c)+2."""
    a, s = F32(a), np.abs(s).astype(F32)
    one, two = F32(1), F32(2)
    return np.stack([((a * (s + one) - 5 * a) * (s + one) + 8 * a) * (s + one) - 4 * a,
                     ((a + 2) * s - (a + 3)) * s * s + one,
                     ((a + 2) * (one - s) - (a + 3)) * (one - s) * (one - s) + one,
                     ((a * (two - s) - 5 * a) * (two - s) + 8 * a) * (two - s) - 4 * a], axis=1).astype(F32)


def _pillow_taps(n_in: int, n_out: int, cubic: bool, a: float) -> tuple[np.ndarray, np.ndarray]:
    """Pillow's precompute_coeffs (float64): indices and normalised weights, ``[n_out, ksize]``."""
    support_base = 2.0 if cubic else 1.0
    scale = n_in / n_out
    fscale = max(scale, 1.0)
    support = support_base * fscale
    ksize = int(math.ceil(support)) * 2 + 1
    center = (np.arange(n_out) + 0.5) * scale
    xmin = np.maximum(np.trunc(center - support + 0.5).astype(np.int64), 0)
    xmax = np.minimum(np.trunc(center + support + 0.5).astype(np.int64), n_in) - xmin
    t = np.arange(ksize)
    x = (t[None, :] + xmin[:, None] - center[:, None] + 0.5) / fscale
    ax = np.abs(x)
    if cubic:
        w = np.where(ax < 1, ((a + 2) * ax - (a + 3)) * ax * ax + 1,
                     np.where(ax < 2, (((ax - 5) * ax + 8) * ax - 4) * a, 0.0))
    else:
        w = np.where(ax < 1, 1 - ax, 0.0)
    w = np.where(t[None, :] < xmax[:, None], w, 0.0)
    ww = w.sum(axis=1, keepdims=True)
    w = np.where(ww != 0, w / np.where(ww != 0, ww, 1), w)
    return np.minimum(xmin[:, None] + t[None, :], n_in - 1), w


def check_pillow_axes(axes: Sequence[int]) -> None:
    if len(axes) != 2:
        raise OpError("For Pillow based modes exactly two (HW) axes need to be provided.", openvino_loads=True)


def apply_taps(x: np.ndarray, axis: int, idx: np.ndarray, w: np.ndarray | None) -> np.ndarray:
    """``out[.., o, ..] = sum_t w[o, t] * x[.., idx[o, t], ..]`` along ``axis``."""
    if w is None:
        return np.take(x, idx[:, 0], axis=axis)
    shape = [1] * x.ndim
    shape[axis] = idx.shape[0]
    acc: np.ndarray | None = None
    for t in range(idx.shape[1]):
        term = np.take(x, idx[:, t], axis=axis) * w[:, t].astype(x.dtype).reshape(shape)
        acc = term if acc is None else acc + term
    assert acc is not None      # every output takes at least one tap
    return acc


class Resize:
    """The attributes that decide the arithmetic (Interpolate-4 semantics)."""

    def __init__(self, mode: str, ctm: str, nearest_mode: str, cube_coeff: float):
        self.mode, self.ctm, self.nearest_mode, self.cube_coeff = mode, ctm, nearest_mode, cube_coeff

    def __call__(self, x: np.ndarray, axes: Sequence[int], out: Sequence[int], scales: Sequence[float]) -> np.ndarray:
        """Resize the (already padded) ``x`` along ``axes`` to the sizes ``out`` (one per axis)."""
        dtype = x.dtype
        for a, n in zip(axes, out):
            if n > 0 and x.shape[a] == 0:
                raise OpError(f"cannot resize the empty axis {a} to {n} elements (OpenVINO reads "
                              "outside the input)", openvino_loads=True)
        if self.mode == "nearest":
            for a, n, scale in zip(axes, out, scales):
                s = F32(scale)
                c = source_coords(n, x.shape[a], s, self.ctm)
                i = np.clip(nearest_index(c, self.nearest_mode, bool(s < 1)), 0, x.shape[a] - 1)
                x = np.take(x, i, axis=a)
            return x
        if self.mode in ("bilinear_pillow", "bicubic_pillow"):
            return self.pillow(x, axes, out)
        y = x.astype(np.float64 if dtype == np.float64 else F32, copy=False)
        for a, n, scale in zip(axes, out, scales):
            s = F32(scale)
            n_in = y.shape[a]
            c = source_coords(n, n_in, s, self.ctm)
            if self.mode == "linear_onnx":
                c = np.clip(c, F32(0), F32(n_in - 1))
                i1 = np.minimum(c.astype(np.int64), n_in - 1)
                i2 = np.minimum(i1 + 1, n_in - 1)
                d1, d2 = np.abs(c - i1.astype(F32)), np.abs(c - i2.astype(F32))
                same = i1 == i2
                d1, d2 = np.where(same, F32(0.5), d1), np.where(same, F32(0.5), d2)
                y = apply_taps(y, a, np.stack([i1, i2], 1), np.stack([d2, d1], 1))
            elif self.mode == "cubic":
                base = np.floor(c).astype(np.int64)
                w = cubic_coeffs(c - base.astype(F32), self.cube_coeff)
                idx = np.clip(base[:, None] + np.arange(4)[None, :] - 1, 0, n_in - 1)
                y = apply_taps(y, a, idx, w)
            else:                 # linear: the triangle filter over round(c)-2 .. round(c)+2
                j = round_half_away(c.astype(np.float64)).astype(np.int64)[:, None] + np.arange(-2, 3)[None, :]
                ok = (j >= 0) & (j < n_in)
                w = np.where(ok, np.maximum(F32(0), F32(1) - np.abs(c[:, None] - j.astype(F32))), F32(0))
                ws = w.sum(axis=1, keepdims=True)
                w = np.where(ws > 0, w / np.where(ws > 0, ws, 1), F32(0))
                y = apply_taps(y, a, np.clip(j, 0, n_in - 1), w)
        if dtype.kind in "iu":                   # the CPU plugin rounds and saturates
            info = np.iinfo(dtype)
            y = np.clip(np.rint(y), info.min, info.max)
        return y.astype(dtype, copy=False)

    def pillow(self, x: np.ndarray, axes: Sequence[int], out: Sequence[int]) -> np.ndarray:
        check_pillow_axes(axes)
        dtype = x.dtype
        y = x.astype(np.float64) if dtype.kind in "iu" else x.astype(compute_dtype(dtype), copy=False)
        for a, n in ((axes[1], out[1]), (axes[0], out[0])):          # horizontal pass first
            if n == y.shape[a]:
                continue
            idx, w = _pillow_taps(y.shape[a], n, self.mode == "bicubic_pillow", self.cube_coeff)
            y = apply_taps(y, a, idx, w.astype(y.dtype))
            if dtype.kind in "iu":
                info = np.iinfo(dtype)
                y = np.clip(np.where(y >= 0, np.trunc(y + 0.5), np.trunc(y - 0.5)), info.min, info.max)
        return y.astype(dtype, copy=False)


def pad_data(x: np.ndarray, pb: Sequence[int], pe: Sequence[int]) -> np.ndarray:
    if not any(pb) and not any(pe):
        return x
    check_alloc([d + b + e for d, b, e in zip(x.shape, pb, pe)], x.dtype, "the padded input")
    return np.pad(x, list(zip(pb, pe)))
