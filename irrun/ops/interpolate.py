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

from ..errors import OpError
from ..limits.memory import check_alloc
from ..types.shapes import DYN, Dim, PartialShape
from . import bounds
from ._numerics import require_numeric
from ._resize import (
    CTM,
    F32,
    MODES_4,
    MODES_11,
    NEAREST,
    Resize,
    check_axes,
    check_count,
    check_pillow_axes,
    out_shape,
    pad_data,
    padded_pads,
)
from .base import Attr, Op, Precision, TensorInfo, as_int64, spec_url
from .registry import register

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
    category = "spatial"
    precision = Precision.SIGNIFICANT

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
        given = values[self.axes_port] if self.axes_port < n_inputs else None
        if self.axes_port >= n_inputs:
            axes = list(range(rank))
        elif given is None:
            axes = None
        else:
            axes = check_axes(as_int64(given).reshape(-1).tolist(), rank,
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
            scales = np.asarray(v).astype(F32).reshape(-1).tolist()
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
            # value bounds (irrun/ops/bounds.py): interval sizes
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
            scales = [float(F32(n) / F32(xp.shape[a])) if xp.shape[a] else 1.0 for a, n in zip(axes, out)]
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
    category = "spatial"
    precision = Precision.SIGNIFICANT

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
        scales = [float(F32(n) / F32(xp.shape[a])) if xp.shape[a] else 1.0 for a, n in zip(axes, out)]
        y = self.resize_for(rank)(xp, axes, out, scales)
        return [y[tuple(slice(0, x.shape[i]) if i not in axes else slice(None) for i in range(rank))]]
