"""ConvolutionBackpropData-1 and GroupConvolutionBackpropData-1: the transposed convolution,
computed as one matmul of the filters with the input plus a scatter-add of each tap onto the
output (:func:`transposed_conv_kernel`).
"""
from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ..errors import OpError
from ..limits.memory import check_alloc
from ..types.shapes import DYN, Dim, PartialShape
from ._conv import CONV_ATTRS, check_conv_attrs, dilated_kernel
from ._numerics import compute_dtype, require_numeric, same_etype
from ._window import check_rank
from .base import Attr, Op, Precision, TensorInfo, as_int64, spec_url
from .registry import register

# ---------------------------------------------------------------------------------------------
# Transposed convolution

def transposed_conv_kernel(x: np.ndarray, w: np.ndarray, strides: Sequence[int], dilations: Sequence[int],
                           pads_begin: Sequence[int], out: Sequence[int]) -> np.ndarray:
    """The transposed convolution in the compute type: ``x`` [N, C_in, *in], ``w`` [G, C_in/G,
    C_out/G, *k] -> [N, C_out, *out]; output index ``o = i*stride + t*dilation - pads_begin``.

    One batched matmul gives every input pixel's contribution to every tap ([N, C_out, *k, *in]),
    then each tap's slice is added onto a stride-strided view of the output canvas (col2im). The
    textbook form -- a stride-1 convolution of the zero-inserted input -- multiplies stride^2
    zeros for every value (text-image-super-resolution's 3x3, stride-3 layer: ~1 s; this: ~40 ms)."""
    n, c = x.shape[:2]
    g, cg, og = w.shape[:3]
    k, sizes = w.shape[3:], x.shape[2:]
    result_shape = (n, g * og, *out)
    if n == 0 or g * og == 0 or 0 in sizes or 0 in out or 0 in k or cg == 0:
        return np.zeros(result_shape, x.dtype)
    check_alloc((n, g * og * math.prod(k), math.prod(sizes)), x.dtype, "the transposed convolution's columns")
    wt = w.reshape(g, cg, og * math.prod(k)).swapaxes(1, 2)            # [G, Og*K, Cg]
    cols = np.matmul(wt, x.reshape(n, g, cg, -1)).reshape(n, g * og, *k, *sizes)
    natural = [(i - 1) * s + (t - 1) * d + 1 for i, t, s, d in zip(sizes, k, strides, dilations)]
    extent = [max(e, b + o) for e, b, o in zip(natural, pads_begin, out)]
    check_alloc((n, g * og, *extent), x.dtype, "the transposed convolution's output")
    canvas = np.zeros((n, g * og, *extent), x.dtype)
    for tap in np.ndindex(*k):
        dst = tuple(slice(t * d, t * d + (i - 1) * s + 1, s) for t, d, i, s in zip(tap, dilations, sizes, strides))
        canvas[(slice(None), slice(None), *dst)] += cols[(slice(None), slice(None), *tap)]
    crop = tuple(slice(b, b + o) for b, o in zip(pads_begin, out))
    return np.ascontiguousarray(canvas[(slice(None), slice(None), *crop)])


@register
class ConvolutionBackpropData1(Op):
    """The transposed convolution: filters [C_in, C_out, k...], optional ``output_shape`` (the
    spatial sizes). Output size ``stride*(in-1) + dilation*(k-1)+1 - pads_begin - pads_end +
    output_padding``, or ``output_shape`` when given; with same_upper/same_lower and an
    ``output_shape`` the pads are derived from it (the larger half at the *begin* for same_upper,
    as OpenVINO does); without ``output_shape`` same_* means no padding. Computed by
    :func:`transposed_conv_kernel`."""
    category = "linear"
    precision = Precision.SIGNIFICANT

    type, version = "ConvolutionBackpropData", "opset1"
    spec = spec_url("convolution/convolution-backprop-data-1")
    attrs = dict(CONV_ATTRS, output_padding=Attr("ints", []))
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
        kd = [dilated_kernel(k, d) for k, d in zip(ks, self.dilations)]
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
        res = transposed_conv_kernel(x.astype(acc, copy=False), w.astype(acc, copy=False), self.strides,
                                     self.dilations, pb, out)
        return [res.astype(x.dtype, copy=False)]


@register
class GroupConvolutionBackpropData1(ConvolutionBackpropData1):
    """The grouped transposed convolution: filters [G, C_in/G, C_out/G, k...], output channels
    G * C_out/G; the same attributes, ``output_shape`` and pads rules as ConvolutionBackpropData,
    one grouped matmul and scatter-add (:func:`transposed_conv_kernel`)."""

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
