"""The contract every op implements: parsed attributes, a shape rule and a kernel, side by side.

An op is a subclass of :class:`Op` registered with :func:`irrun.ops.registry.register` under its
IR type and version string (e.g. ``("VariadicSplit", "opset1")``). One instance is made per layer
from the layer's ``<data>`` attributes, which the class declares in ``attrs``; the framework then

* calls :meth:`Op.infer` once per shape-inference pass with a :class:`TensorInfo` per input
  (element type, partial shape, and the value when it is known — constants and folded
  sub-graphs) and expects one TensorInfo per output;
* calls :meth:`Op.run` with one NumPy array per input and expects a sequence of arrays, which it
  checks against what ``infer`` promised (count, shape, dtype) — a disagreement is an irrun bug.

Both raise :class:`irrun.errors.OpError` for invalid input; the framework adds the layer.
Rules shared by ``infer`` and ``run`` (e.g. resolving a split's ``-1``) live in one helper of the
op's module so that run-time values are checked exactly like constant ones.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, ClassVar, Type, TypeVar

import numpy as np

from ..errors import OpError
from ..types.elements import TYPES, from_attr
from ..types.shapes import PartialShape, xml_int
from ..types.tensor_info import Precision, Role, TensorInfo
from .bounds import move

__all__ = ["Attr", "Op", "Precision", "Role", "TensorInfo", "as_int64", "check_index_input",
           "normalize_axis", "rank_of", "spec_url"]

_MISSING = object()


# ---------------------------------------------------------------------------------------------
# Attribute parsing (ir-format.md §3.1)

def _parse_bool(text: str) -> bool:
    t = text.strip().lower()
    if t in ("true", "1"):
        return True
    if t in ("false", "0"):
        return False
    raise _KeepDefault


class _KeepDefault(Exception):
    """OpenVINO silently ignores a malformed bool and keeps the default."""


def _parse_list(conv: Callable[[str], Any]) -> Callable[[str], list]:
    return lambda text: [conv(p) for p in text.split(",") if p.strip()]


def _parse_shape(text: str) -> list[int]:
    dims = _parse_list(xml_int)(text)
    if any(d < 0 for d in dims):
        raise ValueError("negative dimension")
    return dims


_PARSERS: dict[str, Callable[[str], Any]] = {
    "int": xml_int,
    "ints": _parse_list(xml_int),
    "float": lambda t: float(t.strip()),
    "floats": _parse_list(lambda p: float(p.strip())),
    "bool": _parse_bool,
    "str": lambda t: t,
    "etype": lambda t: from_attr(t),
    "pshape": PartialShape.parse,
    "shape": _parse_shape,
}


@dataclass(frozen=True)
class Attr:
    """One ``<data>`` attribute: its kind, its default, and for enums the allowed values.

    ``required=True`` marks attributes the spec calls required; when such an attribute is missing,
    OpenVINO silently uses its C++ default, so irrun does the same with ``default`` and records a
    warning for the checker. Without a default a missing required attribute is an error.
    Enum values (kind ``"enum"``) are case-insensitive and stored lower-case.
    """

    kind: str
    default: Any = _MISSING
    required: bool = False
    choices: tuple[str, ...] = ()

    def parse(self, name: str, text: str) -> Any:
        if self.kind == "enum":
            v = text.strip().lower()
            if v not in self.choices:
                raise OpError(f'attribute {name}="{text}" is not one of: {", ".join(self.choices)}')
            return v
        try:
            return _PARSERS[self.kind](text)
        except _KeepDefault:
            return self.default
        except (ValueError, KeyError, OverflowError):
            raise OpError(f'attribute {name}="{text}" is not a valid {self.kind}') from None


_F16, _F32 = TYPES["f16"], TYPES["f32"]

# ---------------------------------------------------------------------------------------------

#: from_layer builds the class it is called on (``Type[_O]``: in Op, ``type`` is the op's name)
_O = TypeVar("_O", bound="Op")


class Op:
    """Base class of all ops. Subclasses set the ClassVars and implement ``infer`` and ``run``."""

    # set by each op class; a wrapper (program.RowGather) takes its wrapped op's, per instance
    type: str                              # canonical type name (OpenVINO's C++ class name)
    version: str                           # IR version string of this implementation, "opset1"
    spec: ClassVar[str] = ""               # URL of the op's specification
    attrs: ClassVar[dict[str, Attr]] = {}
    num_inputs: ClassVar[tuple[int, int | None]] = (1, 1)  # allowed input count (min, max; None = any)
    restrictions: ClassVar[str] = ""       # what irrun does not support of this op, if anything
    #: True for ops whose result depends on more than their inputs (ReadValue/Assign, and a
    #: sub-graph op whose body holds them): ``run`` is then called as ``run(*inputs, ctx=ctx)``
    #: with the run's :class:`irrun.runtime.loop.RunContext`, and the op is never folded.
    uses_context: bool = False             # (a sub-graph op sets it per instance: its bodies)
    #: Input indices whose buffer may receive output 0 (in-place execution, opt-in). When the
    #: planner proves such an input dead after this layer and unaliased — a fresh kernel output
    #: (see ``fresh_outputs``), not a Parameter, Const or folded value, no view of it alive,
    #: never a model output — with the output's dtype and static shape, it calls
    #: ``run(*inputs, out=that_array)``; the kernel may write its result there (and return it)
    #: or ignore ``out``.
    inplace: ClassVar[tuple[int, ...]] = ()
    #: True when ``run`` always returns new arrays: never views of its inputs or of anything the
    #: op keeps (``out`` aside). Only such outputs are offered to ``inplace`` consumers.
    fresh_outputs: ClassVar[bool] = False
    #: Output ports the kernel need not compute: when no layer reads some of them, the executor
    #: calls ``run(*inputs, skip=frozenset(those ports))`` and the kernel may return a
    #: placeholder of the promised dtype and shape there (``np.broadcast_to`` of a zero).
    lazy_outputs: ClassVar[tuple[int, ...]] = ()
    #: Input ports a variable-reading op (``role`` VARIABLE_READ, its ``variable_id``) reads only
    #: while its variable is unset (ReadValue-6's ``init``): the layers that compute nothing else
    #: are skipped by a run whose variables are set (an LLM's decode steps; irrun/runtime/plan.py).
    unset_only_inputs: ClassVar[tuple[int, ...]] = ()
    #: Value bounds (:mod:`irrun.ops.bounds`) pass through ops whose outputs only move, copy or select
    #: elements of some inputs: those inputs' indices here (``"all"``: every input). The other
    #: inputs must have known values; the kernel then runs on the lower and on the upper bounds.
    #: An op whose rule depends on its attributes sets it per instance (ScatterNDUpdate-15).
    moves_values: tuple[int, ...] | str = ()
    #: How the kernel's output size is kept under the memory budget when shape inference could
    #: not bound it (a plan reused across input shapes, irrun/runtime/program.py): ``"checked"`` — the
    #: kernel calls :func:`irrun.limits.memory.check_alloc` before allocating; ``"inputs"`` — no output
    #: has more elements than the largest input (the executor checks that times the output's item
    #: size before the call); ``""`` — unknown, so such a plan is not reused for shapes whose
    #: outputs could pass the budget.
    allocation: ClassVar[str] = ""
    #: True when every output element depends only on the input elements at the same index
    #: (after broadcasting): the op can compute any subset of its output's rows
    #: (:func:`irrun.ops.fast_paths.rows_rule`).
    elementwise: ClassVar[bool] = False
    #: What the layer is to the framework (model input/output, constant, state, sub-graph or an
    #: ordinary op): the core asks this instead of comparing type names.
    role: ClassVar[Role] = Role.COMPUTE
    #: True when a narrow-float output is the graph's own rounding (Convert, ConvertLike): a
    #: constant sub-graph computed in f32 (:mod:`irrun.analysis.constant_precision`) then keeps no unrounded value.
    rounds_to_declared_type: ClassVar[bool] = False
    #: How OpenVINO's CPU plugin treats the op under a low precision hint (irrun/accuracy).
    precision: ClassVar[Precision] = Precision.NONE
    #: The group ``irrun graph`` colours the layer by: a key of :data:`irrun.debug.describe.CATEGORIES`
    #: (linear, elementwise, normalize, spatial, movement, shape, detection, control, text).
    category: ClassVar[str] = ""

    if TYPE_CHECKING:
        # the attributes declared in ``attrs`` (and what ``infer`` keeps for ``run``) are set
        # per instance: any attribute of an op is Any to a type checker
        def __getattr__(self, name: str) -> Any: ...

    def __init__(self, **attrs: Any):
        self.warnings: list[str] = []
        for name, decl in self.attrs.items():
            if name in attrs:
                setattr(self, name, attrs[name])
            elif decl.default is not _MISSING:
                setattr(self, name, decl.default)
            else:
                raise OpError(f"missing mandatory attribute: {name}")

    @classmethod
    def from_layer(cls: Type[_O], data: dict[str, str], const_value: np.ndarray | None = None) -> _O:
        """Build the op from a layer's raw ``<data>`` attributes (strings)."""
        parsed: dict[str, Any] = {}
        warnings = []
        for name, decl in cls.attrs.items():
            if name in data:
                parsed[name] = decl.parse(name, data[name])
            elif decl.required:
                if decl.default is _MISSING:
                    raise OpError(f"missing mandatory attribute: {name}")
                warnings.append(f"missing attribute {name}, using OpenVINO's default {decl.default!r}")
        op = cls(**parsed)
        op.warnings = warnings
        return op

    @classmethod
    def from_ir(cls, layer: Any, build: Any) -> "Op":
        """Build the op from its whole IR layer record (:class:`irrun.ir.records.Layer`). Ops that
        need more than ``<data>`` override it: sub-graph ops build their bodies and ReadValue/
        Assign find their variable through ``build`` (:class:`irrun.runtime.subgraph.Build`)."""
        return cls.from_layer(layer.data, layer.const_value)

    def widen_f16(self, constant: bool) -> None:
        """Compute in f32 where the file says f16, as OpenVINO's CPU plugin does at inference
        precision f32 (:mod:`irrun.analysis.execution_types`): every element-type attribute
        naming f16 names f32 instead. ``constant``: the layer belongs to a constant sub-graph."""
        for name, decl in self.attrs.items():
            if decl.kind == "etype" and getattr(self, name, None) == _F16:
                setattr(self, name, _F32)

    def infer(self, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
        raise NotImplementedError

    def run(self, *inputs: Any, **options: Any) -> Sequence[np.ndarray]:
        """The outputs from one array per input. Each op names its own inputs (optional ones
        default to None) and the keywords it opts into (``out``, ``skip``, ``ctx``: see above),
        so the base takes any arguments: ``(*Any, **Any)`` is the typing spelling of
        ``Callable[..., ...]``, which lets an override's own signature be checked as written."""
        raise NotImplementedError

    def bounds(self, inputs: Sequence[TensorInfo], outputs: Sequence[TensorInfo]
               ) -> Sequence[tuple[np.ndarray, np.ndarray] | None] | None:
        """Value bounds of the outputs (what OpenVINO's ``evaluate_lower``/``evaluate_upper``
        give): per output a (lower, upper) pair of int64 arrays, or None where nothing is known;
        None for all. The default moves the inputs' bounds through the kernel for ops that
        declare ``moves_values`` (:func:`irrun.ops.bounds.move`); ops with an interval rule
        override it (the helpers are in :mod:`irrun.ops.bounds`)."""
        if not self.moves_values:
            return None
        return move(self, inputs)

    def multiply_adds(self, inputs: Sequence[TensorInfo | None], outputs: Sequence[TensorInfo | None]) -> int | None:
        """About how many multiply-adds one run of a ``linear`` op does in BLAS, from static
        shapes (the plan runs a small product on one BLAS thread: irrun/limits/threads.py), or
        None when unknown. This default counts each element of output 0 times the elements of
        input 1 (a convolution's weights) per output channel (axis 1): right for convolutions;
        MatMul and attention override it."""
        out, w = (outputs[0] if outputs else None), (inputs[1] if len(inputs) > 1 else None)
        if out is None or w is None or not (out.shape.is_static and w.shape.is_static) or (out.shape.rank or 0) < 2:
            return None
        dims, channels = out.shape.to_tuple(), max(1, out.shape.to_tuple()[1])
        return math.prod(dims) * max(1, math.prod(w.shape.to_tuple()) // channels)

    def __repr__(self) -> str:
        a = ", ".join(f"{k}={getattr(self, k)!r}" for k in self.attrs)
        return f"{self.type}-{self.version}({a})"


# ---------------------------------------------------------------------------------------------
# Helpers shared by many ops

#: Where OpenVINO publishes its op specifications (the 2026 documentation).
SPECS = "https://docs.openvino.ai/2026/documentation/openvino-ir-format/operation-sets/operation-specs/"


def spec_url(page: str) -> str:
    """The URL of an op's specification from its page, ``"movement/strided-slice-1"`` (category,
    then the page name OpenVINO gives it: usually the kebab-case type and the opset)."""
    return f"{SPECS}{page}.html"


def normalize_axis(axis: int, rank: int, what: str = "Axis", port: str | None = None) -> int:
    """Map ``axis`` in ``[-rank, rank-1]`` to ``[0, rank-1]`` or raise OpenVINO's message
    (naming ``port``, the input the axis came from, when it is one)."""
    axis = int(axis)
    if not -rank <= axis < rank:
        raise OpError(f"{what} {axis} out of the tensor rank range [{-rank}, {rank - 1}].", port=port)
    return axis + rank if axis < 0 else axis


def check_index_input(info: TensorInfo, port: str, type_msg: str | None,
                      rank_msg: str | None = None) -> None:
    """OpenVINO's checks of an index-like input (a pattern, order, repeats, pads...), each with
    the op's own message: ``type_msg`` unless the element type is an integer (or dynamic), then
    ``rank_msg`` unless the rank is 1 (or dynamic). ``None`` skips that check."""
    if type_msg is not None and not (info.etype.is_integer or info.etype.is_dynamic):
        raise OpError(type_msg, port=port)
    if rank_msg is not None and info.shape.rank not in (None, 1):
        raise OpError(rank_msg, port=port)


def as_int64(value: np.ndarray) -> np.ndarray:
    """Read an index-like tensor as int64 whatever its type (u64 >= 2**63 wraps, as in OpenVINO;
    floats truncate, for the ops that accept them)."""
    if value.dtype.kind == "u" and value.dtype.itemsize == 8:
        return value.view(np.int64) if value.flags.c_contiguous else value.astype(np.int64)
    return np.asarray(value).astype(np.int64)


def int_list(value: np.ndarray) -> list[int]:
    """:func:`as_int64` flattened to Python ints; an int64 tensor (the usual shape, axes or
    pattern input) is read without the copy."""
    if value.dtype == np.int64:
        return value.reshape(-1).tolist()
    return as_int64(value).reshape(-1).tolist()


def rank_of(info: TensorInfo) -> int | None:
    return info.shape.rank
