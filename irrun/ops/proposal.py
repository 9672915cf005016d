"""Proposal-1 and Proposal-4: Faster R-CNN's region proposals — anchors moved by the predicted
deltas, the best ``pre_nms_topn`` kept, greedy NMS, the first ``post_nms_topn`` returned.

As OpenVINO's reference kernel, in f32 (the details the output depends on):

* for ``framework="tensorflow"`` image_shape is read as (width, height, ...) — every clip and the
  normalisation use it so (the CPU plugin, measured; the reference evaluator has no Proposal);
* anchors per (ratio, scale), ratio-major: width ``round(sqrt(base^2 / ratio))`` and height
  ``round(width * ratio)`` (not rounded for ``framework="tensorflow"``), times the scale; corner
  boxes around ``(base - offset) / 2``, shifted by ``-base/2`` for tensorflow; ``offset`` is 1 (0
  for tensorflow), added to every width and height;
* each cell ``(h, w)`` moves its anchors by ``feat_stride * (w, h)`` (x/y swapped for
  tensorflow, which also clips the anchors to the image first); deltas ``/ box_coordinate_scale``
  and ``/ box_size_scale`` decode centre and log-size; ``clip_before_nms`` clips to
  ``[0, image - offset]``; boxes smaller than ``min_size * scale`` get score 0;
* scores are the second half of ``class_probs``' channels; the ``pre_nms_topn`` best (stable
  for equal scores) go through NMS dropping a box whose IoU with a kept one is **>** ``nms_thresh``;
* output rows ``[batch, x0, y0, x1, y1]`` (``clip_after_nms`` clips to the image, ``normalize``
  divides by its size); unused rows are 0 except the first, whose batch index is -1. Proposal-4
  also returns each row's score (0 for unused rows).
"""
from __future__ import annotations

import numpy as np

from ..errors import OpError
from ..limits.memory import check_alloc
from ..types.shapes import DYN, Dim, PartialShape
from ._detectron import proposal_nms
from .base import Attr, Op, TensorInfo, spec_url
from .registry import register

F = np.float32


def anchors(base: int, ratios: list[float], scales: list[float], tf: bool) -> np.ndarray:
    """``[A, 4]`` anchor corners, ratio-major."""
    off = F(0) if tf else F(1)
    area, centre = F(base * base), F(0.5) * (F(base) - off)
    out = []
    for r in ratios:
        r = F(r)  # type: ignore[assignment]
        w = np.sqrt(area / r)
        h = w * r
        if not tf:
            w = np.floor(w + F(0.5))
            h = np.floor(w * r + F(0.5))
        for s in scales:
            sw, sh = F(0.5) * (w * F(s) - off), F(0.5) * (h * F(s) - off)
            box = np.array([centre - sw, centre - sh, centre + sw, centre + sh], F)
            out.append(box - F(0.5) * F(base) if tf else box)
    return np.array(out, F).reshape(-1, 4)


class _Proposal(Op):
    attrs = {"base_size": Attr("int", required=True, default=0), "pre_nms_topn": Attr("int", required=True, default=0),
             "post_nms_topn": Attr("int", required=True, default=0), "nms_thresh": Attr("float", required=True, default=0.0),
             "feat_stride": Attr("int", required=True, default=1), "min_size": Attr("int", required=True, default=1),
             "ratio": Attr("floats", required=True, default=[]), "scale": Attr("floats", required=True, default=[]),
             "clip_before_nms": Attr("bool", True), "clip_after_nms": Attr("bool", False),
             "normalize": Attr("bool", False), "box_size_scale": Attr("float", 1.0),
             "box_coordinate_scale": Attr("float", 1.0), "framework": Attr("str", "")}
    num_inputs = (3, 3)
    n_outputs = 1

    def infer(self, inputs):
        probs, deltas, image = inputs
        for i, t in enumerate(inputs):
            if not (t.etype.is_dynamic or t.etype.is_float):
                raise OpError(f"Proposal inputs must be floating-point. Got: {t.etype}", port=f"input {i}")
        if self.post_nms_topn <= 0:
            raise OpError(f"Attribute post_nms_topn must be greater than 0. Got: {self.post_nms_topn}")
        for i, t in ((0, probs), (1, deltas)):
            if t.shape.rank not in (None, 4):
                raise OpError(f"Proposal layer shape {'class_probs' if i == 0 else 'bbox_deltas'} should be rank 4 "
                              f"compatible ({t.shape}).", port=f"input {i}")
        if image.shape.rank not in (None, 1) or (image.shape.rank == 1 and image.shape[0].intersect(Dim(3, 4)) is None):
            raise OpError(f"Image_shape must be 1-D tensor and has got 3 or 4 elements (image_shape_shape[0]: "
                          f"{image.shape}).", port="input 2")
        n = DYN
        for t in (probs, deltas):
            if t.shape.rank == 4:
                merged = n.intersect(t.shape[0])
                if merged is None:
                    raise OpError("Batch for inputs 'class_probs' and 'bbox_deltas' should be equal.", port="input 1")
                n = merged
        rows = n * Dim.of(self.post_nms_topn)
        et = probs.etype
        out = [TensorInfo(et, PartialShape([rows, Dim(5, 5)]))]
        return out + [TensorInfo(et, PartialShape([rows]))] * (self.n_outputs - 1)

    def run(self, probs, deltas, image):
        N, C, H, W = probs.shape
        A = C // 2
        tf = self.framework == "tensorflow"
        base = anchors(self.base_size, self.ratio, self.scale, tf)
        if base.shape[0] != A or deltas.shape != (N, 4 * A, H, W) or image.size < 3:
            raise OpError(f"class_probs {list(probs.shape)}, bbox_deltas {list(deltas.shape)} and {len(self.ratio)} "
                          f"ratios x {len(self.scale)} scales do not fit", port="input 1")
        post = self.post_nms_topn
        check_alloc((N * post, 5), probs.dtype)
        img = image.reshape(-1).astype(F)
        img_h, img_w = (img[1], img[0]) if tf else (img[0], img[1])   # the CPU plugin's tensorflow order
        scale_h = img[2]
        scale_w = img[3] if image.size >= 4 else scale_h
        min_h, min_w = F(self.min_size) * scale_h, F(self.min_size) * scale_w
        off = F(0) if tf else F(1)
        gy, gx = np.meshgrid(np.arange(H), np.arange(W), indexing="ij")
        sx, sy = (gy, gx) if tf else (gx, gy)
        shift = np.stack([sx, sy, sx, sy], -1).astype(F) * F(self.feat_stride)       # [H, W, 4]
        out = np.zeros((N, post, 5), F)
        scores_out = np.zeros((N, post), F)
        for b in range(N):
            box = shift[:, :, None, :] + base[None, None]                             # [H, W, A, 4]
            if tf:
                box = np.clip(box, F(0), np.array([img_w, img_h, img_w, img_h], F))
            d = deltas[b].astype(F).reshape(A, 4, H, W).transpose(2, 3, 0, 1)          # [H, W, A, 4]
            dx, dy = d[..., 0] / F(self.box_coordinate_scale), d[..., 1] / F(self.box_coordinate_scale)
            dw, dh = d[..., 2] / F(self.box_size_scale), d[..., 3] / F(self.box_size_scale)
            ww, hh = box[..., 2] - box[..., 0] + off, box[..., 3] - box[..., 1] + off
            cx, cy = box[..., 0] + F(0.5) * ww, box[..., 1] + F(0.5) * hh
            px, py = dx * ww + cx, dy * hh + cy
            with np.errstate(over="ignore"):
                pw, ph = np.exp(dw) * ww, np.exp(dh) * hh
            x0, y0, x1, y1 = px - F(0.5) * pw, py - F(0.5) * ph, px + F(0.5) * pw, py + F(0.5) * ph
            if self.clip_before_nms:
                x0, x1 = (np.clip(v, F(0), img_w - off) for v in (x0, x1))
                y0, y1 = (np.clip(v, F(0), img_h - off) for v in (y0, y1))
            bw, bh = x1 - x0 + off, y1 - y0 + off
            score = probs[b, A:].astype(F).transpose(1, 2, 0) * ((min_w <= bw) & (min_h <= bh)).astype(F)
            boxes = np.stack([x0, y0, x1, y1], -1).reshape(-1, 4)
            score = score.reshape(-1)
            order = np.argsort(-score, kind="stable")[:min(boxes.shape[0], self.pre_nms_topn)]
            keep = proposal_nms(boxes[order], np.zeros(order.size, bool), self.nms_thresh, post, off)
            sel = order[keep]
            rois = boxes[sel]
            if self.clip_after_nms:
                rois = np.clip(rois, F(0), np.array([img_w, img_h, img_w, img_h], F))
            if self.normalize:
                rois = rois / np.array([img_w, img_h, img_w, img_h], F)
            out[b, :len(sel), 0] = b
            out[b, :len(sel), 1:] = rois
            scores_out[b, :len(sel)] = score[sel]
            if len(sel) < post:
                out[b, len(sel), 0] = -1
        res = [out.reshape(N * post, 5).astype(probs.dtype)]
        return res + [scores_out.reshape(-1).astype(probs.dtype)] * (self.n_outputs - 1)


@register
class Proposal1(_Proposal):
    """Proposal-1: the boxes ``[N * post_nms_topn, 5]``."""
    category = "detection"

    type, version = "Proposal", "opset1"
    spec = spec_url("detection/proposal-1")


@register
class Proposal4(_Proposal):
    """Proposal-4: the boxes and their scores ``[N * post_nms_topn]``."""
    category = "detection"

    type, version = "Proposal", "opset4"
    spec = spec_url("detection/proposal-4")
    n_outputs = 2
