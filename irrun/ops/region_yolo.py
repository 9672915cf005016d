"""RegionYolo-1 (YOLO v2 region / v3 yolo layer activations) and ReorgYolo-2 (YOLO v2 reorg).

Neither has a reference kernel in OpenVINO 2026.4.1's evaluator; the CPU plugin is the oracle.

RegionYolo on [N, C, H, W]: the channels hold ``regions`` blocks of ``coords + classes + 1``
entries (x, y, w, h, ..., confidence, class scores). Per block, x and y and the confidence get a
sigmoid; the class scores get a softmax over the classes (``do_softmax``, YOLO v2, ``num``
regions, output flattened from ``axis`` to ``end_axis``) or a sigmoid each (YOLO v3, one block
per ``mask`` entry, output [N, len(mask) * (coords + classes + 1), H, W]); everything else is
copied. ``anchors`` only describe the model. An input with fewer channels than the blocks need
makes OpenVINO read out of bounds: irrun refuses it. With more channels than the blocks need,
OpenVINO (measured) addresses batch b's blocks at ``b * regions * block * H * W`` in the flat
tensor, not at ``b * C * H * W``: the extra channels shift the later batches, and the v3 output
is the flat input's first ``N * len(mask) * block * H * W`` values. irrun does the same.

ReorgYolo ([N, C, H, W] -> [N, C * s * s, H / s, W / s]) is darknet's reorg as OpenVINO computes
it: the input is read as [N, C // s^2, H * s, W * s] and gathered back: element (n, c, h, w) of
the [N, C, H, W]-ordered output is that view's (n, c % C', h * s + o // s, w * s + o % s) with
C' = C // s^2 and o = c // C'. When s^2 divides C that is a reshape, a transpose and a reshape;
otherwise (OpenVINO only requires ``C >= s^2``) it is the same index arithmetic over the flat
input (it stays inside it), as OpenVINO's CPU plugin does (measured).
"""
from __future__ import annotations

import math

import numpy as np

from ..errors import OpError
from ..types.shapes import Dim, PartialShape
from ._numerics import work_dtype
from .base import Attr, Op, TensorInfo, normalize_axis, spec_url
from .registry import register


def _require_float(info: TensorInfo, what: str) -> None:
    if not (info.etype.is_float or info.etype.is_dynamic):
        raise OpError(f"{what}. Got: {info.etype}", port="input 0")


@register
class RegionYolo1(Op):
    category = "detection"
    type, version = "RegionYolo", "opset1"
    spec = spec_url("detection/region-yolo-1")
    attrs = {"coords": Attr("int", required=True), "classes": Attr("int", required=True),
             "num": Attr("int", required=True), "do_softmax": Attr("bool", True), "mask": Attr("ints", []),
             "axis": Attr("int", required=True), "end_axis": Attr("int", required=True),
             "anchors": Attr("floats", [])}

    @property
    def block(self) -> int:
        return self.coords + self.classes + 1

    @property
    def regions(self) -> int:
        return self.num if self.do_softmax else len(self.mask)

    def infer(self, inputs):
        (x,) = inputs
        _require_float(x, "Type of input is expected to be a floating point type")
        s = x.shape
        if s.rank is None:
            return [TensorInfo(x.etype, PartialShape(None))]
        if s.rank != 4:
            raise OpError(f"Input must be a tensor of rank 4, but got {s.rank}", port="input 0")
        if min(self.coords, self.classes, self.num) < 0:
            raise OpError("coords, classes and num must not be negative")
        need = self.regions * self.block
        if s[1].hi is not None and s[1].hi < need:
            raise OpError(f"the input has {s[1]} channels, the {self.regions} regions need {need} "
                          "(OpenVINO reads out of bounds)", port="input 0", openvino_loads=True)
        if not self.do_softmax:
            return [TensorInfo(x.etype, PartialShape([s[0], need, s[2], s[3]]))]
        a, e = normalize_axis(self.axis, 4), normalize_axis(self.end_axis, 4)
        dims = list(s)
        flat = dims[a]
        for d in dims[a + 1:e + 1]:
            flat = flat * d
        return [TensorInfo(x.etype, PartialShape(dims[:a] + [flat] + dims[max(a, e) + 1:]))]

    def run(self, x):
        if x.ndim != 4:
            raise OpError(f"Input must be a tensor of rank 4, but got {x.ndim}", port="input 0")
        n, c, h, w = x.shape
        need = self.regions * self.block
        if c < need:
            raise OpError(f"the input has {c} channels, the {self.regions} regions need {need}", port="input 0")
        size = n * need * h * w
        flat = x.reshape(-1).astype(work_dtype(x.dtype))     # a copy: the kernel writes into it
        if not self.do_softmax:
            flat = flat[:size]
        blocks = flat[:size].reshape(n, self.regions, self.block, h, w)      # a view of flat
        with np.errstate(over="ignore"):
            sig = lambda v: 1 / (1 + np.exp(-v))                               # noqa: E731
            blocks[:, :, 0:2] = sig(blocks[:, :, 0:2])
            cls = blocks[:, :, self.coords + 1:]
            if self.do_softmax:
                blocks[:, :, self.coords] = sig(blocks[:, :, self.coords])
                e = np.exp(cls - cls.max(axis=2, keepdims=True))
                blocks[:, :, self.coords + 1:] = e / e.sum(axis=2, keepdims=True)
            else:
                blocks[:, :, self.coords:] = sig(blocks[:, :, self.coords:])
        out = flat.reshape((n, c, h, w) if self.do_softmax else (n, need, h, w))
        out = out.astype(x.dtype, copy=False)
        if not self.do_softmax:
            return [out]
        a, e = normalize_axis(self.axis, 4), normalize_axis(self.end_axis, 4)
        end = max(a, e) + 1
        return [out.reshape(out.shape[:a] + (math.prod(out.shape[a:end]),) + out.shape[end:])]


def _div_dim(d: Dim, s: int) -> Dim | None:
    """OpenVINO's ``Dimension / int``: ceil of the lower bound, floor of the upper (None if empty)."""
    lo = -(-d.lo // s)
    hi = None if d.hi is None else d.hi // s
    return None if hi is not None and hi < lo else Dim(lo, hi)


@register
class ReorgYolo2(Op):
    category = "detection"
    type, version = "ReorgYolo", "opset2"
    spec = spec_url("detection/reorg-yolo-1")
    attrs = {"stride": Attr("ints", required=True)}

    @property
    def s(self) -> int:
        return self.stride[0] if self.stride else 0

    def infer(self, inputs):
        (x,) = inputs
        if not self.stride or self.s <= 0:
            raise OpError(f"Stride attribute is required and should be greater than 0. Got: {self.stride} "
                          "(OpenVINO reads a stride of 0 but cannot run it)", openvino_loads=True)
        shape = x.shape
        if shape.rank is None:
            return [TensorInfo(x.etype, PartialShape.dynamic(None))]
        if shape.rank != 4:
            raise OpError("[N, C, H, W] input shape is required.", port="input 0")
        s2 = self.s * self.s
        ch = shape[1]
        if ch.is_static and ch.lo < s2:
            raise OpError("For [N, C, H, W] input shape, C >= (stride*stride) is required.", port="input 0")
        out = [shape[0], ch * s2]
        for d in shape[2:]:
            q = _div_dim(d, self.s)
            if q is None:
                raise OpError("For [N, C, H, W] input shape, H and W should be divisible by stride.", port="input 0")
            out.append(q)
        return [TensorInfo(x.etype, PartialShape(out))]

    def run(self, x):
        if x.ndim != 4:
            raise OpError("[N, C, H, W] input shape is required.", port="input 0")
        n, c, h, w = x.shape
        s = self.s
        if h % s or w % s or c < s * s:
            raise OpError(f"input shape {list(x.shape)} does not fit stride {s}", port="input 0")
        if c % (s * s) == 0:
            v = x.reshape(n, c // (s * s), h, s, w, s).transpose(0, 3, 5, 1, 2, 4)
            return [v.reshape(n, c * s * s, h // s, w // s)]
        return [x.reshape(-1)[reorg_index(x.shape, s)].reshape(n, c * s * s, h // s, w // s)]


def reorg_index(shape: tuple[int, ...], s: int) -> np.ndarray:
    """Flat input index of every output element, in output order."""
    n, c, h, w = shape
    cq = c // (s * s)
    ch = np.arange(c)
    off = ch // cq
    row = (np.arange(n)[:, None] * cq + ch % cq)[:, :, None] * (h * s) + np.arange(h) * s + (off // s)[:, None]
    return (row[..., None] * (w * s) + np.arange(w) * s + (off % s)[:, None, None]).reshape(-1)

