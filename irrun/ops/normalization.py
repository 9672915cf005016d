"""MVN-1 (IR "opset2") and MVN-6, NormalizeL2-1, BatchNormInference-1/5, GroupNormalization-12.

All of them keep the data shape and compute in f32 for f16/bf16 data (f64 for f64), then cast
back. irrun runs them on floating-point data only (OpenVINO's shape inference also lets integer
data through, with integer arithmetic nobody relies on).
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..errors import OpError
from ..types.shapes import Dim, PartialShape
from ._numerics import compute_dtype, fits
from .base import Attr, Op, Precision, TensorInfo, as_int64, normalize_axis, spec_url
from .registry import register

_FLOAT_ONLY = "floating-point data only"


def require_float(info: TensorInfo, op: str, port: str = "input 0") -> None:
    if not (info.etype.is_float or info.etype.is_dynamic):
        raise OpError(f"irrun runs {op} on floating-point data only, got {info.etype}", port=port,
                      unsupported=True)


def axes_of(value: np.ndarray, rank: int, openvino_loads: bool = False) -> tuple[int, ...]:
    """Normalised, de-duplicated reduction axes (OpenVINO's out-of-range message; MVN-6 with such
    axes loads in OpenVINO and fails when it runs, NormalizeL2 does not load)."""
    try:
        return tuple(sorted({normalize_axis(a, rank) for a in as_int64(value).reshape(-1).tolist()}))
    except OpError as e:
        raise OpError(e.message, port="input 1", openvino_loads=openvino_loads) from None


def check_axes_input(info: TensorInfo, port: str = "input 1") -> None:
    if not (info.etype.is_integer or info.etype.is_dynamic):     # (OpenVINO lets floats through)
        raise OpError(f"axes must be an integer tensor, got {info.etype}", port=port, openvino_loads=True)


def mvn(x: np.ndarray, axes: Sequence[int], normalize_variance: bool, eps: float, inside: bool,
        out: np.ndarray | None = None) -> np.ndarray:
    """Into ``out`` when given (the planner's in-place buffer: possibly ``x`` itself)."""
    y = x.astype(compute_dtype(x.dtype), copy=False)
    axes = tuple(axes)
    out = out if y is x and fits(out, x) else None
    c = np.subtract(y, y.mean(axis=axes, keepdims=True), out=out) if axes else y - y
    if normalize_variance:
        var = (c * c).mean(axis=axes, keepdims=True) if axes else c * c
        c /= np.sqrt(var + eps) if inside else np.sqrt(var) + eps
    return c.astype(x.dtype, copy=False)


@register
class MVN1(Op):
    """MVN-1 (the IR writes ``version="opset2"``; "opset1" is read as opset2): mean-variance
    normalisation over the axes 1.. (``across_channels``) or 2.. of the input; ``eps`` is added
    inside the square root. ``reduction_axes`` is read but, as in OpenVINO's CPU plugin (the
    reference evaluator has no MVN-1 kernel), does not choose the axes: measured with
    ``across_channels="true" reduction_axes="1, 3"`` on 4-D data, the CPU normalises over 1, 2, 3."""
    category = "normalize"
    precision = Precision.NORMALIZATION
    allocation = "inputs"        # irrun/ops/base.py: Op.allocation

    type, version = "MVN", "opset2"
    spec = spec_url("normalization/mvn-1")
    attrs = {"across_channels": Attr("bool", False), "normalize_variance": Attr("bool", False),
             "eps": Attr("float", required=True), "reduction_axes": Attr("ints", [])}
    restrictions = _FLOAT_ONLY
    inplace = (0,)
    fresh_outputs = True

    def axes(self, rank: int) -> tuple[int, ...]:
        return tuple(range(1 if self.across_channels else 2, rank))

    def infer(self, inputs):
        (x,) = inputs
        require_float(x, "MVN")
        return [TensorInfo(x.etype, x.shape)]

    def run(self, x, out=None):
        return [mvn(x, self.axes(x.ndim), self.normalize_variance, self.eps, True, out)]


@register
class MVN6(Op):
    """MVN-6: the axes come from input 1 (i32/i64, values in ``[-rank, rank-1]``, duplicates
    allowed); ``eps_mode`` inside_sqrt: ``(x-mean)/sqrt(var+eps)``, outside_sqrt:
    ``(x-mean)/(sqrt(var)+eps)``. A missing ``eps`` reads as 0.0 as in OpenVINO."""
    category = "normalize"
    precision = Precision.NORMALIZATION
    allocation = "inputs"        # irrun/ops/base.py: Op.allocation

    type, version = "MVN", "opset6"
    spec = spec_url("normalization/mvn-6")
    attrs = {"normalize_variance": Attr("bool", False, required=True),
             "eps": Attr("float", 0.0, required=True),
             "eps_mode": Attr("enum", "inside_sqrt", required=True, choices=("inside_sqrt", "outside_sqrt"))}
    num_inputs = (2, 2)
    restrictions = _FLOAT_ONLY
    inplace = (0,)
    fresh_outputs = True

    def infer(self, inputs):
        x, axes = inputs
        require_float(x, "MVN")
        check_axes_input(axes)
        if axes.shape.rank is not None and axes.shape.rank != 1:
            raise OpError(f"Expected 1D tensor for the 'axes' input. Got: {axes.shape}", port="input 1")
        if x.shape.rank is not None and axes.shape.rank == 1 and axes.shape[0].is_static \
                and axes.shape[0].lo > x.shape.rank:
            raise OpError(f"Expected rank for the 'data' input to be higher than axes shape. Got: {x.shape}",
                          port="input 1")
        if axes.value is not None and x.shape.rank is not None:
            axes_of(axes.value, x.shape.rank, openvino_loads=True)
        return [TensorInfo(x.etype, x.shape)]

    def run(self, x, axes, out=None):
        return [mvn(x, axes_of(axes, x.ndim, openvino_loads=True), self.normalize_variance, self.eps,
                    self.eps_mode == "inside_sqrt", out)]


@register
class NormalizeL21(Op):
    """``x / sqrt(max(sum(x^2), eps))`` (eps_mode max) or ``x / sqrt(sum(x^2) + eps)`` (add) over
    the axes of input 1 (a scalar or 1-D integer tensor). With no axes every non-zero element
    becomes 1 (sign dropped, eps ignored) and zeros stay 0, as OpenVINO computes."""
    category = "normalize"
    precision = Precision.NORMALIZATION
    allocation = "inputs"        # irrun/ops/base.py: Op.allocation

    type, version = "NormalizeL2", "opset1"
    spec = spec_url("normalization/normalize-l2-1")
    attrs = {"eps": Attr("float", required=True),
             "eps_mode": Attr("enum", required=True, choices=("add", "max"))}
    num_inputs = (2, 2)
    restrictions = _FLOAT_ONLY

    def infer(self, inputs):
        x, axes = inputs
        require_float(x, "NormalizeL2")
        check_axes_input(axes)
        if axes.shape.rank not in (None, 0, 1):
            raise OpError(f"Input axes must be scalar or have rank equal to 1 (axes rank: {axes.shape.rank}).",
                          port="input 1")
        if axes.value is not None and x.shape.rank is not None:
            axes_of(axes.value, x.shape.rank)
        return [TensorInfo(x.etype, x.shape)]

    def run(self, x, axes):
        ax = axes_of(axes, x.ndim)
        if not ax:                    # OpenVINO: each element divided by itself, 0 stays 0
            return [(x != 0).astype(x.dtype)]
        y = x.astype(compute_dtype(x.dtype), copy=False)
        ss = (y * y).sum(axis=ax, keepdims=True)
        ss = np.maximum(ss, self.eps) if self.eps_mode == "max" else ss + self.eps
        with np.errstate(invalid="ignore", divide="ignore"):
            return [(y / np.sqrt(ss)).astype(x.dtype, copy=False)]


@register
class BatchNormInference5(Op):
    """``gamma * (x - mean) / sqrt(variance + epsilon) + beta`` per channel (axis 1); inputs
    (data, gamma, beta, mean, variance)."""
    category = "normalize"

    type, version = "BatchNormInference", "opset5"
    spec = spec_url("normalization/batch-norm-inference-5")
    attrs = {"epsilon": Attr("float", required=True)}
    num_inputs = (5, 5)
    order = (0, 1, 2, 3, 4)     # input index of data, gamma, beta, mean, variance

    def infer(self, inputs):
        data, *params = [inputs[i] for i in self.order]
        types = {t.etype for t in (data, *params) if not t.etype.is_dynamic}
        if len(types) > 1:
            raise OpError("Input element types do not match.")
        if types and not next(iter(types)).is_float:
            raise OpError(f"Input element types must be floating-point. Got: {next(iter(types))}")
        if self.epsilon < 0:
            raise OpError(f"Attribute 'epsilon' must be non negative value. Got: {self.epsilon:g}")
        if data.shape.rank is not None and data.shape.rank < 2:
            raise OpError(f"Input argument must have rank of at least 2 (input argument shape: {data.shape}).",
                          port=f"input {self.order[0]}")
        channel = Dim(0, None)
        for p in params:
            if p.shape.rank is None:
                continue
            merged = channel.intersect(p.shape[0]) if p.shape.rank == 1 else None
            if merged is None:
                raise OpError("Shapes for gamma/beta/mean/variance do not match.")
            channel = merged
        shape = data.shape
        if shape.rank is not None:
            c = shape[1].intersect(channel)
            if c is None:
                raise OpError(f"Input channel dimension ({shape[1]}) does not match shape for "
                              f"gamma/beta/mean/variance ({PartialShape([channel])}).")
            shape = PartialShape([shape[0], c, *list(shape)[2:]])
        return [TensorInfo(data.etype if not data.etype.is_dynamic else next(iter(types), data.etype), shape)]

    def run(self, *inputs):
        x, gamma, beta, mean, var = [inputs[i] for i in self.order]
        acc = compute_dtype(x.dtype)
        if not (gamma.shape == beta.shape == mean.shape == var.shape == (x.shape[1],)):
            raise OpError("Shapes for gamma/beta/mean/variance do not match.")
        shape = (1, -1) + (1,) * (x.ndim - 2)
        g, b, m, v = (a.astype(acc, copy=False).reshape(shape) for a in (gamma, beta, mean, var))
        y = (x.astype(acc, copy=False) - m) / np.sqrt(v + acc.type(self.epsilon)) * g + b
        return [y.astype(x.dtype, copy=False)]


@register
class BatchNormInference1(BatchNormInference5):
    """BatchNormInference-1 takes the same tensors in the order (gamma, beta, data, mean, variance)."""

    version = "opset1"
    spec = spec_url("normalization/batch-norm-inference-1")
    order = (2, 0, 1, 3, 4)


@register
class GroupNormalization12(Op):
    """Channels split into ``num_groups`` groups; each (sample, group) is normalised over its
    channels and spatial dims, ``(x - mean) / sqrt(var + epsilon)``, then scaled and shifted
    per channel by the 1-D ``scale`` and ``bias``."""
    category = "normalize"

    type, version = "GroupNormalization", "opset12"
    spec = spec_url("normalization/group-normalization-12")
    attrs = {"num_groups": Attr("int", required=True), "epsilon": Attr("float", required=True)}
    num_inputs = (3, 3)
    restrictions = _FLOAT_ONLY

    def infer(self, inputs):
        x, scale, bias = inputs
        require_float(x, "GroupNormalization")
        if x.shape.rank is not None and x.shape.rank < 2:
            raise OpError("The input tensor is required to be at least 2D", port="input 0")
        if self.num_groups <= 0:
            raise OpError("The number of groups needs to be a positive integer value")
        c = x.shape[1] if x.shape.rank is not None else Dim(0, None)
        if c.is_static and c.lo % self.num_groups:
            raise OpError("The number of channels is required to be evenly divisible by the number of groups",
                          port="input 0")
        for info, name, port in ((scale, "scale", "input 1"), (bias, "bias", "input 2")):
            if info.shape.rank is None:
                continue
            if info.shape.rank != 1:
                raise OpError(f"The {name} input is required to be 1D", port=port)
            if info.shape[0].intersect(c) is None:
                raise OpError(f"The {name} input shape needs to match the channel dimension in the data input",
                              port=port)
        return [TensorInfo(x.etype, x.shape)]

    def run(self, x, scale, bias):
        n, c = x.shape[:2]
        if c % self.num_groups or scale.shape != (c,) or bias.shape != (c,):
            raise OpError(f"data with {c} channels, {self.num_groups} groups, scale {list(scale.shape)} and "
                          f"bias {list(bias.shape)} do not fit")
        acc = compute_dtype(x.dtype)
        y = x.astype(acc, copy=False).reshape(n, self.num_groups, -1)
        y = mvn(y, (2,), True, self.epsilon, True).reshape(x.shape)
        shape = (1, -1) + (1,) * (x.ndim - 2)
        y = y * scale.astype(acc).reshape(shape) + bias.astype(acc).reshape(shape)
        return [y.astype(x.dtype, copy=False)]
