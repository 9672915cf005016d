"""The reader's fast path: a plain IR read in one streaming pass, without an element tree.

Most files irrun reads are what OpenVINO's serializer writes: ``<net>`` with ``<layers>``,
``<edges>`` and ``<rt_info>``, every layer a ``<data>``, ``<input>``/``<output>`` ports and maybe
an ``<rt_info>``. For those, lxml's parser feeds a *target* (:class:`_Target`) the attributes of
each element as a dict built in C: no tree of ~30 MB for an LLM's XML, no Python proxy per
element, nothing to free at the end (about a fifth of reading). The records made are the tree
reader's (irrun/ir/reader.py) to the field.

Anything else — a sub-graph body, a port map, an unknown child, a second ``<layers>``, a ``&``
anywhere (libxml2 hands a target entity references undecoded), a non-ASCII-based encoding,
and every error, down to a bad layer id (``xml_int``: ASCII digits only) or Const bytes — makes :func:`read` give up (None)
before it has made anything visible, and the tree reader reads the file as before: its records,
its checks, its messages (with line numbers), so the fast path changes no result and no error.
"""
from __future__ import annotations

import re
from typing import Any

from lxml import etree

from ..errors import IrrunError
from ..types import elements
from ..types.shapes import xml_int
from .declared_ports import PortDecl, split_names
from .records import PRECISIONS, Edge, IRGraph, IRModel, Layer, is_const, rt_entry
from .xml import DOCTYPE, safe_parser

#: The encoding a file declares (none: UTF-8).
_DECLARED = re.compile(rb"\A(?:\xef\xbb\xbf)?\s*<\?xml[^>]*?encoding\s*=\s*[\"']([A-Za-z0-9._-]+)")
_ASCII_BASED = frozenset({"utf-8", "utf8", "us-ascii", "ascii"})


def encoding(data: bytes) -> str | None:
    """The encoding of a file the fast path may read (UTF-8 or ASCII, no ``&``, no DOCTYPE),
    else None. In such a file every element and attribute is what its bytes say, so the byte
    scans here and in :func:`irrun.ir.declared_ports.all_plain` see what the parser sees."""
    if b"\x00" in data[:4] or data[:2] in (b"\xff\xfe", b"\xfe\xff") or b"&" in data:
        return None
    m = _DECLARED.match(data)
    enc = m.group(1).decode().lower() if m is not None else "utf-8"
    return enc if enc in _ASCII_BASED and DOCTYPE.search(data) is None else None


class _GiveUp(Exception):
    """The file is not one the fast path reads; the tree reader will."""


# What the children of an element are (a stack of these follows the parser).
_ROOT, _NET, _LAYERS, _EDGES, _EDGE, _LAYER, _DATA, _PORTS, _IGNORE, _RT = range(10)
#: A layer's children the fast path reads -> their slot in its record.
_LAYER_CHILDREN = {"data": 1, "input": 2, "output": 3, "rt_info": 4}


class _Target:
    """Collects, per layer: its attributes, ``<data>``, input and output port attributes and
    ``<rt_info>``; the edges' attributes; the model's attributes and ``<rt_info>``."""

    def __init__(self) -> None:
        self.modes = [_ROOT]
        self.net: Any = None
        self.layers: list[list] = []       # [attrib, data, inputs, outputs, rt_info]
        self.edges: list = []
        self.seen: set = set()             # <layers>, <edges>, <rt_info> of <net>: once each
        self.rt_stack: list[list] = []     # open rt_info elements: [tag, attrib, children, any?]
        self.net_rt: list | None = None
        self.ports = 2                     # the open port list: 2 input, 3 output

    def start(self, tag, attrib) -> None:
        mode = self.modes[-1]
        if mode is _PORTS:                                   # the most frequent first
            if tag != "port":
                raise _GiveUp
            self.layers[-1][self.ports].append(attrib)
            self.modes.append(_IGNORE)
        elif mode is _IGNORE:                                # what a port holds (dims, rt_info)
            self.modes.append(_IGNORE)
        elif mode is _EDGES and tag == "edge":
            self.edges.append(attrib)
            self.modes.append(_EDGE)
        elif mode is _LAYER and tag in _LAYER_CHILDREN:
            layer = self.layers[-1]
            k = _LAYER_CHILDREN[tag]
            if layer[k] is not None:
                raise _GiveUp
            if k == 1:
                layer[1] = attrib if type(attrib) is dict else {}
                self.modes.append(_DATA)
            elif k == 4:
                self.rt_stack.append([tag, attrib, {}, False])
                layer[4] = self.rt_stack[-1]
                self.modes.append(_RT)
            else:
                layer[k] = []
                self.ports = k
                self.modes.append(_PORTS)
        elif mode is _LAYERS and tag == "layer":
            self.layers.append([attrib, None, None, None, None])
            self.modes.append(_LAYER)
        elif mode is _RT:
            self.rt_stack[-1][3] = True
            self.rt_stack.append([tag, attrib, {}, False])
            self.modes.append(_RT)
        elif mode is _NET and tag in ("layers", "edges", "rt_info") and tag not in self.seen:
            self.seen.add(tag)
            if tag == "rt_info":
                self.rt_stack.append([tag, attrib, {}, False])
                self.net_rt = self.rt_stack[-1]
            self.modes.append({"layers": _LAYERS, "edges": _EDGES, "rt_info": _RT}[tag])
        elif mode is _ROOT and tag == "net":
            self.net = attrib
            self.modes.append(_NET)
        else:
            raise _GiveUp

    def end(self, tag) -> None:
        if self.modes.pop() is _RT:
            node = self.rt_stack.pop()
            if self.rt_stack and self.modes[-1] is _RT:       # a child: its value in its parent
                key, value = rt_entry(tag, node[1], node[2] if node[3] else None)
                self.rt_stack[-1][2][key] = value

    def close(self) -> None:
        return None


def read(reader, data: bytes):
    """The model in ``data`` (which :func:`encoding` accepted) as the tree reader would read
    it, or None (give up). ``reader``: the :class:`irrun.ir.reader._Reader` (its weights file, lazy
    dims, paths)."""
    target = _Target()
    try:
        etree.fromstring(data, safe_parser(target=target), base_url=None)
        net = target.net
        version = net.get("version") if net is not None else None
        if version not in ("10", "11") or "layers" not in target.seen:
            return None
        lazy = reader.lazy
        layers, nports = [], 0
        for position, (attrib, data_, ins, outs, rt) in enumerate(target.layers):
            lid = xml_int(attrib["id"])
            type_, version_ = attrib.get("type"), attrib.get("version")
            if lid < 0 or not type_ or not version_:
                return None
            ports = []
            for decls in (ins or (), outs or ()):
                out = []
                for i, pa in enumerate(decls):
                    prec = pa.get("precision")
                    et = None
                    if prec is not None:
                        et = PRECISIONS.get(prec)
                        if et is None:
                            et = PRECISIONS[prec] = elements.from_precision(prec)   # KeyError: give up
                    names = pa.get("names")
                    out.append(PortDecl(xml_int(pa["id"]), i, prec, et, None,
                                        tuple(split_names(names)) if names else (), lazy, nports + i))
                nports += len(out)
                ports.append(out)
            layer = Layer(lid, attrib.get("name", ""), type_, version_, data_ if data_ is not None else {},
                          ports[0], ports[1], position)
            names = attrib.get("output_names")
            if names is not None:
                layer.output_names = split_names(names)
            if rt is not None:
                layer.rt_info = rt[2]
            if is_const(type_):
                layer.const = reader.weights.const(layer)
            layers.append(layer)
        edges = [Edge(xml_int(a["from-layer"]), xml_int(a["from-port"]), xml_int(a["to-layer"]),
                      xml_int(a["to-port"]))
                 for a in target.edges]
    except (_GiveUp, etree.LxmlError, IrrunError, KeyError, ValueError, TypeError):
        return None
    if lazy is not None:
        lazy.count = nports
    rt = target.net_rt
    return IRModel(reader.xml_path, reader.bin_path, net.get("name", ""), int(version),
                   IRGraph(layers, edges), rt[2] if rt is not None else {}, reader.problems,
                   reader.weights.map)
