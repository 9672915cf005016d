"""RandomUniform-8: uniform random numbers in ``[min, max)``, the same stream as OpenVINO's.

OpenVINO's CPU plugin (the oracle) draws from Philox-4x32-10 as TensorFlow does: block ``i`` is
the ten rounds on the counter ``[i low, i high, op_seed low, op_seed high]`` under the key
``global_seed`` (low, high 32 bits), four u32 words per block. Measured bit for bit against its
reference kernel, which the CPU plugin matches on f32/bf16/i32 (it computes f16/f64/i64 outputs
in f32/i32 and so draws other numbers).
f32/f16/bf16/i32 take one word per element, f64/i64 two:

* floats: the word's low mantissa bits under exponent 0 give ``[1, 2)``, minus 1, times
  ``max - min``, plus ``min`` — each step in the output type (f16/bf16 round every step);
* integers: ``word % (max - min) + min`` in unsigned arithmetic (i64: ``(w1 << 32 | w0)``).

Each run starts the stream afresh (OpenVINO's evaluator continues it across calls of one compiled
node; a new model starts where irrun does). ``global_seed = op_seed = 0`` asks OpenVINO for a
non-deterministic stream: irrun then draws the key from the operating system's entropy.
``alignment="pytorch"`` draws PyTorch's CPU stream instead: MT19937 seeded with the low 32 bits
of ``global_seed`` (``op_seed`` unused), one 32-bit word per element (f64: two, high word first;
i64: two only when the range exceeds 32 bits), floats as ``(word & (2^digits - 1)) * 2^-digits``
(digits 24/11/8/53 for f32/f16/bf16/f64) scaled into the range, integers ``word % (max - min) +
min`` — matched bit for bit against the reference kernel (the CPU plugin again lowers f16/f64).
"""
from __future__ import annotations

import secrets

import numpy as np

from ..errors import OpError
from ..types.shapes import DYN, Dim, PartialShape
from ._random import uniform, uniform_pytorch
from .base import Attr, Op, TensorInfo, as_int64, spec_url
from .registry import register

_OUTPUT_TYPES = ("f32", "f16", "bf16", "f64", "i32", "i64")


def check_min_max(lo, hi) -> None:
    if not lo < hi:
        show = lambda v: f"{float(v):g}" if np.asarray(v).dtype.kind not in "iu" else str(int(v))  # noqa: E731
        raise OpError(f"Min value must be less than max value. Got min value: {show(lo)}, max value: {show(hi)}",
                      port="input 1")


@register
class RandomUniform8(Op):
    """RandomUniform-8: inputs shape (1-D i32/i64), min and max (one element of ``output_type``)."""
    category = "shape"

    type, version = "RandomUniform", "opset8"
    spec = spec_url("generation/random-uniform-8")
    attrs = {"output_type": Attr("etype", required=True), "global_seed": Attr("int", 0),
             "op_seed": Attr("int", 0), "alignment": Attr("enum", "tensorflow",
                                                          choices=("tensorflow", "pytorch"))}
    num_inputs = (3, 3)

    def infer(self, inputs):
        shape, lo, hi = inputs
        if self.output_type.name not in _OUTPUT_TYPES:
            raise OpError(f"Unsupported output type: {self.output_type}")
        if not (shape.etype.is_dynamic or shape.etype.name in ("i32", "i64")):
            raise OpError("Type of the input should be int32 or int64.", port="input 0")
        if shape.shape.rank not in (None, 1):
            raise OpError("The rank of the tensor defining output shape must be equal to 1.", port="input 0")
        for i, t in ((1, lo), (2, hi)):
            if not (t.etype.is_dynamic or t.etype == self.output_type):
                raise OpError(f"'{'min_val' if i == 1 else 'max_val'}' should have the same type as 'output_type'.",
                              port=f"input {i}")
            if t.shape.is_static and not (t.shape.rank == 0 or (t.shape.rank == 1 and t.shape[0].lo == 1)):
                raise OpError(f"{'Min' if i == 1 else 'Max'} value must be a scalar or one element 1D tensor.",
                              port=f"input {i}")
        if lo.value is not None and hi.value is not None:
            check_min_max(lo.value.reshape(-1)[0], hi.value.reshape(-1)[0])
        if shape.value is not None:
            dims = as_int64(shape.value)
            if np.any(dims < 0):
                raise OpError(f"the shape {dims.tolist()} has a negative dimension", port="input 0")
            return [TensorInfo(self.output_type, PartialShape([Dim.of(int(d)) for d in dims]))]
        if shape.shape.rank == 1 and shape.shape[0].is_static:
            return [TensorInfo(self.output_type, PartialShape([DYN] * shape.shape[0].lo))]
        return [TensorInfo(self.output_type, PartialShape(None))]

    def run(self, shape, lo, hi):
        dims = tuple(int(d) for d in as_int64(shape))
        if any(d < 0 for d in dims):
            raise OpError(f"the shape {list(dims)} has a negative dimension", port="input 0")
        a, b = lo.reshape(-1)[0], hi.reshape(-1)[0]
        check_min_max(a, b)
        g, o = self.global_seed & ((1 << 64) - 1), self.op_seed & ((1 << 64) - 1)
        if g == 0 and o == 0:
            g = secrets.randbits(32)
        if self.alignment == "pytorch":
            return [uniform_pytorch(dims, self.output_type.name, a, b, g)]
        return [uniform(dims, self.output_type.name, a, b, g, o)]
