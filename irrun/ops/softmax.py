"""Softmax-1/8 (written ``SoftMax``) and LogSoftmax-5 along one axis.

``exp(x - max) / sum(exp(x - max))`` and ``x - max - log(sum(exp(x - max)))``, computed in the
input's float type (f16/bf16 in f32), as OpenVINO's reference kernel does: a NaN anywhere in a
slice makes the whole slice NaN (the CPU plugin instead zeroes the other elements; measured).
Softmax-1 reads ``axis`` as unsigned, so only ``0..rank-1`` is valid; Softmax-8 and LogSoftmax-5
take ``[-rank, rank-1]``. OpenVINO has no LogSoftmax reference kernel: the CPU plugin is its oracle.
"""
from __future__ import annotations

import numpy as np

from ..errors import OpError
from ..types.shapes import PartialShape
from ._numerics import DIRECT, RESTRICTION, fits, float_math, quiet, unsupported
from .base import Attr, Op, TensorInfo, normalize_axis, spec_url
from .registry import register


def softmax(x: np.ndarray, axis: int, out: np.ndarray | None = None) -> np.ndarray:
    """Into ``out`` when given (possibly ``x`` itself), with no temporary of ``x``'s size."""
    e = np.subtract(x, np.max(x, axis=axis, keepdims=True), out=out)
    np.exp(e, out=e)
    e /= np.sum(e, axis=axis, keepdims=True)
    return e


def log_softmax(x: np.ndarray, axis: int, out: np.ndarray | None = None) -> np.ndarray:
    d = np.subtract(x, np.max(x, axis=axis, keepdims=True), out=out)
    d -= np.log(np.sum(np.exp(d), axis=axis, keepdims=True))
    return d


class _SoftmaxBase(Op):
    category = "normalize"
    allocation = "inputs"        # irrun/ops/base.py: Op.allocation
    attrs = {"axis": Attr("int", 1)}
    restrictions = "floating-point inputs only (OpenVINO's CPU plugin also takes integers); " + RESTRICTION
    kernel = staticmethod(softmax)
    inplace = (0,)
    fresh_outputs = True

    def _axis(self, shape: PartialShape) -> int:
        """The normalised axis for a shape of known rank (``infer`` skips a dynamic one)."""
        return normalize_axis(self.axis, len(shape))

    def infer(self, inputs):
        (x,) = inputs
        if x.shape.rank is not None:
            self._axis(x.shape)
        if not (x.etype.is_dynamic or x.etype.is_float):
            raise unsupported(self.type, x.etype)
        return [TensorInfo(x.etype, x.shape)]

    def run(self, x, out=None):
        axis = self._axis(PartialShape(x.shape))
        if x.size == 0:
            return [x.copy()]
        if x.dtype in DIRECT:
            with quiet():
                return [self.kernel(x, axis, out if fits(out, x) else None)]
        return [float_math(lambda v: self.kernel(v, axis), x, blocks=False)]


@register
class Softmax1(_SoftmaxBase):
    """Softmax-1: the axis is unsigned (a negative one is refused, as OpenVINO's 2**64 - 1)."""

    type, version = "Softmax", "opset1"
    spec = spec_url("activation/softmax-1")

    def _axis(self, shape: PartialShape) -> int:
        if not 0 <= self.axis < shape.rank:
            raise OpError(f"Reduction axis ({self.axis % 2**64}) is out of bounds (argument shape: {shape}).")
        return self.axis


@register
class Softmax8(_SoftmaxBase):
    """Softmax-8: like Softmax-1 with ``axis`` in ``[-rank, rank-1]``."""

    type, version = "Softmax", "opset8"
    spec = spec_url("activation/softmax-8")


@register
class LogSoftmax5(_SoftmaxBase):
    """LogSoftmax-5: ``x - max - log(sum(exp(x - max)))`` along ``axis`` in ``[-rank, rank-1]``."""

    type, version = "LogSoftmax", "opset5"
    spec = spec_url("activation/log-soft-max-5")
    kernel = staticmethod(log_softmax)
