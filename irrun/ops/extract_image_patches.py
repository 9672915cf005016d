"""ExtractImagePatches-3: every ``sizes`` patch of an image (taken every ``strides``, its pixels
``rates`` apart) laid out along the channel axis, as TensorFlow's ``extract_image_patches``.

Input ``[N, C, H, W]``, output ``[N, kh*kw*C, out_h, out_w]`` with the depth ordered
``(row, col, channel)``. ``auto_pad`` ``valid`` keeps whole patches (``out = (in - rate*(k-1) - 1)
// stride + 1``); ``same_upper``/``same_lower`` give ``out = ceil(in / stride)`` with zero padding,
the odd pixel at the end / at the start.
"""
from __future__ import annotations

import numpy as np

from ..errors import OpError
from ..limits.memory import check_alloc
from ..types.shapes import DYN, Dim, PartialShape
from .base import Attr, Op, TensorInfo, spec_url
from .registry import register


@register
class ExtractImagePatches3(Op):
    """ExtractImagePatches-3; see the module docstring."""
    category = "spatial"

    type, version = "ExtractImagePatches", "opset3"
    spec = spec_url("movement/extract-image-patches-3")
    attrs = {"sizes": Attr("ints", required=True), "strides": Attr("ints", required=True),
             "rates": Attr("ints", required=True),
             "auto_pad": Attr("enum", required=True, choices=("valid", "same_upper", "same_lower"))}
    num_inputs = (1, 1)

    def _check(self) -> None:
        for name in ("sizes", "strides", "rates"):
            v = getattr(self, name)
            if len(v) != 2 or min(v) < 1:
                raise OpError(f"Attribute {name} must have two positive values. Got: {v}")

    def patch_count(self, n: int, d: int) -> int:
        """How many patches fit along spatial axis ``d`` of ``n`` pixels (the auto_pad rule);
        the ONNX export sizes its Slices by it."""
        k, s, r = self.sizes[d], self.strides[d], self.rates[d]
        if self.auto_pad == "valid":
            return max(0, (n - r * (k - 1) - 1) // s + 1) if n >= r * (k - 1) + 1 else 0
        return -(-n // s)

    def infer(self, inputs):
        x = inputs[0]
        self._check()
        if x.shape.rank not in (None, 4):
            raise OpError(f"input tensor must be 4D tensor. Got: {x.shape}", port="input 0")
        if x.shape.rank is None:
            return [TensorInfo(x.etype, PartialShape(None))]
        N, C, H, W = x.shape
        kk = self.sizes[0] * self.sizes[1]
        depth = Dim(C.lo * kk, None if C.hi is None else C.hi * kk)
        sp = [Dim.of(self.patch_count(d.lo, i)) if d.is_static else DYN for i, d in enumerate((H, W))]
        return [TensorInfo(x.etype, PartialShape([N, depth, *sp]))]

    def run(self, x):
        self._check()
        N, C, H, W = x.shape
        out_hw = [self.patch_count(n, d) for d, n in enumerate((H, W))]
        pads = []
        for d, n in enumerate((H, W)):
            span = self.rates[d] * (self.sizes[d] - 1) + 1
            total = max(0, (out_hw[d] - 1) * self.strides[d] + span - n) if self.auto_pad != "valid" else 0
            pads.append(total // 2 if self.auto_pad == "same_upper" else total - total // 2)
        (kh, kw), (sh, sw), (rh, rw) = self.sizes, self.strides, self.rates
        check_alloc((N, kh * kw * C, *out_hw), x.dtype)
        padded_shape = (N, C, H + kh * rh + sh * out_hw[0], W + kw * rw + sw * out_hw[1])
        check_alloc(padded_shape, x.dtype, "the padded image")
        padded = np.zeros(padded_shape, x.dtype)
        padded[:, :, pads[0]:pads[0] + H, pads[1]:pads[1] + W] = x
        out = np.empty((N, kh, kw, C, *out_hw), x.dtype)
        for i in range(kh):
            for j in range(kw):
                r0, c0 = i * rh, j * rw
                out[:, i, j] = padded[:, :, r0:r0 + sh * out_hw[0]:sh, c0:c0 + sw * out_hw[1]:sw][:, :, :out_hw[0], :out_hw[1]]
        return [out.reshape(N, kh * kw * C, *out_hw)]
