"""Constant f16/bf16 sub-graphs computed in f32, as OpenVINO computes them.

OpenVINO 2026.4.1 carries f16/bf16 values of *constant* sub-graphs in f32 and rounds them only
where a Convert asks for a narrow type or a non-constant layer reads them — both its reference
evaluator (ConstantFolding upcasts) and its CPU plugin (measured with tools/fixtures/make_compressed_fixtures.py
and with Multiply/Add chains of f16 Consts; tests/test_compressed.py). That is the
weight-decompression chain of LLM exports:
``Const(u8/u4/nf4) -> Convert(f16) -> Subtract(zero point) -> Multiply(scale) -> Convert(f32)``
gives ``(w - zp) * scale`` exactly in f32, while rounding the product to f16 first (what each op
alone would do) moves MatMul outputs by 1e-3 relative.

So when a layer runs on constant inputs (folded during inference, or run by the executor on
constant-derived arrays), :func:`run_constant` runs its kernel on f32 versions of the narrow
float inputs — their unrounded values when an earlier constant layer left one — and returns the
outputs in their declared types; it remembers the unrounded f32 result of every narrow output
alongside the declared array (:func:`unrounded`), for the next constant layer to use. A Convert
to a narrow type rounds (it is the graph's own rounding: ``Op.rounds_to_declared_type``), so it
leaves nothing to remember.
"""
from __future__ import annotations

import weakref
from collections.abc import Sequence

import numpy as np

from ..ops.base import Op
from ..types.elements import TYPES
from ..types.tensor_info import TensorInfo

F32 = np.dtype(np.float32)
NARROW = frozenset({np.dtype(np.float16), TYPES["bf16"].dtype})

#: id(declared array) -> (weak reference to it, its unrounded f32 value)
_UNROUNDED: dict[int, tuple[weakref.ref, np.ndarray]] = {}


def unrounded(arr: np.ndarray) -> np.ndarray | None:
    """The f32 value a constant narrow-float array was rounded from, if irrun computed it."""
    hit = _UNROUNDED.get(id(arr))
    return hit[1] if hit is not None and hit[0]() is arr else None


def _remember(arr: np.ndarray, wide: np.ndarray) -> None:
    key = id(arr)

    def forget(_: weakref.ref) -> None:
        _UNROUNDED.pop(key, None)
    _UNROUNDED[key] = (weakref.ref(arr, forget), wide)


def applies(args: Sequence[np.ndarray]) -> bool:
    """Whether a constant layer with these inputs is computed widened."""
    return any(a.dtype in NARROW for a in args)


def narrows(infos: Sequence[TensorInfo | None]) -> bool:
    """Whether a layer with these outputs gives some narrow float."""
    return any(i is not None and i.etype.dtype in NARROW for i in infos)


def run_constant(op: Op, args: Sequence[np.ndarray], infos: Sequence[TensorInfo | None],
                 rounded: bool = True) -> list:
    """``op.run`` on widened inputs; the outputs cast to the declared types (others unchanged).

    ``rounded=False`` when only constant layers read the outputs (a weight-decompression chain
    computed for the program's cache): they read the unrounded f32 values alone, so a narrow
    output is a placeholder (zeros, no memory) beside its remembered f32 value rather than a
    rounded copy — the f32 -> f16 casts were most of the decompression time."""
    if not rounded and len(infos) == 1 and narrows(infos):
        exact = op.run_exact(*args)
        narrow = infos[0].etype.dtype if infos[0] is not None else None
        if exact is not None and narrow is not None:   # the narrow type holds the f32 value exactly
            return [_placeholder(exact, narrow)]
    wide = [a if a.dtype not in NARROW else (w if (w := unrounded(a)) is not None else a.astype(F32))
            for a in args]
    outs = list(op.run(*wide))
    for i, (arr, info) in enumerate(zip(outs, infos)):
        arr = np.asarray(arr)
        dtype = info.etype.dtype if info is not None else None
        if dtype is None or arr.dtype == dtype:
            outs[i] = arr
            continue
        if not rounded and dtype in NARROW and arr.dtype == F32 and not op.rounds_to_declared_type:
            outs[i] = _placeholder(arr, dtype)
            continue
        with np.errstate(over="ignore"):      # f32 beyond f16's range rounds to inf, as in OpenVINO
            outs[i] = arr.astype(dtype)
        if dtype in NARROW and arr.dtype == F32 and not op.rounds_to_declared_type:
            _remember(outs[i], arr)
    return outs


def _placeholder(wide: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """A narrow array of ``wide``'s shape that holds no values (read-only zeros) and remembers
    ``wide`` as its unrounded value: for constant layers, which read only that."""
    out = np.broadcast_to(np.zeros((), dtype), wide.shape)
    _remember(out, wide)
    return out


def take(arr: np.ndarray, rows: "np.ndarray | slice") -> np.ndarray:
    """``arr[rows]``, remembering the rows of its unrounded value when it has one."""
    out = arr[rows]
    wide = unrounded(arr)
    if wide is not None:
        _remember(out, wide[rows])
    return out
