"""Measure OpenVINO on the ops of opsets 1-16 that irrun gained last (issue 13) and on the
ScaledDotProductAttention sink input, into ONE fixture.

    python -m tools.expectations.make_opsets_expectations [--out tests/fixtures/opsets_expectations] [-k substring]

Writes tests/fixtures/opsets_expectations.{json,npz} in the format of tools/expectations/make_nn_expectations.py
(its Case/Dyn, build_case and main are reused, and make_attention_quantize_movement_expectations'
measure, which asks the reference kernel through ``Node.evaluate`` when ConstantFolding leaves the
op alone);
tests/ops/nn_cases.py reads the pair. Cases per op live in the ``*_cases`` builders below and, for
the detection ops, in tools/expectations/opsets_detection_cases.py.
"""
from __future__ import annotations

import sys

import numpy as np

from tools.expectations import make_attention_quantize_movement_expectations as aqm
from tools.expectations import make_nn_expectations as nn
from tools.expectations import opsets_detection_cases as detection
from tools.expectations.make_nn_expectations import F16, Case, Cases, Dyn, Rnd, f32, i64

#: where the CPU plugin and the reference kernel disagree, the reference kernel is the oracle for:
#: RandomUniform (the CPU plugin computes f16/f64/i64 outputs in f32/i32, so it draws other numbers)
aqm.PREFER_REFERENCE.add("RandomUniform")
CASES = Cases()
add = CASES.add
rnd = Rnd(20264)
normal = rnd.normal


# ScaledDotProductAttention-13 with attention sinks (input 5)
def sink_cases() -> None:
    op, sd = "ScaledDotProductAttention", lambda causal=False: {"causal": causal}  # noqa: E731
    q, k, v = normal(1, 2, 3, 4), normal(1, 2, 5, 4), normal(1, 2, 5, 6)
    mask, scale = normal(3, 5), np.float32(0.4)
    for tag, sink, causal in [("per-head", normal(1, 2, 1, 1), False), ("per-head-causal", normal(1, 2, 1, 1), True),
                              ("per-row", normal(1, 2, 3, 1), False), ("one", normal(1, 1, 1, 1), False),
                              ("large", normal(1, 2, 1, 1) * 40, False)]:
        add(Case(f"{op}-sink-{tag}", op, "opset13", [q, k, v, mask, scale, sink], sd(causal), params=(0, 1, 2, 5)))
    add(Case(f"{op}-sink-f16", op, "opset13", [a.astype(F16) for a in (q, k, v, mask, scale, normal(1, 2, 1, 1))],
             sd(), params=(0, 1, 2)))
    add(Case(f"{op}-sink-bool-mask", op, "opset13", [q, k, v, rnd.rng.random((3, 5)) > 0.3, scale, normal(1, 2, 1, 1)],
             sd(), params=(0, 1, 2)))
    for tag, shapes in [("ok", ["1,2,3,5", "1,2,3,5", "1,2,3,5", "3,3", "", "1,2,1,1"]),
                        ("dyn", ["?,?,?,64", "?,?,?,64", "?,?,?,32", "?,1,?,?", "", "1,?,1,1"]),
                        ("rank-bad", ["1,2,3,5", "1,2,3,5", "1,2,3,5", "3,3", "", "2,1,1"]),
                        ("last-bad", ["1,2,3,5", "1,2,3,5", "1,2,3,5", "3,3", "", "1,2,3,2"]),
                        ("head-bad", ["1,2,3,5", "1,2,3,5", "1,2,3,5", "3,3", "", "1,3,3,1"]),
                        ("L-bad", ["1,2,3,5", "1,2,3,5", "1,2,3,5", "3,3", "", "1,2,2,1"]),
                        ("batch-bcast", ["1,2,3,5", "1,2,3,5", "1,2,3,5", "3,3", "", "5,1,1,1"]),
                        ("rank-dyn", ["1,2,3,5", "1,2,3,5", "1,2,3,5", "3,3", "", "..."])]:
        add(Case(f"{op}-sink-shape-{tag}", op, "opset13", [Dyn("f32", s) for s in shapes], sd(), params=()))


# Data movement and indexing: SliceScatter, Xor, SearchSorted, SegmentMax, Col2Im
def movement_cases() -> None:
    x = normal(4, 5, 3)
    for tag, upd, idx in [("axis0", normal(2, 5, 3), [i64(1), i64(3), i64(1), i64(0)]),
                          ("neg-step", normal(4, 3, 3), [i64(-1), i64(-6), i64(-2), i64(-2)]),
                          ("two-axes", normal(2, 5, 1), [i64(0, 2), i64(10, 3), i64(2, 1), i64(0, 2)]),
                          ("no-axes", normal(1, 5, 3), [i64(3), i64(4), i64(1)]),
                          ("empty", normal(0, 5, 3), [i64(2), i64(2), i64(1), i64(0)])]:
        add(Case(f"SliceScatter-{tag}", "SliceScatter", "opset15", [x, upd, *idx], params=(0, 1)))
    add(Case("SliceScatter-i32-params", "SliceScatter", "opset15",
             [np.arange(10, dtype=np.int32), np.full(3, -1, np.int32), np.array([1], np.int32), np.array([8], np.int32),
              np.array([3], np.int32)], params=(0, 1, 2, 3, 4)))
    for tag, shapes in [("dyn", ["?,5,3", "2,?,3", "1", "1", "1", "1"]), ("bad", ["4,5,3", "3,5,3", "1", "1", "1", "1"]),
                        ("rank-dyn", ["...", "2,5,3", "1", "1", "1"])]:
        ins = [Dyn("f32", shapes[0]), Dyn("f32", shapes[1]), i64(1), i64(3), i64(1), i64(0)][:len(shapes)]
        add(Case(f"SliceScatter-shape-{tag}", "SliceScatter", "opset15", ins, params=()))
    a, b = rnd.rng.random((2, 3)) > 0.5, rnd.rng.random((3,)) > 0.5
    add(Case("Xor-bcast", "Xor", "opset1", [a, b], params=(0, 1)))
    seq = np.sort(normal(7))
    seq[2] = seq[3]
    vals = np.concatenate([normal(2, 3).ravel(), seq[[0, 2, 6]]]).reshape(3, 3)
    for right in (False, True):
        add(Case(f"SearchSorted-1d-{right}", "SearchSorted", "opset15", [seq, vals], {"right_mode": right}, params=(0, 1)))
        add(Case(f"SearchSorted-nd-{right}", "SearchSorted", "opset15",
                 [np.sort(normal(2, 3, 5), -1), normal(2, 3, 4)], {"right_mode": right}, params=(0, 1)))
    add(Case("SearchSorted-i32-out", "SearchSorted", "opset15", [i64(1, 3, 3, 7), i64(0, 3, 8, 2)],
             {"output_type": "i32"}, params=(0, 1)))
    add(Case("SearchSorted-empty-values", "SearchSorted", "opset15", [seq, np.zeros((0, 2), np.float32)], params=(0, 1)))
    for tag, shapes in [("nd", ["2,?,5", "?,3,4"]), ("bad-rank", ["2,5", "3"]), ("bad-dims", ["2,5", "3,4"]),
                        ("scalar", ["", "3"])]:
        add(Case(f"SearchSorted-shape-{tag}", "SearchSorted", "opset15", [Dyn("f32", s) for s in shapes], params=()))
    data = normal(6, 3)
    data[1, 0] = np.nan
    ids = i64(0, 0, 2, 2, 2, 5)
    for mode in ("zero", "lowest"):
        add(Case(f"SegmentMax-{mode}", "SegmentMax", "opset16", [data, ids], {"fill_mode": mode}, params=(0, 1)))
        add(Case(f"SegmentMax-num-{mode}", "SegmentMax", "opset16", [data, ids, np.int64(4)], {"fill_mode": mode},
                 params=(0, 1, 2)))
        add(Case(f"SegmentMax-i32-{mode}", "SegmentMax", "opset16",
                 [np.arange(12, dtype=np.int32).reshape(4, 3) - 6, np.array([1, 1, 3, 3], np.int32)], {"fill_mode": mode}))
    add(Case("SegmentMax-num-const", "SegmentMax", "opset16", [data, ids, np.int32(8)], {"fill_mode": "zero"}))
    for tag, shapes in [("dyn", ["?,3", "?"]), ("bad", ["4,3", "5"]), ("rank-dyn", ["...", "4"])]:
        add(Case(f"SegmentMax-shape-{tag}", "SegmentMax", "opset16", [Dyn("f32", shapes[0]), Dyn("i64", shapes[1])],
                 {"fill_mode": "zero"}, params=()))
    c2 = lambda s=(1, 1), d=(1, 1), pb=(0, 0), pe=(0, 0): {"strides": s, "dilations": d, "pads_begin": pb, "pads_end": pe}  # noqa: E731
    for tag, data, size, kern, attrs in [
            ("basic", normal(1, 3 * 4, 9), i64(4, 4), i64(2, 2), c2()),
            ("unbatched", normal(2 * 6, 4), i64(3, 4), i64(2, 3), c2()),
            ("stride-pad", normal(2, 2 * 4, 9), i64(5, 5), i64(2, 2), c2((2, 2), (1, 1), (1, 1), (1, 1))),
            ("dilation", normal(1, 4, 12), i64(5, 6), i64(2, 2), c2((1, 1), (2, 2))),
            ("asym", normal(1, 2 * 3, 12), i64(4, 7), i64(1, 3), c2((2, 1), (1, 2), (0, 1), (1, 0)))]:
        add(Case(f"Col2Im-{tag}", "Col2Im", "opset15", [data, size, kern], attrs))
    for tag, shapes, size, kern in [("dyn-size", ["?,12,?", "2", "2"], None, i64(2, 2)),
                                    ("static", ["2,12,9", "2", "2"], i64(4, 4), i64(2, 2)),
                                    ("bad-L", ["2,12,10", "2", "2"], i64(4, 4), i64(2, 2))]:
        ins = [Dyn("f32", shapes[0]), Dyn("i64", "2") if size is None else size, kern]
        add(Case(f"Col2Im-shape-{tag}", "Col2Im", "opset15", ins, c2(), params=()))


# The EmbeddingBag family
def embedding_cases() -> None:
    table = normal(6, 3)
    idx, off, w = i64(0, 2, 3, 3, 5, 1), i64(0, 2, 2, 5), normal(6)
    add(Case("EmbeddingBagOffsetsSum-basic", "EmbeddingBagOffsetsSum", "opset3", [table, idx, off]))
    add(Case("EmbeddingBagOffsetsSum-default-weights", "EmbeddingBagOffsetsSum", "opset3",
             [table, idx, off, np.int64(4), w], params=(0, 1, 2, 4)))
    add(Case("EmbeddingBagOffsetsSum-i32", "EmbeddingBagOffsetsSum", "opset3",
             [np.arange(12, dtype=np.int32).reshape(6, 2), idx.astype(np.int32), off.astype(np.int32), np.int32(-1)]))
    for red in ("sum", "mean"):
        add(Case(f"EmbeddingBagOffsets-{red}", "EmbeddingBagOffsets", "opset15", [table, idx, off, np.int64(2)],
                 {"reduction": red}, params=(0, 1, 2)))
        add(Case(f"EmbeddingBagPacked-{red}", "EmbeddingBagPacked", "opset15", [table, idx.reshape(3, 2)],
                 {"reduction": red}, params=(0, 1)))
    add(Case("EmbeddingBagOffsets-mean-weights", "EmbeddingBagOffsets", "opset15", [table, idx, off, np.int64(2), w],
             {"reduction": "mean"}))
    add(Case("EmbeddingBagPackedSum-weights", "EmbeddingBagPackedSum", "opset3", [table, idx.reshape(2, 3), w.reshape(2, 3)],
             params=(0, 1, 2)))
    add(Case("EmbeddingBagPackedSum-3d-table", "EmbeddingBagPackedSum", "opset3", [normal(5, 2, 2), i64(0, 4, 1, 1).reshape(2, 2)]))
    seg = i64(0, 1, 1, 1, 3, 3)
    add(Case("EmbeddingSegmentsSum-basic", "EmbeddingSegmentsSum", "opset3", [table, idx, seg, np.int64(5)], params=(0, 1, 2)))
    add(Case("EmbeddingSegmentsSum-default-weights", "EmbeddingSegmentsSum", "opset3",
             [table, idx, seg, np.int64(5), np.int64(0), w], params=(0, 1, 2, 5)))
    for tag, shapes in [("dyn", ["?,3", "?", "4"]), ("rank-dyn", ["...", "?", "?"]), ("bad-idx", ["6,3", "2,3", "4"])]:
        add(Case(f"EmbeddingBagOffsetsSum-shape-{tag}", "EmbeddingBagOffsetsSum", "opset3",
                 [Dyn("f32", shapes[0]), Dyn("i64", shapes[1]), Dyn("i64", shapes[2])], params=()))
    add(Case("EmbeddingBagPackedSum-shape-dyn", "EmbeddingBagPackedSum", "opset3", [Dyn("f32", "?,4,2"), Dyn("i32", "3,?")], params=()))
    add(Case("EmbeddingSegmentsSum-shape-const-num", "EmbeddingSegmentsSum", "opset3",
             [Dyn("f32", "?,4"), Dyn("i64", "?"), Dyn("i64", "?"), np.int64(7)], params=()))


# CTC: greedy decoders and the loss
def ctc_cases() -> None:
    T, N, C = 6, 3, 4
    data = normal(T, N, C)
    data[1, 0] = data[0, 0]                 # a repeat to merge
    data[2, 1, :] = 0                       # a tie: the first class wins
    mask = np.ones((T, N), np.float32)
    mask[4:, 1] = 0
    mask[0, 2] = 0
    for merge in (True, False):
        add(Case(f"CTCGreedyDecoder-merge-{merge}", "CTCGreedyDecoder", "opset1", [data, mask],
                 {"ctc_merge_repeated": merge}, params=(0, 1)))
    nt = np.ascontiguousarray(data.transpose(1, 0, 2))
    for merge in (True, False):
        add(Case(f"CTCGreedyDecoderSeqLen-merge-{merge}", "CTCGreedyDecoderSeqLen", "opset6",
                 [nt, np.array([6, 4, 0], np.int32)], {"merge_repeated": merge}, params=(0, 1)))
    add(Case("CTCGreedyDecoderSeqLen-blank0-i64", "CTCGreedyDecoderSeqLen", "opset6",
             [nt, i64(5, 6, 2), np.int64(0)], {"classes_index_type": "i64", "sequence_length_type": "i64"},
             params=(0, 1)))
    add(Case("CTCGreedyDecoder-shape-dyn", "CTCGreedyDecoder", "opset1", [Dyn("f32", "?,2,?"), Dyn("f32", "5,?")], params=()))
    add(Case("CTCGreedyDecoderSeqLen-shape-dyn", "CTCGreedyDecoderSeqLen", "opset6",
             [Dyn("f32", "?,7,?"), Dyn("i32", "3")], params=()))
    logits = normal(3, 5, 4)
    labels = np.array([[1, 1, 2, 0, 0], [2, 0, 1, 2, 1], [0, 0, 0, 0, 0]], np.int32)
    for pre, merge, uniq in [(False, True, False), (True, True, False), (False, False, False), (False, True, True),
                             (True, False, True)]:
        add(Case(f"CTCLoss-{pre}-{merge}-{uniq}", "CTCLoss", "opset4",
                 [logits, np.array([5, 4, 3], np.int32), labels, np.array([3, 2, 1], np.int32)],
                 {"preprocess_collapse_repeated": pre, "ctc_merge_repeated": merge, "unique": uniq}, params=(0, 1, 2, 3)))
    add(Case("CTCLoss-blank0-i64", "CTCLoss", "opset4",
             [logits, i64(5, 5, 2), labels.astype(np.int64) + 1, i64(2, 3, 1), np.int64(0)], params=(0,)))
    add(Case("CTCLoss-empty-label", "CTCLoss", "opset4", [logits, i64(5, 4, 3), labels.astype(np.int64), i64(2, 1, 0)]))
    add(Case("CTCLoss-impossible", "CTCLoss", "opset4",
             [logits[:1], i64(2), i64(1, 1, 1, 2, 0).reshape(1, 5), i64(4)], params=(0,)))
    add(Case("CTCLoss-shape-dyn", "CTCLoss", "opset4", [Dyn("f32", "?,5,?"), Dyn("i32", "?"), Dyn("i32", "3,?"), Dyn("i32", "?")],
             params=()))


# RandomUniform (OpenVINO's Philox stream)
def random_cases() -> None:
    ru = lambda et, g=150, o=10, al="tensorflow": {"output_type": et, "global_seed": g, "op_seed": o, "alignment": al}  # noqa: E731
    for et, lo, hi in [("f32", -2.5, 4.0), ("f16", 0, 1), ("bf16", -1, 1), ("f64", -3, 7), ("i32", -5, 9),
                       ("i64", -100, 1000)]:
        dt = {"f32": np.float32, "f16": F16, "bf16": nn.BF16, "f64": np.float64, "i32": np.int32, "i64": np.int64}[et]
        for tag, al in (("", "tensorflow"), ("-pytorch", "pytorch")):
            add(Case(f"RandomUniform-{et}{tag}", "RandomUniform", "opset8", [i64(3, 7), np.array(lo, dt), np.array(hi, dt)],
                     ru(et, al=al), params=()))
    add(Case("RandomUniform-i64-pytorch-wide", "RandomUniform", "opset8", [i64(9), np.int64(-5), np.int64(2 ** 40)],
             ru("i64", al="pytorch"), params=()))
    add(Case("RandomUniform-long", "RandomUniform", "opset8", [i64(1001), f32(0), f32(1)], ru("f32"), params=()))
    add(Case("RandomUniform-big-seeds", "RandomUniform", "opset8", [i64(2, 5), f32(0), f32(1)],
             ru("f32", 2 ** 40 + 12345, 2 ** 33 + 7), params=()))
    add(Case("RandomUniform-op-seed-only", "RandomUniform", "opset8", [i64(9), f32(0), f32(1)], ru("f32", 0, 3), params=()))
    add(Case("RandomUniform-empty", "RandomUniform", "opset8", [i64(0, 4), f32(0), f32(1)], ru("f32"), params=()))
    add(Case("RandomUniform-shape-param", "RandomUniform", "opset8", [np.array([2, 3], np.int32), f32(0), f32(1)], ru("f32")))
    # the stream Multinomial-rep-True draws from (its seeds, [0, 1), its output shape)
    add(Case("RandomUniform-multinomial-stream", "RandomUniform", "opset8", [i64(3, 5), f32(0), f32(1)],
             ru("f32", 7, 11), params=()))
    add(Case("RandomUniform-shape-dyn", "RandomUniform", "opset8", [Dyn("i64", "3"), f32(0), f32(1)], ru("f32"), params=()))
    add(Case("RandomUniform-shape-bad-minmax", "RandomUniform", "opset8", [i64(2), f32(1), f32(0)], ru("f32"), params=()))


# Small ones: AdaptiveMaxPool, GRN, GatherTree, Inverse, ExtractImagePatches
def small_cases() -> None:
    x = normal(2, 3, 7, 5)
    x[0, 0, 0, 0] = np.nan
    for tag, sizes in [("down", i64(3, 2)), ("up", i64(9, 6)), ("same", i64(7, 5))]:
        add(Case(f"AdaptiveMaxPool-{tag}", "AdaptiveMaxPool", "opset8", [x, sizes], {"index_element_type": "i32"}))
    add(Case("AdaptiveMaxPool-1d-i32", "AdaptiveMaxPool", "opset8", [normal(1, 2, 10), i64(4)], {"index_element_type": "i32"}))
    add(Case("AdaptiveMaxPool-3d", "AdaptiveMaxPool", "opset8", [normal(1, 1, 4, 5, 3), i64(2, 3, 2)],
             {"index_element_type": "i32"}))
    add(Case("AdaptiveMaxPool-shape-dyn", "AdaptiveMaxPool", "opset8", [Dyn("f32", "?,3,?,?"), i64(2, 2)], params=()))
    for bias in (1.0, 1e-6):
        add(Case(f"GRN-{bias}", "GRN", "opset1", [normal(2, 3, 4, 2)], {"bias": bias}))
    add(Case("GRN-2d-f16", "GRN", "opset1", [normal(4, 5).astype(F16)], {"bias": 0.5}))
    add(Case("GRN-shape-rank5", "GRN", "opset1", [Dyn("f32", "1,2,3,4,5")], {"bias": 1.0}, params=()))
    T, B, W = 5, 2, 3
    steps = rnd.rng.integers(1, 9, (T, B, W)).astype(np.float32)
    steps[2, 0, 1] = 0
    parents = rnd.rng.integers(0, W, (T, B, W)).astype(np.float32)
    add(Case("GatherTree-f32", "GatherTree", "opset1", [steps, parents, f32(4, 5), np.float32(0)], params=(0, 1, 2)))
    add(Case("GatherTree-i32", "GatherTree", "opset1", [steps.astype(np.int32), parents.astype(np.int32),
                                                         np.array([5, 2], np.int32), np.int32(7)], params=(0, 1, 2)))
    add(Case("GatherTree-shape-dyn", "GatherTree", "opset1", [Dyn("i32", "?,2,?"), Dyn("i32", "5,?,3"), Dyn("i32", "?"),
                                                               Dyn("i32", "")], params=()))
    m = normal(2, 3, 3) + 3 * np.eye(3, dtype=np.float32)
    singular = f32(1, 2, 2, 4, 0, 0, 0, 0, 0, 1, 1, 0).reshape(3, 2, 2)
    for tag, x, adj in [("False", m, False), ("True", m, True), ("f64", normal(4, 4).astype(np.float64), False),
                        ("singular", singular, False)]:
        add(Case(f"Inverse-{tag}", "Inverse", "opset14", [x], {"adjoint": adj}))
    add(Case("Inverse-shape-bad", "Inverse", "opset14", [Dyn("f32", "2,3,4")], params=()))
    img = normal(1, 2, 6, 7)
    for pad in ("valid", "same_upper", "same_lower"):
        add(Case(f"ExtractImagePatches-{pad}", "ExtractImagePatches", "opset3", [img],
                 {"sizes": [3, 2], "strides": [2, 3], "rates": [1, 2], "auto_pad": pad}))
    add(Case("ExtractImagePatches-shape-dyn", "ExtractImagePatches", "opset3", [Dyn("f32", "?,3,10,?")],
             {"sizes": [3, 3], "strides": [5, 5], "rates": [1, 1], "auto_pad": "valid"}, params=()))


# NV12/I420 to RGB/BGR
def color_cases() -> None:
    N, H, W = 2, 4, 6
    y = rnd.rng.integers(0, 256, (N, H, W, 1)).astype(np.uint8)
    y[0, 0, 0, 0], y[0, 0, 1, 0] = 0, 255
    uv = rnd.rng.integers(0, 256, (N, H // 2, W // 2, 2)).astype(np.uint8)
    u, v = uv[..., :1].copy(), uv[..., 1:].copy()
    nv12 = np.concatenate([y.reshape(N, -1), uv.reshape(N, -1)], 1).reshape(N, H * 3 // 2, W, 1)
    i420 = np.concatenate([y.reshape(N, -1), u.reshape(N, -1), v.reshape(N, -1)], 1).reshape(N, H * 3 // 2, W, 1)
    for rgb in ("RGB", "BGR"):
        add(Case(f"NV12to{rgb}-single", f"NV12to{rgb}", "opset8", [nv12]))
        add(Case(f"NV12to{rgb}-two", f"NV12to{rgb}", "opset8", [y, uv], params=(0, 1)))
        add(Case(f"I420to{rgb}-single", f"I420to{rgb}", "opset8", [i420]))
        add(Case(f"I420to{rgb}-three", f"I420to{rgb}", "opset8", [y, u, v], params=(0, 1, 2)))
    add(Case("NV12toRGB-f32", "NV12toRGB", "opset8", [nv12.astype(np.float32)]))
    add(Case("I420toBGR-f32-three", "I420toBGR", "opset8", [a.astype(np.float32) for a in (y, u, v)], params=(0, 1, 2)))
    add(Case("NV12toRGB-shape-dyn", "NV12toRGB", "opset8", [Dyn("u8", "?,?,?,1")], params=()))
    add(Case("NV12toRGB-shape-single", "NV12toRGB", "opset8", [Dyn("u8", "1,6..12,8,1")], params=()))
    add(Case("I420toRGB-shape-bad-height", "I420toRGB", "opset8", [Dyn("u8", "1,10,8,1")], params=()))
    add(Case("NV12toBGR-shape-two", "NV12toBGR", "opset8", [Dyn("f32", "?,?,?,1"), Dyn("f32", "1,3,5,2")], params=()))


# DeformableConvolution
def deformable_cases() -> None:
    dc = lambda g=1, dg=1, s=(1, 1), pb=(0, 0), pe=(0, 0), d=(1, 1), **kw: {  # noqa: E731
        "strides": s, "pads_begin": pb, "pads_end": pe, "dilations": d, "auto_pad": "explicit", "group": g,
        "deformable_group": dg, **kw}
    x = normal(2, 4, 6, 5)
    w = normal(6, 4, 3, 3)
    off = normal(2, 2 * 9, 4, 3) * 1.5
    add(Case("DeformableConvolution-v1", "DeformableConvolution", "opset1", [x, off, w], dc(), params=(0, 1)))
    add(Case("DeformableConvolution-v1-zero-offsets", "DeformableConvolution", "opset1", [x, np.zeros_like(off), w], dc()))
    off2 = normal(2, 2 * 2 * 9, 3, 3) * 2
    add(Case("DeformableConvolution-v1-groups-pads", "DeformableConvolution", "opset1",
             [x, off2, normal(6, 2, 3, 3)], dc(2, 2, (2, 2), (1, 1), (1, 1)), params=(0, 1)))
    mask = rnd.rng.random((2, 9, 4, 3)).astype(np.float32)
    for pad in (False, True):
        add(Case(f"DeformableConvolution-v8-mask-pad-{pad}", "DeformableConvolution", "opset8", [x, off, w, mask],
                 dc(bilinear_interpolation_pad=pad), params=(0, 1, 3)))
    add(Case("DeformableConvolution-v8-dilation", "DeformableConvolution", "opset8",
             [x, normal(2, 18, 2, 1), w], dc(d=(2, 2)), params=(0, 1)))
    add(Case("DeformableConvolution-shape-dyn", "DeformableConvolution", "opset8",
             [Dyn("f32", "?,4,?,?"), Dyn("f32", "?,18,?,?"), Dyn("f32", "6,4,3,3")], dc(), params=()))
    add(Case("DeformableConvolution-shape-bad-offsets", "DeformableConvolution", "opset8",
             [Dyn("f32", "1,4,6,5"), Dyn("f32", "1,10,4,3"), Dyn("f32", "6,4,3,3")], dc(), params=()))


# STFT, ISTFT
def stft_cases() -> None:
    sig = normal(2, 48)
    hann = (0.5 - 0.5 * np.cos(2 * np.pi * np.arange(16) / 16)).astype(np.float32)
    for tr in (False, True):
        add(Case(f"STFT-batch-{tr}", "STFT", "opset15", [sig, hann, np.int64(16), np.int64(4)],
                 {"transpose_frames": tr}, params=(0, 1)))
    add(Case("STFT-1d-short-window", "STFT", "opset15", [sig[0], hann[:9], np.int32(12), np.int32(5)],
             {"transpose_frames": False}, params=(0, 1)))
    add(Case("STFT-shape-dyn", "STFT", "opset15", [Dyn("f32", "?,20..100"), Dyn("f32", "?"), np.int64(16), np.int64(4)],
             {"transpose_frames": True}, params=()))
    spec = normal(2, 9, 11, 2)
    for center, normalized in ((False, False), (True, False), (True, True)):
        add(Case(f"ISTFT-{center}-{normalized}", "ISTFT", "opset16", [spec, hann, np.int64(16), np.int64(4)],
                 {"center": center, "normalized": normalized}, params=(0, 1)))
    add(Case("ISTFT-length", "ISTFT", "opset16", [spec[0], hann, np.int64(16), np.int64(4), np.int64(30)],
             {"center": True, "normalized": False}, params=(0, 1)))
    add(Case("ISTFT-length-long", "ISTFT", "opset16", [spec, hann, np.int64(16), np.int64(4), np.int64(70)],
             {"center": False, "normalized": False}, params=(0, 1)))
    add(Case("ISTFT-shape-dyn", "ISTFT", "opset16", [Dyn("f32", "?,9,3..11,2"), Dyn("f32", "16"), np.int64(16), np.int64(4)],
             {"center": True, "normalized": False}, params=()))


# SparseFillEmptyRows
def sparse_cases() -> None:
    idx = i64(0, 1, 0, 3, 2, 0, 5, 2, 2, 4).reshape(5, 2)
    add(Case("SparseFillEmptyRows-basic", "SparseFillEmptyRows", "opset16",
             [f32(1, 2, 3, 4, 5), i64(7, 6), idx, np.float32(-1)], params=(0, 2)))
    add(Case("SparseFillEmptyRows-i32-none-empty", "SparseFillEmptyRows", "opset16",
             [np.arange(3, dtype=np.int32), np.array([3, 3], np.int32), np.array([[2, 1], [0, 0], [1, 2]], np.int32),
              np.int32(9)], params=(0, 2)))
    add(Case("SparseFillEmptyRows-empty", "SparseFillEmptyRows", "opset16",
             [np.zeros(0, np.float32), i64(3, 2), np.zeros((0, 2), np.int64), np.float32(7)], params=(0, 2)))
    add(Case("SparseFillEmptyRows-shape-dyn", "SparseFillEmptyRows", "opset16",
             [Dyn("f32", "?"), i64(10, 4), Dyn("i64", "5,2"), Dyn("f32", "")], params=()))


# Multinomial (the RandomUniform stream)
def multinomial_cases() -> None:
    mn = lambda rep, log=False, et="i64": {"convert_type": et, "with_replacement": rep, "log_probs": log,  # noqa: E731
                                           "global_seed": 7, "op_seed": 11}
    probs = rnd.rng.random((3, 6)).astype(np.float32)
    probs[1, 2] = 0
    for rep in (True, False):
        add(Case(f"Multinomial-rep-{rep}", "Multinomial", "opset13", [probs, np.int64(5)], mn(rep), params=()))
    add(Case("Multinomial-log", "Multinomial", "opset13", [np.log(probs + 0.01), np.int32(8)], mn(True, True, "i32"), params=()))
    add(Case("Multinomial-1d", "Multinomial", "opset13", [probs[0], i64(4)], mn(False), params=()))
    add(Case("Multinomial-f64", "Multinomial", "opset13", [probs.astype(np.float64), np.int64(5)], mn(True), params=()))
    add(Case("Multinomial-shape-dyn", "Multinomial", "opset13", [Dyn("f32", "?,10"), Dyn("i64", "")], mn(True), params=()))


def promote_cases() -> None:
    cp = lambda unsafe=False, scalar=False, target="f32": {"promote_unsafe": unsafe, "pytorch_scalar_promotion": scalar,  # noqa: E731
                                                           "u64_integer_promotion_target": target}
    vals = {"f32": f32(1.5, -2.25), "f16": np.array([0.5, 3], F16), "f64": np.array([1e10, -1], np.float64),
            "i8": np.array([-3, 7], np.int8), "u8": np.array([200, 3], np.uint8), "i32": np.array([-70000, 5], np.int32),
            "u32": np.array([4000000000, 1], np.uint32), "i64": i64(-5, 2 ** 40), "u64": np.array([7, 2 ** 63], np.uint64),
            "boolean": np.array([True, False]), "i16": np.array([-300, 4], np.int16), "bf16": f32(1.5, 2).astype(nn.BF16)}
    pairs = [("f32", "i8"), ("f32", "i16"), ("f32", "i32"), ("f64", "i32"), ("u8", "i8"), ("u8", "i32"), ("u32", "i64"),
             ("u64", "i32"), ("i8", "i64"), ("f16", "f32"), ("boolean", "i32"), ("f16", "bf16"), ("u8", "f16")]
    for x, y in pairs:
        for unsafe in (False, True):
            add(Case(f"ConvertPromoteTypes-{x}-{y}-{unsafe}", "ConvertPromoteTypes", "opset14", [vals[x], vals[y]],
                     cp(unsafe), params=(0, 1)))
    add(Case("ConvertPromoteTypes-u64-target", "ConvertPromoteTypes", "opset14", [vals["u64"], vals["i8"]],
             cp(True, target="i64"), params=(0, 1)))
    for x, y in [("i64", "i8"), ("i8", "i64"), ("f16", "f64"), ("i8", "u8"), ("u8", "i16")]:
        for unsafe in (False, True):
            add(Case(f"ConvertPromoteTypes-scalar-{x}-{y}-{unsafe}", "ConvertPromoteTypes", "opset14",
                     [vals[x][:1].reshape(()), vals[y]], cp(unsafe, True), params=(0, 1)))



def binary_convolution_cases() -> None:
    bc = {"strides": [1, 1], "pads_begin": [1, 0], "pads_end": [0, 1], "dilations": [1, 1], "mode": "xnor-popcount",
          "pad_value": 1.0, "auto_pad": "explicit"}
    for tag, shapes, attrs in [("static", ["1,3,5,6", "4,3,3,3"], bc), ("dyn", ["?,3,?,?", "4,3,2,2"], bc),
                               ("same", ["2,3,5,6", "4,3,3,3"], {**bc, "auto_pad": "same_upper", "strides": [2, 2]}),
                               ("bad-channels", ["1,2,5,6", "4,3,3,3"], bc)]:
        add(Case(f"BinaryConvolution-shape-{tag}", "BinaryConvolution", "opset1",
                 [Dyn("f32", shapes[0]), Dyn("u1", shapes[1])], attrs, params=()))


BUILDERS = [sink_cases, movement_cases, embedding_cases, ctc_cases, random_cases, small_cases, color_cases,
            deformable_cases, stft_cases, sparse_cases, multinomial_cases, promote_cases, binary_convolution_cases]
_own_cases = CASES.built_by(*BUILDERS)


def all_cases() -> list[Case]:
    """This file's cases, then the detection ops' (tools/expectations/opsets_detection_cases.py)."""
    return _own_cases() + detection.all_cases()


if __name__ == "__main__":
    sys.exit(nn.main(cases_of=all_cases, out="opsets_expectations", doc=__doc__, measure_case=aqm.measure))
