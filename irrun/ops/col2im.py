"""Col2Im-15: the sliding blocks of an image, as Im2Col/``torch.nn.Fold`` lays them out, summed
back into the image.

``data`` is ``[N, C*kh*kw, L]`` (or unbatched ``[C*kh*kw, L]``), ``output_size`` ``[H, W]`` and
``kernel_size`` ``[kh, kw]`` are 1-D inputs of two integers. ``L`` must be the number of blocks
``prod((size + pb + pe - dil*(k-1) - 1) // stride + 1)``. Overlapping blocks add up; positions in
the padding are dropped. Output ``[N, C, H, W]`` (``[C, H, W]`` unbatched).
"""
from __future__ import annotations

import numpy as np

from ..errors import OpError
from ..limits.memory import check_alloc
from ..types.shapes import DYN, Dim, PartialShape
from .base import Attr, Op, TensorInfo, as_int64, spec_url
from .registry import register


def _pair(info: TensorInfo, what: str, port: int) -> list[int] | None:
    if not (info.etype.is_dynamic or info.etype.name in ("i32", "i64")):
        raise OpError(f"The element type of {what} tensor must be i32 or i64 type", port=f"input {port}")
    if info.shape.rank not in (None, 1) or (info.shape.rank == 1 and info.shape[0].intersect(Dim(2, 2)) is None):
        raise OpError(f"{what} must be a 1D input of shape [2]. Got: {info.shape}", port=f"input {port}")
    return None if info.value is None else [int(v) for v in as_int64(info.value)]


@register
class Col2Im15(Op):
    """Col2Im-15; see the module docstring."""
    category = "spatial"

    type, version = "Col2Im", "opset15"
    spec = spec_url("movement/col2im-15")
    attrs = {"strides": Attr("ints", [1, 1]), "dilations": Attr("ints", [1, 1]),
             "pads_begin": Attr("ints", [0, 0]), "pads_end": Attr("ints", [0, 0])}
    num_inputs = (3, 3)

    def _check_attrs(self) -> None:
        for name in ("strides", "dilations", "pads_begin", "pads_end"):
            v = getattr(self, name)
            if len(v) != 2:
                raise OpError(f"{name} must have two values. Got: {v}")
            if any(x < (1 if name in ("strides", "dilations") else 0) for x in v):
                raise OpError(f"{name} values must be {'positive' if name[0] != 'p' else 'non-negative'}. Got: {v}")

    def _blocks(self, size: list[int], kernel: list[int]) -> int:
        n = 1
        for d in range(2):
            span = size[d] + self.pads_begin[d] + self.pads_end[d] - self.dilations[d] * (kernel[d] - 1) - 1
            if kernel[d] < 1 or span < 0:
                raise OpError(f"the kernel {kernel} does not fit the padded output size {size}", port="input 2")
            n *= span // self.strides[d] + 1
        return n

    def infer(self, inputs):
        data, size_i, kernel_i = inputs
        self._check_attrs()
        if data.shape.rank not in (None, 2, 3):
            raise OpError(f"data must be an unbatched (2D) or a batched (3D) input. Got: {data.shape}", port="input 0")
        size, kernel = _pair(size_i, "output_size", 1), _pair(kernel_i, "kernel_size", 2)
        if data.shape.rank is None:
            return [TensorInfo(data.etype, PartialShape(None))]
        batched = data.shape.rank == 3
        cols, L = data.shape[-2], data.shape[-1]
        C = DYN
        if kernel is not None:
            kk = kernel[0] * kernel[1]
            if kk <= 0:
                raise OpError(f"kernel_size values must be positive. Got: {kernel}", port="input 2")
            if cols.is_static and cols.lo % kk:
                raise OpError(f"the data's dim {cols} is not a multiple of the kernel's {kk} elements", port="input 0")
            C = Dim(-(-cols.lo // kk), None if cols.hi is None else cols.hi // kk)
            if size is not None and L.intersect(Dim.of(self._blocks(size, kernel))) is None:
                raise OpError("For given inputs and parameters the total number of data blocks must be equal "
                              f"to {self._blocks(size, kernel)}. Got: {L}", port="input 0")
        hw = [Dim.of(s) for s in size] if size is not None else [DYN, DYN]
        return [TensorInfo(data.etype, PartialShape([*( [data.shape[0]] if batched else []), C, *hw]))]

    def run(self, data, size, kernel):
        self._check_attrs()
        size, kernel = [int(v) for v in as_int64(size)], [int(v) for v in as_int64(kernel)]
        x = data if data.ndim == 3 else data[None]
        kk = kernel[0] * kernel[1]
        if kk <= 0 or x.shape[1] % kk or x.shape[2] != self._blocks(size, kernel) or min(size) < 0:
            raise OpError(f"data {list(data.shape)} does not fit output_size {size} and kernel_size {kernel}",
                          port="input 0")
        N, C = x.shape[0], x.shape[1] // kk
        check_alloc((N, C, *size), data.dtype)
        (sh, sw), (dh, dw), (ph, pw) = self.strides, self.dilations, self.pads_begin
        nh = (size[0] + ph + self.pads_end[0] - dh * (kernel[0] - 1) - 1) // sh + 1
        nw = (size[1] + pw + self.pads_end[1] - dw * (kernel[1] - 1) - 1) // sw + 1
        acc = np.float64 if data.dtype.kind == "f" or data.dtype.name == "bfloat16" else data.dtype
        padded = np.zeros((N, C, size[0] + ph + self.pads_end[0], size[1] + pw + self.pads_end[1]), acc)
        cols = x.reshape(N, C, kernel[0], kernel[1], nh, nw)
        for i in range(kernel[0]):
            for j in range(kernel[1]):
                padded[:, :, i * dh:i * dh + sh * (nh - 1) + 1:sh, j * dw:j * dw + sw * (nw - 1) + 1:sw] += cols[:, :, i, j]
        out = padded[:, :, ph:ph + size[0], pw:pw + size[1]].astype(data.dtype)
        return [out if data.ndim == 3 else out[0]]
