"""Read an IR ``.xml`` (+ ``.bin``) into plain records. Knows nothing of ops or kernels.

Safety (input-safety.md): lxml with entity resolution, DTD loading and network access off, and
any DOCTYPE refused — an IR never has one. Const bytes are decoded from a read-only memory map of
the .bin, bounds-checked against its length and against shape x element size first
(ir-format.md §7), and decoded on first use (:class:`ConstBytes`): byte-aligned types are
views; large packed types (u4, i4, nf4...) are unpacked anew on each use, so a model holds no
unpacked copy of its weights beside what irrun computes from them (irrun/runtime/program.py).
Sub-graph bodies (TensorIterator/Loop ``<body>``, If ``<then_body>``/``<else_body>``) are read as
nested :class:`IRGraph` records with their own id space.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any, NoReturn

from lxml import etree

from ..errors import IrrunError, LayerRef, ModelFileError, printable
from ..limits import memory as budget
from ..types import elements
from ..types.shapes import xml_int
from .declared_ports import LazyDims, PortDecl, all_plain, split_names
from .records import PRECISIONS, Edge, IRGraph, IRModel, Layer, is_const, rt_entry
from .weights import WeightsFile
from .xml import parse_xml, parse_xml_bytes, read_xml_bytes  # noqa: F401 (parse_xml: others' import)

BODY_TAGS = ("body", "then_body", "else_body")
#: Deepest nesting of TensorIterator/Loop/If bodies read (libxml2's depth limit of 256 elements
#: allows about 60; real models use a handful).
MAX_BODY_DEPTH = 32
PORT_MAP_TAGS = ("port_map", "then_port_map", "else_port_map")


class _Reader:
    def __init__(self, xml_path: str, bin_path: str | None, strict: bool = True, consts: bool = True):
        self.xml_path = xml_path
        self.bin_path = bin_path
        self.strict = strict
        self.consts = consts                     # False: no Const is read (LazyDims' second read)
        self.problems: list[IrrunError] = []
        self.weights = WeightsFile(bin_path, self.fail, xml_path)
        self.lazy: LazyDims | None = None        # set when dims are parsed on first use
        self.nports = 0                          # ports read so far (LazyDims' index)
        self.all_dims: list[tuple[int, ...]] = []   # every port's, in reading order (eager)

    # -- errors -----------------------------------------------------------------------------
    def fail(self, msg: str, layer: Layer | LayerRef | None = None, port: str | None = None,
             file: str | None = None) -> NoReturn:
        ref = layer.ref if isinstance(layer, Layer) else layer
        raise ModelFileError(msg, file=file or self.xml_path, layer=ref, port=port)

    # -- XML --------------------------------------------------------------------------------
    def read(self, data: bytes | None = None, lazy_dims: bool = True) -> IRModel:
        """The model in ``data`` (default: the file's bytes); its ports' dims parsed on first
        use when ``lazy_dims`` and every ``<dim>`` is plain (irrun/ir/declared_ports.py)."""
        if data is None:
            data = read_xml_bytes(self.xml_path)
        plain = None                             # every <dim> plain (all_plain), once known
        if lazy_dims and self.consts:            # the fast path first (irrun/ir/fast_reader.py)
            from . import fast_reader as fastread
            enc = fastread.encoding(data)
            if enc is not None:
                plain = all_plain(data, enc)
                if plain:
                    self.lazy = self.lazy_dims(data)
                    ir = fastread.read(self, data)
                    if ir is not None:
                        return ir
        root = parse_xml_bytes(data, self.xml_path, keep_blank=False)
        if plain is None:
            plain = lazy_dims and all_plain(data, root.getroottree().docinfo.encoding)
        self.lazy = self.lazy_dims(data) if plain else None
        if etree.QName(root).localname.lower() != "net":
            self.fail(f"the root element is <{etree.QName(root).localname}>, not <net>: "
                      "not an OpenVINO IR file")
        version = root.get("version")
        if version not in ("10", "11"):
            legacy = version is not None and version.isdigit() and int(version) < 10
            self.fail(f'IR version "{version}" is not supported (irrun reads IR v10 and v11)'
                      + ("; OpenVINO 2026 cannot read it either (Model Optimizer before 2020.1 wrote it): "
                         "convert the original model again with OpenVINO's ovc" if legacy else ""))
        graph = self.graph(root, ())
        if self.lazy is not None:
            self.lazy.count = self.nports
        rt = root.find("rt_info")
        return IRModel(self.xml_path, self.bin_path, root.get("name", ""), int(version), graph,
                       _rt_info(rt) if rt is not None else {}, self.problems,
                       self.weights.map)

    def lazy_dims(self, data: bytes) -> LazyDims:
        path, strict = self.xml_path, self.strict
        return LazyDims(lambda: _Reader(path, None, strict, consts=False).dims_of(data))

    def dims_of(self, data: bytes) -> list[tuple[int, ...]]:
        """Every port's dims in ``data``, in the order :meth:`read` meets the ports."""
        self.read(data, lazy_dims=False)
        return self.all_dims

    def graph(self, elem, path: tuple[str, ...]) -> IRGraph:
        if len(path) > MAX_BODY_DEPTH:
            self.fail(f"sub-graph bodies are nested more than {MAX_BODY_DEPTH} deep")
        layers_el = elem.find("layers")
        if layers_el is None:
            self.fail(f"<{elem.tag}> has no <layers> element" + (f" (in {'/'.join(path)})" if path else ""))
        read = self.layer
        layers = [read(le, i, path) for i, le in enumerate(layers_el.iterchildren("layer"))]
        edges = []
        edges_el = elem.find("edges")
        for ee in (edges_el.iterchildren("edge") if edges_el is not None else ()):
            get = ee.get
            try:
                edges.append(Edge(xml_int(get("from-layer")), xml_int(get("from-port")),
                                  xml_int(get("to-layer")), xml_int(get("to-port"))))
            except (TypeError, ValueError):
                self.fail(f"edge at line {ee.sourceline} has a missing or non-integer attribute "
                          "(ids are integers in ASCII digits, as OpenVINO reads them): "
                          + " ".join(f'{k}="{v}"' for k, v in ee.attrib.items()))
        ignored = [(c.tag, c.sourceline) for tag in ("layers", "edges") for c in elem.findall(tag)[1:]]
        return IRGraph(layers, edges, ignored)

    def layer(self, le, position: int, path: tuple[str, ...]) -> Layer:
        get = le.get
        try:
            lid = xml_int(get("id"))
            if lid < 0:
                raise ValueError
        except (TypeError, ValueError):
            self.fail(f"layer at line {le.sourceline} has a missing or invalid id"
                      + _not_ascii_int("id", get("id")), _ref(le, path))
        type_, version = get("type"), get("version")
        if not type_ or not version:
            self.fail(f"layer is missing mandatory attribute: {'type' if not type_ else 'version'}",
                      _ref(le, path))
        data_el = ins = outs = None
        child: dict[str, Any] | None = None     # the other children (first of each tag), if any
        for c in le:                            # one pass over the children (C-level list)
            tag = c.tag
            if tag == "data":
                data_el = c if data_el is None else data_el
            elif tag == "input":
                ins = c if ins is None else ins
            elif tag == "output":
                outs = c if outs is None else outs
            elif isinstance(tag, str):
                child = child or {}
                child.setdefault(tag, c)
        layer = Layer(lid, get("name", ""), type_, version,
                      dict(data_el.items()) if data_el is not None else {},
                      self.ports(ins, le, path, "input") if ins is not None else [],
                      self.ports(outs, le, path, "output") if outs is not None else [],
                      position, path=path)
        names = get("output_names")
        if names is not None:
            layer.output_names = split_names(names)
        if child is not None:
            self.extras(layer, child, path)
        if self.consts and is_const(type_):
            try:
                layer.const = self.weights.const(layer)
            except IrrunError as e:              # bad bytes, or too big to unpack (budget)
                if self.strict:
                    raise
                self.problems.append(e)          # const stays None
        return layer

    def extras(self, layer: Layer, child: dict, path: tuple[str, ...]) -> None:
        """What few layers have: rt_info, sub-graph port maps, back edges and bodies."""
        rt = child.get("rt_info")
        if rt is not None:
            layer.rt_info = _rt_info(rt)
        for tag in PORT_MAP_TAGS:
            pm = child.get(tag)
            if pm is not None:
                layer.port_maps[tag] = [dict(c.attrib, kind=c.tag) for c in pm if isinstance(c.tag, str)]
        be = child.get("back_edges")
        if be is not None:
            layer.back_edges = [dict(c.attrib) for c in be.iterfind("edge")]
        for tag in BODY_TAGS:
            body = child.get(tag)
            if body is not None:
                layer.bodies[tag] = self.graph(body, path + (str(layer.id),))

    def ports(self, elem, le, path: tuple[str, ...], kind: str) -> list[PortDecl]:
        """The ``<port>``s of ``<input>``/``<output>`` ``elem`` of layer element ``le``. The
        common case (integer id and dims, a known precision) costs one pass and no checks
        beyond ``int()``; anything else goes the slow way, which names what is wrong."""
        out = []
        precisions, lazy, dims = PRECISIONS, self.lazy, None
        for i, pe in enumerate(elem.iterchildren("port")):
            get = pe.get
            try:
                pid = xml_int(get("id"))
            except (TypeError, ValueError):
                self.fail(f'{kind} port at line {pe.sourceline} has a missing or non-integer id'
                          + _not_ascii_int("id", get("id")), _ref(le, path))
            prec = get("precision")
            et = precisions.get(prec) if prec is not None else None
            if et is None and prec is not None:
                try:
                    et = precisions[prec] = elements.from_precision(prec)
                except KeyError:
                    self.fail(f'unknown precision "{prec}"', _ref(le, path), f"{kind} port {pid}")
            if lazy is None:
                texts = [de.text for de in pe.iterchildren("dim")]
                try:                             # the common case in one go (int() strips)
                    dims = tuple(map(int, texts))
                    if dims and (min(dims) < -1 or not _ascii_ints("".join(texts))):
                        raise ValueError
                except (TypeError, ValueError):
                    dims = self.dims(texts, _ref(le, path), f"{kind} port {pid}")
                self.all_dims.append(dims)
            names = get("names")
            out.append(PortDecl(pid, i, prec, et, dims, tuple(split_names(names)) if names else (),
                                lazy, self.nports + i))
        self.nports += len(out)
        return out

    def dims(self, texts: list, ref: LayerRef, port: str) -> tuple[int, ...]:
        """Declared dims one by one, failing on the first bad one."""
        dims = []
        for text in texts:
            try:
                v = xml_int(text or "")
            except ValueError:
                self.fail(f'dimension "{text}" is not an integer' + _not_ascii_int("", text or ""),
                          ref, port)
            if v < -1:
                self.fail(f"dimension {v} must be >= -1", ref, port)
            dims.append(v)
        return tuple(dims)


def _ascii_ints(text: str) -> bool:
    """Is ``text`` (integers ``int()`` took, run together) free of what ``int()`` takes but
    OpenVINO does not: other scripts' digits and ``_``?"""
    return text.isascii() and "_" not in text


def _not_ascii_int(attr: str, text: str | None) -> str:
    """What a message adds when ``text`` is an integer to ``int()`` but not to OpenVINO."""
    if text is None or _ascii_ints(text):
        return ""
    try:
        int(text)
    except ValueError:
        return ""
    what = f'{attr}="{text}"' if attr else f'"{text}"'
    return (f": {what} is not written in ASCII digits (0-9, no '_'), and OpenVINO refuses the file")


def _ref(le, path: tuple[str, ...]) -> LayerRef:
    """How messages name the layer of element ``le`` (made only when one is needed)."""
    return LayerRef(le.get("id", "?"), le.get("name", ""), le.get("type", "?"), le.get("version", ""), path)


def _rt_info(elem) -> dict[str, Any]:
    """Model/layer ``<rt_info>`` as nested dicts (kept, not interpreted)."""
    out: dict[str, Any] = {}
    for c in elem:
        if isinstance(c.tag, str):
            key, value = rt_entry(c.tag, c.attrib, _rt_info(c) if len(c) else None)
            out[key] = value
    return out


#: other model formats, by extension: (name, how to get an IR from it)
_OVC = "convert it to OpenVINO IR with OpenVINO's converter: ovc MODEL (pip install openvino), then give irrun the .xml"
_FOREIGN = {".onnx": ("an ONNX model", _OVC), ".pb": ("a TensorFlow model", _OVC),
            ".tflite": ("a TensorFlow Lite model", _OVC), ".pdmodel": ("a PaddlePaddle model", _OVC),
            ".pt": ("a PyTorch file", "convert the model with openvino.convert_model(model, example_input=...) "
                    "and save_model() it as IR"),
            ".pth": ("a PyTorch file", "convert the model with openvino.convert_model(model, example_input=...) "
                     "and save_model() it as IR"),
            ".bin": ("an IR weights file", "give irrun the .xml beside it; it reads the .bin itself")}


def foreign_format(path: Path) -> str | None:
    """A message when ``path`` is plainly another model format (by extension, or an ONNX or
    TFLite file by its first bytes), so that the user learns what to do instead of reading an
    XML parser's complaint. None when it may be an IR."""
    what = _FOREIGN.get(path.suffix.lower())
    if what is None and path.is_file():
        try:
            with open(path, "rb") as f:
                head = f.read(8)
        except OSError:
            return None
        if head[4:8] == b"TFL3":
            what = _FOREIGN[".tflite"]
        elif head[:1] == b"\x08" and len(head) > 1 and head[1] < 0x20:   # protobuf field 1: ONNX ir_version
            what = _FOREIGN[".onnx"]
    return f"this is {what[0]}, not an OpenVINO IR .xml; {what[1]}" if what else None


#: the file optimum-intel's exports (``optimum-cli export openvino``, ``OVModel.save_pretrained``)
#: name the model; the tokenizers beside it are openvino_tokenizer.xml / openvino_detokenizer.xml
MODEL_IN_FOLDER = "openvino_model.xml"


def model_in_directory(d: Path) -> Path:
    """The IR a model folder holds: its only ``.xml``, else ``openvino_model.xml`` (optimum-intel's
    export layout, where tokenizers sit beside the model); a folder of several other models is an
    error that lists them (seq2seq exports: encoder and decoder), one with none says so."""
    try:
        found = sorted(f.name for f in d.iterdir() if f.suffix.lower() == ".xml" and not f.is_dir())
    except OSError as e:
        raise ModelFileError(f"cannot list the directory: {e.strerror or e}", file=str(d)) from None
    if len(found) == 1:
        return d / found[0]
    if MODEL_IN_FOLDER in found:
        return d / MODEL_IN_FOLDER
    if not found:
        raise ModelFileError("is a directory with no IR .xml file in it; give the model's .xml", file=str(d))
    shown = ", ".join(printable(f) for f in found[:12]) + (f", … ({len(found)} in all)" if len(found) > 12 else "")
    raise ModelFileError(f"is a directory holding {len(found)} models ({shown}); give one of them, "
                         f"e.g. {printable(str(d / found[0]))}", file=str(d))


def read_ir(xml_path: str | os.PathLike, bin_path: str | os.PathLike | None = None,
            strict: bool = True) -> IRModel:
    """Read ``model.xml`` and (when a Const needs it) ``model.bin`` beside it. With
    ``strict=False`` a Const whose bytes do not fit the .bin or its shape is not fatal: the error
    goes to ``IRModel.problems`` (one per such layer) and its ``const_value`` stays None."""
    xml_path = str(xml_path)
    p = Path(xml_path)
    if p.is_dir():
        p = model_in_directory(p)
        xml_path = str(p)
    if not p.exists():
        raise ModelFileError("no such file", file=xml_path)
    foreign = foreign_format(p)
    if foreign:
        raise ModelFileError(foreign, file=xml_path)
    if bin_path is None:
        bin_path = str(p.with_suffix(".bin"))
    try:
        return _Reader(xml_path, str(bin_path), strict).read()
    except RecursionError:       # backstop; MAX_BODY_DEPTH and libxml2's depth limit come first
        raise ModelFileError("the file is nested too deeply to read", file=xml_path) from None
    except MemoryError:
        raise budget.MemoryBudgetError("out of memory while reading the model", file=xml_path) from None
