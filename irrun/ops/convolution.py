"""Convolution-1, GroupConvolution-1, ConvolutionBackpropData-1, GroupConvolutionBackpropData-1, and
the sliding-window rules (auto_pad, output sizes over intervals, window views) that pooling shares.

Kernels are vectorised: a convolution is im2col (a strided ``sliding_window_view`` copied into
``[N, G, C/G*K, P]`` columns) followed by one batched ``np.matmul`` with the filters, a 1x1 one
the matmul alone on the (strided) input; a depthwise convolution (one input channel per group) is
an im2col of the K kernel taps and a matmul per channel, blocked over channels for the cache; the
transposed convolution is the convolution of the stride-dilated input with the flipped filters. Shape rules follow OpenVINO 2026.4.1 (convolution_shape_inference_util.hpp),
measured: an interval spatial dim maps bound by bound (``[5..10]`` with k3 s2 p1 -> ``[3..5]``),
a lower bound never drops below 1 (``?`` -> ``1..``), same_upper/same_lower give ``ceil(dim / stride)``.
"""
from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ..budget import check_alloc
from ..errors import OpError
from ..shapes import DYN, Dim, PartialShape
from .base import Attr, Op, TensorInfo, as_int64, spec_url
from ._window import AUTO_PAD, check_kernel_fits, check_rank, pad_spatial, resolve_pads, window_dim, windows
from ._numerics import compute_dtype, require_numeric, same_etype
from .registry import register


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
        cols = cols.reshape(n, g, cg, p)
    else:
        check_alloc((n, c * nk, p), x.dtype, "the im2col buffer")
        win = windows(xp, k, strides, dilations, out)               # [N, C, *out, *k]
        order = (0, 1) + tuple(range(2 + nsp, 2 + 2 * nsp)) + tuple(range(2, 2 + nsp))
        cols = win.transpose(order).reshape(n, g, cg * nk, p)      # the one copy
    return np.matmul(w.reshape(g, og, cg * nk), cols).reshape(n, g * og, *out)     # [N, G, Og, P]


#: Bytes of im2col columns per channel block of :func:`_depthwise`: a block stays in the CPU cache
#: between being written and being multiplied.
DEPTHWISE_BLOCK = 1 << 20


def _depthwise(x: np.ndarray, wk: np.ndarray, strides: Sequence[int], dilations: Sequence[int],
               pads_begin: Sequence[int], pads_end: Sequence[int], out: Sequence[int]) -> np.ndarray:
    """Depthwise convolution: ``x`` [N, G, *sp] (unpadded), ``wk`` [G, Og, *k] -> [N, G*Og, *out].

    Per block of channels, an im2col of K contiguous copies and one batched matmul of each
    channel's [Og, K] filters with its [K, P] columns (K = kernel taps): ~3x faster than K
    shifted multiply-adds, which stream the output through memory twice per tap. To make every
    tap one contiguous slice, the padded input is split into its stride phases (``xp[..., p::s]``
    per axis; one plane for stride 1), flattened per channel; the output is computed on a phase
    plane's grid (rows as wide as the plane) and the extra columns are cut off at the end."""
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
    taps = [(tuple(t * d % s for t, d, s in zip(kk, dilations, strides)),
             sum(t * d // s * f for t, d, s, f in zip(kk, dilations, strides, span))) for kk in np.ndindex(*k)]
    full = np.empty((n, g, og, size), x.dtype)
    w2 = wk.reshape(g, og, nk)
    gb = max(1, DEPTHWISE_BLOCK // (n * nk * size * x.dtype.itemsize))
    cols = np.empty((n, min(gb, g), nk, size), x.dtype)
    for g0 in range(0, g, gb):
        g1 = min(g, g0 + gb)
        c = cols[:, :g1 - g0]
        for i, (ph, off) in enumerate(taps):
            c[:, :, i] = planes[ph][:, g0:g1, off:off + size]
        np.matmul(w2[g0:g1], c, out=full[:, g0:g1])
    full = full.reshape(n, g * og, out[0], *q[1:])
    return np.ascontiguousarray(full[(Ellipsis, *[slice(0, o) for o in out[1:]])])


# ---------------------------------------------------------------------------------------------
# Forward convolutions

_CONV_ATTRS = {
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


def _dilated(k: Dim, d: int) -> Dim:
    return Dim((max(k.lo, 1) - 1) * d + 1, None if k.hi is None else (max(k.hi, 1) - 1) * d + 1)


class _Convolution(Op):
    """Common shape rule of Convolution and GroupConvolution (``lead`` = filter dims before the
    kernel: 2 for [O, I, k...], 3 for [G, O/G, I/G, k...])."""

    attrs = _CONV_ATTRS
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
        kernels = [_dilated(kk, dl) for kk, dl in zip(k, self.dilations)]
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

    def convolve(self, x: np.ndarray, w: np.ndarray) -> np.ndarray:
        """``w`` in [G, Og, Cg, *k] layout."""
        pb, pe, _ = self.geometry([Dim(n, n) for n in x.shape[2:]], [Dim(n, n) for n in w.shape[3:]])
        acc = compute_dtype(x.dtype)
        out = conv_kernel(x.astype(acc, copy=False), w.astype(acc, copy=False), self.strides,
                          self.dilations, pb, pe)
        return out.astype(x.dtype, copy=False)


@register
class Convolution1(_Convolution):
    """Filters [C_out, C_in, k...]; 1-D, 2-D and 3-D. f16/bf16 are computed in f32, integers in
    int64 (then cast back)."""

    type, version = "Convolution", "opset1"
    spec = spec_url("convolution/convolution-1")

    def out_channels(self, data, filters):
        if data.rank is not None and filters.rank is not None and data[1].intersect(filters[1]) is None:
            raise OpError(f"Data batch channel count ({data[1]}) does not match filter input channel "
                          f"count ({filters[1]}).", port="input 1")
        return filters[0] if filters.rank is not None else DYN

    def run(self, x, w):
        if x.shape[1] != w.shape[1]:
            raise OpError(f"Data batch channel count ({x.shape[1]}) does not match filter input channel "
                          f"count ({w.shape[1]}).", port="input 1")
        return [self.convolve(x, w[None])]


@register
class GroupConvolution1(_Convolution):
    """Filters [G, C_out/G, C_in/G, k...]. A depthwise convolution (C_in/G == 1) runs as a
    matmul per channel with its own im2col (:func:`_depthwise`), the general case as a grouped
    matmul."""

    type, version = "GroupConvolution", "opset1"
    spec = spec_url("convolution/group-convolution-1")
    lead = 3

    def out_channels(self, data, filters):
        if filters.rank is None:
            return DYN
        groups, per_group, cin = filters[0], filters[1], filters[2]
        c = data[1] if data.rank is not None else DYN
        if c.is_static and groups.is_static and cin.is_static and c.lo != groups.lo * cin.lo:
            raise OpError("Input channels dimension of data batch is incompatible with filter groups or "
                          "input channels.", port="input 1")
        if not groups.is_static and c.is_static and cin.is_static and cin.lo > 0:
            groups = Dim(c.lo // cin.lo, c.lo // cin.lo)
        return groups * per_group

    def run(self, x, w):
        if x.shape[1] != w.shape[0] * w.shape[2]:
            raise OpError("Input channels dimension of data batch is incompatible with filter groups or "
                          "input channels.", port="input 1")
        return [self.convolve(x, w)]


# ---------------------------------------------------------------------------------------------
# Transposed convolution

@register
class ConvolutionBackpropData1(Op):
    """The transposed convolution: filters [C_in, C_out, k...], optional ``output_shape`` (the
    spatial sizes). Output size ``stride*(in-1) + dilation*(k-1)+1 - pads_begin - pads_end +
    output_padding``, or ``output_shape`` when given; with same_upper/same_lower and an
    ``output_shape`` the pads are derived from it (the larger half at the *begin* for same_upper,
    as OpenVINO does); without ``output_shape`` same_* means no padding. Computed as the
    convolution of the stride-dilated input with the flipped, transposed filters."""

    type, version = "ConvolutionBackpropData", "opset1"
    spec = spec_url("convolution/convolution-backprop-data-1")
    attrs = dict(_CONV_ATTRS, output_padding=Attr("ints", []))
    num_inputs = (2, 3)
    lead = 2      # filter dims before the kernel: [C_in, C_out, k...]
    rank_what = "Data batch"   # OpenVINO's rank-mismatch message starts "<rank_what> and filters rank"

    def check_channels(self, data: PartialShape, filters: PartialShape) -> None:
        if data.rank is not None and filters.rank is not None and data[1].intersect(filters[0]) is None:
            raise OpError(f"Data batch channel count ({data[1]}) does not match filter input channel "
                          f"count ({filters[0]}).", port="input 1")

    def out_channels(self, data: PartialShape, filters: PartialShape) -> Dim:
        return filters[1] if filters.rank is not None else DYN

    def grouped(self, x: np.ndarray, w: np.ndarray) -> np.ndarray:
        """The filters as [G, C_in/G, C_out/G, k...], after the run-time channel check."""
        self.check_channels(PartialShape(x.shape), PartialShape(w.shape))
        return w[None]

    def pads_and_sizes(self, ins: Sequence[Dim], ks: Sequence[Dim], out_spatial: Sequence[Dim] | None
                       ) -> tuple[list[int], list[int], list[Dim]]:
        """(pads_begin, pads_end, output spatial dims) — for shapes and, with static dims, the kernel."""
        n = len(self.strides)
        op = self.output_padding or [0] * n
        kd = [_dilated(k, d) for k, d in zip(ks, self.dilations)]
        pb, pe = [0] * n, [0] * n
        if self.auto_pad == "explicit":
            pb, pe = list(self.pads_begin or pb), list(self.pads_end or pe)
        elif self.auto_pad != "valid" and out_spatial is not None:
            for i in range(n):
                if ins[i].is_static and kd[i].is_static and out_spatial[i].is_static:
                    total = max((ins[i].lo - 1) * self.strides[i] + kd[i].lo - out_spatial[i].lo + op[i], 0)
                    small = total // 2
                    pb[i], pe[i] = (total - small, small) if self.auto_pad == "same_upper" else (small, total - small)
        if out_spatial is not None:
            return pb, pe, list(out_spatial)
        sizes = []
        for x, k, s, b, e, o in zip(ins, kd, self.strides, pb, pe, op):
            lo = max(x.lo - 1, 0) * s + k.lo + o - b - e
            hi = None if x.hi is None or k.hi is None else max(x.hi - 1, 0) * s + k.hi + o - b - e
            if hi is not None and hi < 1:
                raise OpError(f"the output would have no elements: stride*(in-1) + dilated kernel - "
                              f"pads + output_padding = {hi} (OpenVINO leaves the dimension dynamic "
                              "and cannot run it)", port="input 0", openvino_loads=True)
            sizes.append(Dim(max(lo, 0), hi))
        return pb, pe, sizes

    @staticmethod
    def output_spatial(value: np.ndarray, nsp: int) -> list[Dim]:
        vals = as_int64(value).reshape(-1).tolist()
        if len(vals) != nsp:
            raise OpError("Output shape should be defined for all and only spatial dimensions.", port="input 2")
        if any(v < 0 for v in vals):
            raise OpError(f"output_shape {vals} has a negative size", port="input 2", openvino_loads=True)
        return [Dim(v, v) for v in vals]

    def infer(self, inputs):
        data, filters = inputs[:2]
        same_etype(data, filters, f"Element types for data batch and filters do not match (data batch "
                                  f"element type: {data.etype}, filters element type: {filters.etype}).")
        require_numeric(data, self.type)
        ds, fs = data.shape, filters.shape
        if ds.rank is not None and fs.rank is not None and ds.rank != fs.rank - self.lead + 2:
            raise OpError(f"{self.rank_what} and filters rank do not match (data batch shape: {ds}, filters "
                          f"shape: {fs}).", port="input 1")
        check_rank(ds)
        nsp = ds.rank - 2 if ds.rank is not None else fs.rank - self.lead if fs.rank is not None else len(self.strides)
        check_conv_attrs(self, nsp)
        if len(self.output_padding or [0] * nsp) != nsp:
            raise OpError("Output padding should be defined for all and only spatial dimensions.")
        self.check_channels(ds, fs)
        out_spatial = None
        if len(inputs) == 3:
            osh = inputs[2]
            if not (osh.etype.is_integer or osh.etype.is_dynamic):
                raise OpError("Element type for output shape should be of integer type", port="input 2")
            if osh.shape.rank not in (None, 1):
                raise OpError("Input delivering output shape must have rank 1.", port="input 2")
            if osh.value is not None:
                out_spatial = self.output_spatial(osh.value, nsp)
            else:
                if osh.shape.rank == 1 and osh.shape[0].is_static and osh.shape[0].lo != nsp:
                    raise OpError("Output shape should be defined for all and only spatial dimensions.",
                                  port="input 2")
                out_spatial = [DYN] * nsp
        d = list(ds)[2:] if ds.rank is not None else [DYN] * nsp
        k = list(fs)[self.lead:] if fs.rank is not None else [DYN] * nsp
        _, _, spatial = self.pads_and_sizes(d, k, out_spatial)
        batch = ds[0] if ds.rank is not None else DYN
        channels = self.out_channels(ds, fs)
        etype = filters.etype if data.etype.is_dynamic else data.etype
        return [TensorInfo(etype, PartialShape([batch, channels, *spatial]))]

    def run(self, x, w, output_shape=None):
        w = self.grouped(x, w)                                  # [G, C_in/G, C_out/G, k...]
        nsp = x.ndim - 2
        out_spatial = None if output_shape is None else self.output_spatial(output_shape, nsp)
        pb, _, sizes = self.pads_and_sizes([Dim(n, n) for n in x.shape[2:]],
                                           [Dim(n, n) for n in w.shape[3:]], out_spatial)
        out = [s.lo for s in sizes]
        acc = compute_dtype(x.dtype)
        xs, ws = x.astype(acc, copy=False), w.astype(acc, copy=False)
        # zero-insert the input by the strides, then a stride-1 convolution with flipped filters
        zs = [(n - 1) * s + 1 if n else 0 for n, s in zip(x.shape[2:], self.strides)]
        check_alloc(x.shape[:2] + tuple(zs), acc, "the stride-dilated input")
        xz = np.zeros(x.shape[:2] + tuple(zs), acc)
        xz[(slice(None),) * 2 + tuple(slice(None, None, s) for s in self.strides)] = xs
        ext = [(k - 1) * d + 1 for k, d in zip(w.shape[3:], self.dilations)]
        begin = [e - 1 - b for e, b in zip(ext, pb)]
        end = [o + e - 1 - bg - z for o, e, bg, z in zip(out, ext, begin, zs)]
        wf = np.flip(ws, axis=tuple(range(3, w.ndim))).swapaxes(1, 2)   # [G, C_out/G, C_in/G, k]
        res = conv_kernel(xz, wf, [1] * nsp, self.dilations, begin, end)
        return [res.astype(x.dtype, copy=False)]


@register
class GroupConvolutionBackpropData1(ConvolutionBackpropData1):
    """The grouped transposed convolution: filters [G, C_in/G, C_out/G, k...], output channels
    G * C_out/G; the same attributes, ``output_shape`` and pads rules as ConvolutionBackpropData,
    one grouped convolution (depthwise: a matmul per channel) of the stride-dilated input."""

    type, version = "GroupConvolutionBackpropData", "opset1"
    spec = spec_url("convolution/group-convolution-backprop-data-1")
    lead = 3
    rank_what = "Data"

    def check_channels(self, data: PartialShape, filters: PartialShape) -> None:
        if data.rank is None or filters.rank is None:
            return
        c, g, cin = data[1], filters[0], filters[1]
        if c.is_static and g.is_static and cin.is_static and c.lo != g.lo * cin.lo:
            raise OpError("Input channels dimension of data batch is incompatible with filter groups or "
                          "input channels.", port="input 1")

    def out_channels(self, data: PartialShape, filters: PartialShape) -> Dim:
        if filters.rank is None:
            return DYN
        groups, cin = filters[0], filters[1]
        c = data[1] if data.rank is not None else DYN
        if not groups.is_static and c.is_static and cin.is_static and cin.lo > 0:
            groups = Dim(c.lo // cin.lo, c.lo // cin.lo)       # derived from the data's channels
        return groups * filters[2]

    def grouped(self, x: np.ndarray, w: np.ndarray) -> np.ndarray:
        self.check_channels(PartialShape(x.shape), PartialShape(w.shape))
        return w
