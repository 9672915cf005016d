"""Unique-10: the distinct elements (or, with an axis, the distinct slices along it) of a tensor,
with the index of each one's first occurrence, each input element's unique index, and the counts.

As OpenVINO's reference kernel (unique.hpp) defines it, measured on OpenVINO 2026.4.1:

* ``sorted=true``: ascending; slices compare lexicographically in row-major order; a stable
  sort, so each unique entry is the first occurrence (-0.0 and 0.0 are one value, the first one
  seen is output); ``sorted=false``: in order of first occurrence;
* a 1-D input with an axis is processed element-wise (the same thing); a tensor of one element
  gives itself, index 0, count 1 (with an axis its shape is kept);
* the axis input must be a Const (i32/i64, scalar or one element);
* output shapes: with a static input of n > 0 elements, output 0 has ``1..n`` entries (along the
  axis: ``1..dim``) and outputs 1 and 3 ``1..n`` (``n`` counts every element even with an
  axis, as OpenVINO does); other inputs give dynamic dims. NaNs are each their own value
  (OpenVINO's comparator is undefined there).

The CPU plugin gets the axis mode wrong on some inputs (columns of a [3, 8] tensor along axis 1,
measured: duplicates missed, and different answers from run to run); irrun follows the
reference algorithm, as the CPU plugin does on every other measured case.
"""
from __future__ import annotations

import numpy as np

from ..errors import OpError
from ..types.elements import TYPES
from ..types.shapes import DYN, Dim, PartialShape
from .base import Attr, Op, TensorInfo, as_int64, normalize_axis, spec_url
from .registry import register

_INDEX = ("i32", "i64")


def _axis(info: TensorInfo) -> int | None:
    """The Const axis value (None without the input), checked as OpenVINO does."""
    if not (info.etype.is_dynamic or info.etype.name in _INDEX):
        raise OpError("The allowed element types of the 'axis' input tensor of the Unique operator are "
                      "i32 and i64.", port="input 1")
    if info.shape.rank not in (None, 0, 1) or info.shape.rank == 1 and info.shape.is_static and info.shape[0].lo != 1:
        raise OpError("The 'axis' input tensor of the Unique operator must be a scalar or 1D tensor with "
                      "1 element.", port="input 1")
    if info.value is None:
        raise OpError("The 'axis' input of the Unique operator must be connected to a Constant.", port="input 1")
    return int(as_int64(info.value).reshape(-1)[0])


def _upto(n: int) -> Dim:
    return Dim(1, n) if n > 0 else Dim(0, 0)


def check_empty_slices(shape: PartialShape, axis: int | None) -> None:
    """Slices along ``axis`` that hold no elements (``[5, 0]`` along axis 0): OpenVINO's shape
    rule promises no unique slice (it counts elements), yet there are some; irrun refuses."""
    if axis is not None and shape.rank not in (None, 0, 1) and shape.is_static:
        dims = shape.to_tuple()
        if dims[axis] > 0 and 0 in dims:
            raise OpError(f"irrun does not run Unique along axis {axis} of {shape}: its slices are "
                          "empty", port="input 0", unsupported=True)


def unique_shapes(shape: PartialShape, axis: int | None) -> list[PartialShape]:
    """Output shapes (unique values, first indices, inverse indices, counts)."""
    if axis is not None and shape.rank is not None:
        axis = normalize_axis(axis, shape.rank)
        check_empty_slices(shape, axis)
    numel = shape.max_numel() if shape.is_static else None
    if shape.rank == 0 or shape.is_static and numel == 1:
        ones = PartialShape([1])
        return [shape if axis is not None and shape.rank else ones, ones, ones, ones]
    if axis is None or shape.rank == 1:
        if numel:
            return [PartialShape([_upto(numel)]), PartialShape([_upto(numel)]), PartialShape([numel]),
                    PartialShape([_upto(numel)])]
        return [PartialShape([DYN])] * 4
    if shape.rank is None:
        return [PartialShape(None)] + [PartialShape([DYN])] * 3
    dims = list(shape)
    d = dims[axis]
    dims[axis] = Dim(0, 0) if d == Dim(0, 0) else Dim(min(d.lo, 1), d.hi)
    count = PartialShape([_upto(numel)]) if numel is not None else PartialShape([DYN])
    return [PartialShape(dims), count, PartialShape([d]), count]


def _keys(x: np.ndarray) -> np.ndarray:
    """The values compared: f16/bf16 exactly in f32, booleans as bytes."""
    if x.dtype == np.bool_:
        return x.view(np.uint8)
    if x.dtype.kind == "V" or x.dtype == np.float16 or x.dtype.name == "bfloat16":
        return x.astype(np.float32)
    return x


def unique(x: np.ndarray, axis: int | None, sort: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(unique values, index of each one's first occurrence, unique index of each input
    element/slice, counts) by the reference algorithm, vectorised: one stable (lex)sort."""
    if axis is not None:
        axis = normalize_axis(axis, x.ndim)
        check_empty_slices(PartialShape(x.shape), axis)
    if x.size == 1:
        one = np.zeros(1, np.int64)
        return (x if axis is not None else x.reshape(1)), one, one, np.ones(1, np.int64)
    flat = axis is None or x.ndim == 1
    ax = 0 if flat or axis is None else axis      # (read only when not flat)
    rest = x.size // x.shape[ax] if not flat and x.shape[ax] else 0      # (no -1 on empty arrays)
    keys = _keys(x.reshape(-1, 1) if flat else np.moveaxis(x, ax, 0).reshape(x.shape[ax], rest))
    n = keys.shape[0]
    if n == 0:
        empty = np.zeros(0, np.int64)
        return x.reshape(0) if flat else x, empty, empty, empty
    if keys.shape[1] == 1:
        order = np.argsort(keys[:, 0], kind="stable")
    else:
        order = np.lexsort(keys.T[::-1]) if keys.shape[1] else np.arange(n)
    s = keys[order]
    new = np.ones(n, bool)
    new[1:] = np.any(s[1:] != s[:-1], axis=1)
    inverse = np.empty(n, np.int64)
    inverse[order] = np.cumsum(new) - 1
    first = order[new]                       # stable: the lowest index of each group
    if not sort:                             # groups in order of first occurrence
        rank = np.argsort(first, kind="stable")
        first = first[rank]
        remap = np.empty_like(rank)
        remap[rank] = np.arange(rank.size)
        inverse = remap[inverse]
    counts = np.bincount(inverse, minlength=first.size)
    values = x.reshape(-1)[first] if flat else np.take(x, first, axis=ax)
    return values, first, inverse, counts


@register
class Unique10(Op):
    """Data of any numeric type or boolean; optional Const axis."""
    category = "detection"

    type, version = "Unique", "opset10"
    spec = spec_url("movement/unique-10")
    attrs = {"sorted": Attr("bool", True),
             "index_element_type": Attr("etype", TYPES["i64"]),
             "count_element_type": Attr("etype", TYPES["i64"])}
    num_inputs = (1, 2)
    restrictions = "no string, f8 or 4-bit data"

    def _types(self) -> tuple:
        if self.index_element_type.name not in _INDEX:
            raise OpError("The element type of the outputs containing indices can only be set to i32 or i64.")
        if self.count_element_type.name not in _INDEX:
            raise OpError("The element type of the last output can only be set to i32 or i64.")
        return self.index_element_type, self.count_element_type

    def infer(self, inputs):
        idx, cnt = self._types()
        data = inputs[0]
        if not data.etype.is_dynamic and (data.etype.bits < 8 or data.etype.name.startswith("f8")):
            raise OpError(f"irrun does not run Unique on {data.etype} data", port="input 0", unsupported=True)
        axis = _axis(inputs[1]) if len(inputs) > 1 else None
        shapes = unique_shapes(data.shape, axis)
        return [TensorInfo(data.etype, shapes[0]), TensorInfo(idx, shapes[1]), TensorInfo(idx, shapes[2]),
                TensorInfo(cnt, shapes[3])]

    def run(self, x, axis=None):
        idx, cnt = self._types()
        ax = None if axis is None else int(as_int64(axis).reshape(-1)[0])
        values, first, inverse, counts = unique(x, ax, self.sorted)
        return [values, first.astype(idx.dtype), inverse.astype(idx.dtype), counts.astype(cnt.dtype)]
