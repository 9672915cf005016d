"""NonZero-3: the indices of the non-zero elements, one row per input dimension."""
from __future__ import annotations

import numpy as np

from ..errors import OpError
from ..limits.memory import check_alloc
from ..types.elements import TYPES
from ..types.shapes import DYN, Dim, PartialShape
from .base import Attr, Op, TensorInfo, spec_url
from .registry import register


def non_zero_count(shape: PartialShape) -> Dim:
    """The bound on the number of non-zeros: OpenVINO's product of ``Dim(0, 1)`` and every dim,
    i.e. ``0..numel`` (``0`` when a dim is 0, unbounded when a dim is)."""
    n = Dim(0, 1)
    for d in shape:
        n = n * d
    return n


@register
class NonZero3(Op):
    """The output is ``[rank, count]`` with ``count`` known only at run time; shape inference gives
    ``count`` the interval ``0..numel``. A scalar (or dynamic-rank) input gives ``[?, ?]``; at run
    time a scalar behaves as a 1-element vector: non-zero -> ``[[0]]``, zero -> shape ``[1, 0]``
    (the CPU plugin; the reference evaluator gives ``[0, 0]`` for zero, which breaks its own rank
    rule). NaN and -0.0 follow IEEE (NaN is non-zero, -0.0 is zero); a string is non-zero when not
    empty (OpenVINO has no string kernel)."""
    category = "shape"

    allocation = "checked"         # check_alloc of [rank, count] before np.nonzero
    type, version = "NonZero", "opset3"
    spec = spec_url("condition/nonzero-3")
    attrs = {"output_type": Attr("etype", TYPES["i64"])}

    def __init__(self, **attrs):
        super().__init__(**attrs)
        if self.output_type.name not in ("i32", "i64"):
            raise OpError("Output type must be i32 or i64")

    def infer(self, inputs):
        (x,) = inputs
        if x.shape.rank in (None, 0):
            shape = PartialShape([DYN, DYN])
        else:
            shape = PartialShape([x.shape.rank, non_zero_count(x.shape)])
        return [TensorInfo(self.output_type, shape)]

    def run(self, x):
        mask = x != "" if x.dtype.kind == "T" else x != 0
        if x.ndim == 0:
            mask = mask.reshape(1)
        check_alloc((mask.ndim, int(np.count_nonzero(mask))), self.output_type.dtype)
        idx = np.nonzero(mask)
        return [np.array(idx, dtype=self.output_type.dtype).reshape(len(idx), -1)]
