"""GridSample-9: sample an NCHW image at the normalised (x, y) points of a grid, by bilinear,
bicubic or nearest interpolation, with zeros / border / reflection padding.

The arithmetic is OpenVINO's reference kernel (grid_sample.hpp), which the CPU plugin matches
(measured on OpenVINO 2026.4.1, tests/fixtures/trig_bitwise_dft_sampling_expectations):

* denormalisation: ``(v + 1) * (size - 1) / 2`` with ``align_corners``, else
  ``((v + 1) * size - 1) / 2``; x (``grid[..., 0]``) indexes W, y indexes H;
* nearest rounds half to even (``lrint``); bilinear takes the 4 pixels around the point with
  ``(1 - d)`` / ``d`` weights; bicubic the 16 around it with the cubic convolution weights of
  A = -0.75 (ONNX Resize's);
* padding applies to each pixel index, not to the coordinate: zeros reads 0 outside the image,
  border clamps the index, reflection mirrors it (``2*size`` periodic without align_corners,
  ``2*(size-1)`` with it);
* a non-finite coordinate becomes C's ``static_cast<long>`` of it on x86 (LONG_MIN, an index far
  outside), and its weights are NaN: the output is NaN;
* floats compute in f32 (f64 in f64) and round once to the data type; integer data computes in
  f32 too and is then, as the CPU plugin does (no reference kernel), rounded half to even and
  saturated for 8-bit types and booleans, truncated and wrapped (C cast through int64) for wider
  ones.

The kernel is vectorised over everything: per tap (4 or 16) one ``take_along_axis`` of the
flattened image, which carries one extra zero pixel that out-of-image taps of zeros padding read.
"""
from __future__ import annotations

import numpy as np

from ..errors import OpError
from ..types.shapes import DYN, Dim, PartialShape
from .base import Attr, Op, TensorInfo, spec_url
from .registry import register

_FAR = -(2 ** 62)          # where non-finite / huge coordinates land (x86: LONG_MIN)


def _merge_batch(a: Dim, b: Dim) -> Dim:
    d = a.intersect(b)
    if d is None:
        raise OpError("The batch dimension in the input data tensor's shape doesn't match the batch "
                      "dimension in the grid tensor's shape.", port="input 1")
    return d


def grid_sample_shape(data: PartialShape, grid: PartialShape) -> PartialShape:
    """``[N, C, H_out, W_out]`` with OpenVINO's checks (grid_sample_shape_inference.hpp)."""
    if data.rank is not None and data.rank != 4:
        raise OpError("The supported shape of the input data tensor is 4D.", port="input 0")
    if grid.rank is not None and grid.rank != 4:
        raise OpError("The supported shape of the grid tensor is 4D.", port="input 1")
    if grid.rank is not None and grid[3].intersect(Dim(2, 2)) is None:
        raise OpError("The last dimension of grid tensor's shape has to be equal to 2.", port="input 1")
    n = _merge_batch(data[0] if data.rank else DYN, grid[0] if grid.rank else DYN)
    c = data[1] if data.rank else DYN
    h, w = (grid[1], grid[2]) if grid.rank else (DYN, DYN)
    return PartialShape([n, c, h, w])


def _cubic(t: np.ndarray) -> list[np.ndarray]:
    """The 4 cubic convolution weights (A = -0.75) for a fractional offset ``t``."""
    a = -0.75
    s, u, v = t + 1, 1 - t, 2 - t
    return [((a * s - 5 * a) * s + 8 * a) * s - 4 * a, ((a + 2) * t - (a + 3)) * t * t + 1,
            ((a + 2) * u - (a + 3)) * u * u + 1, ((a * v - 5 * a) * v + 8 * a) * v - 4 * a]


def _reflect(i: np.ndarray, n: int, align: bool) -> np.ndarray:
    if align:
        p = 1 if n == 1 else 2 * (n - 1)
        i = np.abs(i) % p
        return np.where(i >= n, p - i, i)
    i = np.mod(i, 2 * n)
    return np.where(i >= n, 2 * n - 1 - i, i)


def _index(v: np.ndarray) -> np.ndarray:
    """``static_cast<long>`` of a floored/rounded coordinate, non-finite ones far away."""
    with np.errstate(invalid="ignore"):
        return np.where(np.abs(v) < 2.0 ** 62, v, _FAR).astype(np.int64)


def _to_integer(v: np.ndarray, dtype: np.dtype) -> np.ndarray:
    if dtype == np.bool_ or dtype.itemsize == 1:
        info = np.iinfo(np.uint8 if dtype == np.bool_ else dtype)
        r = np.clip(np.rint(v), info.min, info.max)
        return (r != 0) if dtype == np.bool_ else r.astype(dtype)
    with np.errstate(invalid="ignore"):
        return np.clip(np.trunc(v), -2.0 ** 63, 2.0 ** 63 - 1024).astype(np.int64).astype(dtype)


@register
class GridSample9(Op):
    """Data of any numeric type (boolean too), grid of a floating-point type."""
    category = "spatial"

    type, version = "GridSample", "opset9"
    spec = spec_url("image/grid-sample-9")
    attrs = {"align_corners": Attr("bool", False),
             "mode": Attr("enum", "bilinear", choices=("bilinear", "bicubic", "nearest")),
             "padding_mode": Attr("enum", "zeros", choices=("zeros", "border", "reflection"))}
    num_inputs = (2, 2)
    restrictions = "no string, f8 or 4-bit data"
    fresh_outputs = True

    def infer(self, inputs):
        data, grid = inputs
        if not (grid.etype.is_dynamic or grid.etype.is_float):
            raise OpError("The element type of the grid input tensor must be a floating point type.",
                          port="input 1")
        if not data.etype.is_dynamic and (data.etype.bits < 8 or data.etype.name.startswith("f8")):
            raise OpError(f"irrun does not run GridSample on {data.etype} data", port="input 0", unsupported=True)
        return [TensorInfo(data.etype, grid_sample_shape(data.shape, grid.shape))]

    def run(self, data, grid):
        grid_sample_shape(PartialShape(data.shape), PartialShape(grid.shape))
        n, c, h, w = data.shape
        if (h == 0 or w == 0) and n * c * grid.shape[1] * grid.shape[2] > 0:
            raise OpError("cannot sample an image with no pixels (its H or W is 0)", port="input 0",
                          unsupported=True)
        wd = np.dtype(np.float64 if data.dtype == np.float64 else np.float32)
        g = grid.astype(wd, copy=False)
        x, y = g[..., 0], g[..., 1]
        with np.errstate(all="ignore"):
            if self.align_corners:
                x, y = (x + 1) * wd.type(w - 1) / 2, (y + 1) * wd.type(h - 1) / 2
            else:
                x, y = ((x + 1) * wd.type(w) - 1) / 2, ((y + 1) * wd.type(h) - 1) / 2
            flat = data.astype(wd).reshape(n, c, h * w)
            if self.padding_mode == "zeros":         # an extra zero pixel at index h*w
                flat = np.concatenate([flat, np.zeros((n, c, 1), wd)], axis=2)
            out = self._sample(flat, x, y, h, w, wd)
        out = out.reshape(n, c, *grid.shape[1:3])
        return [out.astype(data.dtype) if data.dtype.kind == "f" or data.dtype.kind == "V" else
                _to_integer(out, data.dtype)]

    def _sample(self, flat, x, y, h, w, wd):
        n = flat.shape[0]

        def tap(iy: np.ndarray, ix: np.ndarray) -> np.ndarray:
            iy, ix = _index(iy), _index(ix)
            if self.padding_mode == "zeros":
                idx = np.where((iy >= 0) & (iy < h) & (ix >= 0) & (ix < w), iy * w + ix, h * w)
            elif self.padding_mode == "border":
                idx = np.clip(iy, 0, h - 1) * w + np.clip(ix, 0, w - 1)
            else:
                idx = _reflect(iy, h, self.align_corners) * w + _reflect(ix, w, self.align_corners)
            return np.take_along_axis(flat, idx.reshape(n, 1, -1), axis=2)

        x, y = x.reshape(n, 1, -1), y.reshape(n, 1, -1)
        if self.mode == "nearest":
            return tap(np.rint(y), np.rint(x))
        x0, y0 = np.floor(x), np.floor(y)
        dx, dy = x - x0, y - y0
        if self.mode == "bilinear":
            q0 = (1 - dx) * tap(y0, x0) + dx * tap(y0, x0 + 1)
            q1 = (1 - dx) * tap(y0 + 1, x0) + dx * tap(y0 + 1, x0 + 1)
            return dy * q1 + (1 - dy) * q0
        cx, cy = _cubic(dx), _cubic(dy)
        out = 0
        for j in range(4):
            row = sum(cx[i] * tap(y0 + (j - 1), x0 + (i - 1)) for i in range(4))
            out = out + cy[j] * row
        return out
