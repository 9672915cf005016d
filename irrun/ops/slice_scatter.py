"""SliceScatter-15: a copy of ``data`` with ``data[start:stop:step]`` (on the listed axes) replaced
by ``updates`` — the inverse of Slice-8, with the same slicing rules.

Spec: https://docs.openvino.ai/2026/documentation/openvino-ir-format/operation-sets/operation-specs/movement/slice-scatter-15.html

The output has the data's shape and type; ``updates`` must have the shape the Slice-8 of the same
inputs would produce (checked by Slice-8's own shape rule, so intervals and unknown bounds are
handled alike).
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..errors import OpError
from ..shapes import DYN, PartialShape
from .base import Op, TensorInfo
from .registry import register
from .slice import Slice8, clamp_slice, index_values, slice_plan

_SLICE = Slice8()


@register
class SliceScatter(Op):
    """SliceScatter-15: inputs data, updates, start, stop, step, optional axes."""

    type, version = "SliceScatter", "opset15"
    spec = "https://docs.openvino.ai/2026/documentation/openvino-ir-format/operation-sets/operation-specs/movement/slice-scatter-15.html"
    num_inputs = (5, 6)

    def infer(self, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
        data, updates, *idx = inputs
        if not (data.etype.is_dynamic or updates.etype.is_dynamic or data.etype == updates.etype):
            raise OpError("SliceScatter `updates` input must have the same type as `data`.", port="input 1")
        sliced = _SLICE.infer([data, *idx])[0].shape
        if not sliced.compatible(updates.shape):
            raise OpError(f"SliceScatter updates at index 1 are not compatible with expected slice shape "
                          f"{sliced}", port="input 1")
        shape = data.shape
        if shape.rank is None and updates.shape.rank is not None:      # the rank is the updates'
            shape = PartialShape([DYN] * updates.shape.rank)
        return [TensorInfo(data.etype if not data.etype.is_dynamic else updates.etype, shape)]

    def run(self, x: np.ndarray, updates: np.ndarray, *idx: np.ndarray) -> list[np.ndarray]:
        values = [index_values(v) for v in idx] + [None] * (4 - len(idx))
        plan = slice_plan(x.ndim, *values, n_default=len(values[0]), has_axes=len(idx) == 4)
        index = [slice(None)] * x.ndim
        for axis, (start, stop, step) in plan.items():
            index[axis] = clamp_slice(x.shape[axis], start, stop, step)[0]
        out = x.copy()
        target = out[tuple(index)]
        if target.shape != updates.shape:
            raise OpError(f"SliceScatter updates shape {list(updates.shape)} is not the slice's "
                          f"shape {list(target.shape)}", port="input 1")
        out[tuple(index)] = updates
        return [out]
