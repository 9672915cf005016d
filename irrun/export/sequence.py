"""ONNX forms of stateful and sequence ops: ReadValue/Assign as explicit state inputs/outputs.

ONNX has no variables, so each IR variable becomes one graph input (the value ReadValue reads)
and one graph output (the value Assign writes), named as optimum's non-stateful decoder exports
name them when the variable is a KV-cache entry — ``past_key_values.N.key`` in and
``present.N.key`` out (optimum-intel's stateful IRs name their variables
``past_key_values.N.keypresent.N.key``) — else ``<variable_id>`` in and ``<variable_id>.next``
out. The caller drives the loop: feed each step the outputs of the last (the first step: the
initial value, e.g. an empty cache of length 0; a ReadValue's initializing sub-graph is not
exported, it runs only when the state is reset).
"""
from __future__ import annotations

import re
from typing import Any

from .emitter import Call, Emitter, Unexpressible, value_info
from .table import converts, not_exported

_KV = re.compile(r"past_key_values\.(\d+)\.(key|value)")


def state_names(variable_id: str) -> tuple[str, str]:
    """(input name, output name) of a variable's explicit state ports."""
    m = _KV.match(variable_id)
    if m:
        return f"past_key_values.{m[1]}.{m[2]}", f"present.{m[1]}.{m[2]}"
    return variable_id, f"{variable_id}.next"


@converts("ReadValue")
def read_value(e: Emitter, c: Call) -> None:
    var = c.op.variable_id
    entry = e.states.setdefault(var, {})
    if "input" in entry:
        raise Unexpressible(f"a second ReadValue of variable {var}")
    name = state_names(var)[0]
    if name in e.used:
        name = e.fresh(name)
    e.used.add(name)
    entry["input"] = value_info(name, c.out_info[0].etype, c.out_info[0].shape, symbolic=name)
    e.one("Identity", [name], c.outputs[0])
    if len(c.inputs):
        e.notes.append("ReadValue initializers are not exported: feed each state input its initial value "
                       "on the first step")


@converts("Assign")
def assign(e: Emitter, c: Call) -> None:
    var = c.op.variable_id
    entry = e.states.setdefault(var, {})
    if "output" in entry:
        raise Unexpressible(f"a second Assign of variable {var}")
    name = state_names(var)[1]
    if name in e.used:
        name = e.fresh(name)
    e.used.add(name)
    e.one("Identity", [c.inputs[0]], name)
    for out in c.outputs:
        e.one("Identity", [c.inputs[0]], out)
    entry["output"] = value_info(name, c.in_info[0].etype, c.in_info[0].shape)


def state_ports(walk: Any) -> tuple[list[Any], list[Any]]:
    """The state inputs and outputs the converters above recorded, in variable order."""
    states = walk.e.states
    return ([s["input"] for s in states.values() if "input" in s],
            [s["output"] for s in states.values() if "output" in s])


not_exported("sub-graph bodies (ONNX Loop/If/Scan) are not written yet", "TensorIterator", "Loop", "If")
not_exported("RNN cells and sequences (ONNX LSTM/GRU/RNN with the gate order changed) are not written yet",
             "LSTMSequence", "GRUSequence", "RNNSequence", "LSTMCell", "GRUCell", "RNNCell")
