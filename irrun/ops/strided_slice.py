"""StridedSlice-1: NumPy-style basic indexing driven by begin/end/stride and five masks.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..errors import OpError
from ..types.shapes import Dim, PartialShape
from . import bounds
from ._slicing import INT64_MAX, INT64_MIN, bounded_dim, clamp_slice, index_values, sliced_dim, up_to
from .base import Attr, Op, TensorInfo, check_index_input, spec_url
from .registry import register

_MASKS = ("begin_mask", "end_mask", "new_axis_mask", "shrink_axis_mask", "ellipsis_mask")
_TOO_LONG = ("Input rank plus number of new axis has to be at least the size of Lower and Upper "
             "bounds vector.")


@register
class StridedSlice1(Op):
    """Entry ``i`` of begin/end/stride becomes one item of a NumPy index:

    * ``ellipsis_mask[i]`` -> ``...`` (the dims not addressed by the other non-new-axis entries);
    * else ``new_axis_mask[i]`` -> ``np.newaxis`` (so new-axis beats shrink; begin/end/stride unused);
    * else ``shrink_axis_mask[i]`` -> the integer ``begin[i]`` (begin_mask, end and stride unused;
      out of range is an error: OpenVINO loads such a layer but its evaluation fails);
    * else ``begin[i]:end[i]:stride[i]`` with the clamping of Slice-8 (a negative stride takes
      element 0 when the start is below ``-dim``); a mask bit 1 means *ignore the value*:
      begin_mask -> from the first element (the last for a negative stride), end_mask -> through
      the last (the first).

    Dims after the last entry are kept whole. Missing mask bits are 0; bits past ``len(begin)``
    are ignored. Every non-empty mask must be as long as ``begin_mask``. Ellipsis together with
    new-axis or shrink on the same entry is rejected: OpenVINO's shape inference and evaluator
    disagree on it (wrong shapes, out-of-range errors, once a heap abort). The stride input may be
    omitted (all 1); OpenVINO accepts a float stride (truncated), and so does irrun.

    Shape rule: exact intervals for known begin, end and stride (a masked begin/end needs no
    value); begin/end known only as value bounds, or not at all (any value, as OpenVINO reads
    them), give the range of Slice-8's ``bounded_dim``: at most ``ceil(upper / |stride|)``, or
    ``0..upper`` when the stride is not known either; shrink removes its dim even when begin is
    unknown; when the number of entries is unknown, or the data rank is dynamic, the output rank
    is dynamic.
    The kernel is basic indexing, so the output is a view (0-d when every dim is shrunk).
    """
    category = "movement"
    allocation = "inputs"        # irrun/ops/base.py: Op.allocation

    type, version = "StridedSlice", "opset1"
    spec = spec_url("movement/strided-slice-1")
    attrs = {"begin_mask": Attr("ints", [], required=True), "end_mask": Attr("ints", [], required=True),
             "new_axis_mask": Attr("ints", []), "shrink_axis_mask": Attr("ints", []),
             "ellipsis_mask": Attr("ints", [])}
    num_inputs = (3, 4)
    moves_values = (0,)          # value bounds pass through (irrun/ops/bounds.py)

    def __init__(self, **attrs):
        super().__init__(**attrs)
        masks = [getattr(self, m) for m in _MASKS]
        if any(v not in (0, 1) for m in masks for v in m):
            raise OpError("All masks of StridedSlice must have be 0 or 1")
        if any(len(m) not in (0, len(self.begin_mask)) for m in masks):
            raise OpError("All masks of StridedSlice must have the same size")
        if sum(self.ellipsis_mask) > 1:
            raise OpError("At most one ellipsis is allowed.")

    def _bit(self, mask: str, i: int) -> bool:
        m = getattr(self, mask)
        return i < len(m) and m[i] == 1

    def plan(self, dims: Sequence[Dim] | Sequence[int], n: int, begin: list[int] | None, end: list[int] | None,
             stride: list[int] | None) -> list[tuple]:
        """The index as steps over the input dims, checked as OpenVINO checks (plus what it accepts
        but cannot run). Shared by ``infer`` (dims are :class:`Dim`) and ``run`` (ints); unknown
        values are None. Steps: ``("keep", axis)``, ``("new",)``, ``("shrink", axis, index|None)``,
        ``("slice", axis, (start, stop, step)|None, entry)``.
        """
        if any(v is not None and len(v) != n for v in (begin, end)):
            raise OpError("Begin and end need to have same number of values.")
        if stride is not None and len(stride) != n:
            raise OpError("Stride needs to have same number of values as begin and end.")
        kinds = []
        for i in range(n):
            ell, new, shrink = (self._bit(m, i) for m in ("ellipsis_mask", "new_axis_mask", "shrink_axis_mask"))
            if ell and (new or shrink):
                other = "new_axis_mask" if new else "shrink_axis_mask"
                raise OpError(f"ellipsis_mask and {other} are both set for entry {i}: OpenVINO's shape "
                              f"inference and evaluation disagree on it")
            kinds.append("ellipsis" if ell else "new" if new else "shrink" if shrink else "slice")
        real = sum(k in ("shrink", "slice") for k in kinds)
        rank = len(dims)
        if real > rank:
            raise OpError(_TOO_LONG)
        steps: list[tuple] = []
        axis = 0
        for i, kind in enumerate(kinds):
            if kind == "ellipsis":
                steps += [("keep", a) for a in range(axis, axis + rank - real)]
                axis += rank - real
            elif kind == "new":
                steps.append(("new",))
            elif kind == "shrink":
                index = None if begin is None else _shrink_index(begin[i], dims[axis], axis)
                steps.append(("shrink", axis, index))
                axis += 1
            else:
                if stride is not None and stride[i] == 0:
                    raise OpError("Stride must be non-zero")
                triple = None
                if begin is not None and end is not None and stride is not None:
                    s = stride[i]
                    start = (INT64_MAX if s < 0 else INT64_MIN) if self._bit("begin_mask", i) else begin[i]
                    stop = (INT64_MIN if s < 0 else INT64_MAX) if self._bit("end_mask", i) else end[i]
                    triple = (start, stop, s)
                steps.append(("slice", axis, triple, i))
                axis += 1
        return steps + [("keep", a) for a in range(axis, rank)]

    def infer(self, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
        data, *idx = inputs
        for i, (what, info) in enumerate(zip(("Begin", "End"), idx)):
            check_index_input(info, f"input {i + 1}",
                              f"{what} mask must be an integral number, but is: {info.etype}")
        stride_dtype = idx[2].etype.dtype if len(idx) == 3 else None        # None: dynamic
        if stride_dtype is not None and stride_dtype.kind not in "iufb":
            raise OpError(f"Strides must be numbers, got {idx[2].etype}", port="input 3")
        for i, (what, info) in enumerate(zip(("Begin", "End", "Strides"), idx)):
            check_index_input(info, f"input {i + 1}", None,
                              f"{what} input must be 1D (has rank: {info.shape.rank})")
        dims = data.shape.dims
        if dims is None:
            return [TensorInfo(data.etype, PartialShape(None))]
        lens = {i: info.shape[0] for i, info in enumerate(idx) if info.shape.rank == 1}  # 0 = begin
        if 0 in lens and 1 in lens and lens[0].intersect(lens[1]) is None:
            raise OpError("Begin and end need to have same number of values.")
        if 2 in lens and any(d.intersect(lens[2]) is None for i, d in lens.items() if i < 2):
            raise OpError("Stride needs to have same number of values as begin and end.")
        static = [d.lo for d in lens.values() if d.is_static]
        begin, end, stride = ([None if i.value is None else index_values(i.value) for i in idx] + [None])[:3]
        if len(idx) == 2 and begin is not None:
            stride = [1] * len(begin)
        if not static:
            return [TensorInfo(data.etype, PartialShape(None))]
        # begin/end as (lo, hi) per entry: values, value bounds (irrun/ops/bounds.py), or any value
        # (OpenVINO too reads an unknown begin/end as its type's whole range: stride 2 leaves at
        # most half a dim)
        anything = [(bounds.NEG_UNBOUNDED, None)] * static[0]
        starts, ends = (p if p is not None and len(p) == static[0] else anything
                        for p in (bounds.pairs(idx[0]), bounds.pairs(idx[1])))
        out = []
        for step in self.plan(dims, static[0], begin, end, stride):
            if step[0] == "keep":
                out.append(data.shape[step[1]])
            elif step[0] == "new":
                out.append(Dim.of(1))
            elif step[0] == "slice":
                dim = data.shape[step[1]]
                if step[2] is not None:
                    out.append(sliced_dim(dim, *step[2]))
                    continue
                i = step[3]          # a masked begin/end needs no value
                s = stride[i] if stride is not None else None
                if s is None:
                    out.append(up_to(dim))
                    continue
                start = ((INT64_MAX if s < 0 else INT64_MIN),) * 2 if self._bit("begin_mask", i) else starts[i]
                stop = ((INT64_MIN if s < 0 else INT64_MAX),) * 2 if self._bit("end_mask", i) else ends[i]
                out.append(bounded_dim(dim, start, stop, s))
        return [TensorInfo(data.etype, PartialShape(out))]

    def run(self, x: np.ndarray, begin: np.ndarray, end: np.ndarray, stride: np.ndarray | None = None
            ) -> list[np.ndarray]:
        b, e = index_values(begin), index_values(end)
        s = [1] * len(b) if stride is None else index_values(stride)
        index: list = []
        for step in self.plan(x.shape, len(b), b, e, s):
            if step[0] == "keep":
                index.append(slice(None))
            elif step[0] == "new":
                index.append(None)
            elif step[0] == "shrink":
                index.append(step[2])
            else:
                index.append(clamp_slice(x.shape[step[1]], *step[2])[0])
        return [x[tuple(index) + (Ellipsis,)]]


def _shrink_index(b: int, dim: "Dim | int", axis: int) -> int:
    """A shrink index normalised to ``0..n-1``; out of range (for every size ``dim`` allows) is an
    error. For a partial dim the index is returned as given and checked again at run time."""
    if isinstance(dim, Dim):
        if dim.hi is not None and not -dim.hi <= b < dim.hi:
            raise OpError(f"shrink_axis_mask index {b} is out of range for axis {axis} of size {dim} "
                          f"(OpenVINO loads this layer but its evaluation fails)", openvino_loads=True)
        return b
    if not -dim <= b < dim:
        raise OpError(f"shrink_axis_mask index {b} is out of range for axis {axis} of size {dim} "
                      f"(OpenVINO loads this layer but its evaluation fails)", openvino_loads=True)
    return b + dim if b < 0 else b
