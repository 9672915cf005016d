"""ScatterUpdate-3, ScatterNDUpdate-3 (IR ``opset4``) / -15 and ScatterElementsUpdate-3/-12: a copy
of ``data`` with ``updates`` written (or, for v15/v12, reduced) into the places ``indices`` name.

All three reduce to one kernel, :func:`scatter_reduce`: ``data`` viewed as rows (the addressed
slices), one target row per update, applied in the order of ``indices`` (row-major) as
OpenVINO's reference evaluator does — so for duplicate targets the last update wins (``none``)
or the reduction folds them in that order. The data is always copied first; inputs are never
written. Measured with OpenVINO 2026.4.1 (tools/expectations/make_index_expectations.py): integers wrap,
booleans reduce logically (sum = or, sub = xor, prod/min = and, max = or), f16/bf16 are
accumulated in f32 and rounded once at the end.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import OpError
from ..types.shapes import PartialShape
from ._indices import wrap_indices
from .base import Attr, Op, TensorInfo, as_int64, check_index_input, normalize_axis, spec_url
from .registry import register

_NOTE = "OpenVINO loads such a model but fails at inference"
_LOGICAL = {"sum": np.logical_or, "sub": np.logical_xor, "prod": np.logical_and,
            "min": np.logical_and, "max": np.logical_or}
_ARITH = {"sum": np.add, "sub": np.subtract, "prod": np.multiply, "min": np.minimum, "max": np.maximum,
          "mean": np.add}


# ---------------------------------------------------------------------------------------------
# The shared kernel

def _last_wins(out: np.ndarray, tgt: np.ndarray, upd: np.ndarray) -> None:
    """``out[tgt] = upd`` along axis 0, a repeated target keeping its last update."""
    if tgt.size:
        uniq, first = np.unique(tgt[::-1], return_index=True)
        out[uniq] = upd[tgt.size - 1 - first]


def _compute_dtype(dtype: np.dtype) -> np.dtype:
    """Floats narrower than f32 (f16, bf16, f8) are reduced in f32, as OpenVINO does."""
    return np.dtype(np.float32) if dtype.kind not in "iubfT" or (dtype.kind == "f" and dtype.itemsize < 4) else dtype


def _neutral(reduction: str, dtype: np.dtype):
    """The start value of a reduction that ignores the data (``use_init_val=false``): OpenVINO's
    reference uses the type's finite extremes for min/max, not infinities."""
    if reduction in ("sum", "mean"):
        return 0
    if reduction == "prod":
        return 1
    info = np.finfo(dtype) if dtype.kind == "f" else np.iinfo(dtype)
    return info.max if reduction == "min" else info.min


def _minmax_restart_after_nan(out: np.ndarray, tgt: np.ndarray, upd: np.ndarray, reduction: str) -> None:
    """ScatterElementsUpdate-12's min/max on floats with NaNs: its reference evaluator computes
    ``out < u ? out : u`` (``>`` for max), so a NaN on either side yields ``u`` — a NaN update
    becomes the value and a NaN value is replaced by the next update. The result is therefore the
    min/max of the updates after the last NaN of each target's chain (initial value included),
    or NaN if the chain ends with a NaN. Flat rows only."""
    seq = np.arange(tgt.size)
    isnan_u = np.isnan(upd)
    last_nan = np.where(np.isnan(out), -1, -2)
    np.maximum.at(last_nan, tgt[isnan_u], seq[isnan_u])
    last = np.full(out.shape, -2)
    np.maximum.at(last, tgt, seq)
    touched = last >= 0
    out[touched & (last_nan >= -1)] = np.inf if reduction == "min" else -np.inf   # restart the chain
    keep = seq > last_nan[tgt]
    _ARITH[reduction].at(out, tgt[keep], upd[keep])
    out[touched & (last_nan == last)] = np.nan


def scatter_reduce(data: np.ndarray, tgt: np.ndarray, upd: np.ndarray, reduction: str = "none",
                   use_init: bool = True, nan_restart: bool = False) -> np.ndarray:
    """A copy of ``data`` with row ``upd[i]`` combined into row ``tgt[i]`` (axis 0), in order.
    ``use_init=False`` starts every targeted row from the reduction's neutral value;
    ``nan_restart`` selects ScatterElementsUpdate-12's NaN rule for min/max, otherwise NaNs
    follow ``std::min``/``std::max`` (ScatterNDUpdate-15: a NaN in data stays, NaN updates are
    ignored). ``mean`` divides by the number of values (floor for integers)."""
    if reduction == "none":
        out = data.copy()
        _last_wins(out, tgt, upd)
        return out
    if data.dtype == np.bool_:
        out = data.copy()
        if not use_init:
            out[tgt] = reduction in ("prod", "min")
        _LOGICAL[reduction].at(out, tgt, upd)
        return out
    ct = _compute_dtype(data.dtype)
    out = data.astype(ct)                                    # (always a copy)
    u = upd.astype(ct, copy=False)
    if not use_init:
        out[tgt] = _neutral(reduction, ct)
    if reduction in ("min", "max") and ct.kind == "f" and (np.isnan(u).any() or np.isnan(out[tgt]).any()):
        if nan_restart:
            _minmax_restart_after_nan(out, tgt, u, reduction)
        else:
            had_nan = np.isnan(out)
            (np.fmin if reduction == "min" else np.fmax).at(out, tgt, u)
            out[had_nan] = np.nan
    else:
        _ARITH[reduction].at(out, tgt, u)
    if reduction == "mean":
        count = np.bincount(tgt, minlength=out.shape[0])
        hit = count > 0
        n = (count[hit] + int(use_init)).reshape((-1,) + (1,) * (out.ndim - 1))
        # floats: acc / N in the compute type; integers: floor(double(acc) / N), as the reference
        out[hit] = out[hit] / n.astype(ct) if ct.kind == "f" else np.floor(out[hit] / n)
    return out.astype(data.dtype, copy=False)


def _check_types(data: TensorInfo, updates: TensorInfo, msg: str) -> None:
    if data.etype != updates.etype and not (data.etype.is_dynamic or updates.etype.is_dynamic):
        raise OpError(msg, port="input 2")


def _compatible(a, b) -> bool:
    return a.intersect(b) is not None


def _check_reduction_type(reduction: str, data: TensorInfo) -> None:
    if reduction != "none" and data.etype.name == "string":
        raise OpError(f"irrun does not support reduction '{reduction}' on string tensors", unsupported=True)


def _axis_of(info: TensorInfo) -> int | None:
    return None if info.value is None or info.value.size == 0 else int(as_int64(info.value).reshape(-1)[0])


# ---------------------------------------------------------------------------------------------
# ScatterUpdate

def scatter_update_axis(data: PartialShape, indices: PartialShape, updates: PartialShape,
                        axis: int | None) -> int | None:
    """Check the ranks and (when the axis is known) the updates' dims — ``data[:axis] + indices +
    data[axis+1:]``, compatible at inference, equal at run time — and normalise the axis."""
    if data.rank is not None and indices.rank is not None and updates.rank is not None \
            and updates.rank != indices.rank + data.rank - 1:
        raise OpError("Updates rank is expected to be rank(indices) + rank(data) - 1. Got: "
                      f"rank(data) = {data.rank}, rank(indices) = {indices.rank}, rank(updates) = {updates.rank}",
                      port="input 2")
    if data.dims is None or axis is None:
        return None
    axis = normalize_axis(axis, len(data.dims))
    if indices.dims is not None and updates.dims is not None:
        want = list(data.dims[:axis]) + list(indices.dims) + list(data.dims[axis + 1:])
        if not all(_compatible(u, w) for u, w in zip(updates.dims, want)):
            raise OpError(f"Updates shape must have appropriate dimensions equal to indices and data dimensions. "
                          f"Updates shape:{updates}, data shape: {data}, indices_shape: {indices}, axis: {axis}.",
                          port="input 2")
    return axis


def scatter_update(data: np.ndarray, indices: np.ndarray, updates: np.ndarray, axis: int) -> np.ndarray:
    """The kernel for a normalised axis: indices must be in ``[0, dim)`` (no wrapping: both
    OpenVINO evaluators refuse negative indices, as the spec says)."""
    idx = wrap_indices(indices, data.shape[axis], negative=False, note=_NOTE).reshape(-1)
    upd = updates.reshape(data.shape[:axis] + (idx.size,) + data.shape[axis + 1:])
    out = scatter_reduce(np.moveaxis(data, axis, 0), idx, np.moveaxis(upd, axis, 0))
    return np.moveaxis(out, 0, axis)


@register
class ScatterUpdate3(Op):
    """Writes ``updates[..., i, j, ...]`` to ``data[..., indices[i, j], ...]`` along ``axis``
    (scalar or [1], known at run time at the latest). Duplicate indices: the last update wins
    (measured, both evaluators). Negative or too large indices are refused, as OpenVINO does at
    inference."""
    category = "movement"

    allocation = "inputs"          # the output is the data input's shape
    type, version = "ScatterUpdate", "opset3"
    spec = spec_url("movement/scatter-update-3")
    num_inputs = (4, 4)
    moves_values = (0, 2)          # value bounds pass through (irrun/ops/bounds.py)

    def infer(self, inputs):
        data, indices, updates, axis = inputs
        check_index_input(indices, "input 1", "Indices element type must be of an integral number type.")
        _check_types(data, updates, "Element types for input data and updates do not match (data element type: "
                                    f"{data.etype}, updates element type: {updates.etype}).")
        check_index_input(axis, "input 3", "Axis element type must be of an integral number type.")
        a = axis.shape
        if a.rank is not None and not (a.rank == 0 or (a.rank == 1 and a[0].contains(1))):
            raise OpError(f"Axis input shape is required to be scalar or 1D tensor. Got: {a}", port="input 3")
        ax = scatter_update_axis(data.shape, indices.shape, updates.shape, _axis_of(axis))
        if ax is not None and indices.value is not None and data.shape[ax].is_static:
            wrap_indices(indices.value, data.shape[ax].lo, negative=False, note=_NOTE)
        return [TensorInfo(data.etype, data.shape)]

    def run(self, data, indices, updates, axis):
        if axis.size == 0:
            raise OpError("the axis input is empty", port="input 3")
        shapes = (PartialShape(data.shape), PartialShape(indices.shape), PartialShape(updates.shape))
        ax = scatter_update_axis(*shapes, int(as_int64(axis).reshape(-1)[0]))
        return [scatter_update(data, indices, updates, ax)]


# ---------------------------------------------------------------------------------------------
# ScatterNDUpdate

def scatter_nd_check(data: PartialShape, indices: PartialShape, updates: PartialShape) -> None:
    """OpenVINO's checks: ``updates`` is ``indices.shape[:-1] + data.shape[k:]`` (k =
    ``indices.shape[-1]``) — compatible at inference, equal at run time. Where that shape is a
    scalar OpenVINO accepts updates of any shape; irrun insists on one element (the spec's
    "a tensor with single element"; OpenVINO's CPU plugin refuses others)."""
    if data.rank == 0 or indices.rank == 0:
        raise OpError("Indices rank and inputs_rank are expected to be at least 1")
    if data.dims is None or indices.dims is None or not indices[-1].is_static:
        return
    k = indices[-1].lo
    if k > len(data.dims):
        raise OpError("Last dimension of indices can be at most the rank of inputs", port="input 1")
    if updates.dims is None:
        return
    want = list(indices.dims[:-1]) + list(data.dims[k:])
    if not want:
        one = updates.max_numel() != 0 and all(d.lo <= 1 for d in updates.dims)
        if not one or updates.is_static and updates.max_numel() != 1:
            raise OpError(f"updates of shape {updates} for a single element: they must hold one value (OpenVINO "
                          "loads this; its CPU plugin refuses it, its reference evaluator uses the first value)",
                          port="input 2", openvino_loads=True)
        return
    if updates.rank != len(want):
        raise OpError("Rank of updates must be rank of inputs + rank of indices - last dimension of indices - 1",
                      port="input 2")
    q = len(indices.dims) - 1
    if not all(_compatible(u, w) for u, w in zip(updates.dims[:q], want[:q])):
        raise OpError("updates_shape[0:indices_rank-1] shape must be indices_shape[:-1]", port="input 2")
    if not all(_compatible(u, w) for u, w in zip(updates.dims[q:], want[q:])):
        raise OpError("updates_shape[indices_rank-1:] shape must be input_shape[indices_shape[-1]:]", port="input 2")


def scatter_nd(data: np.ndarray, indices: np.ndarray, updates: np.ndarray, reduction: str = "none") -> np.ndarray:
    """The kernel: each index tuple (negatives wrap) names one slice ``data[tuple]``; the slices
    are rows of ``data`` reshaped to ``(prod(data.shape[:k]),) + data.shape[k:]``."""
    k = indices.shape[-1]
    lead, rest = data.shape[:k], data.shape[k:]
    idx = wrap_indices(indices, lead, note=_NOTE).reshape(int(np.prod(indices.shape[:-1], dtype=np.int64)), k)
    strides = np.cumprod((1,) + lead[:0:-1], dtype=np.int64)[::-1]        # row-major, in rows
    tgt = idx @ strides if k else np.zeros(idx.shape[0], np.int64)
    rows = data.reshape((int(np.prod(lead, dtype=np.int64)),) + rest)
    out = scatter_reduce(rows, tgt, updates.reshape((idx.shape[0],) + rest), reduction)
    return out.reshape(data.shape)


@register
class ScatterNDUpdate4(Op):
    """ScatterNDUpdate-3 of the spec, written ``version="opset4"`` in IR. Indices must be i32 or
    i64; negative indices wrap (both evaluators, measured), anything outside ``[-dim, dim)`` is
    refused as OpenVINO does at inference. Duplicates: the last update wins. An empty index
    tuple (``indices.shape[-1] == 0``) addresses the whole data tensor (the reference evaluator;
    the CPU plugin leaves the data unchanged)."""
    category = "movement"

    allocation = "inputs"          # the output is the data input's shape
    type, version = "ScatterNDUpdate", "opset4"
    spec = spec_url("movement/scatter-nd-update-3")
    num_inputs = (3, 3)
    reduction = "none"

    def __init__(self, **attrs: Any):
        super().__init__(**attrs)
        # value bounds pass through (irrun/ops/bounds.py) only where updates are written, not reduced
        self.moves_values = (0, 2) if self.reduction == "none" else ()

    def infer(self, inputs):
        data, indices, updates = inputs
        if indices.etype.name not in ("i32", "i64", "dynamic"):
            raise OpError("Indices element type must be i64 or i32", port="input 1")
        _check_types(data, updates, "Updates element type must be the same as inputs")
        _check_reduction_type(self.reduction, data)
        scatter_nd_check(data.shape, indices.shape, updates.shape)
        if indices.value is not None and indices.shape[-1].is_static and data.shape.rank is not None:
            lead = data.shape.dims[:indices.shape[-1].lo]
            if all(d.is_static for d in lead):
                wrap_indices(indices.value, [d.lo for d in lead], note=_NOTE)
        return [TensorInfo(data.etype, data.shape)]

    def run(self, data, indices, updates):
        scatter_nd_check(PartialShape(data.shape), PartialShape(indices.shape), PartialShape(updates.shape))
        return [scatter_nd(data, indices, updates, self.reduction)]


@register
class ScatterNDUpdate15(ScatterNDUpdate4):
    """Adds ``reduction`` (none, sum, sub, prod, min, max), applied in index order. Integers
    wrap; booleans: sum = or, sub = xor, prod = and (min = and, max = or); f16/bf16 accumulate
    in f32. min/max follow ``std::min``/``std::max`` (OpenVINO's CPU plugin and reference agree):
    a NaN already in data stays, NaN updates are ignored."""

    version = "opset15"
    spec = spec_url("movement/scatter-nd-update-15")
    attrs = {"reduction": Attr("enum", "none", choices=("none", "sum", "sub", "prod", "min", "max"))}
    restrictions = "no reduction other than none on string tensors"


# ---------------------------------------------------------------------------------------------
# ScatterElementsUpdate

def scatter_elements_check(data: PartialShape, indices: PartialShape, updates: PartialShape,
                           axis_shape: PartialShape, axis: int | None) -> int | None:
    """OpenVINO's checks (axis scalar or 1-D, indices of data's rank, updates of the indices'
    shape; compatible at inference, equal at run time) plus two it lacks, for graphs it loads
    but cannot run: scalar data, and indices larger than data outside ``axis`` (OpenVINO writes
    outside the tensor). Returns the normalised axis when it and the data rank are known."""
    if axis_shape.rank is not None and axis_shape.rank > 1:
        raise OpError(f"Axis input shape are required to be scalar or 1D tensor. Got: {axis_shape}", port="input 3")
    if data.rank is not None and indices.rank is not None and data.rank != indices.rank:
        raise OpError(f"Indices rank and data rank are required to be equal. Got: {indices.rank} and: {data.rank}",
                      port="input 1")
    if indices.dims is not None and updates.dims is not None and (
            indices.rank != updates.rank or not all(_compatible(a, b) for a, b in zip(indices.dims, updates.dims))):
        raise OpError(f"Indices and updates input shapes are required to be equal. Got: {indices} and: {updates}",
                      port="input 2")
    if data.dims is None or axis is None:
        return None
    if data.rank == 0:
        raise OpError("ScatterElementsUpdate of scalar data cannot run (OpenVINO loads it; its CPU plugin refuses "
                      "it and its reference evaluator crashes)", port="input 0", openvino_loads=True)
    axis = normalize_axis(axis, len(data.dims))
    if indices.dims is not None:
        for i, (d, n) in enumerate(zip(data.dims, indices.dims)):
            if i != axis and d.hi is not None and n.lo > d.hi:
                raise OpError(f"indices shape {indices} exceeds data shape {data} in dimension {i} (not the axis): "
                              "those updates would land outside the data (OpenVINO loads this and writes outside "
                              "the tensor)", port="input 1", openvino_loads=True)
    return axis


def scatter_elements(data: np.ndarray, indices: np.ndarray, updates: np.ndarray, axis: int,
                     reduction: str = "none", use_init: bool = True) -> np.ndarray:
    """The kernel: the flat target of ``indices[i, j, k]`` is its own position with the axis
    coordinate replaced by the index (negatives wrap), built from row-major strides by
    broadcasting one ``arange`` per dim."""
    idx = wrap_indices(indices, data.shape[axis], note=_NOTE)
    r = data.ndim
    strides = np.cumprod((1,) + data.shape[:0:-1], dtype=np.int64)[::-1]
    tgt = idx * strides[axis]
    for d in range(r):
        if d != axis:
            tgt = tgt + (np.arange(idx.shape[d], dtype=np.int64) * strides[d]).reshape((-1,) + (1,) * (r - d - 1))
    out = scatter_reduce(data.reshape(-1), tgt.reshape(-1), updates.reshape(-1), reduction, use_init, nan_restart=True)
    return out.reshape(data.shape)


@register
class ScatterElementsUpdate3(Op):
    """``out[i][indices[i][j][k]][k] = updates[i][j][k]`` (axis 1). Indices of any integer type;
    negatives wrap (both evaluators, measured), anything outside ``[-dim, dim)`` is refused as
    OpenVINO does at inference. The axis input may hold several values; the first counts
    (OpenVINO accepts any 1-D axis, measured). Duplicates: the last update wins."""
    category = "movement"

    allocation = "inputs"          # the output is the data input's shape
    type, version = "ScatterElementsUpdate", "opset3"
    spec = spec_url("movement/scatter-elements-update-3")
    num_inputs = (4, 4)
    reduction, use_init_val = "none", True

    def infer(self, inputs):
        data, indices, updates, axis = inputs
        check_index_input(indices, "input 1", f"Indices element type must be integral_number, but is: {indices.etype}")
        check_index_input(axis, "input 3", f"Axis element type must be integral_number, but is: {axis.etype}")
        _check_types(data, updates, f"Data type and updates type are required to be the same. Got: {data.etype} "
                                    f"and: {updates.etype}")
        if self.reduction == "mean" and data.etype.name == "boolean":
            raise OpError("The 'mean' reduction type is not supported for boolean tensors")
        _check_reduction_type(self.reduction, data)
        ax = scatter_elements_check(data.shape, indices.shape, updates.shape, axis.shape, _axis_of(axis))
        if ax is not None and indices.value is not None and data.shape[ax].is_static:
            wrap_indices(indices.value, data.shape[ax].lo, note=_NOTE)
        return [TensorInfo(data.etype, data.shape)]

    def run(self, data, indices, updates, axis):
        if axis.size == 0:
            raise OpError("the axis input is empty", port="input 3")
        ax = scatter_elements_check(PartialShape(data.shape), PartialShape(indices.shape), PartialShape(updates.shape),
                                    PartialShape(axis.shape), int(as_int64(axis).reshape(-1)[0]))
        return [scatter_elements(data, indices, updates, ax, self.reduction, self.use_init_val)]


@register
class ScatterElementsUpdate12(ScatterElementsUpdate3):
    """Adds ``reduction`` (none, sum, prod, min, max, mean) and ``use_init_val`` (false: the
    targeted elements start from the reduction's neutral value instead of data). As OpenVINO's
    reference evaluator: integer mean rounds down (its CPU plugin truncates toward zero: -1/3
    gives 0 there, -1 here), f16/bf16 accumulate in f32, booleans reduce logically and refuse
    mean, and for min/max a NaN on either side gives the update (see
    :func:`_minmax_restart_after_nan`; the CPU plugin propagates NaN instead)."""

    version = "opset12"
    spec = spec_url("movement/scatter-elements-update-12")
    attrs = {"reduction": Attr("enum", "none", choices=("none", "sum", "prod", "min", "max", "mean")),
             "use_init_val": Attr("bool", True)}
    restrictions = "no reduction other than none on string tensors"
