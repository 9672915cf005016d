"""Value bounds: what shape inference knows of small integer tensors whose values are unknown.

OpenVINO evaluates a lower and an upper bound for each element of the integer tensors that
compute shapes (``evaluate_lower``/``evaluate_upper``), so ShapeOf of ``[?,?,32]`` -> Gather ->
Concat -> Reshape gives ``[?,?,32]``, and Broadcast(0, Concat(2, Gather(ShapeOf(x), 0), 16)) gives
``[2,?,16]``. irrun does the same, in this module:

* a :class:`~irrun.ops.base.TensorInfo` without a value may carry ``lower``/``upper``: int64 arrays
  of its static shape, :data:`UNBOUNDED` where no upper bound is known, :data:`NEG_UNBOUNDED`
  where no lower one is; only for integer element types and at most :data:`MAX_ELEMENTS` elements;
* ShapeOf of a static-rank shape makes them from the dims' intervals (:func:`of_shape`);
* :func:`propagate` carries them through a layer by asking the op (``Op.bounds``, as OpenVINO
  asks ``evaluate_lower``/``evaluate_upper``); this module holds only the machinery the ops'
  rules share: ops that only move, copy or select elements (``Op.moves_values``: Gather, Concat,
  Reshape, Squeeze, Slice, Broadcast, Select...) run their own kernel on the lower and on the
  upper bounds (:func:`move`, the default); Convert checks the target range (:func:`cast`: a range
  that wraps as a whole stays exact, as OpenVINO's ``300..400`` -> u8 ``44..144``); Add, Subtract,
  Multiply, Divide, Maximum and Minimum declare an interval rule (:func:`elementwise`), ReduceProd
  multiplies the bounds (:func:`reduce`);
* bounds that meet (lower == upper everywhere) become a known value that folds further on, as
  OpenVINO's ``get_constant_from_source`` does: ShapeOf([?,3])[1] is the constant 3;
* consumers read them with :func:`pairs` or :func:`dims`: Reshape, Broadcast, Tile, Pad,
  Slice/StridedSlice, Interpolate and OneHot turn them into interval dims.

Soundness comes first: every run-time value lies within its bounds. Where OpenVINO's answer is
narrower than that (FloorMod evaluated on the two bounds alone, ``5..9 mod 4`` -> ``1``; a pattern
element ``-1..5`` read as ``0..5``; ``1..`` for a -1 that a zero-size input makes 0), irrun is
wider on purpose; tests/test_value_bounds.py lists each case. Like OpenVINO, irrun assumes that a
dimension never reaches the maximum of its element type, so "unbounded" survives i64 -> i32.
Not modelled: OpenVINO's symbols (equal-dimension tracking), which ``read_model`` does not use.
"""
from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Sequence
from typing import Any, Protocol

import numpy as np

from ..errors import IrrunError, OpError
from ..types.shapes import Dim, PartialShape
from ..types.tensor_info import TensorInfo


class Bounded(Protocol):
    """What this machinery asks of an op (:class:`irrun.ops.base.Op` has it all): declared here
    rather than imported, because ``Op.bounds`` itself calls :func:`move` — the contract uses the
    machinery, the machinery never the contract."""

    uses_context: bool
    moves_values: tuple[int, ...] | str

    def run(self, *inputs: Any, **options: Any) -> Sequence[np.ndarray]: ...

    def bounds(self, inputs: Sequence[TensorInfo], outputs: Sequence[TensorInfo]
               ) -> Sequence[tuple[np.ndarray, np.ndarray] | None] | None: ...


UNBOUNDED = int(np.iinfo(np.int64).max)
NEG_UNBOUNDED = int(np.iinfo(np.int64).min)
#: Largest tensor (elements) that carries bounds: shape vectors and their pieces.
MAX_ELEMENTS = 1 << 10
INTEGER = frozenset({"i64", "i32", "i16", "i8", "u64", "u32", "u16", "u8"})

Bounds = tuple[np.ndarray, np.ndarray]
#: An element's (lower, upper) as Python numbers, unbounded ends +-inf.
Interval = tuple[float, float]


def of_shape(shape: PartialShape, etype) -> Bounds | None:
    """ShapeOf's bounds: each dim's interval (an unbounded dim, or one beyond the output type's
    maximum, is unbounded above, as OpenVINO maps its type maximum to "infinite")."""
    top = int(np.iinfo(etype.dtype).max)
    if shape.rank is None or any(d.lo > top for d in shape):
        return None
    lo = np.array([d.lo for d in shape], np.int64)
    hi = np.array([UNBOUNDED if d.hi is None or d.hi >= top else d.hi for d in shape], np.int64)
    return lo, hi


def with_bounds(info: TensorInfo, lo: np.ndarray, hi: np.ndarray) -> TensorInfo:
    """``info`` with the given bounds; a known value when they meet everywhere."""
    if lo.shape != hi.shape or not info.shape.is_static or lo.shape != info.shape.to_tuple() \
            or info.etype.name not in INTEGER or lo.size > MAX_ELEMENTS or np.any(lo > hi):
        return info
    if np.array_equal(lo, hi) and not np.any(hi == UNBOUNDED) and not np.any(lo == NEG_UNBOUNDED):
        return dataclasses.replace(info, value=lo.astype(info.etype.dtype))
    return dataclasses.replace(info, lower=lo, upper=hi)


def of(info: TensorInfo) -> Bounds | None:
    """(lower, upper) int64 arrays of an integer tensor: its value twice, or its bounds."""
    if info.value is not None:
        v = info.value
        if info.etype.name not in INTEGER or v.size > MAX_ELEMENTS:
            return None
        if v.dtype == np.uint64 and np.any(v > UNBOUNDED):
            return None
        v = v.astype(np.int64)
        return v, v
    if info.lower is not None and info.upper is not None:
        return info.lower, info.upper
    return None


def pairs(info: TensorInfo) -> list[tuple[int, int | None]] | None:
    """Per element of a tensor, (lower, upper) as Python ints, upper None when unbounded (the
    lower of an element unbounded below is :data:`NEG_UNBOUNDED`); None when nothing is known."""
    b = of(info)
    if b is None:
        return None
    return [(lo, None if hi == UNBOUNDED else hi) for lo, hi in zip(b[0].reshape(-1).tolist(),
                                                                   b[1].reshape(-1).tolist())]


def dims(info: TensorInfo, port: str) -> list[Dim] | None:
    """Per element, the interval its value lies in as a Dim, for inputs that give sizes (Broadcast
    target, Tile repeats, Interpolate sizes, OneHot depth); None when nothing is known. A known
    negative lower bound is refused with OpenVINO's message (its evaluate_as_partial_shape cannot
    read the model); an element known nothing about (:data:`NEG_UNBOUNDED`) is ``?``."""
    p = pairs(info)
    if p is None:
        return None
    if any(NEG_UNBOUNDED < lo < 0 for lo, _ in p):
        raise OpError("Value for partial shape evaluation can't be lower than zero.", port=port)
    return [Dim(max(lo, 0), hi if hi is None else max(hi, 0)) for lo, hi in p]


def propagate(op: Bounded, ins: Sequence[TensorInfo], outs: list[TensorInfo]) -> list[TensorInfo]:
    """The outputs of a layer with some bounded inputs, bounded where the op's rule allows."""
    if op.uses_context or not any(o.value is None and o.etype.name in INTEGER and o.shape.is_static
                                  for o in outs):
        return outs
    if any((n := o.shape.max_numel()) is None or n > MAX_ELEMENTS for o in outs):
        return outs                 # not a shape computation; do not run kernels on it
    got = op.bounds(ins, outs)
    if got is None:
        return outs
    return [o if o.value is not None or b is None else with_bounds(o, *b) for o, b in zip(outs, got)]


def move(op: Bounded, ins: Sequence[TensorInfo]) -> list[Bounds] | None:
    """The op's kernel on the lower and on the upper bounds of the inputs it moves (a known value
    counts as both); its other inputs (indices, axes, conditions) must be known."""
    moved = range(len(ins)) if op.moves_values == "all" else op.moves_values
    los, his = [], []
    for i, t in enumerate(ins):
        if i in moved:
            b = of(t)
            if b is None:
                return None
            los.append(b[0])
            his.append(b[1])
        elif t.value is None:
            return None
        else:
            los.append(t.value)
            his.append(t.value)
    try:
        lo, hi = op.run(*los), op.run(*his)
    except (OpError, IrrunError):     # e.g. a scatter index out of range: the layer's own check
        return None
    return [(np.asarray(a, np.int64), np.asarray(b, np.int64)) for a, b in zip(lo, hi)]


def cast(x: TensorInfo, out: TensorInfo) -> list[Bounds] | None:
    """Integer -> integer, per element: a range that fits the target stays, one that wraps as a
    whole wraps (``300..400`` -> u8 ``44..144``, as OpenVINO); unbounded ends stay unbounded for
    32- and 64-bit targets. Anything else can be any value of the target type: ``0..max`` for an
    unsigned one, unknown for a signed one (OpenVINO wraps such bounds too, into nonsense)."""
    b = of(x)
    if b is None or out.etype.name not in INTEGER:
        return None
    info = np.iinfo(out.etype.dtype)
    tmin, tmax = int(info.min), int(info.max)
    width = tmax - tmin + 1
    any_value = (0, min(tmax, UNBOUNDED)) if tmin == 0 else (NEG_UNBOUNDED, UNBOUNDED)
    new_lo, new_hi = [], []
    for a, z in zip(b[0].reshape(-1).tolist(), b[1].reshape(-1).tolist()):
        free_a, free_z = a == NEG_UNBOUNDED, z == UNBOUNDED
        wa, wz = (a - tmin) % width + tmin, (z - tmin) % width + tmin
        if free_a or free_z:
            fits = info.bits >= 32 and (free_a or wa == a) and (free_z or wz == z) \
                and not (free_a and tmin == 0)
            r = (a, z) if fits else any_value
        else:
            r = (wa, wz) if wz - wa == z - a and wz <= UNBOUNDED else any_value   # (u64 beyond i64)
        new_lo.append(r[0])
        new_hi.append(r[1])
    shape = b[0].shape
    return [(np.array(new_lo, np.int64).reshape(shape), np.array(new_hi, np.int64).reshape(shape))]


def reduce(ins: Sequence[TensorInfo], out: TensorInfo, axes: Callable[[np.ndarray, int], tuple[int, ...]],
           step: Callable[[Interval, Interval], Interval], start: Interval) -> list[Bounds] | None:
    """A reduction's bounds: ``step`` folds each reduced group's intervals from ``start``
    (ReduceProd: the interval product, OpenVINO's ``[?,3..4,5]`` -> ``15..20`` for the last two
    dims, ``[?,0]`` -> ``0``); ``axes(value, rank)`` resolves input 1. None when a result may
    wrap at run time."""
    b, ax_value = of(ins[0]), ins[1].value
    if b is None or ax_value is None or out.etype.name not in INTEGER or not out.shape.is_static:
        return None
    ax = axes(ax_value, b[0].ndim)
    kept = [a for a in range(b[0].ndim) if a not in ax]
    k = int(np.prod([b[0].shape[a] for a in ax]))
    rows = [np.transpose(v, kept + list(ax)).reshape(-1, k).tolist() for v in b]
    info = np.iinfo(out.etype.dtype)
    lo, hi = [], []
    for row_lo, row_hi in zip(*rows):
        r = start
        for x, y in zip(row_lo, row_hi):
            r = step(r, (_num(x), _num(y)))
        if any(not math.isinf(v) and not info.min <= v <= info.max for v in r):
            return None                # wraps at run time
        lo.append(NEG_UNBOUNDED if r[0] == -math.inf else int(r[0]))
        hi.append(UNBOUNDED if r[1] == math.inf else int(r[1]))
    shape = out.shape.to_tuple()
    return [(np.array(lo, np.int64).reshape(shape), np.array(hi, np.int64).reshape(shape))]


# ---------------------------------------------------------------------------------------------
# Interval arithmetic for the ops' rules. Bounds become Python numbers, unbounded ends +-inf.


def mul(x: float, y: float) -> float:
    return 0 if x == 0 or y == 0 else x * y     # 0 * unbounded: the run-time value is finite


def div(floor: bool) -> Callable[[float, float], float]:
    def q(x, y):
        if math.isinf(x):
            return x if y > 0 else -x
        return x // y if floor or (x < 0) == (y < 0) or x % y == 0 else x // y + 1
    return q


def corners(f: Callable[[float, float], float], a: Interval, b: Interval) -> Interval:
    c = [f(x, y) for x in a for y in b]
    return min(c), max(c)


def elementwise(op: Bounded, ins: Sequence[TensorInfo], outs: Sequence[TensorInfo],
                rule: Callable[[Bounded, Interval, Interval], Interval | None]) -> list[Bounds] | None:
    """Per element (NumPy broadcasting), ``rule(op, a, b)`` on the two inputs' intervals (the
    extremes over the four corners for OpenVINO's interval_bound_evaluator ops; an element with
    an unbounded input is ``0..max`` there); None where the rule cannot bound the result."""
    ba, bb = of(ins[0]), of(ins[1])
    out = outs[0]
    if ba is None or bb is None or getattr(op, "auto_broadcast", "numpy") not in ("numpy", "none") \
            or out.etype.name not in INTEGER:
        return None
    try:
        alo, ahi, blo, bhi = np.broadcast_arrays(*ba, *bb)
    except ValueError:
        return None
    info = np.iinfo(out.etype.dtype)
    lo, hi = [], []
    for a0, a1, b0, b1 in zip(*(v.reshape(-1).tolist() for v in (alo, ahi, blo, bhi))):
        if UNBOUNDED in (a0, a1, b0, b1) or NEG_UNBOUNDED in (a0, a1, b0, b1):
            # OpenVINO's interval_bound_evaluator: an unbounded input makes the element 0..max;
            # irrun keeps "unbounded below" too where the element may be negative (a - ?)
            r = rule(op, (_num(a0), _num(a1)), (_num(b0), _num(b1)))
            lo.append(0 if r is not None and r[0] >= 0 else NEG_UNBOUNDED)
            hi.append(UNBOUNDED)
            continue
        r = rule(op, (a0, a1), (b0, b1))
        if r is None or not info.min <= r[0] <= r[1] <= info.max:
            return None                # (a result beyond the type's range wraps at run time)
        lo.append(int(r[0]))
        hi.append(int(r[1]))
    return [(np.array(lo, np.int64).reshape(alo.shape), np.array(hi, np.int64).reshape(alo.shape))]


def _num(v: int) -> float:
    return math.inf if v == UNBOUNDED else -math.inf if v == NEG_UNBOUNDED else v
