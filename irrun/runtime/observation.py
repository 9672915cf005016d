"""Watching a run: the observers that hook into the one loop (:mod:`irrun.runtime.loop`).

An observer is called after every step the plan's loop runs, as ``observe(step, inputs, outputs,
seconds)`` (:data:`Observer`). The library needs two of them itself, so they live here and not
with the debugging tools: :class:`LayerRecorder` records one :class:`LayerRun` per executed layer
(``Model.run(dump=)`` writes its arrays through :mod:`irrun.io.dumps`; :class:`irrun.debug.Trace`
adds the profile and comparisons on top), and :class:`StopAt` keeps the outputs of the layer a
``Model.run(stop_at=)`` ends at. The model asks :func:`find_layer` for that layer.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..analysis.graph import Graph
from ..errors import InputError, printable
from ..types.tensor_info import Role
from .step import CONST, RESULT, Step

#: ``observe(step, inputs, outputs, seconds)``: called after every step (the debug tools: dump,
#: profile, compare, stop-at, accuracy). A Result step has no outputs; a CONST step (a plan that
#: shows every layer has them) took no time. An observer that returns a list replaces the step's
#: outputs with it for the rest of the run (irrun.debug.accuracy.precision rounds activations to
#: f16/bf16 this way); None keeps them. One that keeps the arrays it is shown says so with a true
#: ``keeps_arrays`` attribute (assumed when absent): the run then writes no layer's output into an
#: input's buffer.
Observer = Callable[[Step, list, list, float], "list | None"]


def find_layer(g: Graph, spec: int | str, file: str | None) -> int:
    """A layer by id (``12`` or ``"12"``), name, or output tensor name; InputError otherwise."""
    text = str(spec).strip()
    if text.lstrip("-").isdigit() and int(text) in g:
        return int(text)
    for what, match in (("named", lambda L: L.name == text),
                        ("with an output tensor named", lambda L: any(text in p.names for p in L.outputs))):
        hits = sorted(n for n, d in g.nodes(data=True) if match(d["layer"]))
        if len(hits) == 1:
            return hits[0]
        if hits:
            raise InputError(f'{len(hits)} layers are {what} "{text}" (ids {", ".join(map(str, hits))}); '
                             "give the id", file=file)
    import difflib  # (only to name a layer that is not there)
    names = [d["layer"].name for _, d in g.nodes(data=True)]
    close = difflib.get_close_matches(text, names, n=3)
    hint = f"; did you mean {', '.join(repr(c) for c in close)}?" if close else \
        " (irrun info lists the inputs and ops; irrun graph draws the layers)"
    raise InputError(f'the model has no layer with id or name "{text}"{hint}', file=file)


def port_name(layer: Any, i: int) -> str:
    """A readable name for output ``i`` of a layer record: its first tensor name, else the
    layer's name (``name.i`` for a layer with several outputs, as OpenVINO names them)."""
    names = layer.outputs[i].names if i < len(layer.outputs) else []
    if names:
        return names[0]
    return layer.name if len(layer.outputs) == 1 else f"{layer.name}.{i}"


def op_name(layer: Any, op: Any) -> str:
    """``"Gather-8"``: the layer's type and the version of the op it resolves to (the file's
    ``version`` attribute names an opset, not the op version)."""
    version = (op.version if op is not None else layer.version).removeprefix("opset")
    return printable(f"{layer.type}-{version}")


@dataclass
class LayerRun:
    """One executed layer: ``kind`` is param, op (a kernel ran) or folded (its value was known
    before running: a constant sub-graph)."""

    id: int
    name: str
    type: str
    version: str                                   # the file's attribute, e.g. "opset8"
    op: str                                        # type and op version, e.g. "Gather-8"
    kind: str
    inputs: list[tuple[int, ...]]                  # input shapes
    ports: list[int]                               # output port ids
    shapes: list[tuple[int, ...]]                  # output shapes
    element_types: list[str]
    seconds: float
    arrays: list[np.ndarray] | None = None         # the outputs, when kept

    def key(self, i: int) -> str:
        return f"{self.id}:{self.ports[i]}"


@dataclass
class LayerRecorder:
    """An observer that records every executed layer of graph ``g`` (not Consts or Results).
    Arrays are kept for layers ``select`` accepts when ``arrays`` is true."""

    g: Graph
    select: Callable[[Any], bool] | None = None
    arrays: bool = True
    layers: list[LayerRun] = field(default_factory=list)

    @property
    def keeps_arrays(self) -> bool:
        """Kept arrays must not change afterwards: the loop writes nothing in place then."""
        return self.arrays

    def __call__(self, step: Step, args: list, outs: list, seconds: float) -> None:
        if step.op.role in (Role.RESULT, Role.CONSTANT):
            return
        layer = self.g.nodes[step.node]["layer"]
        keep = self.arrays and (self.select is None or self.select(layer))
        self.layers.append(LayerRun(
            layer.id, layer.name, layer.type, layer.version, op_name(layer, step.op),
            "folded" if step.kind is CONST else step.kind.value,
            [a.shape for a in args], [p.id for p in layer.outputs], [o.shape for o in outs],
            [i.etype.name if i is not None else "" for i in step.infos], seconds,
            list(outs) if keep else None))

    def tensors(self) -> dict[str, np.ndarray]:
        """Every kept output, keyed ``"<layer id>:<port id>"``, in execution order."""
        return {r.key(i): a for r in self.layers if r.arrays is not None for i, a in enumerate(r.arrays)}

    def dump_entries(self) -> list[tuple[dict, np.ndarray]]:
        """The kept outputs as :func:`irrun.io.dumps.save_tensors` writes them: the fields of
        each one's manifest entry, and the array."""
        return [(dict(key=r.key(i), id=r.id, name=r.name, type=r.type, version=r.version,
                      port=r.ports[i], element_type=r.element_types[i]), a)
                for r in self.layers for i, a in enumerate(r.arrays or ())]


class StopAt:
    """The observer of a run that ends at layer ``target`` (``Model.run(stop_at=)``): keeps that
    layer's outputs as ``got`` — ``result_key`` for a Result (the model output it holds), else
    each output by :func:`port_name` — and shows every step to ``then`` as well."""

    keeps_arrays = True                     # the target's outputs are kept

    def __init__(self, target: int, layer: Any, result_key: str, then: Observer | None):
        self.target, self.layer, self.result_key, self.then = target, layer, result_key, then
        self.got: dict[str, np.ndarray] = {}

    def __call__(self, step: Step, args: list, outs: list, seconds: float) -> list | None:
        if step.node == self.target:
            self.got = {self.result_key: args[0]} if step.kind is RESULT else \
                {port_name(self.layer, i): a for i, a in enumerate(outs)}
        return None if self.then is None else self.then(step, args, outs, seconds)

