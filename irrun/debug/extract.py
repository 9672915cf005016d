"""Cut one layer out of a model into its own IR: a ready bug report or regression test.

The new model holds the layer (same type, version, name and attributes), a Parameter for each
input whose value depends on the model's inputs, a Const for each input that does not (the
original Const's bytes, or the value shape inference folded, e.g. ShapeOf -> Gather), and a Result
per output. With inputs, the model is run up to the layer (``stop_at``) and what reached it is
saved as ``inputs.npz`` (keyed by the new Parameters' names), with irrun's outputs of the layer as
``outputs.npz``; the Parameters then have the concrete shapes of that run. Without inputs they
keep the shapes inferred from the model's declared input shapes.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..analysis.graph import inputs_of
from ..errors import InputError, ModelFileError
from ..io import writers
from ..io.files import open_regular
from ..io.outputs import storable
from ..ir.builder import IRWriter
from ..model import Model
from ..ops.registry import role_of
from ..types import elements
from ..types.shapes import PartialShape
from ..types.tensor_info import Role
from .tracing import find_layer, port_name, type_version


@dataclass
class Extracted:
    directory: Path
    layer: str                                   # 'layer 5 "Transpose_182" (Transpose-1)'
    params: dict[str, str] = field(default_factory=dict)    # name -> "f32[1,4,4,4]"
    consts: int = 0
    inputs: dict[str, np.ndarray] | None = None
    outputs: dict[str, np.ndarray] | None = None


def unique_name(name: str, taken: set[str]) -> str:
    """``name``, or ``name_2``, ``name_3``... whichever ``taken`` does not hold yet (then taken):
    OpenVINO wants unique friendly names."""
    out, k = name, 1
    while out in taken:
        k += 1
        out = f"{name}_{k}"
    taken.add(out)
    return out


def raw_const(model, layer) -> tuple[bytes, str, list[int]]:
    """A Const layer's bytes as the .bin holds them, its element type and shape: copied as they are."""
    d = layer.data
    with open_regular(model.ir.bin_path, ModelFileError) as f:
        f.seek(int(d["offset"]))
        raw = f.read(int(d["size"]))
    return raw, elements.from_attr(d["element_type"]).name, list(layer.const_shape)


FILES = ("model.xml", "model.bin", "inputs.npz", "outputs.npz")


def targets(directory: str | os.PathLike, protect=()) -> Path:
    """Check, before any work, that ``directory`` and the files extract writes there may be
    written (:class:`~irrun.errors.OutputError` if not)."""
    return writers.directory_of(directory, FILES, protect=protect)


def _as_declared(arr: np.ndarray, info) -> np.ndarray:
    """A computed array in its port's declared type (an f16 port computed in f32, rounded)."""
    dtype = None if info is None else info.etype.dtype
    if dtype is None or arr.dtype == dtype or arr.dtype.kind != "f":
        return arr
    with np.errstate(over="ignore"):
        return arr.astype(dtype)


def extract_layer(model, layer: int | str, directory: str | os.PathLike, inputs=None,
                  protect=()) -> Extracted:
    """Write ``directory/model.xml`` + ``.bin`` (and, given ``inputs``, ``inputs.npz`` and
    ``outputs.npz``) for one layer of ``model``, all or nothing; see the module docstring. The
    model's files and those in ``protect`` are never overwritten."""
    protect = [*protect, *writers.model_files(model)]
    targets(directory, protect)
    g = model.dag
    n = find_layer(model, layer)
    L = g.nodes[n]["layer"]
    if role_of(L.type) in (Role.PARAMETER, Role.CONSTANT, Role.RESULT):
        raise InputError(f"{L.ref} is a {L.type}; extract a layer that computes something", file=model.path)
    if L.bodies:
        raise InputError(f"{L.ref} has a sub-graph; irrun cannot extract TensorIterator/Loop/If "
                         "layers yet", file=model.path)
    declared: Any = Model(model.ir, strict=False, declared_types=True) if model.api.widened else model
    static = declared.types()          # the file's types (an f16 graph is run in f32: not these)
    seen: dict = {}
    if inputs is not None:
        def grab(step, args, outs, seconds):
            if step.node == n:
                seen.update(args=args, outs=outs, infos=step.infos)
        model.run(inputs, stop_at=n, observe=grab)
    b = IRWriter(f"{L.name}_extracted")
    taken: set[str] = set()
    res = Extracted(Path(directory), f'layer {L.id} "{L.name}" ({type_version(model, n)})')
    feeds, srcs = {}, []
    for k, (u, sp) in enumerate(inputs_of(g, n)):
        U = g.nodes[u]["layer"]
        known = static.get((u, sp))
        if role_of(U.type) is Role.CONSTANT:
            raw, et, const_shape = raw_const(model, U)
            srcs.append(b.const(None, etype=et, raw=raw, shape=const_shape))
        elif known is not None and known.value is not None:
            srcs.append(b.const(known.value, etype=known.etype.name))
        else:
            name = unique_name(port_name(model, u, sp), taken)
            if seen:
                arr = seen["args"][k]
                et = known.etype.name if known else elements.from_dtype(arr.dtype).name
                shape = PartialShape(arr.shape)
                feeds[name] = _as_declared(arr, known)
            else:
                et, shape = known.etype.name, known.shape
            pdims = None if shape.rank is None else [d.lo if d.is_static else -1 for d in shape]
            srcs.append(b.parameter(name, et, str(shape)[1:-1], dims=pdims or []))
            res.params[name] = f"{et}{shape}"
            continue
        res.consts += 1
    infos = (None if model.api.widened else seen.get("infos")) or [static.get((n, i)) for i in range(len(L.outputs))]
    dims: list[list[int] | None] = [list(o.shape) for o in seen["outs"]] if seen else \
        [None if i is None or i.shape.rank is None else [d.lo if d.is_static else -1 for d in i.shape]
         for i in infos]
    outs = b.layer(L.type, srcs, dict(L.data), version=L.version, n_out=len(L.outputs),
                   out_dims=dims, name=L.name)
    b.layers[-1]["out"] = [(i.etype.precision if i is not None else "UNSPECIFIED", d, None)
                           for i, d in zip(infos, dims)]        # one precision per output
    outs = outs if isinstance(outs, list) else [outs]
    out_names = [unique_name(port_name(model, n, i), taken) for i in range(len(outs))]
    for o, name in zip(outs, out_names):
        b.layers[b.result(o, name)]["name"] = f"{name}/result"   # friendly names stay unique
    if res.consts and not b.blob:
        b.blob += b"\0"       # OpenVINO 2026.4 cannot read an empty Const from an empty .bin ("ptr is Null")
    d = res.directory
    files = b.files(d / "model.xml")
    if seen:
        res.inputs, res.outputs = feeds, {k: _as_declared(v, i) for k, v, i in zip(out_names, seen["outs"], infos)}
        files += [(d / "inputs.npz", writers.npz({k: storable(v) for k, v in feeds.items()})),
                  (d / "outputs.npz", writers.npz({k: storable(v) for k, v in res.outputs.items()}))]
    writers.write_files(files, protect=protect)
    return res
