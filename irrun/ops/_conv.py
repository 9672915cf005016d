"""The convolution kernels: im2col (a strided ``sliding_window_view`` copied into ``[N, G, C/G*K,
rows*W]`` columns, a cache-sized block of output rows at a time) and a batched ``np.matmul`` of
each block with the filters, a 1x1 one the matmul alone; a depthwise convolution (one input
channel per group) an im2col of the K taps and a matmul per channel, blocked for the cache; a 3x3
stride-1 one with enough channels Winograd F(2x2, 3x3) (_winograd.py; chosen in
:meth:`ConvolutionOp.convolve`). Also the attributes and checks every convolution shares.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from types import EllipsisType

import numpy as np
from numpy.lib.stride_tricks import as_strided

from ..errors import OpError
from ..limits import threads
from ..limits.memory import OverBudget, check_alloc
from ..types.shapes import DYN, Dim, PartialShape
from ._numerics import compute_dtype, require_numeric, same_etype
from ._window import AUTO_PAD, check_kernel_fits, check_rank, pad_spatial, resolve_pads, window_dim, windows
from ._winograd import conv3x3, filter_transform, finite, worth_it
from .base import Attr, Op, Precision, TensorInfo

# ---------------------------------------------------------------------------------------------
# Window arithmetic shared with pooling.py


def conv_kernel(x: np.ndarray, w: np.ndarray, strides: Sequence[int], dilations: Sequence[int],
                pads_begin: Sequence[int], pads_end: Sequence[int]) -> np.ndarray:
    """Grouped N-d convolution in the compute type. ``x``: [N, C, *sp]; ``w``: [G, Og, C/G, *k].
    Returns [N, G*Og, *out]."""
    n, c = x.shape[:2]
    g, og, cg = w.shape[:3]
    k = w.shape[3:]
    nsp = len(k)
    out = [(x.shape[2 + i] + pads_begin[i] + pads_end[i] - (k[i] - 1) * dilations[i] - 1) // strides[i] + 1
           for i in range(nsp)]
    if min(out, default=1) <= 0 or n == 0 or g * og == 0:
        return np.zeros((n, g * og, *[max(o, 0) for o in out]), x.dtype)
    if cg == 1 and g > 1:           # depthwise (with a channel multiplier): a matmul per channel
        return _depthwise(x, w[:, :, 0], strides, dilations, pads_begin, pads_end, out)
    xp = pad_spatial(x, pads_begin, pads_end)
    nk, p = math.prod(k), math.prod(out)
    if nk == 1:                     # pointwise: the (strided) input is already the column matrix
        cols = xp[(slice(None),) * 2 + tuple(slice(None, (o - 1) * s + 1, s) for o, s in zip(out, strides))]
        return np.matmul(w.reshape(g, og, cg), cols.reshape(n, g, cg, p)).reshape(n, g * og, *out)
    win = windows(xp, k, strides, dilations, out)                   # [N, C, *out, *k]
    order = (0, 1) + tuple(range(2 + nsp, 2 + 2 * nsp)) + tuple(range(2, 2 + nsp))
    patches = win.transpose(order)                                  # [N, C, *k, *out], a view
    # im2col a block of output rows at a time, multiplied while the block is still in the cache
    row_bytes = n * c * nk * math.prod(out[1:]) * x.dtype.itemsize
    row_width = math.prod(out[1:])
    rows = min(out[0], max(1, IM2COL_BLOCK // max(row_bytes, 1), -(-IM2COL_COLUMNS // max(row_width, 1))))
    check_alloc((n, c * nk, rows * math.prod(out[1:])), x.dtype, "the im2col buffer")
    res = np.empty((n, g, og, *out), x.dtype)
    wm = w.reshape(g, og, cg * nk)
    lead = (slice(None),) * (2 + nsp)
    for r0 in range(0, out[0], rows):
        r1 = min(out[0], r0 + rows)
        cols = np.empty((n, c, *k, r1 - r0, *out[1:]), x.dtype)
        np.copyto(cols, patches[lead + (slice(r0, r1),)])
        np.matmul(wm, cols.reshape(n, g, cg * nk, -1), out=res[:, :, :, r0:r1].reshape(n, g, og, -1))
    return res.reshape(n, g * og, *out)


#: Bytes of im2col columns :func:`conv_kernel` builds and multiplies at a time (whole output rows,
#: at least one): the block stays in the CPU's L2 cache between the copy and the matmul. One
#: buffer for the whole image streams through memory twice; on 3x3 convolutions of 360x640 and
#: 1080x1920 images (the super-resolution models) the blocks ran 2.5-5x faster.
IM2COL_BLOCK = 1 << 20
#: ... and at least this many columns: each matmul packs the filters again, which a narrow block
#: does not repay (ResNet-18's 512-channel 3x3 layer ran 2x slower in 256 KiB blocks of 49 columns).
IM2COL_COLUMNS = 512


#: Bytes of im2col columns per channel block of :func:`_depthwise`: a block stays in the CPU cache
#: between being written and being multiplied.
DEPTHWISE_BLOCK = 1 << 20


def _depthwise(x: np.ndarray, wk: np.ndarray, strides: Sequence[int], dilations: Sequence[int],
               pads_begin: Sequence[int], pads_end: Sequence[int], out: Sequence[int]) -> np.ndarray:
    """Depthwise convolution: ``x`` [N, G, *sp] (unpadded), ``wk`` [G, Og, *k] -> [N, G*Og, *out].

    Per block of channels, an im2col of the K taps (one strided copy per stride phase, :func:`_tap_grids`)
    and one batched matmul of each
    channel's [Og, K] filters with its [K, P] columns (K = kernel taps): ~3x faster than K
    shifted multiply-adds, which stream the output through memory twice per tap. To make every
    tap one contiguous slice, the padded input is split into its stride phases (``xp[..., p::s]``
    per axis; one plane for stride 1), flattened per channel; the output is computed on a phase
    plane's grid (rows as wide as the plane) and the extra columns are cut off at the end. (Not split
    over irrun's threads: the matmuls are BLAS calls, and BLAS called from several threads at once
    waits on itself — MobileNetV2 at 2 threads ran 2.5x slower.)"""
    if min(pads_begin, default=0) < 0 or min(pads_end, default=0) < 0:     # negative pads crop
        x = pad_spatial(x, [min(b, 0) for b in pads_begin], [min(e, 0) for e in pads_end])
        pads_begin, pads_end = [max(b, 0) for b in pads_begin], [max(e, 0) for e in pads_end]
    n, g = x.shape[:2]
    og, k = wk.shape[1], wk.shape[2:]
    nsp, nk = len(k), math.prod(k)
    q = [-(-(size + b + e) // s) for size, b, e, s in zip(x.shape[2:], pads_begin, pads_end, strides)]
    planes = {}
    for ph in np.ndindex(*strides):            # plane[..., m] = padded[..., m * s + ph]
        plane = np.zeros((n, g, q[0] + 1, *q[1:]), x.dtype)   # + one row: the last tap reads past
        src, dst = [], []
        for p, s, b, size in zip(ph, strides, pads_begin, x.shape[2:]):
            x0 = (p - b) % s                   # the first input index landing in this phase
            cnt = max(0, -(-(size - x0) // s))
            m0 = (x0 + b - p) // s
            src.append(slice(x0, x0 + (cnt - 1) * s + 1 if cnt else x0, s))
            dst.append(slice(m0, m0 + cnt))
        plane[(slice(None), slice(None), *dst)] = x[(slice(None), slice(None), *src)]
        planes[ph] = plane.reshape(n, g, -1)
    span = [math.prod(q[i + 1:]) for i in range(nsp)]          # flat step of each plane axis
    size = out[0] * span[0]
    grids = _tap_grids(planes, k, dilations, strides, span, size)
    full = np.empty((n, g, og, size), x.dtype)
    w2 = wk.reshape(g, og, nk)
    gb = max(1, DEPTHWISE_BLOCK // (n * nk * size * x.dtype.itemsize))
    cols = np.empty((n, min(gb, g), *k, size), x.dtype)
    for g0 in range(0, g, gb):
        g1 = min(g, g0 + gb)
        c = cols[:, :g1 - g0]
        for where, grid in grids:       # the block's im2col: one copy per stride phase
            c[where] = grid[:, g0:g1]
        np.matmul(w2[g0:g1], c.reshape(n, g1 - g0, nk, size), out=full[:, g0:g1])
    full = full.reshape(n, g * og, out[0], *q[1:])
    crop: tuple[EllipsisType | slice, ...] = (Ellipsis, *[slice(0, o) for o in out[1:]])
    return np.ascontiguousarray(full[crop])


def _tap_grids(planes: dict[tuple[int, ...], np.ndarray], k: Sequence[int], dilations: Sequence[int],
               strides: Sequence[int], span: Sequence[int], size: int) -> list[tuple[tuple[slice, ...], np.ndarray]]:
    """For each stride phase of :func:`_depthwise`, the kernel taps it holds and their columns as
    one read-only view of the phase plane: ``(where, view)``, ``view`` [N, G, *taps, size] to be
    copied into ``cols[:, :, *k][where]``. Along an axis, the taps ``t`` of phase ``p`` are those
    with ``t * d % s == p``: every ``s / gcd(d, s)``-th tap, at plane offsets ``t * d // s`` that
    step by ``d / gcd(d, s)`` -- a regular grid, so one strided copy moves them all (K copies of
    a row of columns each cost a call: 10-20% of MobileNet's 3x3 depthwise layers)."""
    grids = []
    for ph, plane in planes.items():
        where, base, steps, counts = [], 0, [], []
        for p, kk, d, s, f in zip(ph, k, dilations, strides, span):
            taps = [t for t in range(kk) if t * d % s == p]
            if not taps:
                break
            m = s // math.gcd(d, s)
            where.append(slice(taps[0], taps[-1] + 1, m))
            base += taps[0] * d // s * f
            steps.append(d // math.gcd(d, s) * f)
            counts.append(len(taps))
        else:
            flat = plane[:, :, base:]
            grids.append(((slice(None), slice(None), *where),
                          as_strided(flat, (*flat.shape[:2], *counts, size),
                                     (*flat.strides[:2], *(st * flat.itemsize for st in steps), flat.itemsize),
                                     writeable=False)))
    return grids


def _winograd_groups(x: np.ndarray, u: np.ndarray, pads_begin: Sequence[int], out: Sequence[int]) -> np.ndarray:
    """:func:`conv3x3` per group: ``x`` [N, G*Cg, H, W] f32, ``u`` [G, 16, Og, Cg]."""
    g, cg = u.shape[0], u.shape[3]
    if g == 1:
        return conv3x3(x, u[0], pads_begin, out)
    res = np.empty((x.shape[0], g * u.shape[2], *out), np.float32)
    for i in range(g):
        res[:, i * u.shape[2]:(i + 1) * u.shape[2]] = conv3x3(x[:, i * cg:(i + 1) * cg], u[i], pads_begin, out)
    return res


# ---------------------------------------------------------------------------------------------
# Forward convolutions

CONV_ATTRS = {
    "strides": Attr("ints", required=True),
    "pads_begin": Attr("ints", required=True),
    "pads_end": Attr("ints", required=True),
    "dilations": Attr("ints", required=True),
    "auto_pad": Attr("enum", "explicit", choices=AUTO_PAD),
}


def check_conv_attrs(op, num_spatial: int) -> None:
    """OpenVINO's checks of strides, dilations and pads (empty pads read as zeros)."""
    pb, pe = op.pads_begin or [0] * num_spatial, op.pads_end or [0] * num_spatial
    if len(op.strides) != num_spatial:
        raise OpError("Strides should be defined for all and only spatial dimensions.")
    if len(op.dilations) != num_spatial:
        raise OpError("Dilations should be defined for all and only spatial dimensions.")
    if len(pb) != num_spatial or len(pe) != num_spatial:
        raise OpError("Pads begin and end should be defined for all and only spatial dimensions.")
    if 0 in op.strides:
        raise OpError(f"Strides has zero dimension(s). Strides{{{', '.join(map(str, op.strides))}}}")
    if 0 in op.dilations:
        raise OpError(f"Filter dilations has zero dimension(s). Strides{{{', '.join(map(str, op.dilations))}}}")
    if any(v < 0 for v in (*op.strides, *op.dilations)):
        raise OpError("strides and dilations must be positive")
    if op.auto_pad == "explicit" and any(v < 0 for v in (*pb, *pe)):
        raise OpError("irrun does not support negative pads (OpenVINO's shape inference "
                      "mis-sizes such convolutions)", unsupported=True)


def dilated_kernel(k: Dim, d: int) -> Dim:
    """The extent of a kernel dim ``k`` with dilation ``d``: ``(k - 1) * d + 1``."""
    return Dim((max(k.lo, 1) - 1) * d + 1, None if k.hi is None else (max(k.hi, 1) - 1) * d + 1)


# ---------------------------------------------------------------------------------------------
# The forward convolutions' shape rule (Convolution, GroupConvolution, BinaryConvolution,
# DeformableConvolution)

class ConvolutionOp(Op):
    """Common shape rule of Convolution and GroupConvolution (``lead`` = filter dims before the
    kernel: 2 for [O, I, k...], 3 for [G, O/G, I/G, k...])."""
    category = "linear"
    precision = Precision.SIGNIFICANT

    attrs = CONV_ATTRS
    num_inputs = (2, 2)
    lead = 2
    fresh_outputs = True

    def spatial_info(self, data: PartialShape, filters: PartialShape) -> int:
        if data.rank is not None and filters.rank is not None and filters.rank != data.rank + self.lead - 2:
            raise OpError(f"Data batch and filters rank do not match (data batch shape: {data}, filters "
                          f"shape: {filters}).", port="input 1")
        check_rank(data)
        if data.rank is not None:
            return data.rank - 2
        return filters.rank - self.lead if filters.rank is not None else len(self.strides)

    def out_channels(self, data: PartialShape, filters: PartialShape) -> Dim:
        raise NotImplementedError

    def geometry(self, d: Sequence[Dim], k: Sequence[Dim]) -> tuple[list[int], list[int], list[Dim]]:
        """(pads_begin, pads_end, output spatial dims) for data spatial dims ``d`` and kernel
        dims ``k`` — checked like OpenVINO; with static dims this also sizes the kernel's work."""
        kernels = [dilated_kernel(kk, dl) for kk, dl in zip(k, self.dilations)]
        for i, (kk, dl) in enumerate(zip(k, self.dilations)):
            if kk.hi == 0:        # an empty filter: OpenVINO's (k - 1) * d + 1 is below 1
                check_kernel_fits(0, 0, (kk.lo - 1) * dl + 1, i)
        pb, pe = resolve_pads(self.auto_pad, d, [e.lo if e.is_static else None for e in kernels], self.strides,
                              self.pads_begin, self.pads_end)
        if self.auto_pad in ("same_upper", "same_lower"):
            return pb, pe, [Dim(-(-x.lo // s), None if x.hi is None else -(-x.hi // s)) for x, s in zip(d, self.strides)]
        spatial = []
        for i, (x, e, s) in enumerate(zip(d, kernels, self.strides)):
            if x.is_static and e.is_static:
                check_kernel_fits(x.lo, pb[i] + pe[i], e.lo, i)
            spatial.append(window_dim(x, pb[i] + pe[i], e, s))
        return pb, pe, spatial

    def infer(self, inputs):
        data, filters = inputs
        same_etype(data, filters, f"Element types for data batch and filters do not match (data batch "
                                  f"element type: {data.etype}, filters element type: {filters.etype}).")
        require_numeric(data, self.type)
        nsp = self.spatial_info(data.shape, filters.shape)
        check_conv_attrs(self, nsp)
        d = list(data.shape)[2:] if data.shape.rank is not None else [DYN] * nsp
        k = list(filters.shape)[self.lead:] if filters.shape.rank is not None else [DYN] * nsp
        channels = self.out_channels(data.shape, filters.shape)
        batch = data.shape[0] if data.shape.rank is not None else DYN
        etype = filters.etype if data.etype.is_dynamic else data.etype
        return [TensorInfo(etype, PartialShape([batch, channels, *self.geometry(d, k)[2]]))]

    def convolve(self, x: np.ndarray, w: np.ndarray, source: np.ndarray) -> np.ndarray:
        """``w`` in [G, Og, Cg, *k] layout; ``source``: the filters as the layer got them (a
        read-only constant is the same array every run: what is derived from it is kept)."""
        key = (x.shape, x.dtype, w.shape)    # the pads, kept for the shapes of the last run
        kept = self.__dict__.get("_pads")
        if kept is None or kept[0] != key:
            pb, pe, spatial = self.geometry([Dim(n, n) for n in x.shape[2:]], [Dim(n, n) for n in w.shape[3:]])
            self.__dict__["_pads"] = kept = (key, pb, pe, self._winograd_fits(x, w, [d.lo for d in spatial]))
        pb, pe = kept[1], kept[2]
        acc = compute_dtype(x.dtype)
        if kept[3] is not None and worth_it(w.shape[2], w.shape[1], kept[3], threads.count()):
            u = self._winograd_filters(w, source)
            if u is not None:
                out = _winograd_groups(x.astype(acc, copy=False), u, pb, kept[3])
                if finite(out):
                    return out.astype(x.dtype, copy=False)
        out = conv_kernel(x.astype(acc, copy=False), w.astype(acc, copy=False), self.strides,
                          self.dilations, pb, pe)
        return out.astype(x.dtype, copy=False)

    def _winograd_fits(self, x: np.ndarray, w: np.ndarray, out: list[int]) -> list[int] | None:
        """The output size if this layer may take the Winograd path (irrun/ops/_winograd.py,
        when :func:`worth_it` for its channels, size and the threads): 2-D, 3x3, stride 1,
        dilation 1, computed in f32 (f16/bf16/f32 data; f64 and integers keep the exact-order
        sums of im2col), not empty; else None."""
        fits = (x.ndim == 4 and w.shape[3:] == (3, 3) and tuple(self.strides) == (1, 1)
                and tuple(self.dilations) == (1, 1) and compute_dtype(x.dtype) == np.float32
                and x.shape[0] > 0 and min(out) > 0)
        return out if fits else None

    def _winograd_filters(self, w: np.ndarray, source: np.ndarray) -> np.ndarray | None:
        """The transformed filters [G, 16, Og, Cg] of a constant ``source``, computed at its
        first run and kept with the layer; None (the im2col path) for filters computed at run
        time (transforming them every run costs what it saves) or holding inf/NaN (the
        transform would spread them: irrun/ops/_winograd.py)."""
        kept = self.__dict__.get("_winograd")
        if kept is not None and kept[0] is source:
            return kept[1]
        if source.flags.writeable:
            return None
        wf = w.astype(np.float32, copy=False)
        u: np.ndarray | None = None
        if np.isfinite(wf).all():
            try:
                u = filter_transform(wf[0])[None] if len(wf) == 1 else np.stack([filter_transform(g) for g in wf])
            except OverBudget:          # the transformed filters do not fit: im2col needs none
                u = None
        self.__dict__["_winograd"] = (source, u)
        return u


class DenseConvolution(ConvolutionOp):
    """Filters [C_out, C_in, k...]: Convolution-1's channel rule and kernel (BinaryConvolution
    shares them)."""

    def out_channels(self, data, filters):
        if data.rank is not None and filters.rank is not None and data[1].intersect(filters[1]) is None:
            raise OpError(f"Data batch channel count ({data[1]}) does not match filter input channel "
                          f"count ({filters[1]}).", port="input 1")
        return filters[0] if filters.rank is not None else DYN

    def run(self, x, w):
        if x.shape[1] != w.shape[1]:
            raise OpError(f"Data batch channel count ({x.shape[1]}) does not match filter input channel "
                          f"count ({w.shape[1]}).", port="input 1")
        return [self.convolve(x, w[None], w)]
