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
    length = "" if size == -1 else e.scalar(size, I64, "dft_length")
    return e.one("DFT", [x, length, e.scalar(axis, I64, "axis")], output,
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
    if 0 in sizes:
        raise Unexpressible("a signal_size of 0 (an empty transform; ONNX DFT's one-sided length would be 1)")
    x = e.one("Unsqueeze", [c.inputs[0], e.ints([-1])])
    order = [len(axes) - 1] + list(range(len(axes) - 1))
    for i, k in enumerate(order):
        x = _dft(e, x, axes[k], sizes[k], onesided=i == 0,
                 output=c.outputs[0] if i == len(order) - 1 else None)


def _hermitian_inverse(e: Emitter, x: str, n: int, rows: int, dtype, scale: float = 1.0) -> str:
    """The inverse real DFT of length ``n`` along the second-last axis of the complex ``x``
    [..., rows, 2] (its first ``rows`` <= n // 2 + 1 entries; missing ones are zeros), as two
    MatMuls with constant matrices: y[t] = (scale / n) sum_k w_k (Re x_k cos(2 pi k t / n) -
    Im x_k sin(2 pi k t / n)), w = 1 for the first and Nyquist entries (whose imaginary parts
    drop out) and 2 for the others. Returns [..., n]."""
    bins = n // 2 + 1
    k = np.arange(bins)[:, None]
    angle = 2 * np.pi * k * np.arange(n)[None, :] / n
    w = np.full((bins, 1), 2.0)
    w[0] = 1.0
    if n % 2 == 0:
        w[-1] = 1.0
    cos = (scale * w * np.cos(angle) / n)[:rows].astype(dtype)
    sin = (-scale * w * np.sin(angle) / n)[:rows].astype(dtype)
    re = e.one("Squeeze", [e.one("Slice", [x, e.ints([0]), e.ints([1]), e.ints([-1])]), e.ints([-1])])
    im = e.one("Squeeze", [e.one("Slice", [x, e.ints([1]), e.ints([2]), e.ints([-1])]), e.ints([-1])])
    return e.one("Add", [e.one("MatMul", [re, e.const(cos, "inverse_cos")]),
                         e.one("MatMul", [im, e.const(sin, "inverse_sin")])])


@converts("IRDFT")
def irdft(e: Emitter, c: Call) -> None:
    """Inverse complex DFTs over every axis but the last; the last is the Hermitian inverse
    written out as two MatMuls with constant cosine/sine matrices (see ``_hermitian_inverse``);
    n = the signal size or 2 (m - 1) for m input entries (OpenVINO's irdft.cpp: the input is
    trimmed or zero-padded to n // 2 + 1 entries)."""
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
    # the last transformed axis to the end, its used entries only: [..., min(m, n//2+1), 2]
    perm = [d for d in range(rank) if d != last] + [last, rank]
    moved = e.one("Transpose", [x], perm=perm)
    used = e.one("Slice", [moved, e.ints([0]), e.ints([min(m, n // 2 + 1)]), e.ints([-2])])
    y = _hermitian_inverse(e, used, n, min(m, n // 2 + 1), c.in_info[0].etype.dtype)
    back = [0] * rank
    for i, d in enumerate(perm[:-1]):
        back[d] = i
    e.one("Transpose", [y], c.outputs[0], perm=back)


def _frame_window(e: Emitter, c: Call, frame: int) -> str:
    """The window [W] zero-padded to the frame, centred ((frame - W) // 2 zeros before it), as
    the IR's STFT/ISTFT place it; ONNX's window has the frame's length."""
    w_dim = list(c.in_info[1].shape)[0] if c.in_info[1].shape.rank == 1 else None
    if w_dim is None or not w_dim.is_static:
        raise Unexpressible("the window's length is not static")
    before = (frame - w_dim.lo) // 2
    if before == 0 and w_dim.lo == frame:
        return c.inputs[1]
    return e.one("Pad", [c.inputs[1], e.ints([before, frame - w_dim.lo - before])])


def _scalar_const(c: Call, i: int, what: str) -> int:
    try:
        return int(np.ravel(c.const(i))[0])
    except Unexpressible:
        raise Unexpressible(f"{what} (input {i}) must be a constant") from None


@converts("STFT")
def stft(e: Emitter, c: Call) -> None:
    """ONNX STFT-17 (one-sided) on the signal as [batch, L, 1], the window centred in the frame;
    a 1-D signal gets a batch of 1, ``transpose_frames`` a Transpose of the result."""
    frame = _scalar_const(c, 2, "frame_size")
    rank = c.rank(0)
    x = e.one("Unsqueeze", [c.inputs[0], e.ints([0, 2] if rank == 1 else [2])])
    step = e.as_int64(c.inputs[3], c.in_info[3])
    y = e.one("STFT", [x, e.one("Reshape", [step, e.ints([])]), _frame_window(e, c, frame),
                       e.scalar(frame, I64, "frame_length")], onesided=1)
    if c.op.transpose_frames:
        y = e.one("Transpose", [y], perm=[0, 2, 1, 3])
    if rank == 1:
        e.one("Squeeze", [y, e.ints([0])], c.outputs[0])
    else:
        e.one("Identity", [y], c.outputs[0])


@converts("ISTFT")
def istft(e: Emitter, c: Call) -> None:
    """ONNX has no inverse STFT: each frame's inverse real FFT is two MatMuls (as IRDFT's last
    axis) times the window, overlap-added by Col2Im and divided by the overlap-added squared
    window where that is above 1e-11 (torch.istft's rule, which OpenVINO follows); ``center``
    drops frame // 2 samples at both ends, ``normalized`` multiplies by sqrt(frame_size), the
    optional signal_length cuts or zero-pads the end."""
    frame = _scalar_const(c, 2, "frame_size")
    step = _scalar_const(c, 3, "frame_step")
    rank = c.rank(0)
    dtype = c.in_info[0].etype.dtype
    data = c.inputs[0] if rank == 4 else e.one("Unsqueeze", [c.inputs[0], e.ints([0])])
    moved = e.one("Transpose", [data], perm=[0, 2, 1, 3])                    # [B, frames, bins, 2]
    frames_t = _hermitian_inverse(e, moved, frame, frame // 2 + 1, dtype,
                                  np.sqrt(frame) if c.op.normalized else 1.0)           # [B, frames, frame]
    window = _frame_window(e, c, frame)
    if c.in_info[1].etype != c.in_info[0].etype:
        window = e.one("CastLike", [window, c.inputs[0]])
    columns = e.one("Transpose", [e.one("Mul", [frames_t, window])], perm=[0, 2, 1])   # [B, frame, frames]
    n_frames = e.one("Slice", [e.one("Shape", [data]), e.ints([2]), e.ints([3])])
    full = e.one("Add", [e.one("Mul", [e.one("Sub", [n_frames, e.ints([1])]), e.ints([step])]), e.ints([frame])])
    image = e.one("Concat", [e.ints([1]), full], axis=0)
    block, strides = e.ints([1, frame]), [1, step]
    summed = e.one("Col2Im", [columns, image, block], strides=strides)        # [B, 1, 1, full]
    square = e.one("Mul", [window, window])
    square_cols = e.one("Expand", [e.one("Reshape", [square, e.ints([1, frame, 1])]),
                                   e.one("Concat", [e.ints([1, frame]), n_frames], axis=0)])
    norm = e.one("Col2Im", [square_cols, image, block], strides=strides)      # [1, 1, 1, full]
    ok = e.one("Greater", [norm, e.scalar(1e-11, c.in_info[0].etype)])
    zero = e.scalar(0, c.in_info[0].etype)
    out = e.where(ok, e.one("Div", [summed, e.where(ok, norm, e.scalar(1, c.in_info[0].etype),
                                                     c.in_info[0].etype)]), zero, c.in_info[0].etype)
    out = e.one("Reshape", [out, e.ints([0, -1])])                              # [B, full]
    if c.op.center:
        half = frame // 2
        out = e.one("Slice", [out, e.ints([half]), e.one("Sub", [full, e.ints([half])]), e.ints([1])])
    if len(c.inputs) > 4:
        n = e.one("Reshape", [e.as_int64(c.inputs[4], c.in_info[4]), e.ints([1])])
        have = e.one("Slice", [e.one("Shape", [out]), e.ints([1]), e.ints([2])])
        pad = e.one("Max", [e.one("Sub", [n, have]), e.ints([0])])
        out = e.one("Pad", [out, e.one("Concat", [e.ints([0, 0, 0]), pad], axis=0)])
        out = e.one("Slice", [out, e.ints([0]), n, e.ints([1])])
    if rank == 3:
        e.one("Squeeze", [out, e.ints([0])], c.outputs[0])
    else:
        e.one("Identity", [out], c.outputs[0])
