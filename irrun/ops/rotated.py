"""NMSRotated-13 and ROIAlignRotated-15: NMS and ROIAlign for rotated boxes
``[x_ctr, y_ctr, width, height, angle]`` (radians).

A box's corners are detectron2's ``get_rotated_vertices``; the overlap of two boxes is the area
of the intersection of the two convex quadrilaterals (Sutherland-Hodgman clipping, f64; OpenVINO
computes it in f32, so IoUs within ~1e-6 of the threshold may round the other way).

* NMSRotated: as NonMaxSuppression-9 without Soft-NMS: per batch and class, boxes with score >
  ``score_threshold`` by score (ties by index), dropped when their IoU with a kept box is >
  ``iou_threshold``, at most ``max_output_boxes_per_class``; ``clockwise`` false negates the
  angles first; outputs selected indices and scores ``[K, 3]`` (sorted by score with
  ``sort_result_descending``) and K.
* ROIAlignRotated: detectron2's ROIAlignRotated (aligned): the box centre scaled minus half a
  pixel, its size scaled; ``pooled_h x pooled_w`` bins of ``sampling_ratio`` (0: ``ceil(size /
  pooled)``) samples each, rotated by the angle (negated with ``clockwise_mode``) about the centre;
  samples are Caffe2's bilinear taps (0 outside ``[-1, size]``); each bin is their average.
"""
from __future__ import annotations

import math

import numpy as np

from ..errors import OpError
from ..limits.memory import check_alloc
from ..types.elements import TYPES
from ..types.shapes import DYN, Dim, PartialShape
from ._detectron import bilinear_taps
from ._nms_rows import max_boxes, selected_rows
from .base import Attr, Op, TensorInfo, as_int64, spec_url
from .registry import register


def corners(b: np.ndarray) -> np.ndarray:
    """``[4, 2]`` corners of ``[x, y, w, h, angle]`` (detectron2's order)."""
    x, y, w, h, a = (float(v) for v in b)
    c, s = math.cos(a) * 0.5, math.sin(a) * 0.5
    p0 = (x - s * h - c * w, y + c * h - s * w)
    p1 = (x + s * h - c * w, y - c * h - s * w)
    return np.array([p0, p1, (2 * x - p0[0], 2 * y - p0[1]), (2 * x - p1[0], 2 * y - p1[1])])


def _clip(poly: list, a: np.ndarray, b: np.ndarray, sign: float) -> list:
    """The part of ``poly`` on the inner side of the edge a->b."""
    inside = lambda p: sign * ((b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0])) >= 0  # noqa: E731
    out = []
    for i, p in enumerate(poly):
        q = poly[i - 1]
        if inside(p):
            if not inside(q):
                out.append(_cross_point(q, p, a, b))
            out.append(p)
        elif inside(q):
            out.append(_cross_point(q, p, a, b))
    return out


def _cross_point(p, q, a, b):
    d1, d2 = (q[0] - p[0], q[1] - p[1]), (b[0] - a[0], b[1] - a[1])
    den = d1[0] * d2[1] - d1[1] * d2[0]
    if den == 0:
        return p
    t = ((a[0] - p[0]) * d2[1] - (a[1] - p[1]) * d2[0]) / den
    return (p[0] + t * d1[0], p[1] + t * d1[1])


def _area(poly) -> float:
    return abs(sum(poly[i - 1][0] * p[1] - p[0] * poly[i - 1][1] for i, p in enumerate(poly))) / 2


def rotated_iou(b1: np.ndarray, b2: np.ndarray) -> float:
    a1, a2 = float(b1[2] * b1[3]), float(b2[2] * b2[3])
    if a1 <= 0 or a2 <= 0:
        return 0.0
    p1, p2 = corners(b1), corners(b2)
    sign = 1.0 if _area_signed(p2) >= 0 else -1.0
    poly = [tuple(p) for p in p1]
    for i in range(4):
        if not poly:
            break
        poly = _clip(poly, p2[i], p2[(i + 1) % 4], sign)
    inter = _area(poly) if len(poly) > 2 else 0.0
    return inter / (a1 + a2 - inter)


def _area_signed(p: np.ndarray) -> float:
    return sum(p[i - 1][0] * p[i][1] - p[i][0] * p[i - 1][1] for i in range(len(p))) / 2


@register
class NMSRotated13(Op):
    """NMSRotated-13: boxes ``[N, M, 5]``, scores ``[N, C, M]``, max_output_boxes_per_class,
    iou_threshold, score_threshold."""
    category = "detection"

    type, version = "NMSRotated", "opset13"
    spec = spec_url("sort/nms-rotated-13")
    attrs = {"sort_result_descending": Attr("bool", True), "output_type": Attr("etype", TYPES["i64"]),
             "clockwise": Attr("bool", True)}
    num_inputs = (5, 5)

    def infer(self, inputs):
        boxes, scores = inputs[0], inputs[1]
        if self.output_type.name not in ("i32", "i64"):
            raise OpError("Output type must be i32 or i64")
        if boxes.shape.rank not in (None, 3) or scores.shape.rank not in (None, 3):
            raise OpError(f"Expected a 3D boxes and a 3D scores input. Got: {boxes.shape}, {scores.shape}", port="input 0")
        if boxes.shape.rank == 3 and boxes.shape[2].intersect(Dim(5, 5)) is None:
            raise OpError(f"The third dimension of the 'boxes' must be 5. Got: {boxes.shape[2]}", port="input 0")
        for i, t in enumerate(inputs[2:], 2):
            if t.shape.rank not in (None, 0) and not (t.shape.rank == 1 and t.shape[0].intersect(Dim(1, 1))):
                raise OpError(f"Expected a scalar for input {i}. Got: {t.shape}", port=f"input {i}")
        rows = selected_rows(9, boxes.shape, scores.shape, max_boxes(inputs, None))
        return [TensorInfo(self.output_type, PartialShape([rows, 3])), TensorInfo(TYPES["f32"], PartialShape([rows, 3])),
                TensorInfo(self.output_type, PartialShape([1]))]

    def run(self, boxes, scores, max_out, iou_thr, score_thr):
        N, C, M = scores.shape
        if boxes.shape != (N, M, 5):
            raise OpError("boxes [N, M, 5] and scores [N, C, M] do not fit", port="input 1")
        k = int(as_int64(max_out.reshape(-1)[:1])[0])
        it, st = np.float32(iou_thr.reshape(-1)[0]), np.float32(score_thr.reshape(-1)[0])
        b = boxes.astype(np.float32).copy()
        if not self.clockwise:
            b[..., 4] = -b[..., 4]
        rows = []
        for n in range(N):
            for c in range(C):
                s = scores[n, c].astype(np.float32)
                cand = np.flatnonzero(s > st)
                cand = cand[np.lexsort((cand, -s[cand]))]
                kept: list[int] = []
                for i in cand:
                    if len(kept) >= k:
                        break
                    if all(rotated_iou(b[n, i], b[n, j]) <= it for j in kept):
                        kept.append(int(i))
                rows += [(float(s[i]), n, c, i) for i in kept]
        if self.sort_result_descending:
            rows.sort(key=lambda r: (-r[0], r[1], r[2], r[3]))
        dt = self.output_type.dtype
        ind = np.array([r[1:] for r in rows], dt).reshape(-1, 3)
        sco = np.array([(r[1], r[2], r[0]) for r in rows], np.float32).reshape(-1, 3)
        return [ind, sco, np.array([len(rows)], dt)]


@register
class ROIAlignRotated15(Op):
    """ROIAlignRotated-15: data ``[N, C, H, W]``, rois ``[R, 5]``, batch indices ``[R]`` ->
    ``[R, C, pooled_h, pooled_w]``."""
    category = "detection"

    type, version = "ROIAlignRotated", "opset15"
    spec = spec_url("detection/roi-align-rotated-15")
    attrs = {"pooled_h": Attr("int", required=True, default=0), "pooled_w": Attr("int", required=True, default=0),
             "sampling_ratio": Attr("int", required=True, default=0),
             "spatial_scale": Attr("float", required=True, default=1.0), "clockwise_mode": Attr("bool", False)}
    num_inputs = (3, 3)

    def infer(self, inputs):
        data, rois, index = inputs
        if not (data.etype.is_dynamic or data.etype.is_float):
            raise OpError(f"The data type for input and ROIs is expected to be a floating point type. Got: {data.etype}",
                          port="input 0")
        if self.pooled_h <= 0 or self.pooled_w <= 0 or self.sampling_ratio < 0 or self.spatial_scale <= 0:
            raise OpError("pooled_h and pooled_w must be positive, sampling_ratio non-negative, spatial_scale positive.")
        for t, r, p in ((data, 4, 0), (rois, 2, 1), (index, 1, 2)):
            if t.shape.rank not in (None, r):
                raise OpError(f"Expected a {r}D input. Got: {t.shape}", port=f"input {p}")
        if rois.shape.rank == 2 and rois.shape[1].intersect(Dim(5, 5)) is None:
            raise OpError(f"The second dimension of ROIs input should be 5. Got: {rois.shape[1]}", port="input 1")
        r = rois.shape[0] if rois.shape.rank == 2 else DYN
        if index.shape.rank == 1:
            r2 = r.intersect(index.shape[0])
            if r2 is None:
                raise OpError("The number of batch indices must match the number of ROIs.", port="input 2")
            r = r2
        c = data.shape[1] if data.shape.rank == 4 else DYN
        return [TensorInfo(data.etype, PartialShape([r, c, Dim.of(self.pooled_h), Dim.of(self.pooled_w)]))]

    def run(self, data, rois, index):
        N, C, H, W = data.shape
        batch = as_int64(index)
        if np.any((batch < 0) | (batch >= N)):
            raise OpError(f"a batch index is outside [0, {N})", port="input 2")
        ph, pw = self.pooled_h, self.pooled_w
        check_alloc((rois.shape[0], C, ph, pw), np.dtype(np.float32))
        out = np.zeros((rois.shape[0], C, ph, pw), np.float32)
        f = np.float32
        for r, box in enumerate(rois.astype(f)):
            s = f(self.spatial_scale)
            cx, cy, w, h = box[0] * s - f(0.5), box[1] * s - f(0.5), box[2] * s, box[3] * s
            theta = -box[4] if self.clockwise_mode else box[4]
            bh, bw = h / f(ph), w / f(pw)
            gh = self.sampling_ratio or max(int(math.ceil(h / ph)), 1)
            gw = self.sampling_ratio or max(int(math.ceil(w / pw)), 1)
            yy = (-h / f(2) + np.arange(ph, dtype=f)[:, None] * bh + (np.arange(gh, dtype=f) + f(0.5)) * bh / f(gh)).reshape(-1)
            xx = (-w / f(2) + np.arange(pw, dtype=f)[:, None] * bw + (np.arange(gw, dtype=f) + f(0.5)) * bw / f(gw)).reshape(-1)
            YY, XX = np.meshgrid(yy, xx, indexing="ij")
            ct, st = f(math.cos(theta)), f(math.sin(theta))
            Y, X = YY * ct - XX * st + cy, YY * st + XX * ct + cx
            val = bilinear_taps(data[batch[r]].astype(f), Y, X)
            out[r] = val.reshape(C, ph, gh, pw, gw).sum(axis=(2, 4)) / f(gh * gw)
        return [out.astype(data.dtype)]
