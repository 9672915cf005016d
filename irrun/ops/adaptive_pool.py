"""AdaptiveAvgPool-8 and AdaptiveMaxPool-8: the average, or the maximum and where it is, of
each adaptive bin.

Bin ``i`` of an axis of ``n_in`` covers ``[floor(i*n_in/n_out),
ceil((i+1)*n_in/n_out))``. The second output holds the maximum's index in the (n, c) slice's
flattened spatial dims, in ``index_element_type``: the CPU plugin scans each bin with ``if (v >
max)`` from its first element (measured), so ties give the first, a NaN later in the bin never
wins and a NaN first in the bin stays. One shape rule for both.
"""
from __future__ import annotations

import itertools

import numpy as np

from ..errors import OpError
from ..types.elements import TYPES
from ..types.shapes import DYN, Dim, PartialShape
from ._numerics import compute_dtype, require_numeric
from .base import Attr, Op, TensorInfo, as_int64, check_index_input, spec_url
from .registry import register


def adaptive_bins(n_in: int, n_out: int) -> np.ndarray:
    """``[n_out, n_in]`` averaging matrix of adaptive pooling: bin i covers
    ``[floor(i*n_in/n_out), ceil((i+1)*n_in/n_out))``."""
    i = np.arange(n_out)
    start = (i * n_in) // n_out
    end = -((-(i + 1) * n_in) // n_out)
    j = np.arange(n_in)
    inside = (j[None, :] >= start[:, None]) & (j[None, :] < end[:, None])
    return inside / np.maximum(end - start, 1)[:, None]


@register
class AdaptiveAvgPool8(Op):
    """Bins of (nearly) equal size per spatial axis, averaged; separable, so the kernel applies
    one averaging matrix per axis (``np.tensordot``). Output sizes may exceed the input (bins
    overlap) or be 0 (empty output); a negative size is rejected (OpenVINO makes it ``?``)."""
    category = "spatial"

    type, version = "AdaptiveAvgPool", "opset8"
    spec = spec_url("pooling/adaptive-avg-pool-8")
    num_inputs = (2, 2)

    def infer(self, inputs):
        x, os_ = inputs
        require_numeric(x, self.type)
        if x.shape.rank is not None and x.shape.rank not in (3, 4, 5):
            raise OpError(f"Expected a 3D, 4D or 5D tensor for the input. Got: {x.shape}", port="input 0")
        check_index_input(os_, "input 1", f"output_shape must be an integer tensor, got {os_.etype}",
                          "output_shape must be a 1D tensor")
        if x.shape.rank is None:
            return [TensorInfo(x.etype, PartialShape(None))]
        nsp = x.shape.rank - 2
        if os_.shape.rank == 1 and os_.shape[0].is_static and os_.shape[0].lo != nsp:
            raise OpError("Output shape for spatial dimension not compatible with data shape.", port="input 1")
        spatial = [DYN] * nsp if os_.value is None else [Dim(v, v) for v in self.sizes(os_.value, nsp)]
        return [TensorInfo(x.etype, PartialShape([x.shape[0], x.shape[1], *spatial]))]

    @staticmethod
    def sizes(value: np.ndarray, nsp: int) -> list[int]:
        vals = as_int64(value).tolist()
        if len(vals) != nsp:
            raise OpError("Number of spatial dimensions is not compatible with input data rank", port="input 1")
        if any(v < 0 for v in vals):
            raise OpError(f"output_shape {vals} has a negative size (OpenVINO makes the dimension "
                          "dynamic)", port="input 1", openvino_loads=True)
        return vals

    def run(self, x, os_):
        sizes = self.sizes(os_, x.ndim - 2)
        acc = np.dtype(np.float64) if x.dtype.kind in "iub" else compute_dtype(x.dtype)
        y = x.astype(acc, copy=False)
        for i, n in enumerate(sizes):
            m = adaptive_bins(x.shape[2 + i], n).astype(acc)
            y = np.moveaxis(np.tensordot(y, m, axes=([2 + i], [1])), -1, 2 + i)
        if x.dtype.kind in "iu":
            y = np.rint(y)
        return [y.astype(x.dtype)]

def _bounds(n_in: int, n_out: int) -> list[tuple[int, int]]:
    return [((i * n_in) // n_out, -((-(i + 1) * n_in) // n_out)) for i in range(n_out)]


@register
class AdaptiveMaxPool8(AdaptiveAvgPool8):
    """AdaptiveMaxPool-8: data ``[N, C, *spatial]``, output_shape (one size per spatial axis)."""

    type, version = "AdaptiveMaxPool", "opset8"
    spec = spec_url("pooling/adaptive-max-pool-8")
    attrs = {"index_element_type": Attr("etype", TYPES["i64"])}

    def infer(self, inputs):
        if self.index_element_type.name not in ("i32", "i64"):
            raise OpError(f"Index element type must be i32 or i64. Got: {self.index_element_type}")
        out = super().infer(inputs)[0]
        return [out, TensorInfo(self.index_element_type, out.shape)]

    def run(self, x, os_):
        sizes = self.sizes(os_, x.ndim - 2)
        spatial = x.shape[2:]
        out = np.empty((*x.shape[:2], *sizes), x.dtype)
        idx = np.empty(out.shape, self.index_element_type.dtype)
        flat_index = np.arange(int(np.prod(spatial, dtype=np.int64))).reshape(spatial)
        bins = [_bounds(n, m) for n, m in zip(spatial, sizes)]
        for pos in itertools.product(*(range(m) for m in sizes)):
            window = tuple(slice(*bins[d][p]) for d, p in enumerate(pos))
            w = x[(..., *window)].reshape(*x.shape[:2], -1)
            where = flat_index[window].reshape(-1)
            if w.shape[-1] == 0:
                raise OpError("an adaptive bin is empty (a spatial input dim is 0)", port="input 0")
            vals = w.astype(np.float64) if w.dtype.kind == "f" or w.dtype.name == "bfloat16" else w
            if vals.dtype.kind == "f":        # ``if (v > max)`` from the first: a NaN first stays
                k = np.where(np.isnan(vals[..., 0]), 0, np.argmax(np.where(np.isnan(vals), -np.inf, vals), axis=-1))
            else:
                k = np.argmax(vals, axis=-1)
            out[(..., *pos)] = np.take_along_axis(w, k[..., None], -1)[..., 0]
            idx[(..., *pos)] = where[k]
        return [out, idx]
