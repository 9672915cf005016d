"""Reductions over the axes given by input 1: ReduceSum/Mean/Max/Min/Prod-1, ReduceL1/L2-4,
ReduceLogicalAnd/Or-1, one short class each (its kernel; :class:`ReduceOp` does the rest);
``keep_dims`` keeps the reduced axes as 1.

The axes (scalar or 1-D, any integer type, ``[-rank, rank-1]``, duplicates allowed) are resolved
by :func:`reduce_axes` and the output shape by :func:`reduce_shape`, both used by ``infer`` (when
the axes are constant) and by ``run``. Unknown axes give OpenVINO's answers: ``keep_dims`` -> the
data's rank with dynamic dims; a single axis -> rank - 1; otherwise a dynamic rank. Empty axes
reduce over nothing: the data unchanged, except ReduceL1/L2 give ``|x|`` (measured).

Numerics as measured on OpenVINO 2026.4.1's reference evaluator: float sums (Sum, Mean, L1, L2,
Prod) accumulate in f64 (OpenVINO uses Kahan summation: 1e8 + 1000 ones is exact in f32); an empty
reduction gives 0 for Sum/Mean/L1/L2, 1 for Prod, the type's lowest value for Max (-FLT_MAX, not
-inf), +inf (floats) or the type's maximum (integers) for Min; Max and Min skip NaN (a NaN-only
slice gives that initial value); integer Mean truncates toward zero; integers wrap. The reference
has no integer ReduceL2 kernel: the CPU plugin truncates ``sqrt(sum(x**2))``.
"""
from __future__ import annotations

from collections.abc import Callable
from math import prod
from typing import ClassVar

import ml_dtypes
import numpy as np

from ..errors import OpError
from ..types.shapes import Dim, PartialShape
from . import bounds
from ._numerics import NUMERIC, RESTRICTION, quiet, unsupported, work_dtype
from .base import Attr, Op, Precision, TensorInfo, check_index_input, int_list, normalize_axis, spec_url
from .registry import register

ONE = Dim(1, 1)


def reduce_axes(values: np.ndarray, rank: int) -> tuple[int, ...]:
    """The axes input as sorted unique axes in ``[0, rank)`` (OpenVINO's message otherwise)."""
    return tuple(sorted({normalize_axis(a, rank, port="input 1") for a in int_list(values)}))


def reduce_shape(data: PartialShape, axes: tuple[int, ...] | None, axes_shape: PartialShape,
                 keep: bool) -> PartialShape:
    if data.rank is None:
        return PartialShape(None)
    if axes is None:
        if keep:
            return PartialShape.dynamic(data.rank)
        if axes_shape.is_static and int(np.prod(axes_shape.to_tuple())) == 1:
            return PartialShape.dynamic(data.rank - 1)
        return PartialShape(None)
    if keep:
        return PartialShape(ONE if i in axes else d for i, d in enumerate(data))
    return PartialShape(d for i, d in enumerate(data) if i not in axes)


# ---------------------------------------------------------------------------------------------
# Kernels: (x, axes, keep_dims) -> array of x's dtype

def _f64(x: np.ndarray) -> np.ndarray:
    return x.astype(np.float64, copy=False)


def _sum(x, axes, keep):
    if x.dtype.kind in "iu":
        return np.sum(x, axis=axes, keepdims=keep, dtype=x.dtype)
    return np.sum(_f64(x), axis=axes, keepdims=keep).astype(x.dtype)


def _count(x, axes) -> int:
    return prod(x.shape[a] for a in axes)


def _mean(x, axes, keep):
    n = _count(x, axes)
    if n and x.dtype.kind not in "iu":
        return (np.sum(_f64(x), axis=axes, keepdims=keep) / n).astype(x.dtype)
    s = _sum(x, axes, keep)
    if n == 0:
        return np.zeros_like(s)
    if x.dtype.kind == "u":
        return (s.astype(np.uint64) // n).astype(x.dtype)
    s64 = s.astype(np.int64)                      # signed: the wrapped sum, divided toward zero
    q = s64 // n
    return (q + ((q * n != s64) & (s64 < 0))).astype(x.dtype)


def _extreme(ufunc, float_init: Callable, int_init: Callable) -> Callable:
    def kernel(x, axes, keep):
        if x.dtype.kind in "iu":
            return ufunc.reduce(x, axis=axes, keepdims=keep, initial=int_init(np.iinfo(x.dtype)))
        w = x.astype(work_dtype(x.dtype), copy=False)
        return ufunc.reduce(w, axis=axes, keepdims=keep, initial=float_init(x.dtype)).astype(x.dtype)
    return kernel


_max = _extreme(np.fmax, lambda dt: float(ml_dtypes.finfo(dt).min), lambda i: i.min)
_min = _extreme(np.fmin, lambda dt: np.inf, lambda i: i.max)


def _prod(x, axes, keep):
    if x.dtype.kind in "iu":
        return np.prod(x, axis=axes, keepdims=keep, dtype=x.dtype)
    return np.prod(_f64(x), axis=axes, keepdims=keep).astype(x.dtype)


def _l1(x, axes, keep):
    return _sum(np.abs(x), axes, keep)


def _l2(x, axes, keep):
    s = np.sqrt(np.sum(np.square(_f64(x)), axis=axes, keepdims=keep))
    return (np.trunc(s) if x.dtype.kind in "iu" else s).astype(x.dtype)


def _all(x, axes, keep):
    return np.all(x, axis=axes, keepdims=keep)


def _any(x, axes, keep):
    return np.any(x, axis=axes, keepdims=keep)


# ---------------------------------------------------------------------------------------------

class ReduceOp(Op):
    """Base of the reductions: ``keep_dims`` (default false); data numeric (logical: boolean)."""
    category = "normalize"
    allocation = "inputs"        # irrun/ops/base.py: Op.allocation

    attrs = {"keep_dims": Attr("bool", False)}
    num_inputs = (2, 2)
    restrictions = RESTRICTION
    kernel: ClassVar[Callable]
    logical: ClassVar[bool] = False

    def infer(self, inputs):
        x, axes = inputs
        et = x.etype
        if self.logical:
            if not (et.is_dynamic or et.name == "boolean"):
                raise OpError("Element type of data input must be boolean.", port="input 0")
        elif et.name == "boolean":
            raise OpError(f"Element type of data input must be numeric. Got: {et}", port="input 0")
        elif not (et.is_dynamic or et.name in NUMERIC):
            raise unsupported(self.type, et)
        check_index_input(axes, "input 1", f"Element type of axes input must be integer. Got: {axes.etype}")
        if axes.shape.rank not in (None, 0, 1):
            raise OpError(f"Axes input must be a scalar or 1D input. Got: {axes.shape}", port="input 1")
        known = None
        if axes.value is not None and x.shape.rank is not None:
            known = reduce_axes(axes.value, x.shape.rank)
        return [TensorInfo(et, reduce_shape(x.shape, known, axes.shape, self.keep_dims))]

    def bounds(self, inputs, outputs):
        if type(self).kernel is _prod:       # the interval product of each reduced group
            return bounds.reduce(inputs, outputs[0], reduce_axes,
                                 lambda r, x: bounds.corners(bounds.mul, r, x), (1, 1))
        return super().bounds(inputs, outputs)

    def run(self, x, axes):
        ax = reduce_axes(axes, x.ndim)      # no axes: the kernel over nothing (ReduceL1: |x|)
        with quiet():
            return [np.asarray(type(self).kernel(x, ax, self.keep_dims))]



@register
class ReduceSum1(ReduceOp):
    """ReduceSum-1: Sum over the axes."""
    type, version, spec = "ReduceSum", "opset1", spec_url("reduction/reduce-sum-1")
    kernel = staticmethod(_sum)
    precision = Precision.SUM_REDUCTION


@register
class ReduceMean1(ReduceOp):
    """ReduceMean-1: Arithmetic mean over the axes (integers truncate)."""
    type, version, spec = "ReduceMean", "opset1", spec_url("reduction/reduce-mean-1")
    kernel = staticmethod(_mean)
    precision = Precision.SUM_REDUCTION


@register
class ReduceMax1(ReduceOp):
    """ReduceMax-1: Maximum over the axes (NaN skipped)."""
    type, version, spec = "ReduceMax", "opset1", spec_url("reduction/reduce-max-1")
    kernel = staticmethod(_max)
    moves_values = (0,)          # it selects an element: value bounds pass (irrun/ops/bounds.py)


@register
class ReduceMin1(ReduceOp):
    """ReduceMin-1: Minimum over the axes (NaN skipped)."""
    type, version, spec = "ReduceMin", "opset1", spec_url("reduction/reduce-min-1")
    kernel = staticmethod(_min)
    moves_values = (0,)          # it selects an element: value bounds pass (irrun/ops/bounds.py)


@register
class ReduceProd1(ReduceOp):
    """ReduceProd-1: Product over the axes."""
    type, version, spec = "ReduceProd", "opset1", spec_url("reduction/reduce-prod-1")
    kernel = staticmethod(_prod)


@register
class ReduceL14(ReduceOp):
    """ReduceL1-4: Sum of absolute values over the axes."""
    type, version, spec = "ReduceL1", "opset4", spec_url("reduction/reduce-l1-4")
    kernel = staticmethod(_l1)


@register
class ReduceL24(ReduceOp):
    """ReduceL2-4: Square root of the sum of squares over the axes."""
    type, version, spec = "ReduceL2", "opset4", spec_url("reduction/reduce-l2-4")
    kernel = staticmethod(_l2)


@register
class ReduceLogicalAnd1(ReduceOp):
    """ReduceLogicalAnd-1: All true over the axes (boolean)."""
    type, version, spec = "ReduceLogicalAnd", "opset1", spec_url("reduction/reduce-logical-and-1")
    kernel = staticmethod(_all)
    logical = True
    restrictions = ""


@register
class ReduceLogicalOr1(ReduceOp):
    """ReduceLogicalOr-1: Any true over the axes (boolean)."""
    type, version, spec = "ReduceLogicalOr", "opset1", spec_url("reduction/reduce-logical-or-1")
    kernel = staticmethod(_any)
    logical = True
    restrictions = ""
