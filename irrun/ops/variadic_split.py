"""VariadicSplit-1: cut a tensor into parts of given lengths along an axis (views, no copy)."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..errors import OpError
from ..types.shapes import DYN, Dim, PartialShape
from .base import Op, TensorInfo, check_index_input, int_list, normalize_axis, spec_url
from .registry import register


def resolve_lengths(lengths: Sequence[int], dim: Dim) -> list[Dim]:
    """Check ``split_lengths`` against the axis dimension in OpenVINO's order and resolve its -1
    (data-movement-ops.md §2). Shared by ``infer`` (constant lengths) and ``run`` (run-time
    lengths), so both accept and reject exactly the same values.

    A static ``dim`` gives static parts. Otherwise fixed lengths are kept and the -1 part is ``?``
    (as OpenVINO infers). Stricter than OpenVINO where it accepts what cannot run: a -1 that
    resolves negative (``[8,-1]`` on 6: OpenVINO then reads out of bounds), and lengths that no
    size inside an interval dim can match.
    """
    minus_one, total = None, 0
    for i, v in enumerate(lengths):
        if v < -1:
            raise OpError(f"Invalid value {v} in split lengths input. Should be >= -1.", port="input 2")
        if v == -1:
            if minus_one is not None:
                raise OpError(f"Cannot infer split with multiple -1 values at {minus_one} and {i}",
                              port="input 2")
            minus_one = i
        else:
            total += v
    if dim.is_static:
        if minus_one is not None and total > dim.lo:
            raise OpError(f"Total length of splits: {total} is larger than the length of the chosen "
                          f"axis: {dim.lo}, so the -1 would be {dim.lo - total} (OpenVINO accepts "
                          "this and reads out of bounds)", port="input 2", openvino_loads=True)
        if minus_one is None and total != dim.lo:
            raise OpError(f"Total length of splits: {total} must match the length of the chosen "
                          f"axis: {dim.lo}", port="input 2")
        return [Dim.of(dim.lo - total if v == -1 else v) for v in lengths]
    if (dim.hi is not None and total > dim.hi) or (minus_one is None and not dim.contains(total)):
        raise OpError(f"Total length of splits: {total} can never match the length of the chosen "
                      f"axis: {dim}", port="input 2")
    return [DYN if v == -1 else Dim.of(v) for v in lengths]


def _index_values(value: np.ndarray, what: str, port: str) -> list[int]:
    """Axis and lengths may be of any integer type or f32 (truncated), as OpenVINO reads them."""
    if value.dtype.kind not in "iuf":
        raise OpError(f"Element not supported: {what} has element type {value.dtype}", port=port)
    return int_list(value)


def _axis(value: np.ndarray, rank: int) -> int:
    if rank == 0:
        raise OpError("Accessing out-of-range dimension", port="input 0")
    return normalize_axis(_index_values(value, "axis", "input 1")[0], rank)


@register
class VariadicSplit1(Op):
    """Outputs are ``np.split`` views at the cumulative lengths. Lengths known only at run time
    (e.g. a Parameter) give ``?`` on the axis; the kernel then checks them with the same rule."""
    category = "movement"
    allocation = "inputs"        # irrun/ops/base.py: Op.allocation

    type, version = "VariadicSplit", "opset1"
    spec = spec_url("movement/variadic-split-1")
    num_inputs = (3, 3)
    moves_values = (0,)          # value bounds pass through (irrun/ops/bounds.py)

    def infer(self, inputs):
        data, axis, lengths = inputs
        for info, what, port in ((axis, "axis", "input 1"), (lengths, "split_lengths", "input 2")):
            if info.etype.name in ("boolean", "string"):
                raise OpError(f"Element not supported: {what} has element type {info.etype}", port=port)
        a = axis.shape
        if not (a.rank in (0, None) or (a.rank == 1 and a[0].contains(1))):
            raise OpError(f"Axis should be a scalar or of shape [1]. Got {a} instead.", port="input 1")
        ls = lengths.shape
        check_index_input(lengths, "input 2", None,
                          f"Split lengths should be a 1-D tensor. Got {ls.rank} instead.")
        if not ls.is_static:
            raise OpError(f"the number of outputs is unknown: split_lengths has shape {ls} "
                          "(OpenVINO infers no outputs)", port="input 2")
        n = ls[0].value
        rank = data.shape.rank
        if rank is None or axis.value is None:
            if lengths.value is not None:      # values that can never run, whatever the shape
                resolve_lengths(_index_values(lengths.value, "split_lengths", "input 2"), DYN)
            if rank == 0:
                raise OpError("Accessing out-of-range dimension", port="input 0")
            return [TensorInfo(data.etype, PartialShape.dynamic(rank)) for _ in range(n)]
        ax = _axis(axis.value, rank)
        if lengths.value is None:
            parts = [DYN] * n
        else:
            parts = resolve_lengths(_index_values(lengths.value, "split_lengths", "input 2"),
                                    data.shape[ax])
        return [TensorInfo(data.etype, PartialShape(p if i == ax else d for i, d in enumerate(data.shape)))
                for p in parts]

    def run(self, x, axis, lengths):
        ax = _axis(axis, x.ndim)
        sizes = [d.lo for d in resolve_lengths(_index_values(lengths, "split_lengths", "input 2"),
                                               Dim.of(x.shape[ax]))]
        if not sizes:
            return []
        return np.split(x, np.cumsum(sizes[:-1], dtype=np.int64), axis=ax)
