"""DeformablePSROIPooling-1: position-sensitive ROI pooling whose bins move by learned offsets
(Deformable ConvNets' R-FCN head).

As OpenVINO's reference kernel (f32 coordinates). Inputs: data ``[N, output_dim*G*G, H, W]``,
rois ``[R, 5]`` (batch, x1, y1, x2, y2), optional offsets ``[R, 2*K, part, part]``. A box's
corners are rounded, the far one +1, scaled by ``spatial_scale`` and shifted by -0.5; its extent
is at least 0.1. Output bin ``(i, j)`` of channel ``c`` reads input channel ``(c*G + i)*G + j``;
its top-left corner moves by ``trans_std * offset * box size``, the offsets of part cell
``(i*part // G, j*part // G)`` and class group ``c // (output_dim // K)``. The bin averages the
bilinear samples at its ``spatial_bins_x * spatial_bins_y`` sub-bin corners that lie within
``[-0.5, size - 0.5]`` (clamped to the map); none: 0. A box with a negative batch index gives
zeros; a batch index past the data is refused.
"""
from __future__ import annotations

import math

import numpy as np

from ..errors import OpError
from ..limits.memory import check_alloc
from ..types.shapes import DYN, Dim, PartialShape
from .base import Attr, Op, TensorInfo, spec_url
from .registry import register

F = np.float32


def _round(v: float) -> float:
    return math.copysign(math.floor(abs(v) + 0.5), v)


@register
class DeformablePSROIPooling1(Op):
    """DeformablePSROIPooling-1; see the module docstring."""
    category = "spatial"

    type, version = "DeformablePSROIPooling", "opset1"
    spec = spec_url("detection/deformable-psroi-pooling-1")
    attrs = {"output_dim": Attr("int", required=True, default=0), "spatial_scale": Attr("float", required=True, default=1.0),
             "group_size": Attr("int", 1), "mode": Attr("enum", "bilinear_deformable", choices=("bilinear_deformable",)),
             "spatial_bins_x": Attr("int", 1), "spatial_bins_y": Attr("int", 1), "trans_std": Attr("float", 1.0),
             "part_size": Attr("int", 1)}
    num_inputs = (2, 3)

    def infer(self, inputs):
        data, rois, *off = inputs
        for i, t in enumerate(inputs):
            if not (t.etype.is_dynamic or t.etype.is_float):
                raise OpError(f"Input {i} must be floating-point. Got: {t.etype}", port=f"input {i}")
        if self.output_dim <= 0 or self.group_size <= 0 or self.spatial_bins_x <= 0 or self.spatial_bins_y <= 0 \
                or self.part_size <= 0:
            raise OpError("output_dim, group_size, spatial bins and part_size must be positive.")
        for i, (t, r) in enumerate(zip(inputs, (4, 2, 4))):
            if t.shape.rank not in (None, r):
                raise OpError(f"Input {i} rank must be equal to {r}. Got: {t.shape}", port=f"input {i}")
        if rois.shape.rank == 2 and rois.shape[1].intersect(Dim(5, 5)) is None:
            raise OpError(f"The second dimension of ROIs input must be 5. Got: {rois.shape[1]}", port="input 1")
        need = self.output_dim * self.group_size ** 2
        if data.shape.rank == 4 and data.shape[1].is_static and data.shape[1].lo != need:
            raise OpError(f"The data's channels must be output_dim * group_size^2 = {need}. Got: {data.shape[1]}",
                          port="input 0")
        r = rois.shape[0] if rois.shape.rank == 2 else DYN
        g = Dim.of(self.group_size)
        return [TensorInfo(data.etype, PartialShape([r, Dim.of(self.output_dim), g, g]))]

    def run(self, data, rois, offsets=None):
        N, C, H, W = data.shape
        G, D, part = self.group_size, self.output_dim, self.part_size
        if C != D * G * G:
            raise OpError(f"The data's channels must be {D * G * G}. Got: {C}", port="input 0")
        if offsets is not None and (offsets.shape[0] < rois.shape[0] or offsets.shape[1] < 2
                                    or offsets.shape[2:] != (part, part) or D % (offsets.shape[1] // 2)):
            raise OpError(f"offsets {list(offsets.shape)} do not fit the rois, output_dim and part_size", port="input 2")
        check_alloc((rois.shape[0], D, G, G), data.dtype)
        out = np.zeros((rois.shape[0], D, G, G), F)
        s = F(self.spatial_scale)
        bx, by = self.spatial_bins_x, self.spatial_bins_y
        x = data.astype(F)
        chans = np.arange(D)
        for r, box in enumerate(rois.astype(F)):
            b = int(box[0])
            if b < 0:
                continue
            if b >= N:
                raise OpError(f"a box's batch index {b} is outside [0, {N})", port="input 1")
            x1, y1 = F(_round(float(box[1]))) * s - F(0.5), F(_round(float(box[2]))) * s - F(0.5)
            x2, y2 = F(_round(float(box[3])) + 1) * s - F(0.5), F(_round(float(box[4])) + 1) * s - F(0.5)
            rw, rh = max(x2 - x1, F(0.1)), max(y2 - y1, F(0.1))
            bw, bh = rw / F(G), rh / F(G)
            for i in range(G):
                for j in range(G):
                    bx1 = np.full(D, x1 + F(j) * bw, F)
                    by1 = np.full(D, y1 + F(i) * bh, F)
                    if offsets is not None:
                        k = offsets.shape[1] // 2
                        group = chans // (D // k)
                        oi, oj = i * part // G, j * part // G
                        bx1 = bx1 + offsets[r, 2 * group, oi, oj].astype(F) * F(self.trans_std) * rw
                        by1 = by1 + offsets[r, 2 * group + 1, oi, oj].astype(F) * F(self.trans_std) * rh
                    plane = x[b, (chans * G + i) * G + j]                      # [D, H, W]
                    total, count = np.zeros(D, F), np.zeros(D, np.int64)
                    for sy in range(by):
                        py = by1 + F(sy) * (bh / F(by))
                        for sx in range(bx):
                            px = bx1 + F(sx) * (bw / F(bx))
                            ok = (py >= -0.5) & (py <= H - 0.5) & (px >= -0.5) & (px <= W - 0.5)
                            cy, cx = np.clip(py, F(0), F(H - 1)), np.clip(px, F(0), F(W - 1))
                            t, l_ = np.floor(cy).astype(np.int64), np.floor(cx).astype(np.int64)
                            bt, rt = np.ceil(cy).astype(np.int64), np.ceil(cx).astype(np.int64)
                            dx, dy = np.abs(cx - l_), np.abs(cy - t)
                            tl, tr = plane[chans, t, l_], plane[chans, t, rt]
                            bl, br = plane[chans, bt, l_], plane[chans, bt, rt]
                            top, bottom = tl + (tr - tl) * dx, bl + (br - bl) * dx
                            total += np.where(ok, top + (bottom - top) * dy, F(0))
                            count += ok
                    out[r, :, i, j] = np.where(count > 0, total / np.maximum(count, 1), F(0))
        return [out.astype(data.dtype)]
