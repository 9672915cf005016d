"""ExperimentalDetectronDetectionOutput-6: Mask R-CNN's final boxes — each ROI refined per class
by the predicted deltas, class-wise NMS, the best ``max_detections_per_image`` kept.

As OpenVINO's reference kernel (f32). Inputs: rois ``[R, 4]``, deltas ``[R, C*4]``, scores
``[R, C]``, im_info ``[1, 3]``. For every class but 0 (the background) each ROI of positive size
is decoded like a Detectron box (sizes +1, deltas divided by ``deltas_weights``, log-sizes capped
at ``max_delta_log_wh``, far corner -1) and clipped at 0 only; ROIs of non-positive size keep
score 0. Per class: boxes with score > ``score_threshold`` by score (ties by index), dropped when
their IoU (+1 on sizes) with a kept box is > ``nms_threshold``, at most ``post_nms_count`` kept.
All classes' boxes then in class order, or, when there are more than ``max_detections_per_image``,
the best by score (ties by ROI index). Outputs boxes ``[max, 4]``, classes ``[max]`` (i32) and
scores ``[max]``, zero-filled.
"""
from __future__ import annotations

import numpy as np

from ..errors import OpError
from ..limits.memory import check_alloc
from ..types.elements import TYPES
from ..types.shapes import Dim, PartialShape
from .base import Attr, Op, TensorInfo, spec_url
from .registry import register

F = np.float32


def _nms(boxes: np.ndarray, area: np.ndarray, scores: np.ndarray, score_thr: F, nms_thr: F, post: int) -> list[int]:
    cand = np.flatnonzero(scores > score_thr)
    cand = cand[np.lexsort((cand, -scores[cand]))]
    kept: list[int] = []
    for i in cand:
        b = boxes[i]
        ok = True
        for k in kept:
            o = boxes[k]
            if o[0] > b[2] or o[2] < b[0] or o[1] > b[3] or o[3] < b[1]:
                continue
            iw = min(b[2], o[2]) - max(b[0], o[0]) + F(1)
            ih = min(b[3], o[3]) - max(b[1], o[1]) + F(1)
            if iw <= 0 or ih <= 0:
                continue
            inter = iw * ih
            if inter / (area[i] + area[k] - inter) > nms_thr:
                ok = False
                break
        if ok:
            kept.append(int(i))
    return kept if post == -1 else kept[:post]


@register
class ExperimentalDetectronDetectionOutput6(Op):
    """ExperimentalDetectronDetectionOutput-6; see the module docstring."""
    category = "detection"

    type, version = "ExperimentalDetectronDetectionOutput", "opset6"
    spec = spec_url("detection/experimental-detectron-detection-output-6")
    attrs = {"score_threshold": Attr("float", required=True, default=0.0),
             "nms_threshold": Attr("float", required=True, default=0.0),
             "max_delta_log_wh": Attr("float", required=True, default=0.0),
             "num_classes": Attr("int", required=True, default=0), "post_nms_count": Attr("int", required=True, default=0),
             "max_detections_per_image": Attr("int", required=True, default=0),
             "class_agnostic_box_regression": Attr("bool", False),
             "deltas_weights": Attr("floats", required=True, default=[])}
    num_inputs = (4, 4)

    def infer(self, inputs):
        for i, t in enumerate(inputs):
            if not (t.etype.is_dynamic or t.etype.is_float):
                raise OpError(f"Input {i} must be floating-point. Got: {t.etype}", port=f"input {i}")
        for i, (t, r) in enumerate(zip(inputs, (2, 2, 2, 2))):
            if t.shape.rank not in (None, r):
                raise OpError(f"Input {i} rank must be equal to {r}. Got: {t.shape}", port=f"input {i}")
        if self.max_detections_per_image <= 0 or self.num_classes < 1 or len(self.deltas_weights) != 4:
            raise OpError("max_detections_per_image and num_classes must be positive and deltas_weights hold 4 values.")
        m = Dim.of(self.max_detections_per_image)
        et = inputs[0].etype
        return [TensorInfo(et, PartialShape([m, Dim(4, 4)])), TensorInfo(TYPES["i32"], PartialShape([m])),
                TensorInfo(et, PartialShape([m]))]

    def run(self, rois, deltas, scores, info):
        R, C = scores.shape[0], self.num_classes
        if rois.shape != (R, 4) or deltas.shape != (R, C * 4) or scores.shape != (R, C):
            raise OpError(f"rois {list(rois.shape)}, deltas {list(deltas.shape)} and scores {list(scores.shape)} do not "
                          f"fit num_classes {C}", port="input 1")
        check_alloc((C, R, 4), np.dtype(F))
        b = rois.astype(F)
        valid = (b[:, 2] - b[:, 0] > 0) & (b[:, 3] - b[:, 1] > 0)
        ww, hh = b[:, 2] - b[:, 0] + F(1), b[:, 3] - b[:, 1] + F(1)
        cx, cy = b[:, 0] + F(0.5) * ww, b[:, 1] + F(0.5) * hh
        d = deltas.astype(F).reshape(R, C, 4) / np.array(self.deltas_weights, F)
        cap = F(self.max_delta_log_wh)
        px, py = d[..., 0] * ww[:, None] + cx[:, None], d[..., 1] * hh[:, None] + cy[:, None]
        with np.errstate(over="ignore"):
            pw = np.exp(np.minimum(d[..., 2], cap)) * ww[:, None]
            ph = np.exp(np.minimum(d[..., 3], cap)) * hh[:, None]
        x0, y0 = np.maximum(F(0), px - F(0.5) * pw), np.maximum(F(0), py - F(0.5) * ph)
        x1, y1 = np.maximum(F(0), px + F(0.5) * pw - F(1)), np.maximum(F(0), py + F(0.5) * ph - F(1))
        boxes = np.where(valid[:, None, None], np.stack([x0, y0, x1, y1], -1), F(0)).transpose(1, 0, 2)   # [C, R, 4]
        area = np.where(valid[None], ((x1 - x0 + F(1)) * (y1 - y0 + F(1))).T, F(0))
        sc = np.where(valid[None], scores.astype(F).T, F(0))
        dets = [(float(sc[c, i]), c, i) for c in range(1, C)
                for i in _nms(boxes[c], area[c], sc[c], F(self.score_threshold), F(self.nms_threshold), self.post_nms_count)]
        m = self.max_detections_per_image
        if len(dets) > m:
            dets = sorted(dets, key=lambda t: (-t[0], t[2]))[:m]
        out_b, out_c, out_s = np.zeros((m, 4), F), np.zeros(m, np.int32), np.zeros(m, F)
        for k, (s, c, i) in enumerate(dets):
            out_b[k], out_c[k], out_s[k] = boxes[c, i], c, s
        return [out_b.astype(rois.dtype), out_c, out_s.astype(rois.dtype)]
