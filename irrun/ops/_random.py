"""OpenVINO's random streams (RandomUniform-8 and Multinomial-13 draw from them; the rules are in
random_uniform.py's docstring): Philox-4x32-10 as TensorFlow (OpenVINO's default) and MT19937
as PyTorch's CPU generator (``alignment="pytorch"``).
"""
from __future__ import annotations

import ml_dtypes
import numpy as np

from ..limits.memory import check_alloc
from ..types.elements import TYPES

_M = 0xFFFFFFFF
_W32A, _W32B = 0x9E3779B9, 0xBB67AE85
_MA, _MB = 0xD2511F53, 0xCD9E8D57


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
    dtype = np.dtype(TYPES[etype].dtype)
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
    width = (hi_ - lo_).astype(dtype) if etype in ("f16", "bf16") else hi_ - lo_
    return (x * acc(width) + acc(lo_)).astype(dtype).reshape(shape)


def uniform(shape: tuple[int, ...], etype: str, lo, hi, global_seed: int, op_seed: int) -> np.ndarray:
    """``shape`` numbers of type ``etype`` in ``[lo, hi)`` from OpenVINO's stream."""
    n = int(np.prod(shape, dtype=np.int64))
    dtype = np.dtype(TYPES[etype].dtype)
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
        span32 = np.uint32((int(hi) - int(lo)) & _M)
        return ((w % span32) + np.uint32(int(lo) & _M)).view(np.int32).reshape(shape)
    if etype == "f32":
        x32 = ((w & np.uint32(0x7FFFFF)) | np.uint32(127 << 23)).view(np.float32) - np.float32(1)
        return (x32 * (np.float32(hi) - np.float32(lo)) + np.float32(lo)).reshape(shape)
    w16 = w.astype(np.uint16)
    if etype == "f16":
        x = ((w16 & np.uint16(0x3FF)) | np.uint16(15 << 10)).view(np.float16) - np.float16(1)
    else:
        x = ((w16 & np.uint16(0x7F)) | np.uint16(127 << 7)).view(ml_dtypes.bfloat16) - dtype.type(1)
    lo_, hi_ = dtype.type(lo), dtype.type(hi)
    return ((x * (hi_ - lo_)).astype(dtype) + lo_).astype(dtype).reshape(shape)
