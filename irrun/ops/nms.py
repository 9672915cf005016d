"""NonMaxSuppression-1/3/4/5/9: greedy (or Soft-NMS) suppression of boxes, per batch and class.
(and non-max-suppression-3, -4, -9; NMS-5 is sort/no-max-suppression-5.html).

OpenVINO 2026.4.1's reference evaluator has no NMS kernel, so the CPU plugin is the oracle; what
it does, measured (tests/fixtures/detection_expectations):

* a box is a candidate when its score is strictly greater than ``score_threshold``; candidates are
  visited by score, descending, equal scores by box index, ascending;
* a candidate is suppressed when its IoU with a selected box is **>=** ``iou_threshold`` (the spec
  says "greater than"): with the default threshold 0 only one box per class survives, disjoint
  boxes included ("0 means keep all boxes" in the spec is not what OpenVINO does);
* corner boxes are normalised (``min``/``max`` of each coordinate pair), centre boxes decoded as
  ``c -/+ size * 0.5``; IoU = inter / (area_a + area_b - inter) in f32 without a zero-area guard
  (0/0 is NaN, which suppresses nothing);
* Soft-NMS (v5/v9, ``soft_nms_sigma`` > 0): the score decays by ``exp(-0.5 / sigma * iou**2)``
  per selected box, lazily (a decayed candidate goes back into the queue), and is dropped once
  ``<= score_threshold``; ``iou_threshold`` is then ignored;
* ``sort_result_descending``: all selections by score, descending, ties by batch, class, box;
  otherwise in batch, class, selection order. ``max_output_boxes_per_class`` < 0 makes the CPU
  plugin fail ("Cannot get dims for non static shape"): irrun refuses it;
* v5/v9 return only the selected rows ([valid, 3]; scores always f32). v1/v3/v4 have a static
  output size in OpenVINO's shape inference (v1/v3: ``min(num_boxes, max * num_classes)``, v4:
  ``min(num_boxes, max) * num_batches * num_classes``); the CPU plugin re-infers it as dynamic at
  compile time and returns all selected rows, even more than that size. irrun keeps the IR's
  static size, as the spec says: rows beyond it are cut, missing rows are filled with -1. A
  missing max_output_boxes_per_class is the constant 0 for v1/v3/v4 (what OpenVINO's IR
  serialiser writes), unknown to v5/v9's shape rule (as OpenVINO infers it).

Speed: with a positive IoU threshold only intersecting boxes can suppress each other, so the
kernel finds every suppressing pair with a sort on ``y1`` and blockwise IoU, then keeps boxes in
score order in one pass (50 000 small boxes: about a second; the box-by-box loop took 20 s and
more). Soft-NMS, a threshold <= 0, few candidates and heavily overlapping boxes use the
box-by-box loop: the IoU of one box against all remaining candidates as one NumPy expression.
"""
from __future__ import annotations

import heapq
from collections.abc import Sequence

import numpy as np

from ..errors import OpError
from ..types.elements import TYPES
from ..types.shapes import Dim, PartialShape
from ._nms_rows import max_boxes, selected_rows
from ._numerics import require_numeric
from .base import Attr, Op, TensorInfo, as_int64, spec_url
from .registry import register

_NAMES = ("boxes", "scores", "max_output_boxes_per_class", "iou_threshold", "score_threshold", "soft_nms_sigma")
_FLOATS = ("f32", "f16", "bf16", "dynamic")
F32 = np.float32


# ---------------------------------------------------------------------------------------------
# Shape rules (nms_shape_inference.hpp, as measured)

def _compatible(a: Dim, b: Dim) -> bool:
    return a.intersect(b) is not None


def _check_shapes(shapes: Sequence[PartialShape], one_d: bool) -> None:
    """OpenVINO's checks, for ``infer`` (partial shapes) and ``run`` (the concrete ones)."""
    boxes, scores = shapes[0], shapes[1]
    if boxes.rank not in (None, 3):
        raise OpError("Expected a 3D tensor for the 'boxes' input", port="input 0")
    if scores.rank not in (None, 3):
        raise OpError("Expected a 3D tensor for the 'scores' input", port="input 1")
    for i, s in enumerate(shapes[2:], 2):
        ok = s.rank in (None, 0) or (one_d and s.rank == 1 and s[0].contains(1))
        if not ok:
            raise OpError(f"Expected 0D or 1D tensor for the '{_NAMES[i]}' input" if one_d else
                          f"Expected a scalar for the '{_NAMES[i]}' input" + ("." if i == 2 else ""),
                          port=f"input {i}")
    if boxes.rank is not None:
        if scores.rank is not None:
            if not _compatible(boxes[0], scores[0]):
                raise OpError("The first dimension of both 'boxes' and 'scores' must match.", port="input 1")
            if not _compatible(boxes[1], scores[2]):
                raise OpError("'boxes' and 'scores' input shapes must match at the second and third dimension "
                              f"respectively. Boxes: {boxes}, Scores: {scores}", port="input 1")
        if not boxes[2].contains(4):
            raise OpError("The last dimension of the 'boxes' input must be equal to 4", port="input 0")


# ---------------------------------------------------------------------------------------------
# Kernel

def _corners(boxes: np.ndarray, center: bool) -> np.ndarray:
    """[..., 4] -> [..., 4] as (y1, x1, y2, x2) with y1 <= y2, x1 <= x2 (corner) in f32."""
    b = boxes.astype(F32)
    if center:
        xc, yc, w, h = np.moveaxis(b, -1, 0)
        hw, hh = w * F32(0.5), h * F32(0.5)
        return np.stack([yc - hh, xc - hw, yc + hh, xc + hw], axis=-1)
    ya, xa, yb, xb = np.moveaxis(b, -1, 0)
    return np.stack([np.minimum(ya, yb), np.minimum(xa, xb), np.maximum(ya, yb), np.maximum(xa, xb)], axis=-1)


def _iou(c: np.ndarray, area: np.ndarray, i, js: np.ndarray) -> np.ndarray:
    """IoU of box ``i`` (or boxes ``i``, pairwise) with every box in ``js`` (f32, NaN for two
    empty boxes)."""
    ih = np.maximum(np.minimum(c[js, 2], c[i, 2]) - np.maximum(c[js, 0], c[i, 0]), F32(0))
    iw = np.maximum(np.minimum(c[js, 3], c[i, 3]) - np.maximum(c[js, 1], c[i, 1]), F32(0))
    inter = ih * iw
    return inter / (area[js] + area[i] - inter)


#: Below this many candidates the box-by-box loop is as fast as finding overlapping pairs.
_FEW = 256
#: Pairs of nearby boxes looked at in one NumPy expression; above ``_PAIRS_PER_BOX`` per box or
#: ``_MAX_PAIRS`` in all (boxes overlap most others) the box-by-box loop, which then suppresses
#: most candidates with each selection, is faster.
_CHUNK, _PAIRS_PER_BOX, _MAX_PAIRS = 1 << 20, 256, 1 << 26


def _suppressing_pairs(c: np.ndarray, area: np.ndarray, thr: F32) -> tuple[np.ndarray, np.ndarray] | None:
    """Every pair (p, q), p < q, of boxes (in score order) with IoU >= ``thr`` > 0, or None when
    too many boxes overlap. Only boxes of positive area that intersect can reach a positive
    threshold (others have IoU 0 or NaN), so boxes are hashed by corner into a grid of cells as
    big as most boxes: such a box meets only boxes of its own and the 8 neighbouring cells; the
    few bigger (or non-finite) boxes are paired with every box. The IoU is the same f32
    expression as :func:`_iou` (symmetric bit for bit), so the results are unchanged."""
    live = np.flatnonzero(area > 0)
    if live.size < 2:
        return np.zeros(0, np.intp), np.zeros(0, np.intp)
    cl = c[live].astype(np.float64)
    ext = np.maximum(cl[:, 2] - cl[:, 0], cl[:, 3] - cl[:, 1])
    fin = np.isfinite(cl).all(axis=1)
    quant = min(max(1 - 16 / live.size, 0.9), 1.0)  # ~16 boxes bigger than a cell
    size = float(np.quantile(ext[fin], quant)) if fin.any() else 0.0
    if not size > 0:
        return None
    g = np.floor((cl[:, :2] - cl[fin, :2].min(axis=0)) / size) if fin.any() else cl[:, :2]
    big = ~fin | (ext > size) | (g > 1 << 30).any(axis=1)
    small = np.flatnonzero(~big)
    key = g[small, 0].astype(np.int64) * (1 << 31) + g[small, 1].astype(np.int64)
    srt = np.argsort(key, kind="stable")
    small, key = small[srt], key[srt]
    keys, starts, sizes = np.unique(key, return_index=True, return_counts=True)
    blocks = []                            # (first boxes, their counts, second boxes, counts)
    for dy, dx in ((0, 0), (0, 1), (1, -1), (1, 0), (1, 1)):
        at = np.searchsorted(keys, keys + dy * (1 << 31) + dx)
        ok = np.flatnonzero(at < len(keys))
        ok = ok[keys[at[ok]] == keys[ok] + dy * (1 << 31) + dx]
        blocks.append((starts[ok], sizes[ok], starts[at[ok]], sizes[at[ok]]))
    nb = np.flatnonzero(big)
    total = sum(int((a * b).sum()) for _, a, _, b in blocks) + nb.size * live.size
    if total > min(_MAX_PAIRS, _PAIRS_PER_BOX * len(c)):
        return None
    ps, qs = [], []

    cl, al = np.ascontiguousarray(c[live]), area[live]

    def pairs(i, j):
        for k in range(0, i.size, _CHUNK):
            a, b = i[k:k + _CHUNK], j[k:k + _CHUNK]
            ca, cb = cl[a], cl[b]                      # one gather per box row
            ih = np.maximum(np.minimum(cb[:, 2], ca[:, 2]) - np.maximum(cb[:, 0], ca[:, 0]), F32(0))
            iw = np.maximum(np.minimum(cb[:, 3], ca[:, 3]) - np.maximum(cb[:, 1], ca[:, 1]), F32(0))
            inter = ih * iw
            keep = (a != b) & (inter / (al[b] + al[a] - inter) >= thr)    # as _iou
            a, b = live[a[keep]], live[b[keep]]
            ps.append(np.minimum(a, b))
            qs.append(np.maximum(a, b))

    for s1, n1, s2, n2 in blocks:           # all products of the paired cells
        cnt = n1 * n2
        first = np.repeat(np.arange(cnt.size), cnt)
        t = np.arange(first.size) - np.repeat(np.cumsum(cnt) - cnt, cnt)
        d, r = np.divmod(t, n2[first])
        pairs(small[s1[first] + d], small[s2[first] + r])
    if nb.size:
        pairs(np.repeat(nb, live.size), np.tile(np.arange(live.size), nb.size))
    p, q = np.concatenate(ps), np.concatenate(qs)
    u = np.unique(p.astype(np.int64) * len(c) + q)     # a big box meets another big one twice
    return u // len(c), u % len(c)


def _greedy(n: int, p: np.ndarray, q: np.ndarray, max_out: int) -> list[int]:
    """Keep boxes 0..n-1 in order unless a kept box before them suppresses them (pairs p -> q)."""
    by_p = np.argsort(p, kind="stable")
    q = q[by_p]
    starts = np.searchsorted(p[by_p], np.arange(n + 1))
    dead = np.zeros(n, bool)
    kept: list[int] = []
    for r in range(n):
        if dead[r]:
            continue
        kept.append(r)
        if len(kept) >= max_out:
            break
        dead[q[starts[r]:starts[r + 1]]] = True
    return kept


def _one_class(c: np.ndarray, area: np.ndarray, scores: np.ndarray, max_out: int, iou_thr: F32,
               score_thr: F32, sigma: F32) -> tuple[list[int], list[F32]]:
    """Selected box indices and their (possibly decayed) scores, in selection order."""
    cand = np.flatnonzero(scores > score_thr)
    order = cand[np.lexsort((cand, -scores[cand]))]          # score desc, index asc
    picked: list[int] = []
    if sigma <= 0 and iou_thr > 0 and order.size > _FEW:
        pairs = _suppressing_pairs(c[order], area[order], iou_thr)
        if pairs is not None:
            picked = [int(order[r]) for r in _greedy(order.size, *pairs, max_out)]
            return picked, [scores[i] for i in picked]
    if sigma <= 0:
        while order.size and len(picked) < max_out:
            i, rest = int(order[0]), order[1:]
            picked.append(i)
            order = rest[~(_iou(c, area, i, rest) >= iou_thr)]
        return picked, [scores[i] for i in picked]
    scale = F32(-0.5) / sigma
    kept: list[F32] = []
    heap = [(-scores[i], int(i), 0) for i in order]           # already a valid heap (sorted)
    while heap and len(picked) < max_out:
        neg, i, begin = heapq.heappop(heap)
        orig = score = F32(-neg)
        if begin < len(picked):
            js = np.array(picked[begin:][::-1])                   # newest selection first
            iou = _iou(c, area, i, js)
            for w in np.exp(scale * iou * iou).astype(F32):
                score = F32(score * w)
            if score <= score_thr:
                continue
        if score == orig:
            picked.append(i)
            kept.append(score)
        else:
            heapq.heappush(heap, (-score, i, len(picked)))
    return picked, kept


def nms(boxes: np.ndarray, scores: np.ndarray, max_out: int, iou_thr: float, score_thr: float,
        sigma: float, center: bool, sort_desc: bool) -> tuple[np.ndarray, np.ndarray]:
    """All selections as ([k, 3] int64 (batch, class, box), [k, 3] f32 (batch, class, score)).
    Non-finite coordinates give NaN IoUs (which suppress nothing), silently."""
    with np.errstate(all="ignore"):
        return _nms(boxes, scores, max_out, iou_thr, score_thr, sigma, center, sort_desc)


def _nms(boxes, scores, max_out, iou_thr, score_thr, sigma, center, sort_desc):
    n_batch, n_cls, n_box = scores.shape
    max_out = min(max_out, n_box)
    corners = _corners(boxes, center)
    area = (corners[..., 2] - corners[..., 0]) * (corners[..., 3] - corners[..., 1])
    sc = scores.astype(F32)
    rows, vals = [], []
    for b in range(n_batch):
        for k in range(n_cls):
            idx, s = _one_class(corners[b], area[b], sc[b, k], max_out, F32(iou_thr), F32(score_thr), F32(sigma))
            rows += [(b, k, i) for i in idx]
            vals += s
    ind = np.array(rows, np.int64).reshape(-1, 3)
    sco = np.array(vals, F32)
    if sort_desc and len(rows):
        perm = np.lexsort((ind[:, 2], ind[:, 1], ind[:, 0], -sco))
        ind, sco = ind[perm], sco[perm]
    return ind, np.column_stack([ind[:, :2].astype(F32), sco]).reshape(-1, 3)


# ---------------------------------------------------------------------------------------------

class _NMS(Op):
    """Shared by every version; ``version_no`` selects the shape rule and the outputs."""
    category = "detection"

    version_no = 1
    num_inputs = (2, 5)
    attrs = {"box_encoding": Attr("enum", "corner", choices=("corner", "center")),
             "sort_result_descending": Attr("bool", True)}

    @property
    def out_type(self):
        return getattr(self, "output_type", TYPES["i64"])

    def infer(self, inputs):
        one_d = self.version_no >= 5
        _check_shapes([t.shape for t in inputs], one_d)
        for i, t in enumerate(inputs):
            if i != 2:
                require_numeric(t, self.type, f"input {i}")
            if one_d and i != 2 and t.etype.name not in _FLOATS:
                raise OpError(f"Expected bf16, fp16 or fp32 as element type for the "
                              f"'{'score_threshold_ps' if i == 4 else _NAMES[i]}' input.", port=f"input {i}")
        if self.out_type.name not in ("i32", "i64"):
            raise OpError("Output type must be i32 or i64")
        rows = selected_rows(self.version_no, inputs[0].shape, inputs[1].shape,
                             max_boxes(inputs, 0 if self.version_no < 5 else None))
        if self.version_no < 5:
            return [TensorInfo(self.out_type, PartialShape([rows, 3]))]
        return [TensorInfo(self.out_type, PartialShape([rows, 3])), TensorInfo(TYPES["f32"], PartialShape([rows, 3])),
                TensorInfo(self.out_type, PartialShape([1]))]

    def run(self, boxes, scores, *rest):
        _check_shapes([PartialShape(a.shape) for a in (boxes, scores, *rest)], self.version_no >= 5)
        scalar = lambda i, default: rest[i - 2].reshape(-1)[0] if len(rest) > i - 2 else default  # noqa: E731
        max_out = int(as_int64(np.asarray(scalar(2, 0))))
        if max_out < 0:
            raise OpError(f"max_output_boxes_per_class is {max_out}: OpenVINO cannot run a negative value "
                          "(its CPU plugin fails: \"Cannot get dims for non static shape\")",
                          port="input 2", openvino_loads=True)
        ind, sco = nms(boxes, scores, max_out, float(scalar(3, 0.0)), float(scalar(4, 0.0)),
                       float(scalar(5, 0.0)), self.box_encoding == "center", self.sort_result_descending)
        dt = self.out_type.dtype
        if self.version_no >= 5:
            return [ind.astype(dt), sco, np.array([len(ind)], dt)]
        size = selected_rows(self.version_no, PartialShape(boxes.shape), PartialShape(scores.shape), max_out).lo
        out = np.full((size, 3), -1, dt)
        out[:min(size, len(ind))] = ind[:size]
        return [out]


@register
class NonMaxSuppression1(_NMS):
    """NMS-1: output i64 [min(num_boxes, max * num_classes), 3], padded with -1."""

    type, version = "NonMaxSuppression", "opset1"
    spec = spec_url("sort/non-max-suppression-1")
    restrictions = ("v1/v3/v4: the output keeps OpenVINO's static size (padded with -1, or cut), where "
                    "the CPU plugin returns every selected row")


@register
class NonMaxSuppression3(NonMaxSuppression1):
    """NMS-3 adds ``output_type``."""

    version, version_no = "opset3", 3
    spec = spec_url("sort/non-max-suppression-3")
    attrs = {**_NMS.attrs, "output_type": Attr("etype", TYPES["i64"])}


@register
class NonMaxSuppression4(NonMaxSuppression3):
    """NMS-4: output [min(num_boxes, max) * num_batches * num_classes, 3], padded with -1."""

    version, version_no = "opset4", 4
    spec = spec_url("sort/non-max-suppression-4")


@register
class NonMaxSuppression5(_NMS):
    """NMS-5: Soft-NMS sigma input; outputs selected_indices, selected_scores, valid_outputs."""

    type, version, version_no = "NonMaxSuppression", "opset5", 5
    spec = spec_url("sort/no-max-suppression-5")
    num_inputs = (2, 6)
    attrs = {**_NMS.attrs, "output_type": Attr("etype", TYPES["i64"])}


@register
class NonMaxSuppression9(NonMaxSuppression5):
    """NMS-9: as NMS-5."""

    version, version_no = "opset9", 9
    spec = spec_url("sort/non-max-suppression-9")
