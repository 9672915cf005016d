"""ROIPooling-2 and PSROIPooling-1: a fixed-size map pooled from each region of interest.

Both take a feature map ``[N, C, H, W]`` and boxes ``[R, 5]`` (batch index, x1, y1, x2, y2), as
OpenVINO's reference kernels compute them (f32 coordinates, the map's type for sums):

* ROIPooling ``max``: box corners scaled by ``spatial_scale`` and rounded, ``+1`` inclusive
  extent (at least 1); bin ``p`` spans ``[floor(p*size/pooled), ceil((p+1)*size/pooled))`` from
  the box's start, clipped to the map; the maximum, 0 for an empty bin.
* ROIPooling ``bilinear``: box corners are normalised ``[0, 1]`` coordinates; output pixel
  ``p`` samples ``start + p*(end-start)/(pooled-1)`` of the map's ``[0, size-1]`` range (the box's
  centre when pooled is 1), 0 outside the map.
* PSROIPooling ``average``: ``group_size``-square bins (rounded box corners, ``+1`` end, scaled),
  output channel ``c`` bin ``(i, j)`` averages input channel ``(c*group + i)*group + j``.
* PSROIPooling ``bilinear``: each output pixel averages ``spatial_bins_x*spatial_bins_y``
  bilinear samples, one per input channel group ``(sby*bins_x + sbx)*output_dim + c``; samples
  outside the map (also at negative coordinates, where OpenVINO reads out of bounds) add 0.

A batch index outside ``[0, N)`` is refused (OpenVINO reads out of bounds).
"""
from __future__ import annotations

import math

import numpy as np

from ..errors import OpError
from ..types.shapes import DYN, Dim, PartialShape
from .base import Attr, Op, Precision, TensorInfo, spec_url
from .registry import register


def _check_inputs(feat: TensorInfo, rois: TensorInfo) -> None:
    for i, t in enumerate((feat, rois)):
        if not (t.etype.is_dynamic or t.etype.is_float):
            raise OpError(f"The data type for input and ROIs is expected to be a floating point type. Got: {t.etype}",
                          port=f"input {i}")
    if feat.shape.rank not in (None, 4):
        raise OpError(f"Expected a 4D tensor for the feature maps input. Got: {feat.shape}", port="input 0")
    if rois.shape.rank not in (None, 2):
        raise OpError(f"Expected a 2D tensor for the ROIs input with box coordinates. Got: {rois.shape}",
                      port="input 1")
    if rois.shape.rank == 2 and rois.shape[1].intersect(Dim(5, 5)) is None:
        raise OpError(f"The second dimension of ROIs input should contain batch id and box coordinates. This "
                      f"dimension is expected to be equal to 5. Got: {rois.shape[1]}", port="input 1")


def _round(v: float) -> float:
    """``std::round``: halves away from zero (NumPy rounds them to even)."""
    return math.copysign(math.floor(abs(float(v)) + 0.5), float(v))


def _batch(box: np.ndarray, n: int) -> int:
    b = int(box[0])
    if not 0 <= b < n:
        raise OpError(f"a box's batch index {box[0]} is outside [0, {n})", port="input 1")
    return b


def _bilinear(plane: np.ndarray, y: float, x: float) -> float:
    H, W = plane.shape[-2:]
    t, l_ = int(math.floor(y)), int(math.floor(x))
    b, r = min(int(math.ceil(y)), H - 1), min(int(math.ceil(x)), W - 1)
    top = plane[..., t, l_] + (plane[..., t, r] - plane[..., t, l_]) * (x - l_)
    bottom = plane[..., b, l_] + (plane[..., b, r] - plane[..., b, l_]) * (x - l_)
    return top + (bottom - top) * (y - t)


@register
class ROIPooling2(Op):
    """ROIPooling-2 (IR ``opset1`` and ``opset2``); see the module docstring."""
    precision = Precision.SIGNIFICANT
    category = "spatial"

    type, version = "ROIPooling", "opset2"
    spec = spec_url("detection/roi-pooling-1")
    attrs = {"pooled_h": Attr("int", 0), "pooled_w": Attr("int", 0), "spatial_scale": Attr("float", required=True),
             "method": Attr("enum", "max", choices=("max", "bilinear")),
             "output_size": Attr("ints", []), "output_roi": Attr("ints", [])}
    num_inputs = (2, 2)

    def __init__(self, **attrs):
        super().__init__(**attrs)
        # OpenVINO writes the pooled size twice (pooled_h/pooled_w and output_size); either will do
        if len(self.output_size) == 2:
            self.pooled_h = self.pooled_h or self.output_size[0]
            self.pooled_w = self.pooled_w or self.output_size[1]

    def infer(self, inputs):
        feat, rois = inputs
        _check_inputs(feat, rois)
        if self.pooled_h < 1 or self.pooled_w < 1:
            raise OpError(f"The dimensions of pooled output must be positive. Got: {self.pooled_h}x{self.pooled_w}")
        if self.spatial_scale <= 0:
            raise OpError(f"The spatial scale attribute should be a positive floating point number. Got: "
                          f"{self.spatial_scale:g}")
        R = rois.shape[0] if rois.shape.rank == 2 else DYN
        C = feat.shape[1] if feat.shape.rank == 4 else DYN
        return [TensorInfo(feat.etype, PartialShape([R, C, Dim.of(self.pooled_h), Dim.of(self.pooled_w)]))]

    def run(self, feat, rois):
        N, C, H, W = feat.shape
        ph_n, pw_n = self.pooled_h, self.pooled_w
        out = np.zeros((rois.shape[0], C, ph_n, pw_n), feat.dtype)
        for r, box in enumerate(rois.astype(np.float32)):
            x = feat[_batch(box, N)]
            if self.method == "max":
                s = np.float32(self.spatial_scale)
                x1, y1, x2, y2 = (int(_round(v * s)) for v in box[1:])
                rh, rw = max(y2 - y1 + 1, 1), max(x2 - x1 + 1, 1)
                bh, bw = np.float32(rh) / np.float32(ph_n), np.float32(rw) / np.float32(pw_n)
                for i in range(ph_n):
                    h0 = min(max(int(math.floor(i * bh)) + y1, 0), H)
                    h1 = min(max(int(math.ceil((i + 1) * bh)) + y1, 0), H)
                    for j in range(pw_n):
                        w0 = min(max(int(math.floor(j * bw)) + x1, 0), W)
                        w1 = min(max(int(math.ceil((j + 1) * bw)) + x1, 0), W)
                        if h1 > h0 and w1 > w0:
                            out[r, :, i, j] = x[:, h0:h1, w0:w1].max(axis=(1, 2))
                continue
            x1, y1, x2, y2 = (float(v) for v in box[1:])
            hs = (y2 - y1) * (H - 1) / (ph_n - 1) if ph_n > 1 else 0.0
            ws = (x2 - x1) * (W - 1) / (pw_n - 1) if pw_n > 1 else 0.0
            for i in range(ph_n):
                y = i * hs + y1 * (H - 1) if ph_n > 1 else 0.5 * (y1 + y2) * (H - 1)
                for j in range(pw_n):
                    xx = j * ws + x1 * (W - 1) if pw_n > 1 else 0.5 * (x1 + x2) * (W - 1)
                    if 0 <= y <= H - 1 and 0 <= xx <= W - 1:
                        out[r, :, i, j] = _bilinear(x, y, xx)
        return [out]


@register
class PSROIPooling1(Op):
    """PSROIPooling-1; see the module docstring."""
    category = "spatial"

    type, version = "PSROIPooling", "opset1"
    spec = spec_url("detection/psroi-pooling-1")
    attrs = {"output_dim": Attr("int", required=True), "group_size": Attr("int", 1),
             "spatial_scale": Attr("float", required=True), "mode": Attr("enum", "average", choices=("average", "bilinear")),
             "spatial_bins_x": Attr("int", 1), "spatial_bins_y": Attr("int", 1)}
    num_inputs = (2, 2)

    def infer(self, inputs):
        feat, rois = inputs
        _check_inputs(feat, rois)
        if self.output_dim < 1 or self.group_size < 1 or self.spatial_scale <= 0:
            raise OpError("output_dim and group_size must be positive and spatial_scale above 0. Got: "
                          f"{self.output_dim}, {self.group_size}, {self.spatial_scale:g}")
        if self.mode == "bilinear" and (self.spatial_bins_x < 1 or self.spatial_bins_y < 1):
            raise OpError("spatial_bins_x and spatial_bins_y must be positive.")
        need = self.output_dim * (self.group_size ** 2 if self.mode == "average"
                                  else self.spatial_bins_x * self.spatial_bins_y)
        if feat.shape.rank == 4 and feat.shape[1].is_static and feat.shape[1].lo != need:
            raise OpError(f"Number of input's channels must be {need} (output_dim times "
                          f"{'group_size squared' if self.mode == 'average' else 'spatial bins'}). Got: "
                          f"{feat.shape[1].lo}", port="input 0")
        R = rois.shape[0] if rois.shape.rank == 2 else DYN
        g = Dim.of(self.group_size)
        return [TensorInfo(feat.etype, PartialShape([R, Dim.of(self.output_dim), g, g]))]

    def run(self, feat, rois):
        N, C, H, W = feat.shape
        G, D = self.group_size, self.output_dim
        bx, by = self.spatial_bins_x, self.spatial_bins_y
        out = np.zeros((rois.shape[0], D, G, G), feat.dtype)
        s = np.float32(self.spatial_scale)
        for r, box in enumerate(rois.astype(np.float32)):
            x = feat[_batch(box, N)]
            if self.mode == "average":
                x1, y1 = np.float32(_round(box[1])) * s, np.float32(_round(box[2])) * s
                x2, y2 = np.float32(_round(box[3]) + 1) * s, np.float32(_round(box[4]) + 1) * s
                bw, bh = (x2 - x1) / np.float32(G), (y2 - y1) / np.float32(G)
                for i in range(G):
                    h0 = min(max(int(math.floor(y1 + i * bh)), 0), H - 1)
                    h1 = min(int(math.ceil(y1 + (i + 1) * bh)), H)
                    for j in range(G):
                        w0 = min(max(int(math.floor(x1 + j * bw)), 0), W - 1)
                        w1 = min(int(math.ceil(x1 + (j + 1) * bw)), W)
                        ch = (np.arange(D) * G + i) * G + j
                        if h1 > h0 and w1 > w0:
                            out[r, :, i, j] = x[ch, h0:h1, w0:w1].astype(np.float64).mean(axis=(1, 2))
                continue
            x1, y1, x2, y2 = (float(v) * float(s) for v in box[1:])
            bw, bh = (x2 - x1) / bx, (y2 - y1) / by
            ws = bw * (W - 1) / (G - 1) if G > 1 else 0.0
            hs = bh * (H - 1) / (G - 1) if G > 1 else 0.0
            acc = np.zeros((D, G, G))
            for sby in range(by):
                for sbx in range(bx):
                    plane = x[(sby * bx + sbx) * D:(sby * bx + sbx + 1) * D].astype(np.float64)
                    sw, sh = x1 + sbx * bw, y1 + sby * bh
                    for i in range(G):
                        py = i * hs + sh * (H - 1) if G > 1 else (2 * sh + bh) * (H - 1) / 2
                        for j in range(G):
                            px = j * ws + sw * (W - 1) if G > 1 else (2 * sw + bw) * (W - 1) / 2
                            if 0 <= px < W and 0 <= py < H:
                                acc[:, i, j] += _bilinear(plane, py, px)
            out[r] = acc / (bx * by)
        return [out]
