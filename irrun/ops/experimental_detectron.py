"""ExperimentalDetectronTopKROIs-6, ExperimentalDetectronPriorGridGenerator-6 and
ExperimentalDetectronROIFeatureExtractor-6: the Mask R-CNN (Detectron) box and feature helpers.

As OpenVINO's reference kernels compute them (in f32):

* TopKROIs: the ``max_rois`` boxes of highest probability (descending; ties by index), zero rows
  when there are fewer boxes.
* PriorGridGenerator: every prior shifted to the centre of every cell of an ``h x w`` grid
  (``h``/``w`` 0: the feature map's size; strides 0: image size / grid size); rows ordered
  (y, x, prior), ``[h*w*priors, 4]`` or ``[h, w, priors, 4]`` unflattened. OpenVINO sizes the
  output by the feature map but fills it by ``h``/``w`` (the rest is uninitialised memory,
  measured), so irrun refuses ``h``/``w`` other than the feature map's.
* ROIFeatureExtractor: each box goes to pyramid level ``floor(2 + log2(sqrt(area) / 224 + 1e-6))``
  clipped to the levels (a box of area <= 0 to none: zero features); level ``i`` is sampled by
  Caffe2's ROIAlign at scale ``1 / pyramid_scales[i]`` (``aligned``: coordinates shifted by half a
  pixel; boxes at least 1x1; ``sampling_ratio`` 0: ``ceil(box / output_size)`` samples per bin),
  and the boxes are passed through as the second output. Only batch 0 exists (boxes have no batch
  index).
"""
from __future__ import annotations

import math

import numpy as np

from ..errors import OpError
from ..limits.memory import check_alloc
from ..types.shapes import DYN, Dim, PartialShape
from ._detectron import bilinear_taps
from .base import Attr, Op, TensorInfo, spec_url
from .registry import register


def _floats(inputs, n: int) -> None:
    for i, t in enumerate(inputs[:n]):
        if not (t.etype.is_dynamic or t.etype.is_float):
            raise OpError(f"Input {i} must be floating-point. Got: {t.etype}", port=f"input {i}")


def _boxes(t: TensorInfo, port: int, what: str = "Input rois") -> Dim:
    if t.shape.rank not in (None, 2):
        raise OpError(f"{what} rank must be equal to 2. Got: {t.shape}", port=f"input {port}")
    if t.shape.rank == 2 and t.shape[1].intersect(Dim(4, 4)) is None:
        raise OpError(f"The last dimension of the '{what}' input must be equal to 4. Got: {t.shape[1]}",
                      port=f"input {port}")
    return t.shape[0] if t.shape.rank == 2 else DYN


@register
class ExperimentalDetectronTopKROIs6(Op):
    """ExperimentalDetectronTopKROIs-6: rois ``[N, 4]``, probabilities ``[N]`` -> ``[max_rois, 4]``."""
    category = "detection"

    type, version = "ExperimentalDetectronTopKROIs", "opset6"
    spec = spec_url("sort/experimental-detectron-top-krois-6")
    attrs = {"max_rois": Attr("int", required=True, default=0)}
    num_inputs = (2, 2)

    def infer(self, inputs):
        rois, probs = inputs
        _floats(inputs, 2)
        n = _boxes(rois, 0)
        if probs.shape.rank not in (None, 1):
            raise OpError(f"The 'input_probs' input is expected to be a 1D. Got: {probs.shape}", port="input 1")
        if probs.shape.rank == 1 and n.intersect(probs.shape[0]) is None:
            raise OpError("Number of rois and number of probabilities should be equal.", port="input 1")
        if self.max_rois < 0:
            raise OpError(f"max_rois must be non-negative. Got: {self.max_rois}")
        return [TensorInfo(rois.etype, PartialShape([Dim.of(self.max_rois), Dim(4, 4)]))]

    def run(self, rois, probs):
        order = np.argsort(-probs.astype(np.float64), kind="stable")[:self.max_rois]
        out = np.zeros((self.max_rois, 4), rois.dtype)
        out[:order.size] = rois[order]
        return [out]


@register
class ExperimentalDetectronPriorGridGenerator6(Op):
    """ExperimentalDetectronPriorGridGenerator-6: priors ``[P, 4]``, feature map ``[N, C, H, W]``,
    image ``[N, 3, IH, IW]``."""
    category = "detection"

    type, version = "ExperimentalDetectronPriorGridGenerator", "opset6"
    spec = spec_url("detection/experimental-detectron-prior-grid-generator-6")
    attrs = {"flatten": Attr("bool", True), "h": Attr("int", 0), "w": Attr("int", 0),
             "stride_x": Attr("float", 0.0), "stride_y": Attr("float", 0.0)}
    num_inputs = (3, 3)

    def infer(self, inputs):
        priors, fmap, image = inputs
        _floats(inputs, 3)
        p = _boxes(priors, 0, "Priors")
        for i, t in ((1, fmap), (2, image)):
            if t.shape.rank not in (None, 4):
                raise OpError(f"Input {i} rank must be equal to 4. Got: {t.shape}", port=f"input {i}")
        fh, fw = (fmap.shape[2], fmap.shape[3]) if fmap.shape.rank == 4 else (DYN, DYN)
        fh, fw = self._grid(fh, fw)
        if self.flatten:
            shape = [fh * fw * p, Dim(4, 4)]
        else:
            shape = [fh, fw, p, Dim(4, 4)]
        return [TensorInfo(priors.etype, PartialShape(shape))]

    def _grid(self, fh: Dim, fw: Dim) -> tuple[Dim, Dim]:
        """The grid's dims: the feature map's, which ``h``/``w`` (when set) must equal."""
        out = []
        for attr, d, name in ((self.h, fh, "h"), (self.w, fw, "w")):
            if attr and d.intersect(Dim.of(attr)) is None:
                raise OpError(f"the grid's {name}={attr} is not the feature map's {d} (OpenVINO sizes the output "
                              f"by the feature map and leaves the rest uninitialised)", port="input 1",
                              openvino_loads=True)
            out.append(Dim.of(attr) if attr else d)
        return out[0], out[1]

    def run(self, priors, fmap, image):
        H, W = (d.lo for d in self._grid(Dim.of(fmap.shape[2]), Dim.of(fmap.shape[3])))
        sw = np.float32(self.stride_x) if self.stride_x else np.float32(image.shape[3]) / np.float32(W)
        sh = np.float32(self.stride_y) if self.stride_y else np.float32(image.shape[2]) / np.float32(H)
        check_alloc((H, W, priors.shape[0], 4), priors.dtype)
        sx = sw * (np.arange(W, dtype=np.float32) + np.float32(0.5))
        sy = sh * (np.arange(H, dtype=np.float32) + np.float32(0.5))
        shift = np.zeros((H, W, 1, 4), np.float32)
        shift[..., 0] = shift[..., 2] = sx[None, :, None]
        shift[..., 1] = shift[..., 3] = sy[:, None, None]
        out = (priors.astype(np.float32)[None, None] + shift).astype(priors.dtype)
        return [out.reshape(-1, 4) if self.flatten else out]


def roi_align(fmap: np.ndarray, box: np.ndarray, scale: float, out: int, ratio: int, aligned: bool) -> np.ndarray:
    """Caffe2's ROIAlign of one box on ``fmap`` ``[C, H, W]`` -> ``[C, out, out]`` (f32)."""
    C, H, W = fmap.shape
    f = np.float32
    off = f(0.5) if aligned else f(0)
    x0, y0, x1, y1 = (f(v) * f(scale) - off for v in box)
    rw, rh = max(x1 - x0, f(1)), max(y1 - y0, f(1))
    bh, bw = rh / f(out), rw / f(out)
    gh = ratio if ratio > 0 else int(math.ceil(rh / out))
    gw = ratio if ratio > 0 else int(math.ceil(rw / out))
    p = np.arange(out, dtype=np.float32)
    ys = (y0 + p[:, None] * bh + (np.arange(gh, dtype=f) + f(0.5))[None, :] * bh / f(gh)).reshape(-1)
    xs = (x0 + p[:, None] * bw + (np.arange(gw, dtype=f) + f(0.5))[None, :] * bw / f(gw)).reshape(-1)
    Y, X = np.meshgrid(ys, xs, indexing="ij")                          # [out*gh, out*gw]
    val = bilinear_taps(fmap, Y, X)
    return val.reshape(C, out, gh, out, gw).sum(axis=(2, 4)) / f(gh * gw)


@register
class ExperimentalDetectronROIFeatureExtractor6(Op):
    """ExperimentalDetectronROIFeatureExtractor-6: rois ``[N, 4]``, then one feature map
    ``[1, C, H_i, W_i]`` per pyramid level -> features ``[N, C, out, out]`` and the rois."""
    category = "detection"

    type, version = "ExperimentalDetectronROIFeatureExtractor", "opset6"
    spec = spec_url("detection/experimental-detectron-roi-feature-extractor-6")
    attrs = {"output_size": Attr("int", required=True, default=0), "sampling_ratio": Attr("int", 0),
             "pyramid_scales": Attr("ints", required=True, default=[]), "aligned": Attr("bool", False)}
    num_inputs = (2, None)

    def infer(self, inputs):
        rois, *levels = inputs
        _floats(inputs, len(inputs))
        n = _boxes(rois, 0)
        if self.output_size < 1 or self.sampling_ratio < 0:
            raise OpError(f"output_size must be positive and sampling_ratio non-negative. Got: "
                          f"{self.output_size}, {self.sampling_ratio}")
        if len(self.pyramid_scales) != len(levels) or any(s <= 0 for s in self.pyramid_scales):
            raise OpError(f"pyramid_scales must hold one positive scale per feature map ({len(levels)}). Got: "
                          f"{self.pyramid_scales}")
        c = DYN
        for i, t in enumerate(levels, 1):
            if t.shape.rank not in (None, 4):
                raise OpError(f"Rank of each element of the pyramid must be equal to 4. Got: {t.shape}", port=f"input {i}")
            if t.shape.rank == 4:
                merged = c.intersect(t.shape[1])
                if merged is None:
                    raise OpError("The number of channels must be the same for all layers of the pyramid.",
                                  port=f"input {i}")
                c = merged
        o = Dim.of(self.output_size)
        return [TensorInfo(rois.etype, PartialShape([n, c, o, o])), TensorInfo(rois.etype, PartialShape([n, Dim(4, 4)]))]

    def run(self, rois, *levels):
        C = levels[0].shape[1]
        if any(lv.shape[1] != C or lv.shape[0] < 1 for lv in levels):
            raise OpError("the pyramid's feature maps need the same channels and a batch", port="input 1")
        o = self.output_size
        check_alloc((rois.shape[0], C, o, o), np.dtype(np.float32))
        out = np.zeros((rois.shape[0], C, o, o), np.float32)
        L = len(levels)
        for r, box in enumerate(rois.astype(np.float32)):
            area = (box[2] - box[0]) * (box[3] - box[1])
            if not area > 0:
                continue
            lvl = int(math.floor(math.log2(float(np.sqrt(area) / np.float32(224)) + 1e-6) + 2))
            lvl = max(0, min(L - 1, lvl))
            out[r] = roi_align(levels[lvl][0], box, 1.0 / self.pyramid_scales[lvl], o, self.sampling_ratio,
                               self.aligned)
        return [out.astype(rois.dtype), rois.copy()]
