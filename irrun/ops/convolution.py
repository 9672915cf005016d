"""Convolution-1 and GroupConvolution-1 (the transposed ones are in convolution_backprop.py; the
kernels in _conv.py, the window arithmetic pooling shares in _window.py).

Shape rules follow OpenVINO 2026.4.1 (convolution_shape_inference_util.hpp), measured: an interval
spatial dim maps bound by bound (``[5..10]`` with k3 s2 p1 -> ``[3..5]``), a lower bound never
drops below 1 (``?`` -> ``1..``), same_upper/same_lower give ``ceil(dim / stride)``.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..errors import OpError
from ..shapes import DYN, Dim, PartialShape
from ._conv import _CONV_ATTRS, _dilated, check_conv_attrs, conv_kernel
from ._numerics import compute_dtype, require_numeric, same_etype
from ._window import check_kernel_fits, check_rank, resolve_pads, window_dim
from .base import Op, Precision, TensorInfo, spec_url
from .registry import register


class _Convolution(Op):
    """Common shape rule of Convolution and GroupConvolution (``lead`` = filter dims before the
    kernel: 2 for [O, I, k...], 3 for [G, O/G, I/G, k...])."""
    category = "linear"
    precision = Precision.SIGNIFICANT

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


