"""DetectionOutput-1/8: SSD's box decoding, per-class NMS and top-k, as [1, 1, K, 7] rows
``[image, label, score, xmin, ymin, xmax, ymax]``, ended by a row whose image is -1.

Inputs: box logits [N, P * L * 4] (L = 1 with ``share_location``, else the class count), class
scores [N, P * C], priors [1 or N, 2 (1 with ``variance_encoded_in_target``), P * 4 (5 when not
``normalized``: a leading image id)], and optionally ARM scores [N, P * 2] and ARM box logits
(RefineDet: priors are first refined by the ARM logits; a prior whose ARM objectness is below
``objectness_score`` keeps only the background score). v1 has a ``num_classes`` attribute, v8
derives C from the shapes.

The reference evaluator has no kernel for it; irrun follows the CPU plugin (measured):

* decode: CORNER adds ``variance * logit`` to the prior corners; CENTER_SIZE moves the centre by
  ``variance * logit * size`` and scales the size by ``exp(variance * logit)``; unnormalised
  priors are divided by ``input_width``/``input_height`` first (again for the second, ARM,
  decoding); with unnormalised priors, a prior whose image id is -1 ends the prior list;
* Caffe style: per class (not the background), the priors with a score **>** the confidence
  threshold, best ``top_k`` by score (ties: lower prior first), greedy NMS dropping a box whose
  Jaccard overlap with a kept one is **>** ``nms_threshold``; MXNet style
  (``decrease_label_id``): per prior only its best non-background class with a score **>=** the
  threshold, ``top_k`` over the image, NMS within each class, labels shifted down by one (the CPU
  plugin refuses ``decrease_label_id`` with a background label other than 0; so does irrun);
* ``keep_top_k[0]``: when an image has more detections, the best ones by score (ties: lower prior
  first) are kept; rows come per image, per class ascending, per class in score order; the rest
  of the output is 0 and the row after the last detection starts with -1.

Decoding and overlaps are vectorised; the NMS loop runs once per kept box.
"""
from __future__ import annotations

import numpy as np

from ..errors import OpError
from ..types.elements import TYPES
from ..types.shapes import PartialShape
from ._detection_shape import output_shape
from .base import Attr, Op, TensorInfo, spec_url
from .registry import register

_CODES = ("caffe.PriorBoxParameter.CORNER", "caffe.PriorBoxParameter.CENTER_SIZE")
F32 = np.float32


# ---------------------------------------------------------------------------------------------
# Kernel

def _decode(priors: np.ndarray, var: np.ndarray | None, loc: np.ndarray, op) -> np.ndarray:
    """priors [P, 4], var [P, 4] or None, loc [..., P, 4] -> decoded [..., P, 4] (f32)."""
    p = priors
    if not op.normalized:
        p = p / np.array([op.input_width, op.input_height] * 2, F32)
    v = np.ones_like(p) if var is None else var
    if op.code_type == _CODES[0]:
        out = p + (loc * v if var is not None else loc)
    else:
        pw, ph = p[:, 2] - p[:, 0], p[:, 3] - p[:, 1]
        pcx, pcy = (p[:, 0] + p[:, 2]) / F32(2), (p[:, 1] + p[:, 3]) / F32(2)
        lv = loc * v if var is not None else loc
        with np.errstate(over="ignore"):
            cx, cy = lv[..., 0] * pw + pcx, lv[..., 1] * ph + pcy
            w, h = np.exp(lv[..., 2]) * pw, np.exp(lv[..., 3]) * ph
        out = np.stack([cx - w / F32(2), cy - h / F32(2), cx + w / F32(2), cy + h / F32(2)], axis=-1)
    if op.clip_before_nms:
        out = np.clip(out, F32(0), F32(1))
    return out.astype(F32, copy=False)


def _overlap(boxes: np.ndarray, size: np.ndarray, i: int, js: np.ndarray) -> np.ndarray:
    """Jaccard overlap of box ``i`` with each of ``js`` (the CPU plugin's: sizes not clamped)."""
    a, b = boxes[i], boxes[js]
    apart = (b[:, 0] > a[2]) | (b[:, 2] < a[0]) | (b[:, 1] > a[3]) | (b[:, 3] < a[1])
    iw = np.minimum(a[2], b[:, 2]) - np.maximum(a[0], b[:, 0])
    ih = np.minimum(a[3], b[:, 3]) - np.maximum(a[1], b[:, 1])
    inter = iw * ih
    with np.errstate(divide="ignore", invalid="ignore"):
        o = inter / (size[i] + size[js] - inter)
    return np.where(apart | (iw <= 0) | (ih <= 0), F32(0), o)


def _nms(order: np.ndarray, boxes: np.ndarray, size: np.ndarray, thr: float) -> list[int]:
    kept = []
    while order.size:
        i = int(order[0])
        kept.append(i)
        rest = order[1:]
        order = rest[~(_overlap(boxes, size, i, rest) > thr)]
    return kept


def _best(cand: np.ndarray, score: np.ndarray, k: int) -> np.ndarray:
    """``cand`` sorted by ``score`` descending, ties by index ascending, the first ``k`` (all: -1)."""
    order = cand[np.lexsort((cand, -score[cand]))]
    return order if k < 0 else order[:k]


def detection_output(op, loc: np.ndarray, conf: np.ndarray, priors: np.ndarray,
                     arm_conf: np.ndarray | None, arm_loc: np.ndarray | None, out_rows: int) -> np.ndarray:
    n = loc.shape[0]
    size = 4 if op.normalized else 5
    p_n = priors.shape[-1] // size
    c_n = conf.shape[-1] // p_n
    l_n = 1 if op.share_location else c_n
    bg = op.background_label_id
    if p_n * l_n * 4 != loc.shape[1] or p_n * c_n != conf.shape[1]:
        raise OpError(f"the inputs do not agree on the number of priors ({p_n}) and classes ({c_n})")
    if op.decrease_label_id and bg != 0:
        raise OpError("cannot use decrease_label_id and background_label_id parameter simultaneously.")
    f = lambda a: None if a is None else a.astype(F32)  # noqa: E731
    loc, conf, priors = loc.astype(F32), conf.astype(F32), priors.astype(F32)
    arm_conf, arm_loc = f(arm_conf), f(arm_loc)
    per_img = priors.shape[0] != 1
    # actual prior count: unnormalised priors end at an image id of -1
    actual = []
    for b in range(priors.shape[0]):
        ids: np.ndarray | list[int] = \
            np.flatnonzero(priors[b, 0, :p_n * size].reshape(p_n, size)[:, 0] == -1) if not op.normalized else []
        actual.append(int(ids[0]) if len(ids) else p_n)
    conf = conf.reshape(n, p_n, c_n).transpose(0, 2, 1)            # [N, C, P]
    if arm_conf is not None:
        low = arm_conf.reshape(n, p_n, 2)[:, :, 1] < F32(op.objectness_score)   # [N, P]
        bgrow = (np.arange(c_n) == bg).astype(F32)[None, :, None]
        conf = np.where(low[:, None, :], bgrow, conf)
    rows = np.zeros((out_rows, 7), F32)
    count = 0
    for img in range(n):
        pb = img if per_img else 0
        pr = priors[pb, 0].reshape(p_n, size)[:, size - 4:]
        var = None if op.variance_encoded_in_target else priors[pb, 1, :p_n * 4].reshape(p_n, 4)
        lo = loc[img].reshape(p_n, l_n, 4).transpose(1, 0, 2)       # [L, P, 4]
        if arm_loc is not None:
            refined = _decode(pr, var, arm_loc[img].reshape(p_n, l_n, 4).transpose(1, 0, 2), op)
            boxes = np.stack([_decode(refined[c], var, lo[c], op) for c in range(l_n)])
        else:
            boxes = _decode(pr, var, lo, op)                          # [L, P, 4]
        sizes = (boxes[..., 2] - boxes[..., 0]) * (boxes[..., 3] - boxes[..., 1])
        n_act = actual[pb] if per_img else actual[0]
        sc = conf[img]                                                  # [C, P]
        picked: dict[int, list[int]] = {}
        if not op.decrease_label_id:
            for c in range(c_n):
                if c == bg:
                    continue
                cand = np.flatnonzero(sc[c, :n_act] > F32(op.confidence_threshold))
                order = _best(cand, sc[c], op.top_k)
                li = 0 if op.share_location else c
                picked[c] = _nms(order, boxes[li], sizes[li], op.nms_threshold)
        else:
            s = sc[1:, :n_act]
            ok = s >= F32(op.confidence_threshold)
            masked = np.where(ok, s, F32(-np.inf))
            best = masked.argmax(axis=0)                                # first max, like the `>` scan
            has = ok.any(axis=0) & (masked.max(axis=0, initial=-np.inf) > -1)
            cls = best[has] + 1
            idx = cls * p_n + np.flatnonzero(has)
            flat = sc.reshape(-1)
            order = idx[np.lexsort((idx, -flat[idx]))]
            if op.top_k > -1:
                order = order[:op.top_k]
            for c in range(1, c_n):
                cand = order[order // p_n == c] % p_n
                li = 0 if op.share_location else c
                if cand.size:
                    picked[c] = _nms(cand, boxes[li], sizes[li], op.nms_threshold)
        keep = op.keep_top_k[0]
        total = sum(len(v) for v in picked.values())
        if keep > -1 and total > keep:
            pairs = [(sc[c, p], p, c) for c, ps in picked.items() for p in ps]
            pairs.sort(key=lambda t: (-t[0], t[1]))
            picked = {}
            for s_, p, c in pairs[:keep]:
                picked.setdefault(c, []).append(p)
        for c in sorted(picked):
            ps = np.array(picked[c], np.int64)
            if not ps.size:
                continue
            li = 0 if op.share_location else c
            b = boxes[li][ps]
            if op.clip_after_nms:
                b = np.clip(b, F32(0), F32(1))
            k = len(ps)
            if count + k > out_rows:
                raise OpError(f"{count + k} detections do not fit the output's {out_rows} rows")
            rows[count:count + k, 0] = img
            rows[count:count + k, 1] = c - 1 if op.decrease_label_id else c
            rows[count:count + k, 2] = sc[c, ps]
            rows[count:count + k, 3:] = b
            count += k
    if count < out_rows:
        rows[count, 0] = -1
    return rows.reshape(1, 1, out_rows, 7)


# ---------------------------------------------------------------------------------------------

class _DetectionOutput(Op):
    category = "detection"
    num_inputs = (3, 5)
    attrs = {"background_label_id": Attr("int", 0), "top_k": Attr("int", -1),
             "variance_encoded_in_target": Attr("bool", False), "keep_top_k": Attr("ints", required=True),
             "code_type": Attr("str", _CODES[0]), "share_location": Attr("bool", True),
             "nms_threshold": Attr("float", required=True), "confidence_threshold": Attr("float", 0.0),
             "clip_after_nms": Attr("bool", False), "clip_before_nms": Attr("bool", False),
             "decrease_label_id": Attr("bool", False), "normalized": Attr("bool", False),
             "input_height": Attr("int", 1), "input_width": Attr("int", 1), "objectness_score": Attr("float", 0.0)}

    @property
    def attr_classes(self) -> int:
        """``num_classes`` of DetectionOutput-1; -1 for v8 (from the shapes)."""
        return -1

    def infer(self, inputs):
        if len(inputs) == 4:
            raise OpError("A number of arguments must be  equal to 3 or equal to 5. Got  4")
        if self.code_type not in _CODES:
            raise OpError('code_type must be either "caffe.PriorBoxParameter.CORNER" or '
                          '"caffe.PriorBoxParameter.CENTER_SIZE"')
        if not self.keep_top_k:
            raise OpError("keep_top_k must have at least one value")
        ets = [t.etype for t in inputs]
        real = lambda e: e.is_float or e.is_dynamic  # noqa: E731
        same = lambda a, b: a.is_dynamic or b.is_dynamic or a == b  # noqa: E731
        if not real(ets[0]):
            raise OpError(f"Box logits' data type must be floating point. Got {ets[0]}", port="input 0")
        if not same(ets[1], ets[0]):
            raise OpError(f"Class predictions' data type must be the same as box logits type ({ets[0]}). "
                          f"Got {ets[1]}", port="input 1")
        if not real(ets[2]):
            raise OpError(f"Proposals' data type must be floating point. Got {ets[2]}", port="input 2")
        if len(ets) == 5:
            if not same(ets[3], ets[1]):
                raise OpError("Additional class predictions' data type must be the same as class predictions "
                              f"data type ({ets[1]}). Got {ets[3]}", port="input 3")
            if not same(ets[4], ets[0]):
                raise OpError("Additional box predictions' data type must be the same as box logits data type "
                              f"({ets[0]}). Got {ets[4]}", port="input 4")
        shape = output_shape(self, [t.shape for t in inputs], self.attr_classes)
        if self.decrease_label_id and self.background_label_id != 0:
            raise OpError("cannot use decrease_label_id and background_label_id parameter simultaneously "
                          "(OpenVINO's CPU plugin refuses it at run time)", openvino_loads=True)
        return [TensorInfo(ets[0] if not ets[0].is_dynamic else TYPES["f32"], shape)]

    def run(self, loc, conf, priors, arm_conf=None, arm_loc=None):
        shape = output_shape(self, [PartialShape(a.shape) for a in (loc, conf, priors, arm_conf, arm_loc)
                                    if a is not None], self.attr_classes)
        out = detection_output(self, loc, conf, priors, arm_conf, arm_loc, shape[2].lo)
        return [out.astype(loc.dtype)]


@register
class DetectionOutput8(_DetectionOutput):
    type, version = "DetectionOutput", "opset8"
    spec = spec_url("detection/detectionoutput-8")


@register
class DetectionOutput1(_DetectionOutput):
    """DetectionOutput-1: ``num_classes`` is an attribute (it must be > 0 and fit the shapes)."""

    type, version = "DetectionOutput", "opset1"
    spec = spec_url("detection/detectionoutput-1")
    attrs = {**_DetectionOutput.attrs, "num_classes": Attr("int", required=True)}

    @property
    def attr_classes(self) -> int:
        return self.num_classes

    def infer(self, inputs):
        if self.num_classes <= 0:
            raise OpError("Number of classes must be greater than zero")
        return super().infer(inputs)
