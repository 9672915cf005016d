"""Interpolate-1, -4 and -11: resize chosen axes of a tensor (nearest, linear, linear_onnx, cubic,
bilinear_pillow, bicubic_pillow).

Every mode is separable, so the kernel resizes one axis at a time: per axis it computes, for each
output position, a few input indices ("taps") and their weights, and the tensor is then a
weighted sum of ``np.take`` slices along that axis (vectorised over everything else; the only
loop is over the taps). The coordinate arithmetic is OpenVINO's reference (interpolate.cpp) in
float32, so nearest-neighbour ties fall the same way:

* source coordinate by ``coordinate_transformation_mode`` (half_pixel, pytorch_half_pixel,
  asymmetric, tf_half_pixel_for_nn, align_corners) — the identity when the axis keeps its size
  or its scale is exactly 1;
* the scale of an axis is the ``scales`` input value in scales mode and ``out / in`` in sizes
  mode (both after pads_begin/pads_end zero-padding);
* nearest: ``nearest_mode`` rounding, clamped to the axis; linear_onnx: two taps around the
  clamped coordinate; cubic: four taps with ``cube_coeff``, indices clamped; linear: the
  triangle filter, normalised over the taps inside the axis; pillow modes: Pillow's resampling
  filters over exactly two axes, W (the second) first, then H. (OpenVINO's shape inference lets
  other axis counts through; its reference evaluator then refuses them and its CPU plugin
  computes something else — irrun refuses them with the reference's message);
* integer data is interpolated in float32, then rounded to nearest and saturated (the CPU
  plugin; the reference evaluator truncates);
* output size in scales mode: ``floor(dim * (scale + 1e-6))`` computed in float32.

``antialias`` is read and ignored, as OpenVINO's CPU plugin does (measured: its linear results
with antialias are those without); the reference evaluator instead widens the triangle filter by
1/scale when some axis shrinks, and differs from the CPU by up to 2.8 on inputs in [-3, 3).

Interpolate-1 runs as OpenVINO converts it to Interpolate-4: nearest -> nearest with
nearest_mode ``simple``; linear -> linear_onnx (rank < 5) or linear (rank 5); cubic -> cubic;
coordinates ``align_corners`` when ``align_corners``, else ``half_pixel`` for the linear modes
without pads unless the input is 4-D with axes {2, 3}, else ``asymmetric``.
"""
from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from .. import bounds
from ..budget import check_alloc
from ..errors import OpError
from ..shapes import DYN, Dim, PartialShape
from .base import Attr, Op, TensorInfo, as_int64, spec_url
from ._numerics import round_half_away
from ._numerics import compute_dtype, require_numeric
from .registry import register

MODES_4 = ("nearest", "linear", "linear_onnx", "cubic")
MODES_11 = MODES_4 + ("bilinear_pillow", "bicubic_pillow")
CTM = ("half_pixel", "pytorch_half_pixel", "asymmetric", "tf_half_pixel_for_nn", "align_corners")
NEAREST = ("round_prefer_floor", "round_prefer_ceil", "floor", "ceil", "simple")
_F32 = np.float32
_EPS = _F32(1e-6)


# ---------------------------------------------------------------------------------------------
# Shapes

def scale_dim(d: Dim, scale: float) -> Dim:
    """OpenVINO's ``dim::scale``: each bound times ``scale + 1e-6`` in float32, truncated."""
    s = _F32(scale)
    if s == _F32(1.0):
        return d
    s = s + _EPS
    f = lambda v: int(_F32(v) * s)  # noqa: E731
    return Dim(f(d.lo), None if d.hi is None else f(d.hi))


def padded_pads(pads: Sequence[int], rank: int) -> list[int]:
    """pads_begin/pads_end resized to the rank: cut, or extended with zeros."""
    p = list(pads)[:rank]
    return p + [0] * (rank - len(p))


def check_axes(axes: Sequence[int], rank: int, port: str | None = None) -> list[int]:
    if any(a < 0 or a >= rank for a in axes):
        raise OpError(f"All axes values should less than input rank: {rank}", port=port)
    return list(axes)


def check_count(n: int, axes: Sequence[int], what: str, port: str) -> None:
    if n < len(axes):
        raise OpError(f"The number of elements in the '{what}' input does not match the number of axes "
                      f"{len(axes)}", port=port)


def out_shape(data: PartialShape, pb: Sequence[int], pe: Sequence[int], axes: Sequence[int] | None,
              sizes: Sequence[int] | None, scales: Sequence[float] | None) -> PartialShape:
    """Padded data shape with the axes set from ``sizes`` or scaled by ``scales`` (either may be
    None = unknown, making those dims ``?``); ``axes`` None = unknown (every dim ``?``)."""
    if data.rank is None:
        return PartialShape(None)
    if axes is None:
        return PartialShape.dynamic(data.rank)
    dims = [d + (b + e) for d, b, e in zip(data, pb, pe)]
    for i, a in enumerate(axes):
        if sizes is not None:
            dims[a] = Dim.of(sizes[i])
        elif scales is not None:
            dims[a] = scale_dim(dims[a], scales[i])
        else:
            dims[a] = DYN
    return PartialShape(dims)


# ---------------------------------------------------------------------------------------------
# Per-axis taps

def source_coords(n_out: int, n_in: int, scale: np.float32, ctm: str) -> np.ndarray:
    """float32 input coordinate of every output position (OpenVINO's GetOriginalCoordinate)."""
    o = np.arange(n_out, dtype=_F32)
    if scale == _F32(1.0) or n_out == n_in:
        return o
    h = _F32(0.5)
    if ctm == "pytorch_half_pixel":
        return (o + h) / scale - h if n_out > 1 else np.zeros(n_out, _F32)
    if ctm == "asymmetric":
        return o / scale
    if ctm == "tf_half_pixel_for_nn":
        return (o + h) / scale
    if ctm == "align_corners":
        return np.zeros(n_out, _F32) if n_out == 1 else o * _F32(n_in - 1) / _F32(n_out - 1)
    return (o + h) / scale - h


def nearest_index(c: np.ndarray, mode: str, downsample: bool) -> np.ndarray:
    c64 = c.astype(np.float64)
    if mode == "round_prefer_floor":
        r = np.where(c64 == np.trunc(c64) + 0.5, np.floor(c64), round_half_away(c64))
    elif mode == "round_prefer_ceil":
        r = round_half_away(c64)
    elif mode == "floor":
        r = np.floor(c64)
    elif mode == "ceil":
        r = np.ceil(c64)
    else:                                                   # simple
        r = np.ceil(c64) if downsample else np.trunc(c64)
    return r.astype(np.int64)


def cubic_coeffs(s: np.ndarray, a: float) -> np.ndarray:
    """``[n, 4]`` float32 weights of the taps at floor(c)-1 .. floor(c)+2."""
    a, s = _F32(a), np.abs(s).astype(_F32)
    one, two = _F32(1), _F32(2)
    return np.stack([((a * (s + one) - 5 * a) * (s + one) + 8 * a) * (s + one) - 4 * a,
                     ((a + 2) * s - (a + 3)) * s * s + one,
                     ((a + 2) * (one - s) - (a + 3)) * (one - s) * (one - s) + one,
                     ((a * (two - s) - 5 * a) * (two - s) + 8 * a) * (two - s) - 4 * a], axis=1).astype(_F32)


def _pillow_taps(n_in: int, n_out: int, cubic: bool, a: float) -> tuple[np.ndarray, np.ndarray]:
    """Pillow's precompute_coeffs (float64): indices and normalised weights, ``[n_out, ksize]``."""
    support_base = 2.0 if cubic else 1.0
    scale = n_in / n_out
    fscale = max(scale, 1.0)
    support = support_base * fscale
    ksize = int(math.ceil(support)) * 2 + 1
    center = (np.arange(n_out) + 0.5) * scale
    xmin = np.maximum(np.trunc(center - support + 0.5).astype(np.int64), 0)
    xmax = np.minimum(np.trunc(center + support + 0.5).astype(np.int64), n_in) - xmin
    t = np.arange(ksize)
    x = (t[None, :] + xmin[:, None] - center[:, None] + 0.5) / fscale
    ax = np.abs(x)
    if cubic:
        w = np.where(ax < 1, ((a + 2) * ax - (a + 3)) * ax * ax + 1,
                     np.where(ax < 2, (((ax - 5) * ax + 8) * ax - 4) * a, 0.0))
    else:
        w = np.where(ax < 1, 1 - ax, 0.0)
    w = np.where(t[None, :] < xmax[:, None], w, 0.0)
    ww = w.sum(axis=1, keepdims=True)
    w = np.where(ww != 0, w / np.where(ww != 0, ww, 1), w)
    return np.minimum(xmin[:, None] + t[None, :], n_in - 1), w


def check_pillow_axes(axes: Sequence[int]) -> None:
    if len(axes) != 2:
        raise OpError("For Pillow based modes exactly two (HW) axes need to be provided.", openvino_loads=True)


def apply_taps(x: np.ndarray, axis: int, idx: np.ndarray, w: np.ndarray | None) -> np.ndarray:
    """``out[.., o, ..] = sum_t w[o, t] * x[.., idx[o, t], ..]`` along ``axis``."""
    if w is None:
        return np.take(x, idx[:, 0], axis=axis)
    shape = [1] * x.ndim
    shape[axis] = idx.shape[0]
    acc = None
    for t in range(idx.shape[1]):
        term = np.take(x, idx[:, t], axis=axis) * w[:, t].astype(x.dtype).reshape(shape)
        acc = term if acc is None else acc + term
    return acc


class Resize:
    """The attributes that decide the arithmetic (Interpolate-4 semantics)."""

    def __init__(self, mode: str, ctm: str, nearest_mode: str, cube_coeff: float):
        self.mode, self.ctm, self.nearest_mode, self.cube_coeff = mode, ctm, nearest_mode, cube_coeff

    def __call__(self, x: np.ndarray, axes: Sequence[int], out: Sequence[int], scales: Sequence[float]) -> np.ndarray:
        """Resize the (already padded) ``x`` along ``axes`` to the sizes ``out`` (one per axis)."""
        dtype = x.dtype
        for a, n in zip(axes, out):
            if n > 0 and x.shape[a] == 0:
                raise OpError(f"cannot resize the empty axis {a} to {n} elements (OpenVINO reads "
                              "outside the input)", openvino_loads=True)
        if self.mode == "nearest":
            for a, n, s in zip(axes, out, scales):
                s = _F32(s)
                c = source_coords(n, x.shape[a], s, self.ctm)
                i = np.clip(nearest_index(c, self.nearest_mode, bool(s < 1)), 0, x.shape[a] - 1)
                x = np.take(x, i, axis=a)
            return x
        if self.mode in ("bilinear_pillow", "bicubic_pillow"):
            return self.pillow(x, axes, out)
        y = x.astype(np.float64 if dtype == np.float64 else _F32, copy=False)
        for a, n, s in zip(axes, out, scales):
            s = _F32(s)
            n_in = y.shape[a]
            c = source_coords(n, n_in, s, self.ctm)
            if self.mode == "linear_onnx":
                c = np.clip(c, _F32(0), _F32(n_in - 1))
                i1 = np.minimum(c.astype(np.int64), n_in - 1)
                i2 = np.minimum(i1 + 1, n_in - 1)
                d1, d2 = np.abs(c - i1.astype(_F32)), np.abs(c - i2.astype(_F32))
                same = i1 == i2
                d1, d2 = np.where(same, _F32(0.5), d1), np.where(same, _F32(0.5), d2)
                y = apply_taps(y, a, np.stack([i1, i2], 1), np.stack([d2, d1], 1))
            elif self.mode == "cubic":
                base = np.floor(c).astype(np.int64)
                w = cubic_coeffs(c - base.astype(_F32), self.cube_coeff)
                idx = np.clip(base[:, None] + np.arange(4)[None, :] - 1, 0, n_in - 1)
                y = apply_taps(y, a, idx, w)
            else:                 # linear: the triangle filter over round(c)-2 .. round(c)+2
                j = round_half_away(c.astype(np.float64)).astype(np.int64)[:, None] + np.arange(-2, 3)[None, :]
                ok = (j >= 0) & (j < n_in)
                w = np.where(ok, np.maximum(_F32(0), _F32(1) - np.abs(c[:, None] - j.astype(_F32))), _F32(0))
                ws = w.sum(axis=1, keepdims=True)
                w = np.where(ws > 0, w / np.where(ws > 0, ws, 1), _F32(0))
                y = apply_taps(y, a, np.clip(j, 0, n_in - 1), w)
        if dtype.kind in "iu":                   # the CPU plugin rounds and saturates
            info = np.iinfo(dtype)
            y = np.clip(np.rint(y), info.min, info.max)
        return y.astype(dtype, copy=False)

    def pillow(self, x: np.ndarray, axes: Sequence[int], out: Sequence[int]) -> np.ndarray:
        check_pillow_axes(axes)
        dtype = x.dtype
        y = x.astype(np.float64) if dtype.kind in "iu" else x.astype(compute_dtype(dtype), copy=False)
        for a, n in ((axes[1], out[1]), (axes[0], out[0])):          # horizontal pass first
            if n == y.shape[a]:
                continue
            idx, w = _pillow_taps(y.shape[a], n, self.mode == "bicubic_pillow", self.cube_coeff)
            y = apply_taps(y, a, idx, w.astype(y.dtype))
            if dtype.kind in "iu":
                info = np.iinfo(dtype)
                y = np.clip(np.where(y >= 0, np.trunc(y + 0.5), np.trunc(y - 0.5)), info.min, info.max)
        return y.astype(dtype, copy=False)


def pad_data(x: np.ndarray, pb: Sequence[int], pe: Sequence[int]) -> np.ndarray:
    if not any(pb) and not any(pe):
        return x
    check_alloc([d + b + e for d, b, e in zip(x.shape, pb, pe)], x.dtype, "the padded input")
    return np.pad(x, list(zip(pb, pe)))


# ---------------------------------------------------------------------------------------------
# Interpolate-4 and -11

_COMMON = {
    "mode": Attr("enum", required=True, choices=MODES_4),
    "shape_calculation_mode": Attr("enum", required=True, choices=("sizes", "scales")),
    "coordinate_transformation_mode": Attr("enum", "half_pixel", choices=CTM),
    "nearest_mode": Attr("enum", "round_prefer_floor", choices=NEAREST),
    "antialias": Attr("bool", False),
    "pads_begin": Attr("ints", [0]),
    "pads_end": Attr("ints", [0]),
    "cube_coeff": Attr("float", -0.75),
}


def _check_type(info: TensorInfo, kind: str, port: str) -> None:
    if info.etype.is_dynamic:
        return
    if kind == "sizes" and not info.etype.is_integer:
        raise OpError("Sizes element type must be i32, i64, u32 or u64", port=port)
    if kind == "axes" and not info.etype.is_integer:
        raise OpError("Axes element type must be i32, i64, u32 or u64", port=port)
    if kind == "scales" and info.etype.name not in ("f32", "f16", "bf16"):
        raise OpError("Scales element type must be f32, f16 or bf16", port=port)


def _check_1d(info: TensorInfo, index: int) -> None:
    if info.shape.rank not in (None, 1):
        raise OpError(f"Input [{index}] is not rank 1", port=f"input {index}")


class _Interpolate(Op):
    """Shared by v4 and v11; subclasses say which input holds what."""

    sizes_port: int
    scales_port: int
    axes_port: int

    def _pads(self, rank: int) -> tuple[list[int], list[int]]:
        if any(p < 0 for p in (*self.pads_begin, *self.pads_end)):
            raise OpError("pads_begin and pads_end must not be negative")
        return padded_pads(self.pads_begin, rank), padded_pads(self.pads_end, rank)

    def resolve(self, rank: int, values: Sequence[np.ndarray | None], n_inputs: int
                ) -> tuple[list[int] | None, list[int] | None, list[float] | None]:
        """(axes, sizes, scales) from the input values known so far (None = unknown); checks
        counts, signs and axis ranges. ``values`` is indexed by input port."""
        if self.axes_port >= n_inputs:
            axes = list(range(rank))
        elif values[self.axes_port] is None:
            axes = None
        else:
            axes = check_axes(as_int64(values[self.axes_port]).reshape(-1).tolist(), rank,
                              f"input {self.axes_port}")
        sizes = scales = None
        port = self.sizes_port if self.shape_calculation_mode == "sizes" else self.scales_port
        v = values[port]
        if v is not None and self.shape_calculation_mode == "sizes":
            sizes = as_int64(v).reshape(-1).tolist()
            if axes is not None:
                check_count(len(sizes), axes, "sizes", f"input {port}")
                if any(s < 0 for s in sizes[:len(axes)]):
                    raise OpError(f"sizes {sizes} must not be negative", port=f"input {port}",
                                  openvino_loads=True)
        elif v is not None:
            scales = np.asarray(v).astype(_F32).reshape(-1).tolist()
            if axes is not None:
                check_count(len(scales), axes, "scales", f"input {port}")
                if any(not s > 0 or not math.isfinite(s) for s in scales[:len(axes)]):
                    raise OpError(f"scales {scales} must be positive", port=f"input {port}",
                                  openvino_loads=True)
        return axes, sizes, scales

    def infer(self, inputs):
        data = inputs[0]
        require_numeric(data, "Interpolate")
        self.check_inputs(inputs)
        if data.shape.rank is None:
            return [TensorInfo(data.etype, PartialShape(None))]
        pb, pe = self._pads(data.shape.rank)
        axes, sizes, scales = self.resolve(data.shape.rank, [t.value for t in inputs], len(inputs))
        if sizes is None and self.shape_calculation_mode == "sizes" and axes is not None:
            # value bounds (irrun/bounds.py): interval sizes
            sizes = bounds.dims(inputs[self.sizes_port], f"input {self.sizes_port}")
            if sizes is not None:
                check_count(len(sizes), axes, "sizes", f"input {self.sizes_port}")
        if self.mode in ("bilinear_pillow", "bicubic_pillow") and axes is not None:
            check_pillow_axes(axes)
        return [TensorInfo(data.etype, out_shape(data.shape, pb, pe, axes, sizes, scales))]

    def run(self, x, *rest):
        pb, pe = self._pads(x.ndim)
        axes, sizes, scales = self.resolve(x.ndim, [x, *rest], 1 + len(rest))
        shape = out_shape(PartialShape(x.shape), pb, pe, axes, sizes, scales).to_tuple()
        _check_work(x.shape, pb, pe, shape, x.dtype)
        xp = pad_data(x, pb, pe)
        out = [shape[a] for a in axes]
        if scales is None:
            scales = [float(_F32(n) / _F32(xp.shape[a])) if xp.shape[a] else 1.0 for a, n in zip(axes, out)]
        resize = Resize(self.mode, self.coordinate_transformation_mode, self.nearest_mode, self.cube_coeff)
        return [resize(xp, axes, out, scales[:len(axes)])]


def _check_work(shape, pb, pe, out, dtype) -> None:
    """Before anything is allocated: the output, and the f64 arrays the axis-by-axis resize
    holds (each axis at the larger of its padded input and output size), against the budget —
    run-time sizes or scales may ask for terabytes."""
    check_alloc(out, dtype)
    check_alloc([max(d + b + e, o) for d, b, e, o in zip(shape, pb, pe, out)], np.dtype(np.float64),
                "the resize's working array")


@register
class Interpolate4(_Interpolate):
    """Inputs (data, sizes, scales, [axes]); ``shape_calculation_mode`` says whether ``sizes``
    or ``scales`` decides the output size (the other input is ignored)."""

    type, version = "Interpolate", "opset4"
    spec = spec_url("image/interpolate-4")
    attrs = _COMMON
    num_inputs = (3, 4)
    restrictions = "v4/v11: antialias is ignored (as OpenVINO's CPU plugin does)"
    sizes_port, scales_port, axes_port = 1, 2, 3

    def check_inputs(self, inputs):
        used = self.scales_port if self.shape_calculation_mode == "scales" else self.sizes_port
        _check_1d(inputs[used], used)
        if len(inputs) == 4:
            _check_1d(inputs[3], 3)
        _check_type(inputs[1], "sizes", "input 1")
        _check_type(inputs[2], "scales", "input 2")
        if len(inputs) == 4:
            _check_type(inputs[3], "axes", "input 3")


@register
class Interpolate11(_Interpolate):
    """Inputs (data, scales_or_sizes, [axes]); adds the Pillow modes (``cube_coeff`` is
    Pillow's ``a`` — -0.5 to match Pillow)."""

    type, version = "Interpolate", "opset11"
    spec = spec_url("image/interpolate-11")
    attrs = dict(_COMMON, mode=Attr("enum", required=True, choices=MODES_11))
    num_inputs = (2, 3)
    restrictions = "v11: pillow modes on exactly two axes"   # (antialias: see Interpolate4)
    sizes_port, scales_port, axes_port = 1, 1, 2

    def check_inputs(self, inputs):
        for i in range(1, len(inputs)):
            _check_1d(inputs[i], i)
        _check_type(inputs[1], self.shape_calculation_mode, "input 1")
        if len(inputs) == 3:
            _check_type(inputs[2], "axes", "input 2")


# ---------------------------------------------------------------------------------------------
# Interpolate-1

@register
class Interpolate1(Op):
    """Inputs (data, target spatial shape); the ``axes`` attribute lists the resized axes. Runs
    as OpenVINO's conversion to Interpolate-4 (module notes). Mode ``area`` is not supported
    (OpenVINO cannot run it either)."""

    type, version = "Interpolate", "opset1"
    spec = spec_url("image/interpolate-1")
    attrs = {"axes": Attr("ints", required=True),
             "mode": Attr("enum", required=True, choices=("nearest", "linear", "cubic", "area")),
             "align_corners": Attr("bool", False), "antialias": Attr("bool", False),
             "pads_begin": Attr("ints", [0]), "pads_end": Attr("ints", [0])}
    num_inputs = (2, 2)
    restrictions = "v1: mode area"

    def resize_for(self, rank: int) -> Resize:
        if self.mode == "area":
            raise OpError("Interpolate-1 mode 'area' is not supported (OpenVINO cannot run it either)",
                          openvino_loads=True, unsupported=True)
        mode = {"nearest": "nearest", "cubic": "cubic"}.get(self.mode) or ("linear_onnx" if rank < 5 else "linear")
        if self.mode == "linear" and rank > 5:
            raise OpError("Interpolate-1 mode 'linear' supports inputs of rank 5 at most")
        no_pads = not any(self.pads_begin) and not any(self.pads_end)
        if self.align_corners:
            ctm = "align_corners"
        elif mode in ("linear", "linear_onnx") and no_pads and not (rank == 4 and sorted(self.axes) == [2, 3]):
            ctm = "half_pixel"
        else:
            ctm = "asymmetric"
        return Resize(mode, ctm, "simple", -0.75)

    def _check_v1(self, target: np.ndarray | None) -> list[int] | None:
        """Non-negative pads and target sizes (OpenVINO does not check them and fails later);
        the target's values, when known."""
        if any(p < 0 for p in (*self.pads_begin, *self.pads_end)):
            raise OpError("pads_begin and pads_end must not be negative")
        if target is None:
            return None
        vals = as_int64(target).reshape(-1).tolist()
        check_count(len(vals), self.axes, "target_spatial_shape", "input 1")
        if any(v < 0 for v in vals[:len(self.axes)]):
            raise OpError(f"target_spatial_shape {vals} must not be negative", port="input 1",
                          openvino_loads=True)
        return vals

    def infer(self, inputs):
        data, target = inputs
        require_numeric(data, "Interpolate")
        if not (target.etype.is_integer or target.etype.is_dynamic):
            raise OpError("output shape must be an integral number.", port="input 1")
        if data.shape.rank is None:
            return [TensorInfo(data.etype, PartialShape(None))]
        check_axes(self.axes, data.shape.rank)
        self.resize_for(data.shape.rank)
        dims = list(data.shape)
        vals = self._check_v1(target.value)
        if vals is not None:
            for a, v in zip(self.axes, vals):
                dims[a] = Dim.of(v)
        elif (sizes := bounds.dims(target, "input 1")) is not None:      # value bounds: interval sizes
            check_count(len(sizes), self.axes, "target_spatial_shape", "input 1")
            for a, d in zip(self.axes, sizes):
                dims[a] = d
        else:
            for a in self.axes:
                dims[a] = DYN
        return [TensorInfo(data.etype, PartialShape(dims))]

    def run(self, x, target):
        rank = x.ndim
        axes = check_axes(self.axes, rank)
        vals = self._check_v1(target)
        pb, pe = padded_pads(self.pads_begin, rank), padded_pads(self.pads_end, rank)
        out = vals[:len(axes)]
        shape = [d + b + e for d, b, e in zip(x.shape, pb, pe)]
        for a, n in zip(axes, out):
            shape[a] = n
        _check_work(x.shape, pb, pe, shape, x.dtype)
        xp = pad_data(x, pb, pe)
        scales = [float(_F32(n) / _F32(xp.shape[a])) if xp.shape[a] else 1.0 for a, n in zip(axes, out)]
        y = self.resize_for(rank)(xp, axes, out, scales)
        return [y[tuple(slice(0, x.shape[i]) if i not in axes else slice(None) for i in range(rank))]]
