"""The converter table: one function per op type (and, where the forms differ, version) that
writes the op's ONNX form, and the reason for every op that has none.

A converter is called as ``convert(e, c)`` with the :class:`irrun.export.onnx.Emitter` ``e``
(which adds nodes and initializers) and the :class:`Call` ``c`` (the layer, its parsed op, the
ONNX names of its inputs and of the outputs it must produce, and what shape inference knows
of each). It raises :class:`Unexpressible` when this layer's attributes or inputs have no ONNX
form (a transpose order computed at run time, say): the export then names the layer and the
reason, and writes nothing.
"""
from __future__ import annotations

from collections.abc import Callable

from .emitter import Call, Emitter

Converter = Callable[["Emitter", Call], None]

#: (op type, version or None for every version) -> converter
CONVERTERS: dict[tuple[str, str | None], Converter] = {}

#: op type -> why it has no ONNX form here (shown by the support table and in the refusal)
NOT_EXPORTED: dict[str, str] = {}


def converts(*types: str, versions: tuple[str, ...] | None = None) -> Callable[[Converter], Converter]:
    """Register the decorated function as the converter of ``types`` (of ``versions``, or all)."""
    def register(fn: Converter) -> Converter:
        for t in types:
            for v in versions or (None,):
                key = (t, v)
                if key in CONVERTERS:
                    raise RuntimeError(f"two ONNX converters for {t} {v}")
                CONVERTERS[key] = fn
        return fn
    return register


def not_exported(why: str, *types: str) -> None:
    """Record why ``types`` have no ONNX converter (one place per reason)."""
    for t in types:
        NOT_EXPORTED[t] = why


def converter_for(op_type: str, version: str) -> Converter | None:
    """The converter of an op type and version (the converter modules must be imported: the
    export does, :func:`irrun.export.onnx.build_onnx`)."""
    return CONVERTERS.get((op_type, version)) or CONVERTERS.get((op_type, None))
