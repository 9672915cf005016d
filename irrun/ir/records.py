"""The records both IR readers make (``reader.py``'s element tree, ``fast_reader.py``'s streaming
pass): a layer, an edge, a graph (a model's or a sub-graph body's), the model, and the small pieces
of IR-format knowledge both need. Kept apart from the readers so that neither reader imports the
other for them."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np

from ..errors import IrrunError, LayerRef
from ..types import elements
from ..types.tensor_info import Role
from .declared_ports import PortDecl
from .weights import ConstBytes, release_pages


@dataclass(slots=True)
class Layer:
    id: int
    name: str
    type: str
    version: str
    data: dict[str, str]
    inputs: list[PortDecl]
    outputs: list[PortDecl]
    position: int                        # order of appearance in the XML
    rt_info: dict[str, Any] = field(default_factory=dict)
    output_names: list[str] | None = None   # Result only (v11)
    const: "np.ndarray | ConstBytes | None" = None
    bodies: dict[str, "IRGraph"] = field(default_factory=dict)
    port_maps: dict[str, list[dict[str, str]]] = field(default_factory=dict)
    back_edges: Sequence[dict[str, str]] = ()   # (not a new list per layer: fewer objects to track)
    path: tuple[str, ...] = ()           # ids of enclosing sub-graph layers

    @property
    def ref(self) -> LayerRef:
        return LayerRef(str(self.id), self.name, self.type, self.version, self.path)

    @property
    def const_value(self) -> np.ndarray | None:
        """A Const's value (unpacked anew on each access when it is large and packed), None when
        its bytes could not be decoded (``read_ir(strict=False)``) or for other layers."""
        return self.const.value() if isinstance(self.const, ConstBytes) else self.const

    @property
    def const_shape(self) -> tuple[int, ...] | None:
        """A Const's shape, without unpacking it."""
        return None if self.const is None else tuple(self.const.shape)


class Edge(NamedTuple):
    from_layer: int
    from_port: int
    to_layer: int
    to_port: int


@dataclass
class IRGraph:
    layers: list[Layer]
    edges: list[Edge]
    #: a second (third...) ``<layers>`` or ``<edges>`` element, as (tag, line): OpenVINO reads
    #: the first and silently ignores the others, and so does irrun; ``check`` warns of them
    ignored: list[tuple[str, int]] = field(default_factory=list)


@dataclass
class IRModel:
    xml_path: str
    bin_path: str | None
    name: str
    ir_version: int
    graph: IRGraph
    rt_info: dict[str, Any]
    #: Const layers whose bytes could not be decoded, when read with ``strict=False``
    problems: list[IrrunError] = field(default_factory=list)
    weights_map: Any = field(default=None, repr=False)   # the .bin's mmap, once a Const mapped it

    def release_pages(self) -> None:
        """Let the kernel take back the .bin pages this process has touched (they count in its
        RSS until then): called once decompressed weights are cached, so the compressed bytes
        are not resident twice. Arrays that view the map still work (pages fault back in)."""
        release_pages(self.weights_map)


#: port precision text -> element type, filled as ports are read (both readers share it)
PRECISIONS: dict[str, elements.ElementType] = {}


#: The layers the IR format itself defines (a graph's inputs, outputs and weights), as OpenVINO's
#: serializer writes them: role -> (type, version). For code that writes IR (:mod:`irrun.ir.builder`);
#: tests/test_architecture.py holds the table to the op registry.
FORMAT_LAYERS: dict[Role, tuple[str, str]] = {
    Role.PARAMETER: ("Parameter", "opset1"),
    Role.CONSTANT: ("Const", "opset1"),
    Role.RESULT: ("Result", "opset1"),
}


def is_const(type_name: str) -> bool:
    """Is this the IR's Const layer, whose bytes the reader decodes (the file format's one layer
    type the reader must know)?"""
    return type_name.lower() in ("const", "constant")


def rt_entry(tag: str, attrib: Mapping[str, str], children: dict[str, Any] | None) -> tuple[str, Any]:
    """An ``<rt_info>`` child as (key, value) in its parent's dict: keyed by its ``name`` (info,
    attribute, user_data) or its tag; its ``children`` when it has any, an attribute's other
    attributes, else its ``value``. (The tree reader's and the fast path's, irrun/ir/fast_reader.py.)"""
    name = attrib.get("name")
    key = name if tag in ("info", "attribute", "user_data") and name else tag
    if children is not None:
        return key, children
    if tag == "attribute":
        return key, {k: v for k, v in attrib.items() if k != "name"}
    return key, attrib.get("value", "")
