"""Shape and element-type inference: one pass over the live layers in topological order.

Every output port gets a :class:`TensorInfo`. Values propagate through constant sub-graphs: when
every input of a layer has a known value (Consts, ShapeOf of a static shape, and what they feed)
and the outputs are small, the layer's own kernel computes the value — one implementation of the
math, so a VariadicSplit whose lengths come from ShapeOf -> Gather resolves its ``-1`` here.
When a value is only known at run time, the op's rule gives dynamic dims and the kernel checks
the values when it runs; small integer tensors computed from partially known shapes carry value
bounds instead (irrun/ops/bounds.py), which the ops that read sizes turn into interval dims.
"""
from __future__ import annotations

from collections.abc import Callable

from ..errors import InternalError, IrrunError, OpError, ShapeError, UnsupportedError
from ..limits.memory import MemoryBudgetError
from ..ops.base import Op
from ..ops.bounds import propagate
from ..types.shapes import PartialShape
from ..types.tensor_info import Role, TensorInfo
from .contract import run_checked
from .graph import Graph, inputs_of

#: Largest output (elements) computed during inference; bigger constants stay symbolic.
FOLD_LIMIT = 1 << 16

Types = dict[tuple, TensorInfo | None]


def infer_layer(op: Op, ins: list[TensorInfo], layer, file: str | None) -> list[TensorInfo]:
    """Apply the op's shape rule (and fold it when its inputs are known) for one layer."""
    lo, hi = op.num_inputs
    if not lo <= len(ins) <= (len(ins) if hi is None else hi):
        want = str(lo) if lo == hi else f"{lo} or more" if hi is None else f"{lo} to {hi}"
        raise OpError(f"{layer.type} takes {want} inputs, the layer has {len(ins)}")
    try:
        outs = op.infer(ins)
    except (OpError, IrrunError):
        raise
    except MemoryError as e:   # the layer asks for more than there is: the input's fault, not irrun's
        raise MemoryBudgetError(f"out of memory: {e}", file=file, layer=layer.ref) from None
    except Exception as e:     # a shape rule that crashes instead of raising OpError: a bug
        raise InternalError(f"shape rule failed: {type(e).__name__}: {e}", file=file,
                            layer=layer.ref) from e
    if op.role is not Role.RESULT and len(outs) != len(layer.outputs):
        raise OpError(f"the layer declares {len(layer.outputs)} output ports but {layer.type} "
                      f"produces {len(outs)}")
    if ins and all(t.value is not None for t in ins) and not op.uses_context:
        sizes = [o.shape.max_numel() for o in outs]
        if all(s is not None and s <= FOLD_LIMIT for s in sizes):
            values = run_checked(op, [t.value for t in ins if t.value is not None], outs, layer.ref, file,
                                 folding=True)
            outs = [TensorInfo(o.etype, PartialShape(v.shape), v) for o, v in zip(outs, values)]
    elif any(t.lower is not None for t in ins):      # value bounds (irrun/ops/bounds.py)
        try:
            outs = propagate(op, ins, outs)
        except Exception as e:
            raise InternalError(f"value bounds failed: {type(e).__name__}: {e}", file=file,
                                layer=layer.ref) from e
    return outs


def infer_types(g: Graph, order: list, ops: dict, file: str | None = None,
                overrides: dict | None = None,
                on_error: Callable[[object, IrrunError], None] | None = None) -> Types:
    """Infer every output port of the layers in ``order``.

    ``ops`` maps node -> Op (a node missing from it is unsupported: its outputs are unknown).
    ``overrides`` maps a Parameter node to the TensorInfo to use instead of its attributes. Without ``on_error`` the first
    problem raises; with it, problems are reported and the layers that depend on them are left
    unknown (``None``) instead of guessed.
    """
    overrides = overrides or {}
    types: Types = {}
    for n in order:
        layer = g.nodes[n]["layer"]
        op = ops.get(n)
        ins = [types.get((u, sp)) for u, sp in inputs_of(g, n)]
        outs: list[TensorInfo] | None = None
        if op is not None and all(t is not None for t in ins):
            try:
                if op.role is Role.PARAMETER and n in overrides:
                    outs = [overrides[n]]
                else:
                    outs = infer_layer(op, [t for t in ins if t is not None], layer, file)
            except OpError as e:
                err = (UnsupportedError if e.unsupported else ShapeError)(
                    e.message, file=file, layer=layer.ref, port=e.port, openvino_loads=e.openvino_loads)
                if on_error is None:
                    raise err from None
                on_error(n, err)
            except IrrunError as e:    # run-time errors while folding; errors inside a body
                if on_error is None:
                    raise
                on_error(n, e)
        for i in range(len(layer.outputs)):
            types[(n, i)] = outs[i] if outs is not None and i < len(outs) else None
    return types
