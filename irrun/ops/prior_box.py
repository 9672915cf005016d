"""PriorBox-1/8 and PriorBoxClustered-1: the SSD anchor grid, [2, H * W * priors * 4] f32.

Inputs: ``output_size`` [H, W] and ``image_size`` [IH, IW] (1-D integer tensors of 2). Row 0
holds (xmin, ymin, xmax, ymax) per grid cell (row-major) and prior, row 1 the variances (one value
repeated, four tiled, or 0.1 when none). The spec's formulas are loose; irrun follows OpenVINO's
kernel (reference/prior_box.hpp; the CPU plugin agrees, measured):

* PriorBox: the cell centre is ``((w + 0.5) * IW / W, (h + 0.5) * IH / H)`` when ``step`` is 0
  (``offset`` is then unused), else ``((w + offset) * step, (h + offset) * step)``. Per cell come
  the ``fixed_size`` priors (each ``density``-by-``density`` sub-grid, per ``fixed_ratio`` or per
  aspect ratio, each clipped one-sidedly to [0, 1]), then per ``min_size``: the square min box,
  the ``sqrt(min * max)`` box and the aspect-ratio boxes (v8 ``min_max_aspect_ratios_order=false``
  puts the max box last). Aspect ratios are 1, then each new ``aspect_ratio`` (duplicates within
  1e-6 dropped) followed by its inverse when ``flip``; ratio 1 is never repeated.
  ``scale_all_sizes=false`` (MXNet) multiplies min sizes and step by IH (step -1: IH / H) and
  emits the ratio boxes once, for the last min size. ``clip`` clamps row 0 to [0, 1].
* The output size uses OpenVINO's prior count (unique rounded ratios x sizes...); attribute sets
  for which the kernel writes a different number of boxes leave OpenVINO's output partly
  uninitialised or overflow it: irrun refuses them.
* irrun follows the reference kernel, which folds every PriorBox whose inputs are constant (the
  usual case). With run-time inputs the CPU plugin runs its own kernel, which differs (measured):
  it centres the ``fixed_size`` density sub-grid at ``trunc(size) / 2.0`` instead of the integer
  ``trunc(size) / 2`` (half a pixel apart for odd sizes), and it fails on PriorBox-8 with
  ``min_max_aspect_ratios_order=false`` ("Unexpected op type in PriorBox shape inference factory").
* PriorBoxClustered: ``step_w``/``step_h`` default to ``step``; when both are still 0 they are
  IW / W and IH / H; centres ``(w + offset) * step_w``; box ``(c -/+ size / 2) / image size``.

Boxes are computed for the whole grid at once: a prior is a (centre offset, half size, clip) row
and the grid is a broadcast.
"""
from __future__ import annotations

import math

import numpy as np

from ..errors import OpError
from ..limits.memory import check_alloc
from ..types.elements import TYPES
from ..types.shapes import DYN, PartialShape
from .base import Attr, Op, TensorInfo, as_int64, check_index_input, spec_url
from .registry import register

F32 = np.float32
_INPUTS = ("output size", "image")


def _sizes(output_size: np.ndarray, image_size: np.ndarray) -> tuple[int, int, int, int]:
    for i, a in enumerate((output_size, image_size)):
        if a.size != 2:
            raise OpError(f"the {_INPUTS[i]} input must hold 2 values [height, width], has {a.size}", port=f"input {i}")
    h, w = (int(v) for v in as_int64(output_size).reshape(-1)[:2])
    ih, iw = (int(v) for v in as_int64(image_size).reshape(-1)[:2])
    if h < 0 or w < 0:
        raise OpError(f"output size [{h}, {w}] is negative", port="input 0")
    return h, w, ih, iw


def _variances(variance: list[float]) -> list[float]:
    if len(variance) not in (0, 1, 4):
        raise OpError(f"variance must have 0, 1 or 4 values, got {len(variance)} (OpenVINO's kernel asserts)",
                      openvino_loads=True)
    return variance or [0.1]


def _output(priors: np.ndarray, cx: np.ndarray, cy: np.ndarray, ih: int, iw: int,
            variance: list[float], clip: bool) -> np.ndarray:
    """[2, H*W*P*4] from per-prior rows (ox, oy, half w, half h, clip one-sidedly) over the grid."""
    ox, oy, bw, bh, side = (priors[:, i] for i in range(5))
    cx = cx[None, :, None] + ox.astype(F32)            # [1, W, P]
    cy = cy[:, None, None] + oy.astype(F32)            # [H, 1, P]
    iwi, ihi = F32(1) / F32(iw), F32(1) / F32(ih)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        x0, x1 = (cx - bw.astype(F32)) * iwi, (cx + bw.astype(F32)) * iwi
        y0, y1 = (cy - bh.astype(F32)) * ihi, (cy + bh.astype(F32)) * ihi
    one = side.astype(bool)            # the kernel's clip_less / clip_great (NaN -> the bound)
    with np.errstate(invalid="ignore"):
        x0, y0 = (np.where(one & ~(v > 0), F32(0), v) for v in (x0, y0))
        x1, y1 = (np.where(one & ~(v < 1), F32(1), v) for v in (x1, y1))
    full = np.broadcast_shapes(x0.shape, y0.shape)
    boxes = np.stack([np.broadcast_to(a, full) for a in (x0, y0, x1, y1)], axis=-1).reshape(-1)
    if clip:
        boxes = np.clip(boxes, F32(0), F32(1))
    return np.stack([boxes, np.resize(np.array(variance, F32), boxes.size)])


def _out_shape(value: np.ndarray | None, priors: int) -> PartialShape:
    if value is None:
        return PartialShape([2, DYN])
    flat = as_int64(value).reshape(-1)
    if flat.size != 2:
        raise OpError(f"Output size must have two elements. Got: {flat.size}", port="input 0")
    if (flat < 0).any():
        raise OpError(f"output size {flat.tolist()} is negative", port="input 0")
    return PartialShape([2, int(flat[0]) * int(flat[1]) * priors * 4])


class _PriorBase(Op):
    category = "detection"
    num_inputs = (2, 2)

    def num_priors(self) -> int:
        raise NotImplementedError

    def infer(self, inputs):
        for i, t in enumerate(inputs):
            check_index_input(t, f"input {i}", f"{_INPUTS[i]} input must be an integral number, but is: {t.etype}")
        a, b = inputs[0].shape.rank, inputs[1].shape.rank
        if not ((a is None or b is None or a == b) and a in (None, 1)):
            raise OpError(f"output size input rank {a if a is not None else '?'} must match image shape input rank "
                          f"{b if b is not None else '?'} and both must be 1-D")
        for i, t in enumerate(inputs):     # (a constant output size gets OpenVINO's own check below)
            if t.shape.rank == 1 and not t.shape[0].contains(2) and (i == 1 or t.value is None):
                raise OpError(f"the {_INPUTS[i]} input must hold 2 values [height, width], has {t.shape[0]} "
                              "(OpenVINO's kernel reads out of bounds)", port=f"input {i}", openvino_loads=True)
        n = self.num_priors()
        _variances(self.variance)
        return [TensorInfo(TYPES["f32"], _out_shape(inputs[0].value, n))]


# ---------------------------------------------------------------------------------------------
# PriorBox

def _aspect_ratios(ratios: list[float], flip: bool) -> list[float]:
    """The kernel's list: 1, then each new ratio (and its inverse when flipping)."""
    out = [1.0]
    for r in ratios:
        r = float(F32(r))
        if not any(abs(r - e) < 1e-6 for e in out):
            out.append(r)
            if flip:
                out.append(float(F32(1) / F32(r)))
    return out


def _sqrt(v: float) -> float:
    """C's sqrt: NaN for a negative value (attribute values are not validated)."""
    with np.errstate(invalid="ignore"):
        return float(np.sqrt(np.float64(v)))


def _half_sizes(size: float, ratio: float) -> tuple[float, float]:
    """Half width and height of a ``size`` box with aspect ratio ``ratio``."""
    r = _sqrt(ratio)
    with np.errstate(divide="ignore", invalid="ignore"):
        return size * 0.5 * r, float(np.float64(size * 0.5) / np.float64(r))


def _densities(density: list[float]) -> list[int]:
    if not all(math.isfinite(d) for d in density):
        raise OpError(f"density {density} is not finite")
    return [int(d) for d in density]


def _count_priors(a) -> int:
    """OpenVINO's ``PriorBox::number_of_priors`` (what sizes the output)."""
    ratios = {1.0}
    for r in a.aspect_ratio:
        ratios.add(round(float(r) * 1e6) / 1e6)
        if a.flip:
            ratios.add(round(1 / float(F32(r)) * 1e6) / 1e6 if r else math.inf)
    total = len(ratios)
    n = total * len(a.min_size) + len(a.max_size) if a.scale_all_sizes else total + len(a.min_size) - 1
    if a.fixed_size:
        n = total * len(a.fixed_size)
    for d in _densities(a.density):
        d2 = d * d - 1
        n += (len(a.fixed_ratio) if a.fixed_ratio else total) * d2
    return n


@register
class PriorBox1(_PriorBase):
    """PriorBox-1 (the v8 kernel with ``min_max_aspect_ratios_order=true``)."""

    type, version = "PriorBox", "opset1"
    spec = spec_url("detection/prior-box-1")
    attrs = {"min_size": Attr("floats", []), "max_size": Attr("floats", []), "aspect_ratio": Attr("floats", []),
             "density": Attr("floats", []), "fixed_ratio": Attr("floats", []), "fixed_size": Attr("floats", []),
             "clip": Attr("bool", False), "flip": Attr("bool", False), "step": Attr("float", 0.0),
             "offset": Attr("float", required=True), "variance": Attr("floats", []),
             "scale_all_sizes": Attr("bool", True)}
    restrictions = ("attribute sets whose box count differs from OpenVINO's prior count (it leaves "
                    "the output partly uninitialised) are refused")
    min_max_aspect_ratios_order = True

    def num_priors(self) -> int:
        n = _count_priors(self)
        written = len(self.prior_rows(1))
        if written != n:
            raise OpError(f"these attributes make OpenVINO's kernel write {written} boxes per cell into an output "
                          f"sized for {n} (the rest is uninitialised memory or an overflow)", openvino_loads=True)
        return n

    def prior_rows(self, ih: int) -> np.ndarray:
        """One row (ox, oy, half w, half h, one-sided clip) per prior, in the kernel's order."""
        for name in ("fixed_size", "min_size", "max_size"):
            if not all(math.isfinite(v) and v >= 0 for v in getattr(self, name)):
                raise OpError(f"{name} must hold finite sizes >= 0, not {getattr(self, name)}",
                              openvino_loads=True)
        ratios = [r for r in _aspect_ratios(self.aspect_ratio, self.flip) if abs(r - 1.0) >= 1e-6]
        rows: list[tuple] = []
        for s, size in enumerate(self.fixed_size):
            size = float(F32(size))
            whole = math.trunc(size) if 0 <= size < 2 ** 63 else 0
            shapes = []
            if self.fixed_ratio:
                shapes = [_half_sizes(size, r) for r in self.fixed_ratio]
            else:
                if self.density:
                    shapes.append((whole * 0.5, whole * 0.5))
                shapes += [_half_sizes(size, r) for r in ratios]
            if not shapes:
                continue
            dens = _densities(self.density)
            if s >= len(dens) or dens[s] <= 0:
                raise OpError(f"fixed_size {s} has no positive density (OpenVINO's kernel reads out of bounds or "
                              "divides by zero)", openvino_loads=True)
            d = dens[s]
            shift = math.trunc(size / d)
            base = -(whole // 2) + shift / 2
            for bw, bh in shapes:
                rows += [(base + c * shift, base + r * shift, bw, bh, 1) for r in range(d) for c in range(d)]
        mins = [float(F32(m)) * (1 if self.scale_all_sizes else ih) for m in self.min_size]
        for i, m in enumerate(mins):
            rows.append((0, 0, m * 0.5, m * 0.5, 0))
            big = []
            if len(self.max_size) > i:
                half = _sqrt(m * float(F32(self.max_size[i]))) * 0.5
                big = [(0, 0, half, half, 0)]
            ar = []
            if self.scale_all_sizes or i == len(mins) - 1:
                base = mins[i if self.scale_all_sizes else 0]
                ar = [(0, 0, *_half_sizes(base, r), 0) for r in ratios]
            rows += big + ar if self.min_max_aspect_ratios_order else ar + big
        return np.array(rows, np.float64).reshape(-1, 5)

    def run(self, output_size, image_size):
        h, w, ih, iw = _sizes(output_size, image_size)
        n = self.num_priors()
        check_alloc((2, h * w * n * 4), np.dtype(F32))
        step = float(F32(self.step))
        if not self.scale_all_sizes:
            step = float(F32(ih) / F32(h)) if step == -1 else float(F32(step) * F32(ih))
        if step == 0:
            cx = (np.arange(w, dtype=F32) + F32(0.5)) * (F32(iw) / F32(w) if w else F32(0))
            cy = (np.arange(h, dtype=F32) + F32(0.5)) * (F32(ih) / F32(h) if h else F32(0))
        else:
            cx = (F32(self.offset) + np.arange(w, dtype=F32)) * F32(step)
            cy = (F32(self.offset) + np.arange(h, dtype=F32)) * F32(step)
        return [_output(self.prior_rows(ih), cx, cy, ih, iw, _variances(self.variance), self.clip)]



@register
class PriorBox8(PriorBox1):
    """PriorBox-8 adds ``min_max_aspect_ratios_order`` (default true: min, max, ratio boxes)."""

    version = "opset8"
    spec = spec_url("detection/prior-box-8")
    attrs = {**PriorBox1.attrs, "min_max_aspect_ratios_order": Attr("bool", True)}


# ---------------------------------------------------------------------------------------------

@register
class PriorBoxClustered1(_PriorBase):
    """One box per (width, height) pair, centred on each cell."""

    type, version = "PriorBoxClustered", "opset1"
    spec = spec_url("detection/prior-box-clustered-1")
    attrs = {"width": Attr("floats", []), "height": Attr("floats", []), "clip": Attr("bool", True),
             "step": Attr("float", 0.0), "step_w": Attr("float", 0.0), "step_h": Attr("float", 0.0),
             "offset": Attr("float", required=True), "variance": Attr("floats", [])}

    def num_priors(self) -> int:
        if len(self.width) != len(self.height):
            raise OpError(f"Size of heights vector: {len(self.height)} doesn't match size of widths vector: "
                          f"{len(self.width)}")
        return len(self.width)

    def run(self, output_size, image_size):
        h, w, ih, iw = _sizes(output_size, image_size)
        n = self.num_priors()
        check_alloc((2, h * w * n * 4), np.dtype(F32))
        sw = F32(self.step_w or self.step)
        sh = F32(self.step_h or self.step)
        if sw == 0 and sh == 0:
            with np.errstate(divide="ignore", invalid="ignore"):
                sw, sh = F32(iw) / F32(w), F32(ih) / F32(h)
        cx = (np.arange(w, dtype=F32) + F32(self.offset)) * sw
        cy = (np.arange(h, dtype=F32) + F32(self.offset)) * sh
        bw, bh = np.array(self.width, F32)[None, None, :], np.array(self.height, F32)[None, None, :]
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            x0, x1 = (cx[None, :, None] - bw / F32(2)) / F32(iw), (cx[None, :, None] + bw / F32(2)) / F32(iw)
            y0, y1 = (cy[:, None, None] - bh / F32(2)) / F32(ih), (cy[:, None, None] + bh / F32(2)) / F32(ih)
        full = (h, w, n)
        boxes = np.stack([np.broadcast_to(a, full) for a in (x0, y0, x1, y1)], axis=-1).reshape(-1)
        if self.clip:
            boxes = np.clip(boxes, F32(0), F32(1))
        var = _variances(self.variance)
        return [np.stack([boxes, np.resize(np.array(var, F32), boxes.size)])]
