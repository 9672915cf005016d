"""ONNX forms of the Fourier transforms: DFT-7, IDFT-7, RDFT-9, IRDFT-9, STFT-15, ISTFT-16.

Both formats hold a complex tensor as a real one whose last dim is 2 (real, imaginary), so the
layouts agree; ONNX DFT-20 transforms one axis per node, with ``dft_length`` padding or trimming
that axis first, as the IR's ``signal_size``. Transforms over several axes are one DFT node per
axis: they are separable, so the order does not matter except where a real signal is involved
(RDFT transforms its last axis first, one-sided; IRDFT its last axis last, see :func:`irdft`).
Axes and signal sizes must be constants (ONNX takes one axis per node, and the Hermitian length
of IRDFT decides the output shape).
"""
from __future__ import annotations

import numpy as np

from ..types import elements
from .emitter import Call, Emitter, Unexpressible
from .table import converts

I64 = elements.TYPES["i64"]


def _axes_sizes(c: Call, complex_input: bool) -> tuple[list[int], list[int]]:
    """The normalised axes and signal sizes (-1: the axis' own size) of an FFT layer."""
    rank = c.rank(0) - (1 if complex_input else 0)
    axes = [int(a) % rank for a in np.ravel(c.const(1))]
    sizes = [int(s) for s in np.ravel(c.const(2))] if len(c.inputs) > 2 else [-1] * len(axes)
    if not axes:
        raise Unexpressible("an empty 'axes'")
    return axes, sizes


def _dft(e: Emitter, x: str, axis: int, size: int, inverse: bool = False, onesided: bool = False,
         output: str | None = None) -> str:
    """One ONNX DFT-20 node over ``axis`` (of a [..., 1 or 2] tensor), ``size`` -1: the axis' own."""
    length = "" if size == -1 else e.const(np.int64(size), "dft_length")
    return e.one("DFT", [x, length, e.const(np.int64(axis), "axis")], output,
                 inverse=int(inverse), onesided=int(onesided))


@converts("DFT", "IDFT")
def dft(e: Emitter, c: Call) -> None:
    """One ONNX DFT-20 per axis (``inverse`` for IDFT, scaled by 1/N as the IR's),
    ``dft_length`` = the axis' signal size."""
    axes, sizes = _axes_sizes(c, complex_input=True)
    x = c.inputs[0]
    for i, (a, s) in enumerate(zip(axes, sizes)):
        x = _dft(e, x, a, s, inverse=c.op.type == "IDFT", output=c.outputs[0] if i == len(axes) - 1 else None)


@converts("RDFT")
def rdft(e: Emitter, c: Call) -> None:
    """The real signal gets a last dim of 1 (ONNX's real layout); the last axis is transformed
    first, one-sided (n // 2 + 1 entries), then the others as complex DFTs."""
    axes, sizes = _axes_sizes(c, complex_input=False)
    x = e.one("Unsqueeze", [c.inputs[0], e.ints([-1])])
    order = [len(axes) - 1] + list(range(len(axes) - 1))
    for i, k in enumerate(order):
        x = _dft(e, x, axes[k], sizes[k], onesided=i == 0,
                 output=c.outputs[0] if i == len(order) - 1 else None)


@converts("IRDFT")
def irdft(e: Emitter, c: Call) -> None:
    """Inverse complex DFTs over every axis but the last; the last is the Hermitian inverse
    written out as two MatMuls with constant cosine/sine matrices: y[t] = (1/n) sum_k w_k
    (Re c_k cos(2 pi k t / n) - Im c_k sin(2 pi k t / n)), w = 1 for the first and Nyquist
    entries (whose imaginary parts drop out) and 2 for the others; n = the signal size or
    2 (m - 1) for m input entries (OpenVINO's irdft.cpp: the input is trimmed or zero-padded to
    n // 2 + 1 entries)."""
    axes, sizes = _axes_sizes(c, complex_input=True)
    x = c.inputs[0]
    for a, s in zip(axes[:-1], sizes[:-1]):
        x = _dft(e, x, a, s, inverse=True)
    last = axes[-1]
    rank = c.rank(0) - 1
    m_dim = list(c.in_info[0].shape)[last]
    if not m_dim.is_static:
        raise Unexpressible("the last transformed axis is dynamic (its length decides the output's)")
    m = m_dim.lo
    n = sizes[-1] if sizes[-1] != -1 else max(2 * (m - 1), 0)
    k_count = n // 2 + 1
    k = np.arange(k_count)[:, None]
    t = np.arange(n)[None, :]
    w = np.full((k_count, 1), 2.0)
    w[0] = 1.0
    if n % 2 == 0:
        w[-1] = 1.0
    angle = 2 * np.pi * k * t / n
    dtype = c.in_info[0].etype.dtype
    cos = (w * np.cos(angle) / n)[: min(m, k_count)].astype(dtype)
    sin = (-w * np.sin(angle) / n)[: min(m, k_count)].astype(dtype)
    # the last transformed axis to the end, its used entries only: [..., min(m, n//2+1), 2]
    perm = [d for d in range(rank) if d != last] + [last, rank]
    moved = e.one("Transpose", [x], perm=perm)
    used = e.one("Slice", [moved, e.ints([0]), e.ints([min(m, k_count)]), e.ints([-2])])
    re = e.one("Squeeze", [e.one("Slice", [used, e.ints([0]), e.ints([1]), e.ints([-1])]), e.ints([-1])])
    im = e.one("Squeeze", [e.one("Slice", [used, e.ints([1]), e.ints([2]), e.ints([-1])]), e.ints([-1])])
    y = e.one("Add", [e.one("MatMul", [re, e.const(cos, "irdft_cos")]),
                      e.one("MatMul", [im, e.const(sin, "irdft_sin")])])
    back = [0] * rank
    for i, d in enumerate(perm[:-1]):
        back[d] = i
    e.one("Transpose", [y], c.outputs[0], perm=back)
