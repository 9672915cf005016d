"""How many rows the NMS-family ops output (OpenVINO's shape rules, as measured): NonMaxSuppression's
and NMSRotated's ``selected_rows``, MulticlassNms' and MatrixNms' ``multiclass_rows``.
"""
from __future__ import annotations

from collections.abc import Sequence

from ..types.shapes import DYN, Dim, PartialShape
from .base import TensorInfo, as_int64


def max_boxes(inputs: Sequence[TensorInfo], absent: int | None) -> int | None:
    """The constant max_output_boxes_per_class (``absent`` when the input is not given), None when
    only known at run time."""
    if len(inputs) < 3:
        return absent
    if inputs[2].value is None:
        return None
    return int(as_int64(inputs[2].value).reshape(-1)[0])


def _hi(d: Dim) -> Dim:
    """A dim's upper bound as a Dim (OpenVINO's ``get_max_length``; unbounded -> dynamic)."""
    return DYN if d.hi is None else Dim(d.hi, d.hi)


def selected_rows(version: int, boxes: PartialShape, scores: PartialShape, max_boxes: int | None) -> Dim:
    """The first output dim as OpenVINO infers it. Also gives v1/v3/v4's static run-time size."""
    if version in (1, 3):
        if boxes.rank is None:
            return DYN
        m = DYN if max_boxes is None or max_boxes < 0 else Dim(max_boxes, max_boxes)
        if scores.rank is not None:
            m = m * scores[1]
        return Dim.of(min(boxes[1].lo, m.lo)) if boxes[1].is_static and m.is_static else DYN
    if version == 4:
        if boxes.rank is None or scores.rank is None or not boxes[1].is_static or max_boxes is None:
            return DYN
        n = min(boxes[1].lo, max_boxes)
        return DYN if n < 0 else Dim.of(n) * _hi(scores[0]) * _hi(scores[1])
    if boxes.rank is None or scores.rank is None:
        return DYN
    m = DYN
    if max_boxes is not None:
        n = min(-1 if boxes[1].hi is None else boxes[1].hi, max_boxes)
        m = DYN if n < 0 else Dim(0, n)
    return m * _hi(scores[0]) * _hi(scores[1])


def multiclass_rows(op, n: Dim, m: Dim, c: Dim, shared: bool) -> Dim:
    """The output rows of MulticlassNms and MatrixNms: at most ``nms_top_k`` per class (of the
    classes but ``background_class``), ``keep_top_k`` per image; a bound only."""
    if m.hi is None or c.hi is None or n.hi is None:
        return DYN
    per_class = m.hi if op.nms_top_k < 0 else min(m.hi, op.nms_top_k)
    classes = c.hi - (1 if 0 <= op.background_class < c.hi else 0)
    per_image = per_class * classes
    if op.keep_top_k >= 0:
        per_image = min(per_image, op.keep_top_k)
    return Dim(0, per_image * n.hi if shared else min(per_image * n.hi, m.hi * classes))
