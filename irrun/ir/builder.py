"""Write IR v11 files from Python: a small builder for tests, tools and (later) ``irrun extract``.

    b = IRWriter("demo")
    x = b.parameter("x", "f32", [2, 6])
    parts = b.layer("VariadicSplit", [x, b.const(np.int64(1)), b.const(np.array([2, -1]))], n_out=2)
    b.result(parts[0], "a"); b.result(parts[1], "b")
    b.save("demo.xml")                           # writes demo.xml + demo.bin

Output ports get the dims given in ``out_dims`` (``-1`` for dynamic) or none; shape inference
never reads declared dims, only the checker compares them.
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from lxml import etree

from ..types import elements
from ..types.tensor_info import Role
from .records import FORMAT_LAYERS

if TYPE_CHECKING:
    from ..io.writers import Fill


class IRWriter:
    def __init__(self, name: str = "model"):
        self.name = name
        self.layers: list[dict] = []
        self.edges: list[tuple[int, int, int, int]] = []
        self.blob = bytearray()

    def _add(self, type_: str, version: str, inputs, attrs, out_ports, name=None, extra=None) -> int:
        lid = len(self.layers)
        in_ports = []
        for i, (src, sp) in enumerate(inputs):
            src_layer = self.layers[src]
            in_ports.append((i, src_layer["out"][sp]))
            self.edges.append((src, len(src_layer["in"]) + sp, lid, i))
        self.layers.append(dict(id=lid, name=name or f"{type_}_{lid}", type=type_, version=version,
                                attrs=attrs or {}, **{"in": in_ports}, out=out_ports, extra=extra or {}))
        return lid

    def parameter(self, name: str, etype: str, shape, dims=None) -> tuple[int, int]:
        shape_s = shape if isinstance(shape, str) else ",".join(str(d) for d in shape)
        if dims is None:
            dims = [] if isinstance(shape, str) else [d if isinstance(d, int) else -1 for d in shape]
        lid = self._add(*FORMAT_LAYERS[Role.PARAMETER], [], {"shape": shape_s, "element_type": etype},
                        [(elements.TYPES[etype].precision, list(dims), name)], name=name)
        return (lid, 0)

    def const(self, value, etype: str | None = None, raw: bytes | None = None, shape=None) -> tuple[int, int]:
        """A Const from an array (its natural type) or from ``raw`` bytes + ``etype`` + ``shape``."""
        if raw is None:
            value = np.asarray(value)
            et = elements.from_dtype(value.dtype) if etype is None else elements.TYPES[etype]
            raw = encode_strings(value) if et.name == "string" else \
                np.ascontiguousarray(value.astype(et.dtype)).tobytes()
            shape = value.shape
        elif etype is None:
            raise ValueError("raw bytes need their element type (etype)")
        else:
            et = elements.TYPES[etype]
        offset = len(self.blob)
        self.blob += raw
        attrs = {"element_type": et.name, "shape": ", ".join(str(d) for d in shape),
                 "offset": str(offset), "size": str(len(raw))}
        lid = self._add(*FORMAT_LAYERS[Role.CONSTANT], [], attrs, [(et.precision, list(shape), None)])
        return (lid, 0)

    def layer(self, type_: str, inputs, attrs=None, version: str = "opset1", n_out: int = 1,
              out_dims=None, out_precision: str = "FP32", name: str | None = None):
        """Add a layer; returns its output port (n_out == 1) or a list of them."""
        dims = out_dims if out_dims is not None else [None] * n_out
        attrs = {k: (", ".join(str(x) if isinstance(x, float) else str(int(x)) for x in v)
                     if isinstance(v, (list, tuple)) else
                     str(v).lower() if isinstance(v, bool) else str(v)) for k, v in (attrs or {}).items()}
        lid = self._add(type_, version, list(inputs), attrs,
                        [(out_precision, d, None) for d in dims], name=name)
        outs = [(lid, i) for i in range(n_out)]
        return outs[0] if n_out == 1 else outs

    def result(self, src, name: str | None = None) -> int:
        return self._add(*FORMAT_LAYERS[Role.RESULT], [src], {}, [], name=name,
                         extra={"output_names": name} if name else {})

    def to_xml(self) -> bytes:
        net = etree.Element("net", name=self.name, version="11")
        layers = etree.SubElement(net, "layers")
        for L in self.layers:
            le = etree.SubElement(layers, "layer", id=str(L["id"]), name=L["name"], type=L["type"],
                                  version=L["version"], **L["extra"])
            if L["attrs"]:
                etree.SubElement(le, "data", **L["attrs"])
            pid = 0
            for tag, ports in (("input", L["in"]), ("output", L["out"])):
                if not ports:
                    continue
                pe = etree.SubElement(le, tag)
                for port in ports:
                    prec, dims, names = port[1] if tag == "input" else port
                    p = etree.SubElement(pe, "port", id=str(pid), precision=prec)
                    if tag == "output" and names:
                        p.set("names", names)
                    for d in dims or ():
                        etree.SubElement(p, "dim").text = str(d)
                    pid += 1
        edges = etree.SubElement(net, "edges")
        for a, ap, b, bp in self.edges:
            etree.SubElement(edges, "edge", **{"from-layer": str(a), "from-port": str(ap),
                                                "to-layer": str(b), "to-port": str(bp)})
        etree.SubElement(net, "rt_info")
        return etree.tostring(net, pretty_print=True, xml_declaration=True, encoding="utf-8")

    def files(self, xml_path) -> list[tuple[Path, Fill]]:
        """``(path, writers.Fill)`` for the .xml and the .bin beside it (see :mod:`irrun.io.writers`)."""
        from ..io.writers import data
        xml_path = Path(xml_path)
        blob = bytes(self.blob)
        if not blob and any(L["type"] == FORMAT_LAYERS[Role.CONSTANT][0] for L in self.layers):
            blob = b"\0"   # OpenVINO cannot read a 0-byte .bin when the IR has a (empty) Const
        return [(xml_path, data(self.to_xml())), (xml_path.with_suffix(".bin"), data(blob))]

    def save(self, xml_path, protect=()) -> Path:
        """Write the .xml and the .bin beside it, both or neither."""
        from ..io.writers import write_files
        return write_files(self.files(xml_path), protect=protect)[0]


def encode_strings(value: np.ndarray) -> bytes:
    """int32 count, count+1 int32 end offsets, UTF-8 bytes (ir-format.md §6.2)."""
    items = [str(v).encode("utf-8") for v in value.reshape(-1)]
    offs = np.cumsum([0] + [len(b) for b in items]).astype("<i4")
    return np.array([len(items)], "<i4").tobytes() + offs.tobytes() + b"".join(items)
