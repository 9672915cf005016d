"""Gelu-2 and Gelu-7: ``x * Phi(x)``, by erf (both versions) or by the tanh approximation (Gelu-7
``approximation_mode="tanh"``).
"""
from __future__ import annotations

import math

import numpy as np

from ._numerics import (
    BLOCK,
    RESTRICTION,
    check_float,
    erf,
    float_math,
)
from .base import Attr, Op, TensorInfo, spec_url
from .registry import register


def gelu_erf(v: np.ndarray) -> np.ndarray:
    """In f64, like the tanh form: OpenVINO keeps the tiny negative tail (-8e-11 at x = -6)."""
    x = v.astype(np.float64)
    return (0.5 * x * (1.0 + erf(x * (1 / math.sqrt(2))))).astype(v.dtype)


#: erfc(z) = t * exp(-z*z + P(t)), t = 1 / (1 + z/2), z >= 0: the Chebyshev fit of Numerical
#: Recipes' ``erfcc`` (Press et al., 2nd ed., §6.2), relative error below 1.2e-7 for every z.
#: The constant term carries ln(1/2), so that the exp gives erfc(z) / 2 directly.
_ERFC = (-1.26551223 - math.log(2), 1.00002368, 0.37409196, 0.09678418, -0.18628806, 0.27886807,
         -1.13520398, 1.48851587, -0.82215223, 0.17087277)


def gelu_erf_fast(v: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """Gelu(erf) of an f32 block in 30 in-place f32 passes (Cody's erf in f64 takes ~6x longer):
    with ``q = erfc(|x|/sqrt(2)) / 2`` (the normal tail beyond |x|), Gelu is ``x*q`` for x < 0
    and ``x - x*q`` for x >= 0, both ``max(x, 0) - |x|*q`` (no select: ``np.where`` is slow on
    mixed signs). The negative tail stays relatively accurate (erfc, not 1 + erf): relative
    error below 1e-5 for |x| < 7, absolute below 1e-6 everywhere — OpenVINO's CPU plugin itself
    flushes Gelu(-7) to -0.0. +-inf give NaN, as on the CPU plugin. The result goes into ``out``
    when given (``v``'s shape, f32; may be ``v`` itself: read before written).

    Pass costs measured on a 32K block (NumPy 2.4): ``1 / t`` by ``np.divide`` takes 4 us where
    ``np.reciprocal`` takes 7 (same correctly rounded quotient), ``np.maximum`` against a zero
    array 4 us where against the scalar 0 it takes 13 (a non-SIMD broadcast loop)."""
    if v.ndim == 0:                # NumPy ufuncs turn 0-d arrays into scalars: no out= on those
        res = gelu_erf_fast(v.reshape(1)).reshape(())
        if out is not None:
            out[...] = res
            return out
        return res
    ab = np.abs(v)
    z = ab * (1 / math.sqrt(2))
    t = z * 0.5
    t += 1
    np.divide(1, t, out=t)
    p = t * _ERFC[9]
    for c in _ERFC[8:0:-1]:
        p += c
        p *= t
    p += _ERFC[0]
    z *= z
    p -= z
    np.exp(p, out=p)
    p *= t                         # q
    ab *= p
    np.maximum(v, _zeros(v.shape), out=p)
    return np.subtract(p, ab, out=ab if out is None else out)


def _zeros(shape: tuple[int, ...]) -> np.ndarray:
    """A read-only contiguous f32 zero array of ``shape``: a view of one shared buffer that grows
    to the biggest block asked for (a broadcast row would make NumPy loop row by row)."""
    global _ZERO_BUFFER
    n = math.prod(shape)
    if _ZERO_BUFFER.size < n:
        grown = np.zeros(max(n, BLOCK), np.float32)
        grown.flags.writeable = False
        _ZERO_BUFFER = grown       # another thread may still read the old one: it is left as it is
    return _ZERO_BUFFER[:n].reshape(shape)


_ZERO_BUFFER = np.zeros(0, np.float32)


def gelu_tanh(v: np.ndarray) -> np.ndarray:
    """In f64. The cube as ``x * x * x``, not ``x ** 3``: NumPy's f64 power takes ~60 ns an element
    (4096 elements: 248 us of this kernel's 278), two products ~1 ns; for f32/f16/bf16 data the
    products round once (a 24-bit square is exact in f64), and the f32 results were the same on 2M
    normal values."""
    x = v.astype(np.float64)
    return (0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * (x * x * x))))).astype(v.dtype)


_GELU_TYPES = "Argument element type must be f16, bf16, f32, f64 or dynamic (got {})."


@register
class Gelu2(Op):
    """Gelu-2: ``0.5 * x * (1 + erf(x / sqrt(2)))``: f64 with Cody's erf, f32/f16/bf16 with the
    erfc fit of :func:`gelu_erf_fast` (relative error < 1e-5). No reference kernel in OpenVINO
    (the CPU plugin is the oracle)."""
    category = "elementwise"
    allocation = "inputs"        # irrun/ops/base.py: Op.allocation

    type, version = "Gelu", "opset2"
    spec = spec_url("activation/gelu-2")
    restrictions = RESTRICTION
    approximation_mode = "erf"
    inplace = (0,)
    fresh_outputs = True

    def infer(self, inputs):
        (x,) = inputs
        check_float(self.type, x.etype, _GELU_TYPES)
        return [TensorInfo(x.etype, x.shape)]

    def run(self, x, out=None):
        if self.approximation_mode == "erf":     # f64 keeps Cody's erf; f32/f16/bf16: gelu_erf_fast
            if x.dtype == np.float64:
                return [float_math(gelu_erf, x, out=out)]
            return [float_math(gelu_erf_fast, x, out=out, into=True)]   # f32: blocks written in place
        return [float_math(gelu_tanh, x, out=out)]


@register
class Gelu7(Gelu2):
    """Gelu-7: ``approximation_mode`` ``erf`` (default) or ``tanh``:
    ``0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x**3)))``."""

    version = "opset7"
    spec = spec_url("activation/gelu-7")
    attrs = {"approximation_mode": Attr("enum", "erf", choices=("erf", "tanh"))}
