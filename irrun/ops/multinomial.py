"""Multinomial-13: class indices sampled from per-batch (log-)probabilities, with OpenVINO's random
stream.

As OpenVINO's reference kernel: the cumulative sums of each row (``exp`` first with
``log_probs``), divided by the row's total, are searched with uniform samples drawn by
RandomUniform-8's Philox stream (same seeds, the probabilities' type, one per output element); a
sample takes the first class whose cumulative value is >= it. Without replacement the chosen
class's probability is removed from the row's cdf, which is renormalised, after each sample. All
arithmetic is in the probabilities' type. Seeds 0/0 are non-deterministic, as in RandomUniform.

OpenVINO's CPU plugin draws its samples from ``std::mt19937`` instead (its source says "TODO:
should use RandomUniform kernel"), so its samples differ from the reference kernel's and irrun's;
the tests check irrun against the reference rule with the Philox numbers OpenVINO's RandomUniform
produces (tests/ops/test_multinomial.py).
"""
from __future__ import annotations

import secrets

import numpy as np

from ..errors import OpError
from ..types.shapes import DYN, Dim, PartialShape
from ._random import uniform
from .base import Attr, Op, TensorInfo, as_int64, spec_url
from .registry import register


def _count(info: TensorInfo) -> int | None:
    if not (info.etype.is_dynamic or info.etype.name in ("i32", "i64")):
        raise OpError(f"Expected integer type as element type for the 'num_samples' input. Got: {info.etype}",
                      port="input 1")
    if info.shape.rank not in (None, 0) and not (info.shape.rank == 1 and info.shape[0].intersect(Dim(1, 1))):
        raise OpError(f"Number of samples must be a scalar or one element 1D tensor. Got: {info.shape}", port="input 1")
    return None if info.value is None else int(as_int64(info.value).reshape(-1)[0])


@register
class Multinomial13(Op):
    """Multinomial-13: probs ``[batch, classes]``, num_samples -> ``[batch, num_samples]``."""
    category = "shape"

    type, version = "Multinomial", "opset13"
    spec = spec_url("generation/multinomial-13")
    attrs = {"convert_type": Attr("etype", required=True), "with_replacement": Attr("bool", required=True, default=False),
             "log_probs": Attr("bool", required=True, default=False), "global_seed": Attr("int", 0),
             "op_seed": Attr("int", 0)}
    num_inputs = (2, 2)

    def infer(self, inputs):
        probs, num = inputs
        if self.convert_type.name not in ("i32", "i64"):
            raise OpError(f"Output type must be i32 or i64. Got: {self.convert_type}")
        if not (probs.etype.is_dynamic or probs.etype.name in ("f32", "f16", "bf16", "f64")):
            raise OpError(f"Expected floating point type as element type for the 'probs' input. Got: {probs.etype}",
                          port="input 0")
        if probs.shape.rank not in (None, 2):          # the spec allows 1-D; OpenVINO 2026 does not
            raise OpError("Input probabilities must be a 2D tensor.", port="input 0")
        n = _count(num)
        if n is not None and n < 0:
            raise OpError(f"Number of samples must be non-negative. Got: {n}", port="input 1")
        samples = Dim.of(n) if n is not None else DYN
        if probs.shape.rank is None:
            return [TensorInfo(self.convert_type, PartialShape(None))]
        return [TensorInfo(self.convert_type, PartialShape([probs.shape[0], samples]))]

    def run(self, probs, num):
        n = int(as_int64(num).reshape(-1)[0])
        classes = probs.shape[-1]
        rows = probs.reshape(-1, classes)
        if n < 0 or (not self.with_replacement and n > classes):
            raise OpError(f"cannot draw {n} samples from {classes} classes "
                          f"{'with' if self.with_replacement else 'without'} replacement", port="input 1")
        dt = probs.dtype
        g, o = self.global_seed & ((1 << 64) - 1), self.op_seed & ((1 << 64) - 1)
        if g == 0 and o == 0:
            g = secrets.randbits(32)
        et = {np.dtype(np.float64): "f64", np.dtype(np.float16): "f16", np.dtype(np.float32): "f32"}.get(dt, "bf16")
        out_shape = (*probs.shape[:-1], n)
        u = uniform(out_shape, et, 0, 1, g, o).reshape(rows.shape[0], n)
        with np.errstate(all="ignore"):
            vals = np.exp(rows) if self.log_probs else rows
            cdf = np.cumsum(vals, axis=1, dtype=dt)
            cdf = (cdf / cdf[:, -1:]).astype(dt)
        out = np.zeros((rows.shape[0], n), np.int64)
        one = dt.type(1)
        for b in range(rows.shape[0]):
            c = cdf[b].copy()
            for j in range(n):
                hit = np.flatnonzero(u[b, j] <= c)
                k = int(hit[0]) if hit.size else classes
                out[b, j] = k if hit.size else 0
                if not self.with_replacement and k < classes:
                    p = c[k] - c[k - 1] if k else c[0]
                    with np.errstate(all="ignore"):
                        c[k:] = (c[k:] - p).astype(dt)
                        c = (c / (one - p)).astype(dt)
        return [out.reshape(out_shape).astype(self.convert_type.dtype)]
