"""Compressed weights as ONNX DequantizeLinear: the IR's decompression pattern

    Const(u8/i8/u4/i4/f8e4m3 w) -> Convert -> [Subtract(zero point)] -> Multiply(scale) [-> Reshape] [-> Convert f32]

becomes one ``DequantizeLinear(w, scale, zero_point, axis, block_size)`` (opset 21: per tensor,
per axis, or blocked — groups of ``block_size`` along one axis), with w kept in its packed
type. OpenVINO's CPU plugin decompresses such weights in f32 in one step (an f16 scale is
widened, not rounded after each op), and so does this DequantizeLinear: the scale is written as
f32, so the result is f32 — the pattern is taken only where its result becomes f32 (a Multiply
in f32, or one whose consumers are Convert-to-f32, possibly behind a Reshape). Anything else
(a zero point that is not a constant integer of w's range, a scale that is not one block per
group) is exported op by op (Cast/Sub/Mul), still with the packed weights — except where that
would round to f16 where OpenVINO does not: a constant f16 Multiply whose result becomes f32
(nf4, f4e2m1 or codebook weights, which DequantizeLinear cannot hold) is written as a Cast to
f32 of its f16 inputs and a Mul in f32 (:func:`widened_multiply`).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from ..types.tensor_info import Role
from .emitter import Emitter

#: packed weight types DequantizeLinear takes (opset 21; f8e4m3 is ONNX's FLOAT8E4M3FN, no zero point)
QUANTIZED = frozenset({"u8", "i8", "u4", "i4", "f8e4m3"})


@dataclass
class Dequantize:
    """One matched pattern: ``weight`` is the packed Const layer, ``scale``/``zero_point`` the
    values in DequantizeLinear's shapes, ``axis``/``block_size`` its attributes."""

    weight: int
    scale: np.ndarray
    zero_point: np.ndarray | None
    axis: int | None
    block_size: int | None


def _producer(model, n: int, port: int) -> tuple[int, int]:
    from ..analysis.graph import inputs_of
    return inputs_of(model.dag, n)[port]


def _layer(model, n: int):
    return model.dag.nodes[n]["layer"]


def _becomes_f32(model, n: int, types) -> bool:
    """Is Multiply ``n``'s result f32, or only read (maybe through Reshapes) by Converts to f32?"""
    if types[(n, 0)].etype.name == "f32":
        return True
    todo, seen = list(model.dag.successors(n)), set()
    while todo:
        m = todo.pop()
        if m in seen:
            continue
        seen.add(m)
        op = model.ops[m]
        if op.type == "Reshape":
            todo += list(model.dag.successors(m))
        elif not (op.type == "Convert" and op.destination_type.name == "f32"):
            return False
    return bool(seen)


def match(model, n: int, types) -> Dequantize | None:
    """The DequantizeLinear form of Multiply layer ``n``, or None when it is no such pattern."""
    if model.ops[n].type != "Multiply" or not _becomes_f32(model, n, types):
        return None
    for data_port in (0, 1):
        scale_src = _producer(model, n, 1 - data_port)
        scale = types[scale_src].value
        if scale is None or types[scale_src].etype.name not in ("f16", "f32"):
            continue
        d, dp = _producer(model, n, data_port)
        zero_point = None
        if model.ops[d].type == "Subtract":
            zp_src = _producer(model, d, 1)
            zero_point = types[zp_src].value
            if zero_point is None:
                continue
            d, dp = _producer(model, d, 0)
        if model.ops[d].type != "Convert":
            continue
        w, _ = _producer(model, d, 0)
        if model.ops[w].role != Role.CONSTANT or types[(w, 0)].etype.name not in QUANTIZED:
            continue
        plan = _shapes(types[(w, 0)].etype.dtype, _layer(model, w).const_shape, np.asarray(scale),
                       None if zero_point is None else np.asarray(zero_point))
        if plan is not None:
            return Dequantize(w, *plan)
    return None


def _shapes(wdtype, wshape, scale, zp):
    """(scale, zero point, axis, block_size) in DequantizeLinear's form, or None."""
    if wshape is None or scale.ndim > len(wshape):
        return None
    s_shape = (1,) * (len(wshape) - scale.ndim) + scale.shape
    scale = scale.astype(np.float32).reshape(s_shape)
    if zp is not None and "float8" in str(np.dtype(wdtype)):
        return None                     # f8 weights with a zero point: op by op
    if zp is not None:
        try:
            zp = np.broadcast_to(zp, s_shape)
        except ValueError:
            return None
        info = np.iinfo(np.int8 if np.dtype(wdtype).kind == "i" else np.uint8) \
            if np.dtype(wdtype).itemsize == 1 else None
        lo, hi = (info.min, info.max) if info else ((-8, 7) if "int4" in str(wdtype) and "u" not in str(wdtype)
                                                    else (0, 15))
        if not np.all(zp == np.round(zp)) or zp.min(initial=0) < lo or zp.max(initial=0) > hi:
            return None
        zp = zp.astype(np.float64).astype(wdtype)
    if scale.size == 1:
        return scale.reshape(()), None if zp is None else zp.reshape(()), None, None
    diff = [i for i, (a, b) in enumerate(zip(s_shape, wshape)) if a != b]
    if any(s_shape[i] != 1 for i in diff):
        return None
    if len(diff) <= 1:
        axis = diff[0] if diff else 0
        return scale, zp, axis, int(wshape[axis]) if diff else 1
    kept = [i for i, a in enumerate(s_shape) if a != 1]
    if len(kept) == 1:                    # one scale per entry of one axis
        k = kept[0]
        return scale.reshape(-1), None if zp is None else zp.reshape(-1), k, None
    return None


def widened_multiply(model, n: int, types) -> Literal[True] | np.ndarray | None:
    """How to write constant f16/bf16 Multiply ``n`` whose result becomes f32: OpenVINO computes
    such constant chains in f32 and rounds only at a Convert to a narrow type
    (irrun.analysis.constant_precision), so a Multiply written in f16 would round each product
    where OpenVINO does not (ViT with nf4/nvfp4/codebook weights: 5e-5 off). True: both inputs
    are exact f16 values (a Convert's or a Const's) — cast them to f32 and multiply there, the
    packed weights stay packed; an array: an input was itself computed unrounded — the Multiply's
    f32 value, written decompressed; None: not such a Multiply."""
    from ..analysis.constant_precision import unrounded
    if model.ops[n].type != "Multiply" or not _becomes_f32(model, n, types):
        return None
    value = types[(n, 0)].value
    if not isinstance(value, np.ndarray) or value.dtype.kind != "f" or value.dtype.itemsize != 2:
        return None
    args = [types[_producer(model, n, port)].value for port in (0, 1)]
    if all(isinstance(a, np.ndarray) and unrounded(a) is None for a in args):
        return True
    wide = unrounded(value)
    return None if wide is None else wide.astype(np.float32, copy=False)


def emit(e: Emitter, plan: Dequantize, weight: str, output: str) -> None:
    """The DequantizeLinear node writing ``output`` from the packed initializer ``weight``."""
    args = [weight, e.const(plan.scale, "scale")]
    if plan.zero_point is not None:
        args.append(e.const(plan.zero_point, "zero_point"))
    e.one("DequantizeLinear", args, output, axis=plan.axis, block_size=plan.block_size)
    e.notes.append("compressed weights are DequantizeLinear of their packed initializers "
                   "(decompressed in f32, as OpenVINO's CPU plugin does)")
