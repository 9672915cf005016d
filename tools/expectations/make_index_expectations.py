"""Measure OpenVINO's index-based gather/scatter ops into ONE fixture: GatherElements-6,
GatherND-5/8, ScatterUpdate-3, ScatterNDUpdate-4/15, ScatterElementsUpdate-3/12.

    python -m tools.expectations.make_index_expectations [--out tests/fixtures/index_expectations] [-k substring]

Writes tests/fixtures/index_expectations.{json,npz} in the format of tools/expectations/make_nn_expectations.py
(whose Case/Dyn/Rnd/main it reuses; see its docstring for what is measured and how), read by
tests/ops/nn_cases.py. ``run`` cases record the CPU plugin's values (f32 inference precision) and,
where the reference evaluator differs, its values too (``reference_arrays``); the reference
evaluator has no GatherElements/GatherND kernel at all and no ScatterNDUpdate/
ScatterElementsUpdate kernel for f64/i8/u8 data, so there the CPU plugin is the only oracle.
Out-of-range indices make both evaluators fail (or read garbage), so those cases are not here;
the tests check irrun's rejections literally. Seeded: the same fixture every time.
"""
from __future__ import annotations

import sys

import numpy as np

from tools.expectations.make_nn_expectations import BF16, F16, Case, Cases, Dyn, Rnd, f32, i64, main

CASES = Cases()
add = CASES.add
rnd = Rnd(20263, ints=(-20, 19))    # integers in [-20, 19] ([0, 19] unsigned) unless told
P2, P3, P4 = (0, 1), (0, 1, 2), (0, 1, 2, 3)
I32, I8, U8, BOOL = np.dtype(np.int32), np.dtype(np.int8), np.dtype(np.uint8), np.dtype(np.bool_)


def ints(lo: int, hi: int, *shape, dtype=np.int64) -> np.ndarray:
    """Seeded indices in [lo, hi)."""
    return rnd.rng.integers(lo, hi, shape).astype(dtype)


def gather_elements_cases() -> None:
    ge = lambda tag, ins, axis, params=P2: add(Case(f"GatherElements-{tag}", "GatherElements", "opset6",  # noqa: E731
                                                    ins, {"axis": axis}, params=params))
    ge("spec-1", [np.array([[1, 2], [3, 4]], np.int32), i64(0, 1, 0, 0).reshape(2, 2)], 0)
    ge("spec-2", [np.array([[1, 7], [4, 3]], np.int32), i64(1, 1, 0, 1, 0, 1).reshape(2, 3)], 1)
    ge("spec-3", [np.arange(1, 10, dtype=np.int32).reshape(3, 3), i64(1, 0, 1, 1, 2, 0).reshape(2, 3)], 0)
    x = rnd(3, 4, 5)
    for axis, shape in [(0, (6, 4, 5)), (1, (3, 2, 5)), (2, (3, 4, 7)), (-1, (3, 4, 1)), (-3, (1, 4, 5))]:
        n = x.shape[axis]
        ge(f"3d-axis{axis}", [x, ints(-n, n, *shape)], axis)
    ge("3d-const", [x, ints(0, 4, 3, 4, 5)], 1, params=(0,))
    ge("i32-idx", [x, ints(-5, 5, 3, 4, 2, dtype=np.int32)], 2)
    ge("1d", [rnd(6), i64(5, -6, 0, 3, -1)], 0)
    ge("empty-idx", [x, np.zeros((3, 0, 5), np.int64)], 1)
    for dt in (F16, BF16, I32, np.dtype(np.int64), I8, U8, BOOL):
        ge(f"{dt.name}", [rnd(4, 3, dtype=dt), ints(-4, 4, 2, 3)], 0)
    S = lambda tag, d, i, axis, ie="i64": ge(f"shape-{tag}", [Dyn("f32", d), Dyn(ie, i)], axis, params=())  # noqa: E731
    S("static", "3,7,5", "3,10,5", 1)
    S("dyn-merge", "4,4,?", "1,?,5", 0)
    S("interval-merge", "2..6,?,3", "3..8,5,1..4", 2)
    S("data-rank-dyn", "...", "2,3", 0)
    S("idx-rank-dyn", "2,?,4", "...", 1)
    S("idx-rank-dyn-neg", "2,?,4", "...", -1)
    S("both-rank-dyn", "...", "...", 3)
    S("rank-mismatch", "2,3", "2,3,1", 0)
    S("dims-mismatch", "2,3,4", "2,5,4", 0)
    S("interval-disjoint", "2..3,4", "4..5,4", 1)
    S("axis-range", "2,3", "2,3", 2)
    S("axis-range-neg", "2,3", "2,3", -3)
    S("scalar-data", "", "1", 0)
    S("scalar-idx", "3", "", 0)
    S("idx-i32", "2,3", "4,3", 0, "i32")
    S("idx-i8", "2,3", "4,3", 0, "i8")
    S("idx-u8", "2,3", "4,3", 0, "u8")
    S("idx-f32", "2,3", "4,3", 0, "f32")


def gather_nd_cases() -> None:
    def gnd(tag, ins, b=None, versions=("5", "8"), params=P2):
        for v in versions:
            add(Case(f"GatherND{v}-{tag}", "GatherND", f"opset{v}", ins, {} if b is None else {"batch_dims": b}, params=params))
    d22 = np.array([[1, 2], [3, 4]], np.int32)
    d234 = np.arange(1, 25, dtype=np.int32).reshape(2, 3, 4)
    gnd("spec-1", [d22, i64(0, 0, 1, 0).reshape(2, 2)])
    gnd("spec-2", [d22, i64(1, 0).reshape(2, 1)])
    gnd("spec-3", [d22, i64(1, 0).reshape(2, 1, 1)])
    gnd("spec-4", [d22, i64(1, 0).reshape(2, 1)], 1)
    gnd("spec-5", [d234, i64(1, 0).reshape(2, 1)], 1)
    gnd("spec-6", [d234, i64(1, 0, 2, 0, 2, 2).reshape(2, 3, 1, 1)], 2)
    gnd("spec-7", [np.arange(1, 17, dtype=np.int32).reshape(1, 2, 2, 4), i64(1, 0, 3, 2).reshape(1, 2, 2, 1)], 3)
    x = rnd(3, 4, 5, 2)
    gnd("elements", [x, np.stack([ints(-3, 3, 6), ints(-4, 4, 6), ints(-5, 5, 6), ints(-2, 2, 6)], -1).reshape(2, 3, 4)])
    gnd("slices-2d-idx", [x, np.stack([ints(-3, 3, 10), ints(0, 4, 10)], -1).reshape(5, 2, 2)])
    gnd("batch1-k2", [x, np.stack([ints(-4, 4, 3 * 7), ints(0, 5, 3 * 7)], -1).reshape(3, 7, 2)], 1)
    gnd("batch2-k1", [x, ints(-5, 5, 3, 4, 6, 1)], 2)
    gnd("batch2-k2", [x, np.stack([ints(-5, 5, 12), ints(0, 2, 12)], -1).reshape(3, 4, 2)], 2)
    gnd("batch3-mid", [x, ints(0, 2, 3, 4, 5, 2, 1)], 3)
    gnd("const-idx", [x, ints(0, 3, 4, 1)], params=(0,))
    gnd("i32-idx", [x, ints(-3, 3, 4, 1, dtype=np.int32)])
    gnd("i8-idx", [x, ints(-3, 3, 4, 1, dtype=np.int8)])
    gnd("u8-idx", [x, ints(0, 3, 4, 1, dtype=np.uint8)])
    gnd("empty-idx", [x, np.zeros((0, 2), np.int64)])
    # (k = 0, indices [3, 0]: the CPU plugin returns uninitialised memory, no reference kernel: refused)
    for dt in (F16, BF16, np.dtype(np.float64), I32, I8, U8, BOOL):
        gnd(dt.name, [rnd(2, 4, dtype=dt), ints(-2, 2, 2, 2, 1)], 1 if dt == I32 else None, versions=("8",))

    def S(tag, d, i, b=0, ie="i64", versions=("5", "8")):
        gnd(f"shape-{tag}", [Dyn("f32", d), Dyn(ie, i)], b, versions=versions, params=())
    S("static", "1000,256,10,15", "25,125,3")
    S("static-b2", "30,2,100,35", "30,2,3,1", 2)
    S("static-b3", "1,64,64,320", "1,64,64,1,1", 3)
    S("batch-merge", "?,3..5,7", "2,?,6,1", 2)
    S("batch-interval", "2..4,5", "3..6,1", 1)
    S("batch-b3-interval", "2..3,2,4,5", "2,1..2,3,7,1", 3)
    S("batch-mismatch", "2,5", "3,1", 1)
    S("batch-bcast-1", "1,5", "3,1", 1)
    S("k-dyn", "2,3,4", "5,?")
    S("k-interval", "2,3,4", "5,1..2")
    S("k0", "2,3,4", "5,0")
    S("data-rank-dyn", "...", "5,2")
    S("idx-rank-dyn", "2,3,4", "...")
    S("dyn-dims", "?,?,?", "?,2")
    S("k-too-big", "2,3", "5,3")
    S("k-too-big-b", "2,3,4", "2,3", 1)
    S("b-data-rank", "2,3", "2,3,1", 2)
    S("b-idx-rank", "2,3,4", "2,1", 2)
    S("scalar-data", "", "1")
    S("scalar-idx", "3", "")
    S("b-negative", "2,3", "2,1", -1)
    S("idx-f32", "2,3", "4,1", 0, "f32")
    S("idx-u8", "2,3", "4,1", 0, "u8")


def scatter_update_cases() -> None:
    def su(tag, ins, params=P3):
        add(Case(f"ScatterUpdate-{tag}", "ScatterUpdate", "opset3", ins, {}, params=params))
    d35 = np.array([[-1, 1, -1, 3, 4], [-1, 6, -1, 8, 9], [-1, 11, 1, 13, 14]], np.float32)
    su("spec-2", [d35, i64(0, 2), np.array([[1, 1], [1, 1], [1, 2]], np.float32), i64(1)])
    su("spec-2-axis-param", [d35, i64(0, 2), np.array([[1, 1], [1, 1], [1, 2]], np.float32), np.array([1], np.int32)], P4)
    x = rnd(4, 3, 5)
    su("axis0-2d-idx", [x, i64(3, 1, 0, 2).reshape(2, 2), rnd(2, 2, 3, 5), i64(0)])
    su("axis1-scalar-idx", [x, np.int64(2), rnd(4, 5), i64(1)])
    su("axis-neg", [x, np.array([4, 0], np.int32), rnd(4, 3, 2), np.int32(-1)])
    su("axis-neg-param", [x, np.array([4, 0], np.int32), rnd(4, 3, 2), np.int64(-1)], P4)
    su("duplicates", [x, i64(1, 1, 1, 3, 3), rnd(5, 3, 5), np.int64(0)])
    su("const", [x, i64(2, 0), rnd(4, 3, 2), i64(2)], params=())
    su("empty-idx", [x, np.zeros((0,), np.int64), rnd(4, 0, 5), i64(1)])
    su("i8-idx", [x, np.array([2, 0], np.int8), rnd(4, 2, 5), i64(1)])
    su("u8-idx", [x, np.array([2, 0], np.uint8), rnd(4, 2, 5), np.array([1], np.uint8)])
    for dt in (F16, BF16, np.dtype(np.float64), I32, np.dtype(np.int64), I8, U8, BOOL):
        su(dt.name, [rnd(3, 4, dtype=dt), i64(2, 0), rnd(2, 4, dtype=dt), i64(0)])

    def S(tag, d, i, u, a=i64(0), de="f32", ue="f32", ie="i64"):
        add(Case(f"ScatterUpdate-shape-{tag}", "ScatterUpdate", "opset3", [Dyn(de, d), Dyn(ie, i), Dyn(ue, u), a], {}, params=()))
    S("static", "1000,256,10,15", "125,20", "1000,125,20,10,15", i64(1))
    S("dyn", "?,3..5,4", "2", "?,?,2", i64(2))
    S("rank-dyn", "...", "2", "3,2")
    S("axis-dyn", "2,3", "2", "2,2", Dyn("i64", ""))
    S("axis-range", "2,3", "2", "2,2", i64(2))
    S("upd-rank", "2,3", "2", "2,3,1", i64(0))
    S("upd-shape", "2,3", "2", "2,4", i64(0))
    S("upd-shape-idx", "4,3", "2", "3,3", i64(0))
    S("upd-shape-interval", "4,3", "2..3", "1..2,3", i64(0))
    S("types", "4,3", "2", "2,3", i64(0), "f32", "f16")
    S("idx-f32", "4,3", "2", "2,3", i64(0), ie="f32")
    S("axis-f32", "4,3", "2", "2,3", f32(0))
    S("axis-shape", "4,3", "2", "2,3", i64(0, 0))
    S("scalar-data", "", "2", "2")


def scatter_nd_cases() -> None:
    def snd(tag, ins, reductions=(None,), params=P3, versions=("4", "15")):
        for v in versions:
            for r in (reductions if v == "15" else (None,)):
                suffix = "" if r is None else f"-{r}"
                add(Case(f"ScatterNDUpdate{v}-{tag}{suffix}", "ScatterNDUpdate", f"opset{v}", ins,
                         {} if r is None else {"reduction": r}, params=params))
    ALL = (None, "sum", "sub", "prod", "min", "max")
    snd("spec-1", [np.arange(1, 9, dtype=np.float32), i64(4, 3, 1, 7).reshape(4, 1), f32(9, 10, 11, 12)])
    snd("spec15-1", [np.arange(1, 9, dtype=np.float32), i64(4, 3, 1, 7, -2, -4).reshape(6, 1), f32(9, 10, 11, 12, 13, 14)])
    a = np.array([[1, 2, 3, 4], [5, 6, 7, 8], [8, 7, 6, 5], [4, 3, 2, 1]], np.float32)
    snd("spec-2", [np.stack([a, a, a[::-1, ::-1], a[::-1, ::-1]]), i64(0, 2).reshape(2, 1),
                   np.stack([np.full((4, 4), v, np.float32) + np.arange(4, dtype=np.float32)[:, None] for v in (5, 1)])])
    for dt, name in [(np.float32, "f32"), (F16, "f16"), (np.int32, "i32")]:
        snd(f"spec15-x-{name}", [np.array([1, 2, 3, 4], dt), np.array([0, 2, -3, -3, 0], np.int32).reshape(5, 1),
                                 np.array([10, 20, 30, 40, 50], dt)], ALL, versions=("15",))
    x = rnd(3, 4, 5)
    dup = np.stack([ints(-3, 3, 12), ints(-4, 4, 12)], -1).reshape(3, 4, 2)
    snd("slices-dup", [x, dup, rnd(3, 4, 5)], ALL)
    snd("elements-dup", [x, np.stack([ints(0, 3, 20), ints(-4, 4, 20), ints(-5, 5, 20)], -1), rnd(20)], ALL)
    snd("slices-k1", [x, i64(2, -3).reshape(2, 1), rnd(2, 4, 5)])
    snd("k0", [x, np.zeros((2, 0), np.int64), rnd(2, 3, 4, 5)])
    snd("scalar-update", [x, i64(1, 2, 3), f32(7)])
    snd("scalar-update-1", [x, i64(1, 2, 3), f32(7).reshape(())])
    snd("scalar-update-5", [x, i64(1, 2, 3), f32(7, 8, 9, 10, 11)])
    snd("const", [x, dup, rnd(3, 4, 5)], ("sum",), params=())
    snd("empty-idx", [x, np.zeros((0, 2), np.int64), rnd(0, 5)])
    snd("i32-idx", [x, dup.astype(np.int32), rnd(3, 4, 5)], ("max",))
    snd("bool", [rnd(6, dtype=BOOL), i64(0, 1, 1, 2, 0, 5, 5, 3).reshape(8, 1), rnd(8, dtype=BOOL)], ALL)
    snd("bool-xor", [np.array([1, 0, 1, 0], bool), i64(0, 1, 1, 2, 0).reshape(5, 1), np.array([1, 1, 1, 0, 0], bool)],
        ("sub",), versions=("15",))     # the CPU plugin computes 0 - 1 - 1 -> true; the reference xor
    snd("i8-wrap", [np.array([100, -100, 5, 7], np.int8), i64(0, 0, 1, 1).reshape(4, 1),
                    np.array([100, 27, -100, -60], np.int8)], ALL)
    snd("u8-wrap", [np.array([1, 2, 250, 7], np.uint8), i64(0, 0, 2, 2).reshape(4, 1), np.array([5, 3, 3, 4], np.uint8)], ALL)
    snd("f16-order", [np.array([2048, 0], F16), i64(0, 0, 0, 0, 1, 1, 1).reshape(7, 1), np.array([1, 1, 1, 1, 1, 1, 2048], F16)],
        (None, "sum", "sub"))
    nan = np.nan
    snd("nan", [f32(nan, 1, nan, 5, nan), i64(0, 0, 1, 1, 2, 2, 3, 3, 3, 4).reshape(-1, 1), f32(3, 2, nan, 4, nan, 1, nan, 7, 8, 2)],
        ("min", "max", "sum"), versions=("15",))
    for dt in (BF16, np.dtype(np.float64), np.dtype(np.int64), I8):
        snd(dt.name, [rnd(3, 4, dtype=dt), i64(2, 0, 2).reshape(3, 1), rnd(3, 4, dtype=dt)], (None, "sum"))

    def S(tag, d, i, u, ie="i64", de="f32", ue="f32", r=None, versions=("4", "15")):
        for v in versions:
            add(Case(f"ScatterNDUpdate{v}-shape-{tag}", "ScatterNDUpdate", f"opset{v}", [Dyn(de, d), Dyn(ie, i), Dyn(ue, u)],
                     {} if v == "4" or r is None else {"reduction": r}, params=()))
    S("static", "1000,256,10,15", "25,125,3", "25,125,15")
    S("dyn", "?,3..5,4", "?,2", "2..3,4")
    S("rank-dyn", "...", "2,1", "...")
    S("idx-rank-dyn", "2,3", "...", "2")
    S("k-dyn", "2,3", "4,?", "4,3")
    S("k-too-big", "2,3", "4,3", "4")
    S("upd-rank", "2,3", "4,1", "4")
    S("upd-idx-dims", "2,3", "4,1", "5,3")
    S("upd-data-dims", "2,3", "4,1", "4,2")
    S("upd-interval", "2,3..6", "1..4,1", "3..7,5..8")
    S("upd-scalar-any", "2,3", "2", "5")
    S("scalar-data", "", "1", "1")
    S("scalar-idx", "3", "", "1")
    S("idx-i32", "2,3", "4,1", "4,3", "i32")
    S("idx-i8", "2,3", "4,1", "4,3", "i8")
    S("idx-u8", "2,3", "4,1", "4,3", "u8")
    S("idx-f32", "2,3", "4,1", "4,3", "f32")
    S("types", "2,3", "4,1", "4,3", ue="f16")
    S("string", "2,3", "4,1", "4,3", de="string", ue="string")
    S("string-sum", "2,3", "4,1", "4,3", de="string", ue="string", r="sum", versions=("15",))
    S("bool-sub", "2,3", "4,1", "4,3", de="boolean", ue="boolean", r="sub", versions=("15",))


def scatter_elements_cases() -> None:
    def seu(tag, ins, reductions=(None,), params=P3, versions=("3", "12"), init=(True,)):
        for v in versions:
            for r in (reductions if v == "12" else (None,)):
                for ui in (init if v == "12" and r not in (None, "none") else (True,)):
                    suffix = ("" if r is None else f"-{r}") + ("" if ui else "-noinit")
                    attrs = {} if r is None else {"reduction": r, "use_init_val": ui}
                    add(Case(f"ScatterElementsUpdate{v}-{tag}{suffix}", "ScatterElementsUpdate", f"opset{v}", ins,
                             attrs, params=params))
    RED = ("sum", "prod", "min", "max", "mean")
    BOTH = (True, False)
    seu("spec12-1", [f32(2, 3, 4, 6), i64(1, 0, 0, -2, -1, 2), f32(10, 20, 30, 40, 70, 60), i64(0)], RED, init=BOTH)
    seu("spec12-2", [f32(2, 3, 4, 6), i64(1, 0, 0, 2, 3, 2), f32(10, 20, 30, 40, 70, 60), i64(0)], ("sum",), init=(False,),
        versions=("12",))
    up = np.array([[11, 12], [13, 14]], np.int32)
    seu("spec12-3", [np.zeros((3, 4), np.int32), i64(1, 2, 0, 3).reshape(2, 2), up, i64(1)], (None, "none"))
    seu("spec12-4", [np.ones((3, 4), np.int32), i64(1, 1, 0, 3).reshape(2, 2), up, i64(1)], ("sum",), versions=("12",))
    seu("spec12-5", [np.full((3, 4), 2, np.int32), i64(1, 1, 0, 3).reshape(2, 2), up, i64(1)], ("prod",), versions=("12",))
    x = rnd(3, 4, 5)
    for axis, shape in [(0, (6, 4, 5)), (1, (2, 3, 5)), (2, (3, 4, 9)), (-1, (1, 2, 3))]:
        n = x.shape[axis]
        seu(f"axis{axis}", [x, ints(-n, n, *shape), rnd(*shape), np.int64(axis)], (None, "sum", "max", "mean"),
            init=BOTH if axis == 0 else (True,))
    seu("axis-param", [x, ints(-4, 4, 2, 6, 3), rnd(2, 6, 3), np.array([1], np.int32)], (None, "prod"), params=P4)
    seu("const", [x, ints(-4, 4, 2, 6, 3), rnd(2, 6, 3), np.int64(1)], (None, "min"), params=())
    seu("empty-idx", [x, np.zeros((3, 0, 5), np.int64), rnd(3, 0, 5), np.int64(1)], (None, "sum"))
    seu("axis-2-values", [x, ints(-3, 3, 2, 4, 5), rnd(2, 4, 5), i64(0, 1)], (None,))
    seu("i8-idx", [x, ints(-4, 4, 2, 6, 3, dtype=np.int8), rnd(2, 6, 3), np.int8(1)])
    seu("u8-idx", [x, ints(0, 4, 2, 6, 3, dtype=np.uint8), rnd(2, 6, 3), np.uint8(1)])
    seu("i32", [np.array([1, 2, -3, 4], np.int32), i64(0, 0, 2, 2, 1), np.array([-6, 2, 1, 1, -1], np.int32), i64(0)],
        ("mean",), init=BOTH)
    seu("i64", [np.array([1, 2, -3, 4]), i64(0, 0, 2, 2, 1, 3), np.array([-6, 2, 1, 1, -1, 7]), i64(0)], ("prod", "mean"),
        init=BOTH)
    seu("u8-wrap", [np.array([1, 2, 250, 7], np.uint8), i64(0, 0, 2, 2), np.array([5, 3, 3, 4], np.uint8), i64(0)], RED)
    seu("bool", [rnd(6, dtype=BOOL), i64(0, 1, 1, 2, 0, 5, 5, 3), rnd(8, dtype=BOOL), i64(0)], (None,) + RED, init=BOTH)
    seu("f16", [np.array([1, 2, 2000, 7], F16), i64(0, 0, 2, 2, 2), np.array([0.1, 0.2, 0.3, 0.7, 1.1], F16), i64(0)], RED)
    seu("f16-order", [np.array([2048, 0], F16), i64(0, 0, 0, 0, 1, 1, 1), np.array([1, 1, 1, 1, 1, 1, 2048], F16), i64(0)],
        ("sum", "mean"))
    nan = np.nan
    seu("nan", [f32(nan, 1, nan, 5, nan), i64(0, 0, 1, 1, 2, 2, 3, 3, 3, 4), f32(3, 2, nan, 4, nan, 1, nan, 7, 8, 2), i64(0)],
        ("min", "max", "sum"), init=BOTH, versions=("12",))
    seu("inf-noinit", [f32(1, 2), i64(0, 1), f32(np.inf, -np.inf), i64(0)], ("min", "max"), init=(False,), versions=("12",))
    for dt in (BF16, np.dtype(np.float64), I32, I8):
        seu(dt.name, [rnd(3, 4, dtype=dt), ints(-3, 3, 2, 4), rnd(2, 4, dtype=dt), i64(0)], (None, "sum"))

    def S(tag, d, i, u, a=i64(0), ie="i64", de="f32", ue="f32", r=None, versions=("3", "12")):
        for v in versions:
            add(Case(f"ScatterElementsUpdate{v}-shape-{tag}", "ScatterElementsUpdate", f"opset{v}",
                     [Dyn(de, d), Dyn(ie, i), Dyn(ue, u), a], {} if v == "3" or r is None else {"reduction": r}, params=()))
    S("static", "1000,256,7,7", "125,20,7,6", "125,20,7,6")
    S("dyn", "?,3..5", "2,?", "?,4")
    S("rank-dyn", "...", "2,3", "2,3")
    S("idx-rank-dyn", "2,3", "...", "2,3")
    S("axis-dyn", "2,3", "2,3", "2,3", Dyn("i64", "1"))
    S("axis-range", "2,3", "2,3", "2,3", i64(2))
    S("axis-range-neg", "2,3", "2,3", "2,3", i64(-3))
    S("axis-shape", "2,3", "2,3", "2,3", i64(0, 1))
    S("axis-f32", "2,3", "2,3", "2,3", f32(0))
    S("axis-rank2", "2,3", "2,3", "2,3", np.zeros((1, 1), np.int64))
    S("rank-mismatch", "2,3", "2,3,1", "2,3,1")
    S("upd-mismatch", "2,3", "2,3", "2,2")
    S("upd-interval", "2,3", "1..2,3", "2..4,?")
    S("idx-bigger", "2,3", "3,3", "3,3", i64(1))
    S("idx-bigger-axis", "2,3", "5,3", "5,3", i64(0))
    S("scalar", "", "", "")   # (accepted; running it crashes the reference evaluator, SIGSEGV)
    S("idx-i8", "2,3", "2,3", "2,3", ie="i8")
    S("idx-f32", "2,3", "2,3", "2,3", ie="f32")
    S("types", "2,3", "2,3", "2,3", ue="f16")
    S("bool-mean", "2,3", "2,3", "2,3", de="boolean", ue="boolean", r="mean", versions=("12",))
    S("string", "2,3", "2,3", "2,3", de="string", ue="string")
    S("string-sum", "2,3", "2,3", "2,3", de="string", ue="string", r="sum", versions=("12",))


all_cases = CASES.built_by(gather_elements_cases, gather_nd_cases, scatter_update_cases, scatter_nd_cases,
                           scatter_elements_cases)


if __name__ == "__main__":
    sys.exit(main(cases_of=all_cases, out="index_expectations", doc=__doc__))
