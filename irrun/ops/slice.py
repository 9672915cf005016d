"""Slice-8: ``data[start:stop:step]`` on the listed axes, with OpenVINO's clamping rules;
SliceScatter-15, its inverse with the same slicing rules.

This module also holds the clamped-slice computation shared with StridedSlice-1
(:func:`clamp_slice` for one concrete dimension, :func:`sliced_dim` for a partial one).
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..errors import OpError
from ..types.shapes import DYN, Dim, PartialShape
from . import bounds
from ._slicing import bounded_dim, clamp_slice, index_values, sliced_dim, up_to
from .base import Op, TensorInfo, check_index_input, normalize_axis, spec_url
from .registry import register

# ---------------------------------------------------------------------------------------------

_NAMES = ("start", "stop", "step", "axes")


def slice_plan(rank: int, start: list[int] | None, stop: list[int] | None, step: list[int] | None,
               axes: list[int] | None, n_default: int | None, has_axes: bool
               ) -> dict[int, tuple[int, int, int] | None] | None:
    """Which axes Slice-8 slices and how, with OpenVINO's value checks, for known and unknown values.

    Returns ``{axis: (start, stop, step)}``, the triple being None while a value is unknown, or
    None when the sliced axes are unknown (``axes`` not constant, or no ``axes`` input and no
    known length of ``start``). ``n_default`` is the length of ``start`` when known.
    """
    if rank == 0:
        raise OpError("Slice `data` input can't be a scalar.", port="input 0")
    for i, (name, v) in enumerate(zip(_NAMES, (start, stop, step, axes))):
        if v is not None and len(v) > rank:
            raise OpError(f"Slice `{name}` input dim size can't be bigger than `data` rank.",
                          port=f"input {i + 1}")
    lengths = {len(v) for v in (start, stop, step) if v is not None}
    if len(lengths) > 1:
        raise OpError("Slice `start`, `stop`, `step` inputs must have compatible shapes.")
    if axes is not None and lengths and len(axes) not in lengths:
        raise OpError("Slice `axes` input must have compatible shape with `start`, `stop`, `step` inputs.")
    if step is not None and 0 in step:
        raise OpError("Step must be non-zero")
    if has_axes:
        if axes is None:
            return None
        order = [normalize_axis(a, rank, port="input 4") for a in axes]
        if len(set(order)) != len(order):
            raise OpError("Slice values in `axes` input must be unique.", port="input 4")
    elif n_default is None:
        return None
    else:
        order = list(range(n_default))
    if start is None or stop is None or step is None:
        return {axis: None for axis in order}
    return dict(zip(order, zip(start, stop, step)))


def _slice_index(x: np.ndarray, idx: Sequence[np.ndarray]) -> tuple[slice, ...]:
    """The basic index Slice-8 takes from ``x`` for the index inputs' run-time values
    (start, stop, step and optionally axes), with :func:`slice_plan`'s checks."""
    start, stop, step, *axes = (index_values(v) for v in idx)
    plan = slice_plan(x.ndim, start, stop, step, axes[0] if axes else None,
                      n_default=len(start), has_axes=bool(axes))
    index = [slice(None)] * x.ndim
    assert plan is not None       # known values: every sliced axis is known, with its triple
    for axis, triple in plan.items():
        assert triple is not None
        index[axis] = clamp_slice(x.shape[axis], *triple)[0]
    return tuple(index)


@register
class Slice8(Op):
    """Slice-8: ``data[start:stop:step]`` per listed axis (``axes`` defaults to ``0..len-1``; axes
    not listed are kept whole). Python semantics except the negative-step start clamp of
    :func:`clamp_slice`. The kernel is basic indexing, so the result is a view (also for negative
    steps). Index inputs may be any integer type; an empty ``start`` is a no-op.

    Shape rule: exact intervals for partial dims (:func:`sliced_dim`); a sliced dim whose bounds
    are not constant becomes ``0..upper``, or narrower with value bounds (:func:`bounded_dim`,
    e.g. start ``2..4`` of 10 -> ``6..8``); unknown axes make every dim ``0..upper``; dynamic data
    rank gives a dynamic rank.
    """
    category = "movement"
    allocation = "inputs"        # irrun/ops/base.py: Op.allocation

    type, version = "Slice", "opset8"
    spec = spec_url("movement/slice-8")
    num_inputs = (4, 5)
    moves_values = (0,)          # value bounds pass through (irrun/ops/bounds.py)

    def infer(self, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
        data, *idx = inputs
        for i, (name, info) in enumerate(zip(_NAMES, idx)):
            check_index_input(info, f"input {i + 1}", f"Slice `{name}` input type must be integer.")
        rank = data.shape.rank
        if rank is None:
            return [TensorInfo(data.etype, PartialShape(None))]
        if rank == 0:
            raise OpError("Slice `data` input can't be a scalar.", port="input 0")
        lens: dict[int, Dim] = {}          # input position (0 = start) -> its length, if 1-D
        for i, (name, info) in enumerate(zip(_NAMES, idx)):
            check_index_input(info, f"input {i + 1}", None,
                              f"Slice `{name}` input must be a 1D tensor. Got rank: {info.shape.rank}")
            if info.shape.rank == 1:
                lens[i] = info.shape[0]
                if lens[i].lo > rank:
                    raise OpError(f"Slice `{name}` input dim size can't be bigger than `data` rank.",
                                  port=f"input {i + 1}")
        sss = [d for i, d in lens.items() if i < 3]
        if any(a.intersect(b) is None for a in sss for b in sss):
            raise OpError("Slice `start`, `stop`, `step` inputs must have compatible shapes.")
        if 3 in lens and any(d.intersect(lens[3]) is None for d in sss):
            raise OpError("Slice `axes` input must have compatible shape with `start`, `stop`, `step` inputs.",
                          port="input 4")
        values = [None if i.value is None else index_values(i.value) for i in idx] + [None] * (4 - len(idx))
        start, stop, step, axes = values
        n_default = len(start) if start is not None else \
            lens[0].lo if 0 in lens and lens[0].is_static else None
        plan = slice_plan(rank, start, stop, step, axes, n_default=n_default, has_axes=len(idx) == 4)
        ranges = {}        # axis -> (start, stop, step) with value bounds for start and stop
        starts, stops, steps = bounds.pairs(idx[0]), bounds.pairs(idx[1]), step
        if plan is not None and starts is not None and stops is not None and steps is not None \
                and len({len(starts), len(stops), len(steps), len(plan)}) == 1:
            ranges = {axis: (starts[k], stops[k], steps[k]) for k, axis in enumerate(plan)}
        dims = []
        for axis, dim in enumerate(data.shape):
            if plan is None:
                dims.append(up_to(dim))
            elif axis not in plan:
                dims.append(dim)
            else:
                t = plan[axis]
                dims.append(sliced_dim(dim, *t) if t is not None else bounded_dim(dim, *ranges[axis])
                            if axis in ranges else up_to(dim))
        return [TensorInfo(data.etype, PartialShape(dims))]

    def run(self, x: np.ndarray, *idx: np.ndarray) -> list[np.ndarray]:
        # start/stop/step/axes are constants in most models (an LLM's decode steps slice the
        # same way with a longer cache): the index of the last (shape, values) is kept, and a
        # call with the same ones skips the checks (~10 -> ~3 us a call; one entry, replaced
        # whole, so threads running the model never see half of one)
        key = (x.shape, *((a.dtype.num, a.shape, a.tobytes()) for a in idx))
        kept = self.__dict__.get("_index")
        if kept is None or kept[0] != key:
            self.__dict__["_index"] = kept = (key, _slice_index(x, idx))
        return [x[kept[1]]]


@register
class SliceScatter15(Op):
    """SliceScatter-15: inputs data, updates, start, stop, step, optional axes. A copy of ``data``
    with ``data[start:stop:step]`` (on the listed axes) replaced by ``updates``, which must have
    the shape Slice-8 of the same inputs gives (checked by Slice-8's own shape rule)."""
    category = "movement"

    type, version = "SliceScatter", "opset15"
    spec = spec_url("movement/slice-scatter-15")
    num_inputs = (5, 6)

    def infer(self, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
        data, updates, *idx = inputs
        if not (data.etype.is_dynamic or updates.etype.is_dynamic or data.etype == updates.etype):
            raise OpError("SliceScatter `updates` input must have the same type as `data`.", port="input 1")
        sliced = Slice8().infer([data, *idx])[0].shape
        if not sliced.compatible(updates.shape):
            raise OpError(f"SliceScatter updates at index 1 are not compatible with expected slice shape "
                          f"{sliced}", port="input 1")
        shape = data.shape
        if shape.rank is None and updates.shape.rank is not None:      # the rank is the updates'
            shape = PartialShape([DYN] * updates.shape.rank)
        return [TensorInfo(data.etype if not data.etype.is_dynamic else updates.etype, shape)]

    def run(self, x: np.ndarray, updates: np.ndarray, *idx: np.ndarray) -> list[np.ndarray]:
        index = _slice_index(x, idx)
        out = x.copy()
        target = out[index]
        if target.shape != updates.shape:
            raise OpError(f"SliceScatter updates shape {list(updates.shape)} is not the slice's "
                          f"shape {list(target.shape)}", port="input 1")
        out[index] = updates
        return [out]
