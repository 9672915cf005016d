"""Measure OpenVINO's FakeQuantize, ScaledDotProductAttention, GroupConvolutionBackpropData, the
remaining activations, LRN and the batch/sequence data-movement ops into ONE fixture.

    python -m tools.expectations.make_attention_quantize_movement_expectations [--out tests/fixtures/attention_quantize_movement_expectations] [-k substring]

Writes tests/fixtures/attention_quantize_movement_expectations.{json,npz} in the format of tools/expectations/make_nn_expectations.py
(its Case/Dyn, build_case, measure and main are reused; tests/ops/nn_cases.py reads the pair).
One addition: ConstantFolding leaves some ops unfolded although they have a reference kernel
(FakeQuantize is never folded), so a ``run`` case whose reference evaluator gave no answer is
also evaluated by ``Node.evaluate`` on the node built from Constants (the reference kernel
itself). Where the CPU plugin and that kernel disagree beyond the tolerances, the ops in
:data:`PREFER_REFERENCE` take the reference kernel as the expected outputs (``oracle:
"reference"``, the CPU's arrays kept as ``cpu_arrays``), the others keep the CPU's outputs and
record the kernel's as ``reference_arrays``.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from tools.expectations import make_nn_expectations as nn
from tools.expectations.make_nn_expectations import BACKPROP, BF16, F16, Case, Cases, Dyn, Rnd, conv_attrs, f32, i64

CASES = Cases()
add = CASES.add
rnd = Rnd(20263)
#: where the CPU plugin and the reference kernel disagree, the reference kernel is the oracle
#: (FakeQuantize: the CPU plugin maps NaN to output_low, equal input limits to NaN, ignores bf16)
PREFER_REFERENCE = {"FakeQuantize"}


def scalars(dtype, *values) -> list[np.ndarray]:
    return [np.array(v, dtype) for v in values]


# ---------------------------------------------------------------------------------------------
# FakeQuantize

def fake_quantize_cases() -> None:
    fq = lambda levels, ab="numpy": {"levels": levels, "auto_broadcast": ab}  # noqa: E731
    x = rnd(2, 3, 4, 5)
    x[0, 0, 0, :] = [np.nan, np.inf, -np.inf, -0.0, 0.0]
    lims = scalars(np.float32, -1.3, 1.7, -0.5, 2.3)
    for levels in (256, 255, 16, 3, 2):
        add(Case(f"FakeQuantize-levels{levels}", "FakeQuantize", "opset1", [x, *lims], fq(levels)))
    for dt in (F16, BF16, np.dtype(np.float64)):
        add(Case(f"FakeQuantize-{nn.ETYPE[dt]}", "FakeQuantize", "opset1",
                 [x.astype(dt), *(v.astype(dt) for v in lims)], fq(256)))
    # every sixth f16 in [-4, 4] through one quantizer (the rounding of the f16 path)
    h = np.arange(1 << 16, dtype=np.uint16).view(np.float16)
    h = h[np.isfinite(h) & (np.abs(h) <= 4)][::6]
    add(Case("FakeQuantize-f16-all", "FakeQuantize", "opset1", [h, *scalars(F16, -1.3, 1.7, -0.5, 2.3)], fq(255)))
    ties = f32(0.5, 1.5, 2.5, 3.5, 253.5, 254.5, -0.0, 0, 255, 255.5)
    add(Case("FakeQuantize-ties", "FakeQuantize", "opset1", [ties, *scalars(np.float32, 0, 255, 0, 255)], fq(256)))
    add(Case("FakeQuantize-ties-f16", "FakeQuantize", "opset1", [ties.astype(F16), *scalars(F16, 0, 255, 0, 255)], fq(256)))
    xs = f32(np.nan, -np.inf, np.inf, -1, 0.3, 0.5, 0.7, 2)
    for tag, lim in [("inverted-input", (1, 0, 0, 1)), ("equal-input", (0.5, 0.5, -1, 1)),
                     ("inverted-output", (0, 1, 1, -1)), ("binary", (0.4, 0.4, 0, 1))]:
        add(Case(f"FakeQuantize-{tag}", "FakeQuantize", "opset1", [xs, *scalars(np.float32, *lim)],
                 fq(2 if tag == "binary" else 3)))
    # per-channel limits (the INT8 CNN pattern), as Constants and as Parameters
    c = 3
    il = rnd(1, c, 1, 1, lo=-2, hi=-0.5)
    ih = rnd(1, c, 1, 1, lo=0.5, hi=2)
    add(Case("FakeQuantize-per-channel", "FakeQuantize", "opset1",
             [x, il, ih, np.zeros((1, 1, 1, 1), np.float32), np.full((1, 1, 1, 1), 255, np.float32)], fq(256)))
    add(Case("FakeQuantize-per-channel-out", "FakeQuantize", "opset1",
             [x, il, ih, il * 2, ih * 2], fq(256), params=(0, 1, 2, 3, 4)))
    add(Case("FakeQuantize-mixed-bcast", "FakeQuantize", "opset1",
             [x, rnd(1, 1, 1, 5, lo=-2, hi=-1), rnd(1, c, 1, 1, lo=1, hi=2), np.zeros((1, 1, 1, 1), np.float32),
              rnd(c, 1, 1, lo=5, hi=10)], fq(5)))
    add(Case("FakeQuantize-none", "FakeQuantize", "opset1",
             [x, *(np.full(x.shape, v, np.float32) for v in (-1, 1, 0, 10))], fq(11, "none")))
    add(Case("FakeQuantize-pdpd-scalar", "FakeQuantize", "opset1", [x, *lims], fq(256, "pdpd")))
    add(Case("FakeQuantize-pdpd-2d", "FakeQuantize", "opset1",
             [rnd(2, 3, 4), rnd(2, 3, lo=-2, hi=-1), *scalars(np.float32, 2.5, 0, 1)], fq(3, "pdpd")))
    add(Case("FakeQuantize-scalar-data", "FakeQuantize", "opset1", [np.float32(0.37), *lims], fq(256)))
    add(Case("FakeQuantize-big-limit", "FakeQuantize", "opset1",
             [rnd(2, 3), rnd(4, 2, 3, lo=-2, hi=-1), *scalars(np.float32, 1, 0, 1)], fq(3)))
    add(Case("FakeQuantize-levels1", "FakeQuantize", "opset1", [xs, *scalars(np.float32, 0, 1, 0, 1)], fq(1)))
    add(Case("FakeQuantize-i32", "FakeQuantize", "opset1",
             [np.arange(-3, 4, dtype=np.int32), *scalars(np.int32, -2, 2, 0, 10)], fq(5)))
    for tag, shapes, ab in [("numpy", ["?,3,2..5", "1,3,1", "1", "1", "1"], "numpy"),
                            ("rank-dyn", ["...", "1,3,1", "1", "1", "1"], "numpy"),
                            ("limit-rank-dyn", ["2,3", "...", "1", "1", "1"], "numpy"),
                            ("bigger-limit", ["2,3", "4,2,3", "1", "1", "1"], "numpy"),
                            ("numpy-bad", ["2,3", "4", "1", "1", "1"], "numpy"),
                            ("cumulative", ["?,3", "2,3", "5,3", "1", "1"], "numpy"),
                            ("none", ["?,3", "2,3", "2,3", "2,3", "2,3"], "none"),
                            ("none-bad", ["2,3", "1,3", "2,3", "2,3", "2,3"], "none"),
                            ("pdpd", ["2,3,4", "2,3", "1", "1", "1"], "pdpd"),
                            ("pdpd-bad", ["2,3", "2,3,4", "1", "1", "1"], "pdpd"),
                            ("f16", ["2..,3", "1", "1", "1", "1"], "numpy")]:
        et = "f16" if tag == "f16" else "f32"
        add(Case(f"FakeQuantize-shape-{tag}", "FakeQuantize", "opset1", [Dyn(et, s) for s in shapes],
                 fq(256, ab), params=()))
    add(Case("FakeQuantize-shape-mixed-types", "FakeQuantize", "opset1",
             [Dyn("f32", "2,3"), Dyn("f16", "1"), Dyn("f32", "1"), Dyn("f32", "1"), Dyn("f32", "1")], fq(256), params=()))


# ---------------------------------------------------------------------------------------------
# ScaledDotProductAttention

def attention_cases() -> None:
    R = rnd.normal
    sd = lambda causal=False: {"causal": causal}  # noqa: E731
    q, k, v = R(2, 3, 4, 8), R(2, 3, 5, 8), R(2, 3, 5, 6)
    bm = rnd.rng.random((2, 1, 4, 5)) > 0.4
    bm[..., 0] = True
    full = bm.copy()
    full[0, 0, 1] = False
    qkv = (0, 1, 2)
    for tag, ins, causal in [
            ("plain", [q, k, v], False), ("causal", [q, k, v], True),
            ("float-mask", [q, k, v, R(2, 1, 4, 5)], False), ("bool-mask", [q, k, v, bm], False),
            ("bool-mask-full-row", [q, k, v, full], False), ("mask-L1", [q, k, v, R(1, 5)], False),
            ("mask-rank2", [q, k, v, R(4, 5)], False), ("mask-S1", [q, k, v, R(4, 1)], False),
            ("mask-zero", [q, k, v, np.float32(0)], False), ("mask-scalar-nonzero", [q, k, v, np.float32(1.5)], False),
            ("mask-scalar-false", [q, k, v, np.array(False)], False),
            ("mask-causal", [q, k, v, R(4, 5)], True), ("scale", [q, k, v, R(2, 1, 4, 5), np.float32(0.3)], False),
            ("scale-1d", [q, k, v, R(4, 5), f32(0.7)], False), ("scale-causal", [q, k, v, R(4, 5), np.float32(0.2)], True),
            ("mask-neginf", [q, k, v, np.where(bm, 0, -np.inf).astype(np.float32)], False),
            ("bcast", [R(1, 3, 4, 8), R(2, 1, 5, 8), R(2, 3, 5, 6)], False),
            ("bcast-mask-batch", [R(1, 1, 4, 8), R(1, 1, 5, 8), R(1, 1, 5, 6), R(2, 3, 4, 5)], False),
            ("mask-L-bcast-query", [R(1, 2, 1, 8), R(1, 2, 5, 8), R(1, 2, 5, 6), R(1, 2, 4, 5)], False),
            ("rank3", [R(2, 4, 8), R(2, 5, 8), R(2, 5, 6)], False),
            ("rank5", [R(2, 2, 1, 4, 8), R(2, 1, 3, 5, 8), R(1, 2, 3, 5, 6)], False),
            ("causal-L-gt-S", [R(1, 6, 4), R(1, 3, 4), R(1, 3, 2)], True),
            ("causal-L-lt-S", [R(1, 3, 4), R(1, 6, 4), R(1, 6, 2)], True),
            ("large", [R(1, 2, 3, 4) * 30, R(1, 2, 5, 4) * 30, R(1, 2, 5, 3)], False),
            ("E-mismatch", [R(1, 4, 8), R(1, 5, 1), R(1, 5, 6)], False),
            ("S-mismatch", [R(1, 4, 8), R(1, 1, 8), R(1, 5, 6)], False),
            ("empty-L", [R(1, 0, 8), R(1, 5, 8), R(1, 5, 6)], False),
            ("empty-S", [R(1, 4, 8), R(1, 0, 8), R(1, 0, 6)], False),
            ("f16", [a.astype(F16) for a in (q, k, v)], False),
            ("f16-mask", [a.astype(F16) for a in (q, k, v, R(4, 5))], False),
            ("bf16", [a.astype(BF16) for a in (q, k, v)], True),
            ("f64", [a.astype(np.float64) for a in (q, k, v)], False),
            ("f16-mask-f32", [*(a.astype(F16) for a in (q, k, v)), R(4, 5)], False),
            ("i32", [rnd(1, 2, 3, dtype=np.int32), rnd(1, 2, 3, dtype=np.int32), rnd(1, 2, 3, dtype=np.int32)], False)]:
        add(Case(f"ScaledDotProductAttention-{tag}", "ScaledDotProductAttention", "opset13", ins, sd(causal), params=qkv))
    add(Case("ScaledDotProductAttention-all-params", "ScaledDotProductAttention", "opset13",
             [q, k, v, R(4, 5), np.float32(0.25)], sd(), params=(0, 1, 2, 3, 4)))
    for tag, shapes, causal in [
            ("dyn", ["?,?,?,64", "?,?,?,64", "?,?,?,32", "?,1,?,?"], False),
            ("spec-example-1", ["1,-1,80", "1,-1,80", "1,-1,80", "1,-1,-1"], False),
            ("spec-example-3", ["1,6,5,-1,80", "2,2,2,-1,80", "4,3,10,-1,80", "1,2,1,-1,-1"], False),
            ("bcast", ["1,6,?,80", "4,1,?,80", "4,6,?,16"], False),
            ("interval", ["2..4,8,1..10,16", "?,8,5..20,16", "3,1,?,8"], False),
            ("query-rank-dyn", ["...", "2,8,10,16", "2,8,10,8"], False),
            ("key-rank-dyn", ["2,8,4,16", "...", "2,8,10,8"], False),
            ("value-rank-dyn", ["2,8,4,16", "2,8,10,16", "..."], False),
            ("rank2", ["4,16", "10,16", "10,8"], False),
            ("batch-bad", ["2,4,16", "3,10,16", "3,10,8"], False),
            ("E-bad", ["2,4,16", "2,10,8", "2,10,8"], False),
            ("E-one", ["2,4,16", "2,10,1", "2,10,8"], False),
            ("S-bad", ["2,4,16", "2,10,16", "2,7,8"], False),
            ("mask-bad", ["2,4,16", "2,10,16", "2,10,8", "2,3,10"], False),
            ("mask-bad-causal", ["2,4,16", "2,10,16", "2,10,8", "2,3,10"], True),
            ("mask-L-grows", ["2,1,16", "2,10,16", "2,10,8", "2,4,10"], False),
            ("mask-batch-grows", ["1,4,16", "1,10,16", "1,10,8", "3,4,10"], False),
            ("mask-rank1", ["2,4,16", "2,10,16", "2,10,8", "10"], False),
            ("mask-scalar", ["2,4,16", "2,10,16", "2,10,8", ""], False),
            ("mask-rank-dyn", ["2,4,16", "2,10,16", "2,10,8", "..."], False),
            ("scale-bad", ["2,4,16", "2,10,16", "2,10,8", "4,10", "2"], False),
            ("scale-1", ["2,4,16", "2,10,16", "2,10,8", "4,10", "1"], False)]:
        add(Case(f"ScaledDotProductAttention-shape-{tag}", "ScaledDotProductAttention", "opset13",
                 [Dyn("f32", s) for s in shapes], sd(causal), params=()))
    for tag, types in [("f16-f32", ["f16", "f32", "f32"]), ("mask-bool", ["f32", "f32", "f32", "boolean"]),
                       ("mask-f16", ["f32", "f32", "f32", "f16"]), ("mask-i32", ["f32", "f32", "f32", "i32"]),
                       ("scale-f16", ["f32", "f32", "f32", "f32", "f16"]), ("i32", ["i32", "i32", "i32"]),
                       ("dynamic", ["dynamic", "f16", "f16"])]:
        shapes = ["2,4,16", "2,10,16", "2,10,8", "4,10", ""][:len(types)]
        add(Case(f"ScaledDotProductAttention-shape-types-{tag}", "ScaledDotProductAttention", "opset13",
                 [Dyn(t, s) for t, s in zip(types, shapes)], sd(), params=()))


# ---------------------------------------------------------------------------------------------
# GroupConvolutionBackpropData

def group_backprop_cases() -> None:
    bp = conv_attrs
    xb, wb = rnd(1, 4, 4, 5), rnd(2, 2, 3, 3, 3)          # G=2, C_in/G=2, C_out/G=3
    xd, wd = rnd(2, 3, 4, 4), rnd(3, 1, 2, 3, 3)          # depthwise with a multiplier of 2
    geometries = ("basic", "stride2-pads", "stride2-outpad", "stride3-asym", "dilation", "valid",
                  "same_upper-no-outshape", "outshape-explicit", "outshape-same_upper", "outshape-same_lower-odd")
    for tag, ins, a in [
            *[(t, [xb, wb, *BACKPROP[t][0]], BACKPROP[t][1]) for t in geometries],
            ("depthwise", [xd, wd], bp((2, 2), (1, 1), (1, 1), (1, 1))),
            ("depthwise-k1", [xd, rnd(3, 1, 1, 2, 2)], bp((2, 2), (0, 0), (0, 0), (1, 1))),
            ("1d", [rnd(2, 4, 5), rnd(2, 2, 3, 4)], bp((2,), (1,), (0,), (1,))),
            ("3d", [rnd(1, 4, 3, 2, 3), rnd(4, 1, 1, 2, 3, 2)], bp((2, 1, 2), (0, 1, 1), (1, 0, 0), (1, 1, 1))),
            ("one-group", [rnd(1, 3, 4, 5), rnd(1, 3, 2, 3, 3)], bp((2, 2), (1, 1), (1, 1), (1, 1))),
            ("f16", [xb.astype(F16), wb.astype(F16)], bp((2, 2), (1, 1), (1, 1), (1, 1))),
            ("i32", [rnd(1, 4, 3, 3, dtype=np.int32, lo=-4, hi=4), rnd(2, 2, 2, 2, 2, dtype=np.int32, lo=-3, hi=3)],
             bp((2, 2), (0, 0), (0, 0), (1, 1)))]:
        add(Case(f"GroupConvolutionBackpropData-{tag}", "GroupConvolutionBackpropData", "opset1", ins, a))
    add(Case("GroupConvolutionBackpropData-params", "GroupConvolutionBackpropData", "opset1",
             [xb, wb, i64(8, 9)], bp((2, 2), (1, 0), (0, 1), (1, 1)), params=(0, 1)))
    W = np.zeros((2, 2, 3, 3, 3), np.float32)
    for tag, x, w, extra, a in [
            ("static", "1,4,5,5", W, [], bp((2, 2), (1, 1), (1, 1), (1, 1))),
            ("interval", "1,4,2..5,?", W, [], bp((2, 2), (1, 1), (1, 1), (1, 1))),
            ("rank-dyn", "...", W, [], bp((2, 2), (1, 1), (1, 1), (1, 1))),
            ("channels", "1,5,5,5", W, [], bp((2, 2), (1, 1), (1, 1), (1, 1))),
            ("dyn-channels", "1,?,5,5", W, [], bp((2, 2), (1, 1), (1, 1), (1, 1))),
            ("dyn-groups", "1,4,5,5", Dyn("f32", "?,2,3,3,3"), [], bp((2, 2), (1, 1), (1, 1), (1, 1))),
            ("dyn-filter", "1,4,5,5", Dyn("f32", "?,?,?,3,3"), [], bp((2, 2), (1, 1), (1, 1), (1, 1))),
            ("filter-rank-dyn", "1,4,5,5", Dyn("f32", "..."), [], bp((2, 2), (1, 1), (1, 1), (1, 1))),
            ("rank-mismatch", "1,4,5,5", Dyn("f32", "2,2,3,3"), [], bp((2, 2), (1, 1), (1, 1), (1, 1))),
            ("outshape", "1,4,5,5", W, [i64(10, 9)], bp((2, 2), (1, 1), (1, 1), (1, 1))),
            ("outshape-dyn", "1,4,5,5", W, [Dyn("i64", "2")], bp((2, 2), (1, 1), (1, 1), (1, 1))),
            ("outshape-len", "1,4,5,5", W, [i64(10, 9, 3)], bp((2, 2), (1, 1), (1, 1), (1, 1))),
            ("outpad-len", "1,4,5,5", W, [], bp((2, 2), (1, 1), (1, 1), (1, 1), output_padding=[1])),
            ("types", "1,4,5,5", Dyn("f16", "2,2,3,3,3"), [], bp((2, 2), (1, 1), (1, 1), (1, 1)))]:
        add(Case(f"GroupConvolutionBackpropData-shape-{tag}", "GroupConvolutionBackpropData", "opset1",
                 [Dyn("f32", x), w, *extra], a, params=()))


# ---------------------------------------------------------------------------------------------
# Activations, LRN

def activation_cases() -> None:
    x = np.concatenate([np.linspace(-30, 30, 25), f32(-100, -1e-3, 0, 1e-3, 11.5, 88.5, 89, 100, np.nan, np.inf, -np.inf)]).astype(np.float32)
    for dt in (np.float32, F16, BF16, np.float64):
        e = nn.etype(dt)
        xs = x.astype(dt)
        add(Case(f"HardSigmoid-{e}", "HardSigmoid", "opset1", [xs, *scalars(dt, 0.2, 0.5)]))
        add(Case(f"Selu-{e}", "Selu", "opset1", [xs, *scalars(dt, 1.6732632423543772, 1.0507009873554805)]))
        add(Case(f"SoftPlus-{e}", "SoftPlus", "opset4", [xs]))
        add(Case(f"SoftSign-{e}", "SoftSign", "opset9", [xs]))
        add(Case(f"Identity-{e}", "Identity", "opset16", [xs]))
    xi = np.arange(-5, 6, dtype=np.int32)
    add(Case("HardSigmoid-params", "HardSigmoid", "opset1", [x, *scalars(np.float32, 0.3, 0.1)], params=(0, 1, 2)))
    add(Case("HardSigmoid-1d-alpha", "HardSigmoid", "opset1", [x, f32(0.2), f32(0.5)]))
    add(Case("HardSigmoid-alpha-rank2", "HardSigmoid", "opset1", [x, np.full((1, 1), 0.2, np.float32), f32(0.5)]))
    add(Case("HardSigmoid-alpha-2", "HardSigmoid", "opset1", [x, f32(0.2, 0.3), f32(0.5)]))
    add(Case("HardSigmoid-types", "HardSigmoid", "opset1", [x, np.float16(0.2), np.float32(0.5)]))
    add(Case("HardSigmoid-i32", "HardSigmoid", "opset1", [xi, *scalars(np.int32, 1, 2)]))
    add(Case("Selu-params", "Selu", "opset1", [x, *scalars(np.float32, 1.5, 2.0)], params=(0, 1, 2)))
    add(Case("Selu-1d", "Selu", "opset1", [x, f32(1.5), f32(2.0)]))
    add(Case("Selu-alpha-2", "Selu", "opset1", [x, f32(1.5, 1), f32(2.0)]))
    add(Case("Selu-types", "Selu", "opset1", [x, np.float16(1.5), np.float32(2.0)]))
    add(Case("Selu-i32", "Selu", "opset1", [xi, *scalars(np.int32, 2, 3)]))
    add(Case("SoftPlus-i32", "SoftPlus", "opset4", [xi]))
    add(Case("SoftSign-i32", "SoftSign", "opset9", [xi]))
    add(Case("Identity-i32", "Identity", "opset16", [xi]))
    add(Case("Identity-bool", "Identity", "opset16", [xi > 0]))
    for tag, shape in [("dyn", "?,2..5"), ("rank-dyn", "...")]:
        for t, o, extra in [("HardSigmoid", "opset1", [np.float32(0.2), np.float32(0.5)]), ("Selu", "opset1", [np.float32(1.5), np.float32(2.0)]),
                            ("SoftPlus", "opset4", []), ("SoftSign", "opset9", []), ("Identity", "opset16", [])]:
            add(Case(f"{t}-shape-{tag}", t, o, [Dyn("f32", shape), *extra], params=()))
    lrn = lambda alpha=1e-4, beta=0.75, bias=1.0, size=5: dict(alpha=alpha, beta=beta, bias=bias, size=size)  # noqa: E731
    xl = rnd(2, 7, 4, 5)
    for tag, axes, a in [("channels", i64(1), lrn()), ("channels-big", i64(1), lrn(alpha=0.5, beta=0.6, bias=2.0, size=3)),
                         ("spatial", i64(2, 3), lrn(alpha=0.3, size=3)), ("even-size", i64(1), lrn(alpha=0.5, size=4)),
                         ("size1", i64(1), lrn(alpha=0.5, size=1)), ("size-large", i64(1), lrn(alpha=0.5, size=21)),
                         ("axis3", i64(3), lrn(alpha=0.5, size=3)), ("axes-1-2", i64(1, 2), lrn(alpha=0.5, size=3)),
                         ("negative-axis", i64(-1), lrn(alpha=0.5, size=3)), ("axes-empty", np.zeros(0, np.int64), lrn(alpha=0.5)),
                         ("axes-unordered", i64(3, 2), lrn(alpha=0.3, size=3)), ("axes-i32", np.array([1], np.int32), lrn())]:
        add(Case(f"LRN-{tag}", "LRN", "opset1", [xl, axes], a))
    add(Case("LRN-3d", "LRN", "opset1", [rnd(2, 5, 6), i64(1)], lrn(alpha=0.5, size=3)))
    add(Case("LRN-2d", "LRN", "opset1", [rnd(3, 6), i64(1)], lrn(alpha=0.5, size=3)))
    add(Case("LRN-f16", "LRN", "opset1", [xl.astype(F16), i64(1)], lrn(alpha=0.5, size=3)))
    add(Case("LRN-axes-param", "LRN", "opset1", [xl, i64(1)], lrn(alpha=0.5, size=3), params=(0, 1)))
    for tag, x, axes, a in [("dyn", Dyn("f32", "?,3,?,?"), i64(1), lrn()), ("rank-dyn", Dyn("f32", "..."), i64(1), lrn()),
                            ("axis-out", Dyn("f32", "2,3,4,5"), i64(4), lrn()), ("axes-dup", Dyn("f32", "2,3,4,5"), i64(1, 1), lrn()),
                            ("axes-rank2", Dyn("f32", "2,3,4,5"), np.array([[1]], np.int64), lrn()),
                            ("axes-float", Dyn("f32", "2,3,4,5"), f32(1), lrn()),
                            ("axes-too-many", Dyn("f32", "2,3"), i64(0, 1, 0), lrn()),
                            ("axes-dyn", Dyn("f32", "2,3,4,5"), Dyn("i64", "?"), lrn()),
                            ("size0", Dyn("f32", "2,3,4,5"), i64(1), lrn(size=0)),
                            ("i32", Dyn("i32", "2,3,4,5"), i64(1), lrn())]:
        add(Case(f"LRN-shape-{tag}", "LRN", "opset1", [x, axes], a, params=()))


# ---------------------------------------------------------------------------------------------
# Bucketize, SpaceToBatch, BatchToSpace, ReverseSequence, Reverse

def movement_cases() -> None:
    data = f32(-np.inf, -3, -1, -0.5, 0, 0.5, 1, 2.5, 3, 7, np.inf, np.nan)
    b = f32(-1, 0, 1, 3)
    for right in (True, False):
        for ot in ("i64", "i32"):
            add(Case(f"Bucketize-{'right' if right else 'left'}-{ot}", "Bucketize", "opset3", [data, b],
                     {"output_type": ot, "with_right_bound": right}))
    add(Case("Bucketize-empty-buckets", "Bucketize", "opset3", [data, np.zeros(0, np.float32)], {"output_type": "i64"}))
    add(Case("Bucketize-dup-buckets", "Bucketize", "opset3", [data, f32(0, 0, 1, 1)], {"output_type": "i64", "with_right_bound": False}))
    add(Case("Bucketize-i32", "Bucketize", "opset3", [np.arange(-3, 9, dtype=np.int32).reshape(3, 4), np.array([0, 2, 5], np.int32)],
             {"output_type": "i32"}))
    add(Case("Bucketize-mixed", "Bucketize", "opset3", [np.arange(-3, 9, dtype=np.int64).reshape(3, 4), f32(-0.5, 2.5, 5)],
             {"output_type": "i64", "with_right_bound": False}))
    add(Case("Bucketize-f16", "Bucketize", "opset3", [data.astype(F16), b.astype(F16)], {"output_type": "i64"}))
    add(Case("Bucketize-buckets-param", "Bucketize", "opset3", [data, b], {"output_type": "i64"}, params=(0, 1)))
    add(Case("Bucketize-unsorted", "Bucketize", "opset3", [data, f32(3, -1, 1, 0)], {"output_type": "i64"}))
    for tag, x, bk, a in [("dyn", Dyn("f32", "?,2..4"), Dyn("f32", "?"), {"output_type": "i32"}),
                          ("rank-dyn", Dyn("f32", "..."), Dyn("f32", "3"), {"output_type": "i64"}),
                          ("buckets-rank2", Dyn("f32", "2,3"), Dyn("f32", "2,3"), {"output_type": "i64"}),
                          ("buckets-bool", Dyn("f32", "2,3"), Dyn("boolean", "3"), {"output_type": "i64"}),
                          ("output-f32", Dyn("f32", "2,3"), Dyn("f32", "3"), {"output_type": "f32"}),
                          ("bool", Dyn("boolean", "2,3"), Dyn("f32", "3"), {"output_type": "i64"})]:
        add(Case(f"Bucketize-shape-{tag}", "Bucketize", "opset3", [x, bk], a, params=()))
    x4 = np.arange(2 * 6 * 10 * 3, dtype=np.float32).reshape(2, 6, 10, 3)
    for tag, x, bs, pb, pe in [
            ("4d", x4, i64(1, 2, 4, 3), i64(0, 0, 1, 0), i64(0, 0, 1, 0)),
            ("2d", np.arange(12, dtype=np.float32).reshape(2, 6), i64(1, 3), i64(0, 1), i64(0, 2)),
            ("no-op", x4, i64(1, 1, 1, 1), i64(0, 0, 0, 0), i64(0, 0, 0, 0)),
            ("i32-inputs", x4, np.array([1, 3, 2, 1], np.int32), np.array([0, 0, 0, 0], np.int32), np.array([0, 0, 0, 0], np.int32)),
            ("block0", x4, i64(2, 2, 2, 1), i64(0, 0, 0, 0), i64(0, 0, 0, 0)),
            ("pad0", x4, i64(1, 2, 2, 1), i64(1, 0, 0, 0), i64(1, 0, 0, 0)),
            ("indivisible", x4, i64(1, 4, 2, 1), i64(0, 0, 0, 0), i64(0, 0, 0, 0)),
            ("negative-pad", x4, i64(1, 2, 2, 1), i64(0, -2, 0, 0), i64(0, 0, 0, 0)),
            ("zero-block", x4, i64(1, 0, 2, 1), i64(0, 0, 0, 0), i64(0, 0, 0, 0))]:
        add(Case(f"SpaceToBatch-{tag}", "SpaceToBatch", "opset2", [x, bs, pb, pe]))
    add(Case("SpaceToBatch-params", "SpaceToBatch", "opset2", [x4, i64(1, 2, 4, 3), i64(0, 0, 1, 0), i64(0, 0, 1, 0)],
             params=(0, 1, 2, 3)))
    add(Case("SpaceToBatch-i8", "SpaceToBatch", "opset2", [rnd(1, 4, 4, 2, dtype=np.int8, lo=-100, hi=100), i64(1, 2, 2, 1), i64(0, 1, 0, 0), i64(0, 1, 0, 0)]))
    x48 = np.arange(48 * 3 * 3 * 3, dtype=np.float32).reshape(48, 3, 3, 1, 3)
    for tag, x, bs, cb, ce in [
            ("spec-5d", x48, i64(1, 2, 4, 3, 1), i64(0, 0, 1, 0, 0), i64(0, 0, 1, 0, 0)),
            ("spec-2d", np.arange(20, dtype=np.float32).reshape(10, 2), i64(1, 5), i64(0, 2), i64(0, 0)),
            ("4d", np.arange(24 * 2 * 3, dtype=np.float32).reshape(24, 2, 1, 3), i64(1, 2, 4, 3), i64(0, 1, 0, 2), i64(0, 0, 3, 1)),
            ("block0", np.arange(48, dtype=np.float32).reshape(8, 2, 3), i64(2, 2, 1), i64(0, 0, 0), i64(0, 0, 0)),
            ("indivisible", np.arange(48, dtype=np.float32).reshape(8, 2, 3), i64(1, 3, 1), i64(0, 0, 0), i64(0, 0, 0)),
            ("crop0", np.arange(48, dtype=np.float32).reshape(8, 2, 3), i64(1, 2, 1), i64(1, 0, 0), i64(0, 0, 0)),
            ("over-crop", np.arange(48, dtype=np.float32).reshape(8, 2, 3), i64(1, 2, 1), i64(0, 3, 0), i64(0, 2, 0))]:
        add(Case(f"BatchToSpace-{tag}", "BatchToSpace", "opset2", [x, bs, cb, ce]))
    add(Case("BatchToSpace-params", "BatchToSpace", "opset2", [x48, i64(1, 2, 4, 3, 1), i64(0, 0, 1, 0, 0), i64(0, 0, 1, 0, 0)],
             params=(0, 1, 2, 3)))
    for t, o in [("SpaceToBatch", "opset2"), ("BatchToSpace", "opset2")]:
        for tag, x, rest in [("static", Dyn("f32", "24,6,4"), [i64(1, 2, 2), i64(0, 1, 0), i64(0, 1, 0)]),
                             ("dyn", Dyn("f32", "?,6,2..8"), [i64(1, 2, 2), i64(0, 0, 0), i64(0, 0, 0)]),
                             ("interval", Dyn("f32", "8..24,6,4"), [i64(1, 2, 2), i64(0, 0, 0), i64(0, 0, 0)]),
                             ("rank-dyn", Dyn("f32", "..."), [i64(1, 2, 2), i64(0, 0, 0), i64(0, 0, 0)]),
                             ("block-dyn", Dyn("f32", "24,6,4"), [Dyn("i64", "3"), i64(0, 0, 0), i64(0, 0, 0)]),
                             ("pads-dyn", Dyn("f32", "24,6,4"), [i64(1, 2, 2), Dyn("i64", "3"), i64(0, 1, 0)]),
                             ("block-dyn-crops", Dyn("f32", "24,6,4"), [Dyn("i64", "3"), i64(0, 1, 0), i64(0, 2, 1)]),
                             ("float-all", Dyn("f32", "24,6,4"), [f32(1, 2, 2), f32(0, 0, 0), f32(0, 0, 0)]),
                             ("len", Dyn("f32", "24,6,4"), [i64(1, 2), i64(0, 0), i64(0, 0)]),
                             ("rank1", Dyn("f32", "24"), [i64(1), i64(0), i64(0)]),
                             ("float-block", Dyn("f32", "24,6,4"), [f32(1, 2, 2), i64(0, 0, 0), i64(0, 0, 0)]),
                             ("mixed-int", Dyn("f32", "24,6,4"), [np.array([1, 2, 2], np.int32), i64(0, 0, 0), i64(0, 0, 0)])]:
            add(Case(f"{t}-shape-{tag}", t, o, [x, *rest], params=()))
    xr = np.arange(4 * 5 * 3, dtype=np.float32).reshape(4, 5, 3)
    for tag, x, lens, a in [("default", xr, i64(1, 5, 3, 0), {}), ("batch2-seq0", xr, i64(2, 4, 0), {"batch_axis": 2, "seq_axis": 0}),
                            ("negative-axes", xr, i64(4, 1, 2, 3, 0), {"batch_axis": -2, "seq_axis": -3}),
                            ("i32-lens", xr, np.array([2, 2, 5, 1], np.int32), {"batch_axis": 0, "seq_axis": 1}),
                            ("f32-lens", xr, f32(2, 2, 5, 1), {}), ("too-long", xr, i64(1, 6, 3, 0), {}),
                            ("negative-len", xr, i64(1, -1, 3, 0), {}),
                            ("same-axes", xr, i64(1, 2, 3, 0), {"batch_axis": 1, "seq_axis": 1}),
                            ("same-axes-square", xr[:, :4], i64(1, 2, 3, 0), {"batch_axis": 1, "seq_axis": 1}),
                            ("bool", xr > 20, i64(1, 5, 3, 0), {})]:
        add(Case(f"ReverseSequence-{tag}", "ReverseSequence", "opset1", [x, lens], a))
    add(Case("ReverseSequence-params", "ReverseSequence", "opset1", [xr, i64(1, 5, 3, 2)], {}, params=(0, 1)))
    for tag, x, lens, a in [("dyn", Dyn("f32", "?,5,3"), Dyn("i64", "4"), {}), ("rank-dyn", Dyn("f32", "..."), Dyn("i64", "4"), {}),
                            ("len-mismatch", Dyn("f32", "4,5,3"), Dyn("i64", "3"), {}),
                            ("lens-rank2", Dyn("f32", "4,5,3"), Dyn("i64", "4,1"), {}),
                            ("axis-out", Dyn("f32", "4,5,3"), Dyn("i64", "4"), {"seq_axis": 3}),
                            ("batch-axis-out", Dyn("f32", "4,5,3"), Dyn("i64", "4"), {"batch_axis": -4}),
                            ("lens-bool", Dyn("f32", "4,5,3"), Dyn("boolean", "4"), {})]:
        add(Case(f"ReverseSequence-shape-{tag}", "ReverseSequence", "opset1", [x, lens], a, params=()))
    xv = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    for tag, x, axes, mode in [("index", xv, i64(0, 2), "index"), ("index-none", xv, np.zeros(0, np.int64), "index"),
                               ("index-neg", xv, i64(-1), "index"), ("mask", xv, np.array([False, True, True]), "mask"),
                               ("index-i32", xv, np.array([1], np.int32), "index"), ("index-dup", xv, i64(1, 1), "index"),
                               ("index-out", xv, i64(3), "index"), ("mask-len", xv, np.array([True, False]), "mask"),
                               ("index-u8", xv, np.array([2], np.uint8), "index")]:
        add(Case(f"Reverse-{tag}", "Reverse", "opset1", [x, axes], {"mode": mode}))
    add(Case("Reverse-params", "Reverse", "opset1", [xv, i64(0, 2)], {"mode": "index"}, params=(0, 1)))
    for tag, x, axes, mode in [("dyn", Dyn("f32", "?,3"), i64(0), "index"), ("rank-dyn", Dyn("f32", "..."), i64(0), "index"),
                               ("axes-dyn", Dyn("f32", "2,3"), Dyn("i64", "?"), "index"),
                               ("mask-type", Dyn("f32", "2,3"), i64(1, 0), "mask"),
                               ("index-type", Dyn("f32", "2,3"), np.array([True, False]), "index"),
                               ("axes-rank2", Dyn("f32", "2,3"), np.array([[1]], np.int64), "index")]:
        add(Case(f"Reverse-shape-{tag}", "Reverse", "opset1", [x, axes], {"mode": mode}, params=()))


all_cases = CASES.built_by(fake_quantize_cases, attention_cases, group_backprop_cases, activation_cases,
                           movement_cases)


# ---------------------------------------------------------------------------------------------
# The reference kernel of ops ConstantFolding leaves alone

def node_evaluate(type_: str, opset: str, inputs: list, attrs: dict):
    """(worker side) ``Node.evaluate`` of the op built on Constants: its reference kernel's
    outputs, or None when it has none for these inputs."""
    import openvino as ov
    from openvino.utils.node_factory import NodeFactory
    from tools.ovoracle import _ov_tensor, _to_numpy

    consts = [ov.op.Constant(_ov_tensor(a)) for a in inputs]
    node = NodeFactory(opset).create(type_, [c.output(0) for c in consts], attrs)
    outs = [ov.Tensor(o.get_element_type(), o.get_shape()) for o in node.outputs()]
    if not node.evaluate(outs, [_ov_tensor(a) for a in inputs]):
        return None
    return [_to_numpy(t.element_type, lambda t=t: t.data, None) for t in outs]


def measure(case: Case, ov, tmp: Path, store) -> dict:
    entry = nn.measure(case, ov, tmp, store)
    unfolded = entry.get("reference", "").startswith("unfolded") or entry.get("status") == "unfolded"
    if entry["kind"] != "run" or not unfolded:
        return entry
    if entry.get("reference", "").startswith("unfolded"):
        entry["reference"] = "no reference kernel"
    r = ov.call(node_evaluate, case.type, case.opset, [np.asarray(a) for a in case.inputs], case.attrs)
    if not r.ok or r.value is None:
        return entry
    ref = r.value
    if entry.get("status") == "unfolded":          # the CPU plugin failed: the kernel is the answer
        entry.update(status="ok", oracle="reference", reference="Node.evaluate")
        entry.pop("stage", None)
        entry.pop("message", None)
        entry["outputs"] = [{"etype": nn.ETYPE[a.dtype], "shape": list(a.shape), "array": store.put(a)} for a in ref]
        return entry
    cpu = [store.arrays[o["array"]] for o in entry["outputs"]]
    cpu = [c.view(BF16) if o["etype"] == "bf16" else c for c, o in zip(cpu, entry["outputs"])]
    agree = [nn._agree(c, a) for c, a in zip(cpu, ref)]
    if all(ok for ok, _ in agree):
        entry["reference"] = "agrees (Node.evaluate)"
        return entry
    diff = "differs (Node.evaluate; max abs diff " + ", ".join(f"{d:.3g}" for _, d in agree) + ")"
    if case.type in PREFER_REFERENCE:
        entry.update(oracle="reference", reference="Node.evaluate", cpu=diff,
                     cpu_arrays=[o["array"] for o in entry["outputs"]])
        entry["outputs"] = [dict(o, array=store.put(a)) for o, a in zip(entry["outputs"], ref)]
    else:
        entry.update(reference=diff, reference_arrays=[store.put(a) for a in ref])
    return entry


if __name__ == "__main__":
    sys.exit(nn.main(cases_of=all_cases, out="attention_quantize_movement_expectations", doc=__doc__, measure_case=measure))
