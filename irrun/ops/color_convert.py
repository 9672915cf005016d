"""NV12toRGB-8, NV12toBGR-8, I420toRGB-8, I420toBGR-8: YUV 4:2:0 images to RGB/BGR, NHWC.

NV12 is a Y plane and an interleaved UV plane at half resolution; I420 a Y, a U and a V plane.
Each comes as one input (planes stacked: ``[N, H*3/2, W, 1]``) or one input per plane (Y
``[N, H, W, 1]``; NV12 UV ``[N, H/2, W/2, 2]``; I420 U and V ``[N, H/2, W/2, 1]``). Per pixel, in
f32, as the CPU plugin (the only evaluator: no reference kernel runs it): ``c = Y - 16`` (not
clamped at 0, measured), ``d = U - 128``, ``e = V - 128``;
``R = 1.164c + 1.596e``, ``G = 1.164c - 0.391d - 0.813e``, ``B = 1.164c + 2.018d``, clipped to
[0, 255] (rounded for u8). Output ``[N, H, W, 3]`` in the input's type (u8 or a float type).
"""
from __future__ import annotations

import numpy as np

from ..errors import OpError
from ..types.shapes import DYN, Dim, PartialShape
from .base import Op, TensorInfo, spec_url
from .registry import register


def _half(d: Dim) -> Dim:
    return Dim(d.lo * 2, None if d.hi is None else d.hi * 2)


class _ColorConvert(Op):
    category = "elementwise"
    planes: str          # "nv12" or "i420"
    bgr: bool

    @property
    def _channels(self) -> list[int]:
        """Channels of the inputs when given plane by plane."""
        return [1, 2] if self.planes == "nv12" else [1, 1, 1]

    def infer(self, inputs):
        n = len(inputs)
        if n not in (1, len(self._channels)):
            raise OpError(f"{self.type} takes 1 or {len(self._channels)} inputs. Got: {n}")
        known = [t.etype for t in inputs if not t.etype.is_dynamic]
        for i, t in enumerate(inputs):
            if t.etype.is_dynamic:
                continue
            if not (t.etype.name == "u8" or t.etype.is_float):
                raise OpError(f"Input type shall have u8 or floating-point precision, got {t.etype}", port=f"input {i}")
            if t.etype != known[0]:
                raise OpError("Y, U, V planes must have the same element type.", port=f"input {i}")
            if t.shape.rank not in (None, 4):
                raise OpError(f"Input {i} shall have 4 dimensions (N, H, W, C). Got: {t.shape}", port=f"input {i}")
        et = known[0] if known else inputs[0].etype
        y = inputs[0].shape
        if y.rank is None:
            return [TensorInfo(et, PartialShape([DYN, DYN, DYN, Dim(3, 3)]))]
        N, H, W, C = y
        if C.intersect(Dim(1, 1)) is None:
            raise OpError(f"Y channels dimension shall be either dynamic or equal to 1. Current value is {C}",
                          port="input 0")
        if n == 1:
            if H.is_static and H.lo % 3:
                raise OpError(f"Image height shall be divisible by 3. Current value is {H.lo}", port="input 0")
            H = Dim(H.lo * 2 // 3, None if H.hi is None else H.hi * 2 // 3)
        else:
            for i, (t, ch) in enumerate(zip(inputs[1:], self._channels[1:]), 1):
                if t.shape.rank is None:
                    continue
                n2, h2, w2, c2 = t.shape
                if c2.intersect(Dim(ch, ch)) is None or h2.intersect(Dim(0, None)) is None:
                    raise OpError(f"Input {i} channels dimension shall be {ch}. Got: {c2}", port=f"input {i}")
                merged = [N.intersect(n2), H.intersect(_half(h2)), W.intersect(_half(w2))]
                if None in merged:
                    raise OpError(f"Input {i} shall have the Y plane's batch and half its height and width. "
                                  f"Got: {t.shape}", port=f"input {i}")
                N, H, W = merged
        for d, what in ((H, "height"), (W, "width")):
            if d.is_static and d.lo % 2:
                raise OpError(f"Image {what} must be even, but it is {d.lo}", port="input 0")
        return [TensorInfo(et, PartialShape([N, H, W, Dim(3, 3)]))]

    def run(self, *planes):
        if len(planes) == 1:
            x = planes[0]
            N, H3, W, _ = x.shape
            H = H3 * 2 // 3
            y = x[:, :H, :, 0]
            rest = x[:, H:, :, 0].reshape(N, -1)
            if self.planes == "nv12":
                uv = rest.reshape(N, H // 2, W // 2, 2)
                u, v = uv[..., 0], uv[..., 1]
            else:
                q = (H // 2) * (W // 2)
                u, v = rest[:, :q].reshape(N, H // 2, W // 2), rest[:, q:].reshape(N, H // 2, W // 2)
        else:
            y = planes[0][..., 0]
            if self.planes == "nv12":
                u, v = planes[1][..., 0], planes[1][..., 1]
            else:
                u, v = planes[1][..., 0], planes[2][..., 0]
        up = lambda p: np.repeat(np.repeat(p, 2, axis=1), 2, axis=2).astype(np.float32)  # noqa: E731
        c = y.astype(np.float32) - np.float32(16)
        d, e = up(u) - np.float32(128), up(v) - np.float32(128)
        r = np.float32(1.164) * c + np.float32(1.596) * e
        g = np.float32(1.164) * c - np.float32(0.391) * d - np.float32(0.813) * e
        b = np.float32(1.164) * c + np.float32(2.018) * d
        out = np.stack([b, g, r] if self.bgr else [r, g, b], axis=-1)
        out = np.clip(np.round(out) if planes[0].dtype == np.uint8 else out, 0, 255)
        return [out.astype(planes[0].dtype)]


@register
class NV12toRGB8(_ColorConvert):
    """NV12toRGB-8: NV12 to RGB; see the module docstring."""
    type, version, spec = "NV12toRGB", "opset8", spec_url("image/nv12-to-rgb-8")
    planes, bgr, num_inputs = "nv12", False, (1, 2)


@register
class NV12toBGR8(_ColorConvert):
    """NV12toBGR-8: NV12 to BGR; see the module docstring."""
    type, version, spec = "NV12toBGR", "opset8", spec_url("image/nv12-to-bgr-8")
    planes, bgr, num_inputs = "nv12", True, (1, 2)


@register
class I420toRGB8(_ColorConvert):
    """I420toRGB-8: I420 to RGB; see the module docstring."""
    type, version, spec = "I420toRGB", "opset8", spec_url("image/i420-to-rgb-8")
    planes, bgr, num_inputs = "i420", False, (1, 3)


@register
class I420toBGR8(_ColorConvert):
    """I420toBGR-8: I420 to BGR; see the module docstring."""
    type, version, spec = "I420toBGR", "opset8", spec_url("image/i420-to-bgr-8")
    planes, bgr, num_inputs = "i420", True, (1, 3)
