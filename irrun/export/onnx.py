"""Write an IR as an ONNX model (opset 21 by default), all or nothing.

The graph walk: every live layer in topological order goes through its converter
(:mod:`irrun.export.table`); Parameters become graph inputs named as irrun names the model's
inputs, with their dynamic dims as symbolic ``dim_param`` names (``<input>_d<axis>``); Consts
become initializers in their own element type (u4/i4 as ONNX INT4/UINT4, f16 as FLOAT16: the
compressed weights stay compressed, their decompression a DequantizeLinear where
:mod:`irrun.export.compressed` matches it, else Cast/Sub/Mul nodes); each Result becomes an Identity into a graph output named as
``Model.outputs`` names it, so ``irrun`` and onnxruntime outputs line up by name. Stateful models
get one input and one output per variable (:mod:`irrun.export.sequence`).

Nothing is written when a layer has no ONNX form: the :class:`irrun.errors.UnsupportedError`
(exit 3) names every such layer (id, name, type-version) and why; nor when ONNX's checker, with
its strict type and shape inference, refuses the graph (onnxruntime would not load it): the
error names the layer whose node it refused. The file is written through
:mod:`irrun.io.writers` (atomic, never over the model's own files).
"""
from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import InputError, UnsupportedError, printable
from ..types.elements import TYPES, ElementType
from ..types.tensor_info import Role, TensorInfo
from . import compressed
from .convert import convert_layer
from .emitter import MIN_OPSET, Call, Emitter, require_onnx, value_info

if TYPE_CHECKING:
    from ..model import Model

_F32 = TYPES["f32"]
#: The opset the converters are written for (blocked DequantizeLinear, INT4/UINT4 need 21).
DEFAULT_OPSET = 21
#: ONNX IR version written: the first that knows opset 21 (onnxruntime 1.17+ reads it).
IR_VERSION = 10
#: protobuf's limit on one serialized message; larger models get external data (irrun.export.external)
PROTOBUF_LIMIT = 2 << 30


class _Walk:
    """One export: names every live port, converts every layer, collects what cannot be."""

    def __init__(self, model: Model, opset: int, matmul_nbits: bool = False, int8_qdq: bool = False):
        self.model = model
        #: int4/int8 weight MatMuls as com.microsoft MatMulNBits (irrun.export.matmul_nbits)
        self.matmul_nbits = matmul_nbits
        self.e = Emitter(opset)
        self.e.int8_qdq = int8_qdq
        self.types = model.types()
        self.names: dict[tuple[int, int], str] = {}
        #: "Type-version (why)" -> the layers refused for it
        self.refused: dict[str, list[str]] = {}
        #: ONNX node name -> the IR layer it comes from (to name the layer when ONNX's checker
        #: refuses the node); sub-graph (If/Loop) nodes map to their If/Loop layer
        self.node_layers: dict[str, str] = {}

    def tensor_name(self, n: int, port: int) -> str:
        key = (n, port)
        if key not in self.names:
            layer = self.model.dag.nodes[n]["layer"]
            decl = layer.outputs[port] if port < len(layer.outputs) else None
            tensor_names = list(decl.names) if decl is not None and decl.names else []
            hint = next((t for t in tensor_names if t not in self.e.used), None) or \
                (layer.name if len(layer.outputs) == 1 else f"{layer.name}:{port}")
            self.names[key] = self.e.fresh(hint)
        return self.names[key]

    def info(self, n: int, port: int) -> TensorInfo:
        """What shape inference knows of a port (the declared port where it knows nothing)."""
        info = self.types.get((n, port))
        if info is None:
            layer = self.model.dag.nodes[n]["layer"]
            return TensorInfo(op_etype(layer, port), _declared(layer, port))
        return info

    def run(self) -> Any:
        from onnx import helper
        model, e = self.model, self.e
        inputs, outputs = [], []
        for spec in model.inputs:
            e.used.add(spec.name)
            self.names[(spec.node, 0)] = spec.name
            inputs.append(value_info(spec.name, spec.etype, spec.shape, symbolic=spec.name))
        for spec in model.outputs:
            e.used.add(spec.name)
        from .sequence import reserve
        for n in model.order:
            if model.ops[n].role in (Role.VARIABLE_READ, Role.VARIABLE_WRITE):
                reserve(e, model.ops[n].variable_id)
        self.consumed: dict[int, list] = {}
        for n in model.order:
            for u, p in model_inputs_of(model, n):
                self.consumed.setdefault(u, []).append((n, 0, p))
        for n in model.order:
            layer = model.dag.nodes[n]["layer"]
            op = model.ops[n]
            if op.role == Role.PARAMETER:
                continue
            self.claim_nodes()
            self.current = layer_label(layer)
            srcs = model_inputs_of(model, n)
            ins = [self.tensor_name(u, p) for u, p in srcs]
            if op.role == Role.RESULT:
                spec = next(s for s in model.outputs if s.node == n)
                e.one("Identity", ins, spec.name)
                outputs.append(value_info(spec.name, spec.etype, spec.shape))
                continue
            outs = [self.tensor_name(n, p) for p in range(len(layer.outputs))]
            if self.matmul_nbits and op.type == "MatMul":
                from . import matmul_nbits
                nbits = matmul_nbits.match(model, n, self.types)
                if nbits is not None:
                    matmul_nbits.emit(e, nbits, ins[0], outs[0])
                    continue
            plan = compressed.match(model, n, self.types) if op.type == "Multiply" else None
            if plan is not None:
                compressed.emit(e, plan, self.tensor_name(plan.weight, 0), outs[0])
                continue
            wide = compressed.widened_multiply(model, n, self.types) if op.type == "Multiply" else None
            if wide is True:
                e.one("Mul", [e.cast(ins[0], _F32), e.cast(ins[1], _F32)], outs[0])
                continue
            if wide is not None:
                e.const(wide, name=outs[0])
                e.notes.append("f16 weights whose decompression OpenVINO computes in f32 from values that are "
                               "not f16 themselves are written decompressed, in f32")
                continue
            call = Call(layer, op, ins, outs, [self.info(u, p) for u, p in srcs],
                        [self.info(n, p) for p in range(len(layer.outputs))],
                        frozenset(p for _, _, p in self.consumed.get(n, ())))
            self.convert(call)
        self.claim_nodes()
        if self.refused:
            count = sum(map(len, self.refused.values()))
            raise UnsupportedError(
                f"cannot export to ONNX, nothing written: {count} layer(s) have no ONNX form: " +
                "; ".join(f"{kind}: {', '.join(layers)}" for kind, layers in self.refused.items()),
                file=model.path)
        from .sequence import state_ports
        s_in, s_out = state_ports(self)
        e.nodes = live_nodes(e.nodes, [o.name for o in outputs + s_out])
        used = {i for node in e.nodes for i in node_inputs(node)}
        e.initializers = [t for t in e.initializers if t.name in used]
        from .external import detach
        #: the big initializers' bytes, kept out of the messages until the files are written
        #: (protobuf cannot copy a message of 2 GB or more, which make_graph/make_model do)
        self.payloads = detach(e.initializers)
        graph = helper.make_graph(e.nodes, printable(model.ir.name or "model"), inputs + s_in,
                                  outputs + s_out, initializer=e.initializers)
        return graph

    def claim_nodes(self) -> None:
        """Note the nodes added since the last call (sub-graph nodes included) as the current layer's."""
        label = getattr(self, "current", None)
        if label is not None:
            for node in self.e.nodes[self._claimed:]:
                for name in node_names(node):
                    self.node_layers.setdefault(name, label)
        self._claimed = len(self.e.nodes)

    _claimed = 0

    def convert(self, call: Call) -> None:
        layer = call.layer
        why = convert_layer(self.e, call)
        if why:
            kind = f"{printable(layer.type)}-{printable(layer.version)} ({why})"
            self.refused.setdefault(kind, []).append(layer_label(layer, with_type=False))


def layer_label(layer, with_type: bool = True) -> str:
    """``layer <id> <name>`` (its sub-graph path first), with ``(<type>-<version>)``."""
    where = "/".join(layer.path + (str(layer.id),))
    label = f"layer {where} {printable(layer.name)}"
    return f"{label} ({printable(layer.type)}-{printable(layer.version)})" if with_type else label


def node_names(node: Any) -> list[str]:
    """The names of ``node`` and of every node in its sub-graphs (If branches, Loop bodies)."""
    names = [node.name]
    for attr in node.attribute:
        if attr.HasField("g"):
            names += [name for inner in attr.g.node for name in node_names(inner)]
    return names


def live_nodes(nodes: list, outputs: list[str]) -> list:
    """The nodes some graph output needs, in their order (what a matched pattern replaced, the
    op-by-op decompression, falls away)."""
    needed, keep = set(outputs), []
    for node in reversed(nodes):
        if any(o in needed for o in node.output):
            keep.append(node)
            needed.update(node_inputs(node))
    return keep[::-1]


def node_inputs(node: Any) -> list[str]:
    """A node's inputs and the enclosing-graph tensors its sub-graphs (If branches) read."""
    names = list(node.input)
    for attr in node.attribute:
        if attr.HasField("g"):
            inner = {o for n in attr.g.node for o in n.output}
            names += [i for n in attr.g.node for i in node_inputs(n) if i not in inner]
    return names


def op_etype(layer, port: int) -> ElementType:
    from ..types import elements
    decl = layer.outputs[port]
    return decl.etype or elements.DYNAMIC


def _declared(layer, port: int):
    from ..types.shapes import PartialShape
    return PartialShape(layer.outputs[port].dims)


def model_inputs_of(model, n: int) -> list[tuple[int, int]]:
    from ..analysis.graph import inputs_of
    return inputs_of(model.dag, n)


def load_converters() -> None:
    """Import the converter modules: each registers its converters in :mod:`irrun.export.table`."""
    from . import (  # noqa: F401
        control,
        detection,
        draws,
        elementwise,
        image,
        linalg,
        movement,
        nn,
        quantize,
        sequence,
        sparse,
        spectral,
    )


def build_onnx(model: Model, opset: int = DEFAULT_OPSET, *, matmul_nbits: bool = False,
               int8_qdq: bool = False) -> Any:
    """The ONNX ModelProto of ``model`` (an :class:`irrun.Model`), checked by
    ``onnx.checker.check_model`` with its strict type and shape inference (:func:`check_strictly`).
    ``matmul_nbits``: int4/int8 weight MatMuls as onnxruntime's com.microsoft MatMulNBits.
    ``int8_qdq``: FakeQuantize as its u8 levels (FakeQuantize's own formula, cast) + DequantizeLinear
    where it has that form, convolutions and MatMuls on levels as ConvInteger/MatMulInteger
    (:func:`irrun.export.quantize.fake_quantize_qdq`; not QuantizeLinear, whose rounding differs).
    Raises UnsupportedError naming every layer with no ONNX form or the one ONNX's checker refuses,
    or when the model passes protobuf's 2 GB limit (:func:`onnx_files` writes it with external data)."""
    from .external import attach
    proto, payloads, node_layers = _assemble(model, opset, matmul_nbits, int8_qdq)
    if too_large(proto, payloads):
        raise UnsupportedError("the ONNX model passes protobuf's 2 GB limit: write it with its "
                               "external data (irrun export, irrun.export_onnx)", file=model.path)
    attach(proto, payloads)
    check_strictly(lambda: require_onnx().checker.check_model(proto, full_check=True), node_layers, model.path)
    return proto


def check_strictly(check: Callable[[], None], node_layers: dict[str, str], file: str) -> None:
    """Run ``check`` (``onnx.checker.check_model`` with ``full_check``: ONNX's type and shape
    inference in strict mode) and turn its refusal into an UnsupportedError (exit 3, nothing
    written) naming the IR layer whose ONNX node it refused: a model the checker refuses is one
    onnxruntime cannot load (an integer tensor into a float-only op, say). ONNX stops at the first
    bad node, so the message names one layer."""
    import onnx
    try:
        check()
    except (onnx.checker.ValidationError, onnx.shape_inference.InferenceError) as err:
        text = str(err).strip()
        found = re.search(r"node name: ([^)]*)\)|Bad node spec for node\. Name: (\S+)", text)
        node = (found.group(1) or found.group(2)) if found else None
        where = node_layers.get(node or "")
        blame = f"the ONNX node {printable(node)} written for {where}" if where else \
            f"the ONNX node {printable(node)}" if node else "the ONNX graph"
        raise UnsupportedError(f"cannot export to ONNX, nothing written: ONNX's checker refuses {blame} "
                               f"(onnxruntime could not load it): {printable(text.splitlines()[0])}",
                               file=file) from None


def _assemble(model: Model, opset: int, matmul_nbits: bool,
              int8_qdq: bool = False) -> tuple[Any, dict[str, bytes], dict[str, str]]:
    """The ModelProto without the bytes of its big initializers, those bytes by tensor name
    (:func:`irrun.export.external.detach`) and the IR layer of each ONNX node (by node name); not
    checked yet."""
    onnx = require_onnx()
    from onnx import helper
    if not MIN_OPSET <= opset <= onnx.defs.onnx_opset_version():
        raise InputError(f"--opset {opset}: irrun writes ONNX opsets {MIN_OPSET} to "
                         f"{onnx.defs.onnx_opset_version()} (the installed onnx's newest)")
    load_converters()
    walk = _Walk(model, opset, matmul_nbits, int8_qdq)
    graph = walk.run()
    from .. import __version__
    from .matmul_nbits import DOMAIN, OPSET, uses_domain
    imports = [helper.make_opsetid("", opset)] + \
        ([helper.make_opsetid(DOMAIN, OPSET)] if uses_domain(graph.node) else [])
    proto = helper.make_model(graph, opset_imports=imports,
                              producer_name="irrun", producer_version=__version__,
                              ir_version=IR_VERSION,
                              doc_string=f"exported by irrun {__version__} from the OpenVINO IR "
                                         f"{os.path.basename(model.path)}")
    meta = {"source": os.path.basename(model.path), "source_format": f"OpenVINO IR v{model.ir.ir_version}"}
    meta.update(walk_notes(walk))
    helper.set_model_props(proto, meta)
    return proto, walk.payloads, walk.node_layers


def too_large(proto: Any, payloads: dict[str, bytes]) -> bool:
    """Would ``proto`` with ``payloads`` pass protobuf's 2 GB limit?"""
    return sum(map(len, payloads.values())) + proto.ByteSize() >= PROTOBUF_LIMIT


def data_file_of(target: str | os.PathLike) -> Path:
    """Where the external data of the ONNX file ``target`` goes: ``<target>.data`` beside it."""
    target = Path(target)
    return target.with_name(target.name + ".data")


def onnx_files(model: Model, target: Path, opset: int = DEFAULT_OPSET,
               external_data: bool | None = None, matmul_nbits: bool = False,
               int8_qdq: bool = False) -> tuple[Any, list[tuple[Path, Any]]]:
    """The export of ``model`` to ``target`` as the files to write (for :func:`irrun.io.writers.write_files`):
    ``target`` alone, or — when ``external_data`` is true, or None (automatic) and the model
    would pass protobuf's 2 GB limit — its tensors of 1 KB or more in ``<target>.data``
    (:mod:`irrun.export.external`), that file first so that the .onnx never names a missing one.
    Also returns the ModelProto, checked strictly (:func:`check_strictly`); ``matmul_nbits`` and
    ``int8_qdq`` as for :func:`build_onnx`."""
    from ..io import writers
    from .external import attach, check_externalized, externalize
    onnx = require_onnx()
    proto, payloads, node_layers = _assemble(model, opset, matmul_nbits, int8_qdq)
    files: list[tuple[Path, Any]] = []
    if external_data is None:
        external_data = too_large(proto, payloads)
    if external_data:
        data_path = data_file_of(target)
        size, fill = externalize(proto, data_path.name, payloads)
        files.append((data_path, fill))
    elif too_large(proto, payloads):
        raise UnsupportedError("the ONNX model passes protobuf's 2 GB limit: it needs external data "
                               "(nothing written)", file=model.path)
    if too_large(proto, {}):
        raise UnsupportedError("the ONNX model passes protobuf's 2 GB limit even without its tensors "
                               "(its graph alone is that large): nothing written", file=model.path)
    if external_data:
        check_strictly(lambda: check_externalized(proto, data_path.name, size), node_layers, model.path)
    else:
        attach(proto, payloads)
        check_strictly(lambda: onnx.checker.check_model(proto, full_check=True), node_layers, model.path)
    files.append((target, writers.data(proto.SerializeToString())))
    return proto, files


def walk_notes(walk: _Walk) -> dict[str, str]:
    """The notes (``irrun.note.N``) and the state ports (``irrun.state_input.<name>`` /
    ``irrun.state_output.<name>`` -> variable id) as metadata."""
    notes = {f"irrun.note.{i}": note for i, note in enumerate(dict.fromkeys(walk.e.notes))}
    return notes | walk.e.metadata


def export_onnx(model: Model | str | os.PathLike, path: str | os.PathLike, opset: int = DEFAULT_OPSET,
                external_data: bool | None = None, matmul_nbits: bool = False, int8_qdq: bool = False) -> Path:
    """Write ``model`` (an :class:`irrun.Model` or a path to its .xml) as ONNX at ``path``,
    atomically; nothing is written when a layer has no ONNX form (UnsupportedError, exit 3).
    ``external_data``: True writes the tensors of 1 KB or more to ``<path>.data`` (ONNX external
    data), False never, None (default) when the model would pass protobuf's 2 GB limit.
    ``matmul_nbits``: int4/int8 weight MatMuls as onnxruntime's com.microsoft MatMulNBits
    (:mod:`irrun.export.matmul_nbits`; the model then runs in onnxruntime only).
    ``int8_qdq``: FakeQuantize as QuantizeLinear + DequantizeLinear where it has that form."""
    from ..io import writers
    if isinstance(model, (str, os.PathLike)):
        from ..model import read_model
        model = read_model(model)
    protect = writers.model_files(model)
    target = writers.destination(path, protect=protect)
    if external_data:
        writers.destination(data_file_of(target), protect=protect)
    _, files = onnx_files(model, target, opset, external_data, matmul_nbits, int8_qdq)
    writers.write_files(files, protect=protect)
    return target
