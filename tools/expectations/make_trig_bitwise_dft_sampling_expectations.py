"""Measure OpenVINO's trigonometric/hyperbolic and bitwise element-wise ops, GridSample, Unique, Eye,
DFT/IDFT/RDFT/IRDFT, ROIAlign and FakeConvert into ONE fixture.

    python -m tools.expectations.make_trig_bitwise_dft_sampling_expectations [--out tests/fixtures/trig_bitwise_dft_sampling_expectations] [-k substring]

Writes tests/fixtures/trig_bitwise_dft_sampling_expectations.{json,npz} in the format of tools/expectations/make_nn_expectations.py
(its Case/Dyn, build_case, measure and main are reused, through tools/expectations/make_attention_quantize_movement_expectations.py's
wrapper that asks ``Node.evaluate`` where ConstantFolding leaves a node alone); tests/ops/nn_cases.py
reads the pair. Case ids start with the op type.

Where the CPU plugin (f32 hint) and the reference kernel disagree, the ops in
:data:`PREFER_REFERENCE` take the reference's outputs as the expected ones (``oracle:
"reference"``, the CPU's arrays kept as ``cpu_arrays``): the element-wise math of integers, whose
rounding irrun takes from the reference kernels (see irrun/ops/elementwise.py). The others keep
the CPU's outputs and record the reference's (``reference_arrays``).

What the cases show (OpenVINO 2026.4.1; the tests list where irrun does not follow the CPU plugin):

* trigonometric ops of integers: the reference kernels round (Acos, Atan, Cosh, Sinh, Tan, Acosh,
  Asinh) or truncate (Asin; the CPU plugin rounds), negative Tan results wrap on unsigned types
  (the CPU plugin saturates u8), Atanh follows its spec's integer rule; f64 has no reference
  kernel and the CPU plugin computes it in f32, saturating to +-FLT_MAX;
* bitwise ops: only i32 has a reference kernel; the CPU plugin computes every type in 32 bits
  (i64/u64 truncated, u32 shifted right arithmetically), shift counts taken modulo 32;
* GridSample: CPU plugin = reference kernel (padding applied to pixel indices), integer data
  rounded to even and saturated for 8-bit types, truncated and wrapped for wider ones;
* Unique: no reference evaluation; the CPU plugin is wrong for some axis inputs (Unique-columns-*);
* DFT family: f64 refused; the CPU plugin fails RDFT with signal_size > input or -1 and returns
  garbage for IRDFT padding (no reference kernel answers);
* ROIAlign: the CPU plugin divides empty bins 0 / 0 (NaN); batch indices beyond N are refused;
* FakeConvert: CPU and reference differ (saturation of NaN, f8e4m3 values below 2**-9, -0.0).
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from tools.expectations import make_attention_quantize_movement_expectations as aqm
from tools.expectations import make_nn_expectations as nn
from tools.expectations.make_nn_expectations import BF16, F16, F64, INF, INTS, NAN, Case, Cases, Dyn, Rnd, etype, f32, i64

CASES = Cases()
add = CASES.add
rnd = Rnd(20264)
TRIG = {"Acos": "opset1", "Asin": "opset1", "Atan": "opset1", "Cosh": "opset1", "Sinh": "opset1", "Tan": "opset1",
        "Acosh": "opset4", "Asinh": "opset4", "Atanh": "opset4"}
BITWISE = {"BitwiseAnd": "opset13", "BitwiseOr": "opset13", "BitwiseXor": "opset13"}
SHIFTS = {"BitwiseLeftShift": "opset15", "BitwiseRightShift": "opset15"}
PREFER_REFERENCE = set(TRIG)


# ---------------------------------------------------------------------------------------------
# Element-wise

#: per op: float inputs (edges: domain limits, outside the domain -> NaN, overflow -> inf) and
#: in-domain integers (signed, unsigned)
TRIG_VALUES = {
    "Acos": ([-1.5, -1, -0.75, -0.5, -0.0, 0, 0.25, 0.5, 0.999, 1, 1.0001, 2, NAN, INF, -INF], [-1, 0, 1], [0, 1]),
    "Asin": ([-1.5, -1, -0.75, -0.5, -0.0, 0, 0.25, 0.5, 0.999, 1, 1.0001, 2, NAN, INF, -INF], [-1, 0, 1], [0, 1]),
    "Atan": ([-1e30, -100, -3, -1, -0.5, -0.0, 0, 0.5, 1, 2.5, 1e30, NAN, INF, -INF], [-100, -3, -1, 0, 1, 2, 100], [0, 1, 2, 200]),
    "Cosh": ([-100, -89, -3, -1, -0.5, -0.0, 0, 0.5, 1, 3, 11.5, 89, 100, NAN, INF, -INF], [-5, -4, -1, 0, 1, 2, 4, 5],
             [0, 1, 2, 3, 4, 5]),
    "Sinh": ([-100, -89, -3, -1, -0.5, -0.0, 0, 0.5, 1, 3, 11.5, 89, 100, NAN, INF, -INF], [-5, -4, -1, 0, 1, 2, 4, 5],
             [0, 1, 2, 3, 4, 5]),
    "Tan": ([-3, -1.5707964, -1, -0.5, -0.0, 0, 0.5, 1, 1.5, 1.5707964, 3, 100, NAN, INF, -INF], [-3, -2, -1, 0, 1, 2, 3, 7],
            [0, 1, 2, 3, 7]),
    "Acosh": ([-1, 0, 0.5, 0.999, 1, 1.0001, 1.5, 2, 10, 1e30, NAN, INF, -INF], [1, 2, 3, 10, 100], [1, 2, 3, 10, 100]),
    "Asinh": ([-1e30, -10, -2, -1, -0.5, -0.0, 0, 0.5, 1, 2, 10, 1e30, NAN, INF, -INF], [-100, -10, -2, -1, 0, 1, 2, 10, 100],
              [0, 1, 2, 10, 100]),
    "Atanh": ([-2, -1, -0.999, -0.5, -0.0, 0, 0.25, 0.5, 0.999, 1, 1.5, NAN, INF, -INF], [0], [0]),
}
#: integers outside a function's integer domain (NaN/inf results: OpenVINO's answer is undefined)
TRIG_INT_OUTSIDE = {"Acos": [-2, 2], "Asin": [-2, 2], "Acosh": [0, -1], "Atanh": [1, -1, 2]}


def trig_cases() -> None:
    for op, opset in TRIG.items():
        floats, ints, uints = TRIG_VALUES[op]
        x = np.array(floats, np.float32)
        add(Case(f"{op}-f32", op, opset, [x]))
        add(Case(f"{op}-f32-random", op, opset, [rnd(2, 3, 4, lo=-0.95 if op in ("Acos", "Asin", "Atanh") else 1.05 if op == "Acosh" else -3,
                                                     hi=0.95 if op in ("Acos", "Asin", "Atanh") else 4 if op == "Acosh" else 3)]))
        for dt in (F16, BF16, F64):
            with np.errstate(over="ignore"):
                add(Case(f"{op}-{etype(dt)}", op, opset, [x.astype(dt)]))
        for dt in INTS:
            vals = uints if np.dtype(dt).kind == "u" else ints
            add(Case(f"{op}-{etype(dt)}", op, opset, [np.array(vals, dt)]))
        if op in TRIG_INT_OUTSIDE:
            add(Case(f"{op}-i32-outside", op, opset, [np.array(TRIG_INT_OUTSIDE[op], np.int32)]))
        add(Case(f"{op}-i64-params-const", op, opset, [np.array(ints, np.int64)], params=()))
        add(Case(f"{op}-shape-interval", op, opset, [Dyn("f32", "2..5,?,3")], params=()))
        add(Case(f"{op}-shape-rank-dyn", op, opset, [Dyn("i32", "...")], params=()))
        add(Case(f"{op}-shape-boolean", op, opset, [Dyn("boolean", "2")], params=()))


def bitwise_cases() -> None:
    for op, opset in BITWISE.items():
        add(Case(f"{op}-boolean", op, opset, [np.array([True, False, False, True]), np.array([True, True, False, False])],
                 params=(0, 1)))
        add(Case(f"{op}-spec-u8", op, opset, [np.array([21, 120], np.uint8), np.array([3, 37], np.uint8)], params=(0, 1)))
        for dt in INTS:
            info = np.iinfo(dt)
            a = np.array([0, 1, 5, 12, info.max, info.min, info.max - 3, 77 % max(info.max, 1)], dt)
            b = np.array([3, 3, 6, 10, 1, info.max, 7, info.min], dt)
            add(Case(f"{op}-{etype(dt)}", op, opset, [a, b], params=(0, 1)))
        add(Case(f"{op}-bcast", op, opset, [rnd(3, 1, 4, dtype=np.int32, lo=-99, hi=99), rnd(5, 1, dtype=np.int32, lo=-99, hi=99)],
                 params=(0, 1)))
        add(Case(f"{op}-pdpd", op, opset, [rnd(2, 3, 4, dtype=np.int16, lo=-99, hi=99), rnd(2, 3, dtype=np.int16, lo=-99, hi=99)],
                 {"auto_broadcast": "pdpd"}, params=(0, 1)))
        add(Case(f"{op}-const", op, opset, [rnd(2, 3, dtype=np.uint8, lo=0, hi=255), rnd(3, dtype=np.uint8, lo=0, hi=255)], params=()))
        for tag, a, b, attrs in [("f32", Dyn("f32", "2"), Dyn("f32", "2"), {}), ("mixed", Dyn("i32", "2"), Dyn("i64", "2"), {}),
                                 ("interval", Dyn("i32", "2..5,1"), Dyn("i32", "?,3"), {}),
                                 ("none-mismatch", Dyn("i32", "2,3"), Dyn("i32", "3"), {"auto_broadcast": "none"}),
                                 ("mismatch", Dyn("i32", "2,3"), Dyn("i32", "4"), {})]:
            add(Case(f"{op}-shape-{tag}", op, opset, [a, b], attrs, params=()))
    add(Case("BitwiseNot-boolean", "BitwiseNot", "opset13", [np.array([True, False])]))
    for dt in INTS:
        info = np.iinfo(dt)
        add(Case(f"BitwiseNot-{etype(dt)}", "BitwiseNot", "opset13", [np.array([0, 1, 5, info.max, info.min, 100], dt)]))
    add(Case("BitwiseNot-const", "BitwiseNot", "opset13", [np.array([[1, -2], [3, -4]], np.int32)], params=()))
    for tag, x in [("f32", Dyn("f32", "2")), ("interval", Dyn("i8", "2..5,?")), ("rank-dyn", Dyn("u16", "..."))]:
        add(Case(f"BitwiseNot-shape-{tag}", "BitwiseNot", "opset13", [x], params=()))
    for op, opset in SHIFTS.items():
        for dt in INTS:
            bits = np.dtype(dt).itemsize * 8
            info = np.iinfo(dt)
            a = np.array([1, 3, 100, info.max, info.min, 5, 77 % max(info.max, 1), info.max // 3], dt)
            b = np.array([0, 1, 2, 3, 1, bits - 1, bits - 2, 4], dt)
            add(Case(f"{op}-{etype(dt)}", op, opset, [a, b], params=(0, 1)))
        add(Case(f"{op}-i32-negative-values", op, opset, [np.array([-1, -8, -100, -7], np.int32), np.array([1, 2, 3, 31], np.int32)],
                 params=(0, 1)))
        add(Case(f"{op}-i32-shift-ge-width", op, opset, [np.array([1, 5, -5, 7], np.int32), np.array([32, 33, 40, 64], np.int32)],
                 params=(0, 1)))
        add(Case(f"{op}-u8-shift-ge-width", op, opset, [np.array([1, 5, 200, 7], np.uint8), np.array([8, 9, 10, 200], np.uint8)],
                 params=(0, 1)))
        add(Case(f"{op}-i8-negative-shift", op, opset, [np.array([1, 5, -5, 64], np.int8), np.array([-1, -2, -8, -100], np.int8)],
                 params=(0, 1)))
        add(Case(f"{op}-bcast", op, opset, [rnd(3, 1, 4, dtype=np.int64, lo=-999, hi=999), rnd(5, 1, dtype=np.int64, lo=0, hi=12)],
                 params=(0, 1)))
        for tag, a, b in [("f32", Dyn("f32", "2"), Dyn("f32", "2")), ("boolean", Dyn("boolean", "2"), Dyn("boolean", "2")),
                          ("mixed", Dyn("i32", "2"), Dyn("u32", "2")), ("interval", Dyn("u8", "2..5,1"), Dyn("u8", "?,3"))]:
            add(Case(f"{op}-shape-{tag}", op, opset, [a, b], params=()))


# ---------------------------------------------------------------------------------------------
# GridSample

def grid_sample_cases() -> None:
    data = rnd(2, 3, 4, 5)
    grid = rnd(2, 3, 6, 2, lo=-1.25, hi=1.25)
    for mode in ("bilinear", "bicubic", "nearest"):
        for pad in ("zeros", "border", "reflection"):
            for ac in (False, True):
                add(Case(f"GridSample-{mode}-{pad}-ac{int(ac)}", "GridSample", "opset9", [data, grid],
                         dict(mode=mode, padding_mode=pad, align_corners=ac), params=(0, 1)))
    far = rnd(1, 4, 5, 2, lo=-3.5, hi=3.5)                       # several reflections
    for mode in ("bilinear", "bicubic", "nearest"):
        for ac in (False, True):
            add(Case(f"GridSample-{mode}-reflection-far-ac{int(ac)}", "GridSample", "opset9", [data[:1], far],
                     dict(mode=mode, padding_mode="reflection", align_corners=ac), params=(0, 1)))
    # nearest ties: a coordinate exactly half way between two pixels (W=4: x = -0.75, -0.25, 0.25, 0.75)
    ties = np.stack(np.meshgrid(f32(-1, -0.75, -0.5, -0.25, 0, 0.25, 0.5, 0.75, 1), f32(-1, -0.5, 0, 0.5, 1)), -1)[None]
    for ac in (False, True):
        add(Case(f"GridSample-nearest-ties-ac{int(ac)}", "GridSample", "opset9",
                 [np.arange(20, dtype=np.float32).reshape(1, 1, 4, 5), ties.astype(np.float32)],
                 dict(mode="nearest", padding_mode="zeros", align_corners=ac), params=(0, 1)))
    for tag, d in [("h1", rnd(1, 2, 1, 5)), ("w1", rnd(1, 2, 4, 1)), ("1x1", rnd(1, 2, 1, 1))]:
        for mode in ("bilinear", "bicubic", "nearest"):
            for pad in ("border", "reflection"):
                for ac in (False, True):
                    add(Case(f"GridSample-{tag}-{mode}-{pad}-ac{int(ac)}", "GridSample", "opset9", [d, far],
                             dict(mode=mode, padding_mode=pad, align_corners=ac), params=(0, 1)))
    g = rnd(1, 2, 3, 2, lo=-1.1, hi=1.1)
    for dt in (F16, BF16, F64):
        add(Case(f"GridSample-data-{etype(dt)}", "GridSample", "opset9", [data[:1].astype(dt), g],
                 dict(mode="bilinear", padding_mode="zeros", align_corners=False), params=(0, 1)))
    add(Case("GridSample-grid-f16", "GridSample", "opset9", [data[:1], g.astype(F16)],
             dict(mode="bicubic", padding_mode="border", align_corners=True), params=(0, 1)))
    add(Case("GridSample-grid-f64", "GridSample", "opset9", [data[:1], g.astype(F64)],
             dict(mode="bilinear", padding_mode="reflection", align_corners=False), params=(0, 1)))
    for dt in INTS:
        for mode in ("bilinear", "nearest", "bicubic"):
            add(Case(f"GridSample-data-{etype(dt)}-{mode}", "GridSample", "opset9",
                     [rnd(1, 2, 4, 5, dtype=dt, lo=0 if np.dtype(dt).kind == "u" else -100, hi=100), g],
                     dict(mode=mode, padding_mode="border", align_corners=False), params=(0, 1)))
        # halves: x = -0.5 / 0.5 / 0 on a width of 3 with align_corners (pixel 0.5, 1.5, 1)
        half = np.array([[[[-0.5, -1], [0.5, -1], [0, -1], [-1, -1]]]], np.float32)
        add(Case(f"GridSample-data-{etype(dt)}-halves", "GridSample", "opset9",
                 [np.array([[[[10, 11, 13]]]], dt), half], dict(mode="bilinear", padding_mode="border", align_corners=True),
                 params=(0, 1)))
    add(Case("GridSample-data-boolean", "GridSample", "opset9", [np.array([[[[True, False, True]]]]), half],
             dict(mode="nearest", padding_mode="border", align_corners=True), params=(0, 1)))
    add(Case("GridSample-grid-nan-inf", "GridSample", "opset9",
             [data[:1], np.array([[[[NAN, 0], [0, NAN], [INF, 0], [0, -INF], [0.5, 0.5]]]], np.float32)],
             dict(mode="bilinear", padding_mode="zeros", align_corners=False), params=(0, 1)))
    add(Case("GridSample-const", "GridSample", "opset9", [data[:1], g], dict(mode="bilinear", padding_mode="zeros",
                                                                            align_corners=True), params=()))
    add(Case("GridSample-empty-grid", "GridSample", "opset9", [data[:1], np.zeros((1, 0, 3, 2), np.float32)],
             dict(mode="bilinear", padding_mode="zeros", align_corners=True), params=(0, 1)))
    gs = dict(mode="bilinear", padding_mode="zeros", align_corners=False)
    for tag, d, gr in [("static", Dyn("f32", "2,3,10,10"), Dyn("f32", "2,5,6,2")), ("dyn", Dyn("f32", "?,3,?,?"), Dyn("f32", "?,5,?,2")),
                       ("batch-merge", Dyn("f32", "?,3,10,10"), Dyn("f32", "2..4,5,6,2")),
                       ("batch-interval", Dyn("f32", "1..3,3,10,10"), Dyn("f32", "2..5,5,6,2")),
                       ("rank-dyn", Dyn("f32", "..."), Dyn("f32", "..."),), ("data-rank-dyn", Dyn("f32", "..."), Dyn("f32", "2,5,6,2")),
                       ("grid-rank-dyn", Dyn("f32", "2,3,4,4"), Dyn("f32", "...")),
                       ("batch-mismatch", Dyn("f32", "2,3,10,10"), Dyn("f32", "3,5,6,2")),
                       ("grid-last", Dyn("f32", "2,3,10,10"), Dyn("f32", "2,5,6,3")),
                       ("data-rank", Dyn("f32", "2,3,10"), Dyn("f32", "2,5,6,2")),
                       ("grid-rank", Dyn("f32", "2,3,10,10"), Dyn("f32", "2,5,2")),
                       ("grid-int", Dyn("f32", "2,3,10,10"), Dyn("i32", "2,5,6,2")),
                       ("data-int", Dyn("i32", "2,3,10,10"), Dyn("f32", "2,5,6,2")),
                       ("data-boolean", Dyn("boolean", "2,3,10,10"), Dyn("f32", "2,5,6,2"))]:
        add(Case(f"GridSample-shape-{tag}", "GridSample", "opset9", [d, gr], gs, params=()))


# ---------------------------------------------------------------------------------------------
# Unique

def unique_cases() -> None:
    u = lambda s=True, it="i64", ct="i64": dict(sorted=s, index_element_type=it, count_element_type=ct)  # noqa: E731
    x = np.array([5, 2, 2, -1, 7, 5, 0, 2, -1], np.float32)
    for s in (True, False):
        add(Case(f"Unique-flat-sorted{int(s)}", "Unique", "opset10", [x], u(s)))
        add(Case(f"Unique-2d-flat-sorted{int(s)}", "Unique", "opset10", [x.reshape(3, 3)], u(s)))
        m = np.array([[1, 2, 1, 2], [3, 0, 3, 0], [1, 2, 1, 2]], np.int32)
        for ax in (0, 1, -1):
            add(Case(f"Unique-2d-axis{ax}-sorted{int(s)}", "Unique", "opset10", [m, np.array(ax, np.int64)], u(s)))
        t = np.array([[[1, 2], [1, 2], [0, 9]], [[1, 2], [1, 2], [0, 9]], [[-1, 5], [-1, 5], [3, 3]]], np.int64)
        for ax in (0, 1, 2):
            add(Case(f"Unique-3d-axis{ax}-sorted{int(s)}", "Unique", "opset10", [t, i64(ax)], u(s)))
        add(Case(f"Unique-1d-axis-sorted{int(s)}", "Unique", "opset10", [x, i64(0)], u(s)))
        # slices that sort differently from their first element
        lex = np.array([[2, 1, 0], [1, 9, 9], [1, 2, 3], [1, 2, 0], [2, 1, 0]], np.float32)
        add(Case(f"Unique-lex-axis0-sorted{int(s)}", "Unique", "opset10", [lex, i64(0)], u(s)))
    for it, ct in (("i32", "i64"), ("i64", "i32"), ("i32", "i32")):
        add(Case(f"Unique-types-{it}-{ct}", "Unique", "opset10", [x], u(True, it, ct)))
    for dt in (F16, BF16, F64, np.int8, np.uint8, np.int16, np.uint16, np.uint32, np.int64, np.uint64):
        add(Case(f"Unique-{etype(dt)}", "Unique", "opset10", [rnd(4, 5, dtype=dt, lo=0, hi=6)], u(True)))
        add(Case(f"Unique-{etype(dt)}-unsorted", "Unique", "opset10", [rnd(4, 5, dtype=dt, lo=0, hi=6)], u(False)))
    add(Case("Unique-boolean", "Unique", "opset10", [np.array([True, False, True, True])], u(True)))
    add(Case("Unique-zeros", "Unique", "opset10", [f32(0.0, -0.0, 1, -0.0, 0.0)], u(True)))
    add(Case("Unique-zeros-unsorted", "Unique", "opset10", [f32(-0.0, 0.0, 1, -0.0, 0.0)], u(False)))
    add(Case("Unique-scalar", "Unique", "opset10", [np.array(3.5, np.float32)], u(True)))
    add(Case("Unique-single", "Unique", "opset10", [np.array([[7]], np.int32)], u(True)))
    add(Case("Unique-single-axis", "Unique", "opset10", [np.array([[7]], np.int32), i64(1)], u(True)))
    add(Case("Unique-all-same", "Unique", "opset10", [np.full((2, 3), 4, np.int32)], u(False)))
    add(Case("Unique-all-same-axis", "Unique", "opset10", [np.full((2, 3), 4, np.int32), i64(1)], u(True)))
    add(Case("Unique-axis-i32", "Unique", "opset10", [np.array([[1, 1], [2, 2], [1, 1]], np.float32), np.array([0], np.int32)], u(True)))
    add(Case("Unique-const", "Unique", "opset10", [x], u(False), params=()))
    add(Case("Unique-random", "Unique", "opset10", [rnd(6, 7, dtype=np.int32, lo=-4, hi=4)], u(True)))
    # (the CPU plugin gets these two wrong: see tests/ops/test_unique.py)
    cols = np.array([[1, 0, 1, 1, 1, 1, 0, 0], [0, 0, 1, 0, 0, 1, 0, 0], [1, 0, 0, 0, 0, 0, 1, 1]], np.int32)
    add(Case("Unique-columns-axis1-sorted0", "Unique", "opset10", [cols, i64(1)], u(False)))
    add(Case("Unique-columns-axis1-sorted1", "Unique", "opset10", [cols, i64(1)], u(True)))
    add(Case("Unique-columns-transposed-axis0", "Unique", "opset10", [cols.T.copy(), i64(0)], u(False)))
    for tag, d, ax in [("flat", Dyn("f32", "2,3"), None), ("flat-dyn", Dyn("f32", "?,3"), None),
                       ("flat-interval", Dyn("f32", "2..4,3"), None), ("flat-rank-dyn", Dyn("f32", "..."), None),
                       ("flat-empty", Dyn("f32", "0,3"), None), ("scalar", Dyn("f32", ""), None),
                       ("axis", Dyn("f32", "2,3,4"), i64(1)), ("axis-neg", Dyn("f32", "2,3,4"), i64(-1)),
                       ("axis-dyn-dim", Dyn("f32", "2,?,4"), i64(1)), ("axis-interval", Dyn("f32", "2,2..6,4"), i64(1)),
                       ("axis-other-dyn", Dyn("f32", "?,3,4"), i64(1)), ("axis-rank-dyn", Dyn("f32", "..."), i64(1)),
                       ("axis-param", Dyn("f32", "2,3,4"), Dyn("i64", "1")), ("axis-range", Dyn("f32", "2,3"), i64(2)),
                       ("axis-2d", Dyn("f32", "2,3"), np.array([[1]], np.int64)), ("axis-two", Dyn("f32", "2,3"), i64(0, 1)),
                       ("axis-f32", Dyn("f32", "2,3"), f32(1)), ("axis-zero-dim", Dyn("f32", "2,0,3"), i64(1)),
                       ("single-elem", Dyn("f32", "1,1"), None)]:
        add(Case(f"Unique-shape-{tag}", "Unique", "opset10", [d] + ([] if ax is None else [ax]), u(True), params=()))
    add(Case("Unique-shape-index-i32", "Unique", "opset10", [Dyn("i8", "5")], u(False, "i32", "i32"), params=()))
    add(Case("Unique-shape-index-f32", "Unique", "opset10", [Dyn("i8", "5")], u(False, "f32", "i32"), params=()))
    add(Case("Unique-shape-count-u8", "Unique", "opset10", [Dyn("i8", "5")], u(False, "i64", "u8"), params=()))


# ---------------------------------------------------------------------------------------------
# Eye

def eye_cases() -> None:
    i32 = lambda *v: np.array(v, np.int32)  # noqa: E731
    for tag, r, c, d in [("3x4-d2", 3, 4, 2), ("3x4-d-1", 3, 4, -1), ("4x4", 4, 4, 0), ("2x5-d3", 2, 5, 3),
                         ("5x2-d-3", 5, 2, -3), ("3x3-d-3", 3, 3, -3), ("3x3-d3", 3, 3, 3), ("0x3", 0, 3, 0), ("3x0", 3, 0, 0),
                         ("1x1", 1, 1, 0), ("4x3-d-5", 4, 3, -5)]:
        add(Case(f"Eye-{tag}", "Eye", "opset9", [i64(r), i64(c), i64(d)], {"output_type": "f32"}, params=()))
    add(Case("Eye-spec1", "Eye", "opset9", [i32(3), i32(4), i32(2)], {"output_type": "i32"}, params=()))
    add(Case("Eye-spec2", "Eye", "opset9", [i32(3), i32(4), i32(-1)], {"output_type": "i32"}, params=()))
    add(Case("Eye-spec3", "Eye", "opset9", [np.array(2, np.int64), np.array(2, np.int64), np.array(5, np.int64), i64(1, 2)],
             {"output_type": "f16"}, params=()))
    add(Case("Eye-scalars", "Eye", "opset9", [np.array(3, np.int32), np.array(2, np.int32), np.array(0, np.int32)],
             {"output_type": "i8"}, params=()))
    for tag, b in [("batch1", i64(2)), ("batch2", i64(2, 3)), ("batch-empty", np.zeros(0, np.int64)), ("batch-zero", i64(2, 0))]:
        add(Case(f"Eye-{tag}", "Eye", "opset9", [i64(3), i64(4), i64(1), b], {"output_type": "f32"}, params=()))
    for et in ("f64", "f16", "bf16", "i64", "i32", "i16", "i8", "u64", "u32", "u16", "u8", "boolean"):
        add(Case(f"Eye-type-{et}", "Eye", "opset9", [i64(3), i64(3), i64(0)], {"output_type": et}, params=()))
    add(Case("Eye-params", "Eye", "opset9", [i64(3), i64(5), i64(-1), i64(2)], {"output_type": "f32"}, params=(0, 1, 2, 3)))
    add(Case("Eye-params-i32", "Eye", "opset9", [i32(4), i32(2), i32(1)], {"output_type": "i32"}, params=(0, 1, 2)))
    add(Case("Eye-mixed-types", "Eye", "opset9", [i32(2), i64(3), i32(0)], {"output_type": "f32"}, params=()))
    add(Case("Eye-negative-rows", "Eye", "opset9", [i64(-1), i64(3), i64(0)], {"output_type": "f32"}, params=()))
    add(Case("Eye-negative-rows-param", "Eye", "opset9", [i64(-1), i64(3), i64(0)], {"output_type": "f32"}, params=(0,)))
    add(Case("Eye-negative-batch", "Eye", "opset9", [i64(2), i64(3), i64(0), i64(-2)], {"output_type": "f32"}, params=()))
    D = lambda s, t="i64": Dyn(t, s)  # noqa: E731
    for tag, ins in [("rows-dyn", [D("1"), i64(3), i64(0)]), ("cols-dyn", [i64(2), D(""), i64(0)]),
                     ("diag-dyn", [i64(2), i64(3), D("1")]), ("batch-dyn", [i64(2), i64(3), i64(0), D("2")]),
                     ("batch-len-dyn", [i64(2), i64(3), i64(0), D("?")]), ("batch-rank-dyn", [i64(2), i64(3), i64(0), D("...")]),
                     ("rows-2", [i64(2, 2), i64(3), i64(0)]), ("rows-2d", [np.array([[2]], np.int64), i64(3), i64(0)]),
                     ("cols-2d", [i64(2), np.array([[2]], np.int64), i64(0)]), ("diag-2", [i64(2), i64(3), i64(0, 1)]),
                     ("batch-2d", [i64(2), i64(3), i64(0), np.array([[2]], np.int64)]),
                     ("rows-f32", [f32(2), i64(3), i64(0)]), ("diag-f32", [i64(2), i64(3), f32(0)]),
                     ("batch-f32", [i64(2), i64(3), i64(0), f32(2)]), ("rows-i8", [np.array([2], np.int8), i64(3), i64(0)]),
                     ("rows-u64", [np.array([2], np.uint64), i64(3), i64(0)]), ("negative-cols", [i64(2), i64(-3), i64(0)])]:
        add(Case(f"Eye-shape-{tag}", "Eye", "opset9", ins, {"output_type": "f32"}, params=()))
    add(Case("Eye-shape-type-string", "Eye", "opset9", [i64(2), i64(3), i64(0)], {"output_type": "string"}, params=()))
    add(Case("Eye-shape-type-dynamic", "Eye", "opset9", [i64(2), i64(3), i64(0)], {"output_type": "dynamic"}, params=()))


# ---------------------------------------------------------------------------------------------
# DFT family

def dft_cases() -> None:
    x4 = rnd(2, 5, 6, 2)
    x3 = rnd(4, 6, 2)
    for op in ("DFT", "IDFT"):
        for tag, x, extra in [("axes12", x4, [i64(1, 2)]), ("axis2", x4, [i64(2)]), ("axis-neg", x4, [i64(-2)]),
                              ("axes021", x4, [i64(0, 2, 1)]), ("axes-neg-mixed", x4, [i64(-3, 0)]), ("3d", x3, [i64(0, 1)]),
                              ("1d", rnd(7, 2), [i64(0)]), ("2d-axis0", rnd(8, 2), [i64(-1)]),
                              ("signal-pad", x4, [i64(1, 2), i64(7, 9)]), ("signal-trim", x4, [i64(1, 2), i64(3, 4)]),
                              ("signal-minus1", x4, [i64(2, 1), i64(-1, 8)]), ("signal-mixed", x4, [i64(2, 0), i64(3, 4)]),
                              ("signal-i32", x4, [np.array([1], np.int32), np.array([4], np.int32)]),
                              ("signal-one", x4, [i64(2), i64(1)])]:
            add(Case(f"{op}-{tag}", op, "opset7", [x, *extra]))
        for dt in (F16, BF16, F64):
            add(Case(f"{op}-{etype(dt)}", op, "opset7", [x3.astype(dt), i64(0, 1)]))
        add(Case(f"{op}-params", op, "opset7", [x4, i64(1, 2), i64(4, 7)], params=(0, 1, 2)))
        add(Case(f"{op}-const", op, "opset7", [x3, i64(1)], params=()))
    xr = rnd(2, 5, 6)
    for tag, x, extra in [("axes12", xr, [i64(1, 2)]), ("axis2", xr, [i64(2)]), ("axis1", xr, [i64(1)]), ("axes21", xr, [i64(2, 1)]),
                          ("axes-neg", xr, [i64(-1, 0)]), ("all", xr, [i64(0, 1, 2)]), ("1d", rnd(9), [i64(0)]),
                          ("1d-odd", rnd(7), [i64(-1)]), ("signal-pad", xr, [i64(1, 2), i64(7, 9)]),
                          ("signal-trim", xr, [i64(1, 2), i64(3, 4)]), ("signal-minus1", xr, [i64(2, 1), i64(-1, 3)]),
                          ("signal-odd-last", xr, [i64(1, 2), i64(-1, 5)])]:
        add(Case(f"RDFT-{tag}", "RDFT", "opset9", [x, *extra]))
    for dt in (F16, BF16, F64):
        add(Case(f"RDFT-{etype(dt)}", "RDFT", "opset9", [xr.astype(dt), i64(1, 2)]))
    add(Case("RDFT-params", "RDFT", "opset9", [xr, i64(1, 2), i64(4, 7)], params=(0, 1, 2)))
    xi = rnd(2, 5, 4, 2)
    for tag, x, extra in [("axes12", xi, [i64(1, 2)]), ("axis2", xi, [i64(2)]), ("axis1", xi, [i64(1)]), ("axes21", xi, [i64(2, 1)]),
                          ("axes-neg", xi, [i64(-1, 0)]), ("1d", rnd(5, 2), [i64(0)]),
                          ("signal-even", xi, [i64(1, 2), i64(5, 6)]), ("signal-odd", xi, [i64(1, 2), i64(5, 7)]),
                          ("signal-pad", xi, [i64(1, 2), i64(7, 12)]), ("signal-trim", xi, [i64(1, 2), i64(3, 4)]),
                          ("signal-small", xi, [i64(2), i64(2)]), ("signal-minus1", xi, [i64(2, 1), i64(-1, 3)])]:
        add(Case(f"IRDFT-{tag}", "IRDFT", "opset9", [x, *extra]))
    for dt in (F16, BF16, F64):
        add(Case(f"IRDFT-{etype(dt)}", "IRDFT", "opset9", [xi.astype(dt), i64(1, 2)]))
    add(Case("IRDFT-params", "IRDFT", "opset9", [xi, i64(1, 2), i64(4, 7)], params=(0, 1, 2)))
    # shapes and errors
    for op, v, data in [("DFT", "opset7", "2,5,6,2"), ("IDFT", "opset7", "2,5,6,2"), ("RDFT", "opset9", "2,5,6"),
                        ("IRDFT", "opset9", "2,5,6,2")]:
        dyn = "?,5..9,?,2" if data.endswith(",2") and op != "RDFT" else "?,5..9,?"
        for tag, d, extra in [("static", Dyn("f32", data), [i64(1, 2)]), ("dyn", Dyn("f32", dyn), [i64(1, 2)]),
                              ("dyn-signal", Dyn("f32", dyn), [i64(1, 2), i64(-1, 8)]),
                              ("signal-param", Dyn("f32", data), [i64(1, 2), Dyn("i64", "2")]),
                              ("axes-param", Dyn("f32", data), [Dyn("i64", "2")]),
                              ("axes-param-signal", Dyn("f32", data), [Dyn("i64", "1"), i64(4)]),
                              ("rank-dyn", Dyn("f32", "..."), [i64(1, 2)]),
                              ("axis-range", Dyn("f32", data), [i64(3)]), ("axis-dup", Dyn("f32", data), [i64(1, 1)]),
                              ("axis-neg-range", Dyn("f32", data), [i64(-4)]),
                              ("signal-len", Dyn("f32", data), [i64(1, 2), i64(4)]), ("axes-2d", Dyn("f32", data), [np.array([[1]], np.int64)]),
                              ("axes-f32", Dyn("f32", data), [f32(1)]), ("signal-f32", Dyn("f32", data), [i64(1), f32(4)]),
                              ("signal-zero", Dyn("f32", data), [i64(1), i64(0)]), ("signal-neg", Dyn("f32", data), [i64(1), i64(-2)]),
                              ("int-data", Dyn("i32", data), [i64(1)]), ("too-many-axes", Dyn("f32", data), [i64(0, 1, 2)])]:
            add(Case(f"{op}-shape-{tag}", op, v, [d, *extra], params=()))
    for op, v in (("DFT", "opset7"), ("IDFT", "opset7"), ("IRDFT", "opset9")):
        add(Case(f"{op}-shape-last-not-2", op, v, [Dyn("f32", "2,5,3"), i64(1)], params=()))
        add(Case(f"{op}-shape-last-axis", op, v, [Dyn("f32", "2,5,2"), i64(2)], params=()))
        add(Case(f"{op}-shape-rank1", op, v, [Dyn("f32", "2"), i64(0)], params=()))


# ---------------------------------------------------------------------------------------------
# ROIAlign

def roi_align_cases() -> None:
    fm = rnd(2, 3, 8, 10)
    rois = f32(1, 1, 6, 5, 0, 0, 9, 7, 2.5, 3.2, 4.1, 3.9, 7, 6, 7.5, 6.2, -3, -2, 4, 3, 8, 6, 14, 12, 3, 4, 1, 2).reshape(-1, 4)
    bi = i64(0, 1, 0, 1, 1, 0, 0)
    base = dict(pooled_h=3, pooled_w=2, sampling_ratio=2, spatial_scale=1.0, mode="avg")
    for mode in ("avg", "max"):
        for sr in (0, 2):
            for sc in (1.0, 0.5):
                a = dict(base, mode=mode, sampling_ratio=sr, spatial_scale=sc)
                add(Case(f"ROIAlign3-{mode}-sr{sr}-s{sc}", "ROIAlign", "opset3", [fm, rois, bi], a, params=(0, 1, 2)))
                for am in ("asymmetric", "half_pixel", "half_pixel_for_nn"):
                    add(Case(f"ROIAlign9-{mode}-sr{sr}-s{sc}-{am}", "ROIAlign", "opset9", [fm, rois, bi],
                             dict(a, aligned_mode=am), params=(0, 1, 2)))
    add(Case("ROIAlign9-pooled-1x1", "ROIAlign", "opset9", [fm, rois, bi], dict(base, pooled_h=1, pooled_w=1, aligned_mode="half_pixel"),
             params=(0, 1, 2)))
    add(Case("ROIAlign9-pooled-4x5-sr1", "ROIAlign", "opset9", [fm, rois * 2, bi], dict(base, pooled_h=4, pooled_w=5, sampling_ratio=1,
                                                                                            spatial_scale=0.5, aligned_mode="asymmetric"),
             params=(0, 1, 2)))
    negs = -np.abs(fm)
    add(Case("ROIAlign9-max-negative", "ROIAlign", "opset9", [negs, rois, bi], dict(base, mode="max", aligned_mode="asymmetric"),
             params=(0, 1, 2)))
    add(Case("ROIAlign3-max-negative", "ROIAlign", "opset3", [negs, rois, bi], dict(base, mode="max"), params=(0, 1, 2)))
    add(Case("ROIAlign9-i32-indices", "ROIAlign", "opset9", [fm, rois, bi.astype(np.int32)], dict(base, aligned_mode="half_pixel"),
             params=(0, 1, 2)))
    for dt in (F16, BF16, F64):
        add(Case(f"ROIAlign9-{etype(dt)}", "ROIAlign", "opset9", [fm.astype(dt), rois.astype(dt), bi], dict(base, aligned_mode="half_pixel"),
                 params=(0, 1, 2)))
    add(Case("ROIAlign9-const", "ROIAlign", "opset9", [fm, rois, bi], dict(base, aligned_mode="half_pixel"), params=()))
    add(Case("ROIAlign9-no-rois", "ROIAlign", "opset9", [fm, np.zeros((0, 4), np.float32), np.zeros(0, np.int64)],
             dict(base, aligned_mode="half_pixel"), params=(0, 1, 2)))
    add(Case("ROIAlign9-batch-out-of-range", "ROIAlign", "opset9", [fm, rois[:2], i64(0, 2)], dict(base, aligned_mode="asymmetric"),
             params=(0, 1, 2)))
    r3 = dict(base)
    for tag, ins in [("static", [Dyn("f32", "2,3,8,10"), Dyn("f32", "7,4"), Dyn("i64", "7")]),
                     ("dyn", [Dyn("f32", "?,?,?,?"), Dyn("f32", "?,4"), Dyn("i64", "?")]),
                     ("rois-merge", [Dyn("f32", "2,3,8,10"), Dyn("f32", "?,?"), Dyn("i64", "3..5")]),
                     ("rank-dyn", [Dyn("f32", "..."), Dyn("f32", "..."), Dyn("i64", "...")]),
                     ("rois-mismatch", [Dyn("f32", "2,3,8,10"), Dyn("f32", "7,4"), Dyn("i64", "6")]),
                     ("rois-5", [Dyn("f32", "2,3,8,10"), Dyn("f32", "7,5"), Dyn("i64", "7")]),
                     ("data-rank", [Dyn("f32", "2,3,8"), Dyn("f32", "7,4"), Dyn("i64", "7")]),
                     ("rois-rank", [Dyn("f32", "2,3,8,10"), Dyn("f32", "7,4,1"), Dyn("i64", "7")]),
                     ("idx-rank", [Dyn("f32", "2,3,8,10"), Dyn("f32", "7,4"), Dyn("i64", "7,1")]),
                     ("rois-type", [Dyn("f32", "2,3,8,10"), Dyn("f16", "7,4"), Dyn("i64", "7")]),
                     ("idx-f32", [Dyn("f32", "2,3,8,10"), Dyn("f32", "7,4"), Dyn("f32", "7")]),
                     ("idx-u8", [Dyn("f32", "2,3,8,10"), Dyn("f32", "7,4"), Dyn("u8", "7")]),
                     ("data-int", [Dyn("i32", "2,3,8,10"), Dyn("i32", "7,4"), Dyn("i64", "7")])]:
        add(Case(f"ROIAlign3-shape-{tag}", "ROIAlign", "opset3", ins, r3, params=()))
        add(Case(f"ROIAlign9-shape-{tag}", "ROIAlign", "opset9", ins, dict(r3, aligned_mode="asymmetric"), params=()))
    for tag, a in [("pooled-zero", dict(base, pooled_h=0)), ("sr-negative", dict(base, sampling_ratio=-1)),
                   ("scale-zero", dict(base, spatial_scale=0.0))]:
        add(Case(f"ROIAlign9-shape-{tag}", "ROIAlign", "opset9", [Dyn("f32", "2,3,8,10"), Dyn("f32", "7,4"), Dyn("i64", "7")],
                 dict(a, aligned_mode="asymmetric"), params=()))


# ---------------------------------------------------------------------------------------------
# FakeConvert

def fake_convert_cases() -> None:
    edges = f32(0, -0.0, 1e-6, -1e-6, 0.001, 0.00195, 0.0019531, 0.002, 0.0039, 0.0156, 0.0625, 0.1, 0.3, 1, 1.0625, 1.125,
                1.1875, 2.5, 3.3, 17, 100, 240, 247, 248, 250, 255, 256, 440, 448, 449, 464, 480, 500, 1000, 57344, 6e4, 65504,
                7e4, 1e6, -1, -448, -500, -6e4, -1e6, NAN, INF, -INF)
    for dst in ("f8e4m3", "f8e5m2"):
        one, zero = f32(1), f32(0)
        add(Case(f"FakeConvert-{dst}-edges", "FakeConvert", "opset13", [edges, one, zero], {"destination_type": dst}))
        add(Case(f"FakeConvert-{dst}-no-shift", "FakeConvert", "opset13", [rnd(3, 4, lo=-20, hi=20), f32(2.0)], {"destination_type": dst}))
        add(Case(f"FakeConvert-{dst}-scale-shift", "FakeConvert", "opset13", [rnd(2, 3, 4, lo=-5, hi=5), f32(3.7), f32(0.6)],
                 {"destination_type": dst}))
        add(Case(f"FakeConvert-{dst}-per-channel", "FakeConvert", "opset13",
                 [rnd(2, 3, 2, 2, lo=-5, hi=5), rnd(1, 3, 1, 1, lo=0.5, hi=30), rnd(1, 3, 1, 1, lo=-1, hi=1)], {"destination_type": dst}))
        add(Case(f"FakeConvert-{dst}-bcast", "FakeConvert", "opset13",
                 [rnd(2, 3, 4, lo=-5, hi=5), rnd(3, 1, lo=0.5, hi=30), rnd(3, 1, lo=-1, hi=1)], {"destination_type": dst}))
        add(Case(f"FakeConvert-{dst}-params", "FakeConvert", "opset13", [rnd(3, 4, lo=-300, hi=300), f32(0.5), f32(1.5)],
                 {"destination_type": dst}, params=(0, 1, 2)))
        # every f16 value (each 7th) through the quantizer: the rounding of the f16 path
        h = np.arange(1 << 16, dtype=np.uint16).view(np.float16)
        add(Case(f"FakeConvert-{dst}-f16-all", "FakeConvert", "opset13", [h[::7].copy(), np.array(1, F16), np.array(0, F16)],
                 {"destination_type": dst}))
        add(Case(f"FakeConvert-{dst}-bf16", "FakeConvert", "opset13", [edges.astype(BF16), np.array(1, BF16), np.array(0, BF16)],
                 {"destination_type": dst}))
        add(Case(f"FakeConvert-{dst}-bf16-scale", "FakeConvert", "opset13", [rnd(3, 4, lo=-20, hi=20, dtype=BF16), np.array(3.5, BF16),
                                                                             np.array(0.25, BF16)], {"destination_type": dst}))
        add(Case(f"FakeConvert-{dst}-f16-scale", "FakeConvert", "opset13", [rnd(3, 4, lo=-20, hi=20, dtype=F16), np.array(3.5, F16),
                                                                            np.array(0.25, F16)], {"destination_type": dst}))
        add(Case(f"FakeConvert-{dst}-f32-fine", "FakeConvert", "opset13", [rnd(200, lo=-2, hi=2), f32(1), f32(0)],
                 {"destination_type": dst}))
    fc = {"destination_type": "f8e4m3"}
    for tag, ins, a in [("static", [Dyn("f32", "2,3,4"), Dyn("f32", "1,3,1"), Dyn("f32", "1,3,1")], fc),
                        ("dyn", [Dyn("f32", "?,3..5,4"), Dyn("f32", "1"), Dyn("f32", "1")], fc),
                        ("two-inputs", [Dyn("f32", "2,3"), Dyn("f32", "3")], fc),
                        ("scale-shift-shapes", [Dyn("f32", "2,3,4"), Dyn("f32", "3,1"), Dyn("f32", "1,1")], fc),
                        ("scale-bigger", [Dyn("f32", "3,4"), Dyn("f32", "2,3,4"), Dyn("f32", "2,3,4")], fc),
                        ("scale-mismatch", [Dyn("f32", "3,4"), Dyn("f32", "5"), Dyn("f32", "5")], fc),
                        ("types", [Dyn("f32", "3,4"), Dyn("f16", "1"), Dyn("f16", "1")], fc),
                        ("f64", [Dyn("f64", "3,4"), Dyn("f64", "1"), Dyn("f64", "1")], fc),
                        ("int", [Dyn("i32", "3,4"), Dyn("i32", "1"), Dyn("i32", "1")], fc),
                        ("rank-dyn", [Dyn("f32", "..."), Dyn("f32", "1"), Dyn("f32", "1")], fc),
                        ("dst-f16", [Dyn("f32", "3,4"), Dyn("f32", "1"), Dyn("f32", "1")], {"destination_type": "f16"}),
                        ("dst-f4", [Dyn("f32", "3,4"), Dyn("f32", "1"), Dyn("f32", "1")], {"destination_type": "f4e2m1"}),
                        ("dst-e8m0", [Dyn("f32", "3,4"), Dyn("f32", "1"), Dyn("f32", "1")], {"destination_type": "f8e8m0"})]:
        add(Case(f"FakeConvert-shape-{tag}", "FakeConvert", "opset13", ins, a, params=()))
    add(Case("FakeConvert-f64", "FakeConvert", "opset13", [edges.astype(F64), np.array(1, F64), np.array(0, F64)], fc))


all_cases = CASES.built_by(trig_cases, bitwise_cases, grid_sample_cases, unique_cases, eye_cases, dft_cases,
                           roi_align_cases, fake_convert_cases)


def measure(case: Case, ov, tmp: Path, store) -> dict:
    entry = aqm.measure(case, ov, tmp, store)
    if case.type in PREFER_REFERENCE and entry.get("reference_arrays"):
        entry.update(oracle="reference", cpu=entry["reference"].replace("differs", "CPU differs"),
                     cpu_arrays=[o["array"] for o in entry["outputs"]])
        entry["outputs"] = [dict(o, array=r) for o, r in zip(entry["outputs"], entry.pop("reference_arrays"))]
        entry["reference"] = "expected (the CPU plugin differs)"
    return entry


if __name__ == "__main__":
    sys.exit(nn.main(cases_of=all_cases, out="trig_bitwise_dft_sampling_expectations", doc=__doc__, measure_case=measure))
