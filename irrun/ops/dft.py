"""DFT-7, IDFT-7, RDFT-9, IRDFT-9: discrete Fourier transforms over chosen axes (np.fft).

Complex tensors are real ones with a last dimension of 2 (real, imaginary). DFT/IDFT are
complex-to-complex (``fftn`` / ``ifftn``, the inverse scaled by 1/N), RDFT real-to-complex
(``rfftn``: the last transformed axis keeps ``n // 2 + 1`` entries), IRDFT complex-to-real
(``irfftn``: the last axis is extended to a Hermitian-symmetric signal of ``2 * (n - 1)``
entries by default, the imaginary parts of its first and Nyquist entries ignored, which is
OpenVINO's irdft.cpp). ``signal_size`` (``-1``: the axis' own size) pads with zeros or trims each
transformed axis first. The order of ``axes`` matters only for the last one (RDFT/IRDFT). Axes
count from ``-(r-1)`` to ``r-2`` for complex inputs, ``-r`` to ``r-1`` for RDFT.

Measured on OpenVINO 2026.4.1: data must be f32, f16 or bf16 (f64 is refused) and is transformed
in f64 here, rounded once to the data type; shape inference follows fft_base_shape_inference.hpp /
rdft / irdft (non-Const axes make every dim dynamic where the output depends on them; a
non-Const ``signal_size`` makes every transformed axis dynamic — OpenVINO does so for DFT/IDFT
but only for the last axis of RDFT/IRDFT, although the signal sizes change the others too: irrun
makes them dynamic as well, or a run would break OpenVINO's promise). The CPU plugin fails RDFT
with a ``signal_size`` larger than the input or with a -1 in it
and returns garbage for IRDFT padding; irrun computes those by the spec. A ``signal_size`` below
-1 is refused (OpenVINO infers an empty axis from it).
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..errors import OpError
from ..limits.memory import check_alloc
from ..types import elements
from ..types.shapes import DYN, Dim, PartialShape
from .base import Op, TensorInfo, as_int64, normalize_axis, spec_url
from .registry import register

_DATA = frozenset({"f32", "f16", "bf16"})


def _rdft_dim(d: Dim) -> Dim:
    f = lambda b: b // 2 + 1 if b > 0 else b  # noqa: E731
    return Dim(f(d.lo), None if d.hi is None else f(d.hi))


def _irdft_dim(d: Dim) -> Dim:
    return Dim(max(2 * (d.lo - 1), 0), None if d.hi is None else max(2 * (d.hi - 1), 0))


def fft_layout(kind: str, inputs: Sequence[TensorInfo]) -> tuple[PartialShape, list[int] | None, list[int] | None]:
    """(output shape, normalised axes, signal sizes) with OpenVINO's checks and messages
    (fft_common_validation.hpp); ``kind`` is dft, idft, rdft or irdft. Axes/sizes are None when
    not known."""
    data, axes = inputs[0], inputs[1]
    signal = inputs[2] if len(inputs) > 2 else None
    if not (data.etype.is_dynamic or data.etype.name in _DATA):
        raise OpError("FFT op input element type must be f32, f16, or bf16", port="input 0")
    for info, what, port in ((axes, "axes", 1), (signal, "signal_size", 2)):
        if info is not None and not (info.etype.is_dynamic or info.etype.name in ("i32", "i64")):
            raise OpError(f"FFT op {what} element type must be i32 or i64", port=f"input {port}")
    real = kind == "rdft"
    rank = data.shape.rank
    n_axes = axes.shape[0] if axes.shape.rank == 1 and axes.shape[0].is_static else None
    ax = None
    if rank is not None:
        if rank < (1 if real else 2):
            raise OpError(f"The input rank must be greater or equal to {1 if real else 2}", port="input 0")
        if not real and data.shape[rank - 1].intersect(Dim(2, 2)) is None:
            raise OpError("The last dimension of input data must be 2.", port="input 0")
        if n_axes is not None and rank < n_axes.lo + (0 if real else 1):
            raise OpError("The input rank must be greater than or equal to the number of axes. " if real else
                          "The input rank must be greater than number of axes.", port="input 1")
        if axes.value is not None and axes.shape.rank is not None:
            ax = [normalize_axis(a, rank if real else rank - 1) for a in as_int64(axes.value).reshape(-1)]
            if len(set(ax)) != len(ax):
                raise OpError("Each axis must be unique.", port="input 1")
    if axes.shape.rank not in (None, 1):
        raise OpError("Axes input must be 1D tensor.", port="input 1")
    if kind in ("rdft", "irdft") and (ax == [] or (n_axes is not None and n_axes.hi == 0)):
        raise OpError(f"irrun refuses an empty 'axes' for {kind.upper()}: the last axis decides the "
                      "output shape (OpenVINO reads past the end of the list)", port="input 1",
                      openvino_loads=True)
    sizes = None
    if signal is not None:
        if signal.shape.rank not in (None, 1):
            raise OpError("Signal size input must be 1D tensor.", port="input 2")
        if axes.shape.is_static and signal.shape.is_static and axes.shape[0] != signal.shape[0]:
            raise OpError("Sizes of inputs 'axes' and 'signal_size' must be equal.", port="input 2")
        if signal.value is not None:
            sizes = [int(v) for v in as_int64(signal.value).reshape(-1)]
            if any(v < -1 for v in sizes):
                raise OpError(f"irrun refuses signal_size {sizes}: a size must be -1 or at least 0 "
                              "(OpenVINO infers an empty axis)", port="input 2")
    if rank is None:
        return PartialShape(None), ax, sizes
    dims = list(data.shape)
    if kind in ("dft", "idft"):
        if signal is not None:
            for i, a in enumerate(ax if ax is not None else range(rank - 1)):
                if ax is None or sizes is None:
                    dims[a] = DYN
                elif sizes[i] != -1:
                    dims[a] = Dim.of(sizes[i])
        return PartialShape(dims), ax, sizes
    if kind == "rdft":
        dims.append(Dim(2, 2))
        if ax is None:
            return PartialShape([DYN] * rank + [Dim(2, 2)]), ax, sizes
        if signal is not None and sizes is None:       # (OpenVINO: the last axis only; see module)
            for a in ax:
                dims[a] = DYN
            return PartialShape(dims), ax, sizes
        for i, a in enumerate(ax):
            if sizes is not None and sizes[i] != -1:
                dims[a] = Dim.of(sizes[i])
        dims[ax[-1]] = _rdft_dim(dims[ax[-1]])
        return PartialShape(dims), ax, sizes
    dims = dims[:-1]                                   # irdft
    if ax is None:
        return PartialShape([DYN] * (rank - 1)), ax, sizes
    if signal is not None and sizes is None:
        for a in ax:
            dims[a] = DYN
        return PartialShape(dims), ax, sizes
    for i, a in enumerate(ax):
        if sizes is not None and sizes[i] != -1:
            dims[a] = Dim.of(sizes[i])
    if sizes is None or sizes[-1] == -1:
        dims[ax[-1]] = _irdft_dim(data.shape[ax[-1]])
    return PartialShape(dims), ax, sizes


class _FFT(Op):
    """Inputs: data, axes (i32/i64 1-D), optional signal_size (i32/i64 1-D)."""
    category = "detection"

    kind = ""
    attrs = {}
    num_inputs = (2, 3)
    restrictions = "data f32, f16 or bf16 (as OpenVINO)"
    fresh_outputs = True

    def infer(self, inputs):
        return [TensorInfo(inputs[0].etype, fft_layout(self.kind, inputs)[0])]

    def run(self, x, axes, signal=None):
        infos = [TensorInfo.of(a, elements.from_dtype(a.dtype)) for a in (x, axes, signal) if a is not None]
        shape, ax, sizes = fft_layout(self.kind, infos)
        out_shape = shape.to_tuple()
        check_alloc(out_shape, x.dtype)
        if 0 in out_shape:
            return [np.zeros(out_shape, x.dtype)]
        work = list(x.shape if self.kind == "rdft" else x.shape[:-1])
        for a, v in zip(ax, sizes or ()):      # run-time signal sizes pad the transformed axes
            work[a] = max(work[a], v)
        for a in ax:
            work[a] = max(work[a], out_shape[a])
        check_alloc(work, np.dtype(np.complex128), "the transform's complex working array")
        if self.kind == "rdft":
            s = None if sizes is None else [x.shape[a] if v == -1 else v for a, v in zip(ax, sizes)]
            y = np.fft.rfftn(x.astype(np.float64), s, ax)
        else:
            c = x[..., 0].astype(np.float64) + 1j * x[..., 1].astype(np.float64)
            s = [c.shape[a] if sizes is None or v == -1 else v for a, v in zip(ax, sizes or [-1] * len(ax))]
            if self.kind == "irdft":
                s[-1] = out_shape[ax[-1]]
                return [np.fft.irfftn(c, s, ax).astype(x.dtype)]
            y = (np.fft.fftn if self.kind == "dft" else np.fft.ifftn)(c, s, ax)
        return [np.stack([y.real, y.imag], axis=-1).astype(x.dtype)]


@register
class DFT7(_FFT):
    """DFT-7: complex-to-complex forward transform."""

    type, version, kind = "DFT", "opset7", "dft"
    spec = spec_url("signals/dft-7")


@register
class IDFT7(_FFT):
    """IDFT-7: complex-to-complex inverse transform (scaled by 1/N)."""

    type, version, kind = "IDFT", "opset7", "idft"
    spec = spec_url("signals/idft-7")


@register
class RDFT9(_FFT):
    """RDFT-9: real-to-complex forward transform."""

    type, version, kind = "RDFT", "opset9", "rdft"
    spec = spec_url("signals/rdft-9")


@register
class IRDFT9(_FFT):
    """IRDFT-9: complex (Hermitian half) to real inverse transform."""

    type, version, kind = "IRDFT", "opset9", "irdft"
    spec = spec_url("signals/irdft-9")
