"""GenerateProposals-9 and ExperimentalDetectronGenerateProposalsSingleImage-6: Detectron's RPN
proposals — anchors refined by deltas, clipped, the best ``pre_nms_count`` through NMS.

As OpenVINO's reference kernels (f32). Anchors are ``[H, W, A, 4]`` (flattened for the v6 op),
deltas ``[A*4, H, W]`` and scores ``[A, H, W]`` per image; proposals are ordered (h, w, anchor).
Each box: centre and size from the corners with ``offset`` added to the sizes, moved by
``(dx, dy) * size``, sizes times ``exp(min(d_log, log(1000/16)))``, back to corners with the far
corner ``- offset``, clipped to ``[0, image - offset]``. Boxes smaller than ``min_size`` (times
the image scale for v9) are dropped by v9 and get score 0 in v6. The ``pre_nms_count`` best
(stable for equal scores) go through NMS dropping a box whose IoU with a kept one is > the
threshold (and that overlaps it); ``post_nms_count`` kept at most.

* v6: one image, im_info ``[3]``; ``offset`` 1 to refine, 0 in the NMS; outputs exactly
  ``post_nms_count`` rows (zero-filled).
* v9: a batch, im_info ``[N, 3|4]``; ``offset`` 0 when ``normalized`` else 1 (also in the NMS);
  outputs only the kept rows, all images concatenated, and the count per image.
"""
from __future__ import annotations

import math

import numpy as np

from ..errors import OpError
from ..limits.memory import check_alloc
from ..types.elements import TYPES
from ..types.shapes import DYN, Dim, PartialShape
from ._detectron import proposal_nms
from .base import Attr, Op, TensorInfo, spec_url
from .registry import register

F = np.float32
#: the largest log size change a delta may ask for (Detectron's)
MAX_LOG_SIZE = F(math.log(1000.0 / 16.0))


def refine(anchors: np.ndarray, deltas: np.ndarray, scores: np.ndarray, img_h: F, img_w: F,
           offset: F) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(boxes ``[P, 4]``, scores ``[P]``, box sizes ``[P, 2]``) in (h, w, anchor) order."""
    A, H, W = scores.shape
    a = anchors.reshape(H, W, A, 4).astype(F)
    d = deltas.astype(F).reshape(A, 4, H, W).transpose(2, 3, 0, 1)            # [H, W, A, 4]
    ww, hh = a[..., 2] - a[..., 0] + offset, a[..., 3] - a[..., 1] + offset
    cx, cy = a[..., 0] + F(0.5) * ww, a[..., 1] + F(0.5) * hh
    px, py = d[..., 0] * ww + cx, d[..., 1] * hh + cy
    with np.errstate(over="ignore"):
        pw, ph = np.exp(np.minimum(d[..., 2], MAX_LOG_SIZE)) * ww, np.exp(np.minimum(d[..., 3], MAX_LOG_SIZE)) * hh
    x0, y0 = px - F(0.5) * pw, py - F(0.5) * ph
    x1, y1 = px + F(0.5) * pw - offset, py + F(0.5) * ph - offset
    x0, x1 = (np.maximum(F(0), np.minimum(v, img_w - offset)) for v in (x0, x1))
    y0, y1 = (np.maximum(F(0), np.minimum(v, img_h - offset)) for v in (y0, y1))
    boxes = np.stack([x0, y0, x1, y1], -1).reshape(-1, 4)
    size = np.stack([x1 - x0 + offset, y1 - y0 + offset], -1).reshape(-1, 2)
    return boxes, scores.astype(F).transpose(1, 2, 0).reshape(-1), size


def _floats(inputs) -> None:
    for i, t in enumerate(inputs):
        if not (t.etype.is_dynamic or t.etype.is_float):
            raise OpError(f"Input {i} must be floating-point. Got: {t.etype}", port=f"input {i}")


_ATTRS = {"min_size": Attr("float", required=True, default=0.0), "nms_threshold": Attr("float", required=True, default=0.0),
          "pre_nms_count": Attr("int", required=True, default=0), "post_nms_count": Attr("int", required=True, default=0)}


@register
class ExperimentalDetectronGenerateProposalsSingleImage6(Op):
    """ExperimentalDetectronGenerateProposalsSingleImage-6: im_info ``[3]``, anchors ``[H*W*A, 4]``,
    deltas ``[A*4, H, W]``, scores ``[A, H, W]`` -> rois ``[post, 4]``, scores ``[post]``."""
    category = "detection"

    type, version = "ExperimentalDetectronGenerateProposalsSingleImage", "opset6"
    spec = spec_url("detection/experimental-detectron-generate-proposals-single-image-6")
    attrs = _ATTRS
    num_inputs = (4, 4)

    def infer(self, inputs):
        _floats(inputs)
        info, anchors, deltas, scores = inputs
        for i, (t, r) in enumerate(((info, 1), (anchors, 2), (deltas, 3), (scores, 3))):
            if t.shape.rank not in (None, r):
                raise OpError(f"Input {i} rank must be equal to {r}. Got: {t.shape}", port=f"input {i}")
        if self.post_nms_count < 0 or self.pre_nms_count < 0:
            raise OpError("pre_nms_count and post_nms_count must be non-negative.")
        p = Dim.of(self.post_nms_count)
        return [TensorInfo(info.etype, PartialShape([p, Dim(4, 4)])), TensorInfo(info.etype, PartialShape([p]))]

    def run(self, info, anchors, deltas, scores):
        A, H, W = scores.shape
        if anchors.shape != (H * W * A, 4) or deltas.shape != (A * 4, H, W) or info.size < 2:
            raise OpError("anchors, deltas and scores do not fit", port="input 1")
        im = info.reshape(-1).astype(F)
        boxes, sc, size = refine(anchors, deltas, scores, im[0], im[1], F(1))
        sc = sc * ((F(self.min_size) <= size[:, 0]) & (F(self.min_size) <= size[:, 1])).astype(F)
        order = np.argsort(-sc, kind="stable")[:min(sc.size, self.pre_nms_count)]
        keep = order[proposal_nms(boxes[order], np.zeros(order.size, bool), self.nms_threshold,
                                  self.post_nms_count, F(0))]
        post = self.post_nms_count
        rois, out_sc = np.zeros((post, 4), F), np.zeros(post, F)
        rois[:keep.size], out_sc[:keep.size] = boxes[keep], sc[keep]
        return [rois.astype(info.dtype), out_sc.astype(info.dtype)]


@register
class GenerateProposals9(Op):
    """GenerateProposals-9: im_info ``[N, 3|4]``, anchors ``[H, W, A, 4]``, deltas ``[N, A*4, H, W]``,
    scores ``[N, A, H, W]`` -> rois ``[R, 4]``, scores ``[R]``, roi counts ``[N]``."""
    category = "detection"

    type, version = "GenerateProposals", "opset9"
    spec = spec_url("detection/generate-proposals-9")
    attrs = {**_ATTRS, "normalized": Attr("bool", True), "nms_eta": Attr("float", 1.0),
             "roi_num_type": Attr("etype", TYPES["i64"])}
    num_inputs = (4, 4)

    def infer(self, inputs):
        _floats(inputs)
        info, anchors, deltas, scores = inputs
        for i, (t, r) in enumerate(((info, 2), (anchors, 4), (deltas, 4), (scores, 4))):
            if t.shape.rank not in (None, r):
                raise OpError(f"Input {i} rank must be equal to {r}. Got: {t.shape}", port=f"input {i}")
        if self.roi_num_type.name not in ("i32", "i64"):
            raise OpError(f"roi_num_type must be i32 or i64. Got: {self.roi_num_type}")
        if self.post_nms_count <= 0 or self.pre_nms_count <= 0:
            raise OpError("pre_nms_count and post_nms_count must be positive.")
        n = DYN
        for t in (info, deltas, scores):
            if t.shape.rank is not None:
                merged = n.intersect(t.shape[0])
                if merged is None:
                    raise OpError("The batch dimensions of im_info, deltas and scores must be equal.", port="input 2")
                n = merged
        rows = Dim(0, None if n.hi is None else n.hi * self.post_nms_count)
        et = info.etype
        return [TensorInfo(et, PartialShape([rows, Dim(4, 4)])), TensorInfo(et, PartialShape([rows])),
                TensorInfo(self.roi_num_type, PartialShape([n]))]

    def run(self, info, anchors, deltas, scores):
        N, A, H, W = scores.shape
        if anchors.shape != (H, W, A, 4) or deltas.shape != (N, A * 4, H, W) or info.shape[0] != N or info.shape[1] < 2:
            raise OpError("im_info, anchors, deltas and scores do not fit", port="input 1")
        off = F(0) if self.normalized else F(1)
        check_alloc((N * self.post_nms_count, 4), info.dtype)
        rois, out_sc, counts = [], [], []
        for b in range(N):
            im = info[b].astype(F)
            sh = im[2] if im.size >= 3 else F(1)
            sw = im[3] if im.size >= 4 else sh
            boxes, sc, size = refine(anchors, deltas[b], scores[b], im[0], im[1], off)
            order = np.argsort(-sc, kind="stable")[:min(sc.size, self.pre_nms_count)]
            small = ~((F(self.min_size) * sw <= size[order, 0]) & (F(self.min_size) * sh <= size[order, 1]))
            keep = order[proposal_nms(boxes[order], small, self.nms_threshold, self.post_nms_count, off)]
            rois.append(boxes[keep])
            out_sc.append(sc[keep])
            counts.append(keep.size)
        return [np.concatenate(rois).reshape(-1, 4).astype(info.dtype), np.concatenate(out_sc).astype(info.dtype),
                np.array(counts, self.roi_num_type.dtype)]
