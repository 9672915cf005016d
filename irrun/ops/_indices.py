"""Index, axis and dimension arithmetic several ops share: negative indices wrapped against their
dims (gathers and scatters), an axes input read and checked (Squeeze/Unsqueeze), a dimension divided
exactly (depth/space/batch rearrangements)."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..errors import OpError
from ..types.shapes import Dim
from .base import TensorInfo, as_int64, int_list


def wrap_indices(indices: np.ndarray, dims: np.ndarray | Sequence[int] | int, negative: bool = True,
                 port: str = "input 1", note: str = "OpenVINO loads such a model but cannot run it") -> np.ndarray:
    """``indices`` as int64 with negatives counted from the end (``-1`` = last), each against the
    size in ``dims`` (broadcast along the last axis: one size per tuple element, or one for all).
    Anything outside ``[-dim, dim)`` (``[0, dim)`` without ``negative``) raises OpError: OpenVINO
    fails at inference or reads outside the tensor there, so irrun refuses it (``openvino_loads``)."""
    idx = as_int64(indices)
    d = np.asarray(dims, dtype=np.int64)
    bad = (idx < (-d if negative else 0)) | (idx >= d)
    if bad.any():
        pos = tuple(int(p) for p in np.argwhere(bad)[0])
        n = int(np.broadcast_to(d, idx.shape)[pos])
        lo = -n if negative else 0
        where = f" at {list(pos)}" if idx.ndim else ""
        raise OpError(f"index {int(idx[pos])}{where} is out of range [{lo}, {n - 1}] for a dimension of "
                      f"size {n} ({note})", port=port, openvino_loads=True)
    return np.where(idx < 0, idx + d, idx) if negative else idx


def axes_values(value: np.ndarray) -> list[int]:
    """Squeeze/Unsqueeze axes: any integer type, or a float type (truncated) as OpenVINO reads
    them; boolean and string are rejected as in OpenVINO ("Element not supported")."""
    if value.dtype.kind in "bTUSO":
        raise OpError(f"Element not supported: axes of type {value.dtype}", port="input 1")
    return int_list(value)


def check_axes_info(axes: TensorInfo) -> None:
    """The axes input: scalar or 1-D, numeric (shared with Unsqueeze)."""
    if axes.etype.name in ("boolean", "string"):
        raise OpError(f"Element not supported: axes of type {axes.etype}", port="input 1")
    if axes.shape.rank is not None and axes.shape.rank > 1:
        raise OpError("Second input (axes) should not be of rank higher than 1. Got: "
                      f"{axes.shape.rank}", port="input 1")


def exact_div(dim: Dim, divisor: int) -> Dim:
    """``dim / divisor`` as OpenVINO divides dimensions: the sizes in the interval that are
    multiples of ``divisor``, divided (``4..16 / 4 -> 1..4``, ``5..9 / 4 -> 2``); none -> error."""
    lo = -(-dim.lo // divisor)
    hi = None if dim.hi is None else dim.hi // divisor
    if hi is not None and hi < lo:
        raise OpError(f"Dimension value: [ {dim.lo}, {dim.hi}] must be a multiple of divisor: {divisor}",
                      port="input 0")
    return Dim(lo, hi)
