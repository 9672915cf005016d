"""OneHot-1/16: a new axis of length ``depth`` holding ``on_value`` where it equals the index, else ``off_value``.

Indices outside ``[0, depth)`` give a row of ``off_value`` — also negative ones in OneHot-1, whose
spec leaves them undefined (measured on OpenVINO 2026.4.1: CPU plugin and reference evaluator
agree). OneHot-16 with ``negative_indices_mode="normalize"`` first maps ``[-depth, -1]`` to
``[0, depth)``. Indices are read as 64-bit: the CPU plugin truncates i64 indices to 32 bits
(``2**40`` hits row 0 there), the reference evaluator does not.
"""
from __future__ import annotations

import numpy as np

from ..errors import OpError
from ..limits.memory import check_alloc
from ..types.shapes import DYN, Dim, PartialShape
from . import bounds
from .base import Attr, Op, TensorInfo, as_int64, normalize_axis, spec_url
from .registry import register


def check_depth(depth: np.ndarray) -> int:
    """A known depth (Const or run time) must not be negative."""
    if depth.size == 0:
        raise OpError("the depth input is empty", port="input 1")
    d = int(as_int64(depth).reshape(-1)[0])
    if d < 0:
        raise OpError("OneHot depth value can't be negative.", port="input 1")
    return d


def _integral(info: TensorInfo) -> bool:
    return info.etype.is_dynamic or info.etype.is_integer or info.etype.name == "boolean"


def _scalar_or_dynamic(info: TensorInfo) -> bool:
    return not info.shape.is_static or info.shape.rank == 0


@register
class OneHot1(Op):
    """The output type is ``on_value``'s; any element type works (strings too)."""
    category = "movement"

    allocation = "checked"         # check_alloc before the one-hot tensor
    type, version = "OneHot", "opset1"
    spec = spec_url("sequence/one-hot-1")
    attrs = {"axis": Attr("int", required=True)}
    num_inputs = (4, 4)
    restrictions = "indices of type i32 or i64 only (OpenVINO loads others but cannot run them)"
    normalize = False

    def infer(self, inputs):
        indices, depth, on, off = inputs
        if not _integral(indices):
            raise OpError("Indices must be integral element type.", port="input 0")
        if not _integral(depth):
            raise OpError("Depth must be integral element type.", port="input 1")
        if not (on.etype == off.etype or on.etype.is_dynamic or off.etype.is_dynamic):
            raise OpError("on_value element type must be compatible with off_value element type.", port="input 3")
        for info, name, port in ((depth, "depth", 1), (on, "on_value", 2), (off, "off_value", 3)):
            if not _scalar_or_dynamic(info):
                raise OpError(f"{name} input must be scalar.", port=f"input {port}")
        rank = indices.shape.rank
        axis = None if rank is None else normalize_axis(self.axis, rank + 1)
        if not (indices.etype.is_dynamic or indices.etype.name in ("i32", "i64")):
            raise OpError(f"OneHot indices of type {indices.etype}: OpenVINO accepts the layer but only "
                          "runs i32/i64 indices", port="input 0", openvino_loads=True)
        if rank is None:
            return [TensorInfo(on.etype, PartialShape(None))]
        if depth.value is not None and depth.value.size == 1:
            new = Dim.of(check_depth(depth.value))
        else:                                  # value bounds (irrun/ops/bounds.py) give an interval
            new = (bounds.dims(depth, "input 1") or [DYN])[0] if depth.shape.max_numel() == 1 else DYN
        dims = list(indices.shape)
        return [TensorInfo(on.etype, PartialShape(dims[:axis] + [new] + dims[axis:]))]

    def run(self, indices, depth, on, off):
        axis = normalize_axis(self.axis, indices.ndim + 1)
        d = check_depth(depth)
        idx = as_int64(indices)
        if self.normalize:
            idx = np.where((idx < 0) & (idx >= -d), idx + d, idx)
        shape = idx.shape[:axis] + (d,) + idx.shape[axis:]
        check_alloc(shape, on.dtype)
        classes = np.arange(d).reshape((1,) * axis + (d,) + (1,) * (idx.ndim - axis))
        hot = idx.reshape(idx.shape[:axis] + (1,) + idx.shape[axis:]) == classes
        return [np.where(hot, on.reshape(()), off.reshape(()).astype(on.dtype)).astype(on.dtype, copy=False)]


@register
class OneHot16(OneHot1):
    """OneHot-16 adds ``negative_indices_mode``: ``ignore_negative`` (OneHot-1's behaviour) or
    ``normalize``. OpenVINO spells it with an underscore; the spec's ``ignore-negative`` is refused
    by OpenVINO's reader (measured), and so by irrun."""

    version = "opset16"
    spec = spec_url("sequence/one-hot-16")
    attrs = {**OneHot1.attrs,
             "negative_indices_mode": Attr("enum", "ignore_negative", choices=("ignore_negative", "normalize"))}

    def __init__(self, **attrs):
        super().__init__(**attrs)
        self.normalize = self.negative_indices_mode == "normalize"
