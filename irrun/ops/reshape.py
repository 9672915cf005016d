"""Reshape-1: the same elements under a new shape given as a 1-D integer tensor (a view when
NumPy can)."""
from __future__ import annotations

from collections.abc import Sequence
from math import prod

import numpy as np

from ..errors import OpError
from ..types.shapes import DYN, Dim, PartialShape
from . import bounds, fast_paths
from .base import Attr, Op, TensorInfo, check_index_input, int_list, spec_url
from .registry import register

_P = "input 1"


def reshape_target(src: PartialShape, pattern: Sequence[int | tuple[int, int | None]],
                   special_zero: bool) -> PartialShape:
    """The output shape for ``pattern`` (data-movement-ops.md §8), in OpenVINO's check order.

    ``special_zero``: a 0 at position i copies ``src[i]``; those dims are taken out of both sides
    before the -1 is resolved as prod(other input dims) / prod(explicit output dims), which must
    divide. A -1 beside a literal 0 needs a zero-size input dim and becomes 1. Interval inputs give
    interval -1 dims (``[2..4,6]`` -> ``[-1,3]`` is ``[4..8,3]``). Stricter than OpenVINO: the final
    element count is checked whenever both shapes are static (OpenVINO lets ``[2,3]`` -> ``[3,0]``
    with special_zero load, and then fails or reads garbage when it runs).

    A pattern element may be value bounds ``(lo, hi)`` (hi None: unbounded; irrun/ops/bounds.py), as
    OpenVINO's get_pattern_and_minus_one_idx reads them: only ``(-1, -1)`` is the -1, bounds below
    -1 are refused, others give the dim ``lo..hi``. Wider than OpenVINO where it is unsound: an
    element that may be -1 gives ``?`` (OpenVINO: ``-1..5`` -> ``0..5``), and one that may be a
    special zero also covers the dim it would copy (OpenVINO: ``0..5``, whatever it copies).
    """
    elems = [(v, v) if isinstance(v, int) else v for v in pattern]
    minus_one = None
    for i, (lo, hi) in enumerate(elems):
        if (lo, hi) == (-1, -1):
            if minus_one is not None:
                raise OpError("More than one dimension has size of -1", port=_P)
            minus_one = i
        elif hi is not None and hi < 0 or lo < -1 and lo == hi:
            raise OpError(f"Output pattern dim[{i}] has invalid bounds: {lo},{hi}", port=_P)
    rank = src.rank
    out: list[Dim] = []
    copied = set()
    out_prod = Dim(1, 1)
    for i, (lo, hi) in enumerate(elems):
        if i == minus_one:
            out.append(DYN)
            continue
        if special_zero and lo == hi == 0:
            if rank is not None and i >= rank:
                raise OpError("'0' dimension is out of range", port=_P)
            out.append(DYN if rank is None else src[i])
            copied.add(i)
            continue
        d = DYN if lo < 0 else Dim(lo, hi)                 # may be -1: anything
        if special_zero and lo <= 0 and lo != hi:          # may be a zero that copies src[i]
            d = DYN if rank is None else _hull(d, src[i]) if i < rank else d
        out.append(d)
        out_prod = out_prod * d
    if rank is None:
        return PartialShape(out)
    rest = [d for i, d in enumerate(src) if i not in copied]
    if minus_one is not None:
        if out_prod == Dim(0, 0):
            if Dim(0, 0) not in rest:
                raise OpError("Cannot infer '-1' dimension with zero-size output dimension unless at "
                              "least one input dimension is also zero-size", port=_P)
            out[minus_one] = Dim(1, 1)
        else:
            total = Dim(1, 1)
            for d in rest:
                total = total * d
            lo = -(-total.lo // out_prod.hi) if out_prod.hi is not None else min(total.lo, 1)
            hi = None if total.hi is None or out_prod.lo == 0 else total.hi // out_prod.lo
            if (total.is_static and out_prod.is_static and total.lo % out_prod.lo) or (hi is not None and hi < lo):
                raise OpError("Non-'-1' output dimensions do not evenly divide the input dimensions",
                              port=_P)
            out[minus_one] = Dim(lo, hi)
    result = PartialShape(out)
    if src.is_static and result.is_static and prod(src.to_tuple()) != prod(result.to_tuple()):
        raise OpError(f"Requested output shape {result} is incompatible with input shape {src}",
                      port=_P, openvino_loads=bool(copied))   # OpenVINO skips copied dims' volume
    return result


def concrete_target(shape: tuple[int, ...], pattern: Sequence[int], special_zero: bool) -> tuple[int, ...] | None:
    """:func:`reshape_target` for a concrete shape, on plain ints (the kernel's common case: no
    PartialShape objects per run); None where the general rule must decide (a negative pattern
    dim other than one -1, a zero-size dim beside a -1, a special zero out of range, counts that
    do not match: its error message), so the result is always the general rule's. Zero-size dims
    without a -1 (an MoE expert no token was routed to) stay here: the counts must match."""
    out = list(pattern)
    minus_one = None
    known = 1
    for i, v in enumerate(out):
        if v == -1 and minus_one is None:
            minus_one = i
            continue
        if v == 0 and special_zero:
            if i >= len(shape):
                return None
            v = out[i] = shape[i]
        if v < 0:
            return None
        known *= v
    total = prod(shape)
    if minus_one is not None:
        if not known or total % known:
            return None
        out[minus_one] = total // known
    elif known != total:
        return None
    return tuple(out)


def _hull(a: Dim, b: Dim) -> Dim:
    return Dim(min(a.lo, b.lo), None if a.hi is None or b.hi is None else max(a.hi, b.hi))


def _pattern(value: np.ndarray) -> list[int]:
    return int_list(value)


@register
class Reshape1(Op):
    """A target shape known only at run time gives the output rank (the pattern's length) with
    dynamic dims, or a dynamic rank when even the length is unknown; the kernel then resolves and
    checks the values with the same rule as shape inference."""
    category = "movement"
    allocation = "inputs"        # irrun/ops/base.py: Op.allocation

    type, version = "Reshape", "opset1"
    spec = spec_url("shape/reshape-1")
    attrs = {"special_zero": Attr("bool", False, required=True)}
    num_inputs = (2, 2)
    moves_values = (0,)          # value bounds pass through (irrun/ops/bounds.py)

    def infer(self, inputs):
        data, pattern = inputs
        check_index_input(pattern, _P, "PartialShape pattern must be an integral number.",
                          "Pattern shape must have rank 1")
        ps = pattern.shape
        if pattern.value is not None:
            out = reshape_target(data.shape, _pattern(pattern.value), self.special_zero)
        elif pattern.lower is not None and ps.rank == 1:
            out = reshape_target(data.shape, bounds.pairs(pattern), self.special_zero)
        elif ps.rank is not None and ps[0].is_static:
            out = PartialShape.dynamic(ps[0].lo)
        else:
            out = PartialShape(None)
        return [TensorInfo(data.etype, out)]

    def run(self, x, pattern):
        p = _pattern(pattern)
        target = concrete_target(x.shape, p, self.special_zero)
        if target is None:
            target = reshape_target(PartialShape(x.shape), p, self.special_zero).to_tuple()
        return [x.reshape(target)]


def _rows_of(op: Reshape1, inputs, outputs) -> tuple[bool, ...] | None:
    """Row-major reshapes that keep dim 0 map rows to rows ([N, G, gs] -> [N, G*gs])."""
    data, out = inputs[0], outputs[0]
    if data is None or out is None or not (data.shape.is_static and out.shape.is_static) \
            or not data.shape.rank or not out.shape.rank or data.shape[0] != out.shape[0] \
            or 0 in out.shape.to_tuple()[1:]:
        return None
    return (True, False)


def _row_args(op: Reshape1, args: list[np.ndarray], rows: int, out_row: tuple[int, ...]) -> list[np.ndarray]:
    """The pattern of ``rows`` rows (the data's rows are sliced; the pattern names all of them)."""
    return [args[0], np.array((rows,) + tuple(out_row), np.int64)]


fast_paths.ROWS[Reshape1] = fast_paths.Rows(_rows_of, _row_args)
