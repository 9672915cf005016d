"""STFT-15 and ISTFT-16: the short-time Fourier transform of a real signal and its inverse.

STFT: signal ``[L]`` or ``[B, L]``, window ``[W]`` (``W <= frame_size``; centred in the frame,
``(frame_size - W) // 2`` zeros before it), frame_size and frame_step scalars. Frame ``t`` is
``signal[t*step : t*step + frame_size] * window``; its real FFT gives ``frame_size//2 + 1`` bins.
Output ``[B?, frames, bins, 2]`` (real, imaginary), or ``[B?, bins, frames, 2]`` with
``transpose_frames``; ``frames = (L - frame_size) // step + 1``.

ISTFT inverts it as ``torch.istft`` does: the inverse real FFT of each frame (``[B?, bins, frames,
2]``), times the window, overlap-added and divided by the overlap-added squared window (where it
is not ~0); ``center`` drops ``frame_size // 2`` samples at both ends; ``normalized`` multiplies by
``sqrt(frame_size)``; the optional signal_length cuts or zero-pads the result.
"""
from __future__ import annotations

import numpy as np

from ..errors import OpError
from ..limits.memory import check_alloc
from ..types.shapes import DYN, Dim, PartialShape
from .base import Attr, Op, TensorInfo, as_int64, spec_url
from .registry import register


def _scalar(info: TensorInfo, what: str, port: int) -> int | None:
    if not (info.etype.is_dynamic or info.etype.name in ("i32", "i64")):
        raise OpError(f"The {what} must be i32 or i64. Got: {info.etype}", port=f"input {port}")
    if info.shape.rank not in (None, 0):
        raise OpError(f"The shape of {what} must be a scalar, got: {info.shape}", port=f"input {port}")
    return None if info.value is None else int(as_int64(info.value))


def _check_float(info: TensorInfo, port: int) -> None:
    if not (info.etype.is_dynamic or info.etype.is_float):
        raise OpError(f"Expected floating point type of the input. Got: {info.etype}", port=f"input {port}")


def padded_window(window: np.ndarray, frame: int) -> np.ndarray:
    if window.shape[0] > frame:
        raise OpError(f"Window size ({window.shape[0]}) is bigger than frame size ({frame})", port="input 1")
    out = np.zeros(frame, np.float64)
    start = (frame - window.shape[0]) // 2
    out[start:start + window.shape[0]] = window
    return out


@register
class STFT15(Op):
    """STFT-15; see the module docstring."""
    category = "detection"

    type, version = "STFT", "opset15"
    spec = spec_url("signals/stft-15")
    attrs = {"transpose_frames": Attr("bool", required=True, default=False)}
    num_inputs = (4, 4)

    def infer(self, inputs):
        signal, window, frame_i, step_i = inputs
        _check_float(signal, 0)
        _check_float(window, 1)
        if signal.shape.rank not in (None, 1, 2):
            raise OpError(f"The shape of signal must be 1D [signal_size] or 2D [batch, signal_size]. Got: "
                          f"{signal.shape}", port="input 0")
        if window.shape.rank not in (None, 1):
            raise OpError(f"The shape of window must be 1D [window_size]. Got: {window.shape}", port="input 1")
        frame, step = _scalar(frame_i, "frame_size", 2), _scalar(step_i, "frame_step", 3)
        if signal.shape.rank is None:
            return [TensorInfo(signal.etype, PartialShape(None))]
        L = signal.shape[-1]
        if frame is not None and step is not None:
            if frame <= 0 or step <= 0:
                raise OpError(f"Provided frame size and step must be greater than 0. Got: {frame}, {step}")
            if L.hi is not None and frame > L.hi:
                raise OpError(f"Provided frame size is {frame} but must be in range [1, {L}].", port="input 2")
            frames = Dim((max(L.lo, frame) - frame) // step + 1, None if L.hi is None else (L.hi - frame) // step + 1)
            bins = Dim.of(frame // 2 + 1)
        else:
            frames = bins = DYN
        dims = [bins, frames] if self.transpose_frames else [frames, bins]
        return [TensorInfo(signal.etype, PartialShape([*list(signal.shape)[:-1], *dims, Dim(2, 2)]))]

    def run(self, signal, window, frame, step):
        frame, step = int(as_int64(frame)), int(as_int64(step))
        if frame <= 0 or step <= 0 or frame > signal.shape[-1]:
            raise OpError(f"frame_size {frame} and frame_step {step} do not fit a signal of {signal.shape[-1]}")
        win = padded_window(window.astype(np.float64), frame)
        x = signal.astype(np.float64).reshape(-1, signal.shape[-1])
        frames = (x.shape[1] - frame) // step + 1
        check_alloc((x.shape[0], frames, frame // 2 + 1, 2), signal.dtype)
        idx = np.arange(frames)[:, None] * step + np.arange(frame)[None, :]
        spec = np.fft.rfft(x[:, idx] * win, axis=-1)               # [B, frames, bins]
        if self.transpose_frames:
            spec = np.swapaxes(spec, 1, 2)
        out = np.stack([spec.real, spec.imag], axis=-1).reshape(*signal.shape[:-1], *spec.shape[1:], 2)
        return [out.astype(signal.dtype)]


@register
class ISTFT16(Op):
    """ISTFT-16; see the module docstring."""
    category = "detection"

    type, version = "ISTFT", "opset16"
    spec = spec_url("signals/istft-16")
    attrs = {"center": Attr("bool", required=True, default=False),
             "normalized": Attr("bool", required=True, default=False)}
    num_inputs = (4, 5)

    def infer(self, inputs):
        data, window, frame_i, step_i, *length = inputs
        _check_float(data, 0)
        _check_float(window, 1)
        if data.shape.rank not in (None, 3, 4):
            raise OpError(f"The shape of data must be 3D or 4D. Got: {data.shape}", port="input 0")
        if data.shape.rank is not None and data.shape[-1].intersect(Dim(2, 2)) is None:
            raise OpError(f"The last dimension of data must be 2 (real, imaginary). Got: {data.shape}", port="input 0")
        frame, step = _scalar(frame_i, "frame_size", 2), _scalar(step_i, "frame_step", 3)
        n = _scalar(length[0], "signal_length", 4) if length else None
        if data.shape.rank is None:
            return [TensorInfo(data.etype, PartialShape(None))]
        batch = list(data.shape)[:-3]
        if n is not None:
            return [TensorInfo(data.etype, PartialShape([*batch, Dim.of(n)]))]
        frames = data.shape[-2]
        if frame is None or step is None or length:
            return [TensorInfo(data.etype, PartialShape([*batch, DYN]))]
        full = lambda f: (f - 1) * step + frame  # noqa: E731
        lo = full(max(frames.lo, 1)) - (frame // 2 * 2 if self.center else 0)
        hi = None if frames.hi is None else full(frames.hi) - (frame // 2 * 2 if self.center else 0)
        return [TensorInfo(data.etype, PartialShape([*batch, Dim(max(lo, 0), hi)]))]

    def run(self, data, window, frame, step, length=None):
        frame, step = int(as_int64(frame)), int(as_int64(step))
        if frame <= 0 or step <= 0 or data.shape[-3] != frame // 2 + 1:
            raise OpError(f"data {list(data.shape)} does not fit frame_size {frame} and frame_step {step}",
                          port="input 0")
        win = padded_window(window.astype(np.float64), frame)
        spec = data.astype(np.float64).reshape(-1, *data.shape[-3:])
        B, _, frames, _ = spec.shape
        full = (frames - 1) * step + frame
        check_alloc((B, full), np.dtype(np.float64))
        frames_t = np.fft.irfft(spec[..., 0] + 1j * spec[..., 1], n=frame, axis=1)   # [B, frame, frames]
        if self.normalized:
            frames_t *= np.sqrt(frame)
        out = np.zeros((B, full))
        norm = np.zeros(full)
        for t in range(frames):
            out[:, t * step:t * step + frame] += frames_t[:, :, t] * win
            norm[t * step:t * step + frame] += win * win
        out = np.where(norm > 1e-11, out / np.where(norm > 1e-11, norm, 1), 0)
        if self.center:
            out = out[:, frame // 2:full - frame // 2]
        if length is not None:
            n = int(as_int64(length))
            if n < 0:
                raise OpError(f"signal_length {n} is negative", port="input 4")
            check_alloc((B, n), data.dtype)
            out = out[:, :n] if n <= out.shape[1] else np.pad(out, ((0, 0), (0, n - out.shape[1])))
        return [out.reshape(*data.shape[:-3], out.shape[1]).astype(data.dtype)]
