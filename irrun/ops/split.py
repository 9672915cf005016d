"""Split-1: cut a tensor into ``num_splits`` equal parts along an axis (views, no copy)."""
from __future__ import annotations

import numpy as np

from ..errors import OpError
from ..types.shapes import Dim, PartialShape
from .base import Attr, Op, TensorInfo, as_int64, check_index_input, normalize_axis, spec_url
from .registry import register

#: More outputs than any real IR declares; bounds the per-output bookkeeping of a hostile layer.
MAX_SPLITS = 1 << 16


def split_part(shape: PartialShape, axis: np.ndarray, n: int) -> tuple[int, Dim]:
    """The normalised axis and the size of each part along it, with OpenVINO's checks
    (data-movement-ops.md §1), for a shape of known rank. Shared by ``infer`` (constant axis)
    and ``run``."""
    if shape.rank == 0:
        raise OpError("Accessing out-of-range dimension", port="input 0")
    if axis.size == 0:
        raise OpError("the 'axis' input is empty", port="input 1")
    ax = normalize_axis(as_int64(axis).reshape(-1)[0], len(shape), port="input 1")
    dim = shape[ax]
    if dim.is_static:
        if dim.lo % n:
            raise OpError(f"Dimension of data input shape along 'axis': {dim.lo} must be evenly "
                          f"divisible by 'num_splits' attribute value: {n}", port="input 0")
        return ax, Dim.of(dim.lo // n)
    if dim.hi is not None and dim.hi < n:
        raise OpError("The interval maximum of the dimension for data input shape along 'axis' "
                      f"must be greater or equal to 'num_splits' attribute. Got: {dim} and {n}",
                      port="input 0")
    return ax, dim // n          # OpenVINO floors both bounds: 4..8 / 2 -> 2..4, 2..4 / 3 -> 0..1


@register
class Split1(Op):
    """Outputs are ``np.split`` views of the input. A missing ``num_splits`` reads as 0 and is
    rejected, as OpenVINO does. Unknown (non-constant) axis -> outputs of known rank only."""
    category = "movement"
    allocation = "inputs"        # irrun/ops/base.py: Op.allocation

    type, version = "Split", "opset1"
    spec = spec_url("movement/split-1")
    attrs = {"num_splits": Attr("int", 0, required=True)}
    num_inputs = (2, 2)
    moves_values = (0,)          # value bounds pass through (irrun/ops/bounds.py)

    def infer(self, inputs):
        data, axis = inputs
        n = self.num_splits
        if n <= 0:
            raise OpError(f"Attribute 'num_splits' must be greater than zero. Got: {n}")
        if n > MAX_SPLITS:     # one output port each: 2**31 of them would exhaust memory first
            raise OpError(f"irrun supports at most {MAX_SPLITS} outputs per layer; num_splits is {n}",
                          unsupported=True)
        check_index_input(axis, "input 1", f"Element type of 'axis' input must be integer. Got: {axis.etype}")
        if axis.shape.rank not in (0, None):
            raise OpError(f"'axis' input must be a scalar. Got: {axis.shape}", port="input 1")
        if data.shape.rank is None:
            out = PartialShape(None)
        elif axis.value is None:
            if data.shape.rank == 0:
                raise OpError("Accessing out-of-range dimension", port="input 0")
            out = PartialShape.dynamic(data.shape.rank)
        else:
            ax, part = split_part(data.shape, axis.value, n)
            out = PartialShape(part if i == ax else d for i, d in enumerate(data.shape))
        return [TensorInfo(data.etype, out) for _ in range(n)]

    def run(self, x, axis):
        ax, _ = split_part(PartialShape(x.shape), axis, self.num_splits)
        return np.split(x, self.num_splits, axis=ax)
