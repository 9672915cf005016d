"""Convolution-1 and GroupConvolution-1 (the transposed ones are in convolution_backprop.py; the
kernels in _conv.py, the window arithmetic pooling shares in _window.py).

Shape rules follow OpenVINO 2026.4.1 (convolution_shape_inference_util.hpp), measured: an interval
spatial dim maps bound by bound (``[5..10]`` with k3 s2 p1 -> ``[3..5]``), a lower bound never
drops below 1 (``?`` -> ``1..``), same_upper/same_lower give ``ceil(dim / stride)``.
"""
from __future__ import annotations

from ..errors import OpError
from ..limits.memory import check_alloc
from ..types.shapes import DYN, Dim
from ._conv import ConvolutionOp, DenseConvolution
from ._numerics import compute_dtype
from .base import spec_url
from .registry import register


@register
class Convolution1(DenseConvolution):
    """Filters [C_out, C_in, k...]; 1-D, 2-D and 3-D. f16/bf16 are computed in f32, integers in
    int64 (then cast back)."""

    type, version = "Convolution", "opset1"
    spec = spec_url("convolution/convolution-1")


@register
class GroupConvolution1(ConvolutionOp):
    """Filters [G, C_out/G, C_in/G, k...]. A depthwise convolution (C_in/G == 1) runs as a
    matmul per channel with its own im2col (:func:`_depthwise`), the general case as a grouped
    matmul."""

    type, version = "GroupConvolution", "opset1"
    spec = spec_url("convolution/group-convolution-1")
    lead = 3
    #: the output is checked in ``run`` (a causal conv1d of mamba/lfm2 decoders pads its input:
    #: the output can be bigger than any input), so a decoder's declared-shape plan is reused
    allocation = "checked"        # irrun/ops/base.py: Op.allocation

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
        key = (x.shape, w.shape)        # the output shape of the last shapes (geometry: ~16 us)
        kept = self.__dict__.get("_out")
        if kept is None or kept[0] != key:
            spatial = self.geometry([Dim(n, n) for n in x.shape[2:]], [Dim(n, n) for n in w.shape[3:]])[2]
            self.__dict__["_out"] = kept = (key, (x.shape[0], w.shape[0] * w.shape[1], *(d.lo for d in spatial)))
        check_alloc(kept[1], compute_dtype(x.dtype))
        return [self.convolve(x, w, w)]


