"""SegmentMax-16: the maximum of each segment of rows of ``data`` (rows grouped by sorted
``segment_ids``).

``segment_ids`` is 1-D, non-negative and sorted, one id per row of ``data`` (axis 0). The output
has ``num_segments`` rows (the optional third input; else ``max(segment_ids) + 1``); rows of
segments no id names are filled by ``fill_mode``: ``zero`` with 0, ``lowest`` with the type's
lowest finite value (-FLT_MAX for f32, measured). Ids >= num_segments are dropped. NaN loses to any number (the
CPU plugin's ``std::max``, measured), like ``np.fmax``. The row count depends on values,
so the output is checked against the memory budget before it is allocated.
"""
from __future__ import annotations

import ml_dtypes
import numpy as np

from ..errors import OpError
from ..limits.memory import check_alloc
from ..types.shapes import DYN, Dim, PartialShape
from .base import Attr, Op, TensorInfo, as_int64, spec_url
from .registry import register


def _lowest(dtype: np.dtype):
    """``std::numeric_limits<T>::lowest()``: the most negative finite value."""
    if dtype.kind in "iu":
        return np.iinfo(dtype).min
    return ml_dtypes.finfo(dtype).min


def check_ids(ids: np.ndarray) -> None:
    if ids.size and (ids.min() < 0 or np.any(ids[1:] < ids[:-1])):
        raise OpError("The segment_ids must be non-negative and sorted.", port="input 1")


@register
class SegmentMax16(Op):
    """SegmentMax-16; see the module docstring."""
    category = "normalize"

    type, version = "SegmentMax", "opset16"
    spec = spec_url("arithmetic/segment-max-16")
    attrs = {"fill_mode": Attr("enum", required=True, choices=("zero", "lowest"))}
    num_inputs = (2, 3)

    def infer(self, inputs):
        data, ids, *num = inputs
        if not (ids.etype.is_dynamic or ids.etype.name in ("i32", "i64")):
            raise OpError("The element type of the segment_ids input be i32 or i64.", port="input 1")
        if num and not (num[0].etype.is_dynamic or num[0].etype.name in ("i32", "i64")):
            raise OpError("The element type of the num_segments input be i32 or i64.", port="input 2")
        if data.shape.rank == 0:
            raise OpError("The data input cannot be a scalar.", port="input 0")
        if ids.shape.rank not in (None, 1):
            raise OpError("segment_ids must be a 1D input.", port="input 1")
        if num and num[0].shape.rank not in (None, 0):
            raise OpError("num_segments must be a scalar input.", port="input 2")
        if data.shape.rank is not None and ids.shape.rank == 1 and data.shape[0].intersect(ids.shape[0]) is None:
            raise OpError("The number of elements in segment_ids must match the first dimension of data.",
                          port="input 1")
        if ids.value is not None:
            check_ids(as_int64(ids.value))
        rows = DYN
        if num and num[0].value is not None:
            rows = Dim.of(int(as_int64(num[0].value)))
        elif not num and ids.value is not None:
            v = as_int64(ids.value)
            rows = Dim.of(int(v.max()) + 1 if v.size else 0)
        if data.shape.rank is None:
            return [TensorInfo(data.etype, PartialShape(None))]
        return [TensorInfo(data.etype, PartialShape([rows, *list(data.shape)[1:]]))]

    def run(self, data, ids, num=None):
        ids = as_int64(ids)
        check_ids(ids)
        n = int(as_int64(num)) if num is not None else (int(ids.max()) + 1 if ids.size else 0)
        if n < 0:
            raise OpError("num_segments must be non-negative.", port="input 2")
        shape = (n, *data.shape[1:])
        check_alloc(shape, data.dtype)
        fill = 0 if self.fill_mode == "zero" else _lowest(data.dtype)
        out = np.full(shape, fill, data.dtype)
        keep = ids < n
        ids, rows = ids[keep], data[keep]
        if ids.size:
            starts = np.flatnonzero(np.r_[True, ids[1:] != ids[:-1]])
            out[ids[starts]] = np.fmax.reduceat(rows, starts, axis=0)
        return [out]
