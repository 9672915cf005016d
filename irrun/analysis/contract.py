"""The framework's side of the op contract: call a kernel and hold it to its shape rule.

After every kernel call the outputs are checked against what ``Op.infer`` promised — the count,
that each is an ndarray, its dtype and its shape (a concrete shape inside the inferred partial
shape). A disagreement is a bug in irrun, reported as :class:`InternalError` naming the layer,
never a silently wrong result (the JAX ``eval_jaxpr`` ``write`` check, onnx's
``_check_and_fix_outputs``).

What a kernel raises is sorted the same way: :class:`OpError` (values the input got wrong) becomes
an :class:`ExecutionError`, an over-budget output or NumPy's MemoryError a
:class:`~irrun.limits.memory.MemoryBudgetError`, more than NumPy's 64 dims an :class:`UnsupportedError`,
and anything else (IndexError, ValueError... from
NumPy on inputs the shape rule let through) an :class:`InternalError`: a bug, exit code 4.
"""
from __future__ import annotations

from collections.abc import Sequence
from operator import itemgetter

import numpy as np

from ..errors import ExecutionError, InternalError, IrrunError, LayerRef, OpError, UnsupportedError
from ..limits.memory import MemoryBudgetError, OverBudget
from ..ops.base import Op
from ..types.shapes import PartialShape
from ..types.tensor_info import TensorInfo
from . import constant_precision as widen


def _bug(e: Exception, file: str | None, ref: LayerRef) -> InternalError:
    return InternalError(f"kernel failed on inputs its shape rule accepted: {type(e).__name__}: {e}",
                         file=file, layer=ref)


def run_checked(op: Op, args: Sequence[np.ndarray], infos: Sequence[TensorInfo | None],
                ref: LayerRef, file: str | None = None, folding: bool = False,
                ctx: object = None, constant: bool = False, kwargs: dict | None = None,
                expect: tuple | None = None, rounded: bool = True, specs: tuple | None = None
                ) -> list[np.ndarray]:
    """``constant`` (implied by ``folding``): every input is constant-derived, so f16/bf16 math
    runs in f32 as OpenVINO does it (:mod:`irrun.analysis.constant_precision`). ``kwargs``: the plan's ``out``/``skip``
    for the kernel (:class:`irrun.runtime.plan.Step`); ``expect``: (dtype, shape) per output when
    every inferred port is static, so that a correct result is checked in O(1); else ``specs``
    (:func:`output_specs`), checked cheaply. ``rounded=False``
    (with ``constant``): only constant layers read the outputs (:func:`irrun.analysis.constant_precision.run_constant`)."""
    kw = kwargs or {}
    outs: Sequence[np.ndarray]
    try:
        if (folding or constant) and not op.uses_context and (
                widen.applies(args) or not rounded and widen.narrows(infos)):
            outs = widen.run_constant(op, args, infos, rounded or folding)
        else:
            if op.uses_context:     # a keyword only these ops' ``run`` takes (like out/skip)
                kw = {**kw, "ctx": ctx}
            outs = op.run(*args, **kw)
    except Exception as e:
        raise_failure(e, file, ref, "while folding constants: " if folding else "")
    if outputs_match(outs, expect) if expect is not None else outputs_fit(outs, specs):
        return list(outs)
    return check_outputs(outs, infos, ref, file)


def raise_failure(e: Exception, file: str | None, ref: LayerRef, kind: str = "") -> None:
    """Raise what a kernel's exception means (called in its ``except`` block)."""
    if isinstance(e, OverBudget):
        raise MemoryBudgetError(e.message, file=file, layer=ref, port=e.port) from None
    if isinstance(e, OpError):
        cls = UnsupportedError if e.unsupported else ExecutionError
        raise cls(kind + e.message, file=file, layer=ref, port=e.port,
                  openvino_loads=e.openvino_loads) from None
    if isinstance(e, MemoryError):      # NumPy could not allocate: the input's fault, not irrun's
        raise MemoryBudgetError(f"out of memory: {e}", file=file, layer=ref) from None
    if isinstance(e, IrrunError):
        raise e
    if isinstance(e, ValueError) and "maximum supported dimension" in str(e):
        raise UnsupportedError(f"NumPy arrays have at most 64 dims ({e})", file=file, layer=ref) from None
    raise _bug(e, file, ref) from e     # the shape rule accepted what the kernel cannot do: a bug


def output_specs(infos: Sequence[TensorInfo | None]) -> tuple | None:
    """What :func:`outputs_fit` checks, decided once per plan: per output (dtype, rank, a getter
    of the static dims' positions and their values, (position, lo, hi) of the dynamic dims that
    have bounds to check); None when some output's dtype or rank is unknown (the full check runs)."""
    specs = []
    for info in infos:
        if info is None or info.etype.dtype is None or info.shape.rank is None:
            return None
        fixed = [(i, d.lo) for i, d in enumerate(info.shape) if d.is_static]
        ranges = tuple((i, d.lo, 1 << 62 if d.hi is None else d.hi)
                       for i, d in enumerate(info.shape) if not d.is_static and (d.lo or d.hi is not None))
        pick = itemgetter(*(i for i, _ in fixed)) if fixed else None    # (one position: an int)
        values = (fixed[0][1] if len(fixed) == 1 else tuple(v for _, v in fixed)) if fixed else None
        specs.append((info.etype.dtype, info.shape.rank, pick, values, ranges))
    return tuple(specs)


def outputs_match(outs: Sequence, expect: tuple) -> bool:
    """:func:`outputs_fit` where the plan proved every output static: ``expect`` holds each
    output's (dtype, shape), compared whole."""
    if len(outs) != len(expect):
        return False
    k = 0
    for a in outs:
        dtype, shape = expect[k]
        k += 1
        if type(a) is not np.ndarray or a.shape != shape or (a.dtype is not dtype and a.dtype != dtype):
            return False
    return True


def outputs_fit(outs: Sequence, specs: tuple | None) -> bool:
    """The common case of the contract, cheaply: each output an ndarray of the promised dtype
    whose shape lies inside the inferred partial shape. (It runs after every layer whose shapes
    are dynamic — ~170 of a tiny decoder's ~200 a token —, so it is written for CPython's speed:
    an index rather than ``zip``, ``is`` before ``==`` on the dtype (NumPy's built-in dtypes are
    singletons), no loop over empty ``ranges``: 0.45 -> 0.27 us a call.)"""
    if specs is None or len(outs) != len(specs):
        return False
    k = 0
    for a in outs:
        dtype, rank, pick, values, ranges = specs[k]
        k += 1
        if type(a) is not np.ndarray:
            return False
        shape = a.shape
        if len(shape) != rank or (a.dtype is not dtype and a.dtype != dtype) \
                or (pick is not None and pick(shape) != values):
            return False
        if ranges:
            for i, lo, hi in ranges:
                if not lo <= shape[i] <= hi:
                    return False
    return True


def check_outputs(outs: Sequence, infos: Sequence[TensorInfo | None], ref: LayerRef,
                  file: str | None) -> list[np.ndarray]:
    """The outputs, checked against the inferred ports (0-d NumPy scalars made arrays);
    :class:`InternalError` naming the layer and port when a kernel broke its shape rule."""
    outs = list(outs)
    if len(outs) != len(infos):
        raise InternalError(f"kernel returned {len(outs)} outputs, its shape rule promised "
                            f"{len(infos)}", file=file, layer=ref)
    for i, (arr, info) in enumerate(zip(outs, infos)):
        if isinstance(arr, np.generic):     # NumPy turns many 0-d results into scalars
            arr = outs[i] = np.asarray(arr)
        if not isinstance(arr, np.ndarray):
            raise InternalError(f"kernel returned {type(arr).__name__}, not an ndarray",
                                file=file, layer=ref, port=f"output {i}")
        if info is None:
            continue
        if info.etype.dtype is not None and arr.dtype != info.etype.dtype:
            raise InternalError(f"kernel returned dtype {arr.dtype}, its shape rule promised "
                                f"{info.etype} ({info.etype.dtype})", file=file, layer=ref,
                                port=f"output {i}")
        if not info.shape.accepts(arr.shape):
            raise InternalError(f"kernel returned shape {PartialShape(arr.shape)}, its shape rule "
                                f"promised {info.shape}", file=file, layer=ref, port=f"output {i}")
    return outs
