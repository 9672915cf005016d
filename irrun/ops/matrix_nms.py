"""MatrixNms-8: Matrix NMS (SOLOv2) — scores decayed by their overlap with higher-scored boxes
instead of hard suppression.

As OpenVINO's reference kernel (f32): per image and class (``background_class`` skipped),
candidates with score > ``score_threshold``, the best ``nms_top_k``, sorted by score (ties by
index). Candidate ``i``'s score is multiplied by ``min over j < i`` of the decay
``(1 - iou_ij) / (1 - max_iou_j)`` (``linear``) or ``exp((max_iou_j^2 - iou_ij^2) * gaussian_sigma)``
(``gaussian``), ``max_iou_j`` being candidate j's largest IoU with a better one; boxes whose
decayed score is <= ``post_threshold`` are dropped. Per image all classes' boxes are sorted by
score, class, index and cut to ``keep_top_k``; ``sort_result_across_batch`` re-sorts the batch
by score or class. IoU (disjoint boxes 0; +1 on sizes unless ``normalized``; an inverted box has
area 0). Outputs as MulticlassNms: rows ``[class, score, x1, y1, x2, y2]``, the flat box index
``image * M + box``, the count per image.
"""
from __future__ import annotations

import numpy as np

from ..errors import OpError
from ..limits.memory import check_alloc
from ..types.elements import TYPES
from ..types.shapes import Dim, PartialShape
from ._nms_rows import multiclass_rows
from .base import Attr, Op, TensorInfo, spec_url
from .registry import register

F = np.float32


def iou_matrix(b: np.ndarray, normalized: bool) -> np.ndarray:
    """``[n, n]`` IoU of corner boxes ``b`` (f32; disjoint boxes 0, an inverted box has area 0)."""
    norm = F(0) if normalized else F(1)
    x0, y0, x1, y1 = (b[:, k] for k in range(4))
    area = np.where((x1 < x0) | (y1 < y0), F(0), (x1 - x0 + norm) * (y1 - y0 + norm))
    disjoint = (x0[None, :] > x1[:, None]) | (x1[None, :] < x0[:, None]) | (y0[None, :] > y1[:, None]) | \
        (y1[None, :] < y0[:, None])
    iw = np.minimum(x1[:, None], x1[None, :]) - np.maximum(x0[:, None], x0[None, :]) + norm
    ih = np.minimum(y1[:, None], y1[None, :]) - np.maximum(y0[:, None], y0[None, :]) + norm
    inter = iw * ih
    with np.errstate(all="ignore"):
        iou = inter / (area[:, None] + area[None, :] - inter)
    return np.where(disjoint, F(0), iou).astype(F)


@register
class MatrixNms8(Op):
    """MatrixNms-8: boxes ``[N, M, 4]``, scores ``[N, C, M]``; see the module docstring."""
    category = "detection"

    type, version = "MatrixNms", "opset8"
    spec = spec_url("sort/matrix-non-max-suppression-8")
    attrs = {"sort_result_type": Attr("enum", "none", choices=("classid", "score", "none")),
             "sort_result_across_batch": Attr("bool", False), "output_type": Attr("etype", TYPES["i64"]),
             "score_threshold": Attr("float", 0.0), "nms_top_k": Attr("int", -1), "keep_top_k": Attr("int", -1),
             "background_class": Attr("int", -1), "decay_function": Attr("enum", "linear", choices=("gaussian", "linear")),
             "gaussian_sigma": Attr("float", 2.0), "post_threshold": Attr("float", 0.0), "normalized": Attr("bool", True)}
    num_inputs = (2, 2)

    def infer(self, inputs):
        if self.output_type.name not in ("i32", "i64"):
            raise OpError(f"Output type must be i32 or i64. Got: {self.output_type}")
        if self.nms_top_k < -1 or self.keep_top_k < -1:
            raise OpError("The nms_top_k and keep_top_k must be -1 or non-negative.")
        boxes, scores = inputs
        for i, t in enumerate(inputs):
            if not (t.etype.is_dynamic or t.etype.is_float):
                raise OpError(f"Expected a floating-point input. Got: {t.etype}", port=f"input {i}")
            if t.shape.rank not in (None, 3):
                raise OpError(f"Expected a 3D {('boxes', 'scores')[i]} input. Got: {t.shape}", port=f"input {i}")
        if boxes.shape.rank == 3 and boxes.shape[2].intersect(Dim(4, 4)) is None:
            raise OpError(f"The third dimension of the 'boxes' must be 4. Got: {boxes.shape[2]}", port="input 0")
        n = boxes.shape[0] if boxes.shape.rank == 3 else (scores.shape[0] if scores.shape.rank == 3 else Dim(0, None))
        m = boxes.shape[1] if boxes.shape.rank == 3 else (scores.shape[2] if scores.shape.rank == 3 else Dim(0, None))
        c = scores.shape[1] if scores.shape.rank == 3 else Dim(0, None)
        rows = multiclass_rows(self, n, m, c, True)
        return [TensorInfo(boxes.etype, PartialShape([rows, Dim(6, 6)])),
                TensorInfo(self.output_type, PartialShape([rows, Dim(1, 1)])),
                TensorInfo(self.output_type, PartialShape([n]))]

    def _class(self, boxes: np.ndarray, scores: np.ndarray) -> list[tuple[int, F]]:
        cand = np.flatnonzero(scores > F(self.score_threshold))
        cand = cand[np.lexsort((cand, -scores[cand]))]
        if self.nms_top_k > -1:
            cand = cand[:self.nms_top_k]
        n = len(cand)
        check_alloc((n, n, 4), np.dtype(F), "the IoU matrix")
        iou = np.tril(iou_matrix(boxes[cand], self.normalized), -1)     # iou[i, j] for j < i
        max_iou = iou.max(axis=1) if n else iou
        out = []
        if n and scores[cand[0]] > F(self.post_threshold):
            out.append((int(cand[0]), F(scores[cand[0]])))
        sigma = F(self.gaussian_sigma)
        for i in range(1, n):
            if self.decay_function == "gaussian":
                decay = np.exp((max_iou[:i] * max_iou[:i] - iou[i, :i] * iou[i, :i]) * sigma)
            else:
                decay = (F(1) - iou[i, :i]) / (F(1) - max_iou[:i] + F(1e-10))
            ds = F(min(1.0, float(decay.min()))) * scores[cand[i]]
            if ds > F(self.post_threshold):
                out.append((int(cand[i]), F(ds)))
        return out

    def run(self, boxes, scores):
        boxes, scores = boxes.astype(F), scores.astype(F)
        N, C, M = scores.shape
        if boxes.shape[:2] != (N, M):
            raise OpError("boxes [N, M, 4] and scores [N, C, M] do not fit", port="input 1")
        rows, counts = [], []
        for b in range(N):
            sel = [(float(s), c, i) for c in range(C) if c != self.background_class
                   for i, s in self._class(boxes[b], scores[b, c])]
            sel.sort(key=lambda r: (-r[0], r[1], r[2]))
            if self.keep_top_k > -1:
                sel = sel[:self.keep_top_k]
            rows += [(b, c, s, i) for s, c, i in sel]
            counts.append(len(sel))
        if self.sort_result_across_batch and self.sort_result_type == "score":
            rows.sort(key=lambda r: (-r[2], r[0], r[1], r[3]))
        elif self.sort_result_across_batch and self.sort_result_type == "classid":
            rows.sort(key=lambda r: (r[1], r[0], -r[2], r[3]))
        out = np.array([[c, s, *boxes[b, i]] for b, c, s, i in rows], F).reshape(-1, 6)
        it = self.output_type.dtype
        idx = np.array([b * M + i for b, _, _, i in rows], it).reshape(-1, 1)
        return [out.astype(boxes.dtype), idx, np.array(counts, it)]
