"""Debugging a run: which layer produced what, and how long it took.

irrun executes every layer as written, so it can show every intermediate tensor exactly. One
mechanism serves all the tools: the run loop's ``observe`` callback (:data:`irrun.runtime.observation.Observer`),
called after each step with the step, its input arrays, its outputs and the elapsed time.
:class:`Trace` is such an observer — the runtime's :class:`~irrun.runtime.observation.LayerRecorder`,
which ``Model.run(dump=)`` uses too, with the model's outputs, the dump files and the profile on top;
it records one :class:`LayerRun` per executed layer.

    t = irrun.debug.trace(model, {"x": x})                 # or stop_at="Transpose_182", ops=["Concat"]
    t.save("dump/")                                        # tensors.npz + manifest.json
    print(t.profile())                                     # aligned per-layer table, top layers, totals
    model.run({"x": x}, dump="dump/")                      # the same dump, from Model.run

Dump format: ``tensors.npz`` holds one array per output port, keyed ``"<layer id>:<port id>"``
(the ids of the XML, so ``"5:2"`` is the port an ``<edge from-layer="5" from-port="2">`` leaves);
``manifest.json`` lists them in execution order with id, name, type, version, port, shape, dtype,
min, max, mean (over finite values) and NaN and Inf counts (the files: :mod:`irrun.io.dumps`).
"""
from __future__ import annotations

import difflib
import fnmatch
import os
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..errors import InputError, printable
from ..io.dumps import save_tensors
from ..io.writers import model_files
from ..runtime import observation
from ..runtime.observation import LayerRecorder, LayerRun  # noqa: F401  (LayerRun: irrun.debug's)

if TYPE_CHECKING:
    from ..ir.records import Layer
    from ..model import Model

# ---------------------------------------------------------------------------------------------
# Naming layers and ports

def find_layer(model, spec: int | str) -> int:
    """A layer of ``model`` by id (``12`` or ``"12"``), name, or output tensor name; InputError
    otherwise (:func:`irrun.runtime.observation.find_layer`)."""
    return observation.find_layer(model.dag, spec, model.path)


def type_version(model, n: int) -> str:
    """``"Gather-8"``: the layer's type and the version of the op it resolves to (the file's
    ``version`` attribute names an opset, not the op version)."""
    return observation.op_name(model.dag.nodes[n]["layer"], model.ops.get(n))


def port_name(model, n: int, i: int) -> str:
    """A readable name for output ``i`` of layer ``n``: its first tensor name, else the layer's
    name (``name.i`` for a layer with several outputs, as OpenVINO names them)."""
    return observation.port_name(model.dag.nodes[n]["layer"], i)


def port_key(model, n: int, i: int) -> str:
    """``"<layer id>:<port id>"``, the dump's key for output ``i`` of layer ``n``."""
    return f"{n}:{model.dag.nodes[n]['layer'].outputs[i].id}"


# ---------------------------------------------------------------------------------------------
# Recording a run

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


class Trace(LayerRecorder):
    """An observer for the run loop that records every executed layer of ``model`` (not Consts
    or Results; :class:`~irrun.runtime.observation.LayerRecorder`). Arrays are kept for layers
    ``select`` accepts when ``arrays`` is true; ``outputs`` are the run's (:func:`trace`)."""

    def __init__(self, model: Model, select: Callable[[Layer], bool] | None = None, arrays: bool = True):
        super().__init__(model.dag, select, arrays)
        self.model = model
        self.outputs: dict[str, np.ndarray] = {}

    def save(self, directory: str | os.PathLike, protect: Iterable[str | os.PathLike] = ()) -> Path:
        """Write ``tensors.npz`` and ``manifest.json`` into ``directory`` (created if needed; files
        in ``protect`` — the model's, by default too — are never overwritten)."""
        protect = [*protect, *model_files(self.model)]
        return save_tensors(directory, self.dump_entries(), protect, model=str(self.model.path))

    def profile(self, top: int = 10) -> str:
        return format_profile(self.layers, top)


def trace(model, inputs, *, stop_at: int | str | None = None, ops: Iterable[str] | None = None,
          names: Iterable[str] | None = None, arrays: bool = True, progress: str | None = "running") -> Trace:
    """Run ``model`` on ``inputs`` recording every layer; ``ops``/``names`` choose whose outputs
    are kept (see :func:`selector`); ``stop_at`` runs only what that layer needs. ``progress``
    labels the progress line (:mod:`irrun.io.progress`; None: none, e.g. inside another's)."""
    from ..io.progress import waiting
    t = Trace(model, selector(ops, names) if ops or names else None, arrays)
    if progress is None:
        t.outputs = model.run(inputs, stop_at=stop_at, observe=t)
        return t
    with waiting(progress, total=len(model.order)) as bar:       # ticks also inside one slow layer
        def observed(step, args, outs, seconds):
            bar.step(model.dag.nodes[step.node]["layer"].name)
            return t(step, args, outs, seconds)
        t.outputs = model.run(inputs, stop_at=stop_at, observe=observed)
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
