"""LRN-1: local response normalization over a window along the ``axes`` (input 1).


``y = x / (bias + alpha / size**len(axes) * sum(x**2 over the window)) ** beta``, the window
being ``[i - (size-1)//2, i + (size-1)//2]`` clipped to the tensor along every axis in ``axes``
(a hyper-rectangle; an even ``size`` therefore covers ``size - 1`` elements, as in OpenVINO's
reference kernel). OpenVINO has no reference evaluator for LRN; its CPU plugin (the oracle) runs
only ``axes`` {1} and {2, 3} and crashes on empty axes; irrun computes every axes set by the
formula. f16/bf16 compute in f32.
"""
from __future__ import annotations

import numpy as np

from ..errors import OpError
from ..types.shapes import PartialShape
from ._numerics import NUMERIC, float_math
from .base import Attr, Op, TensorInfo, as_int64, spec_url
from .registry import register


def lrn_axes(shape: PartialShape, axes: np.ndarray) -> list[int]:
    """The axes set, normalized, with OpenVINO's message for one out of range."""
    vals = as_int64(axes).reshape(-1).tolist()
    if shape.rank is None:
        return vals
    bad = [a for a in vals if not -shape.rank <= a < shape.rank]
    if bad:
        raise OpError(f"Reduction axis ({bad[0]}) is out of bounds (argument shape: {shape}, reduction "
                      f"axes: AxisSet{{{', '.join(map(str, sorted(set(vals))))}}})", port="input 1")
    return sorted({a % shape.rank for a in vals})


def window_sum(sq: np.ndarray, axis: int, half: int) -> np.ndarray:
    """Sum over ``[i - half, i + half]`` (clipped) along ``axis``: 2*half+1 shifted adds."""
    n = sq.shape[axis]
    pad = [(0, 0)] * sq.ndim
    pad[axis] = (half, half)
    p = np.pad(sq, pad)
    out = np.zeros_like(sq)
    for k in range(2 * half + 1):
        out += np.take(p, np.arange(k, k + n), axis=axis)
    return out


@register
class LRN1(Op):
    """LRN-1; see the module docstring."""
    category = "normalize"

    type, version = "LRN", "opset1"
    spec = spec_url("normalization/lrn-1")
    attrs = {"alpha": Attr("float", required=True), "beta": Attr("float", required=True),
             "bias": Attr("float", required=True), "size": Attr("int", required=True)}
    num_inputs = (2, 2)
    restrictions = "floating-point data only"

    def infer(self, inputs):
        x, axes = inputs
        if not x.etype.is_dynamic and (not x.etype.is_float or x.etype.name not in NUMERIC):
            raise OpError(f"irrun does not support LRN on {x.etype} (f64/f32/f16/bf16 only)",
                          port="input 0", unsupported=True)
        if not (axes.etype.is_integer or axes.etype.is_dynamic):
            raise OpError(f"Axes input must be integral numbers, but are: {axes.etype}", port="input 1")
        if axes.shape.rank not in (None, 1):
            raise OpError(f"Input axes must have rank equals 1 (axes_rank: {axes.shape.rank}).", port="input 1")
        if axes.shape.rank == 1 and x.shape.rank is not None and axes.shape[0].lo > x.shape.rank:
            raise OpError("Number of elements of axes must be >= 0 and <= argument rank (axes_shape[0]: "
                          f"{axes.shape[0]}).", port="input 1")
        if self.size < 1:
            raise OpError(f"size must be at least 1, got {self.size} (OpenVINO divides by size**len(axes))",
                          openvino_loads=True)
        if axes.value is not None:
            lrn_axes(x.shape, axes.value)
        return [TensorInfo(x.etype, x.shape)]

    def run(self, x, axes):
        ax = lrn_axes(PartialShape(x.shape), axes)
        half = (self.size - 1) // 2

        def lrn(v):
            s = v * v
            for a in ax:
                s = window_sum(s, a, half)
            scale = v.dtype.type(self.alpha) / v.dtype.type(self.size ** len(ax))
            return v / (v.dtype.type(self.bias) + scale * s) ** v.dtype.type(self.beta)
        return [float_math(lrn, x, blocks=False)]
