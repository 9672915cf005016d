"""ROIAlign-3 and ROIAlign-9: pool each region of interest of a feature map into a fixed
``pooled_h x pooled_w`` grid of bins, each the average (or maximum) of bilinear samples.

OpenVINO's reference kernel (roi_align.hpp), which its CPU plugin matches on every measured case
(OpenVINO 2026.4.1, tests/fixtures/trig_bitwise_dft_sampling_expectations):

* box ``[x1, y1, x2, y2]`` -> ``(coord + offset_src) * spatial_scale + offset_dst``: offsets 0, 0
  (``asymmetric``, and all of ROIAlign-3), 0, -0.5 (``half_pixel_for_nn``), 0.5, -0.5
  (``half_pixel``); only ``asymmetric`` widens boxes to at least 1 x 1;
* each bin holds ``sampling_ratio`` x ``sampling_ratio`` samples at the centres of a regular
  sub-grid (``sampling_ratio`` 0: ``ceil(bin size)`` per axis, per box);
* a sample outside ``[-1, size]`` counts as 0; otherwise it is clamped at 0 and bilinearly
  interpolated, the pixel index clamped to the last row/column;
* ``avg`` sums ``sample / count``; ``max`` is the maximum of the samples and 0 (the kernel starts
  from 0, so an all-negative bin gives 0);
* a bin without samples (``sampling_ratio`` 0 and a box of no or negative extent, possible
  outside ``asymmetric``) is NaN with ``avg`` (the CPU plugin divides 0 by 0; the reference
  kernel gives 0 or fails its assertion) and 0 with ``max``;
* f16/bf16 compute in f32, f64 in f64; a batch index outside the feature maps is refused (the
  CPU plugin: "Demanded batch (id = 2) doesn't exist").

Vectorised over boxes, bins and samples: boxes with the same sample counts form one group (one
group unless ``sampling_ratio`` is 0), each group is one gather of the 4 taps of every sample.
"""
from __future__ import annotations

import numpy as np

from ..errors import OpError
from ..limits.memory import check_alloc
from ..types import elements
from ..types.shapes import DYN, Dim, PartialShape
from .base import Attr, Op, TensorInfo, as_int64, check_index_input, spec_url
from .registry import register

_OFFSETS = {"asymmetric": (0.0, 0.0), "half_pixel_for_nn": (0.0, -0.5), "half_pixel": (0.5, -0.5)}


def roi_align_shape(data: TensorInfo, rois: TensorInfo, index: TensorInfo, ph: int, pw: int) -> PartialShape:
    """``[num_rois, C, pooled_h, pooled_w]`` with OpenVINO's checks (roi_align_shape_inference)."""
    if ph < 0 or pw < 0:
        raise OpError(f"irrun refuses negative pooled sizes: pooled_h {ph} and pooled_w {pw} "
                      "(the output dims)")
    if not (data.etype.is_dynamic or rois.etype.is_dynamic) and (data.etype != rois.etype or not data.etype.is_float):
        raise OpError("The data type for input and ROIs is expected to be a same floating point type. Got: "
                      f"{data.etype} and: {rois.etype}", port="input 1")
    check_index_input(index, "input 2", f"The data type for batch indices is expected to be an integer. Got: {index.etype}")
    for info, rank, what, port in ((data, 4, "4D tensor for the input data", 0), (rois, 2, "2D tensor for the ROIs input", 1),
                                   (index, 1, "1D tensor for the batch indices input", 2)):
        if info.shape.rank not in (None, rank):
            raise OpError(f"Expected a {what}. Got: {info.shape}", port=f"input {port}")
    n = DYN
    if rois.shape.rank is not None:
        if rois.shape[1].intersect(Dim(4, 4)) is None:
            raise OpError("The second dimension of ROIs input should contain box coordinates. op dimension is "
                          f"expected to be equal to 4. Got: {rois.shape[1]}", port="input 1")
        n = rois.shape[0]
    if index.shape.rank is not None:
        merged = n.intersect(index.shape[0])
        if merged is None:
            raise OpError("The first dimension of ROIs input must be equal to the first dimension of the batch "
                          f"indices input. Got: {n} and: {index.shape[0]}", port="input 2")
        n = merged
    c = data.shape[1] if data.shape.rank is not None else DYN
    return PartialShape([n, c, ph, pw])


class _ROIAlign(Op):
    """Inputs: feature maps [N, C, H, W], boxes [num_rois, 4] of the same float type, batch
    indices [num_rois] of an integer type."""
    category = "spatial"

    num_inputs = (3, 3)
    restrictions = "sampling_ratio >= 0"
    fresh_outputs = True
    aligned_mode = "asymmetric"

    def infer(self, inputs):
        if self.sampling_ratio < 0:
            raise OpError(f"sampling_ratio {self.sampling_ratio} is negative (OpenVINO accepts the layer; its "
                          "kernels cannot run it)", openvino_loads=True)
        data = inputs[0]
        if not data.etype.is_dynamic and (data.etype.name.startswith("f8") or data.etype.bits < 8):
            raise OpError(f"irrun does not run ROIAlign on {data.etype} data", port="input 0", unsupported=True)
        return [TensorInfo(data.etype, roi_align_shape(*inputs, self.pooled_h, self.pooled_w))]

    def run(self, fm, rois, index):
        infos = [TensorInfo.of(a, elements.from_dtype(a.dtype)) for a in (fm, rois, index)]
        shape = roi_align_shape(*infos, self.pooled_h, self.pooled_w).to_tuple()
        n, c, h, w = fm.shape
        batch = as_int64(index)
        bad = (batch < 0) | (batch >= n)
        if bad.any():
            raise OpError(f"Demanded batch (id = {batch[bad][0]}) doesn't exist", port="input 2")
        wd = np.dtype(np.float64 if fm.dtype == np.float64 else np.float32)
        out = np.zeros(shape, wd)
        if out.size == 0:
            return [out.astype(fm.dtype)]
        if h == 0 or w == 0:
            raise OpError(f"the feature map is empty ({h}x{w}): there is nothing to sample (OpenVINO "
                          "reads outside it)", port="input 0", openvino_loads=True)
        ph, pw = self.pooled_h, self.pooled_w
        src, dst = (wd.type(v) for v in _OFFSETS[self.aligned_mode])
        with np.errstate(invalid="ignore", over="ignore"):     # refused just below when not finite
            r = (rois.astype(wd) + src) * wd.type(self.spatial_scale) + dst
        if not np.isfinite(r).all():
            raise OpError("the ROI coordinates times spatial_scale must be finite (OpenVINO samples "
                          "outside the feature map)", port="input 1", openvino_loads=True)
        x1, y1 = r[:, 0], r[:, 1]
        with np.errstate(over="ignore"):        # refused just below when it overflows
            rw, rh = r[:, 2] - x1, r[:, 3] - y1
        if not (np.isfinite(rw).all() and np.isfinite(rh).all()):
            raise OpError("an ROI's width or height overflows the element type (coordinates near "
                          "its largest value)", port="input 1", openvino_loads=True)
        if self.aligned_mode == "asymmetric":
            rw, rh = np.maximum(rw, wd.type(1)), np.maximum(rh, wd.type(1))
        bw, bh = rw / wd.type(pw), rh / wd.type(ph)
        if self.sampling_ratio:
            sx = sy = np.full(len(r), self.sampling_ratio)
        else:                                   # capped, so that the grid check below refuses
            sx, sy = (np.minimum(np.ceil(v), 2.0**52).astype(np.int64) for v in (bw, bh))
        maps = fm.astype(wd, copy=False).reshape(n, c, h * w).transpose(0, 2, 1)     # (N, H*W, C)
        for gx, gy in set(zip(sx.tolist(), sy.tolist())):
            if gx <= 0 or gy <= 0:              # no samples: avg 0/0, max 0 (the CPU plugin)
                out[np.flatnonzero((sx == gx) & (sy == gy))] = np.nan if self.mode == "avg" else 0
                continue
            k = np.flatnonzero((sx == gx) & (sy == gy))
            check_alloc((len(k), ph, pw, gy, gx, c), wd, "the sampling grid")
            out[k] = self._pool(maps, batch[k], x1[k], y1[k], bw[k], bh[k], gx, gy, h, w, wd)
        return [out.astype(fm.dtype)]

    def _pool(self, maps, batch, x1, y1, bw, bh, sx, sy, h, w, wd):
        """Bins of the boxes of one group: (boxes, C, pooled_h, pooled_w)."""
        ph, pw = self.pooled_h, self.pooled_w
        k = len(batch)
        dy, dx = bh / wd.type(sy), bw / wd.type(sx)
        ys = (y1[:, None, None] + np.arange(ph, dtype=wd)[None, :, None] * bh[:, None, None]
              + dy[:, None, None] * (np.arange(sy, dtype=wd) + wd.type(0.5)))             # (k, ph, sy)
        xs = (x1[:, None, None] + np.arange(pw, dtype=wd)[None, :, None] * bw[:, None, None]
              + dx[:, None, None] * (np.arange(sx, dtype=wd) + wd.type(0.5)))             # (k, pw, sx)
        y, x = np.broadcast_arrays(ys[:, :, None, :, None], xs[:, None, :, None, :])      # (k, ph, pw, sy, sx)
        valid = (y >= -1) & (y <= h) & (x >= -1) & (x <= w)
        y, x = np.clip(y, 0, h), np.clip(x, 0, w)        # invalid samples count 0 (and fit int64)
        yl, xl = np.minimum(y.astype(np.int64), h - 1), np.minimum(x.astype(np.int64), w - 1)
        y = np.where(yl == h - 1, yl, y).astype(wd, copy=False)
        x = np.where(xl == w - 1, xl, x).astype(wd, copy=False)
        yh, xh = np.minimum(yl + 1, h - 1), np.minimum(xl + 1, w - 1)
        ly, lx = y - yl, x - xl
        hy, hx = 1 - ly, 1 - lx
        b = batch.reshape(k, 1)
        flat = lambda yy, xx: maps[b, (yy * w + xx).reshape(k, -1)]  # noqa: E731  (k, P, C)
        wgt = lambda a: a.reshape(k, -1, 1)  # noqa: E731
        v = (wgt(hy * hx) * flat(yl, xl) + wgt(hy * lx) * flat(yl, xh)
             + wgt(ly * hx) * flat(yh, xl) + wgt(ly * lx) * flat(yh, xh))
        v = np.where(wgt(valid), v, 0).reshape(k, ph, pw, sy * sx, -1)
        if self.mode == "avg":
            pooled = (v / wd.type(sx * sy)).sum(axis=3)
        else:
            pooled = np.maximum(v.max(axis=3), 0)
        return pooled.transpose(0, 3, 1, 2)


_ATTRS = {"pooled_h": Attr("int", required=True), "pooled_w": Attr("int", required=True),
          "sampling_ratio": Attr("int", required=True), "spatial_scale": Attr("float", required=True),
          "mode": Attr("enum", required=True, choices=("avg", "max"))}


@register
class ROIAlign3(_ROIAlign):
    """ROIAlign-3: the ``asymmetric`` coordinates of ROIAlign-9."""

    type, version = "ROIAlign", "opset3"
    spec = spec_url("detection/roi-align-3")
    attrs = _ATTRS


@register
class ROIAlign9(_ROIAlign):
    """ROIAlign-9: adds ``aligned_mode`` (asymmetric, half_pixel_for_nn, half_pixel)."""

    type, version = "ROIAlign", "opset9"
    spec = spec_url("detection/roi-align-9")
    attrs = {**_ATTRS, "aligned_mode": Attr("enum", "asymmetric", choices=tuple(_OFFSETS))}
