"""The framework's side of the op contract: call a kernel and hold it to its shape rule.

After every kernel call the outputs are checked against what ``Op.infer`` promised — the count,
that each is an ndarray, its dtype and its shape (a concrete shape inside the inferred partial
shape). A disagreement is a bug in irrun, reported as :class:`InternalError` naming the layer,
never a silently wrong result (the JAX ``eval_jaxpr`` ``write`` check, onnx's
``_check_and_fix_outputs``).
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .errors import ExecutionError, InternalError, LayerRef, OpError
from .ops.base import Op, TensorInfo
from .shapes import PartialShape


def run_checked(op: Op, args: Sequence[np.ndarray], infos: Sequence[TensorInfo | None],
                ref: LayerRef, file: str | None = None, folding: bool = False) -> list[np.ndarray]:
    try:
        outs = op.run(*args)
    except OpError as e:
        kind = "while folding constants: " if folding else ""
        raise ExecutionError(kind + e.message, file=file, layer=ref, port=e.port) from None
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
