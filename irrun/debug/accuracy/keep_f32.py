"""``--keep-f32 OUT.xml``: a copy of the candidate IR in which the layers adding the most error
are marked to stay in their original precision, the way OpenVINO records it.

OpenVINO's mark is the ``disable_fp16_compression`` runtime attribute (``ov::disable_fp16_compression``,
class ``DisableFP16Compression``, RTTI ``"precise"`` version ``"0"``), which the IR serialiser
writes as ``<rt_info><attribute name="precise" version="0"/></rt_info>`` inside the layer and the
reader turns back into the attribute. The plugins' f16 paths and ``ovc``'s ``compress_to_fp16``
keep a marked layer in f32. The CPU plugin at bf16 honours it only on a layer whose plugin
node is still built from the marked op: the attribute is not copyable, and the fusions that
replace an op (a MatMul with its bias Add, compressed weights, attention into a snippets
Subgraph) drop it — see the README, where the source lines and measurements are. So the
device compare also reports, from OpenVINO's runtime graph, which marks took effect
(:func:`marks_lost`). The .xml is the candidate's with only those elements
added; the .bin is copied byte for byte.
"""
from __future__ import annotations

import os

from lxml import etree

from ...ir.xml import parse_xml
from .attribute import Result

PRECISE = {"name": "precise", "version": "0"}


def worst_layers(res: Result, top: int) -> list:
    """The ``top`` layers adding a non-zero error, largest first."""
    return [le for le in res.ranking() if le.added_worst.rel_l2 > 0][:max(top, 0)]


def marks_lost(marked: list[int], executed: dict[int, tuple[str, str]]) -> dict[int, tuple[str, str] | None]:
    """The marked layers OpenVINO's compiled model did not keep in f32, from its runtime graph
    (``executed``: see :func:`~irrun.debug.openvino_reference.all_ports`): {layer id: (precision,
    plugin node type)} for one it ran in bf16 or f16 all the same, {layer id: None} for one no
    plugin node names (merged into a node named after another layer, e.g. a MatMul whose bias Add
    the plugin fused into it)."""
    from ..openvino_reference import LOWER_FLOATS
    return {n: executed.get(n) for n in marked if n not in executed or executed[n][0] in LOWER_FLOATS}


def marked_xml(model, nodes: list[int]) -> bytes:
    """The model's XML with the ``precise`` runtime attribute on each layer of ``nodes`` (top-level
    layer ids), once."""
    root = parse_xml(model.path)
    ids = {str(n) for n in nodes}
    for le in root.find("layers").iterfind("layer"):
        if le.get("id") not in ids:
            continue
        rt = le.find("rt_info")
        if rt is None:
            rt = etree.Element("rt_info")
            data = le.find("data")
            if data is not None:
                data.addnext(rt)
            else:
                le.insert(0, rt)
        if not any(a.get("name") == PRECISE["name"] for a in rt.iterfind("attribute")):
            etree.SubElement(rt, "attribute", **PRECISE)
    return etree.tostring(root, xml_declaration=True, encoding="utf-8")


def write_marked(model, nodes: list[int], out_xml: str | os.PathLike, protect=()) -> None:
    """OUT.xml (marked) and OUT.bin (the candidate's weights), both or neither."""
    from pathlib import Path

    from ...io import writers
    out = Path(out_xml)
    files = [(out, writers.data(marked_xml(model, nodes)))]
    if model.ir.bin_path and os.path.isfile(model.ir.bin_path):
        files.append((out.with_suffix(".bin"), writers.copy_of(model.ir.bin_path)))
    writers.write_files(files, protect=[*protect, *writers.model_files(model)])
