"""CumSum-3: cumulative sum along ``axis`` (input 1), optionally ``exclusive`` and ``reverse``.

The spec makes ``axis`` optional, but OpenVINO 2026.4.1 cannot read a CumSum layer without it
("index '1' out of range"), so irrun refuses one too. ``axis`` is an i32/i64 scalar (a 1-element
1-D tensor is accepted, like the reference evaluator does) in ``[-rank, rank-1]``; OpenVINO does
not check the range and crashes (SIGSEGV) on an axis out of range or on scalar data, which irrun
refuses with the usual axis message. Sums run in the data's type (integers wrap; f16/bf16 in f32,
rounded once per element); OpenVINO's reference only has an f32 kernel, the CPU plugin agrees.
"""
from __future__ import annotations

import numpy as np

from ..errors import OpError
from ._numerics import NUMERIC, RESTRICTION, unsupported, work_dtype
from .base import Attr, Op, TensorInfo, as_int64, normalize_axis, spec_url
from .registry import register


def cumsum_axis(value: np.ndarray, rank: int) -> int:
    """The normalised axis from the axis input's value (shared by ``infer`` and ``run``)."""
    flat = as_int64(value).reshape(-1)
    if flat.size != 1:
        raise OpError(f"CumSum axis must be a scalar, got {flat.size} values", port="input 1")
    return normalize_axis(int(flat[0]), rank)


@register
class CumSum3(Op):
    category = "elementwise"
    allocation = "inputs"        # irrun/ops/base.py: Op.allocation
    type, version = "CumSum", "opset3"
    spec = spec_url("arithmetic/cumsum-3")
    attrs = {"exclusive": Attr("bool", False), "reverse": Attr("bool", False)}
    num_inputs = (1, 2)
    restrictions = "the axis input is required (as in OpenVINO's IR reader); " + RESTRICTION

    def infer(self, inputs):
        if len(inputs) == 1:
            raise OpError("CumSum without its axis input: OpenVINO 2026.4.1 cannot read it "
                          "(\"index '1' out of range\"); give axis 0 explicitly")
        x, axis = inputs
        if not (x.etype.is_dynamic or x.etype.name in NUMERIC):
            raise unsupported(self.type, x.etype)
        if axis.etype.name not in ("i32", "i64", "dynamic"):
            raise OpError(f"axis element type must be either int64_t or int32_t but got ({axis.etype}).",
                          port="input 1")
        if axis.shape.rank not in (None, 0, 1):
            raise OpError(f"CumSum axis must be a scalar, got shape {axis.shape}", port="input 1")
        if axis.value is not None and x.shape.rank is not None:
            cumsum_axis(axis.value, x.shape.rank)
        return [TensorInfo(x.etype, x.shape)]

    def run(self, x, axis):
        ax = cumsum_axis(axis, x.ndim)
        w = x.astype(work_dtype(x.dtype), copy=False)
        if self.reverse:
            w = np.flip(w, ax)
        with np.errstate(over="ignore"):
            out = np.cumsum(w, axis=ax, dtype=w.dtype)
        if self.exclusive and out.shape[ax]:
            out = np.roll(out, 1, axis=ax)
            out[(slice(None),) * ax + (0,)] = 0
        if self.reverse:
            out = np.flip(out, ax)
        return [out.astype(x.dtype, copy=False)]
