"""One layer through its converter (:mod:`irrun.export.table`), bf16 computed in f32 between
Casts: what the model's walk (:mod:`irrun.export.onnx`) and the sub-graph bodies
(:mod:`irrun.export.control`) both do with every layer."""
from __future__ import annotations

import numpy as np

from ..types.tensor_info import TensorInfo
from .emitter import Call, Emitter, Unexpressible, onnx_type
from .table import converter_for


def convert_layer(e: Emitter, call: Call) -> str | None:
    """Write one layer's ONNX nodes with its converter; returns why it has no ONNX form, or
    None (also used for the layers of sub-graph bodies, :mod:`irrun.export.control`)."""
    conv = converter_for(call.op.type, call.op.version)
    if conv is None:
        from .table import NOT_EXPORTED
        return NOT_EXPORTED.get(call.op.type, "no ONNX converter for this op yet")
    try:
        if widened(call):
            call = widen(e, call, conv)
        conv(e, call)
        if hasattr(call, "narrow"):
            call.narrow()
    except Unexpressible as x:
        return str(x)
    return None


#: ops that only move or pick elements: ONNX Runtime runs them on bf16 as on any type
_MOVES = frozenset({"movement", "shape"})
_NO_WIDENING = frozenset({"Convert", "ConvertLike", "Constant", "ReadValue", "Assign",
                          "FakeConvert"})   # rounds to bf16 itself


def widened(call: Call) -> bool:
    """Does this layer compute on bf16? ONNX Runtime has almost no bf16 kernels, so such a layer
    is computed in f32 between Casts: what OpenVINO's CPU plugin does with bf16 (one rounding
    to bf16 of the f32 result)."""
    return call.op.category not in _MOVES and call.op.type not in _NO_WIDENING and \
        any(i.etype.name == "bf16" for i in call.in_info)


def widen(e: Emitter, call: Call, conv) -> Call:
    """``call`` on f32 copies of its bf16 inputs, writing f32 outputs that ``call.narrow()``
    casts back to the layer's bf16 outputs."""
    from ..types import elements
    f32 = elements.TYPES["f32"]
    ins = [e.cast(x, f32) if info.etype.name == "bf16" else x for x, info in zip(call.inputs, call.in_info)]
    in_info = [TensorInfo(f32, i.shape, i.value.astype(np.float32) if i.value is not None else None)
               if i.etype.name == "bf16" else i for i in call.in_info]
    outs = [e.fresh(f"{o}_f32") if info.etype.name == "bf16" else o for o, info in zip(call.outputs, call.out_info)]
    out_info = [TensorInfo(f32, i.shape) if i.etype.name == "bf16" else i for i in call.out_info]
    wide = Call(call.layer, call.op, ins, outs, in_info, out_info, call.used)

    def narrow() -> None:
        for wide_name, name in zip(outs, call.outputs):
            if wide_name != name:
                e.one("Cast", [wide_name], name, to=onnx_type(elements.TYPES["bf16"]))
    wide.narrow = narrow     # type: ignore[attr-defined]
    return wide
