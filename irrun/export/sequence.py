"""ONNX forms of stateful and sequence ops: ReadValue/Assign as explicit state inputs/outputs.

ONNX has no variables, so each IR variable becomes one graph input (the value ReadValue reads)
and one graph output (the value Assign writes), named as optimum's non-stateful decoder exports
name them when the variable is a KV-cache entry — ``past_key_values.N.key`` in and
``present.N.key`` out (optimum-intel's stateful IRs name their variables
``past_key_values.N.keypresent.N.key``; seq2seq decoders ``past_key_values.N.decoder.key...``,
which become ``past_key_values.N.decoder.key`` / ``present.N.decoder.key``) — else
``<variable_id>`` in and ``<variable_id>.next`` out. The caller drives the loop: feed each step
the outputs of the last (the first step: an empty cache of length 0; a variable with an
initializing sub-graph takes its initial value when its state input is empty, see
:func:`read_value`).
"""
from __future__ import annotations

import re
from typing import Any

import numpy as np

from ..types import elements
from .emitter import Call, Emitter, Unexpressible, onnx_type, value_info
from .table import converts

#: optimum-intel's variable ids: the non-stateful input's name, then the output's
#: (``past_key_values.0.keypresent.0.key``; seq2seq: ``past_key_values.0.decoder.keypresent.0.decoder.key``)
_KV = re.compile(r"(past_key_values\.(\d+)\.(?:\w+\.)*?(key|value))(present\.\d+\.(?:\w+\.)*?(?:key|value))")


def state_names(variable_id: str) -> tuple[str, str]:
    """(input name, output name) of a variable's explicit state ports."""
    m = _KV.fullmatch(variable_id)
    if m:
        return m[1], m[4]
    m = re.fullmatch(r"past_key_values\.(\d+)\.(key|value)", variable_id)
    if m:
        return variable_id, f"present.{m[1]}.{m[2]}"
    return variable_id, f"{variable_id}.next"


def reserve(e: Emitter, variable_id: str) -> dict[str, Any]:
    """The variable's state-port names, reserved before any tensor is named (so that no
    tensor of the model takes ``past_key_values.0.key`` from the state input)."""
    entry = e.states.get(variable_id)
    if entry is None:
        entry = e.states[variable_id] = {}
        for key, name in zip(("input_name", "output_name"), state_names(variable_id)):
            entry[key] = e.fresh(name)
    return entry


@converts("ReadValue")
def read_value(e: Emitter, c: Call) -> None:
    """A state input (``past_key_values.N.key`` for optimum's KV-cache variables); see the module
    docstring. With an initializing sub-graph (seq2seq cross-attention caches, computed from the
    encoder's output on the first step), an empty state input (0 elements) stands for "not set":
    an If then takes the initial value, as OpenVINO does after a reset."""
    entry = reserve(e, c.op.variable_id)
    if "input" in entry:
        raise Unexpressible(f"a second ReadValue of variable {c.op.variable_id}")
    name = entry["input_name"]
    info = c.out_info[0]
    entry["input"] = value_info(name, info.etype, info.shape, symbolic=name)
    e.metadata[f"irrun.state_input.{name}"] = c.op.variable_id
    if not c.inputs:
        e.one("Identity", [name], c.outputs[0])
        return
    unset = e.one("Equal", [e.one("Size", [name]), e.const(np.asarray(0, np.int64))])
    e.one("If", [unset], c.outputs[0], then_branch=_branch(e, c.inputs[0], info, "initial"),
          else_branch=_branch(e, name, info, "held"))


def _branch(e: Emitter, source: str, info, hint: str) -> Any:
    """An If branch that passes ``source`` (a tensor of the enclosing graph) through."""
    from onnx import helper
    out = e.fresh(f"{source}_{hint}")
    rank = info.shape.rank
    return helper.make_graph([helper.make_node("Identity", [source], [out], name=e.fresh(f"n_{hint}"))],
                             e.fresh(hint), [], [helper.make_tensor_value_info(
                                 out, onnx_type(info.etype), None if rank is None else [None] * rank)])


@converts("Assign")
def assign(e: Emitter, c: Call) -> None:
    """A state output (``present.N.key`` for optimum's KV-cache variables); see the module docstring."""
    entry = reserve(e, c.op.variable_id)
    if "output" in entry:
        raise Unexpressible(f"a second Assign of variable {c.op.variable_id}")
    name = entry["output_name"]
    e.metadata[f"irrun.state_output.{name}"] = c.op.variable_id
    e.one("Identity", [c.inputs[0]], name)
    for out in c.outputs:
        e.one("Identity", [c.inputs[0]], out)
    entry["output"] = value_info(name, c.in_info[0].etype, c.in_info[0].shape)


def _order(variable_id: str) -> tuple:
    """KV-cache variables by layer, key before value (as optimum lists them); others after, by name."""
    m = re.match(r"past_key_values\.(\d+)\.((?:\w+\.)*?)(key|value)", variable_id)
    return (0, int(m[1]), m[2], m[3] != "key") if m else (1, 0, variable_id, False)


def state_ports(walk: Any) -> tuple[list[Any], list[Any]]:
    """The state inputs and outputs the converters above recorded, in variable order."""
    states = [walk.e.states[v] for v in sorted(walk.e.states, key=_order)]
    return ([s["input"] for s in states if "input" in s],
            [s["output"] for s in states if "output" in s])


#: family -> (ONNX op, gates, the IR gate order's positions in ONNX's order, default activations)
_RNN = {"LSTM": ("LSTM", 4, [1, 3, 0, 2], ["Sigmoid", "Tanh", "Tanh"]),   # IR f,i,c,o -> ONNX i,o,f,c
        "GRU": ("GRU", 3, [0, 1, 2], ["Sigmoid", "Tanh"]),                # z,r,h both
        "RNN": ("RNN", 1, [0], ["Tanh"])}
_ACTIVATION_NAMES = {"sigmoid": "Sigmoid", "tanh": "Tanh", "relu": "Relu"}


def _gates(e: Emitter, x: str, n: int, order: list[int], axis: int) -> str:
    """``x`` with its ``n`` gate blocks along ``axis`` put in ONNX's order."""
    if order == list(range(n)):
        return x
    parts = e.node("Split", [x], n, axis=axis, num_outputs=n)
    return e.one("Concat", [parts[i] for i in order], axis=axis)


def _final_state_mask(e: Emitter, c: Call, lens: str, k: int, total: int | None) -> str | None:
    """[1, B, 1] ones where a row's final state is its last live step's, zeros elsewhere: OpenVINO
    takes it at the step ``s`` with ``s + 1 == length``, so a fractional length (f32 lengths:
    2.7 runs two steps), one below 1 or one past the ``total`` steps never marks one and the
    final state stays zeros (irrun.ops._recurrence); onnxruntime's is the last live step's. None
    when the lengths are constants that all mark one."""
    known, lt = c.in_info[k].value, c.in_info[k].etype
    if known is not None and total is not None:
        v = np.asarray(known, dtype=np.float64)
        if np.all((v == np.floor(v)) & (v >= 1) & (v <= total)):
            return None
    whole = e.one("Cast", [e.one("Cast", [lens], to=onnx_type(elements.TYPES["i64"]))], to=onnx_type(lt))
    marked = e.one("And", [e.one("Equal", [whole, lens]), e.one("GreaterOrEqual", [lens, e.scalar(1, lt)])])
    if total is not None:
        marked = e.one("And", [marked, e.one("LessOrEqual", [lens, e.scalar(total, lt)])])
    return e.one("Reshape", [e.one("Cast", [marked], to=onnx_type(c.in_info[0].etype)), e.ints([1, -1, 1])])


def _recurrent(e: Emitter, c: Call, family: str, sequence: bool) -> None:
    """ONNX LSTM/GRU/RNN (layout 0: time first) between transposes from and to the IR's
    batch-first layout; cells are one-step sequences of one direction. The IR's B is the sum of
    the input and recurrence biases, ONNX's the two apart: the recurrence half is zeros, except
    GRU's linear_before_reset block (the IR's 4th), which is the recurrence bias of h."""
    onnx_op, n, order, default_acts = _RNN[family]
    names = c.layer.data.get("activations")
    acts = default_acts if names is None else [_ACTIVATION_NAMES.get(a.strip().lower(), "")
                                               for a in names.split(",") if a.strip()][:len(default_acts)]
    if "" in acts:
        raise Unexpressible(f'activations="{names}" has no ONNX form')
    lbr = bool(getattr(c.op, "linear_before_reset", False))
    et = c.in_info[0].etype
    c0: str | None
    b: str | None
    if sequence:
        x, h0 = c.inputs[0], c.inputs[1]
        c0 = c.inputs[2] if family == "LSTM" else None
        k = 3 if family == "LSTM" else 2
        lens, w, r, b = c.inputs[k], c.inputs[k + 1], c.inputs[k + 2], c.inputs[k + 3]
        x = e.one("Transpose", [x], perm=[1, 0, 2])                  # [B,T,I] -> [T,B,I]
        h0 = e.one("Transpose", [h0], perm=[1, 0, 2])                # [B,D,H] -> [D,B,H]
        c0 = e.one("Transpose", [c0], perm=[1, 0, 2]) if c0 else None
        steps = c.in_info[0].shape[1] if c.in_info[0].shape.rank == 3 else None
        total = steps.lo if steps is not None and steps.is_static else None
        final_mask = _final_state_mask(e, c, lens, k, total)
        lens = e.one("Cast", [lens], to=onnx_type(elements.TYPES["i32"]))
        if total is not None and c.op.direction == "forward":
            # lengths outside [0, T], which onnxruntime refuses: OpenVINO runs a forward
            # direction over them (none live below 0, all past T; the mask above); a reverse one
            # refuses them, as onnxruntime does
            i32 = elements.TYPES["i32"]
            lens = e.one("Clip", [lens, e.scalar(0, i32), e.scalar(total, i32)])
        direction = c.op.direction
    else:
        if family == "LSTM" and len(c.inputs) > 6:
            raise Unexpressible("LSTMCell-1 peepholes (irrun refuses non-zero ones; zero ones: leave P out)")
        x, h0 = c.inputs[0], c.inputs[1]
        c0 = c.inputs[2] if family == "LSTM" else None
        k = 3 if family == "LSTM" else 2
        w, r = c.inputs[k], c.inputs[k + 1]
        b = c.inputs[k + 2] if len(c.inputs) > k + 2 else None
        x, h0 = e.one("Unsqueeze", [x, e.ints([0])]), e.one("Unsqueeze", [h0, e.ints([0])])
        c0 = e.one("Unsqueeze", [c0, e.ints([0])]) if c0 else None
        w, r = e.one("Unsqueeze", [w, e.ints([0])]), e.one("Unsqueeze", [r, e.ints([0])])
        b = e.one("Unsqueeze", [b, e.ints([0])]) if b else None
        lens, direction, final_mask = "", "forward", None
    hidden = int(c.op.hidden_size)
    w, r = _gates(e, w, n, order, 1), _gates(e, r, n, order, 1)
    if b is None:
        bias = ""
    elif family == "GRU" and lbr:
        zr_wh, rh = e.node("Split", [b, e.ints([3 * hidden, hidden])], 2, axis=1)
        zeros = e.one("Mul", [e.one("Slice", [zr_wh, e.ints([0]), e.ints([2 * hidden]), e.ints([1])]),
                              e.scalar(0, et)])
        bias = e.one("Concat", [zr_wh, zeros, rh], axis=1)
    else:
        b = _gates(e, b, n, order, 1)
        bias = e.one("Concat", [b, e.one("Mul", [b, e.scalar(0, et)])], axis=1)
    args = [x, w, r, bias, lens, h0] + ([c0] if c0 else [])
    outs = e.node(onnx_op, args, 3 if family == "LSTM" else 2, hidden_size=hidden, direction=direction,
                  activations=acts * (2 if direction == "bidirectional" else 1),
                  clip=float(c.op.clip) if c.op.clip else None,
                  linear_before_reset=int(lbr) if family == "GRU" else None)
    if sequence:
        e.one("Transpose", [outs[0]], c.outputs[0], perm=[2, 1, 0, 3])     # [T,D,B,H] -> [B,D,T,H]
        for i in range(1, len(c.outputs)):
            state = outs[i] if final_mask is None else e.one("Mul", [outs[i], final_mask])
            e.one("Transpose", [state], c.outputs[i], perm=[1, 0, 2])  # [D,B,H] -> [B,D,H]
    else:
        for i, out in enumerate(c.outputs):
            e.one("Squeeze", [outs[i + 1], e.ints([0])], out)


#: IR type -> (family, sequence or cell)
_RECURRENT_OPS = {"LSTMSequence": ("LSTM", True), "GRUSequence": ("GRU", True), "RNNSequence": ("RNN", True),
                  "LSTMCell": ("LSTM", False), "GRUCell": ("GRU", False), "RNNCell": ("RNN", False)}


@converts(*_RECURRENT_OPS)
def recurrent(e: Emitter, c: Call) -> None:
    """ONNX LSTM/GRU/RNN (a cell: one step of one direction): gate order f,i,c,o -> i,o,f,c,
    batch-first transposes, biases split (see ``_recurrent``)."""
    _recurrent(e, c, *_RECURRENT_OPS[c.op.type])
