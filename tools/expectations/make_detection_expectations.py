"""Measure OpenVINO's detection ops into ONE fixture: NonMaxSuppression-1/3/4/5/9, DetectionOutput-1/8,
PriorBox-1/8, PriorBoxClustered-1, RegionYolo-1, ReorgYolo-2.

    python -m tools.expectations.make_detection_expectations [--out tests/fixtures/detection_expectations] [-k substring]

Writes tests/fixtures/detection_expectations.{json,npz} in the format of
tools/expectations/make_nn_expectations.py (its Case/Dyn, build_case, measure and main are reused;
tests/ops/nn_cases.py reads the pair). The reference evaluator has no kernel for NMS,
DetectionOutput, RegionYolo and ReorgYolo, so their expected values are the CPU plugin's. Two
adjustments, each recorded in the case (``note``, the raw CPU arrays as ``cpu_arrays``):

* NonMaxSuppression-1/3/4: OpenVINO's shape inference gives a static [n, 3] output (the IR says
  so), which the spec pads with -1; the CPU plugin re-infers it as dynamic when compiling and
  returns only the selected rows (even more than n). The expected output is the CPU's rows cut
  or padded with -1 to the IR's n rows (the spec's n when max_output_boxes_per_class is a
  Parameter: v1/v3 ``min(num_boxes, max * num_classes)``, v4 ``min(num_boxes, max) * batches *
  classes``).
* PriorBox with ``fixed_size`` and run-time (Parameter) inputs: the CPU plugin's own kernel centres
  the density sub-grid at ``trunc(size) / 2.0``, the reference kernel (what any model with
  constant sizes gets: PriorBox folds) at the integer ``trunc(size) / 2``. The reference kernel's
  values are expected.
* NonMaxSuppression-5/9 when nothing can be selected (no boxes, no max input): the CPU plugin does
  not write ``valid_outputs`` (uninitialised memory); the expected value is the row count, 0.
"""
from __future__ import annotations

import sys
from functools import partial
from pathlib import Path

import numpy as np

from tools.expectations import make_nn_expectations as nn
from tools.expectations.make_nn_expectations import BF16, F16, Case, Cases, Dyn, Rnd, i64

CASES = Cases()
add = CASES.add
rnd = Rnd(20264)


def s(v, dtype=np.float32) -> np.ndarray:
    return np.array(v, dtype)


# ---------------------------------------------------------------------------------------------
# NonMaxSuppression

NMS = ("opset1", "opset3", "opset4", "opset5", "opset9")
#: NMS-3 is NMS-1 with output_type, NMS-5 NMS-9: they get these cases only
SUBSET = {"suppress-by-iou", "multi-sorted", "multi-i32", "params", "two-inputs", "soft", "f16", "iou-equals-threshold",
          "static", "intervals", "max-param", "batch-dyn", "scores-rank-dyn", "boxes-mismatch", "max-1d",
          "type-f64", "type-score-i32", "type-two-inputs", "type-sigma-f64", "output-type-f32"}
#: NMS-4 has NMS-1's kernel but its own output size
V4 = {"two-batches", "two-classes", "multi", "max-0", "empty-boxes", "max-above-boxes"}
#: the classic example boxes (ONNX's NonMaxSuppression tests): three overlapping pairs
B6 = np.array([[[0, 0, 1, 1], [0, 0.1, 1, 1.1], [0, -0.1, 1, 0.9],
                [0, 10, 1, 11], [0, 10.1, 1, 11.1], [0, 100, 1, 101]]], np.float32)
S6 = np.array([[[0.9, 0.75, 0.6, 0.95, 0.5, 0.3]]], np.float32)


def nms_attrs(op: str, center=False, sort=True, out="i64") -> dict:
    a = {"box_encoding": "center" if center else "corner", "sort_result_descending": sort}
    return a if op == "opset1" else dict(a, output_type=out)


def thresholds(op: str, mx, iou, score, sigma=None) -> list[np.ndarray]:
    """Scalars (v1/v3/v4 require them), 1-element 1-D tensors for v5/v9 when ``sigma`` is given."""
    ins = [s(mx, np.int64), s(iou), s(score)]
    return ins + ([s(sigma)] if sigma is not None and op in ("opset5", "opset9") else [])


def nms_cases() -> None:
    flipped = np.array([[[1, 1, 0, 0], [0, 0.1, 1, 1.1], [0, 0.9, 1, -0.1],
                         [0, 10, 1, 11], [1, 10.1, 0, 11.1], [1, 101, 0, 100]]], np.float32)
    center = np.array([[[0.5, 0.5, 1, 1], [0.5, 0.6, 1, 1], [0.5, 0.4, 1, 1],
                        [0.5, 10.5, 1, 1], [0.5, 10.6, 1, 1], [0.5, 100.5, 1, 1]]], np.float32)
    tie = np.array([[[0, 0, 1, 1], [0, 0, 1, 2], [0, 0, 1, 4], [5, 5, 6, 6]]], np.float32)   # IoU(0,1) = 0.5
    tie_s = np.array([[[0.9, 0.8, 0.7, 0.6]]], np.float32)
    eq_s = np.array([[[0.5, 0.7, 0.5, 0.7, 0.5, 0.5]]], np.float32)
    multi_b = np.round(rnd.rng.uniform(0, 4, (2, 6, 4)), 1).astype(np.float32)
    multi_s = np.round(rnd.rng.uniform(0, 1, (2, 3, 6)), 1).astype(np.float32)
    for op in NMS:
        v = op[5:]

        def P(tag, ins, a, params=(0, 1), note=""):
            if op in ("opset3", "opset5") and tag not in SUBSET or op == "opset4" and tag not in SUBSET | V4:
                return
            add(Case(f"NonMaxSuppression{v}-{tag}", "NonMaxSuppression", op, ins, a, params, note))

        P("suppress-by-iou", [B6, S6, *thresholds(op, 3, 0.5, 0.0)], nms_attrs(op, sort=False))
        P("suppress-by-iou-sorted", [B6, S6, *thresholds(op, 3, 0.5, 0.0)], nms_attrs(op))
        P("flipped-corners", [flipped, S6, *thresholds(op, 3, 0.5, 0.0)], nms_attrs(op))
        P("center", [center, S6, *thresholds(op, 3, 0.5, 0.0)], nms_attrs(op, center=True))
        P("identical", [np.tile(np.array([[[0, 0, 1, 1]]], np.float32), (1, 10, 1)), np.full((1, 1, 10), 0.9, np.float32),
                        *thresholds(op, 3, 0.5, 0.0)], nms_attrs(op))
        P("limit-output", [B6, S6, *thresholds(op, 2, 0.5, 0.0)], nms_attrs(op))
        P("max-above-boxes", [B6, S6, *thresholds(op, 10, 0.5, 0.0)], nms_attrs(op))
        P("score-threshold", [B6, S6, *thresholds(op, 3, 0.5, 0.4)], nms_attrs(op))
        P("two-batches", [np.concatenate([B6, B6]), np.concatenate([S6, S6]), *thresholds(op, 2, 0.5, 0.0)], nms_attrs(op))
        P("two-classes", [B6, np.concatenate([S6, S6], 1), *thresholds(op, 2, 0.5, 0.0)], nms_attrs(op))
        P("iou-equals-threshold", [tie, tie_s, *thresholds(op, 10, 0.5, 0.0)], nms_attrs(op, sort=False),
          note="IoU 0.5 == threshold 0.5 suppresses (>=)")
        P("score-equals-threshold", [tie, tie_s, *thresholds(op, 10, 0.99, 0.7)], nms_attrs(op, sort=False),
          note="score 0.7 == threshold 0.7 is no candidate (>)")
        P("iou-threshold-0", [tie, tie_s, *thresholds(op, 10, 0.0, 0.0)], nms_attrs(op, sort=False),
          note="IoU 0 >= 0: disjoint boxes are suppressed too")
        P("iou-threshold-1", [tie, tie_s, *thresholds(op, 10, 1.0, 0.0)], nms_attrs(op, sort=False))
        P("equal-scores", [np.array([[[0, i * 2, 1, i * 2 + 1] for i in range(6)]], np.float32), eq_s,
                           *thresholds(op, 10, 0.5, 0.0)], nms_attrs(op, sort=False))
        P("no-thresholds", [B6, S6, s(3, np.int64)], nms_attrs(op), note="iou_threshold defaults to 0")
        P("multi", [multi_b, multi_s, *thresholds(op, 4, 0.5, 0.0)], nms_attrs(op, sort=False))
        P("multi-sorted", [multi_b, multi_s, *thresholds(op, 4, 0.5, 0.0)], nms_attrs(op))
        P("multi-i32", [multi_b, multi_s, *thresholds(op, 3, 0.3, 0.2)], nms_attrs(op, out="i32"))
        P("params", [multi_b, multi_s, s(3, np.int32), s(0.3), s(0.2)], nms_attrs(op), params=(0, 1, 2, 3, 4))
        P("max-0", [B6, S6, *thresholds(op, 0, 0.5, 0.0)], nms_attrs(op), params=(0, 1, 2))
        P("empty-boxes", [np.zeros((1, 0, 4), np.float32), np.zeros((1, 2, 0), np.float32), *thresholds(op, 3, 0.5, 0.0)],
          nms_attrs(op))
        P("zero-area", [np.array([[[0, 0, 0, 0], [0, 0, 0, 0], [1, 1, 1, 1], [0, 0, 2, 2], [2, 2, 0, 0]]], np.float32),
                        np.array([[[0.5, 0.5, 0.5, 0.4, 0.4]]], np.float32), *thresholds(op, 10, 0.5, 0.0)], nms_attrs(op))
        P("f16", [multi_b.astype(F16), multi_s.astype(F16), s(3, np.int64), s(0.3, F16), s(0.2, F16)], nms_attrs(op))
        P("bf16", [multi_b.astype(BF16), multi_s.astype(BF16), s(3, np.int64), s(0.3), s(0.2)], nms_attrs(op))
    big_b = rnd(1, 60, 4, lo=0, hi=50)
    big_b[..., 2:] = big_b[..., :2] + rnd(1, 60, 2, lo=2, hi=15)
    big_s = rnd(1, 3, 60, lo=0, hi=1)
    soft_b = np.array([[[0, 0, 1, 1], [0, 0, 1, 2], [0, 0, 1, 4], [5, 5, 6, 6], [0, 0, 1, 1.25]]], np.float32)
    soft_s = np.array([[[0.9, 0.8, 0.7, 0.6, 0.85]]], np.float32)
    for op in ("opset5", "opset9"):
        v = op[5:]

        def P(tag, ins, a, params=(0, 1), note=""):
            if op == "opset5" and tag not in SUBSET:
                return
            add(Case(f"NonMaxSuppression{v}-{tag}", "NonMaxSuppression", op, ins, a, params, note))

        P("soft", [soft_b, soft_s, s(10, np.int64), s(0.3), s(0.0), s(0.5)], nms_attrs(op, sort=False),
          note="Soft-NMS ignores iou_threshold")
        P("soft-score-threshold", [soft_b, soft_s, s(10, np.int64), s(0.9), s(0.5), s(0.5)], nms_attrs(op, sort=False))
        P("soft-sorted", [big_b, big_s, s(8, np.int64), s(0.5), s(0.1), s(1.0)], nms_attrs(op))
        P("1d-inputs", [multi_b, multi_s, s([3], np.int64), s([0.3]), s([0.2]), s([0.0])], nms_attrs(op),
          params=(0, 1, 2, 3, 4, 5))
        P("big", [big_b, big_s, s(20, np.int64), s(0.4), s(0.05)], nms_attrs(op, sort=False))
        P("two-inputs", [B6, S6], nms_attrs(op), note="max_output_boxes_per_class defaults to 0")
    # shapes and errors
    three = [s(4, np.int64), s(0.5), s(0.0)]
    for op in NMS:
        v = op[5:]
        for tag, b, sc, rest in [
                ("static", "2,6,4", "2,3,6", three), ("max-above-boxes", "2,6,4", "2,3,6", [s(10, np.int64), s(0.5), s(0.0)]),
                ("max-param", "2,6,4", "2,3,6", [Dyn("i64", ""), s(0.5), s(0.0)]),
                ("max-negative", "2,6,4", "2,3,6", [s(-1, np.int64), s(0.5), s(0.0)]),
                ("max-0-batch-dyn", "?,6,4", "?,3,6", [s(0, np.int64), s(0.5), s(0.0)]),
                ("boxes-dyn", "2,?,4", "2,3,?", three), ("intervals", "1..3,6,4", "2..5,3,6", three),
                ("batch-dyn", "?,6,4", "?,3,6", three), ("boxes-rank-dyn", "...", "2,3,6", three),
                ("scores-rank-dyn", "2,6,4", "...", three), ("num-boxes-interval", "1,2..8,4", "1,2,?", [s(5, np.int64), s(0.5), s(0.0)]),
                ("num-boxes-dyn", "1,?,4", "1,2,2..8", [s(5, np.int64), s(0.5), s(0.0)]),
                ("classes-interval", "1,6,4", "1,2..3,6", [s(5, np.int64), s(0.5), s(0.0)]),
                ("boxes-rank-2", "6,4", "1,2,6", three), ("scores-rank-2", "1,6,4", "2,6", three),
                ("batch-mismatch", "1,6,4", "2,2,6", three), ("boxes-mismatch", "1,6,4", "1,2,5", three),
                ("last-dim-5", "1,6,5", "1,2,6", three), ("max-1d", "1,6,4", "1,2,6", [s([3], np.int64), s(0.5), s(0.0)]),
                ("max-2-values", "1,6,4", "1,2,6", [s([3, 3], np.int64), s(0.5), s(0.0)]),
                ("iou-1d", "1,6,4", "1,2,6", [s(3, np.int64), s([0.5]), s(0.0)])]:
            if op not in ("opset3", "opset5") or tag in SUBSET:
                add(Case(f"NonMaxSuppression{v}-shape-{tag}", "NonMaxSuppression", op,
                         [Dyn("f32", b), Dyn("f32", sc), *rest], nms_attrs(op), params=()))
        for tag, ins in [("f16", [Dyn("f16", "1,6,4"), Dyn("f16", "1,2,6"), s(3, np.int32), s(0.5, F16), s(0.0, F16)]),
                         ("f64", [Dyn("f64", "1,6,4"), Dyn("f64", "1,2,6"), s(3, np.int32), s(0.5), s(0.0)]),
                         ("iou-f64", [Dyn("f32", "1,6,4"), Dyn("f32", "1,2,6"), s(3, np.int32), s(0.5, np.float64), s(0.0)]),
                         ("score-i32", [Dyn("f32", "1,6,4"), Dyn("f32", "1,2,6"), s(3, np.int32), s(0.5), s(0, np.int32)]),
                         ("max-f32", [Dyn("f32", "1,6,4"), Dyn("f32", "1,2,6"), s(3, np.float32), s(0.5), s(0.0)]),
                         ("two-inputs", [Dyn("f32", "1,6,4"), Dyn("f32", "1,2,6")])]:
            if op not in ("opset3", "opset5") or f"type-{tag}" in SUBSET:
                add(Case(f"NonMaxSuppression{v}-shape-type-{tag}", "NonMaxSuppression", op, ins, nms_attrs(op, out="i32"),
                         params=()))
    for op in ("opset5", "opset9"):
        add(Case(f"NonMaxSuppression{op[5:]}-shape-type-sigma-f64", "NonMaxSuppression", op,
                 [Dyn("f32", "1,6,4"), Dyn("f32", "1,2,6"), s(3, np.int64), s(0.5), s(0.0), s(0.5, np.float64)],
                 nms_attrs(op), params=()))
        add(Case(f"NonMaxSuppression{op[5:]}-shape-output-type-f32", "NonMaxSuppression", op,
                 [Dyn("f32", "1,6,4"), Dyn("f32", "1,2,6"), s(3, np.int64)], nms_attrs(op, out="f32"), params=()))


# ---------------------------------------------------------------------------------------------
# DetectionOutput

def do_inputs(n=1, p=6, c=3, share=True, normalized=True, venc=False, five=False, per_image=False,
              stop=False, dtype=np.float32, decimals=2):
    """Box logits, class scores, priors (and ARM scores/logits): seeded, scores rounded to
    ``decimals`` (ties on purpose), priors inside the unit square (x 30 / 20 when unnormalised)."""
    loc_c = 1 if share else c
    pb = n if per_image else 1
    xy = rnd.rng.uniform(0, 0.8, (pb, p, 2))
    box = np.concatenate([xy, xy + rnd.rng.uniform(0.1, 0.4, (pb, p, 2))], -1)
    size = 4
    if not normalized:
        box = np.concatenate([np.zeros((pb, p, 1)), box * np.array([30, 20, 30, 20])], -1)
        size = 5
        if stop:
            box[:, p - 2, 0] = -1
    pri = box.reshape(pb, 1, p * size)
    if not venc:
        var = np.tile(np.array([0.1, 0.1, 0.2, 0.2]), (pb, p)).reshape(pb, 1, p * 4)
        pri = np.concatenate([pri, np.concatenate([var, np.zeros((pb, 1, p * (size - 4)))], -1)], 1)
    ins = [rnd.rng.normal(0, 1, (n, p * loc_c * 4)), np.round(rnd.rng.uniform(0, 1, (n, p * c)), decimals), pri]
    if five:
        ins += [np.round(rnd.rng.uniform(0, 1, (n, p * 2)), 2), rnd.rng.normal(0, 1, (n, p * loc_c * 4))]
    return [a.astype(np.float32).astype(dtype) for a in ins]


def do_attrs(keep=-1, top_k=-1, code="CENTER_SIZE", **kw) -> dict:
    a = dict(background_label_id=0, top_k=top_k, variance_encoded_in_target=False, keep_top_k=[keep],
             code_type=f"caffe.PriorBoxParameter.{code}", share_location=True, nms_threshold=0.45,
             confidence_threshold=0.01, clip_after_nms=False, clip_before_nms=False, decrease_label_id=False,
             normalized=True, input_height=1, input_width=1, objectness_score=0.0)
    a.update(kw)
    return a


def detection_output_cases() -> None:
    for op in ("opset1", "opset8"):
        v = op[5:]

        def add_do(tag, ins, a, params=None, note=""):
            if op == "opset1" and tag not in ("ssd", "not-shared", "mxnet", "arm", "unnormalized-stop", "const"):
                return
            if op == "opset1":
                a = dict(a, num_classes=ins[1].shape[1] // (ins[2].shape[2] // (4 if a["normalized"] else 5)))
            add(Case(f"DetectionOutput{v}-{tag}", "DetectionOutput", op, ins, a,
                     tuple(range(len(ins))) if params is None else params, note))

        add_do("ssd", do_inputs(p=8, c=3), do_attrs(keep=5, top_k=6))
        add_do("corner", do_inputs(p=6, c=3), do_attrs(code="CORNER"))
        add_do("no-limits", do_inputs(n=2, p=6, c=3), do_attrs())
        add_do("top-k-only", do_inputs(n=2, p=6, c=3), do_attrs(top_k=2))
        add_do("keep-top-k-cut", do_inputs(n=2, p=8, c=4, decimals=2), do_attrs(keep=3, confidence_threshold=0.3))
        add_do("not-shared", do_inputs(p=5, c=3, share=False), do_attrs(share_location=False, keep=4))
        add_do("background-1", do_inputs(p=5, c=3), do_attrs(background_label_id=1))
        add_do("no-background", do_inputs(p=5, c=3), do_attrs(background_label_id=-1, keep=6))
        add_do("variance-in-target", do_inputs(p=5, c=3, venc=True), do_attrs(variance_encoded_in_target=True))
        add_do("unnormalized", do_inputs(p=6, c=3, normalized=False),
               do_attrs(normalized=False, input_width=30, input_height=20, code="CORNER"))
        add_do("unnormalized-stop", do_inputs(p=6, c=3, normalized=False, stop=True),
               do_attrs(normalized=False, input_width=30, input_height=20), note="a prior with image id -1 ends the list")
        add_do("priors-per-image", do_inputs(n=2, p=5, c=3, per_image=True), do_attrs(keep=4))
        add_do("clip", do_inputs(p=6, c=3), do_attrs(clip_before_nms=True, clip_after_nms=True, nms_threshold=0.3))
        add_do("clip-after", do_inputs(p=6, c=3), do_attrs(clip_after_nms=True))
        add_do("mxnet", do_inputs(n=2, p=6, c=4, decimals=1), do_attrs(decrease_label_id=True, keep=5))
        add_do("mxnet-top-k", do_inputs(p=8, c=3), do_attrs(decrease_label_id=True, top_k=3, confidence_threshold=0.3))
        add_do("arm", do_inputs(n=2, p=6, c=3, five=True), do_attrs(objectness_score=0.4, keep=6))
        add_do("arm-not-shared", do_inputs(p=5, c=3, five=True, share=False),
               do_attrs(objectness_score=0.3, share_location=False, code="CORNER"))
        add_do("ties", do_inputs(p=8, c=3, decimals=1), do_attrs(top_k=4, nms_threshold=0.7),
               note="equal scores: lower prior first")
        add_do("const", do_inputs(p=5, c=2), do_attrs(keep=3), params=(0,))
        add_do("f16", do_inputs(p=6, c=3, dtype=F16), do_attrs(keep=5))
    # shapes and errors (v8 unless said)
    D = lambda *a: Dyn("f32", ",".join(map(str, a)))  # noqa: E731
    for tag, ins, a in [
            ("static", [D(2, 48), D(2, 36), D(1, 2, 48)], do_attrs(keep=10)),
            ("top-k", [D(2, 48), D(2, 36), D(1, 2, 48)], do_attrs(top_k=5)),
            ("all", [D(2, 48), D(2, 36), D(1, 2, 48)], do_attrs()),
            ("keep-0", [D(2, 48), D(2, 36), D(1, 2, 48)], do_attrs(keep=0, top_k=5)),
            ("batch-dyn", [D("?", 48), D("?", 36), D(1, 2, 48)], do_attrs(top_k=5)),
            ("batch-from-classes", [D("?", 48), D(3, 36), D(1, 2, 48)], do_attrs()),
            ("interval", [D("1..4", 48), D("?", 36), D(1, 2, 48)], do_attrs(keep=7)),
            ("priors-dyn", [D(2, 48), D(2, 36), D(1, 2, "?")], do_attrs()),
            ("all-dyn", [D("?", "?"), D("?", "?"), D("?", "?", "?")], do_attrs()),
            ("rank-dyn", [Dyn("f32", "..."), Dyn("f32", "..."), Dyn("f32", "...")], do_attrs(top_k=3)),
            ("unnormalized", [D(1, 48), D(1, 36), D(1, 2, 60)], do_attrs(normalized=False)),
            ("not-shared", [D(1, 144), D(1, 36), D(1, 2, 48)], do_attrs(share_location=False)),
            ("five", [D(1, 48), D(1, 36), D(1, 2, 48), D(1, 24), D(1, 48)], do_attrs()),
            ("loc-rank", [D(1, 48, 1), D(1, 36), D(1, 2, 48)], do_attrs()),
            ("conf-rank", [D(1, 48), D(1, 36, 1), D(1, 2, 48)], do_attrs()),
            ("priors-rank", [D(1, 48), D(1, 36), D(2, 48)], do_attrs()),
            ("priors-not-multiple", [D(1, 48), D(1, 36), D(1, 2, 47)], do_attrs()),
            ("classes-not-multiple", [D(1, 48), D(1, 35), D(1, 2, 48)], do_attrs()),
            ("loc-mismatch", [D(1, 44), D(1, 36), D(1, 2, 48)], do_attrs()),
            ("batch-mismatch", [D(2, 48), D(3, 36), D(1, 2, 48)], do_attrs()),
            ("priors-batch", [D(2, 48), D(2, 36), D(3, 2, 48)], do_attrs()),
            ("priors-second", [D(1, 48), D(1, 36), D(1, 1, 48)], do_attrs()),
            ("variance-in-target-second", [D(1, 48), D(1, 36), D(1, 2, 48)], do_attrs(variance_encoded_in_target=True)),
            ("five-conf-mismatch", [D(1, 48), D(1, 36), D(1, 2, 48), D(1, 20), D(1, 48)], do_attrs()),
            ("five-loc-mismatch", [D(1, 48), D(1, 36), D(1, 2, 48), D(1, 24), D(1, 44)], do_attrs()),
            ("code-type", [D(1, 48), D(1, 36), D(1, 2, 48)], do_attrs(code="FOO")),
            ("loc-i32", [Dyn("i32", "1,48"), Dyn("i32", "1,36"), D(1, 2, 48)], do_attrs()),
            ("conf-f16", [D(1, 48), Dyn("f16", "1,36"), D(1, 2, 48)], do_attrs()),
            ("priors-f16", [D(1, 48), D(1, 36), Dyn("f16", "1,2,48")], do_attrs())]:
        add(Case(f"DetectionOutput8-shape-{tag}", "DetectionOutput", "opset8", ins, a, params=()))
    for tag, ins, a in [("static", [D(2, 48), D(2, 36), D(1, 2, 48)], dict(do_attrs(top_k=5), num_classes=3)),
                        ("classes-dyn", [D(2, "?"), D(2, "?"), D(1, 2, "?")], dict(do_attrs(), num_classes=3)),
                        ("classes-mismatch", [D(1, 48), D(1, 36), D(1, 2, 48)], dict(do_attrs(), num_classes=4)),
                        ("classes-0", [D(1, 48), D(1, 36), D(1, 2, 48)], dict(do_attrs(), num_classes=0))]:
        add(Case(f"DetectionOutput1-shape-{tag}", "DetectionOutput", "opset1", ins, a, params=()))


# ---------------------------------------------------------------------------------------------
# PriorBox, PriorBoxClustered

def pb_attrs(v8=False, **kw) -> dict:
    a = dict(min_size=[], max_size=[], aspect_ratio=[], density=[], fixed_ratio=[], fixed_size=[], clip=False,
             flip=False, step=0.0, offset=0.5, variance=[], scale_all_sizes=True)
    if v8:
        a["min_max_aspect_ratios_order"] = True
    a.update(kw)
    return a


def prior_box_cases() -> None:
    ssd = dict(min_size=[16.0], max_size=[38.46], aspect_ratio=[2.0], flip=True, step=16.0, variance=[0.1, 0.1, 0.2, 0.2])
    for op in ("opset1", "opset8"):
        v8 = op == "opset8"
        v = op[5:]
        for tag, hw, img, a in [
                ("ssd", i64(3, 4), i64(48, 64), pb_attrs(v8, **ssd)),
                ("ssd-clip", i64(3, 4), i64(48, 64), pb_attrs(v8, **dict(ssd, clip=True))),
                ("two-sizes", i64(2, 3), i64(30, 45), pb_attrs(v8, min_size=[8.0, 20.0], max_size=[15.0, 30.0],
                                                               aspect_ratio=[2.0, 3.0], flip=True, clip=True)),
                ("max-fewer", i64(2, 2), i64(32, 32), pb_attrs(v8, min_size=[8.0, 20.0], max_size=[15.0],
                                                               aspect_ratio=[2.0], step=16.0)),
                ("step-0", i64(3, 2), i64(30, 50), pb_attrs(v8, min_size=[10.0], aspect_ratio=[3.0], offset=0.25)),
                ("duplicate-ratios", i64(2, 2), i64(20, 20), pb_attrs(v8, min_size=[6.0], aspect_ratio=[2.0, 0.5, 2.0, 1.0],
                                                                      flip=True, variance=[0.2])),
                ("mxnet", i64(2, 3), i64(40, 60), pb_attrs(v8, min_size=[0.2, 0.4], aspect_ratio=[2.0, 0.5],
                                                           scale_all_sizes=False, step=0.1)),
                ("mxnet-step-auto", i64(4, 4), i64(32, 32), pb_attrs(v8, min_size=[0.3], aspect_ratio=[2.0],
                                                                     scale_all_sizes=False, step=-1.0, clip=True)),
                ("fixed-size", i64(2, 2), i64(32, 32), pb_attrs(v8, fixed_size=[8.0, 14.5], density=[2.0, 1.0], step=16.0)),
                ("fixed-size-ratios", i64(2, 3), i64(24, 36), pb_attrs(v8, fixed_size=[9.7], density=[3.0], aspect_ratio=[2.0],
                                                                         flip=False, step=12.0)),
                ("fixed-ratio", i64(2, 2), i64(32, 32), pb_attrs(v8, fixed_size=[12.0], density=[2.0], fixed_ratio=[1.0],
                                                                 step=16.0, clip=True)),
                ("fixed-and-min", i64(2, 2), i64(32, 32), pb_attrs(v8, fixed_size=[8.0], density=[1.0], min_size=[],
                                                                   aspect_ratio=[2.0], flip=True, step=16.0)),
                ("i32", np.array([3, 2], np.int32), np.array([30, 20], np.int32), pb_attrs(v8, **ssd)),
                ("u8", np.array([3, 2], np.uint8), np.array([30, 20], np.uint8), pb_attrs(v8, min_size=[4.0])),
                ("empty", i64(0, 3), i64(30, 20), pb_attrs(v8, min_size=[4.0]))]:
            if v8 or tag in ("ssd", "mxnet", "fixed-size-ratios", "i32"):
                add(Case(f"PriorBox{v}-{tag}-const", "PriorBox", op, [hw, img], a, params=()),
                    Case(f"PriorBox{v}-{tag}-param", "PriorBox", op, [hw, img], a, params=(0, 1)))
        if v8:
            add(Case("PriorBox8-min-max-order-false", "PriorBox", op, [i64(2, 3), i64(32, 48)],
                     pb_attrs(True, **dict(ssd, min_max_aspect_ratios_order=False)), params=(0, 1)))
        for tag, ins, a in [
                ("param", [Dyn("i64", "2"), i64(300, 300)], pb_attrs(v8, **ssd)),
                ("const", [i64(19, 19), Dyn("i64", "2")], pb_attrs(v8, **ssd)),
                ("float", [Dyn("f32", "2"), i64(300, 300)], pb_attrs(v8, **ssd)),
                ("image-float", [i64(19, 19), Dyn("f32", "2")], pb_attrs(v8, **ssd)),
                ("rank-2", [Dyn("i64", "1,2"), Dyn("i64", "1,2")], pb_attrs(v8, **ssd)),
                ("rank-mismatch", [Dyn("i64", "2"), Dyn("i64", "1,2")], pb_attrs(v8, **ssd)),
                ("rank-dyn", [Dyn("i64", "..."), i64(300, 300)], pb_attrs(v8, **ssd)),
                ("three-values", [i64(19, 19, 1), i64(300, 300)], pb_attrs(v8, **ssd)),
                ("variance-2", [i64(19, 19), i64(300, 300)], pb_attrs(v8, **dict(ssd, variance=[0.1, 0.2]))),
                ("overflow", [i64(1, 1), i64(300, 300)], pb_attrs(v8, min_size=[4.0], max_size=[8.0, 16.0])),
                ("mxnet-max", [i64(1, 1), i64(300, 300)], pb_attrs(v8, min_size=[0.2], max_size=[0.4], scale_all_sizes=False))]:
            add(Case(f"PriorBox{v}-shape-{tag}", "PriorBox", op, ins, a, params=()))
    pbc = dict(width=[86.0, 13.0, 57.0], height=[44.0, 10.0, 30.0], clip=False, step=16.0, offset=0.5,
               variance=[0.1, 0.1, 0.2, 0.2])
    for tag, hw, img, a in [("spec", i64(2, 3), i64(40, 60), pbc), ("clip", i64(2, 3), i64(40, 60), dict(pbc, clip=True)),
                            ("steps-wh", i64(3, 2), i64(30, 50), dict(pbc, step=0.0, step_w=12.0, step_h=9.0, variance=[0.2])),
                            ("step-w-only", i64(2, 2), i64(30, 50), dict(pbc, step=0.0, step_w=12.0)),
                            ("step-auto", i64(3, 4), i64(30, 50), dict(pbc, step=0.0, variance=[])),
                            ("i32", np.array([2, 2], np.int32), np.array([20, 20], np.int32), dict(pbc, clip=True))]:
        add(Case(f"PriorBoxClustered-{tag}-const", "PriorBoxClustered", "opset1", [hw, img], a, params=()),
            Case(f"PriorBoxClustered-{tag}-param", "PriorBoxClustered", "opset1", [hw, img], a, params=(0, 1)))
    for tag, ins, a in [("param", [Dyn("i64", "2"), i64(300, 300)], pbc), ("const", [i64(10, 19), Dyn("i64", "2")], pbc),
                        ("float", [Dyn("f32", "2"), i64(300, 300)], pbc),
                        ("sizes-mismatch", [i64(10, 19), i64(300, 300)], dict(pbc, height=[44.0, 10.0])),
                        ("variance-3", [i64(10, 19), i64(300, 300)], dict(pbc, variance=[0.1, 0.1, 0.2]))]:
        add(Case(f"PriorBoxClustered-shape-{tag}", "PriorBoxClustered", "opset1", ins, a, params=()))


# ---------------------------------------------------------------------------------------------
# RegionYolo, ReorgYolo

def ry(coords=4, classes=3, num=2, soft=True, mask=(), axis=1, end_axis=3) -> dict:
    return dict(coords=coords, classes=classes, num=num, do_softmax=soft, mask=list(mask), axis=axis,
                end_axis=end_axis, anchors=[10.0, 14.0, 23.0, 27.0])


def yolo_cases() -> None:
    x4 = partial(rnd, lo=-4, hi=4)      # values in [-4, 4)
    for tag, x, a in [("v2", x4(1, 16, 3, 3), ry()), ("v2-batch", x4(2, 16, 2, 3), ry()),
                      ("v2-extra-channels", x4(2, 19, 2, 2), ry()), ("v2-axis-0", x4(2, 16, 2, 2), ry(axis=0, end_axis=1)),
                      ("v2-axis-2", x4(2, 16, 2, 2), ry(axis=2, end_axis=3)), ("v2-negative", x4(2, 16, 2, 2), ry(axis=-3, end_axis=-1)),
                      ("v2-end-before-axis", x4(2, 16, 2, 2), ry(axis=2, end_axis=1)),
                      ("v3", x4(1, 21, 2, 3), ry(classes=2, num=6, soft=False, mask=(0, 1, 2))),
                      ("v3-batch", x4(2, 21, 2, 3), ry(classes=2, num=6, soft=False, mask=(3, 4, 5))),
                      ("v3-extra-channels", x4(2, 26, 2, 2), ry(classes=2, num=6, soft=False, mask=(3, 4, 5))),
                      ("v3-coords-5", x4(1, 16, 2, 2), ry(coords=5, classes=2, num=6, soft=False, mask=(0, 1))),
                      ("v2-coords-5", x4(1, 16, 2, 2), ry(coords=5, classes=2)),
                      ("f16", x4(1, 16, 2, 2).astype(F16), ry()), ("v3-f16", x4(1, 21, 2, 2).astype(F16),
                                                                    ry(classes=2, num=6, soft=False, mask=(0, 1, 2)))]:
        add(Case(f"RegionYolo-{tag}", "RegionYolo", "opset1", [x], a))
    for tag, x, a in [("static", "1,125,13,13", ry(classes=20, num=5)), ("v3", "1,255,26,26", ry(classes=80, num=9, soft=False, mask=(0, 1, 2))),
                      ("dyn", "?,125,?,13", ry(classes=20, num=5)), ("interval", "1..2,125,2..4,13", ry(classes=20, num=5, axis=0, end_axis=2)),
                      ("v3-dyn", "?,?,?,?", ry(classes=80, num=9, soft=False, mask=(0, 1, 2))),
                      ("rank-dyn", "...", ry()), ("rank-3", "1,16,4", ry()), ("axis-out", "1,16,2,2", ry(axis=4)),
                      ("few-channels", "1,15,2,2", ry()), ("few-channels-v3", "1,20,2,2", ry(classes=2, num=6, soft=False, mask=(0, 1, 2)))]:
        add(Case(f"RegionYolo-shape-{tag}", "RegionYolo", "opset1", [Dyn("f32", x)], a, params=()))
    add(Case("RegionYolo-shape-i32", "RegionYolo", "opset1", [Dyn("i32", "1,16,2,2")], ry(), params=()))
    for tag, x, st in [("s2", x4(1, 8, 4, 6), 2), ("s2-batch", x4(2, 4, 2, 2), 2), ("s3", x4(1, 18, 3, 6), 3),
                       ("s1", x4(1, 3, 2, 2), 1), ("c-not-multiple", x4(1, 6, 4, 4), 2), ("c-not-multiple-batch", x4(2, 7, 2, 4), 2),
                       ("i32", rnd(1, 8, 4, 4, dtype=np.int32, lo=-50, hi=49), 2), ("u8", rnd(1, 8, 2, 2, dtype=np.uint8, lo=0, hi=254), 2),
                       ("f16", x4(1, 8, 2, 4).astype(F16), 2)]:
        add(Case(f"ReorgYolo-{tag}", "ReorgYolo", "opset2", [x], {"stride": [st]}))
    for tag, x, st in [("static", "1,64,26,26", 2), ("intervals", "1..2,64,5..9,?", 2), ("c-dyn", "1,?,26,26", 2),
                       ("rank-dyn", "...", 2), ("rank-3", "1,64,26", 2), ("not-divisible", "1,64,25,26", 2),
                       ("c-small", "1,3,26,26", 2), ("interval-empty", "1,64,5..5,4", 2), ("stride-0", "1,64,26,26", 0)]:
        add(Case(f"ReorgYolo-shape-{tag}", "ReorgYolo", "opset2", [Dyn("f32", x)], {"stride": [st]}, params=()))


all_cases = CASES.built_by(nms_cases, detection_output_cases, prior_box_cases, yolo_cases)


# ---------------------------------------------------------------------------------------------

def measure(case: Case, ov, tmp: Path, store) -> dict:
    entry = nn.measure(case, ov, tmp, store)
    if entry.get("reference", "").startswith("unfolded"):
        entry["reference"] = "unfolded (no reference kernel)"
    if entry["kind"] != "run" or entry.get("status") != "ok":
        return entry
    if case.type == "NonMaxSuppression" and case.opset in ("opset1", "opset3", "opset4"):
        loaded = ov.load(tmp / f"{case.id}.xml")
        shape = loaded.outputs[0].shape if loaded.ok else None
        static = shape is not None and shape[0][0] == shape[0][1]
        if static:
            n = shape[0][0]
        else:                           # max_output_boxes_per_class is a Parameter: the spec's size
            (b, c, nb), mx = case.inputs[1].shape, int(case.inputs[2]) if len(case.inputs) > 2 else 0
            n = min(nb, mx * c) if case.opset != "opset4" else min(nb, mx) * b * c
        out = entry["outputs"][0]
        cpu = store.arrays[out["array"]]
        padded = np.full((n, 3), -1, cpu.dtype)
        padded[:min(n, len(cpu))] = cpu[:n]
        entry["cpu_arrays"] = [out["array"]]
        entry["outputs"][0] = dict(out, shape=[n, 3], array=store.put(padded))
        entry["note"] = (entry.get("note", "") + "; " if entry.get("note") else "") + \
            f"CPU rows {list(cpu.shape)} cut/padded with -1 to " + ("the IR's static" if static else "the spec's") + f" [{n}, 3]"
    if case.type == "NonMaxSuppression" and case.opset in ("opset5", "opset9"):
        rows = entry["outputs"][0]["shape"][0]
        valid = store.arrays[entry["outputs"][2]["array"]]
        if int(valid[0]) != rows:       # the CPU plugin skips writing it when nothing can be selected
            entry["cpu_arrays"] = [o["array"] for o in entry["outputs"]]
            entry["outputs"][2] = dict(entry["outputs"][2], array=store.put(np.array([rows], valid.dtype)))
            entry["note"] = (entry.get("note", "") + "; " if entry.get("note") else "") + \
                f"the CPU plugin left valid_outputs uninitialised ({int(valid[0])}); {rows} selected rows"
    if case.type == "PriorBox" and "reference_arrays" in entry and any(case.attrs.get("fixed_size", [])):
        entry["cpu_arrays"] = [o["array"] for o in entry["outputs"]]
        entry["outputs"] = [dict(o, array=k) for o, k in zip(entry["outputs"], entry.pop("reference_arrays"))]
        entry["oracle"] = "reference"
        entry["note"] = "the CPU plugin's run-time kernel places fixed_size density boxes differently"
    return entry


if __name__ == "__main__":
    sys.exit(nn.main(cases_of=all_cases, out="detection_expectations", doc=__doc__, measure_case=measure))
