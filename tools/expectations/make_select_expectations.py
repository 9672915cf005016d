"""Measure OpenVINO's selection/index ops (TopK, NonZero, OneHot, Roll, Einsum) into ONE fixture.

    python -m tools.expectations.make_select_expectations [--out tests/fixtures/select_expectations] [-k substring]

Same format and machinery as tools/expectations/make_nn_expectations.py (its Case/Dyn/main: one op built with
``NodeFactory(opset).create``, evaluated by the CPU plugin at f32 and by the reference evaluator
in a worker process); this file only defines the cases. tests/ops/nn_cases.py reads the result,
tests/ops/test_{topk,non_zero,one_hot,roll,einsum}.py replay it.

What the cases are chosen to show (measured on OpenVINO 2026.4.1):

* TopK ties: the reference evaluator orders equal values by index (lower first) for sort=value and
  selects the lower indices for sort=index, whatever ``stable`` says; the CPU plugin does so only
  for sort=value with stable=true. Tie cases therefore keep both answers (``reference_arrays``)
  and the TopK tests compare with the reference, which follows the spec's stable rule.
* TopK sort=none: both evaluators return the selected elements in an arbitrary order; the tests
  compare the selected set only.
* TopK with k > the axis is left out of the run cases (shape cases only): the CPU plugin refuses it,
  the reference evaluator reads out of bounds (garbage values, or the worker dies of heap
  corruption — it differs from run to run).
* NaN in TopK is left out: both evaluators give orders that depend on where the NaNs sit (the
  comparator is not a strict weak order); OpenVINO documents NaN ordering as implementation-defined.
"""
from __future__ import annotations

import sys

import numpy as np

from tools.expectations.make_nn_expectations import BF16, F16, F64, INTS, Case, Cases, Dyn, etype, f32, i64, main

CASES = Cases()
add = CASES.add
_RNG = np.random.default_rng(20263)


def distinct(*shape, dtype=np.float32) -> np.ndarray:
    """A tie-free permutation of 0..N-1 (shifted to be signed for signed types), as ``dtype``."""
    n = int(np.prod(shape))
    v = _RNG.permutation(n).reshape(shape)
    dt = np.dtype(dtype)
    if dt.kind == "f" or dt == BF16:
        return ((v - n // 2) * 0.25).astype(np.float32).astype(dt)
    return (v - (n // 2 if dt.kind == "i" else 0)).astype(dt)


def ties(*shape, hi=3) -> np.ndarray:
    return _RNG.integers(0, hi, shape, endpoint=True).astype(np.float32)


def scalar(v, dtype=np.int64) -> np.ndarray:
    return np.array(v, dtype)


# ---------------------------------------------------------------------------------------------

def topk(mode="max", sort="value", axis=-1, idx="i32", stable=None) -> dict:
    a = dict(axis=axis, mode=mode, sort=sort, index_element_type=idx)
    if stable is not None:
        a["stable"] = stable
    return a


def topk_cases() -> None:
    x = distinct(2, 6, 3)
    for mode in ("max", "min"):
        for sort in ("value", "index", "none"):
            for stable in ((False, True) if sort != "none" else (False,)):
                add(Case(f"TopK11-{mode}-{sort}-s{int(stable)}", "TopK", "opset11", [x, scalar(3)],
                         topk(mode, sort, 1, stable=stable)))
            add(Case(f"TopK1-{mode}-{sort}", "TopK", "opset1", [x, scalar(4)], topk(mode, sort, 1)))
            add(Case(f"TopK3-{mode}-{sort}", "TopK", "opset3", [x, scalar(2)], topk(mode, sort, -1, "i64")))
    # the spec's example of stable ordering, and tie-heavy data (CPU and reference differ)
    spec = np.array([5, 3, 1, 2, 5, 5], np.float32)
    for stable in (False, True):
        add(Case(f"TopK11-spec-min-index-s{int(stable)}", "TopK", "opset11", [spec, scalar(4)],
                 topk("min", "index", 0, stable=stable)))
    for tag, xt, axis in (("1x20", ties(1, 20), 1), ("7x3", ties(7, 3), 0), ("2x40x3", ties(2, 40, 3), 1),
                          ("1x300", ties(1, 300), 1)):
        n = xt.shape[axis]
        for mode in ("max", "min"):
            for sort in ("value", "index"):
                for stable in (False, True):
                    for k in sorted({1, n // 2, n}):
                        add(Case(f"TopK11-ties-{tag}-{mode}-{sort}-s{int(stable)}-k{k}", "TopK", "opset11",
                                 [xt, scalar(k)], topk(mode, sort, axis, stable=stable)))
    add(Case("TopK3-ties-value", "TopK", "opset3", [ties(4, 9), scalar(5)], topk("max", "value", 1)))
    add(Case("TopK1-ties-index", "TopK", "opset1", [ties(4, 9), scalar(5)], topk("min", "index", 1)))
    # axes, ranks, k extremes, long axes (the CPU plugin switches algorithms)
    for tag, xs, axis, k in (("rank1", (9,), 0, 4), ("axis0", (5, 3, 2), 0, 2), ("axis-2", (2, 5, 4), -2, 3),
                             ("rank4", (2, 3, 4, 5), 2, 2), ("k1", (3, 8), 1, 1), ("k-all", (3, 8), 1, 8),
                             ("long", (2, 1100), 1, 37), ("long-all", (1, 300), 1, 300), ("axis1-of-1", (4, 1), 1, 1)):
        xd = distinct(*xs)
        add(Case(f"TopK11-{tag}", "TopK", "opset11", [xd, scalar(k)], topk("max", "value", axis)))
        add(Case(f"TopK11-{tag}-min", "TopK", "opset11", [xd, scalar(k)], topk("min", "value", axis)))
    add(Case("TopK11-boolean", "TopK", "opset11", [ties(3, 7, hi=1) > 0, scalar(3)], topk("max", "value", 1)))
    add(Case("TopK11-boolean-min", "TopK", "opset11", [ties(3, 7, hi=1) > 0, scalar(3)], topk("min", "index", 1)))
    add(Case("TopK11-i64-big", "TopK", "opset11", [np.array([[2**40 + 1, 2**40, 5, 2**33]]), scalar(3)], topk("max", "value", 1)))
    add(Case("TopK3-k-u64-param", "TopK", "opset3", [distinct(2, 5), scalar(3, np.uint64)], topk("max", "value", 1), params=(0, 1)))
    add(Case("TopK11-inf", "TopK", "opset11", [np.array([[1, -np.inf, 3, np.inf, 0, -2]], np.float32), scalar(4)],
             topk("max", "value", 1)))
    add(Case("TopK11-k-param", "TopK", "opset11", [distinct(3, 7), scalar(4)], topk("max", "value", 1), params=(0, 1)))
    add(Case("TopK11-k-param-i32", "TopK", "opset11", [distinct(3, 7), scalar(2, np.int32)], topk("min", "index", 1),
             params=(0, 1)))
    add(Case("TopK11-k0", "TopK", "opset11", [distinct(2, 5), scalar(0)], topk("max", "value", 1)))
    add(Case("TopK11-k0-param", "TopK", "opset11", [distinct(2, 5), scalar(0)], topk("max", "value", 1), params=(0, 1)))
    add(Case("TopK11-empty-batch", "TopK", "opset11", [np.zeros((0, 5), np.float32), scalar(2)], topk("max", "value", 1)))
    add(Case("TopK11-i64-index", "TopK", "opset11", [distinct(3, 6), scalar(3)], topk("min", "value", 1, "i64")))
    for dt in [F16, BF16, F64, *INTS]:
        name = etype(dt)
        add(Case(f"TopK11-{name}", "TopK", "opset11", [distinct(3, 10, dtype=dt), scalar(4)], topk("max", "value", 1)))
        add(Case(f"TopK11-{name}-min", "TopK", "opset11", [distinct(3, 10, dtype=dt), scalar(4)], topk("min", "index", 1, "i64")))
    for kt in (np.int8, np.uint8, np.int16, np.int32, np.uint64):
        for ver in ("opset1", "opset3"):
            add(Case(f"TopK{ver[5:]}-k-{etype(kt)}", "TopK", ver, [distinct(2, 6), scalar(3, kt)], topk("max", "value", 1)))
    # shapes and errors
    for tag, xs, k, a in [
            ("dyn-batch", "?,5", scalar(3), topk(axis=1)), ("dyn-axis", "2,?", scalar(3), topk(axis=1)),
            ("interval-axis", "2,3..10", scalar(3), topk(axis=1)), ("interval-axis-k-big", "2,3..10", scalar(12), topk(axis=1)),
            ("k-dyn", "2,10", Dyn("i64", ""), topk(axis=1)), ("k-dyn-dyn-axis", "2,?", Dyn("i64", ""), topk(axis=1)),
            ("k-dyn-interval", "2,3..10", Dyn("i32", ""), topk(axis=1)), ("k-dyn-upper", "2,..10", Dyn("i64", ""), topk(axis=1)),
            ("k-dyn-lower", "2,4..", Dyn("i64", ""), topk(axis=1)),
            ("k-dyn-rank", "2,10", Dyn("i64", "..."), topk(axis=1)), ("k-rank1-dyn", "2,10", Dyn("i64", "1"), topk(axis=1)),
            ("k-shape-dyn", "2,10", Dyn("i64", "?"), topk(axis=1)),
            ("rank-dyn", "...", scalar(3), topk(axis=1)), ("rank-dyn-k-dyn", "...", Dyn("i64", ""), topk(axis=5)),
            ("k-greater", "2,5", scalar(7), topk(axis=1)), ("k-zero", "2,5", scalar(0), topk(axis=1)),
            ("k-negative", "2,5", scalar(-1), topk(axis=1)), ("k-vector", "2,5", i64(3), topk(axis=1)),
            ("k-f32", "2,5", scalar(3, np.float32), topk(axis=1)), ("k-bool", "2,5", scalar(True, np.bool_), topk(axis=1)),
            ("scalar-data", "", scalar(1), topk(axis=0)), ("axis-range", "2,5", scalar(1), topk(axis=2)),
            ("axis-range-neg", "2,5", scalar(1), topk(axis=-3)),
            ("idx-f32", "2,5", scalar(2), topk(axis=1, idx="f32")), ("idx-u8", "2,5", scalar(2), topk(axis=1, idx="u8")),
            ("stable-none", "2,5", scalar(2), topk(sort="none", axis=1, stable=True))]:
        add(Case(f"TopK11-shape-{tag}", "TopK", "opset11", [Dyn("f32", xs), k], a, params=()))
    for ver in ("opset1", "opset3"):
        for tag, k in (("k-f32", scalar(3, np.float32)), ("k-u8", scalar(3, np.uint8)), ("k-i16", scalar(3, np.int16)),
                       ("k-dyn", Dyn("i64", "")), ("k-negative", scalar(-2))):
            add(Case(f"TopK{ver[5:]}-shape-{tag}", "TopK", ver, [Dyn("f32", "2,?,5"), k], topk(axis=1), params=()))
    for t in ("boolean", "f16", "i8", "u64", "string"):
        add(Case(f"TopK11-shape-type-{t}", "TopK", "opset11", [Dyn(t, "2,5"), scalar(2)], topk(axis=1), params=()))


# ---------------------------------------------------------------------------------------------

def non_zero_cases() -> None:
    spec = np.array([[1, 0], [1, 1]], np.float32)
    for ot in ("i64", "i32"):
        add(Case(f"NonZero-spec-{ot}", "NonZero", "opset3", [spec], dict(output_type=ot)))
    sparse = lambda *s, dt=np.float32: (distinct(*s) * (_RNG.random(s) < 0.4)).astype(dt)  # noqa: E731
    for tag, x in (("1d", sparse(9)), ("3d", sparse(2, 3, 4)), ("4d", sparse(2, 1, 3, 2)), ("all-zero", np.zeros((2, 3), np.float32)),
                   ("all-nonzero", distinct(2, 3) + 100), ("empty", np.zeros((0, 3), np.float32)),
                   ("scalar-nonzero", np.array(2.5, np.float32)), ("scalar-zero", np.array(0, np.float32)),
                   ("nan-negzero", np.array([0.0, -0.0, np.nan, np.inf, -1e-30, 0.0], np.float32))):
        add(Case(f"NonZero-{tag}", "NonZero", "opset3", [x], dict(output_type="i64")))
        add(Case(f"NonZero-{tag}-const", "NonZero", "opset3", [x], dict(output_type="i32"), params=()))
    for dt in [F16, BF16, F64, *INTS, np.bool_]:
        x = sparse(3, 5, dt=np.float32)
        x = (x != 0) if dt == np.bool_ else np.abs(x).astype(dt) if np.dtype(dt).kind == "u" else x.astype(dt)
        add(Case(f"NonZero-{etype(dt)}", "NonZero", "opset3", [x], dict(output_type="i64")))
    for tag, xs, ot in [("static", "3,4", "i64"), ("dyn-dim", "?,4", "i64"), ("interval", "2..3,4", "i32"),
                        ("upper", "..3,4", "i64"), ("lower", "2..,4", "i64"), ("zero-dim", "0,4", "i64"),
                        ("zero-dim-dyn", "0,?", "i64"), ("scalar", "", "i64"), ("rank-dyn", "...", "i64"),
                        ("1d", "7", "i32"), ("bad-type", "3,4", "f32"), ("u8-type", "3,4", "u8")]:
        add(Case(f"NonZero-shape-{tag}", "NonZero", "opset3", [Dyn("f32", xs)], dict(output_type=ot), params=()))
    for t in ("boolean", "string", "u1", "i4"):
        add(Case(f"NonZero-shape-type-{t}", "NonZero", "opset3", [Dyn(t, "3,4")], dict(output_type="i64"), params=()))


# ---------------------------------------------------------------------------------------------

def one_hot_cases() -> None:
    on, off = f32(1)[0], f32(0)[0]
    v = lambda a, dt=np.float32: np.array(a, dt)  # noqa: E731
    ex1, ex2 = np.array([0, 3, 1, 2], np.int64), np.array([[0, 3, 1], [1, 2, 4]], np.int64)
    for ver, extra in (("opset1", {}), ("opset16", {"negative_indices_mode": "ignore_negative"})):
        tag = f"OneHot{ver[5:]}"
        add(Case(f"{tag}-spec-1", "OneHot", ver, [ex1, scalar(3), v(1, np.int32), v(2, np.int32)], dict(axis=-1, **extra)))
        add(Case(f"{tag}-spec-2", "OneHot", ver, [ex2, scalar(3), v(1, np.int32), v(0, np.int32)], dict(axis=1, **extra)))
        neg = np.array([[0, -1, 2], [-3, -4, 5]], np.int32)
        add(Case(f"{tag}-negative", "OneHot", ver, [neg, scalar(4, np.int32), v(5.5), v(-1.0)], dict(axis=-1, **extra)))
        add(Case(f"{tag}-negative-const", "OneHot", ver, [neg, scalar(4, np.int32), v(5.5), v(-1.0)], dict(axis=0, **extra),
                 params=()))
    for mode in ("normalize", "ignore_negative"):
        add(Case(f"OneHot16-spec-{mode}", "OneHot", "opset16", [np.array([0, -5, -2, 2], np.int64), scalar(3), v(1, np.int32),
                                                                v(2, np.int32)], dict(axis=-1, negative_indices_mode=mode)))
        add(Case(f"OneHot16-{mode}-2d", "OneHot", "opset16", [np.array([[-1, -4, 3], [-3, 0, 4]], np.int32), scalar(4, np.int32),
                                                              v(7.0), v(0.5)], dict(axis=1, negative_indices_mode=mode)))
    idx = np.array([[[2, 0], [1, 5]], [[3, 3], [0, 1]]], np.int64)
    for axis in (0, 1, 2, 3, -1, -2, -4):
        add(Case(f"OneHot1-axis{axis}", "OneHot", "opset1", [idx, scalar(4), on, off], dict(axis=axis)))
    add(Case("OneHot1-scalar-indices", "OneHot", "opset1", [scalar(2), scalar(4), on, off], dict(axis=0)))
    add(Case("OneHot1-depth0", "OneHot", "opset1", [ex1, scalar(0), on, off], dict(axis=-1)))
    add(Case("OneHot1-depth-param", "OneHot", "opset1", [ex1, scalar(5), on, off], dict(axis=0), params=(0, 1)))
    add(Case("OneHot1-values-param", "OneHot", "opset1", [ex1, scalar(5), v(3.0), v(-2.0)], dict(axis=0), params=(0, 2, 3)))
    add(Case("OneHot1-i32-indices-i64-depth", "OneHot", "opset1", [ex1.astype(np.int32), scalar(3), on, off], dict(axis=-1)))
    add(Case("OneHot1-big-values", "OneHot", "opset1", [ex1, scalar(4), np.int64(2**40 + 1), np.int64(-2**35)], dict(axis=-1)))
    add(Case("OneHot16-normalize-out-of-range", "OneHot", "opset16", [np.array([0, -1, 2, -4, 3, -3]), scalar(3), on, off],
             dict(axis=-1, negative_indices_mode="normalize"), params=(0, 1)))
    add(Case("OneHot1-big-index", "OneHot", "opset1", [np.array([2**40, 1, -2**40], np.int64), scalar(3), on, off], dict(axis=-1)))
    for dt in [F16, BF16, F64, *INTS, np.bool_]:
        a, b = (np.array(True), np.array(False)) if dt == np.bool_ else (np.array(7).astype(dt), np.array(3).astype(dt))
        add(Case(f"OneHot1-{etype(dt)}", "OneHot", "opset1", [ex2, scalar(4), a, b], dict(axis=1)))
    for tag, xs, ins, a in [
            ("dyn", "?,3", [scalar(4), on, off], dict(axis=1)), ("interval", "2..5,3", [scalar(4), on, off], dict(axis=-1)),
            ("rank-dyn", "...", [scalar(4), on, off], dict(axis=1)), ("depth-dyn", "2,3", [Dyn("i64", ""), on, off], dict(axis=1)),
            ("depth-dyn-rank", "2,3", [Dyn("i64", "..."), on, off], dict(axis=0)),
            ("depth-negative", "2,3", [scalar(-1), on, off], dict(axis=1)), ("depth-vector", "2,3", [i64(4), on, off], dict(axis=1)),
            ("on-vector", "2,3", [scalar(4), f32(1), off], dict(axis=1)), ("off-vector", "2,3", [scalar(4), on, f32(0, 1)], dict(axis=1)),
            ("on-off-types", "2,3", [scalar(4), on, np.int32(0)], dict(axis=1)),
            ("depth-f32", "2,3", [scalar(4, np.float32), on, off], dict(axis=1)),
            ("depth-u8", "2,3", [scalar(4, np.uint8), on, off], dict(axis=1)),
            ("axis-range", "2,3", [scalar(4), on, off], dict(axis=3)), ("axis-range-neg", "2,3", [scalar(4), on, off], dict(axis=-4)),
            ("scalar", "", [scalar(4), on, off], dict(axis=-1))]:
        add(Case(f"OneHot1-shape-{tag}", "OneHot", "opset1", [Dyn("i64", xs), *ins], a, params=()))
    for t in ("f32", "u8", "i8", "boolean"):
        add(Case(f"OneHot1-shape-indices-{t}", "OneHot", "opset1", [Dyn(t, "2,3"), scalar(4), on, off], dict(axis=1), params=()))
    add(Case("OneHot16-shape-spec-spelling", "OneHot", "opset16", [Dyn("i32", "2,3"), scalar(4, np.int32), on, off],
             dict(axis=1, negative_indices_mode="ignore-negative"), params=()))
    add(Case("OneHot16-shape-dyn", "OneHot", "opset16", [Dyn("i32", "?,3"), scalar(4, np.int32), on, off],
             dict(axis=1, negative_indices_mode="normalize"), params=()))


# ---------------------------------------------------------------------------------------------

def roll_cases() -> None:
    spec = np.arange(1, 13, dtype=np.float32).reshape(4, 3)
    for tag, shift, axes in (("spec-1", scalar(1), scalar(0)), ("spec-2", i64(-1, 2), i64(0, 1)),
                             ("spec-3", i64(1, 2, 1), i64(0, 1, 0))):
        add(Case(f"Roll-{tag}", "Roll", "opset7", [spec, shift, axes]))
    x = distinct(2, 3, 5)
    for tag, shift, axes in (("scalar-shift-many-axes", scalar(2), i64(0, 2)), ("negative-axes", i64(1, -7), i64(-1, -2)),
                             ("big-shift", i64(123, -1001), i64(2, 1)), ("zero-shift", i64(0), i64(1)),
                             ("repeated-axis", i64(3, 4, -2), i64(2, -1, 2)), ("all-axes", i64(1, 2, 3), i64(0, 1, 2)),
                             ("vector1", i64(2), i64(1)), ("axes-vector1-shift-scalar", scalar(-1), i64(2)),
                             ("shift-i32", np.array([1, -2], np.int32), np.array([0, 2], np.int32)),
                             ("mixed-types", np.array([3], np.int32), i64(-1))):
        add(Case(f"Roll-{tag}", "Roll", "opset7", [x, shift, axes]))
        add(Case(f"Roll-{tag}-params", "Roll", "opset7", [x, shift, axes], params=(0, 1, 2)))
    add(Case("Roll-empty", "Roll", "opset7", [np.zeros((2, 0, 3), np.float32), i64(1, 5), i64(1, 2)]))
    for dt in [F16, BF16, F64, *INTS, np.bool_]:
        xd = distinct(3, 4, dtype=np.float32)
        xd = (xd > 0) if dt == np.bool_ else np.abs(xd).astype(dt) if np.dtype(dt).kind == "u" else xd.astype(dt)
        add(Case(f"Roll-{etype(dt)}", "Roll", "opset7", [xd, i64(1, -1), i64(0, 1)]))
    for tag, xs, shift, axes in [
            ("dyn", "?,3..5,4", i64(1), i64(0)), ("rank-dyn", "...", i64(1, 2), i64(0, 5)),
            ("shift-rank2", "2,3", np.zeros((1, 1), np.int64), i64(0)), ("axes-rank2", "2,3", scalar(1), np.zeros((1, 1), np.int64)),
            ("len-mismatch", "2,3", i64(1, 2), i64(0)), ("shift-len1-axes-len2", "2,3", i64(1), i64(0, 1)),
            ("axis-high", "2,3", i64(1), i64(2)), ("axis-low", "2,3", i64(1), i64(-3)),
            ("shift-f32", "2,3", f32(1), i64(0)), ("axes-u8", "2,3", i64(1), np.array([0], np.uint8)),
            ("shift-dyn", "2,3", Dyn("i64", "?"), i64(0, 1)), ("axes-dyn", "2,3", i64(1, 1), Dyn("i32", "2")),
            ("shift-dyn-mismatch", "2,3", Dyn("i64", "3"), i64(0, 1))]:
        add(Case(f"Roll-shape-{tag}", "Roll", "opset7", [Dyn("f32", xs), shift, axes], params=()))
    add(Case("Roll-shape-string", "Roll", "opset7", [Dyn("string", "2,3"), i64(1), i64(0)], params=()))


# ---------------------------------------------------------------------------------------------

def einsum_cases() -> None:
    A3 = np.arange(1, 10, dtype=np.float32).reshape(3, 3)
    K = np.array([A3, 2 * A3], np.float32)
    for tag, eq, ins in (("spec-1", "i,i->", [f32(1, 2, 3), f32(4, 5, 6)]),
                         ("spec-2", "ij,j->i", [np.array([[1, 2, 3], [1, 2, 3]], np.float32), f32(4, 5, 6)]),
                         ("spec-3", "kii->k", [K]), ("spec-4", "kii->ki", [K]), ("spec-5", "ijk->kij", [A3[None]]),
                         ("spec-6", "a...->...", [A3]), ("spec-7", "a...,...->a...", [A3, f32(0.5)]),
                         ("spec-8", "AbC", [np.arange(1, 7, dtype=np.float32).reshape(1, 2, 3)])):
        add(Case(f"Einsum-{tag}", "Einsum", "opset7", ins, dict(equation=eq), params=tuple(range(len(ins)))))
    r = lambda *s: distinct(*s) / 8  # noqa: E731
    for tag, eq, shapes in (
            ("matmul", "ij,jk->ik", [(3, 4), (4, 5)]), ("batch-matmul", "bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
            ("implicit-matmul", "ij,jk", [(3, 4), (4, 5)]), ("implicit-transpose", "ba", [(3, 4)]),
            ("implicit-trace", "ii", [(4, 4)]), ("trace", "ii->", [(4, 4)]), ("diag", "ii->i", [(4, 4)]),
            ("three", "ab,bcd,bc->ca", [(2, 5), (5, 3, 6), (5, 3)]), ("outer", "i,j->ij", [(3,), (4,)]),
            ("sum-all", "ijk->", [(2, 3, 4)]), ("ellipsis-bcast", "...ij,...jk->...ik", [(2, 1, 3, 4), (5, 4, 2)]),
            ("spec-xml", "ab...,ac...,ade->...bc", [(2, 3, 4), (2, 7, 1), (2, 4, 7)]),
            ("spec-bcast", "a...b,b...->a...", [(9, 1, 4, 3), (3, 11, 7, 1)]),
            ("ellipsis-empty", "...ij,jk->...ik", [(3, 4), (4, 2)]), ("ellipsis-mid", "a...b->b...a", [(2, 3, 4, 5)]),
            ("implicit-ellipsis", "...ab,...bc", [(2, 3, 4), (2, 4, 5)]), ("repeated-3", "iii->i", [(3, 3, 3)]),
            ("repeated-two-pairs", "ijij->ij", [(2, 3, 2, 3)]), ("diag-with-batch", "bii,bi->b", [(2, 3, 3), (2, 3)]),
            ("spaces", " ij , jk -> ki ", [(2, 3), (3, 4)]), ("capitals", "Ab,bC->CA", [(2, 3), (3, 4)]),
            ("scalar-operand", ",ij->ij", [(), (2, 3)]), ("repeated-ellipsis-label", "i...i->...i", [(3, 2, 3)]),
            ("bcast-label-1", "ij,jk->ik", [(3, 1), (4, 5)])):
        ins = [r(*s) if s else np.array(1.5, np.float32) for s in shapes]
        add(Case(f"Einsum-{tag}", "Einsum", "opset7", ins, dict(equation=eq), params=tuple(range(len(ins)))))
    for tag, eq, x in (("ellipsis-summed", "...ij->i", r(2, 3, 4)), ("ellipsis-out-only", "ij->...i", r(3, 4)),
                       ("bcast-label-out", "ij,jk->ijk", None), ("out-repeated", "ij->ii", r(3, 3))):
        ins = [r(3, 1), r(4, 5)] if x is None else [x]
        add(Case(f"Einsum-{tag}", "Einsum", "opset7", ins, dict(equation=eq), params=tuple(range(len(ins)))))
    add(Case("Einsum-f16-sum", "Einsum", "opset7", [np.full((1, 3000), 0.1, F16), np.full((3000, 1), 0.1, F16)],
             dict(equation="ij,jk->ik"), params=(0, 1)))
    for dt, v in ((np.int8, 5), (np.int8, -5), (np.uint8, 5)):
        add(Case(f"Einsum-{etype(dt)}-saturates{'-neg' if v < 0 else ''}", "Einsum", "opset7",
                 [np.full((2, 50), v, dt), np.full((50, 1), 3, dt)], dict(equation="ij,jk->ik"), params=(0, 1)))
    add(Case("Einsum-const", "Einsum", "opset7", [r(3, 4), r(4, 5)], dict(equation="ij,jk->ik"), params=(0,)))
    for dt in (F16, BF16, F64, np.int32, np.int64, np.int8, np.uint8):
        a, b = distinct(3, 4, dtype=dt), distinct(4, 2, dtype=dt)
        if np.dtype(dt).kind in "iu":
            a, b = (np.abs(a.astype(np.int64)) % 5).astype(dt), (np.abs(b.astype(np.int64)) % 5).astype(dt)
        add(Case(f"Einsum-{etype(dt)}", "Einsum", "opset7", [a, b], dict(equation="ij,jk->ki"), params=(0, 1)))
    for tag, eq, shapes in [
            ("dyn", "ij,jk->ik", ["?,4", "4,?"]), ("merge", "ij,jk->ik", ["3,?", "2..6,5"]),
            ("merge-intervals", "ij,jk->jik", ["3,2..8", "4..10,5"]), ("rank-dyn", "ij,jk->ik", ["...", "4,5"]),
            ("rank-dyn-ellipsis", "...ij,jk->...ik", ["...", "4,5"]), ("ellipsis-bcast", "...ij,...jk->...ik", ["?,1,3,4", "5,4,2"]),
            ("ellipsis-interval", "...i,...i->...", ["2..4,3", "1,3"]), ("ellipsis-bad", "...i,...i->...", ["2,3", "4,3"]),
            ("mismatch", "ij,jk->ik", ["3,4", "5,6"]), ("label-bcast-1", "ij,jk->ik", ["3,1", "4,5"]),
            ("rank-low", "ijk->i", ["3,4"]), ("rank-high", "ij->i", ["3,4,5"]), ("out-label", "ij->k", ["3,4"]),
            ("count", "ij,jk->ik", ["3,4"]), ("bad-char", "i1,jk->ik", ["3,4", "4,5"]),
            ("ellipsis-out-only", "ij->...i", ["3,4"]), ("ellipsis-in-only", "...ij->i", ["3,4"]),
            ("two-ellipses", "......i->i", ["3,4"]), ("out-repeated", "ij->ii", ["3,3"]),
            ("diag-dyn", "ii->i", ["?,3"]), ("diag-mismatch", "ii->i", ["3,4"]), ("bad-arrow", "ij-i", ["3,4"]),
            ("diag-intervals", "ii->i", ["2..5,3..8"]), ("implicit-repeated", "iij", ["3,3,4"]),
            ("spec-implicit", "dbbc,ca", ["2,4,4,3", "3,5"]),
            ("rank-dyn-ellipsis-not-out", "...ij,jk->ik", ["...", "4,5"]),
            ("rank-dyn-second", "...ij,...jk->...ik", ["2,3,4", "..."]), ("rank-ellipsis-low", "...ij->i", ["3"]),
            ("bcast-intervals", "ij,ik->ijk", ["1..3,4", "2..5,6"]), ("bcast-dyn", "ij,ik->ijk", ["?,4", "3,6"]),
            ("bcast-both-maybe-1", "ij,ik->ijk", ["1,4", "?,6"]), ("trailing-comma", "ij,->ij", ["3,4"])]:
        add(Case(f"Einsum-shape-{tag}", "Einsum", "opset7", [Dyn("f32", s) for s in shapes], dict(equation=eq), params=()))
    add(Case("Einsum-shape-types", "Einsum", "opset7", [Dyn("f32", "2,3"), Dyn("f16", "3,4")], dict(equation="ij,jk->ik"), params=()))
    add(Case("Einsum-shape-bool", "Einsum", "opset7", [Dyn("boolean", "2,3")], dict(equation="ij->ji"), params=()))
    add(Case("Einsum-shape-i32", "Einsum", "opset7", [Dyn("i32", "2,3")], dict(equation="ij->ji"), params=()))


all_cases = CASES.built_by(topk_cases, non_zero_cases, one_hot_cases, roll_cases, einsum_cases)


if __name__ == "__main__":
    sys.exit(main(cases_of=all_cases, out="select_expectations", doc=__doc__))
