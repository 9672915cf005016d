"""Inverse-14: the inverse of each square matrix in the last two dims (or of its transpose with
``adjoint``; the inputs are real).

Computed as OpenVINO's CPU plugin does (its reference evaluator has no Inverse): Doolittle LU with
partial pivoting (the first row of largest magnitude), then forward and back substitution per
column, in f32 (f64 for f64), vectorised over the batch. A singular matrix divides by its zero
pivot: the same inf/NaN pattern as the CPU plugin (measured), not an error.
"""
from __future__ import annotations

import numpy as np

from ..errors import OpError
from .base import Attr, Op, TensorInfo, spec_url
from .registry import register


@register
class Inverse14(Op):
    """Inverse-14; see the module docstring."""
    category = "linear"

    type, version = "Inverse", "opset14"
    spec = spec_url("matrix/inverse-14")
    attrs = {"adjoint": Attr("bool", False)}
    num_inputs = (1, 1)

    def infer(self, inputs):
        x = inputs[0]
        if not (x.etype.is_dynamic or x.etype.name in ("f32", "f16", "bf16", "f64")):
            raise OpError(f"Expected floating point type as element type for the 'data' input. Got: {x.etype}",
                          port="input 0")
        if x.shape.rank is not None:
            if x.shape.rank < 2:
                raise OpError(f"Input must be at least a 2D matrix. Got: {x.shape}", port="input 0")
            if x.shape[-1].intersect(x.shape[-2]) is None:
                raise OpError("Input must contain square matrices of the same shape.", port="input 0")
        return [TensorInfo(x.etype, x.shape)]

    def run(self, x):
        wd = np.float64 if x.dtype == np.float64 else np.float32
        a = x.astype(wd).reshape(-1, *x.shape[-2:])
        if self.adjoint:
            a = np.swapaxes(a, -1, -2)
        with np.errstate(all="ignore"):
            out = lu_inverse(a)
        return [out.reshape(x.shape).astype(x.dtype)]


def lu_inverse(a: np.ndarray) -> np.ndarray:
    """The inverses of ``a`` ``[B, n, n]`` by the CPU plugin's LU steps, in ``a``'s type."""
    B, n, _ = a.shape
    U = a.copy()
    L = np.broadcast_to(np.eye(n, dtype=a.dtype), a.shape).copy()
    P = np.broadcast_to(np.arange(n), (B, n)).copy()
    rows = np.arange(B)
    for k in range(n):
        # the CPU scans for a strictly larger magnitude: the first maximum, NaN never chosen
        col = np.abs(U[:, k:, k])
        piv = k + np.argmax(np.where(np.isnan(col), -np.inf, col), axis=1)
        piv = np.where(col[rows, piv - k] > col[:, 0], piv, k)        # (False against a NaN pivot)
        for M in (L, U):
            M[rows, k], M[rows, piv] = M[rows, piv].copy(), M[rows, k].copy()
        P[rows, k], P[rows, piv] = P[rows, piv].copy(), P[rows, k].copy()
        L[:, k + 1:, k] = U[:, k + 1:, k] / U[:, k:k + 1, k]
        U[:, k + 1:, k:] = U[:, k + 1:, k:] - L[:, k + 1:, k:k + 1] * U[:, k:k + 1, k:]
    eye = np.eye(n, dtype=a.dtype)
    Y = np.empty_like(a)
    for i in range(n):                                      # L y = P e, all columns at once
        Y[:, i] = eye[P[:, i]] - np.einsum("bj,bjc->bc", L[:, i, :i], Y[:, :i])
    X = np.empty_like(a)
    for i in range(n - 1, -1, -1):                          # U x = y
        X[:, i] = (Y[:, i] - np.einsum("bj,bjc->bc", U[:, i, i + 1:], X[:, i + 1:])) / U[:, i, i:i + 1]
    return X
