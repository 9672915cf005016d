"""MulticlassNms-8/9: PaddlePaddle's multi-class NMS — greedy suppression per image and class,
then the best ``keep_top_k`` per image.

As OpenVINO's reference kernel (f32):

* inputs: boxes ``[N, M, 4]`` shared by the classes, scores ``[N, C, M]``; or (v9) per-class
  boxes ``[C, M, 4]``, scores ``[C, M]`` and roisnum ``[N]`` splitting M into images;
* per class (``background_class`` skipped): candidates have score >= ``score_threshold``, the
  best ``nms_top_k`` (by score, then index) are visited in that order and one is dropped when
  its IoU with a kept box is >= the threshold; after each kept box the threshold is multiplied
  by ``nms_eta`` while it is above 0.5 (and eta < 1). IoU adds 1 to widths and heights unless
  ``normalized``; a box of non-positive area overlaps nothing;
* per image: all kept boxes by score (equal within 1e-6: class, then index), cut to
  ``keep_top_k``; ``sort_result_type="classid"`` re-sorts them by class, score, index;
  ``sort_result_across_batch`` sorts the whole batch by score (or class) with the batch index
  next;
* outputs: rows ``[class, score, x1, y1, x2, y2]``, the selected box's flat index (shared boxes:
  ``image * M + box``; v9 per-class boxes: ``(offset + box) * C + class``) and the count per
  image, only the selected rows (as the CPU plugin returns them).
"""
from __future__ import annotations

import functools

import numpy as np

from ..errors import OpError
from ..types.elements import TYPES
from ..types.shapes import DYN, Dim, PartialShape
from ._nms_rows import multiclass_rows
from .base import Attr, Op, TensorInfo, as_int64, spec_url
from .registry import register

F = np.float32


def iou_row(box: np.ndarray, others: np.ndarray, normalized: bool) -> np.ndarray:
    """IoU of ``box`` with each row of ``others`` (corner boxes x1, y1, x2, y2) in f32."""
    norm = F(0) if normalized else F(1)
    area_i = (box[3] - box[1] + norm) * (box[2] - box[0] + norm)
    area_j = (others[:, 3] - others[:, 1] + norm) * (others[:, 2] - others[:, 0] + norm)
    ih = np.maximum(np.minimum(box[3], others[:, 3]) - np.maximum(box[1], others[:, 1]) + norm, F(0))
    iw = np.maximum(np.minimum(box[2], others[:, 2]) - np.maximum(box[0], others[:, 0]) + norm, F(0))
    inter = ih * iw
    with np.errstate(all="ignore"):
        iou = inter / (area_i + area_j - inter)
    return np.where((area_i <= 0) | (area_j <= 0), F(0), iou)


def _class_nms(boxes: np.ndarray, scores: np.ndarray, op) -> list[int]:
    cand = np.flatnonzero(scores >= F(op.score_threshold))
    cand = cand[np.lexsort((cand, -scores[cand]))]
    if op.nms_top_k > -1:
        cand = cand[:op.nms_top_k]
    thr = F(op.iou_threshold)
    kept: list[int] = []
    for i in cand:
        if kept and np.any(iou_row(boxes[i], boxes[kept], op.normalized) >= thr):
            continue
        kept.append(int(i))
        if op.nms_eta < 1 and thr > 0.5:
            thr = F(thr * F(op.nms_eta))
    return kept


def _score_order(a, b) -> int:
    """The per-image order: score descending (equal within 1e-6), class, index."""
    if abs(a[1] - b[1]) >= 1e-6:
        return -1 if a[1] > b[1] else 1
    return -1 if (a[0], a[2]) < (b[0], b[2]) else (1 if (a[0], a[2]) > (b[0], b[2]) else 0)


class _MulticlassNms(Op):
    attrs = {"sort_result_type": Attr("enum", "none", choices=("classid", "score", "none")),
             "sort_result_across_batch": Attr("bool", False), "output_type": Attr("etype", TYPES["i64"]),
             "iou_threshold": Attr("float", 0.0), "score_threshold": Attr("float", 0.0),
             "nms_top_k": Attr("int", -1), "keep_top_k": Attr("int", -1), "background_class": Attr("int", -1),
             "nms_eta": Attr("float", 1.0), "normalized": Attr("bool", True)}
    num_inputs = (2, 2)

    def infer(self, inputs):
        boxes, scores, *rois = inputs
        if self.output_type.name not in ("i32", "i64"):
            raise OpError(f"Output type must be i32 or i64. Got: {self.output_type}")
        if not 0 <= self.nms_eta <= 1:
            raise OpError(f"The nms_eta must be in close range [0, 1.0]. Got: {self.nms_eta:g}")
        if self.nms_top_k < -1 or self.keep_top_k < -1:
            raise OpError("The nms_top_k and keep_top_k must be -1 or non-negative.")
        for i, t in ((0, boxes), (1, scores)):
            if not (t.etype.is_dynamic or t.etype.is_float):
                raise OpError(f"Expected a floating-point {('boxes', 'scores')[i]} input. Got: {t.etype}", port=f"input {i}")
        shared = not rois
        if shared:
            if boxes.shape.rank not in (None, 3) or scores.shape.rank not in (None, 3):
                raise OpError("Expected 3D boxes and scores inputs.", port="input 0")
            n = boxes.shape[0] if boxes.shape.rank == 3 else (scores.shape[0] if scores.shape.rank == 3 else DYN)
            m = boxes.shape[1] if boxes.shape.rank == 3 else (scores.shape[2] if scores.shape.rank == 3 else DYN)
            c = scores.shape[1] if scores.shape.rank == 3 else DYN
        else:
            if boxes.shape.rank not in (None, 3) or scores.shape.rank not in (None, 2):
                raise OpError("Expected 3D boxes, 2D scores with roisnum.", port="input 0")
            n = rois[0].shape[0] if rois[0].shape.rank == 1 else DYN
            m = boxes.shape[1] if boxes.shape.rank == 3 else DYN
            c = boxes.shape[0] if boxes.shape.rank == 3 else DYN
        if boxes.shape.rank == 3 and boxes.shape[2].intersect(Dim(4, 4)) is None:
            raise OpError(f"The third dimension of the 'boxes' must be 4. Got: {boxes.shape[2]}", port="input 0")
        rows = multiclass_rows(self, n, m, c, shared)
        et = boxes.etype
        return [TensorInfo(et, PartialShape([rows, Dim(6, 6)])), TensorInfo(self.output_type, PartialShape([rows, Dim(1, 1)])),
                TensorInfo(self.output_type, PartialShape([n]))]

    def run(self, boxes, scores, roisnum=None):
        boxes, scores = boxes.astype(F), scores.astype(F)
        shared = roisnum is None
        images = []                                     # per image: [(class, score, index, box)]
        if shared:
            if boxes.shape[0] != scores.shape[0] or boxes.shape[1] != scores.shape[2]:
                raise OpError("boxes [N, M, 4] and scores [N, C, M] do not fit", port="input 1")
            parts = [(boxes[i][None].repeat(scores.shape[1], 0), scores[i]) for i in range(boxes.shape[0])]
        else:
            counts = as_int64(roisnum)
            if boxes.shape[:2] != scores.shape or np.any(counts < 0) or counts.sum() > boxes.shape[1]:
                raise OpError("boxes [C, M, 4], scores [C, M] and roisnum do not fit", port="input 2")
            starts = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int64)
            parts = [(boxes[:, s:s + k], scores[:, s:s + k]) for s, k in zip(starts, counts)]
        for b, s in parts:
            sel = []
            for c in range(s.shape[0]):
                if c != self.background_class:
                    sel += [(c, float(s[c, i]), i, b[c, i]) for i in _class_nms(b[c], s[c], self)]
            sel.sort(key=functools.cmp_to_key(_score_order))
            if self.keep_top_k > -1:
                sel = sel[:self.keep_top_k]
            if not self.sort_result_across_batch and self.sort_result_type == "classid":
                sel.sort(key=lambda r: (r[0], -r[1], r[2]))
            images.append(sel)
        rows = [(n, *r) for n, sel in enumerate(images) for r in sel]
        if self.sort_result_across_batch and self.sort_result_type == "score":
            rows.sort(key=lambda r: (-r[2], r[0], r[1], r[3]))
        elif self.sort_result_across_batch and self.sort_result_type == "classid":
            rows.sort(key=lambda r: (r[1], r[0], -r[2], r[3]))
        out = np.array([[c, s, *box] for _, c, s, _, box in rows], F).reshape(-1, 6)
        if shared:
            idx = [n * boxes.shape[1] + i for n, _, _, i, _ in rows]
        else:
            offsets = np.concatenate([[0], np.cumsum(as_int64(roisnum))])
            idx = [(int(offsets[n]) + i) * boxes.shape[0] + c for n, c, _, i, _ in rows]
        it = self.output_type.dtype
        return [out.astype(boxes.dtype), np.array(idx, it).reshape(-1, 1), np.array([len(s) for s in images], it)]


@register
class MulticlassNms8(_MulticlassNms):
    """MulticlassNms-8: shared boxes only."""
    category = "detection"

    type, version = "MulticlassNms", "opset8"
    spec = spec_url("sort/multiclass-non-max-suppression-8")


@register
class MulticlassNms9(_MulticlassNms):
    """MulticlassNms-9: shared boxes, or per-class boxes with roisnum."""
    category = "detection"

    type, version = "MulticlassNms", "opset9"
    spec = spec_url("sort/multiclass-non-max-suppression-9")
    num_inputs = (2, 3)
