"""``irrun export MODEL.xml --ir-version 10 -o OUT.xml``: the model as an IR v10 file, for the
OpenVINO runtimes of 2020.1–2021.4, which read v10 only (openvinotoolkit/openvino#29324: today's
OpenVINO writes v11, and its serializer refuses to write v10 for a model read from a v11 file).

v10 and v11 share the layer syntax, the op definitions and the .bin layout
(/work/shared/spec/ir-format.md §10); what differs, and what an old runtime lacks:

* ``<net version="10">``; no layer or port ``<rt_info>`` (v10 readers ignore it: it is dropped).
* Op versions: those runtimes know opsets 1–8 (opset8 came with 2021.4), so a layer of a later
  version (``version="opset9"`` and up: ScaledDotProductAttention-13, Gather-8 is fine) or of an
  extension (openvino-tokenizers) has no v10 form — except the versions that only add an option
  to an older one, written as that older version when the option is unused (:data:`DOWNGRADES`:
  MaxPool-14 and AvgPool-14 without ``ceil_torch``, TopK-11 not ``stable``; what
  ``openvino.convert_model`` writes for torch's pooling and topk).
* Element types: none of the newer ones (nf4, f8*, f4e2m1, f8e8m0, string, u2/u3/u6).
* Shapes: those runtimes are static-shape (dynamic shapes came with 2022.1), so every Parameter
  must have a static shape (``irrun reshape`` first) and every port's shape must follow from them
  (a data-dependent shape, NonZero's, has no v10 form); every port's ``<dim>`` is written as
  inferred.

Nothing is written when something has no v10 form: the :class:`UnsupportedError` (exit 3) names
every such layer or input. What a reader of a v10 file does differently (``update_v10_model``,
measured, ir-format.md §10) is not undone here and is documented: an f16 input is fed as f32, i64
and i32 outputs come out as i32 and other non-f32 outputs as f32, and the tensor names are the
layers' names (a Parameter's own, a Result's producer's).
"""
from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import UnsupportedError, printable

if TYPE_CHECKING:
    from ..model import Model

#: the newest opset the runtimes that read only v10 know (OpenVINO 2021.4)
NEWEST_OPSET = 8
#: op versions of later opsets that are an older version with one more option: written as the
#: older version when the option is not used (type, version) -> (older version, the data attribute
#: and the values the older version lacks). MaxPool-14/AvgPool-14 add rounding_type "ceil_torch"
#: to MaxPool-8/AvgPool-1; TopK-11 adds ``stable`` to TopK-3 (op specs, opset14 and opset11).
DOWNGRADES: dict[tuple[str, str], tuple[str, str, frozenset[str]]] = {
    ("MaxPool", "opset14"): ("opset8", "rounding_type", frozenset({"ceil_torch"})),
    ("AvgPool", "opset14"): ("opset1", "rounding_type", frozenset({"ceil_torch"})),
    ("TopK", "opset11"): ("opset3", "stable", frozenset({"true", "1"})),
}
#: element types those runtimes know
KNOWN_TYPES = frozenset({"boolean", "bf16", "f16", "f32", "f64", "i4", "i8", "i16", "i32", "i64",
                         "u1", "u4", "u8", "u16", "u32", "u64"})


def problems(model: Model) -> list[str]:
    """Why ``model`` has no IR v10 form: one line per layer (or input), empty when it has one."""
    out: list[str] = []
    for spec in model.inputs:
        if not spec.shape.is_static:
            out.append(f"input {printable(spec.name)} has the dynamic shape {spec.shape}: give it a static "
                       "one (irrun reshape MODEL.xml --shape NAME=DIMS -o STATIC.xml)")

    def walk(layers, where: str) -> None:
        for layer in layers:
            name = f"layer {where}{printable(layer.id)} {printable(layer.name)} ({printable(layer.type)}-" \
                   f"{printable(layer.version)})"
            m = re.fullmatch(r"opset(\d+)", layer.version or "")
            if (m is None or int(m.group(1)) > NEWEST_OPSET) and _older(layer.type, layer.version, layer.data) is None:
                out.append(f"{name}: an op version OpenVINO 2021.4 and older do not know (they know opsets "
                           f"1-{NEWEST_OPSET})")
            types = {d.etype.name for d in layer.outputs if d.etype is not None} | \
                {str(layer.data.get("element_type", "")).strip()} - {""}
            bad = sorted(t for t in types if t not in KNOWN_TYPES and t != "undefined" and t != "dynamic")
            if bad:
                out.append(f"{name}: element type {', '.join(bad)}, which IR v10 runtimes do not know")
            for body in layer.bodies.values():
                walk(body.layers, f"{where}{printable(layer.id)}/")
    walk(model.ir.graph.layers, "")
    if out:
        return out
    types = model.types()
    for n in model.order:
        layer = model.dag.nodes[n]["layer"]
        for p in range(len(layer.outputs)):
            info = types.get((n, p))
            if info is not None and not info.shape.is_static:
                out.append(f"layer {printable(layer.id)} {printable(layer.name)} ({printable(layer.type)}-"
                           f"{printable(layer.version)}): output {p} has the shape {info.shape} even for "
                           "static inputs (data-dependent)")
    return out


def _older(op_type: str, version: str, data) -> str | None:
    """The older version (:data:`DOWNGRADES`) this layer can be written as, or None."""
    down = DOWNGRADES.get((op_type, version))
    if down is None or str(data.get(down[1], "")).strip().lower() in down[2]:
        return None
    return down[0]


def _to_v10(root) -> None:
    """The XML edit: version 10, the :data:`DOWNGRADES`, no layer or port rt_info."""
    root.set("version", "10")
    for le in root.iter("layer"):
        data = le.find("data")
        older = _older(le.get("type", ""), le.get("version", ""), data.attrib if data is not None else {})
        if older is not None:
            down = DOWNGRADES[(le.get("type", ""), le.get("version", ""))]
            le.set("version", older)
            if data is not None and down[1] in data.attrib:
                del data.attrib[down[1]]
    layers = root.find("layers")
    for rt in list(layers.iter("rt_info")) if layers is not None else []:
        parent = rt.getparent()
        prev = rt.getprevious()
        if prev is not None:                       # keep the indentation of what follows
            prev.tail = rt.tail
        else:
            parent.text = rt.tail if parent.text is None or not parent.text.strip() else parent.text
        parent.remove(rt)


def write_ir_v10(model: Model | str | os.PathLike, path: str | os.PathLike) -> Path:
    """Write ``model`` as IR v10 at ``path`` (.xml, the .bin beside it): both files or neither;
    UnsupportedError (exit 3) naming every layer or input that has no v10 form."""
    from ..analysis.reshape import reshape, save, targets
    from ..io import writers
    if isinstance(model, (str, os.PathLike)):
        from ..model import read_model
        model = read_model(model)
    targets(path, writers.model_files(model))               # a bad -o fails before any work
    why = problems(model)
    if why:
        raise UnsupportedError(f"cannot write IR v10, nothing written: {len(why)} problem(s): " + "; ".join(why),
                               file=model.path)
    reshape(model, {})                 # every port's <dim> as inferred (all static now)
    return save(model, path, edit=_to_v10)
