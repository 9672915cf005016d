"""ONNX forms of SSD's detection ops: PriorBox-1/8 and PriorBoxClustered-1 as grid arithmetic
on their (possibly run-time) size inputs, DetectionOutput-1/8 as decode + per-class
NonMaxSuppression + top-k.

The formulas are irrun's kernels' (:mod:`irrun.ops.prior_box`, :mod:`irrun.ops.detection_output`),
which follow OpenVINO's, in the same f32 operation order. DetectionOutput's Caffe semantics map
onto ONNX NonMaxSuppression exactly: a candidate needs a score **>** the confidence threshold
and is dropped when its overlap with a kept box is **>** the NMS threshold (ONNX Runtime tests
both strictly, measured), candidates are taken best first with ties by the lower prior (TopK
and NonMaxSuppression in ONNX Runtime both break ties by the lower index, measured). Each
(image, class) pair is one NonMaxSuppression batch over its ``top_k`` best priors, so the
selections come out per image, per class, best first — the output's row order. ``keep_top_k``
ranks an image's selections by score (ties: lower prior) with stable sorts (TopK) and keeps the
best. One difference remains for degenerate boxes (xmax < xmin): ONNX Runtime orders the corners
before measuring the overlap, OpenVINO does not.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .emitter import Call, Emitter, Unexpressible, onnx_type, onnx_type_named
from .table import converts

F32 = np.float32


def _f32(e: Emitter, x: float) -> str:
    return e.const(np.asarray(x, F32))


def _i64(e: Emitter, x: int) -> str:
    return e.const(np.asarray(x, np.int64))


def _pair(e: Emitter, name: str) -> tuple[str, str]:
    """(first, second) of a 2-element size input, as f32 scalars ([H, W] -> H, W)."""
    v = e.one("Cast", [name], to=onnx_type_named("INT64"))
    v = e.one("Cast", [e.one("Reshape", [v, e.ints([-1])])], to=onnx_type_named("FLOAT"))
    return (e.one("Gather", [v, _i64(e, 0)], axis=0), e.one("Gather", [v, _i64(e, 1)], axis=0))


def _count(e: Emitter, name: str) -> str:
    """``arange(n)`` as f32 for the f32 scalar ``n`` (a grid dim)."""
    n = e.one("Cast", [name], to=onnx_type_named("INT64"))
    return e.one("Cast", [e.one("Range", [_i64(e, 0), n, _i64(e, 1)])], to=onnx_type_named("FLOAT"))


def _grid(e: Emitter, x0: str, y0: str, x1: str, y1: str, h: str, w: str, priors: int,
          clip: bool, variance: list[float], output: str) -> None:
    """The [2, H*W*P*4] output: corners [1,W,P] / [H,1,P] broadcast over the grid (row-major,
    prior last), clipped to [0, 1] when asked, then the variances tiled."""
    shape = e.one("Concat", [e.one("Reshape", [e.one("Cast", [d], to=onnx_type_named("INT64")), e.ints([1])])
                             for d in (h, w)] + [e.ints([priors])], axis=0)
    parts = [e.one("Unsqueeze", [e.one("Expand", [v, shape]), e.ints([-1])]) for v in (x0, y0, x1, y1)]
    boxes = e.one("Reshape", [e.one("Concat", parts, axis=-1), e.ints([1, -1])])
    if clip:
        boxes = e.one("Clip", [boxes, _f32(e, 0.0), _f32(e, 1.0)])
    var = np.asarray(variance or [0.1], F32)
    size = e.one("Shape", [boxes])
    if var.size == 1:
        variances = e.one("Expand", [e.const(var.reshape(1, 1)), size])
    else:
        reps = e.one("Div", [size, e.ints([1, var.size])])
        variances = e.one("Tile", [e.const(var.reshape(1, -1)), reps])
    e.one("Concat", [boxes, variances], output, axis=0)


@converts("PriorBox")
def prior_box(e: Emitter, c: Call) -> None:
    """The anchor grid from the output and image sizes, run-time ones included: cell centres
    from ``step`` (or image / grid size), one (offset, half size, clip) row per prior from the
    attributes. ``scale_all_sizes=false`` (MXNet) needs a constant image height."""
    op = c.op
    n = op.num_priors()
    ih_value = None
    if not op.scale_all_sizes:
        img = c.in_info[1].value
        if img is None:
            raise Unexpressible("scale_all_sizes=false with a run-time image size (the priors' sizes depend on it)")
        ih_value = int(np.asarray(img).reshape(-1)[0])
    rows = op.prior_rows(ih_value if ih_value is not None else 1)
    if len(rows) != n:
        raise Unexpressible(f"the kernel writes {len(rows)} boxes per cell into an output sized for {n}")
    h, w = _pair(e, c.inputs[0])
    ih, iw = _pair(e, c.inputs[1])
    step, step_name = float(F32(op.step)), None
    if ih_value is not None:            # MXNet: the step scales with the image height too
        if step == -1:
            step_name = e.one("Div", [ih, h])
        else:
            step = float(F32(step) * F32(ih_value))
    if step_name is None and step == 0:
        cx = e.one("Mul", [e.one("Add", [_count(e, w), _f32(e, 0.5)]), e.one("Div", [iw, w])])
        cy = e.one("Mul", [e.one("Add", [_count(e, h), _f32(e, 0.5)]), e.one("Div", [ih, h])])
    else:
        step_name = step_name or _f32(e, step)
        cx = e.one("Mul", [e.one("Add", [_f32(e, op.offset), _count(e, w)]), step_name])
        cy = e.one("Mul", [e.one("Add", [_f32(e, op.offset), _count(e, h)]), step_name])
    ox, oy, bw, bh = (e.const(rows[:, i].astype(F32)) for i in range(4))
    side = rows[:, 4].astype(bool)
    cx = e.one("Add", [e.one("Unsqueeze", [cx, e.ints([0, 2])]), ox])          # [1, W, P]
    cy = e.one("Add", [e.one("Unsqueeze", [cy, e.ints([1, 2])]), oy])          # [H, 1, P]
    iwi, ihi = e.one("Div", [_f32(e, 1.0), iw]), e.one("Div", [_f32(e, 1.0), ih])
    x0, x1 = e.one("Mul", [e.one("Sub", [cx, bw]), iwi]), e.one("Mul", [e.one("Add", [cx, bw]), iwi])
    y0, y1 = e.one("Mul", [e.one("Sub", [cy, bh]), ihi]), e.one("Mul", [e.one("Add", [cy, bh]), ihi])
    if side.any():          # the fixed_size priors are clipped one-sidedly (NaN -> the bound)
        one = e.const(side)
        x0, y0 = (e.one("Where", [e.one("And", [one, e.one("Not", [e.one("Greater", [v, _f32(e, 0.0)])])]),
                                  _f32(e, 0.0), v]) for v in (x0, y0))
        x1, y1 = (e.one("Where", [e.one("And", [one, e.one("Not", [e.one("Less", [v, _f32(e, 1.0)])])]),
                                  _f32(e, 1.0), v]) for v in (x1, y1))
    _grid(e, x0, y0, x1, y1, h, w, n, op.clip, list(op.variance), c.outputs[0])


@converts("PriorBoxClustered")
def prior_box_clustered(e: Emitter, c: Call) -> None:
    """One box per (width, height) pair centred on each cell: centres ``(i + offset) * step``
    (step_w/step_h, else step, else image / grid size), corners divided by the image size."""
    op = c.op
    n = op.num_priors()
    h, w = _pair(e, c.inputs[0])
    ih, iw = _pair(e, c.inputs[1])
    sw, sh = F32(op.step_w or op.step), F32(op.step_h or op.step)
    if sw == 0 and sh == 0:
        step_w, step_h = e.one("Div", [iw, w]), e.one("Div", [ih, h])
    else:
        step_w, step_h = _f32(e, float(sw)), _f32(e, float(sh))
    cx = e.one("Mul", [e.one("Add", [_count(e, w), _f32(e, op.offset)]), step_w])
    cy = e.one("Mul", [e.one("Add", [_count(e, h), _f32(e, op.offset)]), step_h])
    cx, cy = e.one("Unsqueeze", [cx, e.ints([0, 2])]), e.one("Unsqueeze", [cy, e.ints([1, 2])])
    bw = e.const((np.asarray(op.width, F32) / F32(2)).astype(F32))
    bh = e.const((np.asarray(op.height, F32) / F32(2)).astype(F32))
    x0, x1 = (e.one("Div", [e.one(k, [cx, bw]), iw]) for k in ("Sub", "Add"))
    y0, y1 = (e.one("Div", [e.one(k, [cy, bh]), ih]) for k in ("Sub", "Add"))
    _grid(e, x0, y0, x1, y1, h, w, n, op.clip, list(op.variance), c.outputs[0])


def _corners(e: Emitter, x: str) -> list[str]:
    """The 4 coordinates of boxes [..., 4] as [..., 1] tensors."""
    return e.node("Split", [x], 4, axis=-1, num_outputs=4)


def _decode(e: Emitter, op, priors: str, var: str | None, loc: str) -> str:
    """irrun.ops.detection_output._decode in ONNX ops (same f32 operation order)."""
    if not op.normalized:
        priors = e.one("Div", [priors, e.const(np.asarray([op.input_width, op.input_height] * 2, F32))])
    lv = loc if var is None else e.one("Mul", [loc, var])
    if op.code_type.endswith("CORNER"):
        out = e.one("Add", [priors, lv])
    else:
        p0, p1, p2, p3 = _corners(e, priors)
        l0, l1, l2, l3 = _corners(e, lv)
        pw, ph = e.one("Sub", [p2, p0]), e.one("Sub", [p3, p1])
        two = _f32(e, 2.0)
        pcx, pcy = e.one("Div", [e.one("Add", [p0, p2]), two]), e.one("Div", [e.one("Add", [p1, p3]), two])
        cx, cy = e.one("Add", [e.one("Mul", [l0, pw]), pcx]), e.one("Add", [e.one("Mul", [l1, ph]), pcy])
        hw = e.one("Div", [e.one("Mul", [e.one("Exp", [l2]), pw]), two])
        hh = e.one("Div", [e.one("Mul", [e.one("Exp", [l3]), ph]), two])
        out = e.one("Concat", [e.one("Sub", [cx, hw]), e.one("Sub", [cy, hh]),
                               e.one("Add", [cx, hw]), e.one("Add", [cy, hh])], axis=-1)
    if op.clip_before_nms:
        out = e.one("Clip", [out, _f32(e, 0.0), _f32(e, 1.0)])
    return out


def _stable_order(e: Emitter, keys: list[tuple[str, bool]], count: str) -> str:
    """The permutation sorting ``count`` items by ``keys`` (most significant first; True:
    descending): stable TopK sorts from the least significant key (ties keep their order)."""
    order: str | None = None
    for key, descending in reversed(keys):
        k = key if order is None else e.one("Gather", [key, order], axis=0)
        _, perm = e.node("TopK", [k, count], 2, axis=0, largest=int(descending), sorted=1)
        order = perm if order is None else e.one("Gather", [order, perm], axis=0)
    if order is None:
        raise ValueError("no sort keys")
    return order


class _Picked(NamedTuple):
    """The NonMaxSuppression selections (``item``: the box or prior index), in its order: image,
    class, score descending, index."""

    image: str
    label: str
    score: str
    item: str
    box: str


def _class_nms(e: Emitter, conf: str, boxes: str, n_c: int, n_p: int, k: int, iou: float, least: float,
               nms_boxes: str | None = None, most: int | None = None) -> _Picked:
    """Per (image, class) the ``k`` best of ``conf`` [N, C, P] (ties: the lower index), through
    one ONNX NonMaxSuppression batch each (drops an IoU > ``iou``, keeps a score > ``least``, at
    most ``most``, default ``k``). ``boxes`` [N, 1 or C, P, 4] are the boxes returned,
    ``nms_boxes`` (default: the same) the ones overlaps are measured on."""
    scores, index = e.node("TopK", [conf, e.ints([k])], 2, axis=2, largest=1, sorted=1)   # [N, C, K]
    where = e.one("Expand", [e.one("Unsqueeze", [index, e.ints([-1])]),
                             e.one("Concat", [e.one("Shape", [index]), e.ints([4])], axis=0)])
    full = e.one("Concat", [e.one("Shape", [conf], start=0, end=1), e.ints([n_c, n_p, 4])], axis=0)

    def candidates(b: str) -> str:                                                     # [N, C, K, 4]
        return e.one("GatherElements", [e.one("Expand", [b, full]), where], axis=2)
    cand = candidates(boxes)
    measured = cand if nms_boxes is None else candidates(nms_boxes)
    selected = e.one("NonMaxSuppression", [e.one("Reshape", [measured, e.ints([-1, k, 4])]),
                                           e.one("Reshape", [scores, e.ints([-1, 1, k])]),
                                           e.ints([k if most is None else most]),
                                           e.const(np.asarray([iou], F32)), e.const(np.asarray([least], F32))])
    batch = e.one("Gather", [selected, _i64(e, 0)], axis=1)
    at = e.one("Add", [e.one("Mul", [batch, _i64(e, k)]), e.one("Gather", [selected, _i64(e, 2)], axis=1)])
    return _Picked(e.one("Div", [batch, _i64(e, n_c)]), e.one("Mod", [batch, _i64(e, n_c)]),
                   e.one("Gather", [e.one("Reshape", [scores, e.ints([-1])]), at], axis=0),
                   e.one("Gather", [e.one("Reshape", [index, e.ints([-1])]), at], axis=0),
                   e.one("Gather", [e.one("Reshape", [cand, e.ints([-1, 4])]), at], axis=0))


def _per_image(e: Emitter, image: str, images: str) -> str:
    """How many of the selections belong to each image ([N] int64)."""
    hot = e.one("OneHot", [image, images, e.ints([0, 1])], axis=-1)
    return e.one("ReduceSum", [hot, e.ints([0])], keepdims=0)


def _best_per_image(e: Emitter, image: str, keys: list[tuple[str, bool]], keep: int, images: str) -> str:
    """The mask of the selections that are among their image's best ``keep`` by ``keys``."""
    count = e.one("Shape", [image])
    order = _stable_order(e, [(image, False), *keys], count)
    sorted_image = e.one("Gather", [image, order], axis=0)
    starts = e.one("CumSum", [_per_image(e, sorted_image, images), _i64(e, 0)], exclusive=1)
    rank = e.one("Sub", [e.one("Range", [_i64(e, 0), e.one("Squeeze", [count, e.ints([0])]), _i64(e, 1)]),
                         e.one("Gather", [starts, sorted_image], axis=0)])
    return e.one("ScatterElements", [e.one("Expand", [e.const(np.asarray([False])), count]), order,
                                     e.one("Less", [rank, _i64(e, keep)])], axis=0)


@converts("DetectionOutput")
def detection_output(e: Emitter, c: Call) -> None:
    """Decode (CORNER / CENTER_SIZE, with ARM refinement), per (image, class) the ``top_k`` best
    priors through ONNX NonMaxSuppression, ``keep_top_k`` per image, rows
    [image, label, score, box] padded with zeros after a -1 row (see the module docstring)."""
    op = c.op
    if op.decrease_label_id:
        raise Unexpressible("decrease_label_id (MXNet: one best class per prior, top_k over the image) "
                            "is not written yet")
    size = 4 if op.normalized else 5
    loc_s, conf_s, pri_s = (c.in_info[i].shape for i in range(3))
    out_s = c.out_info[0].shape
    if not (pri_s.rank == 3 and pri_s[2].is_static and conf_s.rank == 2 and conf_s[1].is_static
            and out_s.is_static):
        raise Unexpressible("a run-time number of priors or classes, or an output of dynamic shape")
    n_p = pri_s[2].lo // size
    n_c = conf_s[1].lo // n_p
    n_l = 1 if op.share_location else n_c
    rows_out = out_s.to_tuple()[2]
    f32 = onnx_type_named("FLOAT")
    x = [e.one("Cast", [name], to=f32) for name in c.inputs]
    loc, conf, priors = x[:3]

    def per_class(v: str) -> str:              # [N, P*L*4] -> [N, L, P, 4]
        return e.one("Transpose", [e.one("Reshape", [v, e.ints([0, n_p, n_l, 4])])], perm=[0, 2, 1, 3])
    first = e.one("Slice", [priors, e.ints([0]), e.ints([1]), e.ints([1])])
    pr_all = e.one("Reshape", [first, e.ints([0, n_p, size])])                       # [Nb, P, size]
    pr = e.one("Unsqueeze", [e.one("Slice", [pr_all, e.ints([size - 4]), e.ints([size]), e.ints([2])]),
                             e.ints([1])])                                            # [Nb, 1, P, 4]
    var = None
    if not op.variance_encoded_in_target:
        second = e.one("Slice", [priors, e.ints([1, 0]), e.ints([2, n_p * 4]), e.ints([1, 2])])
        var = e.one("Reshape", [second, e.ints([0, 1, n_p, 4])])
    conf = e.one("Transpose", [e.one("Reshape", [conf, e.ints([0, n_p, n_c])])], perm=[0, 2, 1])   # [N, C, P]
    if len(x) == 5:
        arm = e.one("Gather", [e.one("Reshape", [x[3], e.ints([0, n_p, 2])]), _i64(e, 1)], axis=2)
        low = e.one("Unsqueeze", [e.one("Less", [arm, _f32(e, float(F32(op.objectness_score)))]), e.ints([1])])
        bg_row = (np.arange(n_c) == op.background_label_id).astype(F32).reshape(1, n_c, 1)
        conf = e.one("Where", [low, e.const(bg_row), conf])
        boxes = _decode(e, op, _decode(e, op, pr, var, per_class(x[4])), var, per_class(loc))
    else:
        boxes = _decode(e, op, pr, var, per_class(loc))                             # [N, L, P, 4]
    excluded = (np.arange(n_c) == op.background_label_id).reshape(1, n_c, 1)
    drop = e.const(excluded)
    if not op.normalized:           # an image id of -1 ends the prior list
        ids = e.one("Gather", [pr_all, _i64(e, 0)], axis=2)                          # [Nb, P]
        ended = e.one("CumSum", [e.one("Cast", [e.one("Equal", [ids, _f32(e, -1.0)])],
                                       to=onnx_type_named("INT32")), _i64(e, 1)])
        ended = e.one("Unsqueeze", [e.one("Greater", [ended, e.const(np.asarray(0, np.int32))]), e.ints([1])])
        drop = e.one("Or", [drop, ended])
    conf = e.one("Where", [drop, _f32(e, -np.inf), conf])
    k = n_p if op.top_k < 0 else min(op.top_k, n_p)
    picked = _class_nms(e, conf, boxes, n_c, n_p, k, float(F32(op.nms_threshold)), float(F32(op.confidence_threshold)))
    image, label, score, prior_id, box = picked
    keep = op.keep_top_k[0]
    if keep > -1:                  # an image's best keep_top_k by score, ties: the lower prior
        images = e.one("Slice", [e.one("Shape", [loc]), e.ints([0]), e.ints([1])])
        kept = _best_per_image(e, image, [(score, True), (prior_id, False)], keep, images)
        image, label, score, box = (e.one("Compress", [v, kept], axis=0) for v in (image, label, score, box))
    if op.clip_after_nms:
        box = e.one("Clip", [box, _f32(e, 0.0), _f32(e, 1.0)])
    cols = [e.one("Unsqueeze", [e.one("Cast", [v], to=f32), e.ints([1])]) for v in (image, label)]
    rows = e.one("Concat", cols + [e.one("Unsqueeze", [score, e.ints([1])]), box], axis=1)
    end = np.zeros((rows_out + 1, 7), F32)
    end[0, 0] = -1
    rows = e.one("Slice", [e.one("Concat", [rows, e.const(end)], axis=0), e.ints([0]), e.ints([rows_out])])
    out = e.one("Reshape", [rows, e.ints([1, 1, rows_out, 7])])
    e.one("Cast", [out], c.outputs[0], to=onnx_type(c.out_info[0].etype))


def _dims(e: Emitter, x: str, start: int, end: int) -> str:
    """``Shape(x)[start:end]`` (1-D int64)."""
    return e.one("Shape", [x], start=start, end=end)


def _within(e: Emitter, v: str, top: str, closed: bool) -> str:
    """``0 <= v <= top`` (``closed``) or ``0 <= v < top``, in f64 (sample positions)."""
    below = e.one("LessOrEqual" if closed else "Less", [v, top])
    return e.one("And", [e.one("GreaterOrEqual", [v, e.const(np.asarray(0.0))]), below])


def _grid_coordinate(e: Emitter, v: str, extent: str) -> str:
    """A pixel position on an axis of ``extent + 1`` pixels as GridSample's align_corners
    coordinate in [-1, 1] (f32)."""
    span = e.one("Max", [extent, e.const(np.asarray(1.0))])
    scaled = e.one("Div", [e.one("Mul", [v, e.const(np.asarray(2.0))]), span])
    return e.one("Cast", [e.one("Sub", [scaled, e.const(np.asarray(1.0))])], to=onnx_type_named("FLOAT"))


@converts("ROIPooling")
def roi_pooling(e: Emitter, c: Call) -> None:
    """``max``: ONNX MaxRoiPool (the Caffe kernel OpenVINO's is: rounded scaled corners, +1
    extent, floor/ceil bins clipped to the map, 0 for an empty bin). ``bilinear``: the sample
    points of each output pixel (normalised box corners over the map's [0, size-1], computed in
    f64 as OpenVINO's kernel does, so that the inside-the-map test agrees) through ONNX GridSample
    (align_corners), 0 outside the map."""
    op = c.op
    feat, rois = c.inputs
    ph, pw = op.pooled_h, op.pooled_w
    if op.method == "max":
        boxes = rois if c.in_info[1].etype == c.in_info[0].etype else \
            e.one("Cast", [rois], to=onnx_type(c.in_info[0].etype))
        e.one("MaxRoiPool", [feat, boxes], c.outputs[0], pooled_shape=[ph, pw],
              spatial_scale=float(F32(op.spatial_scale)))
        return
    f64, f32 = onnx_type_named("DOUBLE"), onnx_type_named("FLOAT")
    r = e.one("Cast", [e.one("Cast", [rois], to=f32)], to=f64)                        # the kernel's f32 boxes
    batch, x1, y1, x2, y2 = e.node("Split", [r], 5, axis=1, num_outputs=5)           # [R, 1] each
    size = e.one("Cast", [e.one("Sub", [_dims(e, feat, 2, 4), e.ints([1])])], to=f64)  # H-1, W-1
    hm1, wm1 = (e.one("Slice", [size, e.ints([i]), e.ints([i + 1])]) for i in (0, 1))

    def samples(a: str, b: str, n: int, extent: str) -> str:          # [R, n] pixel coordinates
        if n == 1:
            return e.one("Mul", [e.one("Mul", [e.const(np.asarray(0.5)), e.one("Add", [a, b])]), extent])
        step = e.one("Div", [e.one("Mul", [e.one("Sub", [b, a]), extent]), e.const(np.asarray(n - 1.0))])
        return e.one("Add", [e.one("Mul", [e.const(np.arange(n, dtype=np.float64).reshape(1, n)), step]),
                             e.one("Mul", [a, extent])])
    ys, xs = samples(y1, y2, ph, hm1), samples(x1, x2, pw, wm1)
    gy = e.one("Expand", [e.one("Unsqueeze", [_grid_coordinate(e, ys, hm1), e.ints([2])]), e.ints([1, 1, pw])])
    gx = e.one("Expand", [e.one("Unsqueeze", [_grid_coordinate(e, xs, wm1), e.ints([1])]), e.ints([1, ph, 1])])
    grid = e.one("Concat", [e.one("Unsqueeze", [gx, e.ints([3])]), e.one("Unsqueeze", [gy, e.ints([3])])], axis=3)
    mask = e.one("And", [e.one("Unsqueeze", [_within(e, ys, hm1, True), e.ints([2])]),
                         e.one("Unsqueeze", [_within(e, xs, wm1, True), e.ints([1])])])   # [R, ph, pw]
    maps = _roi_maps(e, feat, batch)
    pooled = e.one("GridSample", [maps, grid], mode="linear", padding_mode="zeros", align_corners=1)
    keep = e.one("Cast", [e.one("Unsqueeze", [mask, e.ints([1])])], to=onnx_type(c.out_info[0].etype))
    e.one("Mul", [pooled, keep], c.outputs[0])


@converts("ExperimentalDetectronTopKROIs")
def detectron_top_k_rois(e: Emitter, c: Call) -> None:
    """The ``max_rois`` most probable boxes (ties: the first; TopK keeps them in order), rows of
    zeros after the last box."""
    rois, probs = c.inputs
    k = c.op.max_rois
    n = e.one("Shape", [probs])
    count = e.one("Min", [n, e.ints([k])])
    _, order = e.node("TopK", [probs, count], 2, axis=0, largest=1, sorted=1)
    picked = e.one("Gather", [rois, order], axis=0)
    zeros = e.const(np.zeros((k, 4), c.in_info[0].etype.dtype))
    e.one("Slice", [e.one("Concat", [picked, zeros], axis=0), e.ints([0]), e.ints([k])], c.outputs[0])


@converts("ExperimentalDetectronPriorGridGenerator")
def detectron_prior_grid(e: Emitter, c: Call) -> None:
    """Each prior shifted to every cell centre ``stride * (i + 0.5)`` (stride: the attribute, else
    image size / grid size), as [H, W, P, 4] or flattened."""
    op = c.op
    priors, fmap, image = c.inputs
    f32 = onnx_type_named("FLOAT")
    grid = e.one("Cast", [_dims(e, fmap, 2, 4)], to=f32)
    fh, fw = (e.const(np.asarray([attr], F32)) if attr else e.one("Slice", [grid, e.ints([i]), e.ints([i + 1])])
              for i, attr in ((0, op.h), (1, op.w)))
    img = e.one("Cast", [_dims(e, image, 2, 4)], to=f32)
    sw = _f32(e, op.stride_x) if op.stride_x else e.one("Div", [e.one("Slice", [img, e.ints([1]), e.ints([2])]), fw])
    sh = _f32(e, op.stride_y) if op.stride_y else e.one("Div", [e.one("Slice", [img, e.ints([0]), e.ints([1])]), fh])

    def centres(n: str, stride: str) -> str:
        steps = e.one("Range", [_f32(e, 0.0), e.one("Squeeze", [n, e.ints([0])]), _f32(e, 1.0)])
        return e.one("Mul", [stride, e.one("Add", [steps, _f32(e, 0.5)])])
    sx = e.one("Reshape", [centres(fw, sw), e.ints([1, -1, 1, 1])])
    sy = e.one("Reshape", [centres(fh, sh), e.ints([-1, 1, 1, 1])])
    zx, zy = e.one("Mul", [sx, _f32(e, 0.0)]), e.one("Mul", [sy, _f32(e, 0.0)])
    shift = e.one("Concat", [e.one("Add", [sx, zy]), e.one("Add", [sy, zx])] * 2, axis=3)
    out = e.one("Add", [e.one("Cast", [priors], to=f32), shift])
    out = e.one("Cast", [out], to=onnx_type(c.out_info[0].etype))
    if op.flatten:
        e.one("Reshape", [out, e.ints([-1, 4])], c.outputs[0])
    else:
        e.one("Identity", [out], c.outputs[0])


@converts("ReorgYolo")
def reorg_yolo(e: Emitter, c: Call) -> None:
    """Channels a multiple of stride²: the memory read as ``[N, C/s², H, s, W, s]`` and transposed
    to ``[N, s, s, C/s², H, W]`` (OpenVINO's kernel); otherwise, for a static shape, OpenVINO's
    index map as a Gather."""
    s = c.op.s
    shape = c.in_info[0].shape
    ch = shape[1] if shape.rank == 4 else None
    if ch is not None and ch.is_static and ch.lo % (s * s) == 0:
        x = e.one("Reshape", [c.inputs[0], e.one("Concat", [
            _dims(e, c.inputs[0], 0, 1), e.ints([ch.lo // (s * s)]), _dims(e, c.inputs[0], 2, 3), e.ints([s]),
            _dims(e, c.inputs[0], 3, 4), e.ints([s])], axis=0)])
        x = e.one("Transpose", [x], perm=[0, 3, 5, 1, 2, 4])
        out = e.one("Concat", [_dims(e, c.inputs[0], 0, 1), e.ints([ch.lo * s * s]),
                               e.one("Div", [_dims(e, c.inputs[0], 2, 4), e.ints([s, s])])], axis=0)
        e.one("Reshape", [x, out], c.outputs[0])
        return
    if not shape.is_static:
        raise Unexpressible("channels not a multiple of stride² with a dynamic shape (the index map needs the shape)")
    from ..ops.region_yolo import reorg_index
    n, ch_n, h, w = shape.to_tuple()
    flat = e.one("Reshape", [c.inputs[0], e.ints([-1])])
    picked = e.one("Gather", [flat, e.const(reorg_index((n, ch_n, h, w), s).astype(np.int64))], axis=0)
    e.one("Reshape", [picked, e.ints([n, ch_n * s * s, h // s, w // s])], c.outputs[0])


@converts("RegionYolo")
def region_yolo(e: Emitter, c: Call) -> None:
    """OpenVINO's kernel on the flat input: its first N*regions*block*H*W elements as
    [N, regions, block, H, W] blocks: sigmoid of x, y (and the objectness; without softmax, of
    everything after the coordinates), softmax over the classes; the rest of the input after them
    (with softmax) unchanged; then the flattening of axis..end_axis."""
    op = c.op
    if c.rank(0) != 4:
        raise Unexpressible("an input of rank other than 4")
    x = c.inputs[0]
    et = c.in_info[0].etype
    work = et if et.name in ("f32", "f64") else None
    if work is None:
        x = e.one("Cast", [x], to=onnx_type_named("FLOAT"))
    dims = e.one("Shape", [x])
    need = op.regions * op.block
    size = e.one("ReduceProd", [e.one("Concat", [_dims(e, x, 0, 1), e.ints([need]), _dims(e, x, 2, 4)], axis=0)],
                 keepdims=1)
    flat = e.one("Reshape", [x, e.ints([-1])])
    head = e.one("Slice", [flat, e.ints([0]), size])
    blocks = e.one("Reshape", [head, e.one("Concat", [_dims(e, x, 0, 1), e.ints([op.regions, op.block]),
                                                      _dims(e, x, 2, 4)], axis=0)])

    def part(a: int, b: int) -> str:
        return e.one("Slice", [blocks, e.ints([a]), e.ints([b]), e.ints([2])])
    pieces = [e.one("Sigmoid", [part(0, 2)])]
    if op.coords > 2:
        pieces.append(part(2, op.coords))
    if op.do_softmax:
        pieces += [e.one("Sigmoid", [part(op.coords, op.coords + 1)])]
        if op.classes:
            pieces.append(e.one("Softmax", [part(op.coords + 1, op.block)], axis=2))
    else:
        pieces.append(e.one("Sigmoid", [part(op.coords, op.block)]))
    done = e.one("Reshape", [e.one("Concat", pieces, axis=2), e.ints([-1])])
    if op.do_softmax:
        done = e.one("Concat", [done, e.one("Slice", [flat, size, e.ints([np.iinfo(np.int64).max])])], axis=0)
        a, end = op.axis % 4, op.end_axis % 4
        hi = max(a, end) + 1
        parts = [e.one("Slice", [dims, e.ints([0]), e.ints([a])])] if a else []
        parts.append(e.one("ReduceProd", [e.one("Slice", [dims, e.ints([a]), e.ints([hi])])], keepdims=1))
        if hi < 4:
            parts.append(e.one("Slice", [dims, e.ints([hi]), e.ints([4])]))
        target = e.one("Concat", parts, axis=0) if len(parts) > 1 else parts[0]
    else:
        target = e.one("Concat", [_dims(e, x, 0, 1), e.ints([need]), _dims(e, x, 2, 4)], axis=0)
    out = e.one("Reshape", [done, target])
    if work is None:
        out = e.one("Cast", [out], to=onnx_type(et))
    e.one("Identity", [out], c.outputs[0])


@converts("DeformableConvolution")
def deformable_convolution(e: Emitter, c: Call) -> None:
    """ONNX DeformConv (offset_group = deformable_group, v8's mask). ONNX samples as
    ``bilinear_interpolation_pad=true`` does (a point within one pixel outside the map still
    interpolates with zeros); for OpenVINO's default (a point outside the map adds 0, one in the
    last pixel's cell takes that pixel) the offsets are rewritten first: points outside moved far
    away, points past the last row/column moved onto it."""
    op = c.op
    from ..types.shapes import Dim
    data, w = c.in_info[0].shape, c.in_info[2].shape
    if not (data.rank == 4 and w.rank == 4 and data.is_static and w[2].is_static and w[3].is_static):
        raise Unexpressible("data of dynamic shape or filters of dynamic spatial size")
    n, ch, h, wd = data.to_tuple()
    kh, kw = w[2].lo, w[3].lo
    pb, pe, sp = op.geometry([Dim.of(h), Dim.of(wd)], [Dim.of(kh), Dim.of(kw)])
    ho, wo = sp[0].lo, sp[1].lo
    f32 = onnx_type_named("FLOAT")
    et = c.in_info[0].etype
    x, offsets, weights = (name if c.in_info[i].etype.name == "f32" else e.one("Cast", [name], to=f32)
                           for i, name in enumerate(c.inputs[:3]))
    if not op.pad_mode:
        (sh, sw), (dh, dw) = op.strides, op.dilations
        taps = np.arange(kh * kw)
        base_y = (np.arange(ho)[None, :, None] * sh - pb[0] + (taps // kw)[:, None, None] * dh).astype(F32)
        base_x = (np.arange(wo)[None, None, :] * sw - pb[1] + (taps % kw)[:, None, None] * dw).astype(F32)
        full = (kh * kw, ho, wo)
        grid = np.stack([np.broadcast_to(base_y, full), np.broadcast_to(base_x, full)], axis=1)   # [K, 2, Ho, Wo]
        base = e.const(np.ascontiguousarray(grid).reshape(1, 1, kh * kw, 2, ho, wo))
        split = e.one("Reshape", [offsets, e.ints([0, op.deformable_group, kh * kw, 2, ho, wo])])
        at = e.one("Add", [base, split])
        limit = e.const(np.asarray([h, wd], F32).reshape(1, 1, 1, 2, 1, 1))
        outside = e.one("Or", [e.one("Less", [at, _f32(e, 0.0)]), e.one("GreaterOrEqual", [at, limit])])
        outside = e.one("ReduceMax", [e.one("Cast", [outside], to=onnx_type_named("INT32")), e.ints([3])],
                        keepdims=1)
        last = e.one("Min", [at, e.one("Sub", [limit, _f32(e, 1.0)])])
        moved = e.one("Where", [e.one("Cast", [outside], to=onnx_type_named("BOOL")), _f32(e, -1e6), last])
        offsets = e.one("Reshape", [e.one("Sub", [moved, base]), e.ints([0, -1, ho, wo])])
    ins = [x, weights, offsets]
    if len(c.inputs) > 3:
        ins += ["", c.inputs[3] if c.in_info[3].etype.name == "f32" else e.one("Cast", [c.inputs[3]], to=f32)]
    out = e.one("DeformConv", ins, dilations=list(op.dilations), group=op.group, kernel_shape=[kh, kw],
                offset_group=op.deformable_group, pads=list(pb) + list(pe), strides=list(op.strides))
    e.one("Cast", [out], c.outputs[0], to=onnx_type(et))


def _roi_maps(e: Emitter, feat: str, batch: str) -> str:
    """Each box's feature map [R, C, H, W] (the box's batch index, a float, as the index)."""
    index = e.one("Cast", [e.one("Squeeze", [batch, e.ints([1])])], to=onnx_type_named("INT64"))
    return e.one("Gather", [feat, index], axis=0)


def _round_half_away(e: Emitter, v: str) -> str:
    """``std::round`` (halves away from zero; ONNX Round rounds them to even)."""
    return e.one("Mul", [e.one("Sign", [v]), e.one("Floor", [e.one("Add", [e.one("Abs", [v]), _f32(e, 0.5)])])])


@converts("PSROIPooling")
def psroi_pooling(e: Emitter, c: Call) -> None:
    """``average``: per bin the mean of its channel over the bin's pixels (rounded box corners, +1
    end, scaled; floor/ceil bin edges clipped), as masked sums (Einsum) over the box's map; 0 for
    an empty bin. ``bilinear``: each output pixel the mean of its spatial bins' bilinear samples
    (positions in f64 as OpenVINO's kernel computes them, so that the inside-the-map test agrees),
    through ONNX GridSample (border: a point in the last pixel's cell takes that pixel), 0 outside."""
    op = c.op
    feat, rois = c.inputs
    g, d = op.group_size, op.output_dim
    f32, f64 = onnx_type_named("FLOAT"), onnx_type_named("DOUBLE")
    et = c.in_info[0].etype
    if et.name != "f32":
        feat = e.one("Cast", [feat], to=f32)
    boxes = e.one("Cast", [rois], to=f32)
    batch, *corners = e.node("Split", [boxes], 5, axis=1, num_outputs=5)              # [R, 1] each
    maps = _roi_maps(e, feat, batch)                                                  # [R, C, H, W]
    hw = _dims(e, feat, 2, 4)
    if op.mode == "average":
        s = _f32(e, float(F32(op.spatial_scale)))
        x1, y1, x2, y2 = (_round_half_away(e, v) for v in corners)
        x1, y1 = e.one("Mul", [x1, s]), e.one("Mul", [y1, s])
        x2, y2 = (e.one("Mul", [e.one("Add", [v, _f32(e, 1.0)]), s]) for v in (x2, y2))
        steps = e.const(np.arange(g + 1, dtype=F32).reshape(1, g + 1))

        def edges(a: str, b: str, size: str) -> tuple[str, str]:       # [R, G] bin starts and ends
            binsize = e.one("Div", [e.one("Sub", [b, a]), _f32(e, float(g))])
            at = e.one("Add", [a, e.one("Mul", [steps, binsize])])                    # [R, G+1]
            lo = e.one("Floor", [e.one("Slice", [at, e.ints([0]), e.ints([g]), e.ints([1])])])
            hi = e.one("Ceil", [e.one("Slice", [at, e.ints([1]), e.ints([g + 1]), e.ints([1])])])
            top = e.one("Cast", [size], to=f32)
            lo = e.one("Min", [e.one("Max", [lo, _f32(e, 0.0)]), e.one("Sub", [top, _f32(e, 1.0)])])
            return lo, e.one("Min", [hi, top])

        def mask(lo: str, hi: str, size: str) -> str:                  # [R, G, size] as f32
            pos = e.one("Cast", [e.one("Range", [_i64(e, 0), e.one("Squeeze", [size, e.ints([0])]), _i64(e, 1)])],
                        to=f32)
            pos = e.one("Reshape", [pos, e.ints([1, 1, -1])])
            lo3, hi3 = (e.one("Unsqueeze", [v, e.ints([2])]) for v in (lo, hi))
            inside = e.one("And", [e.one("GreaterOrEqual", [pos, lo3]), e.one("Less", [pos, hi3])])
            return e.one("Cast", [inside], to=f32)
        h_size, w_size = (e.one("Slice", [hw, e.ints([i]), e.ints([i + 1])]) for i in (0, 1))
        h0, h1 = edges(y1, y2, h_size)
        w0, w1 = edges(x1, x2, w_size)
        grouped = e.one("Reshape", [maps, e.one("Concat", [e.ints([0, d, g, g]), hw], axis=0)])
        sums = e.one("Einsum", [grouped, mask(h0, h1, h_size), mask(w0, w1, w_size)], equation="rdijhw,rih,rjw->rdij")
        rows = e.one("Unsqueeze", [e.one("Sub", [h1, h0]), e.ints([2])])
        cols = e.one("Unsqueeze", [e.one("Sub", [w1, w0]), e.ints([1])])
        count = e.one("Unsqueeze", [e.one("Mul", [e.one("Max", [rows, _f32(e, 0.0)]), e.one("Max", [cols, _f32(e, 0.0)])]),
                                    e.ints([1])])                                     # [R, 1, G, G]
        empty = e.one("LessOrEqual", [count, _f32(e, 0.0)])
        out = e.one("Where", [empty, _f32(e, 0.0), e.one("Div", [sums, e.one("Max", [count, _f32(e, 1.0)])])])
        e.one("Cast", [out], c.outputs[0], to=onnx_type(et))
        return
    bx, by = op.spatial_bins_x, op.spatial_bins_y
    s64 = e.const(np.asarray(float(F32(op.spatial_scale))))
    x1, y1, x2, y2 = (e.one("Mul", [e.one("Cast", [v], to=f64), s64]) for v in corners)
    extent = e.one("Cast", [e.one("Sub", [hw, e.ints([1])])], to=f64)
    hm1, wm1 = (e.one("Slice", [extent, e.ints([i]), e.ints([i + 1])]) for i in (0, 1))
    size64 = e.one("Cast", [hw], to=f64)
    h64, w64 = (e.one("Slice", [size64, e.ints([i]), e.ints([i + 1])]) for i in (0, 1))

    def positions(a: str, b: str, bins: int, extent: str) -> str:      # [R, bins, G] pixel positions
        binsize = e.one("Div", [e.one("Sub", [b, a]), e.const(np.asarray(float(bins)))])
        start = e.one("Add", [a, e.one("Mul", [e.const(np.arange(bins, dtype=np.float64).reshape(1, bins)), binsize])])
        start = e.one("Unsqueeze", [start, e.ints([2])])
        if g > 1:
            step = e.one("Div", [e.one("Mul", [binsize, extent]), e.const(np.asarray(g - 1.0))])
            step = e.one("Unsqueeze", [step, e.ints([2])])
            return e.one("Add", [e.one("Mul", [e.const(np.arange(g, dtype=np.float64).reshape(1, 1, g)), step]),
                                 e.one("Mul", [start, extent])])
        twice = e.one("Add", [e.one("Mul", [e.const(np.asarray(2.0)), start]), e.one("Unsqueeze", [binsize, e.ints([2])])])
        return e.one("Div", [e.one("Mul", [twice, extent]), e.const(np.asarray(2.0))])
    py, px = positions(y1, y2, by, hm1), positions(x1, x2, bx, wm1)                  # [R, by, G], [R, bx, G]
    full = e.ints([1, by, bx, g, g])
    gy = e.one("Expand", [e.one("Reshape", [_grid_coordinate(e, py, hm1), e.ints([0, by, 1, g, 1])]), full])
    gx = e.one("Expand", [e.one("Reshape", [_grid_coordinate(e, px, wm1), e.ints([0, 1, bx, 1, g])]), full])
    grid = e.one("Concat", [e.one("Unsqueeze", [v, e.ints([5])]) for v in (gx, gy)], axis=5)
    grid = e.one("Reshape", [grid, e.ints([-1, g, g, 2])])                             # [R*by*bx, G, G, 2]
    ok = e.one("And", [e.one("Reshape", [_within(e, py, h64, False), e.ints([0, by, 1, g, 1])]),
                       e.one("Reshape", [_within(e, px, w64, False), e.ints([0, 1, bx, 1, g])])])  # [R, by, bx, G, G]
    planes = e.one("Reshape", [maps, e.one("Concat", [e.ints([-1, d]), hw], axis=0)])  # [R*by*bx, D, H, W]
    sampled = e.one("GridSample", [planes, grid], mode="linear", padding_mode="border", align_corners=1)
    sampled = e.one("Reshape", [sampled, e.ints([-1, by, bx, d, g, g])])
    ok = e.one("Cast", [e.one("Unsqueeze", [ok, e.ints([3])])], to=f32)             # [R, by, bx, 1, G, G]
    total = e.one("ReduceSum", [e.one("Mul", [sampled, ok]), e.ints([1, 2])], keepdims=0)
    out = e.one("Div", [total, _f32(e, float(bx * by))])
    e.one("Cast", [out], c.outputs[0], to=onnx_type(et))


@converts("DeformablePSROIPooling")
def deformable_psroi_pooling(e: Emitter, c: Call) -> None:
    """OpenVINO's reference arithmetic in f32 (irrun/ops/deformable_psroi_pooling.py), every
    box, channel, bin and sub-bin sample at once ``[R, D, G, G, by, bx]``: the bin's top-left
    corner (moved by its part cell's offsets of its class group), the samples' positions, the
    four neighbours gathered from the flattened data by linear index, lerped as the kernel does
    (x first), averaged over the samples inside the map (0 when none); a box with a negative batch
    index gives 0. The offsets' channel count must be static (it picks the class groups)."""
    op = c.op
    g, d, part, bx, by = op.group_size, op.output_dim, op.part_size, op.spatial_bins_x, op.spatial_bins_y
    f32 = onnx_type_named("FLOAT")
    et = c.in_info[0].etype
    data = c.inputs[0] if et.name == "f32" else e.one("Cast", [c.inputs[0]], to=f32)
    boxes = e.one("Cast", [c.inputs[1]], to=f32)
    batch, *corners = e.node("Split", [boxes], 5, axis=1, num_outputs=5)              # [R, 1] each
    s = _f32(e, float(F32(op.spatial_scale)))
    half = _f32(e, 0.5)
    x1r, y1r, x2r, y2r = (_round_half_away(e, v) for v in corners)
    x1, y1 = (e.one("Sub", [e.one("Mul", [v, s]), half]) for v in (x1r, y1r))
    x2, y2 = (e.one("Sub", [e.one("Mul", [e.one("Add", [v, _f32(e, 1.0)]), s]), half]) for v in (x2r, y2r))
    rw, rh = (e.one("Max", [e.one("Sub", [b, a]), _f32(e, float(F32(0.1)))]) for a, b in ((x1, x2), (y1, y2)))

    def per_box(v: str) -> str:                                  # [R, 1] -> [R, 1, 1, 1]
        return e.one("Reshape", [v, e.ints([-1, 1, 1, 1])])
    bw, bh = (per_box(e.one("Div", [v, _f32(e, float(g))])) for v in (rw, rh))
    steps = np.arange(g, dtype=F32)
    left = e.one("Add", [per_box(x1), e.one("Mul", [e.const(steps.reshape(1, 1, 1, g)), bw])])   # [R, 1, 1, G]
    top = e.one("Add", [per_box(y1), e.one("Mul", [e.const(steps.reshape(1, 1, g, 1)), bh])])    # [R, 1, G, 1]
    if len(c.inputs) > 2 and c.inputs[2]:
        pairs = c.in_info[2].shape[1]
        if not pairs.is_static or pairs.lo < 2 or d % (pairs.lo // 2):
            raise Unexpressible(f"offsets with {pairs} channels (a static even count dividing output_dim is needed)")
        group = np.arange(d) // (d // (pairs.lo // 2))
        cell = np.arange(g) * part // g
        off = e.one("Cast", [c.inputs[2]], to=f32)

        def shift(channel: np.ndarray, size: str) -> str:          # [R, D, G, G] offset * trans_std * box size
            o = e.one("Gather", [off, e.const(channel.astype(np.int64))], axis=1)
            o = e.one("Gather", [e.one("Gather", [o, e.const(cell)], axis=2), e.const(cell)], axis=3)
            return e.one("Mul", [e.one("Mul", [o, _f32(e, float(F32(op.trans_std)))]), per_box(size)])
        left = e.one("Add", [left, shift(2 * group, rw)])
        top = e.one("Add", [top, shift(2 * group + 1, rh)])

    def samples(start: str, size: str, bins: int, axis: int) -> str:   # [R, ., G, G, by, bx] positions
        start = e.one("Unsqueeze", [start, e.ints([4, 5])])
        shape = [1, 1, 1, 1, 1, 1]
        shape[axis] = bins
        step = e.one("Div", [e.one("Unsqueeze", [size, e.ints([4, 5])]), _f32(e, float(bins))])
        return e.one("Add", [start, e.one("Mul", [e.const(np.arange(bins, dtype=F32).reshape(shape)), step])])
    py, px = samples(top, bh, by, 4), samples(left, bw, bx, 5)
    hw = _dims(e, data, 2, 4)
    hwf = e.one("Cast", [hw], to=f32)
    hf, wf = (e.one("Slice", [hwf, e.ints([i]), e.ints([i + 1])]) for i in (0, 1))

    def inside(v: str, size: str) -> str:                         # -0.5 <= v <= size - 0.5
        return e.one("And", [e.one("GreaterOrEqual", [v, _f32(e, -0.5)]),
                             e.one("LessOrEqual", [v, e.one("Sub", [size, half])])])
    ok = e.one("And", [inside(py, hf), inside(px, wf)])                              # [R, D, G, G, by, bx]

    def neighbours(v: str, size: str) -> tuple[str, str, str]:    # floor, ceil (int64), fraction
        v = e.one("Min", [e.one("Max", [v, _f32(e, 0.0)]), e.one("Sub", [size, _f32(e, 1.0)])])
        lo = e.one("Floor", [v])
        return (e.one("Cast", [lo], to=onnx_type_named("INT64")),
                e.one("Cast", [e.one("Ceil", [v])], to=onnx_type_named("INT64")), e.one("Sub", [v, lo]))
    t, b, dy = neighbours(py, hf)
    l_, r, dx = neighbours(px, wf)
    h, w = (e.one("Slice", [hw, e.ints([i]), e.ints([i + 1])]) for i in (0, 1))
    index = e.one("Cast", [e.one("Squeeze", [batch, e.ints([1])])], to=onnx_type_named("INT64"))
    negative = e.one("Less", [per_box(e.one("Unsqueeze", [index, e.ints([1])])), _i64(e, 0)])       # [R, 1, 1, 1]
    index = e.one("Max", [index, _i64(e, 0)])
    channel = e.const(np.arange(d * g * g, dtype=np.int64).reshape(1, d, g, g))
    plane = e.one("Add", [e.one("Mul", [per_box(e.one("Unsqueeze", [index, e.ints([1])])), _i64(e, d * g * g)]),
                          channel])                                                 # [R, D, G, G]
    plane = e.one("Mul", [e.one("Mul", [e.one("Unsqueeze", [plane, e.ints([4, 5])]), h]), w])
    flat = e.one("Reshape", [data, e.ints([-1])])

    def at(row: str, col: str) -> str:
        return e.one("Gather", [flat, e.one("Add", [plane, e.one("Add", [e.one("Mul", [row, w]), col])])], axis=0)
    tl, tr, bl, br = at(t, l_), at(t, r), at(b, l_), at(b, r)
    upper = e.one("Add", [tl, e.one("Mul", [e.one("Sub", [tr, tl]), dx])])
    lower = e.one("Add", [bl, e.one("Mul", [e.one("Sub", [br, bl]), dx])])
    value = e.one("Add", [upper, e.one("Mul", [e.one("Sub", [lower, upper]), dy])])
    zero = _f32(e, 0.0)
    total = e.one("ReduceSum", [e.one("Where", [ok, value, zero]), e.ints([4, 5])], keepdims=0)
    count = e.one("ReduceSum", [e.one("Cast", [ok], to=f32), e.ints([4, 5])], keepdims=0)
    mean = e.one("Where", [e.one("Greater", [count, zero]), e.one("Div", [total, e.one("Max", [count, _f32(e, 1.0)])]),
                           zero])
    out = e.one("Where", [negative, zero, mean])
    e.one("Cast", [out], c.outputs[0], to=onnx_type(et))


def _below(v: float) -> float:
    """The f32 just below ``v``: ``x >= v`` is ``x > _below(v)`` for f32 ``x`` (ONNX
    NonMaxSuppression's tests are strict, MulticlassNms' are not)."""
    return float(np.nextafter(F32(v), F32(-np.inf)))


@converts("MulticlassNms")
def multiclass_nms(e: Emitter, c: Call) -> None:
    """Shared boxes [N, M, 4]: per (image, class) the best ``nms_top_k`` with a score >=
    ``score_threshold`` through ONNX NonMaxSuppression (thresholds moved one f32 down: OpenVINO
    drops an IoU >= the threshold and keeps a score >= it; ``normalized=false``'s +1 on widths
    and heights as boxes grown by 1 at their far corner), the best ``keep_top_k`` per image by
    score (ties: class, index), then the order ``sort_result_type`` / ``sort_result_across_batch``
    ask for. OpenVINO treats scores within 1e-6 as equal when it sorts; this export does not."""
    op = c.op
    if len(c.inputs) > 2:
        raise Unexpressible("per-class boxes with roisnum (MulticlassNms-9's second form) are not written yet")
    if op.nms_eta < 1:
        raise Unexpressible("nms_eta < 1 (a threshold that shrinks after each kept box) has no ONNX form")
    if op.iou_threshold <= 0:
        raise Unexpressible("iou_threshold <= 0: OpenVINO then also drops boxes that do not overlap")
    n_p, n_c = _shared_boxes(c)
    f32 = onnx_type_named("FLOAT")
    boxes = e.one("Unsqueeze", [e.one("Cast", [c.inputs[0]], to=f32), e.ints([1])])     # [N, 1, M, 4]
    conf = e.one("Cast", [c.inputs[1]], to=f32)
    if 0 <= op.background_class < n_c:
        drop = e.const((np.arange(n_c) == op.background_class).reshape(1, n_c, 1))
        conf = e.one("Where", [drop, _f32(e, -np.inf), conf])
    grown = None if op.normalized else e.one("Add", [boxes, e.const(np.asarray([0, 0, 1, 1], F32))])
    k = n_p if op.nms_top_k < 0 else min(op.nms_top_k, n_p)
    image, label, score, index, box = _class_nms(e, conf, boxes, n_c, n_p, k, _below(op.iou_threshold),
                                                 _below(op.score_threshold), grown)
    images = e.one("Shape", [c.inputs[0]], start=0, end=1)
    if op.keep_top_k > -1:
        kept = _best_per_image(e, image, [(score, True), (label, False), (index, False)], op.keep_top_k, images)
        image, label, score, index, box = (e.one("Compress", [v, kept], axis=0)
                                           for v in (image, label, score, index, box))
    _nms_outputs(e, c, _Picked(image, label, score, index, box), n_p, images, op.sort_result_type == "classid")


def _nms_outputs(e: Emitter, c: Call, p: _Picked, n_p: int, images: str, classid_per_image: bool) -> None:
    """MulticlassNms' and MatrixNms' outputs from their selections (the best per image already
    cut): rows [class, score, box] in the order ``sort_result_type`` / ``sort_result_across_batch``
    ask for (ties: the lower box index), the flat box index ``image * M + box`` and the count per image."""
    op = c.op
    if op.sort_result_across_batch and op.sort_result_type != "none":
        keys = [(p.label, False), (p.image, False), (p.score, True)] if op.sort_result_type == "classid" else \
            [(p.score, True), (p.image, False), (p.label, False)]
    else:
        keys = [(p.image, False), (p.label, False), (p.score, True)] if classid_per_image else \
            [(p.image, False), (p.score, True), (p.label, False)]
    order = _stable_order(e, keys + [(p.item, False)], e.one("Shape", [p.image]))
    image, label, score, item, box = (e.one("Gather", [v, order], axis=0) for v in p)
    f32 = onnx_type_named("FLOAT")
    rows = e.one("Concat", [e.one("Unsqueeze", [e.one("Cast", [label], to=f32), e.ints([1])]),
                            e.one("Unsqueeze", [score, e.ints([1])]), box], axis=1)
    e.one("Cast", [rows], c.outputs[0], to=onnx_type(c.out_info[0].etype))
    it = onnx_type(op.output_type)
    flat = e.one("Add", [e.one("Mul", [image, _i64(e, n_p)]), item])
    e.one("Cast", [e.one("Unsqueeze", [flat, e.ints([1])])], c.outputs[1], to=it)
    e.one("Cast", [_per_image(e, image, e.one("Squeeze", [images, e.ints([0])]))], c.outputs[2], to=it)


def _shared_boxes(c: Call) -> tuple[int, int]:
    """(boxes M, classes C) of boxes [N, M, 4] shared by scores [N, C, M]: static here."""
    b_s, s_s = c.in_info[0].shape, c.in_info[1].shape
    if not (b_s.rank == 3 and s_s.rank == 3 and b_s[1].is_static and s_s[1].is_static):
        raise Unexpressible("a run-time number of boxes or classes")
    return b_s[1].lo, s_s[1].lo


@converts("MatrixNms")
def matrix_nms(e: Emitter, c: Call) -> None:
    """Per (image, class) the best ``nms_top_k`` candidates with a score > ``score_threshold``;
    their IoU matrix; each score times the smallest decay over the better candidates (linear
    ``(1 - iou) / (1 - max_iou + 1e-10)`` or gaussian ``exp((max_iou² - iou²) * sigma)``, at most
    1), kept when > ``post_threshold``; then as MulticlassNms: the best ``keep_top_k`` per image
    (score, class, index) and the requested order."""
    op = c.op
    n_p, n_c = _shared_boxes(c)
    f32 = onnx_type_named("FLOAT")
    boxes = e.one("Cast", [c.inputs[0]], to=f32)                                      # [N, M, 4]
    conf = e.one("Cast", [c.inputs[1]], to=f32)
    if 0 <= op.background_class < n_c:
        drop = e.const((np.arange(n_c) == op.background_class).reshape(1, n_c, 1))
        conf = e.one("Where", [drop, _f32(e, -np.inf), conf])
    k = n_p if op.nms_top_k < 0 else min(op.nms_top_k, n_p)
    scores, item = e.node("TopK", [conf, e.ints([k])], 2, axis=2, largest=1, sorted=1)   # [N, C, K]
    valid = e.one("Greater", [scores, _f32(e, float(F32(op.score_threshold)))])
    where = e.one("Expand", [e.one("Unsqueeze", [item, e.ints([-1])]),
                             e.one("Concat", [e.one("Shape", [item]), e.ints([4])], axis=0)])
    full = e.one("Concat", [e.one("Shape", [conf], start=0, end=1), e.ints([n_c, n_p, 4])], axis=0)
    cand = e.one("GatherElements", [e.one("Expand", [e.one("Unsqueeze", [boxes, e.ints([1])]), full]), where],
                 axis=2)                                                              # [N, C, K, 4]
    x0, y0, x1, y1 = _corners(e, cand)                                                # [N, C, K, 1]
    norm = _f32(e, 0.0 if op.normalized else 1.0)
    t = [e.one("Transpose", [v], perm=[0, 1, 3, 2]) for v in (x0, y0, x1, y1)]       # [N, C, 1, K]
    inverted = e.one("Or", [e.one("Less", [x1, x0]), e.one("Less", [y1, y0])])
    area = e.one("Where", [inverted, _f32(e, 0.0), e.one("Mul", [e.one("Add", [e.one("Sub", [x1, x0]), norm]),
                                                                  e.one("Add", [e.one("Sub", [y1, y0]), norm])])])
    disjoint = e.one("Or", [e.one("Or", [e.one("Greater", [t[0], x1]), e.one("Less", [t[2], x0])]),
                            e.one("Or", [e.one("Greater", [t[1], y1]), e.one("Less", [t[3], y0])])])
    iw = e.one("Add", [e.one("Sub", [e.one("Min", [x1, t[2]]), e.one("Max", [x0, t[0]])]), norm])
    ih = e.one("Add", [e.one("Sub", [e.one("Min", [y1, t[3]]), e.one("Max", [y0, t[1]])]), norm])
    inter = e.one("Mul", [iw, ih])
    union = e.one("Sub", [e.one("Add", [area, e.one("Transpose", [area], perm=[0, 1, 3, 2])]), inter])
    iou = e.one("Where", [disjoint, _f32(e, 0.0), e.one("Div", [inter, union])])     # [N, C, K, K]
    below = e.const(np.tril(np.ones((k, k), bool), -1))                               # j < i
    iou = e.one("Where", [below, iou, _f32(e, 0.0)])
    max_iou = e.one("Transpose", [e.one("ReduceMax", [iou, e.ints([3])], keepdims=1)], perm=[0, 1, 3, 2])
    if op.decay_function == "gaussian":
        decay = e.one("Exp", [e.one("Mul", [e.one("Sub", [e.one("Mul", [max_iou, max_iou]), e.one("Mul", [iou, iou])]),
                                            _f32(e, float(F32(op.gaussian_sigma)))])])
    else:
        decay = e.one("Div", [e.one("Sub", [_f32(e, 1.0), iou]),
                              e.one("Add", [e.one("Sub", [_f32(e, 1.0), max_iou]), _f32(e, float(F32(1e-10)))])])
    decay = e.one("ReduceMin", [e.one("Where", [below, decay, _f32(e, 1.0)]), e.ints([3])], keepdims=0)
    decayed = e.one("Mul", [e.one("Min", [decay, _f32(e, 1.0)]), scores])             # [N, C, K]
    kept = e.one("And", [valid, e.one("Greater", [decayed, _f32(e, float(F32(op.post_threshold)))])])
    at = e.one("Transpose", [e.one("NonZero", [kept])], perm=[1, 0])                  # [S, 3]: image, class, k
    image, label = (e.one("Gather", [at, _i64(e, i)], axis=1) for i in (0, 1))
    score = e.one("GatherND", [decayed, at])
    index = e.one("GatherND", [item, at])
    box = e.one("GatherND", [boxes, e.one("Concat", [e.one("Unsqueeze", [image, e.ints([1])]),
                                                     e.one("Unsqueeze", [index, e.ints([1])])], axis=1)])
    images = e.one("Shape", [c.inputs[0]], start=0, end=1)
    if op.keep_top_k > -1:
        best = _best_per_image(e, image, [(score, True), (label, False), (index, False)], op.keep_top_k, images)
        image, label, score, index, box = (e.one("Compress", [v, best], axis=0)
                                           for v in (image, label, score, index, box))
    _nms_outputs(e, c, _Picked(image, label, score, index, box), n_p, images, False)


@converts("Proposal")
def proposal(e: Emitter, c: Call) -> None:
    """OpenVINO's anchors (a constant from the attributes) shifted over the grid, moved by the
    deltas, clipped, scored 0 below the minimum size; per image the ``pre_nms_topn`` best
    (stable), ONNX NonMaxSuppression (no score threshold; widths and heights +1 unless
    tensorflow, as boxes grown at their far corner; OpenVINO also requires the boxes to touch,
    which only differs for boxes less than a pixel apart), the first ``post_nms_topn`` as rows
    ``[image, box]`` (the first unused row's image -1) and, Proposal-4, their scores."""
    from ..ops.proposal import anchors
    op = c.op
    tf = op.framework == "tensorflow"
    base = anchors(op.base_size, op.ratio, op.scale, tf)
    n_a = base.shape[0]
    p_s = c.in_info[0].shape
    if not (p_s.rank == 4 and p_s[1].is_static and p_s[1].lo == 2 * n_a):
        raise Unexpressible("class_probs whose channels are not twice the anchor count")
    f32 = onnx_type_named("FLOAT")
    probs, deltas, image = (e.one("Cast", [x], to=f32) for x in c.inputs)
    off = 0.0 if tf else 1.0
    img = e.one("Reshape", [image, e.ints([-1])])

    def at(i: int) -> str:                     # [1]
        return e.one("Gather", [img, e.ints([i])], axis=0)
    img_h, img_w = (at(1), at(0)) if tf else (at(0), at(1))
    scale_h = at(2)
    scale_w = e.one("Gather", [img, e.one("Min", [e.ints([3]), e.one("Sub", [e.one("Size", [img]), _i64(e, 1)])])],
                    axis=0)
    hw = _dims(e, probs, 2, 4)
    h, w = (e.one("Squeeze", [e.one("Slice", [hw, e.ints([i]), e.ints([i + 1])]), e.ints([0])]) for i in (0, 1))
    gy = e.one("Cast", [e.one("Range", [_i64(e, 0), h, _i64(e, 1)])], to=f32)
    gx = e.one("Cast", [e.one("Range", [_i64(e, 0), w, _i64(e, 1)])], to=f32)
    gy = e.one("Reshape", [gy, e.ints([-1, 1, 1, 1])])
    gx = e.one("Reshape", [gx, e.ints([1, -1, 1, 1])])
    sx, sy = (gy, gx) if tf else (gx, gy)
    stride = _f32(e, float(op.feat_stride))
    sx, sy = e.one("Mul", [sx, stride]), e.one("Mul", [sy, stride])
    zero = e.one("Mul", [e.one("Add", [sx, sy]), _f32(e, 0.0)])                            # [H, W, 1, 1]
    sx, sy = e.one("Add", [sx, zero]), e.one("Add", [sy, zero])
    shift = e.one("Concat", [sx, sy, sx, sy], axis=3)                                  # [H, W, 1, 4]
    box = e.one("Add", [shift, e.const(base.reshape(1, 1, n_a, 4))])                 # [H, W, A, 4]
    if tf:
        box = _clip_corners(e, box, img_w, img_h, 0.0)
    d = e.one("Reshape", [deltas, e.one("Concat", [e.ints([0, n_a, 4]), hw], axis=0)])
    d = e.one("Transpose", [d], perm=[0, 3, 4, 1, 2])                                  # [N, H, W, A, 4]
    dx, dy, dw, dh = _corners(e, d)
    dx, dy = (e.one("Div", [v, _f32(e, float(F32(op.box_coordinate_scale)))]) for v in (dx, dy))
    dw, dh = (e.one("Div", [v, _f32(e, float(F32(op.box_size_scale)))]) for v in (dw, dh))
    b0, b1, b2, b3 = _corners(e, box)
    o = _f32(e, off)
    half = _f32(e, 0.5)
    ww, hh = e.one("Add", [e.one("Sub", [b2, b0]), o]), e.one("Add", [e.one("Sub", [b3, b1]), o])
    cx, cy = e.one("Add", [b0, e.one("Mul", [half, ww])]), e.one("Add", [b1, e.one("Mul", [half, hh])])
    px, py = e.one("Add", [e.one("Mul", [dx, ww]), cx]), e.one("Add", [e.one("Mul", [dy, hh]), cy])
    pw, ph = e.one("Mul", [e.one("Exp", [dw]), ww]), e.one("Mul", [e.one("Exp", [dh]), hh])
    x0, x1 = e.one("Sub", [px, e.one("Mul", [half, pw])]), e.one("Add", [px, e.one("Mul", [half, pw])])
    y0, y1 = e.one("Sub", [py, e.one("Mul", [half, ph])]), e.one("Add", [py, e.one("Mul", [half, ph])])
    if op.clip_before_nms:
        x0, x1 = (e.one("Max", [e.one("Min", [v, e.one("Sub", [img_w, o])]), _f32(e, 0.0)]) for v in (x0, x1))
        y0, y1 = (e.one("Max", [e.one("Min", [v, e.one("Sub", [img_h, o])]), _f32(e, 0.0)]) for v in (y0, y1))
    bw, bh = e.one("Add", [e.one("Sub", [x1, x0]), o]), e.one("Add", [e.one("Sub", [y1, y0]), o])
    min_size = _f32(e, float(op.min_size))
    big = e.one("And", [e.one("LessOrEqual", [e.one("Mul", [min_size, scale_w]), bw]),
                        e.one("LessOrEqual", [e.one("Mul", [min_size, scale_h]), bh])])     # [N, H, W, A, 1]
    fg = e.one("Slice", [probs, e.ints([n_a]), e.ints([2 * n_a]), e.ints([1])])
    score = e.one("Mul", [e.one("Unsqueeze", [e.one("Transpose", [fg], perm=[0, 2, 3, 1]), e.ints([4])]),
                          e.one("Cast", [big], to=f32)])
    score = e.one("Reshape", [score, e.ints([0, -1])])                                 # [N, H*W*A]
    boxes = e.one("Reshape", [e.one("Concat", [x0, y0, x1, y1], axis=-1), e.ints([0, -1, 4])])
    count = e.one("Min", [e.one("Shape", [score], start=1, end=2), e.ints([op.pre_nms_topn])])
    top, order = e.node("TopK", [score, count], 2, axis=1, largest=1, sorted=1)
    cand = e.one("GatherElements", [boxes, e.one("Expand", [e.one("Unsqueeze", [order, e.ints([2])]),
                                                            e.one("Concat", [e.one("Shape", [order]), e.ints([4])],
                                                                  axis=0)])], axis=1)
    measured = cand if tf else e.one("Add", [cand, e.const(np.asarray([0, 0, 1, 1], F32))])
    post = op.post_nms_topn
    selected = e.one("NonMaxSuppression", [measured, e.one("Unsqueeze", [top, e.ints([1])]), e.ints([post]),
                                           e.const(np.asarray([op.nms_thresh], F32))])
    image_id = e.one("Gather", [selected, _i64(e, 0)], axis=1)
    pick = e.one("Concat", [e.one("Unsqueeze", [image_id, e.ints([1])]),
                            e.one("Gather", [selected, e.ints([2])], axis=1)], axis=1)
    rois = e.one("GatherND", [cand, pick])                                             # [S, 4]
    kept_scores = e.one("GatherND", [top, pick])
    if op.clip_after_nms:
        rois = _clip_corners(e, rois, img_w, img_h, 0.0)
    if op.normalize:
        rois = e.one("Div", [rois, e.one("Concat", [img_w, img_h, img_w, img_h], axis=0)])
    images = e.one("Shape", [probs], start=0, end=1)
    per_image = _per_image(e, image_id, e.one("Squeeze", [images, e.ints([0])]))
    starts = e.one("CumSum", [per_image, _i64(e, 0)], exclusive=1)
    rank = e.one("Sub", [e.one("Range", [_i64(e, 0), e.one("Squeeze", [e.one("Shape", [image_id]), e.ints([0])]),
                                         _i64(e, 1)]), e.one("Gather", [starts, image_id], axis=0)])
    slot = e.one("Unsqueeze", [e.one("Add", [e.one("Mul", [image_id, _i64(e, post)]), rank]), e.ints([1])])
    marker = e.one("Neg", [e.one("OneHot", [per_image, e.ints([post]), e.const(np.asarray([0, 1], F32))], axis=-1)])
    zeros = e.one("Expand", [_f32(e, 0.0), e.one("Concat", [images, e.ints([post, 4])], axis=0)])
    empty = e.one("Reshape", [e.one("Concat", [e.one("Unsqueeze", [marker, e.ints([2])]), zeros], axis=2),
                              e.ints([-1, 5])])
    rows = e.one("Concat", [e.one("Unsqueeze", [e.one("Cast", [image_id], to=f32), e.ints([1])]), rois], axis=1)
    out = e.one("ScatterND", [empty, slot, rows])
    e.one("Cast", [out], c.outputs[0], to=onnx_type(c.out_info[0].etype))
    if len(c.outputs) > 1:
        flat = e.one("Reshape", [e.one("Mul", [marker, _f32(e, 0.0)]), e.ints([-1])])
        e.one("Cast", [e.one("ScatterND", [flat, slot, kept_scores])], c.outputs[1], to=onnx_type(c.out_info[1].etype))


def _clip_corners(e: Emitter, box: str, img_w: str, img_h: str, less: float) -> str:
    """Corner boxes [..., 4] clipped to [0, image size - ``less``]."""
    top = e.one("Sub", [e.one("Concat", [img_w, img_h, img_w, img_h], axis=0), _f32(e, less)])
    return e.one("Max", [e.one("Min", [box, top]), _f32(e, 0.0)])


def _refine(e: Emitter, anchors: str, deltas: str, scores: str, img_h: str, img_w: str, offset: float,
            n_a: int) -> tuple[str, str, str, str]:
    """irrun.ops.generate_proposals.refine for a batch: anchors [H, W, A, 4], deltas
    [N, A*4, H, W], scores [N, A, H, W], image sizes broadcastable to [N, H, W, A] ->
    (boxes [N, P, 4], scores [N, P], widths, heights [N, P]) in (h, w, anchor) order."""
    from ..ops.generate_proposals import MAX_LOG_SIZE
    hw = _dims(e, scores, 2, 4)
    d = e.one("Reshape", [deltas, e.one("Concat", [e.ints([0, n_a, 4]), hw], axis=0)])
    dx, dy, dw, dh = (e.one("Squeeze", [v, e.ints([4])])
                      for v in _corners(e, e.one("Transpose", [d], perm=[0, 3, 4, 1, 2])))   # [N, H, W, A]
    a0, a1, a2, a3 = (e.one("Squeeze", [v, e.ints([3])]) for v in _corners(e, anchors))     # [H, W, A]
    o, half = _f32(e, offset), _f32(e, 0.5)
    ww, hh = e.one("Add", [e.one("Sub", [a2, a0]), o]), e.one("Add", [e.one("Sub", [a3, a1]), o])
    cx, cy = e.one("Add", [a0, e.one("Mul", [half, ww])]), e.one("Add", [a1, e.one("Mul", [half, hh])])
    px, py = e.one("Add", [e.one("Mul", [dx, ww]), cx]), e.one("Add", [e.one("Mul", [dy, hh]), cy])
    top = _f32(e, float(MAX_LOG_SIZE))
    pw = e.one("Mul", [e.one("Exp", [e.one("Min", [dw, top])]), ww])
    ph = e.one("Mul", [e.one("Exp", [e.one("Min", [dh, top])]), hh])
    x0, y0 = e.one("Sub", [px, e.one("Mul", [half, pw])]), e.one("Sub", [py, e.one("Mul", [half, ph])])
    x1 = e.one("Sub", [e.one("Add", [px, e.one("Mul", [half, pw])]), o])
    y1 = e.one("Sub", [e.one("Add", [py, e.one("Mul", [half, ph])]), o])
    x0, x1 = (e.one("Max", [_f32(e, 0.0), e.one("Min", [v, e.one("Sub", [img_w, o])])]) for v in (x0, x1))
    y0, y1 = (e.one("Max", [_f32(e, 0.0), e.one("Min", [v, e.one("Sub", [img_h, o])])]) for v in (y0, y1))
    flat = e.ints([0, -1])
    boxes = e.one("Reshape", [e.one("Concat", [e.one("Unsqueeze", [v, e.ints([4])]) for v in (x0, y0, x1, y1)],
                                    axis=4), e.ints([0, -1, 4])])
    sc = e.one("Reshape", [e.one("Transpose", [scores], perm=[0, 2, 3, 1]), flat])
    widths = e.one("Reshape", [e.one("Add", [e.one("Sub", [x1, x0]), o]), flat])
    heights = e.one("Reshape", [e.one("Add", [e.one("Sub", [y1, y0]), o]), flat])
    return boxes, sc, widths, heights


def _top_boxes(e: Emitter, boxes: str, scores: str, pre: int) -> tuple[str, str, str]:
    """The ``pre`` best of each image (stable): (boxes [N, K, 4], scores [N, K], their order)."""
    count = e.one("Min", [e.one("Shape", [scores], start=1, end=2), e.ints([pre])])
    top, order = e.node("TopK", [scores, count], 2, axis=1, largest=1, sorted=1)
    where = e.one("Expand", [e.one("Unsqueeze", [order, e.ints([2])]),
                             e.one("Concat", [e.one("Shape", [order]), e.ints([4])], axis=0)])
    return e.one("GatherElements", [boxes, where], axis=1), top, order


def _proposal_inputs(e: Emitter, c: Call, axis: int) -> tuple[int, list[str]]:
    """(anchors per cell: scores' dim ``axis``, static here; im_info, anchors, deltas, scores as f32)."""
    shape = c.in_info[3].shape
    if shape.rank is None or not shape[axis].is_static:
        raise Unexpressible("a run-time anchor count")
    return shape[axis].lo, [e.one("Cast", [x], to=onnx_type_named("FLOAT")) for x in c.inputs]


@converts("ExperimentalDetectronGenerateProposalsSingleImage")
def detectron_generate_proposals(e: Emitter, c: Call) -> None:
    """Anchors refined by the deltas (sizes +1), clipped; boxes under ``min_size`` scored 0; the
    ``pre_nms_count`` best (stable) through ONNX NonMaxSuppression (no offset, no score
    threshold); ``post_nms_count`` rows, zeros after the kept ones."""
    op = c.op
    n_a, (info, anchors, deltas, scores) = _proposal_inputs(e, c, 0)
    f32 = onnx_type_named("FLOAT")
    info = e.one("Reshape", [info, e.ints([-1])])
    img_h, img_w = (e.one("Gather", [info, e.ints([i])], axis=0) for i in (0, 1))
    anchors = e.one("Reshape", [anchors, e.one("Concat", [_dims(e, scores, 1, 3), e.ints([n_a, 4])], axis=0)])
    boxes, sc, widths, heights = _refine(e, anchors, e.one("Unsqueeze", [deltas, e.ints([0])]),
                                         e.one("Unsqueeze", [scores, e.ints([0])]), img_h, img_w, 1.0, n_a)
    small = _f32(e, float(F32(op.min_size)))
    big = e.one("And", [e.one("LessOrEqual", [small, widths]), e.one("LessOrEqual", [small, heights])])
    sc = e.one("Mul", [sc, e.one("Cast", [big], to=f32)])
    cand, top, _ = _top_boxes(e, boxes, sc, op.pre_nms_count)
    post = op.post_nms_count
    selected = e.one("NonMaxSuppression", [cand, e.one("Unsqueeze", [top, e.ints([1])]), e.ints([post]),
                                           e.const(np.asarray([op.nms_threshold], F32))])
    pick = e.one("Gather", [selected, e.ints([0, 2])], axis=1)
    rois = e.one("Concat", [e.one("GatherND", [cand, pick]), e.const(np.zeros((post, 4), F32))], axis=0)
    kept = e.one("Concat", [e.one("GatherND", [top, pick]), e.const(np.zeros(post, F32))], axis=0)
    for i, value in enumerate((rois, kept)):
        cut = e.one("Slice", [value, e.ints([0]), e.ints([post])])
        e.one("Cast", [cut], c.outputs[i], to=onnx_type(c.out_info[i].etype))


@converts("GenerateProposals")
def generate_proposals(e: Emitter, c: Call) -> None:
    """Per image: anchors refined by the deltas (sizes +1 unless ``normalized``), clipped; the
    ``pre_nms_count`` best (stable); those under ``min_size`` times the image scale skipped;
    ONNX NonMaxSuppression (sizes +1 unless normalized, as boxes grown at their far corner);
    the kept rows of all images in order, their scores and the count per image."""
    op = c.op
    if op.nms_eta != 1:
        raise Unexpressible("nms_eta other than 1 (a threshold that shrinks after each kept box)")
    n_a, (info, anchors, deltas, scores) = _proposal_inputs(e, c, 1)
    off = 0.0 if op.normalized else 1.0
    cols = e.one("Shape", [info], start=1, end=2)

    def column(i: int) -> str:                 # [N, 1, 1, 1]
        return e.one("Reshape", [e.one("Gather", [info, e.ints([i])], axis=1), e.ints([-1, 1, 1, 1])])

    def column_or(i: int, other: str) -> str:
        at = e.one("Min", [e.ints([i]), e.one("Sub", [cols, e.ints([1])])])
        picked = e.one("Reshape", [e.one("Gather", [info, at], axis=1), e.ints([-1, 1])])
        return e.one("Where", [e.one("Greater", [cols, e.ints([i])]), picked, other])
    ones = e.one("Add", [e.one("Mul", [e.one("Gather", [info, e.ints([0])], axis=1), _f32(e, 0.0)]), _f32(e, 1.0)])
    scale_h = column_or(2, ones)                                                        # [N, 1]
    scale_w = column_or(3, scale_h)
    boxes, sc, widths, heights = _refine(e, anchors, deltas, scores, column(0), column(1), off, n_a)
    cand, top, order = _top_boxes(e, boxes, sc, op.pre_nms_count)
    small = _f32(e, float(F32(op.min_size)))
    size = e.one("Concat", [e.one("Unsqueeze", [v, e.ints([2])]) for v in (widths, heights)], axis=2)
    size = e.one("GatherElements", [size, e.one("Expand", [e.one("Unsqueeze", [order, e.ints([2])]),
                                                           e.one("Concat", [e.one("Shape", [order]), e.ints([2])],
                                                                 axis=0)])], axis=1)
    w_ok = e.one("LessOrEqual", [e.one("Mul", [small, scale_w]), e.one("Gather", [size, _i64(e, 0)], axis=2)])
    h_ok = e.one("LessOrEqual", [e.one("Mul", [small, scale_h]), e.one("Gather", [size, _i64(e, 1)], axis=2)])
    alive = e.one("Where", [e.one("And", [w_ok, h_ok]), top, _f32(e, -np.inf)])
    measured = cand if op.normalized else e.one("Add", [cand, e.const(np.asarray([0, 0, 1, 1], F32))])
    selected = e.one("NonMaxSuppression", [measured, e.one("Unsqueeze", [alive, e.ints([1])]),
                                           e.ints([op.post_nms_count]), e.const(np.asarray([op.nms_threshold], F32)),
                                           e.const(np.asarray([float(np.finfo(F32).min)], F32))])
    pick = e.one("Gather", [selected, e.ints([0, 2])], axis=1)
    e.one("Cast", [e.one("GatherND", [cand, pick])], c.outputs[0], to=onnx_type(c.out_info[0].etype))
    e.one("Cast", [e.one("GatherND", [top, pick])], c.outputs[1], to=onnx_type(c.out_info[1].etype))
    images = e.one("Squeeze", [e.one("Shape", [scores], start=0, end=1), e.ints([0])])
    counts = _per_image(e, e.one("Gather", [selected, _i64(e, 0)], axis=1), images)
    e.one("Cast", [counts], c.outputs[2], to=onnx_type(c.out_info[2].etype))


@converts("ExperimentalDetectronROIFeatureExtractor")
def detectron_roi_features(e: Emitter, c: Call) -> None:
    """Each box's pyramid level ``floor(log2(sqrt(area) / 224 + 1e-6) + 2)`` (clamped; a box of no
    area gives zeros), then ONNX RoiAlign (Caffe2's sampling, as OpenVINO's) on every level and the
    box's level picked. ``aligned`` boxes are shifted by half a pixel before the scale (ONNX's
    half_pixel mode would not widen boxes under one pixel to one as OpenVINO does); exact for
    power-of-two pyramid scales, within an f32 step otherwise."""
    op = c.op
    f32, f64 = onnx_type_named("FLOAT"), onnx_type_named("DOUBLE")
    rois = e.one("Cast", [c.inputs[0]], to=f32)
    x0, y0, x1, y1 = (e.one("Squeeze", [v, e.ints([1])]) for v in _corners(e, rois))
    area = e.one("Mul", [e.one("Sub", [x1, x0]), e.one("Sub", [y1, y0])])
    ratio = e.one("Cast", [e.one("Div", [e.one("Sqrt", [area]), _f32(e, 224.0)])], to=f64)
    log2 = e.one("Div", [e.one("Log", [e.one("Add", [ratio, e.const(np.asarray(1e-6))])]),
                         e.const(np.asarray(np.log(2.0)))])
    level = e.one("Floor", [e.one("Add", [log2, e.const(np.asarray(2.0))])])
    level = e.one("Clip", [level, e.const(np.asarray(0.0)), e.const(np.asarray(float(len(c.inputs) - 2)))])
    level = e.one("Reshape", [level, e.ints([-1, 1, 1, 1])])
    batch = e.one("Mul", [e.one("Cast", [x0], to=onnx_type_named("INT64")), _i64(e, 0)])
    o = op.output_size
    out: str | None = None
    for lvl, (fmap, s) in enumerate(zip(c.inputs[1:], op.pyramid_scales)):
        boxes = rois
        if op.aligned:
            boxes = e.one("Sub", [rois, _f32(e, float(F32(0.5) / F32(1.0 / s)))])
        pooled = e.one("RoiAlign", [e.one("Cast", [fmap], to=f32), boxes, batch], mode="avg", output_height=o,
                       output_width=o, sampling_ratio=op.sampling_ratio, spatial_scale=float(F32(1.0 / s)),
                       coordinate_transformation_mode="output_half_pixel")
        here = e.one("Equal", [level, e.const(np.asarray(float(lvl)))])
        out = pooled if out is None else e.one("Where", [here, pooled, out])
    if out is None:
        raise Unexpressible("no feature map")
    empty = e.one("Not", [e.one("Greater", [e.one("Reshape", [area, e.ints([-1, 1, 1, 1])]), _f32(e, 0.0)])])
    out = e.one("Where", [empty, _f32(e, 0.0), out])
    e.one("Cast", [out], c.outputs[0], to=onnx_type(c.out_info[0].etype))
    e.one("Identity", [c.inputs[0]], c.outputs[1])


def _caffe2_bilinear(e: Emitter, maps: str, ys: str, xs: str, hw: str) -> str:
    """irrun.ops._detectron.bilinear_taps in ONNX ops: ``maps`` [R, C, H, W] sampled at
    ``ys``/``xs`` [R, ...] (f32, broadcast together) -> [R, C, points]: 0 outside [-1, size],
    positions clamped at 0 and to the last pixel."""
    f32, i64 = onnx_type_named("FLOAT"), onnx_type_named("INT64")
    h_i, w_i = (e.one("Slice", [hw, e.ints([i]), e.ints([i + 1])]) for i in (0, 1))
    h_f, w_f = e.one("Cast", [h_i], to=f32), e.one("Cast", [w_i], to=f32)
    full = e.one("Shape", [e.one("Add", [ys, xs])])
    ys, xs = (e.one("Reshape", [e.one("Expand", [v, full]), e.ints([0, -1])]) for v in (ys, xs))   # [R, P]
    minus = _f32(e, -1.0)
    valid = e.one("And", [e.one("And", [e.one("GreaterOrEqual", [ys, minus]), e.one("LessOrEqual", [ys, h_f])]),
                          e.one("And", [e.one("GreaterOrEqual", [xs, minus]), e.one("LessOrEqual", [xs, w_f])])])

    def axis(v: str, size_f: str) -> tuple[str, str, str]:      # (low index, high index, weight of high)
        v = e.one("Max", [v, _f32(e, 0.0)])
        last = e.one("Sub", [size_f, _f32(e, 1.0)])
        low = e.one("Floor", [v])
        top = e.one("GreaterOrEqual", [low, last])
        low = e.one("Where", [top, last, low])
        v = e.one("Where", [top, low, v])
        high = e.one("Where", [top, low, e.one("Add", [low, _f32(e, 1.0)])])
        return e.one("Cast", [low], to=i64), e.one("Cast", [high], to=i64), e.one("Sub", [v, low])
    yl, yh, ly = axis(ys, h_f)
    xl, xh, lx = axis(xs, w_f)
    hy, hx = e.one("Sub", [_f32(e, 1.0), ly]), e.one("Sub", [_f32(e, 1.0), lx])
    flat = e.one("Reshape", [maps, e.ints([0, 0, -1])])                                # [R, C, H*W]
    gather_shape = e.one("Concat", [e.one("Shape", [flat], start=0, end=2), e.one("Shape", [ys], start=1, end=2)],
                         axis=0)
    keep = e.one("Cast", [valid], to=f32)
    total: str | None = None
    for y, x, wy, wx in ((yl, xl, hy, hx), (yl, xh, hy, lx), (yh, xl, ly, hx), (yh, xh, ly, lx)):
        at = e.one("Add", [e.one("Mul", [y, w_i]), x])
        taps = e.one("GatherElements", [flat, e.one("Expand", [e.one("Unsqueeze", [at, e.ints([1])]), gather_shape])],
                     axis=2)
        weight = e.one("Unsqueeze", [e.one("Mul", [e.one("Mul", [wy, wx]), keep]), e.ints([1])])
        term = e.one("Mul", [taps, weight])
        total = term if total is None else e.one("Add", [total, term])
    if total is None:
        raise Unexpressible("no taps")
    return total


@converts("ROIAlignRotated")
def roi_align_rotated(e: Emitter, c: Call) -> None:
    """Each box's ``sampling_ratio``² samples per output pixel on its rotated grid (positions in f32
    as OpenVINO's kernel computes them, cos/sin in f64), Caffe2's bilinear sampling as gathers,
    averaged. An adaptive sampling_ratio (0: a sample count per box) has no fixed-shape form."""
    op = c.op
    if op.sampling_ratio <= 0:
        raise Unexpressible("sampling_ratio=0 (as many samples as each box needs) is not written yet")
    ph, pw, g = op.pooled_h, op.pooled_w, op.sampling_ratio
    f32, f64 = onnx_type_named("FLOAT"), onnx_type_named("DOUBLE")
    data = e.one("Cast", [c.inputs[0]], to=f32)
    rois = e.one("Cast", [c.inputs[1]], to=f32)
    cols = [e.one("Slice", [rois, e.ints([i]), e.ints([i + 1]), e.ints([1])]) for i in range(5)]   # [R, 1]
    s, half = _f32(e, float(F32(op.spatial_scale))), _f32(e, 0.5)
    cx, cy = (e.one("Sub", [e.one("Mul", [v, s]), half]) for v in cols[:2])
    w, h = (e.one("Mul", [v, s]) for v in cols[2:4])
    theta = e.one("Neg", [cols[4]]) if op.clockwise_mode else cols[4]
    ct, st = (e.one("Cast", [e.one(k, [e.one("Cast", [theta], to=f64)])], to=f32) for k in ("Cos", "Sin"))

    def offsets(size: str, n: int) -> str:                                           # [R, n*g]
        step = e.one("Div", [size, _f32(e, float(n))])
        start = e.one("Unsqueeze", [e.one("Div", [e.one("Neg", [size]), _f32(e, 2.0)]), e.ints([2])])
        cells = e.one("Add", [start, e.one("Mul", [e.const(np.arange(n, dtype=F32).reshape(1, n, 1)),
                                                   e.one("Unsqueeze", [step, e.ints([2])])])])
        inner = e.one("Div", [e.one("Mul", [e.const((np.arange(g, dtype=F32) + F32(0.5)).reshape(1, 1, g)),
                                            e.one("Unsqueeze", [step, e.ints([2])])]), _f32(e, float(g))])
        return e.one("Reshape", [e.one("Add", [cells, inner]), e.ints([0, -1])])
    yy = e.one("Unsqueeze", [offsets(h, ph), e.ints([2])])                            # [R, ph*g, 1]
    xx = e.one("Unsqueeze", [offsets(w, pw), e.ints([1])])                            # [R, 1, pw*g]
    ct3, st3 = (e.one("Unsqueeze", [v, e.ints([2])]) for v in (ct, st))
    cx3, cy3 = (e.one("Unsqueeze", [v, e.ints([2])]) for v in (cx, cy))
    ys = e.one("Add", [e.one("Sub", [e.one("Mul", [yy, ct3]), e.one("Mul", [xx, st3])]), cy3])
    xs = e.one("Add", [e.one("Add", [e.one("Mul", [yy, st3]), e.one("Mul", [xx, ct3])]), cx3])
    maps = e.one("Gather", [data, e.one("Cast", [c.inputs[2]], to=onnx_type_named("INT64"))], axis=0)
    taps = _caffe2_bilinear(e, maps, ys, xs, _dims(e, data, 2, 4))                  # [R, C, ph*g*pw*g]
    grouped = e.one("Reshape", [taps, e.ints([0, 0, ph, g, pw, g])])
    out = e.one("Div", [e.one("ReduceSum", [grouped, e.ints([3, 5])], keepdims=0), _f32(e, float(g * g))])
    e.one("Cast", [out], c.outputs[0], to=onnx_type(c.out_info[0].etype))


@converts("ExperimentalDetectronDetectionOutput")
def detectron_detection_output(e: Emitter, c: Call) -> None:
    """Each ROI decoded per class as a Detectron box (sizes +1, deltas over ``deltas_weights``,
    log-sizes capped, far corner -1, clipped at 0; an ROI of no size scores 0 with a zero box);
    per class but the background, ONNX NonMaxSuppression over all ROIs by score (sizes +1 as boxes
    grown at their far corner; at most ``post_nms_count``); the classes in order, or, when more
    than ``max_detections_per_image``, the best by score (ties: the lower ROI); rows after the
    last zero."""
    op = c.op
    r_s = c.in_info[0].shape
    if not (r_s.rank == 2 and r_s[0].is_static):
        raise Unexpressible("a run-time number of ROIs")
    n_r, n_c, m = r_s[0].lo, op.num_classes, op.max_detections_per_image
    f32 = onnx_type_named("FLOAT")
    rois, deltas, scores = (e.one("Cast", [x], to=f32) for x in c.inputs[:3])
    b0, b1, b2, b3 = _corners(e, rois)                                                # [R, 1]
    valid = e.one("And", [e.one("Greater", [e.one("Sub", [b2, b0]), _f32(e, 0.0)]),
                          e.one("Greater", [e.one("Sub", [b3, b1]), _f32(e, 0.0)])])
    one, half = _f32(e, 1.0), _f32(e, 0.5)
    ww, hh = e.one("Add", [e.one("Sub", [b2, b0]), one]), e.one("Add", [e.one("Sub", [b3, b1]), one])
    cx, cy = e.one("Add", [b0, e.one("Mul", [half, ww])]), e.one("Add", [b1, e.one("Mul", [half, hh])])
    d = e.one("Div", [e.one("Reshape", [deltas, e.ints([n_r, n_c, 4])]),
                      e.const(np.asarray(op.deltas_weights, F32))])
    dx, dy, dw, dh = (e.one("Squeeze", [v, e.ints([2])]) for v in _corners(e, d))   # [R, C]
    cap = _f32(e, float(F32(op.max_delta_log_wh)))
    px, py = e.one("Add", [e.one("Mul", [dx, ww]), cx]), e.one("Add", [e.one("Mul", [dy, hh]), cy])
    pw = e.one("Mul", [e.one("Exp", [e.one("Min", [dw, cap])]), ww])
    ph = e.one("Mul", [e.one("Exp", [e.one("Min", [dh, cap])]), hh])
    zero = _f32(e, 0.0)
    x0 = e.one("Max", [zero, e.one("Sub", [px, e.one("Mul", [half, pw])])])
    y0 = e.one("Max", [zero, e.one("Sub", [py, e.one("Mul", [half, ph])])])
    x1 = e.one("Max", [zero, e.one("Sub", [e.one("Add", [px, e.one("Mul", [half, pw])]), one])])
    y1 = e.one("Max", [zero, e.one("Sub", [e.one("Add", [py, e.one("Mul", [half, ph])]), one])])
    boxes = e.one("Concat", [e.one("Unsqueeze", [v, e.ints([2])]) for v in (x0, y0, x1, y1)], axis=2)   # [R, C, 4]
    boxes = e.one("Where", [e.one("Unsqueeze", [valid, e.ints([2])]), boxes, zero])
    boxes = e.one("Unsqueeze", [e.one("Transpose", [boxes], perm=[1, 0, 2]), e.ints([0])])  # [1, C, R, 4]
    conf = e.one("Where", [valid, scores, zero])
    conf = e.one("Unsqueeze", [e.one("Transpose", [conf], perm=[1, 0]), e.ints([0])])    # [1, C, R]
    conf = e.one("Where", [e.const((np.arange(n_c) == 0).reshape(1, n_c, 1)), _f32(e, -np.inf), conf])
    grown = e.one("Add", [boxes, e.const(np.asarray([0, 0, 1, 1], F32))])
    post = n_r if op.post_nms_count < 0 else op.post_nms_count
    p = _class_nms(e, conf, boxes, n_c, n_r, n_r, float(F32(op.nms_threshold)), float(F32(op.score_threshold)),
                   grown, post)
    count = e.one("Shape", [p.score])
    best = _stable_order(e, [(p.score, True), (p.item, False)], count)
    kept = e.one("Range", [_i64(e, 0), e.one("Squeeze", [count, e.ints([0])]), _i64(e, 1)])
    order = e.one("Where", [e.one("Greater", [count, e.ints([m])]), best, kept])
    for value, zeros, i in ((p.box, np.zeros((m, 4), F32), 0), (p.label, np.zeros(m, np.int64), 1),
                            (p.score, np.zeros(m, F32), 2)):
        padded = e.one("Concat", [e.one("Gather", [value, order], axis=0), e.const(zeros)], axis=0)
        cut = e.one("Slice", [padded, e.ints([0]), e.ints([m])])
        e.one("Cast", [cut], c.outputs[i], to=onnx_type(c.out_info[i].etype))
