"""Broadcast-1/3: replicate a tensor to a target shape (read-only ``np.broadcast_to`` views).

Rules as measured against OpenVINO 2026.4.1 (data-movement-ops.md §13):

* numpy: the data is right-aligned under the target; every data dim is 1 or equal; the output
  shape is the target.
* bidirectional (v3): ``np.broadcast_shapes(data, target)``; the target may have fewer dims.
* explicit (``none`` is a synonym): data axis i goes to output axis ``axes_mapping[i]``; mapped
  dims must be equal or 1. A scalar may carry a one-element mapping whose target dim is 1.
* pdpd: OpenVINO's IR reader always builds it with axis 0 (the ``axis`` and
  ``auto_broadcast_axis`` attributes are ignored, measured), so data and target must have the
  same rank; per dim a 1 on either side takes the other side (the output can exceed the target).
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..errors import OpError
from ..limits.memory import check_alloc
from ..types.shapes import DYN, Dim, PartialShape, broadcast_merge
from . import bounds
from ._broadcast import numpy_shape
from .base import Attr, Op, TensorInfo, as_int64, check_index_input, spec_url
from .registry import register

ONE = Dim(1, 1)


def target_values(value: np.ndarray) -> list[int]:
    t = as_int64(value).tolist()
    if any(v < 0 for v in t):
        raise OpError(f"Broadcast target_shape {t} has a negative value (OpenVINO turns -1 into a "
                      "dynamic dimension and then cannot evaluate the op)", port="input 1",
                      openvino_loads=True)
    return t


def broadcast_shape(mode: str, data: PartialShape, target: Sequence[int | Dim],
                    axes: Sequence[int] | None = None) -> PartialShape:
    """The output shape of Broadcast for a known target (and, for explicit mode, known axes),
    raising OpenVINO's messages. Used by ``infer`` and, with the concrete shapes, by ``run``.
    Target values may be intervals (value bounds, irrun/ops/bounds.py), as OpenVINO reads them:
    numpy mode checks only static ones, bidirectional merges like ``Dimension::broadcast_merge``
    and pdpd intersects."""
    t = [Dim.of(v) for v in target]
    n, r = len(t), data.rank
    if mode == "explicit":
        if axes is not None and r is not None:
            _check_axes(data, t, axes)
        return PartialShape(t)
    if r is None:
        return PartialShape(None) if mode == "bidirectional" else PartialShape(t)
    dims = list(data)
    if mode == "numpy":
        if n < r:
            raise OpError(f"Broadcast target_shape has smaller rank {n} than arg shape {r}", port="input 1")
        for d, tv in zip(dims, t[n - r:]):
            if tv.is_static and not (d.contains(1) or d.contains(tv.lo)):
                raise OpError(f"Input shape dimension equal {d} cannot be broadcasted (numpy mode) to "
                              f"{tv}. Allowed input dimension value would be 1"
                              + (f" or {tv}" if tv != ONE else ""), port="input 1")
        return PartialShape(t)
    if mode == "pdpd":
        out = []
        for d, tv in zip(dims, t):
            m = tv if d == ONE else d if tv == ONE else d.intersect(tv)
            if m is not None:
                out.append(m)
            else:
                raise OpError(f"Broadcast incorrect target shape. Expecting either 1 or {d} . Got {tv}",
                              port="input 1")
        if n != r:
            raise OpError(f"Broadcast pdpd mode: data rank {r} differs from target_shape length {n}; "
                          "OpenVINO reads pdpd layers with axis 0, which needs equal ranks (it fails "
                          "with \"Accessing out-of-range dimension\" or at evaluation)", port="input 1")
        return PartialShape(out)
    # bidirectional
    rank = max(n, r)
    dims = [ONE] * (rank - r) + dims
    tgt = [ONE] * (rank - n) + t
    out = []
    for d, tv in zip(dims, tgt):
        merged = broadcast_merge(d, tv)     # for a static tv: 1 keeps d, else d must be 1 or tv
        if merged is not None:
            out.append(merged)
        else:
            raise OpError(f"Broadcast incorrect target shape. Expecting either 1 or {d}. Got {tv}",
                          port="input 1")
    return PartialShape(out)


def _check_axes(data: PartialShape, t: list[Dim], axes: Sequence[int]) -> None:
    for i, a in enumerate(axes):      # OpenVINO reads the axes unsigned: -1 is huge, not small
        if not 0 <= a < len(t):
            raise OpError(f"Broadcast axes_mapping[{i}]: {a} exceeds target rank {len(t)}", port="input 2")
    if list(axes) != sorted(axes):
        raise OpError(f"Broadcast doesn't permit transposes. axes_mapping AxisVector{{"
                      f"{', '.join(map(str, axes))}}} not in sorted order", port="input 2")
    for i, a in enumerate(axes):
        if data.rank == 0:
            if not t[a].contains(1):
                raise OpError(f"Broadcast target[axes_mapping[0]]. Expected 1. Got {t[a]}", port="input 2")
        elif not (data[i].intersect(t[a]) is not None or data[i].contains(1)):
            raise OpError(f"Broadcast target[axes_mapping[{i}]] Expected {data[i]}. Got {t[a]}", port="input 2")
    if len(set(axes)) != len(axes):
        raise OpError(f"Broadcast axes_mapping {list(axes)} maps two data axes to one output axis "
                      "(OpenVINO accepts it but its kernel erases the axis twice)", port="input 2",
                      openvino_loads=True)


def _check_axes_count(data: PartialShape, axes: TensorInfo) -> None:
    if data.rank is None or axes.shape.rank != 1 or not axes.shape[0].is_static:
        return
    k = axes.shape[0].lo
    rank = 1 if data.rank == 0 and k > 0 else data.rank
    if k != rank:
        raise OpError(f"Broadcast axes_mapping shape [{k}] doesn't match rank of input tensor {rank}",
                      port="input 2")


@register
class Broadcast1(Op):
    """A target known only at run time gives dynamic dims of its length (dynamic rank when the
    length is unknown too); bidirectional then keeps the data dims that cannot be 1. With two
    inputs Broadcast-1 treats ``explicit`` as ``numpy`` (measured); a third input with ``numpy``
    is ignored; ``pdpd`` with two inputs fails in OpenVINO ("index '2' out of range")."""
    category = "movement"
    allocation = "checked"        # irrun/ops/base.py: Op.allocation

    type, version = "Broadcast", "opset1"
    spec = spec_url("movement/broadcast-1")
    attrs = {"mode": Attr("enum", "numpy", choices=("numpy", "explicit", "none", "pdpd"))}
    num_inputs = (2, 3)
    moves_values = (0,)          # value bounds pass through (irrun/ops/bounds.py)

    def _mode(self, n_inputs: int) -> str:
        mode = "explicit" if self.mode == "none" else self.mode
        if mode == "explicit" and n_inputs < 3:
            return "numpy"
        if mode == "pdpd" and n_inputs < 3:
            raise OpError('Broadcast-1 with mode="pdpd" needs a third input in OpenVINO (it fails '
                          "with \"index '2' out of range\"); use Broadcast-3 for two inputs")
        return mode

    def infer(self, inputs):
        data, target = inputs[:2]
        mode = self._mode(len(inputs))
        check_index_input(target, "input 1",
                          f"Broadcast shape must be an integral number, but is: {target.etype}",
                          f"Broadcast shape rank must be 1, but has {target.shape.rank}")
        axes = inputs[2] if mode == "explicit" else None
        axes_val = None
        if axes is not None:
            check_index_input(axes, "input 2",
                              f"Broadcast axes must be integral numbers, but are: {axes.etype}",
                              f"Broadcast axes rank must be 1, but has {axes.shape.rank}")
            _check_axes_count(data.shape, axes)
            axes_val = None if axes.value is None else as_int64(axes.value).tolist()
        if target.value is not None:
            shape = broadcast_shape(mode, data.shape, target_values(target.value), axes_val)
        elif target.lower is not None and target.shape.rank == 1:
            shape = broadcast_shape(mode, data.shape, bounds.dims(target, "input 1"), axes_val)
        else:
            shape = _unknown_target(mode, data.shape, target.shape)
        return [TensorInfo(data.etype, shape)]

    def run(self, x, target, axes=None):
        mode = self._mode(2 if axes is None else 3)
        t = target_values(target)
        axes_val = as_int64(axes).tolist() if mode == "explicit" else None
        if axes_val is not None and len(axes_val) != (1 if x.ndim == 0 and axes_val else x.ndim):
            raise OpError(f"Broadcast axes_mapping shape [{len(axes_val)}] doesn't match rank of input "
                          f"tensor {x.ndim}", port="input 2")
        out = _concrete(mode, x.shape, t)
        if out is None:
            out = broadcast_shape(mode, PartialShape(x.shape), t, axes_val).to_tuple()
        check_alloc(out, x.dtype, like=x)      # a view, but whatever reads it may materialise it
        if mode == "explicit":
            aligned = [1] * len(t)
            for i, a in enumerate(axes_val):
                aligned[a] = x.shape[i] if x.ndim else 1
            x = x.reshape(aligned)
        return [np.broadcast_to(x, out)]


def _concrete(mode: str, shape: tuple[int, ...], target: list[int]) -> tuple[int, ...] | None:
    """:func:`broadcast_shape` of numpy and bidirectional mode for a concrete shape and target on
    plain ints (the kernel's common case); None where the general rule must decide (its errors)."""
    if mode == "numpy":
        n, r = len(target), len(shape)
        if n >= r and all(d == 1 or d == t for d, t in zip(shape, target[n - r:])):
            return tuple(target)
    elif mode == "bidirectional":
        return numpy_shape(shape, tuple(target))
    return None


def _unknown_target(mode: str, data: PartialShape, tshape: PartialShape) -> PartialShape:
    if tshape.rank is None or not tshape[0].is_static:
        return PartialShape(None)
    n = tshape[0].lo
    if mode != "bidirectional":
        return PartialShape.dynamic(n)
    if data.rank is None:
        return PartialShape(None)
    m = max(n, data.rank)
    dims = [ONE] * (m - data.rank) + list(data)
    # where the target may still hold a dim (i >= m - n), a data dim that can be 1 gives ?
    return PartialShape(DYN if i >= m - n and d.contains(1) else d for i, d in enumerate(dims))


@register
class Broadcast3(Broadcast1):
    """Adds ``bidirectional``; ``explicit`` needs exactly three inputs, the other modes two."""

    version = "opset3"
    spec = spec_url("movement/broadcast-3")
    attrs = {"mode": Attr("enum", "numpy", choices=("numpy", "explicit", "none", "pdpd", "bidirectional"))}

    def _mode(self, n_inputs: int) -> str:
        mode = "explicit" if self.mode == "none" else self.mode
        if mode == "explicit" and n_inputs != 3:
            raise OpError("axes_mapping input should be provided if explicit mode is used")
        if mode != "explicit" and n_inputs != 2:
            raise OpError("axes_mapping input should not be provided for mode other than explicit")
        return mode
