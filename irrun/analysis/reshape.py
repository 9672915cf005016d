"""Reshape a read model and write it back as IR, by editing a copy of the XML it was read from.

:func:`reshape` is ``Model.reshape``: infer every layer for new input shapes, all or nothing; on
success the Parameters' ``shape`` attributes and every live port's declared dims (dynamic and
interval dims -> ``-1``, as OpenVINO writes them) are updated in the model's records.
:func:`save` is ``Model.save``: the XML the model was read from, parsed again (keeping the lxml
tree for the model's lifetime would cost about 19 times the file's size), with those records
written back — only the ``shape`` attributes and ``<dim>`` elements that changed are touched, so
names, attributes, rt_info and layout stay as they were (a model saved unchanged is
byte-identical, except for XML comments, which the reader drops) — and the .bin copied byte for
byte. Saving refuses a file that no longer has the layers the model was read from.
"""
from __future__ import annotations

import copy
import os
import re
from collections.abc import Mapping
from pathlib import Path

import numpy as np
from lxml import etree

from ..errors import ExecutionError, IrrunError, OutputError, ShapeError
from ..io import writers
from ..ir.xml import parse_xml_bytes, read_xml_bytes
from ..ops.registry import role_of
from ..types.shapes import PartialShape
from ..types.tensor_info import Role
from .graph import inputs_of


def pshape_attr(shape: PartialShape) -> str:
    """A Parameter ``shape`` attribute: ``1,3,?,2..8``, ``...`` (dynamic rank), ``""`` (scalar)."""
    return "..." if shape.rank is None else ",".join(str(d) for d in shape)


def port_dims(shape: PartialShape) -> tuple[int, ...]:
    """Declared ``<dim>`` values: static dims as they are, every other dim -1 (no dims for a
    dynamic rank, as OpenVINO's serializer writes it)."""
    return () if shape.rank is None else tuple(d.lo if d.is_static else -1 for d in shape)


def as_pshape(shape) -> PartialShape:
    """A shape given as a PartialShape, a string like ``"1,3,?,2..8"`` or a list of ints."""
    if isinstance(shape, PartialShape):
        return shape
    return PartialShape.parse(shape) if isinstance(shape, str) else PartialShape(shape)


def reshape(model, shapes: Mapping[str, object]) -> None:
    """See :meth:`irrun.Model.reshape`."""
    try:
        types = model.infer_shapes(shapes)
    except (ShapeError, ExecutionError) as e:
        raise type(e)(e.message + _baked_in_hint(model, e), file=e.file, layer=e.layer,
                      port=e.port) from None
    g = model.dag
    for name, shape in shapes.items():
        n = model.find_input(name)
        op = model.ops[n]
        shape = as_pshape(shape)
        if shape != op.shape:
            op = copy.copy(op)
            op.shape = shape
            model.ops[n] = op
            g.nodes[n]["layer"].data["shape"] = pshape_attr(shape)
    for n in model.order:
        layer = g.nodes[n]["layer"]
        layer.outputs[:] = [d.with_dims(port_dims(types[(n, i)].shape))
                            for i, d in enumerate(layer.outputs)]
        for k, (u, sp) in enumerate(inputs_of(g, n)):
            layer.inputs[k] = layer.inputs[k].with_dims(port_dims(types[(u, sp)].shape))
    model.use_types(types)


def _baked_in_hint(model, err: IrrunError) -> str:
    """When the blocking layer reads a Const, show it: it usually holds the old shapes."""
    if err.layer is None or err.layer.path or not err.layer.id.isdigit():
        return ""
    n = int(err.layer.id)
    g = model.dag
    for k, (u, _) in enumerate(inputs_of(g, n)):
        src = g.nodes[u]["layer"]
        v = src.const_value
        if v is not None and 0 < v.size <= 16 and v.dtype.kind in "iu":
            return (f' (input {k} is Const "{src.name}" = {np.asarray(v).tolist()}, which may hold '
                    "the old shapes)")
    return ""


# ---------------------------------------------------------------------------------------------
# Writing

def targets(xml_path: str | os.PathLike, protect=()) -> tuple[Path, Path]:
    """The .xml and .bin :func:`save` writes, checked (before any work): the name must end in
    .xml, neither file may be a link, a directory or one of the files in ``protect``."""
    xml_path = Path(xml_path)
    if xml_path.suffix.lower() != ".xml":
        raise OutputError("the IR file name must end in .xml (its weights go to the .bin beside it)",
                          file=str(xml_path))
    files = (writers.destination(xml_path, protect=protect),
             writers.destination(xml_path.with_suffix(".bin"), protect=protect))
    writers.distinct([("the .xml", files[0]), ("its .bin", files[1])])     # hard-linked to each other
    return files


def save(model, xml_path: str | os.PathLike, protect=(), edit=None) -> Path:
    """See :meth:`irrun.Model.save`; ``edit(root)``, when given, changes the parsed XML further
    before it is written (irrun.export.ir_v10 writes the other IR version that way)."""
    ir = model.ir
    protect = [*protect, *writers.model_files(model)]
    xml_path, bin_out = targets(xml_path, protect)
    original = read_xml_bytes(ir.xml_path)
    root = parse_xml_bytes(original, ir.xml_path)
    elems = list(root.find("layers").iterfind("layer"))
    if [(e.get("id", "").strip(), e.get("type")) for e in elems] != \
            [(str(L.id), L.type) for L in ir.graph.layers]:
        raise IrrunError("the file has changed since the model was read from it; read it again "
                         "before saving", file=ir.xml_path)
    for layer in ir.graph.layers:
        le = elems[layer.position]
        if role_of(layer.type) is Role.PARAMETER and "shape" in layer.data:
            data = le.find("data")
            if data is not None and data.get("shape") != layer.data["shape"]:
                data.set("shape", layer.data["shape"])
        for tag, decls in (("input", layer.inputs), ("output", layer.outputs)):
            pe = le.find(tag)
            for port, decl in zip(pe.iterfind("port") if pe is not None else (), decls):
                _set_dims(port, decl.dims)
    if edit is not None:
        edit(root)
    text = etree.tostring(root, encoding="UTF-8")
    if re.search(rb"\s/>", original) and not re.search(rb"[^\s]/>", original):
        text = text.replace(b"/>", b" />")     # pugixml's style of empty elements
    if b"&gt;" not in original:
        text = text.replace(b"&gt;", b">")     # pugixml leaves ">" unescaped in attribute values
    start = re.search(rb"<[A-Za-z_]", original)
    prolog = original[:start.start()] if start else b'<?xml version="1.0"?>\n'
    tail = original[len(original.rstrip()):]
    files = [(xml_path, writers.data(prolog + text + tail))]
    if ir.bin_path and os.path.isfile(ir.bin_path):
        files.append((bin_out, writers.copy_of(ir.bin_path)))
    writers.write_files(files, protect=protect)
    return xml_path


def _set_dims(port, dims: tuple[int, ...]) -> None:
    """Make the ``<dim>`` children of ``port`` say ``dims``, keeping the file's indentation."""
    old = port.findall("dim")
    if [(d.text or "").strip() for d in old] == [str(v) for v in dims]:
        return
    if len(old) == len(dims):
        for d, v in zip(old, dims):
            d.text = str(v)
        return
    # the rank changed: rebuild the dims where the first one was, indented like the port's children
    prev = port.getprevious()
    before = (prev.tail if prev is not None else port.getparent().text) or ""
    base = before.rpartition("\n")[2] if "\n" in before else None
    inner = None if base is None else "\n" + base + ("\t" if "\t" in base or not base else "  ")
    close = None if base is None else "\n" + base
    at = port.index(old[0]) if old else 0
    for d in old:
        port.remove(d)
    for i, v in enumerate(dims):
        e = etree.Element("dim")
        e.text = str(v)
        port.insert(at + i, e)
    children = list(port)
    if not children:
        port.text = None
        return
    port.text = inner
    for c in children[:-1]:
        c.tail = inner
    children[-1].tail = close
