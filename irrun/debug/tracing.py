"""Debugging a run: which layer produced what, and how long it took.

irrun executes every layer as written, so it can show every intermediate tensor exactly. One
mechanism serves all the tools: the executor's ``observe`` callback (:data:`irrun.runtime.executor.Observer`),
called after each step with the step, its input arrays, its outputs and the elapsed time.
:class:`Trace` is such an observer; it records one :class:`LayerRun` per executed layer.

    t = irrun.debug.trace(model, {"x": x})                 # or stop_at="Transpose_182", ops=["Concat"]
    t.save("dump/")                                        # tensors.npz + manifest.json
    print(t.profile())                                     # aligned per-layer table, top layers, totals
    model.run({"x": x}, dump="dump/")                      # the same dump, from Model.run

Dump format: ``tensors.npz`` holds one array per output port, keyed ``"<layer id>:<port id>"``
(the ids of the XML, so ``"5:2"`` is the port an ``<edge from-layer="5" from-port="2">`` leaves);
``manifest.json`` lists them in execution order with id, name, type, version, port, shape, dtype,
min, max, mean (over finite values) and NaN and Inf counts (the files: :mod:`irrun.debug.dumps`).
"""
from __future__ import annotations

import difflib
import fnmatch
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..errors import InputError, printable
from ..io.writers import model_files
from ..ops.registry import role_of
from ..types.tensor_info import Role
from .dumps import MANIFEST, TENSORS, dtype_name, load_tensors, save_tensors, stats, storable  # noqa: F401

if TYPE_CHECKING:
    from ..ir.records import Layer
    from ..model import Model

# ---------------------------------------------------------------------------------------------
# Naming layers and ports

def find_layer(model, spec: int | str) -> int:
    """A layer by id (``12`` or ``"12"``), name, or output tensor name; InputError otherwise."""
    g = model.dag
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
                             "give the id", file=model.path)
    names = [d["layer"].name for _, d in g.nodes(data=True)]
    close = difflib.get_close_matches(text, names, n=3)
    hint = f"; did you mean {', '.join(repr(c) for c in close)}?" if close else \
        " (irrun info lists the inputs and ops; irrun graph draws the layers)"
    raise InputError(f'the model has no layer with id or name "{text}"{hint}', file=model.path)


def type_version(model, n: int) -> str:
    """``"Gather-8"``: the layer's type and the version of the op it resolves to (the file's
    ``version`` attribute names an opset, not the op version)."""
    layer = model.dag.nodes[n]["layer"]
    op = model.ops.get(n)
    version = (op.version if op is not None else layer.version).removeprefix("opset")
    return printable(f"{layer.type}-{version}")


def port_name(model, n: int, i: int) -> str:
    """A readable name for output ``i`` of layer ``n``: its first tensor name, else the layer's
    name (``name.i`` for a layer with several outputs, as OpenVINO names them)."""
    layer = model.dag.nodes[n]["layer"]
    names = layer.outputs[i].names if i < len(layer.outputs) else []
    if names:
        return names[0]
    return layer.name if len(layer.outputs) == 1 else f"{layer.name}.{i}"


def port_key(model, n: int, i: int) -> str:
    """``"<layer id>:<port id>"``, the dump's key for output ``i`` of layer ``n``."""
    return f"{n}:{model.dag.nodes[n]['layer'].outputs[i].id}"


# ---------------------------------------------------------------------------------------------
# Recording a run

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


def selector(ops: Iterable[str] | None = None, names: Iterable[str] | None = None):
    """A predicate on layers: type in ``ops`` (case-insensitive; comma lists allowed) and name
    matching one of the glob ``names`` (``"block1/*"``). None = no condition."""
    types = {t.strip().lower() for s in ops or () for t in s.split(",") if t.strip()}
    globs = [g for s in names or () for g in s.split(",") if g]
    return lambda layer: ((not types or layer.type.lower() in types)
                          and (not globs or any(fnmatch.fnmatchcase(layer.name, g) for g in globs)))


def check_op_types(model, ops: Iterable[str]) -> None:
    """InputError unless every type in ``ops`` (comma lists allowed) is a layer type of ``model``:
    a typo would otherwise select nothing. Names the closest type (OpenVINO's or the model's)."""
    from ..ops.registry import canonical_names

    have = {d["layer"].type.lower(): d["layer"].type for _, d in model.dag.nodes(data=True)}
    for t in (t.strip() for s in ops for t in s.split(",") if t.strip()):
        if t.lower() in have:
            continue
        known = canonical_names()
        close = difflib.get_close_matches(t, sorted(set(have.values())), n=1) or \
            ([] if t.lower() in known else difflib.get_close_matches(t, sorted(known.values()), n=1))
        what = "the model has no layer of type" if t.lower() in known else "no op type is named"
        hint = f"; did you mean {close[0]}?" if close else ""
        raise InputError(f'--dump-ops: {what} "{t}"{hint} (the model\'s types: '
                         f"{', '.join(sorted(set(have.values()), key=str.lower))})", file=model.path)


def check_name_globs(model, names: Iterable[str]) -> None:
    """InputError unless every glob in ``names`` matches some layer name of ``model``."""
    layer_names = [d["layer"].name for _, d in model.dag.nodes(data=True)]
    for g in (g for s in names for g in s.split(",") if g):
        if not any(fnmatch.fnmatchcase(n, g) for n in layer_names):
            close = difflib.get_close_matches(g, layer_names, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise InputError(f'--dump-names: no layer name matches "{g}"{hint}', file=model.path)


@dataclass
class Trace:
    """An observer for :func:`irrun.runtime.executor.execute` that records every executed layer (not Consts
    or Results). Arrays are kept for layers ``select`` accepts when ``arrays`` is true."""

    model: Model
    select: Callable[[Layer], bool] | None = None
    arrays: bool = True
    layers: list[LayerRun] = field(default_factory=list)
    outputs: dict[str, np.ndarray] = field(default_factory=dict)

    @property
    def keeps_arrays(self) -> bool:
        """Kept arrays must not change afterwards: the executor writes nothing in place then."""
        return self.arrays

    def __call__(self, step, args: list, outs: list, seconds: float) -> None:
        layer = self.model.dag.nodes[step.node]["layer"]
        if role_of(layer.type) in (Role.RESULT, Role.CONSTANT):
            return
        kind = "folded" if step.kind == "const" else step.kind
        keep = self.arrays and (self.select is None or self.select(layer))
        self.layers.append(LayerRun(
            layer.id, layer.name, layer.type, layer.version, type_version(self.model, step.node), kind,
            [a.shape for a in args], [p.id for p in layer.outputs], [o.shape for o in outs],
            [i.etype.name if i is not None else "" for i in step.infos], seconds,
            list(outs) if keep else None))

    def tensors(self) -> dict[str, np.ndarray]:
        """Every kept output, keyed ``"<layer id>:<port id>"``, in execution order."""
        return {r.key(i): a for r in self.layers if r.arrays is not None for i, a in enumerate(r.arrays)}

    def save(self, directory: str | os.PathLike, protect: Iterable[str | os.PathLike] = ()) -> Path:
        """Write ``tensors.npz`` and ``manifest.json`` into ``directory`` (created if needed; files
        in ``protect`` — the model's, by default too — are never overwritten)."""
        entries = []
        for r in self.layers:
            for i, a in enumerate(r.arrays or ()):
                entries.append((dict(key=r.key(i), id=r.id, name=r.name, type=r.type, version=r.version,
                                     port=r.ports[i], element_type=r.element_types[i]), a))
        protect = [*protect, *model_files(self.model)]
        return save_tensors(directory, entries, protect, model=str(self.model.path))

    def profile(self, top: int = 10) -> str:
        return format_profile(self.layers, top)


def trace(model, inputs, *, stop_at: int | str | None = None, ops: Iterable[str] | None = None,
          names: Iterable[str] | None = None, arrays: bool = True) -> Trace:
    """Run ``model`` on ``inputs`` recording every layer; ``ops``/``names`` choose whose outputs
    are kept (see :func:`selector`); ``stop_at`` runs only what that layer needs."""
    t = Trace(model, selector(ops, names) if ops or names else None, arrays)
    t.outputs = model.run(inputs, stop_at=stop_at, observe=t)
    return t


# ---------------------------------------------------------------------------------------------
# Profile

def short_name(name: str, width: int = 32) -> str:
    """A layer name for a table column: escaped, cut to ``width`` with an ellipsis."""
    name = printable(name)
    return name if len(name) <= width else name[: width - 1] + "…"


def shapes_text(shapes: Iterable[tuple[int, ...]]) -> str:
    """Shapes as ``[1,3] [3]`` for a table column."""
    return " ".join("[" + ",".join(map(str, s)) + "]" for s in shapes)


def table(rows: Sequence[tuple[str, ...]], right: set[int]) -> list[str]:
    w = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return ["  ".join(c.rjust(w[i]) if i in right else c.ljust(w[i]) for i, c in enumerate(r)).rstrip()
            for r in rows]


def format_profile(layers: list[LayerRun], top: int = 10) -> str:
    """Per-layer table (id, name, op, input -> output shapes, ms), the ``top`` slowest layers
    (when there are more layers than that) and the totals per op type."""
    ran = [r for r in layers if r.kind == "op"]
    folded = [r for r in layers if r.kind == "folded"]
    total = sum(r.seconds for r in ran) or 1e-12
    ms = lambda s: f"{s * 1e3:.3f}"                                    # noqa: E731
    pct = lambda s: f"{100 * s / total:.1f}"                           # noqa: E731
    rows = [("id", "name", "op", "inputs -> outputs", "ms")]
    rows += [(str(r.id), short_name(r.name), r.op, f"{shapes_text(r.inputs)} -> {shapes_text(r.shapes)}", ms(r.seconds))
             for r in ran]
    out = table(rows, {0, 4})
    note = f", {len(folded)} folded before running ({', '.join(dict.fromkeys(r.op for r in folded))})" \
        if folded else ""
    out.append(f"total {ms(sum(r.seconds for r in ran))} ms in {len(ran)} layers{note}")
    if len(ran) > top:
        slow = sorted(ran, key=lambda r: -r.seconds)[:top]
        out += ["", f"slowest {top}"] + table(
            [("id", "name", "op", "ms", "%")] + [(str(r.id), short_name(r.name), r.op, ms(r.seconds), pct(r.seconds))
                                                for r in slow], {0, 3, 4})
    by_op: dict[str, list[float]] = {}
    for r in ran:
        by_op.setdefault(r.op, []).append(r.seconds)
    if ran:
        out += [""] + table([("op", "layers", "ms", "%")] + [
            (op, str(len(v)), ms(sum(v)), pct(sum(v)))
            for op, v in sorted(by_op.items(), key=lambda kv: -sum(kv[1]))], {1, 2, 3})
    return "\n".join(out)
