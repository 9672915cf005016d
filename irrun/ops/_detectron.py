"""Kernels the Detectron-derived ops share, as OpenVINO's reference kernels compute them (f32):
Caffe2's bilinear sampling (ExperimentalDetectronROIFeatureExtractor, ROIAlignRotated) and the
greedy proposal NMS (GenerateProposals, ExperimentalDetectronGenerateProposalsSingleImage,
Proposal).
"""
from __future__ import annotations

import numpy as np

F = np.float32


def bilinear_taps(fmap: np.ndarray, Y: np.ndarray, X: np.ndarray) -> np.ndarray:
    """Caffe2's bilinear sample of ``fmap`` ``[C, H, W]`` at each point of ``Y``/``X`` (f32):
    0 outside ``[-1, size]``, coordinates clamped at 0 and to the last pixel -> ``[C, points]``."""
    C, H, W = fmap.shape
    f = np.float32
    valid = (Y >= -1) & (Y <= H) & (X >= -1) & (X <= W)
    Y, X = np.maximum(Y, 0), np.maximum(X, 0)
    yl, xl = Y.astype(np.int64), X.astype(np.int64)
    ytop, xtop = yl >= H - 1, xl >= W - 1
    yl, xl = np.where(ytop, H - 1, yl), np.where(xtop, W - 1, xl)
    Y, X = np.where(ytop, yl, Y).astype(f), np.where(xtop, xl, X).astype(f)
    yh, xh = np.where(ytop, yl, yl + 1), np.where(xtop, xl, xl + 1)
    ly, lx = Y - yl, X - xl
    hy, hx = f(1) - ly, f(1) - lx
    flat = fmap.reshape(C, -1).astype(f)
    return sum(flat[:, (yy * W + xx).reshape(-1)] * (w * valid).reshape(-1)
               for yy, xx, w in ((yl, xl, hy * hx), (yl, xh, hy * lx), (yh, xl, ly * hx), (yh, xh, ly * lx)))


def proposal_nms(boxes: np.ndarray, dead: np.ndarray, thr: float, max_out: int, offset: F) -> list[int]:
    """The kept indices of ``boxes`` (already in visiting order)."""
    dead = dead.copy()
    keep: list[int] = []
    area = (boxes[:, 2] - boxes[:, 0] + offset) * (boxes[:, 3] - boxes[:, 1] + offset)
    for i in range(boxes.shape[0]):
        if dead[i]:
            continue
        keep.append(i)
        if len(keep) == max_out:
            break
        b, o = boxes[i], boxes[i + 1:]
        iw = np.minimum(b[2], o[:, 2]) - np.maximum(b[0], o[:, 0]) + offset
        ih = np.minimum(b[3], o[:, 3]) - np.maximum(b[1], o[:, 1]) + offset
        inter = np.maximum(F(0), iw) * np.maximum(F(0), ih)
        with np.errstate(all="ignore"):
            iou = inter / (area[i] + area[i + 1:] - inter)
        overlap = (b[0] <= o[:, 2]) & (b[1] <= o[:, 3]) & (o[:, 0] <= b[2]) & (o[:, 1] <= b[3])
        dead[i + 1:] |= (F(thr) < iou) & overlap
    return keep
