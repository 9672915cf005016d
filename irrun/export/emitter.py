"""The pieces every ONNX converter uses: :class:`Emitter` (adds nodes and initializers under
unique names), :class:`Call` (one layer to convert), element-type mapping, and
:class:`Unexpressible` (this layer has no ONNX form). The ``onnx`` package is imported lazily."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import UnsupportedError, printable
from ..types.elements import ElementType
from ..types.tensor_info import TensorInfo

if TYPE_CHECKING:
    from ..ir.reader import Layer
    from ..ops.base import Op

#: ONNX opset the converters are written for (blocked DequantizeLinear, INT4/UINT4 need 21).
MIN_OPSET = 21


class Unexpressible(Exception):
    """This layer (its attributes, its inputs) has no ONNX form; the message says why."""


@dataclass
class Call:
    """One layer to convert: ``inputs``/``outputs`` are ONNX tensor names (the converter's last
    nodes must write exactly ``outputs``), ``in_info``/``out_info`` what shape inference knows."""

    layer: Layer
    op: Op
    inputs: list[str]
    outputs: list[str]
    in_info: list[TensorInfo]
    out_info: list[TensorInfo]
    #: the output ports some layer reads
    used: frozenset[int] = frozenset()

    def const(self, i: int) -> Any:
        """Input ``i``'s value, which this ONNX form needs as an attribute: Unexpressible when it
        is only known at run time."""
        if i >= len(self.in_info) or self.in_info[i].value is None:
            raise Unexpressible(f"input {i} must be a constant (its ONNX form takes it as an attribute)")
        return self.in_info[i].value

    def rank(self, i: int = 0, output: bool = False) -> int:
        """The static rank of input (or output) ``i``: Unexpressible when it is not known."""
        info = (self.out_info if output else self.in_info)[i]
        if info.shape.rank is None:
            raise Unexpressible(f"{'output' if output else 'input'} {i} has a dynamic rank")
        return info.shape.rank


def require_onnx() -> Any:
    """The ``onnx`` module, or exit 3 with the pip command when the extra is not installed."""
    try:
        import onnx
    except ImportError:
        raise UnsupportedError("exporting to ONNX needs the onnx package: pip install 'irrun[onnx]' "
                               "(or pip install onnx)") from None
    return onnx


#: IR element type -> ONNX TensorProto data type name; the rest have no ONNX type at opset 21
ONNX_TYPES = {"f64": "DOUBLE", "f32": "FLOAT", "f16": "FLOAT16", "bf16": "BFLOAT16",
              "f8e4m3": "FLOAT8E4M3FN", "f8e5m2": "FLOAT8E5M2", "i64": "INT64", "i32": "INT32",
              "i16": "INT16", "i8": "INT8", "i4": "INT4", "u64": "UINT64", "u32": "UINT32",
              "u16": "UINT16", "u8": "UINT8", "u4": "UINT4", "boolean": "BOOL", "string": "STRING",
              # held by irrun as unpacked uint8 codes / values; a Convert decodes them
              "nf4": "UINT8", "u1": "UINT8", "u2": "UINT8", "u3": "UINT8", "u6": "UINT8"}


def onnx_type(et: ElementType) -> int:
    """The ONNX TensorProto enum of an IR element type (Unexpressible when ONNX has none)."""
    from onnx import TensorProto
    name = ONNX_TYPES.get(et.name)
    if name is None:
        raise Unexpressible(f"element type {et.name} has no ONNX type at opset {MIN_OPSET}")
    return int(getattr(TensorProto, name))


class Emitter:
    """Collects the ONNX graph: nodes, initializers, unique names. Converters call :meth:`node`,
    :meth:`const`, :meth:`ints` and :meth:`fresh`."""

    def __init__(self, opset: int):
        self.opset = opset
        self.nodes: list[Any] = []
        self.initializers: list[Any] = []
        self.used: set[str] = set()
        self.notes: list[str] = []
        self._consts: dict[tuple, str] = {}
        self.prefix = ""
        #: variable id -> its state input/output declarations (irrun.export.sequence)
        self.states: dict[str, dict[str, Any]] = {}
        #: the ONNX model's metadata_props beyond the source and the notes
        self.metadata: dict[str, str] = {}
        #: FakeQuantize as QuantizeLinear + DequantizeLinear where it has that form (``--int8-qdq``)
        self.int8_qdq = False

    def fresh(self, hint: str) -> str:
        """A tensor or node name not used yet, from ``hint``."""
        base = f"{self.prefix}{hint}" if hint else f"{self.prefix}t"
        name, k = base, 0
        while name in self.used:
            k += 1
            name = f"{base}_{k}"
        self.used.add(name)
        return name

    def node(self, op_type: str, inputs: list[str], outputs: list[str] | int | None = None,
             **attrs: Any) -> list[str]:
        """Add a node; ``outputs``: names, or how many fresh ones to make. Returns the outputs."""
        from onnx import helper
        if outputs is None or isinstance(outputs, int):
            outputs = [self.fresh(op_type) for _ in range(outputs or 1)]
        self.nodes.append(helper.make_node(op_type, inputs, outputs, name=self.fresh(f"n_{op_type}"),
                                           **{k: v for k, v in attrs.items() if v is not None}))
        return outputs

    def one(self, op_type: str, inputs: list[str], output: str | None = None, **attrs: Any) -> str:
        """:meth:`node` with one output; returns its name."""
        return self.node(op_type, inputs, [output] if output else 1, **attrs)[0]

    def const(self, value: np.ndarray, hint: str = "const", name: str | None = None) -> str:
        """An initializer holding ``value`` (small ones shared when equal); ``name``: exactly
        this (already reserved) name."""
        from onnx import numpy_helper
        arr = np.asarray(value)
        key = None
        if name is None and arr.size <= 64 and arr.dtype.kind in "biuf":
            key = (arr.dtype.str, arr.shape, arr.tobytes())
            if key in self._consts:
                return self._consts[key]
        name = name or self.fresh(hint)
        if arr.dtype.kind == "T" or arr.dtype == object:      # strings
            from onnx import helper
            texts: list = [str(s).encode() for s in arr.ravel()]
            self.initializers.append(helper.make_tensor(name, onnx_string(), arr.shape, texts))
        else:
            self.initializers.append(numpy_helper.from_array(np.asarray(arr, order="C"), name))
        if key is not None:
            self._consts[key] = name
        return name

    def ints(self, values, hint: str = "ints") -> str:
        """A 1-D int64 initializer (shapes, axes, pads: ONNX wants them as int64 tensors)."""
        return self.const(np.asarray(list(values), dtype=np.int64).reshape(-1), hint)

    def scalar(self, value: float | int, like: ElementType, hint: str = "scalar") -> str:
        """A scalar initializer of element type ``like`` (an attribute turned into an input)."""
        return self.const(np.asarray(value).astype(like.dtype), hint)

    def cast(self, name: str, to: ElementType) -> str:
        return self.one("Cast", [name], to=onnx_type(to))

    def where(self, cond: str, a: str, b: str, etype: ElementType, output: str | None = None) -> str:
        """Where(cond, a, b) of element type ``etype``; onnxruntime's Where has few types, so
        others are selected in a wider carrier (bool as u8, small ints and u32/u64 as i64, f16 and
        bf16 as f32) and cast back — exact round trips."""
        from ..types import elements
        if etype.name in _WHERE_TYPES:
            return self.one("Where", [cond, a, b], output)
        carrier = elements.TYPES["u8" if etype.name == "boolean" else "f32" if etype.is_float else "i64"]
        picked = self.one("Where", [cond, self.cast(a, carrier), self.cast(b, carrier)])
        return self.one("Cast", [picked], output, to=onnx_type(etype))

    def as_int64(self, name: str, info: TensorInfo) -> str:
        """``name`` as int64 (ONNX shape, axes and index inputs are int64; the IR's may be i32)."""
        return name if info.etype.name == "i64" else self.one("Cast", [name], to=onnx_type_named("INT64"))


#: element types onnxruntime's Where selects directly
_WHERE_TYPES = frozenset({"f32", "f64", "i32", "i64", "u8", "string"})


def onnx_string() -> int:
    return onnx_type_named("STRING")


def onnx_type_named(name: str) -> int:
    from onnx import TensorProto
    return int(getattr(TensorProto, name))


def value_info(name: str, et: ElementType, shape, symbolic: str | None = None) -> Any:
    """A graph input/output declaration: dynamic dims of an input get a symbolic name."""
    from onnx import helper
    dims: list[int | str | None] | None
    if shape.rank is None:
        raise UnsupportedError(f"cannot export to ONNX: {printable(name)} has a dynamic rank, and an ONNX "
                               "graph input or output needs one (give the input a rank with irrun reshape)")
    else:
        dims = [d.lo if d.is_static else (f"{symbolic}_d{i}" if symbolic else None)
                for i, d in enumerate(shape)]
    try:
        t = onnx_type(et)
    except Unexpressible as x:
        raise UnsupportedError(f"cannot export to ONNX: {printable(name)}: {x}") from None
    return helper.make_tensor_value_info(name, t, dims)


