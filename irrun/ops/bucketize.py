"""Bucketize-3: the index of the bucket each element falls into (a binary search over sorted boundaries).


With ``with_right_bound`` (default) bucket ``i`` is ``(b[i-1], b[i]]`` (``np.searchsorted``
side left), else ``[b[i-1], b[i])`` (side right); empty ``buckets`` put everything in bucket 0.
Data and buckets may have different numeric types (compared in int64 when both are integers,
else in f64). NaN data
lands in bucket 0 with ``with_right_bound`` (``std::lower_bound``), in the last bucket without
(``std::upper_bound``) — measured on the CPU plugin, the only evaluator (no reference kernel).
OpenVINO accepts unsorted buckets and returns whatever its binary search finds; irrun refuses them.
"""
from __future__ import annotations

import numpy as np

from ..errors import OpError
from ..types.elements import TYPES
from .base import Attr, Op, TensorInfo, spec_url
from .registry import register


def _numeric(et) -> bool:
    return et.is_dynamic or et.is_integer or et.is_float


def _common(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Both in one comparable type: as they are when equal, int64 for other integers (f64 with
    a u64 among them), else f64."""
    if a.dtype == b.dtype and a.dtype.kind in "iuf":
        return a, b
    if a.dtype.kind in "iu" and b.dtype.kind in "iu" and np.dtype(np.uint64) not in (a.dtype, b.dtype):
        return a.astype(np.int64), b.astype(np.int64)
    return a.astype(np.float64), b.astype(np.float64)


def check_sorted(buckets: np.ndarray) -> None:
    """OpenVINO binary-searches whatever it gets; irrun wants ascending boundaries."""
    b = buckets.astype(np.float64) if buckets.dtype.kind not in "iu" else buckets
    if b.size > 1 and np.any(b[1:] < b[:-1]):
        raise OpError("the buckets are not sorted in ascending order (OpenVINO's binary search "
                      "returns undefined buckets)", port="input 1", openvino_loads=True)


@register
class Bucketize3(Op):
    """Bucketize-3; see the module docstring."""
    category = "elementwise"

    type, version = "Bucketize", "opset3"
    spec = spec_url("condition/bucketize-3")
    attrs = {"output_type": Attr("etype", TYPES["i64"]), "with_right_bound": Attr("bool", True)}
    num_inputs = (2, 2)

    def infer(self, inputs):
        x, buckets = inputs
        if self.output_type.name not in ("i32", "i64"):
            raise OpError(f"Output type must be i32 or i64. Got: {self.output_type}")
        if not _numeric(x.etype) or x.etype.name == "nf4":
            raise OpError(f"Data input type must be numeric. Got: {x.etype}", port="input 0")
        if not _numeric(buckets.etype) or buckets.etype.name == "nf4":
            raise OpError(f"Buckets input type must be numeric. Got: {buckets.etype}", port="input 1")
        if buckets.shape.rank not in (None, 1):
            raise OpError(f"Buckets input must be a 1D tensor. Got: {buckets.shape}", port="input 1")
        if buckets.value is not None:
            check_sorted(buckets.value)
        return [TensorInfo(self.output_type, x.shape)]

    def run(self, x, buckets):
        check_sorted(buckets)
        v, b = _common(x, buckets)
        side = "left" if self.with_right_bound else "right"
        out = np.asarray(np.searchsorted(b, v, side=side))      # 0-d data: a scalar otherwise
        if self.with_right_bound and v.dtype.kind == "f":
            out[np.isnan(v)] = 0            # std::lower_bound: NaN is below everything
        return [out.astype(self.output_type.dtype)]
