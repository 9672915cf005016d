"""``--matmul-nbits``: a MatMul by int4/int8 blocked weights as onnxruntime's ``com.microsoft``
``MatMulNBits``, the form onnxruntime's own LLM tooling (onnxruntime-genai, its int4 quantizer)
writes and runs with its fused low-bit kernels.

The IR pattern (what :mod:`irrun.export.compressed` recognises, then a MatMul):

    Const(u4/i4/u8/i8 q [N, G, g] or [N, K]) -> Convert -> [Subtract(zero point)] -> Multiply(scale)
        [-> Reshape [N, K]] [-> Convert f32] -> MatMul(A, ., transpose_b=true)

(or ``[K, N]`` weights with transpose_b=false, transposed here). MatMulNBits, as onnxruntime
documents it (docs/ContribOperators.md, com.microsoft.MatMulNBits): ``Y = A @ dequant(B)^T`` with
attributes ``K``, ``N``, ``bits`` (4 or 8), ``block_size`` (a power of 2, at least 16); inputs

* ``B``: uint8 ``[N, K / block_size, block_size * bits / 8]``, each block's values along K; with
  4 bits two to a byte, the even one in the low nibble;
* ``scales``: A's float type, ``[N * K / block_size]``;
* ``zero_points``: uint8 ``[N, ceil(K / block_size * bits / 8)]``, packed like B (absent:
  ``2^(bits-1)``).

Values are unsigned: signed weights (i4/i8) are shifted by ``2^(bits-1)``, their zero point with
them (no zero point: the default ``2^(bits-1)`` is the shifted 0). The block size is the largest
power of 2 from 16 up that divides K and within which every scale and zero point is one value;
weights with none (K not a multiple of 16, per-element scales) stay DequantizeLinear. The
dequantization is exact in f32, as OpenVINO's CPU plugin does it, and the product is a float
MatMul (accuracy_level 0).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from . import compressed
from .emitter import Emitter

DOMAIN = "com.microsoft"
OPSET = 1


@dataclass
class NBits:
    """One matched MatMul: the packed ``b``, ``scales``, ``zero_points`` (or None) and attributes."""

    b: np.ndarray
    scales: np.ndarray
    zero_points: np.ndarray | None
    k: int
    n: int
    bits: int
    block_size: int


def _producer(model, n: int, port: int) -> int:
    from ..analysis.graph import inputs_of
    return inputs_of(model.dag, n)[port][0]


def match(model, n: int, types) -> NBits | None:
    """The MatMulNBits form of MatMul layer ``n`` (its input 1 a compressed weight), or None."""
    op = model.ops[n]
    if op.type != "MatMul" or op.transpose_a or types[(n, 0)].etype.name != "f32":
        return None
    w = _producer(model, n, 1)
    shape2d = types[(w, 0)].shape
    while model.ops[w].type in ("Convert", "Reshape"):
        w = _producer(model, w, 0)
    if model.ops[w].type != "Multiply" or not shape2d.is_static or shape2d.rank != 2:
        return None
    plan = compressed.match(model, w, types)
    if plan is None:
        return None
    q = types[(plan.weight, 0)].value
    etype = types[(plan.weight, 0)].etype.name
    if q is None:
        return None
    rows, cols = (int(d.lo) for d in shape2d)
    if q.size != rows * cols:
        return None
    bits = 4 if etype in ("u4", "i4") else 8
    q = np.asarray(q).astype(np.int32)
    scale = np.broadcast_to(_full(plan.scale, plan.axis, q.shape), q.shape).astype(np.float32)
    zp = np.zeros(q.shape, np.int32) if plan.zero_point is None else \
        np.broadcast_to(_full(np.asarray(plan.zero_point).astype(np.int32), plan.axis, q.shape), q.shape)
    q, scale, zp = (a.reshape(rows, cols) for a in (q, scale, zp))
    if not op.transpose_b:                       # [K, N] -> [N, K]
        q, scale, zp = q.T, scale.T, zp.T
    n_out, k = q.shape
    block = _block_size(k, scale, zp)
    if block is None:
        return None
    if etype in ("i4", "i8"):
        q, zp = q + (1 << (bits - 1)), zp + (1 << (bits - 1))
    blocks = k // block
    packed = _pack(q.reshape(n_out, blocks, block), bits)
    zps = zp[:, ::block]
    default = (1 << (bits - 1))
    return NBits(packed, np.ascontiguousarray(scale[:, ::block]).reshape(-1),
                 None if np.all(zps == default) else _pack(zps, bits), k, n_out, bits, block)


def _full(values: np.ndarray, axis: int | None, shape: tuple[int, ...]) -> np.ndarray:
    """A DequantizeLinear parameter (scalar, per-axis 1-D, or already the weight's rank) in a
    shape that broadcasts to the weight's."""
    values = np.asarray(values)
    if values.ndim == len(shape) or values.ndim == 0:
        return values
    return values.reshape([-1 if i == axis else 1 for i in range(len(shape))])


def _block_size(k: int, scale: np.ndarray, zp: np.ndarray) -> int | None:
    """The largest power of 2 >= 16 dividing ``k`` whose blocks along K share one scale and zero point."""
    best = None
    size = 16
    while size <= k:
        if k % size == 0:
            s, z = scale.reshape(scale.shape[0], -1, size), zp.reshape(zp.shape[0], -1, size)
            if np.all(s == s[..., :1]) and np.all(z == z[..., :1]):
                best = size
        size *= 2
    return best


def _pack(values: np.ndarray, bits: int) -> np.ndarray:
    """Unsigned values as uint8 bytes along the last axis: 8 bits one a byte, 4 bits two (the
    even one in the low nibble; an odd count padded with 0)."""
    v = values.astype(np.uint8)
    if bits == 8:
        return np.ascontiguousarray(v)
    if v.shape[-1] % 2:
        v = np.concatenate([v, np.zeros(v.shape[:-1] + (1,), np.uint8)], axis=-1)
    return np.ascontiguousarray(v[..., 0::2] | (v[..., 1::2] << 4))


def emit(e: Emitter, plan: NBits, a: str, output: str) -> None:
    """The MatMulNBits node writing ``output`` = ``a`` @ the weights."""
    args = [a, e.const(plan.b, "B_nbits"), e.const(plan.scales, "scales")]
    if plan.zero_points is not None:
        args.append(e.const(plan.zero_points, "zero_points"))
    from onnx import helper
    e.nodes.append(helper.make_node("MatMulNBits", args, [output], name=e.fresh("n_MatMulNBits"),
                                    domain=DOMAIN, K=plan.k, N=plan.n, bits=plan.bits,
                                    block_size=plan.block_size))
    e.notes.append("int4/int8 weight MatMuls are onnxruntime's com.microsoft MatMulNBits "
                   "(--matmul-nbits): this model runs in onnxruntime only")


def uses_domain(nodes: list[Any]) -> bool:
    return any(node.domain == DOMAIN for node in nodes)
