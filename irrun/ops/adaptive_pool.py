"""AdaptiveMaxPool-8: the maximum of each adaptive bin, and where it is.

Spec: https://docs.openvino.ai/2026/documentation/openvino-ir-format/operation-sets/operation-specs/pooling/adaptive-max-pool-8.html

Bins as AdaptiveAvgPool-8's: bin ``i`` of an axis of ``n_in`` covers ``[floor(i*n_in/n_out),
ceil((i+1)*n_in/n_out))``. The second output holds the maximum's index in the (n, c) slice's
flattened spatial dims, in ``index_element_type``: the CPU plugin scans each bin with ``if (v >
max)`` from its first element (measured), so ties give the first, a NaN later in the bin never
wins and a NaN first in the bin stays. The shape rule is AdaptiveAvgPool-8's.
"""
from __future__ import annotations

import itertools

import numpy as np

from ..elements import TYPES
from ..errors import OpError
from .base import Attr, TensorInfo
from .pooling import AdaptiveAvgPool
from .registry import register


def _bounds(n_in: int, n_out: int) -> list[tuple[int, int]]:
    return [((i * n_in) // n_out, -((-(i + 1) * n_in) // n_out)) for i in range(n_out)]


@register
class AdaptiveMaxPool(AdaptiveAvgPool):
    """AdaptiveMaxPool-8: data ``[N, C, *spatial]``, output_shape (one size per spatial axis)."""

    type, version = "AdaptiveMaxPool", "opset8"
    spec = "https://docs.openvino.ai/2026/documentation/openvino-ir-format/operation-sets/operation-specs/pooling/adaptive-max-pool-8.html"
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
