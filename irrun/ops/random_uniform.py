"""RandomUniform-8: uniform random numbers in ``[min, max)``, the same stream as OpenVINO's.

Spec: https://docs.openvino.ai/2026/documentation/openvino-ir-format/operation-sets/operation-specs/generation/random-uniform-8.html

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

import ml_dtypes
import numpy as np

from ..budget import check_alloc
from ..elements import TYPES
from ..errors import OpError
from ..shapes import DYN, Dim, PartialShape
from .base import Attr, Op, TensorInfo, as_int64
from .registry import register

_M = 0xFFFFFFFF
_W32A, _W32B = 0x9E3779B9, 0xBB67AE85
_MA, _MB = 0xD2511F53, 0xCD9E8D57
_OUTPUT_TYPES = ("f32", "f16", "bf16", "f64", "i32", "i64")


def philox_words(n_calls: int, global_seed: int, op_seed: int) -> np.ndarray:
    """The u32 words of Philox-4x32-10 blocks ``0 .. n_calls-1``, ``[n_calls, 4]`` (vectorised:
    every block is independent)."""
    i = np.arange(n_calls, dtype=np.uint64)
    c = [i & np.uint64(_M), i >> np.uint64(32), np.full(n_calls, op_seed & _M, np.uint64),
         np.full(n_calls, (op_seed >> 32) & _M, np.uint64)]
    k0, k1 = global_seed & _M, (global_seed >> 32) & _M
    mask = np.uint64(_M)
    for r in range(10):
        p0, p1 = np.uint64(_MA) * c[0], np.uint64(_MB) * c[2]
        c = [(p1 >> np.uint64(32)) ^ c[1] ^ np.uint64(k0), p1 & mask,
             (p0 >> np.uint64(32)) ^ c[3] ^ np.uint64(k1), p0 & mask]
        k0, k1 = (k0 + _W32A) & _M, (k1 + _W32B) & _M
    return np.stack(c, axis=1).astype(np.uint32)


def mt19937_words(n: int, seed: int) -> np.ndarray:
    """The first ``n`` outputs of ``std::mt19937(seed)`` (NumPy's legacy seeding is the same)."""
    return np.random.RandomState(seed & _M)._bit_generator.random_raw(n).astype(np.uint64)


def uniform_pytorch(shape: tuple[int, ...], etype: str, lo, hi, global_seed: int) -> np.ndarray:
    """RandomUniform with ``alignment="pytorch"`` (see the module docstring)."""
    n = int(np.prod(shape, dtype=np.int64))
    dtype = TYPES[etype].dtype
    check_alloc(shape, dtype)
    wide = etype == "f64" or (etype == "i64" and (int(lo) > _M or int(hi) > _M))
    w = mt19937_words(2 * n if wide else n, global_seed)
    if wide:
        w = (w[0::2] << np.uint64(32)) + w[1::2]
    if etype in ("i32", "i64"):
        span = np.uint64((int(hi) - int(lo)) & ((1 << 64) - 1))
        return ((w % span).astype(np.int64) + int(lo)).astype(dtype).reshape(shape)
    digits = {"f32": 24, "f16": 11, "bf16": 8, "f64": 53}[etype]
    acc = np.float64 if etype == "f64" else np.float32
    x = (w & np.uint64((1 << digits) - 1)).astype(acc) * acc(2.0 ** -digits)
    lo_, hi_ = dtype.type(lo), dtype.type(hi)
    span = (hi_ - lo_).astype(dtype) if etype in ("f16", "bf16") else hi_ - lo_
    return (x * acc(span) + acc(lo_)).astype(dtype).reshape(shape)


def uniform(shape: tuple[int, ...], etype: str, lo, hi, global_seed: int, op_seed: int) -> np.ndarray:
    """``shape`` numbers of type ``etype`` in ``[lo, hi)`` from OpenVINO's stream."""
    n = int(np.prod(shape, dtype=np.int64))
    dtype = TYPES[etype].dtype
    check_alloc(shape, dtype)
    per_call = 2 if etype in ("f64", "i64") else 4
    words = philox_words(-(-n // per_call), global_seed, op_seed)
    if per_call == 2:
        pairs = words.reshape(-1, 2).astype(np.uint64)[:n]
        if etype == "f64":
            bits = ((pairs[:, 0] & np.uint64(0xFFFFF)) << np.uint64(32)) | pairs[:, 1] | np.uint64(1023 << 52)
            out = (bits.view(np.float64) - 1.0) * (float(hi) - float(lo)) + float(lo)
        else:
            w = (pairs[:, 1] << np.uint64(32)) | pairs[:, 0]
            span = np.uint64((int(hi) - int(lo)) & ((1 << 64) - 1))
            out = ((w % span) + np.uint64(int(lo) & ((1 << 64) - 1))).view(np.int64)
        return out.reshape(shape)
    w = words.reshape(-1)[:n]
    if etype == "i32":
        span = np.uint32((int(hi) - int(lo)) & _M)
        return ((w % span) + np.uint32(int(lo) & _M)).view(np.int32).reshape(shape)
    if etype == "f32":
        x = ((w & np.uint32(0x7FFFFF)) | np.uint32(127 << 23)).view(np.float32) - np.float32(1)
        return (x * (np.float32(hi) - np.float32(lo)) + np.float32(lo)).reshape(shape)
    w16 = w.astype(np.uint16)
    if etype == "f16":
        x = ((w16 & np.uint16(0x3FF)) | np.uint16(15 << 10)).view(np.float16) - np.float16(1)
    else:
        x = ((w16 & np.uint16(0x7F)) | np.uint16(127 << 7)).view(ml_dtypes.bfloat16) - dtype.type(1)
    lo_, hi_ = dtype.type(lo), dtype.type(hi)
    return ((x * (hi_ - lo_)).astype(dtype) + lo_).astype(dtype).reshape(shape)


def check_min_max(lo, hi) -> None:
    if not lo < hi:
        show = lambda v: f"{float(v):g}" if np.asarray(v).dtype.kind not in "iu" else str(int(v))  # noqa: E731
        raise OpError(f"Min value must be less than max value. Got min value: {show(lo)}, max value: {show(hi)}",
                      port="input 1")


@register
class RandomUniform(Op):
    """RandomUniform-8: inputs shape (1-D i32/i64), min and max (one element of ``output_type``)."""

    type, version = "RandomUniform", "opset8"
    spec = "https://docs.openvino.ai/2026/documentation/openvino-ir-format/operation-sets/operation-specs/generation/random-uniform-8.html"
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
