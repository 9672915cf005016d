"""Squeeze-1/15: remove dimensions of size 1 (a view)."""
from __future__ import annotations

from collections.abc import Sequence

from ..types.shapes import Dim, PartialShape
from ._indices import axes_values, check_axes_info
from .base import Attr, Op, TensorInfo, normalize_axis, spec_url
from .registry import register

_ONE = Dim(1, 1)


def squeeze_shape(shape: PartialShape, axes: Sequence[int] | None,
                  allow_axis_skip: bool = False) -> PartialShape:
    """The output shape (data-movement-ops.md §10). No or empty ``axes``: drop every dim equal to
    1 (a dynamic dim that may be 1 makes the rank dynamic). With axes: drop each listed dim that
    may be 1 (a dynamic one is assumed to be 1, unless ``allow_axis_skip``, which then makes the
    rank dynamic); a listed dim that cannot be 1 is kept silently. Duplicates are fine. A scalar
    takes axes 0 and -1 (OpenVINO normalises them against rank 1) and stays a scalar."""
    if shape.rank is None:
        return PartialShape(None)
    if not axes:
        if any(not d.is_static and d.contains(1) for d in shape):
            return PartialShape(None)
        return PartialShape(d for d in shape if d != _ONE)
    listed = {normalize_axis(a, max(shape.rank, 1)) for a in axes}
    if shape.rank == 0:
        return shape
    if allow_axis_skip and any(not shape[i].is_static and shape[i].contains(1) for i in listed):
        return PartialShape(None)
    return PartialShape(d for i, d in enumerate(shape) if not (i in listed and d.contains(1)))


def squeezed(shape: tuple[int, ...], axes: Sequence[int] | None) -> tuple[int, ...] | None:
    """:func:`squeeze_shape` of a concrete shape on plain ints (the kernel's common case: no
    PartialShape objects per run); None where the general rule must decide (a scalar with axes,
    an axis out of range: its error message)."""
    if not axes:
        return tuple(d for d in shape if d != 1)
    r = len(shape)
    listed = set()
    for a in axes:
        if not -r <= a < r:
            return None
        listed.add(a + r if a < 0 else a)
    return tuple(d for i, d in enumerate(shape) if d != 1 or i not in listed)


@register
class Squeeze1(Op):
    """``x.reshape`` to the squeezed shape, a view (``np.squeeze`` would reject the non-1 dims that
    OpenVINO silently keeps since 2024.3). Axes known only at run time: the shape is unchanged when
    no dim can be 1, else the rank is dynamic (stricter than OpenVINO's rank-1 guess for a
    one-element axes, which is wrong when the axis points at a dim that is not 1)."""
    category = "movement"
    allocation = "inputs"        # irrun/ops/base.py: Op.allocation

    type, version = "Squeeze", "opset1"
    spec = spec_url("shape/squeeze-1")
    num_inputs = (1, 2)
    moves_values = (0,)          # value bounds pass through (irrun/ops/bounds.py)
    allow_axis_skip = False

    def infer(self, inputs):
        data = inputs[0]
        axes: list[int] | None = None
        if len(inputs) == 2:
            a = inputs[1]
            check_axes_info(a)
            if a.value is not None:
                axes = axes_values(a.value)
            elif a.shape.is_static and 0 in a.shape.to_tuple():
                axes = []                                        # known to be empty
            elif data.shape.rank is not None and not any(d.contains(1) for d in data.shape):
                return [TensorInfo(data.etype, data.shape)]      # nothing can be squeezed
            else:
                return [TensorInfo(data.etype, PartialShape(None))]
        return [TensorInfo(data.etype, squeeze_shape(data.shape, axes, self.allow_axis_skip))]

    def run(self, x, axes=None):
        listed = None if axes is None else axes_values(axes)
        shape = squeezed(x.shape, listed)
        if shape is None:
            shape = squeeze_shape(PartialShape(x.shape), listed).to_tuple()
        return [x.reshape(shape)]


@register
class Squeeze15(Squeeze1):
    """Squeeze-15 adds ``allow_axis_skip``: a listed dynamic dim that may be 1 makes the output rank
    dynamic instead of being assumed 1. Values are the same as Squeeze-1."""

    version = "opset15"
    spec = spec_url("shape/squeeze-15")
    attrs = {"allow_axis_skip": Attr("bool", False)}
