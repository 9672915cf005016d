"""The optional fast paths of a few ops, in tables keyed by op class (as JAX keeps its
``batching.primitive_batchers[p]`` beside the primitives rather than on them).

:class:`irrun.ops.base.Op` is the contract every op keeps — attributes, shape rule, kernel, value
bounds. What the runtime can do *faster* with one or two ops is not part of it: an op module that
provides such a rule registers it here, and the code that uses it looks it up by the layer's op
(:func:`lookup`, which follows the class's bases, so Gather-7 finds Gather-1's rule). Nothing here
names an op type, and nothing here imports the runtime.

* :data:`ROWS` — row-wise computation of a constant table (irrun/runtime/program.py): which
  inputs give rows ``r`` of output 0 when sliced at ``r``. Element-wise ops
  (``Op.elementwise``) have it by their broadcasting without registering (:func:`rows_rule`).
* :data:`ROW_GATHER` — an op whose output 0 holds rows of input 0 picked by input 1 (Gather),
  fetched from such a table row by row.
* :data:`WEIGHT_BLOCKS` — an op that can read a constant input too big to keep block by block
  (MatMul with ``transpose_b``: each row of the weight gives one output column).
* :data:`PREPARED` — an op that runs faster on a constant input stored in another layout (MatMul
  with ``transpose_b`` on a K-major copy of its weight), kept once in the program's constants.
* :data:`EXACT_CONSTANT` — an op computing an f16/bf16 constant that the narrow type holds
  exactly (Convert from small integers): its f32 value, with no rounding
  (irrun/analysis/constant_precision.py).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np

from ..types.tensor_info import TensorInfo

Infos = Sequence[TensorInfo | None]


def _same_args(op: Any, args: list[np.ndarray], rows: int, out_row: tuple[int, ...]) -> list[np.ndarray]:
    return args


@dataclass(frozen=True)
class Rows:
    """Rows ``r`` of output 0 computed by the kernel on rows ``r`` of some inputs.

    ``rows_of(op, inputs, outputs)``: per input, True when it is sliced along with the output
    (False: taken whole); None when the layer cannot compute rows. ``row_args(op, args, k,
    out_row)``: the kernel's inputs for ``k`` rows whose other dims are ``out_row`` (an op whose
    other inputs hold sizes adapts them). ``take_rows(op, rows)``: for a layer without inputs
    (``rows_of`` gives ``()``: a packed Const), those rows of its output alone."""

    rows_of: Callable[[Any, Infos, Infos], tuple[bool, ...] | None]
    row_args: Callable[[Any, list[np.ndarray], int, tuple[int, ...]], list[np.ndarray]] = _same_args
    take_rows: Callable[[Any, "np.ndarray | slice"], np.ndarray] | None = None


@dataclass(frozen=True)
class RowGather:
    """``applies(op, inputs)``: does output 0 hold rows (dim 0 entries) of input 0 picked by
    input 1? ``gather(op, take, n_rows, indices)``: output 0 from ``take(rows)`` (the table's
    rows at those positions, in order) of a table of ``n_rows`` rows."""

    applies: Callable[[Any, Sequence[TensorInfo]], bool]
    gather: Callable[[Any, Callable[[np.ndarray], np.ndarray], int, np.ndarray], np.ndarray]


@dataclass(frozen=True)
class WeightBlocks:
    """``weight_input(op, inputs)``: the index of an input whose rows each give one entry of
    output 0's last axis (None: none). ``run(op, rows, n_rows, *others)``: the outputs from that
    input given as ``rows(start, stop)`` and the other inputs in order — bit for bit what the
    kernel gives on the whole input, with no more than a block of it at a time."""

    weight_input: Callable[[Any, Sequence[TensorInfo]], int | None]
    run: Callable[..., list[np.ndarray]]


@dataclass(frozen=True)
class Prepared:
    """``prepare(op, inputs, outputs)``: None, or ``(k, op2, make)`` — the layer may run as
    ``op2`` reading ``make(value)`` at input ``k`` (a constant) in place of the value, with the
    very outputs, bit for bit, of the op on the value. The program keeps ``make(value)`` in its
    constants (counted in the budget) and the value is no longer read there."""

    prepare: Callable[[Any, Infos, Infos], "tuple[int, Any, Callable[[np.ndarray], np.ndarray]] | None"]


#: op class -> its rule (filled by the op modules)
ROWS: dict[type, Rows] = {}
ROW_GATHER: dict[type, RowGather] = {}
WEIGHT_BLOCKS: dict[type, WeightBlocks] = {}
PREPARED: dict[type, Prepared] = {}
#: ``exact(op, *inputs)``: output 0 in f32 when the f16/bf16 output holds it exactly, else None
EXACT_CONSTANT: dict[type, Callable[..., np.ndarray | None]] = {}

_R = TypeVar("_R")


def lookup(table: dict[type, _R], op: object) -> _R | None:
    """The rule ``table`` holds for ``op``'s class or the nearest base that has one."""
    for cls in type(op).__mro__:
        rule = table.get(cls)
        if rule is not None:
            return rule
    return None


def broadcast_rows(inputs: Infos, out: TensorInfo | None) -> tuple[bool, ...] | None:
    """For NumPy broadcasting with static shapes: which inputs carry output's dim 0 (sliced
    for a row subset), which are repeated along it (taken whole); None when shapes are unknown."""
    if out is None or not out.shape.is_static or not out.shape.rank:
        return None
    rank, n = out.shape.rank, out.shape[0].lo
    rows = []
    for i in inputs:
        if i is None or not i.shape.is_static or i.shape.rank is None or i.shape.rank > rank:
            return None
        d0 = i.shape[0].lo if i.shape.rank == rank else None
        if d0 == n:
            rows.append(True)
        elif d0 is None or d0 == 1:
            rows.append(False)
        else:
            return None
    return tuple(rows)


#: What element-wise ops (``Op.elementwise``) do without registering: rows by their broadcasting.
ELEMENTWISE_ROWS = Rows(lambda op, inputs, outputs: broadcast_rows(inputs, outputs[0])
                        if len(outputs) == 1 else None)


def rows_rule(op: Any) -> Rows | None:
    """The :class:`Rows` rule of ``op``: registered, or :data:`ELEMENTWISE_ROWS` for an
    element-wise op."""
    rule = lookup(ROWS, op)
    if rule is None and getattr(op, "elementwise", False):
        return ELEMENTWISE_ROWS
    return rule
