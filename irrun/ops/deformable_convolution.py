"""DeformableConvolution-1 and -8: a 2-D convolution whose every kernel tap samples the input at
a learned offset (bilinearly), scaled by an optional mask (v8).

Inputs: data ``[N, C, H, W]``, offsets ``[N, 2*DG*kh*kw, Ho, Wo]`` ((dy, dx) pairs per
deformable group DG and tap), filters ``[O, C/group, kh, kw]``, v8 optionally mask
``[N, DG*kh*kw, Ho, Wo]``. Tap ``(i, j)`` of output ``(y, x)`` samples
``(y*sh - pb + i*dh + dy, x*sw - pw + j*dw + dx)``. A sample outside the input adds 0; with
``bilinear_interpolation_pad`` (v8) a sample within one pixel of the border still interpolates
with zeros beyond it. The output shape and pads are Convolution-1's.
"""
from __future__ import annotations

import numpy as np

from ..errors import OpError
from ..limits.memory import check_alloc
from ..types.shapes import Dim, PartialShape
from ._conv import CONV_ATTRS, ConvolutionOp
from ._numerics import compute_dtype
from .base import Attr, Precision, TensorInfo, spec_url
from .registry import register


def sample(x: np.ndarray, ys: np.ndarray, xs: np.ndarray, pad: bool) -> np.ndarray:
    """Bilinear samples of ``x`` ``[N, C, H, W]`` at ``ys``/``xs`` ``[N, P]`` -> ``[N, C, P]``."""
    N, C, H, W = x.shape
    inside = (ys > -1) & (ys < H) & (xs > -1) & (xs < W) if pad else (ys >= 0) & (ys < H) & (xs >= 0) & (xs < W)
    y0, x0 = np.floor(ys), np.floor(xs)
    if not pad:
        y0, x0 = np.maximum(y0, 0), np.maximum(x0, 0)
    y1 = y0 + 1 if pad else np.minimum(np.ceil(ys), H - 1)
    x1 = x0 + 1 if pad else np.minimum(np.ceil(xs), W - 1)
    fy, fx = ys - y0, xs - x0
    flat = x.reshape(N, C, H * W)
    out = np.zeros((N, C, ys.shape[1]), flat.dtype)
    for yy, xx, wgt in ((y0, x0, (1 - fy) * (1 - fx)), (y1, x0, fy * (1 - fx)), (y0, x1, (1 - fy) * fx),
                        (y1, x1, fy * fx)):
        ok = inside & (yy >= 0) & (yy < H) & (xx >= 0) & (xx < W)
        idx = np.where(ok, yy * W + xx, 0).astype(np.int64)
        vals = np.take_along_axis(flat, idx[:, None, :], axis=2)
        out += vals * np.where(ok, wgt, 0)[:, None, :]
    return out


class _Deformable(ConvolutionOp):
    precision = Precision.NONE        # not among the CPU plugin's precision-significant ops
    lead = 2

    def out_channels(self, data, filters):
        return filters[0] if filters.rank is not None else Dim(0, None)

    def infer(self, inputs):
        data, offsets, filters, *mask = inputs
        if data.shape.rank not in (None, 4):
            raise OpError(f"Input must be of rank 4. Got: {data.shape.rank}", port="input 0")
        if self.group < 1 or self.deformable_group < 1:
            raise OpError(f"Attribute 'group' and 'deformable_group' must be any value starting from 1. Got: "
                          f"{self.group}, {self.deformable_group}")
        for i, t in ((1, offsets), *(((3, mask[0]),) if mask else ())):
            if t.shape.rank not in (None, 4):
                raise OpError(f"Input {i} must be of rank 4. Got: {t.shape.rank}", port=f"input {i}")
        out = super().infer([data, filters])[0]
        if filters.shape.rank == 4 and offsets.shape.rank == 4:
            k = filters.shape[2] * filters.shape[3]
            if k.is_static and offsets.shape[1].is_static and offsets.shape[1].lo != 2 * self.deformable_group * k.lo:
                raise OpError("The channels dimension of offsets input is not compatible with filters and "
                              f"'deformable group' attribute. Offsets input shape: {offsets.shape}, deformable "
                              f"'group' attribute value: {self.deformable_group}, filters shape: {filters.shape}",
                              port="input 1")
        if out.shape.rank == 4 and offsets.shape.rank == 4:
            dims = [out.shape[0].intersect(offsets.shape[0]), out.shape[2].intersect(offsets.shape[2]),
                    out.shape[3].intersect(offsets.shape[3])]
            if None in dims:
                raise OpError("Spatial dimensions of offsets and output must be compatible.", port="input 1")
            out = TensorInfo(out.etype, PartialShape([dims[0], out.shape[1], dims[1], dims[2]]))
        return [out]

    def run(self, x, offsets, w, mask=None):
        N, C, H, W = x.shape
        Co, Cg, kh, kw = w.shape
        G, DG, K = self.group, self.deformable_group, kh * kw
        if C != Cg * G or Co % G or C % DG or offsets.shape[1] != 2 * DG * K:
            raise OpError("the channels of data, offsets and filters do not fit group and deformable_group",
                          port="input 2")
        pb, _, sp = self.geometry([Dim(H, H), Dim(W, W)], [Dim(kh, kh), Dim(kw, kw)])
        Ho, Wo = sp[0].lo, sp[1].lo
        if offsets.shape[2:] != (Ho, Wo) or (mask is not None and mask.shape != (N, DG * K, Ho, Wo)):
            raise OpError(f"offsets and mask must be [N, *, {Ho}, {Wo}]", port="input 1")
        acc = compute_dtype(x.dtype)
        check_alloc((N, C, K, Ho * Wo), acc)
        (sh, sw), (dh, dw) = self.strides, self.dilations
        oy, ox = np.meshgrid(np.arange(Ho), np.arange(Wo), indexing="ij")
        off = offsets.astype(acc).reshape(N, DG, K, 2, Ho * Wo)
        cols = np.empty((N, C, K, Ho * Wo), acc)
        cpg = C // DG
        for g in range(DG):
            for t in range(K):
                i, j = divmod(t, kw)
                ys = (oy * sh - pb[0] + i * dh).reshape(-1) + off[:, g, t, 0]
                xs = (ox * sw - pb[1] + j * dw).reshape(-1) + off[:, g, t, 1]
                v = sample(x[:, g * cpg:(g + 1) * cpg].astype(acc), ys, xs, self.pad_mode)
                if mask is not None:
                    v = v * mask.astype(acc).reshape(N, DG, K, Ho * Wo)[:, g, t][:, None, :]
                cols[:, g * cpg:(g + 1) * cpg, t] = v
        cols = cols.reshape(N, G, Cg * K, Ho * Wo)
        wg = w.astype(acc).reshape(G, Co // G, Cg * K)
        out = np.einsum("gok,ngkp->ngop", wg, cols).reshape(N, Co, Ho, Wo)
        return [out.astype(x.dtype)]


@register
class DeformableConvolution1(_Deformable):
    """DeformableConvolution-1: data, offsets, filters."""

    type, version = "DeformableConvolution", "opset1"
    spec = spec_url("convolution/deformable-convolution-1")
    attrs = {**CONV_ATTRS, "group": Attr("int", 1), "deformable_group": Attr("int", 1)}
    num_inputs = (3, 3)
    pad_mode = False


@register
class DeformableConvolution8(_Deformable):
    """DeformableConvolution-8: data, offsets, filters, optional mask; ``bilinear_interpolation_pad``."""

    type, version = "DeformableConvolution", "opset8"
    spec = spec_url("convolution/deformable-convolution-8")
    attrs = {**CONV_ATTRS, "group": Attr("int", 1), "deformable_group": Attr("int", 1),
             "bilinear_interpolation_pad": Attr("bool", False)}
    num_inputs = (3, 4)

    @property
    def pad_mode(self) -> bool:
        return self.bilinear_interpolation_pad
