"""``irrun check``: infer every port and report where the file disagrees or cannot run.

OpenVINO ignores the dims and precisions an IR declares on its ports; irrun compares them with
what it infers. A :class:`Finding` is keyed by layer (id, name, type) and port (the port id as in
the XML: ``out 3``, ``in 0``), with the declared and the inferred value. Severities:

* ``error`` — the file is wrong or cannot run;
* ``warning`` — suspicious but harmless for OpenVINO (a layer that feeds no Result, an unknown
  or missing attribute OpenVINO silently defaults, a Const with spare bytes, a stale declared
  precision on a port no layer computes with: unread, or read only by a Result);
* ``unchecked`` — a layer irrun cannot check (an op it does not implement, a Const too big to
  unpack within the memory budget): named, never silently trusted, and the layers it feeds are
  not checked either (their count is in the message).

The bodies of TensorIterator/Loop/If layers are checked like the model, with the types the layer
gives their Parameters (a sliced input's part, back edges settled; when the layer's inputs are
unknown or the layer itself rejects them, with the Parameters' own attributes); their findings
name the layer with its path: ``3/5`` is layer 5 in the body of layer 3.

Codes: ``graph`` (edges to missing layers/ports, duplicate ids, input ports fed twice or never,
cycles, no Result), ``ignored-section`` (a warning: a second ``<layers>`` or ``<edges>``, which
OpenVINO ignores), ``dead-layer`` (a warning: a layer whose output reaches no Result; an unused
model input is no finding, as OpenVINO accepts it), ``const`` (bytes that do not fit the .bin or
the shape; ``const-size`` warns of spare bytes), ``attribute`` (invalid value,
missing mandatory attribute, op not in the named opset; missing-with-default, unknown and
malformed-bool attributes are warnings), ``body-parameter`` (a TensorIterator/Loop body
Parameter declared with a shape unlike what the layer feeds it), ``loop-bound`` (a warning: a Loop whose iterations
nothing bounds, see irrun/limits/iterations.py), ``shape-rule`` (the op rejects its inputs, as OpenVINO
does when it reads the file), ``loads-but-fails`` (OpenVINO reads the file but fails, or reads
garbage, when it runs it), ``dims`` / ``rank`` / ``precision`` (a declared output port against the
inferred type), ``input-dims`` / ``input-rank`` / ``input-precision`` (a consumer's declared input
port against what its producer makes), ``unsupported`` (unchecked).

A declared ``-1`` fits any dim and a static one must lie in the inferred interval. A consumer
port declared exactly like its producer's port is not reported again: the producer's finding
names the stale declaration once. Dead layers are dropped by OpenVINO, so only the dead-layer
warning is given for them.
"""
from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..errors import GraphError, IrrunError, ModelFileError, UnsupportedError
from ..ir.declared_ports import PortDecl
from ..ir.reader import read_ir
from ..ir.records import IRModel, Layer
from ..ops.registry import role_of
from ..types import elements
from ..types.shapes import PartialShape
from ..types.tensor_info import Role, TensorInfo
from .graph import Graph, build_graph, descendants, inputs_of, live_nodes
from .inference import infer_types
from .reshape import as_pshape

SEVERITIES = ("error", "unchecked", "warning")

#: The prefix of a finding for a layer OpenVINO reads but cannot run (``openvino_loads`` errors;
#: data-movement-ops.md §0).
LOADS_BUT_FAILS = "OpenVINO loads this file but fails at inference"


class BuiltModel(Protocol):
    """What the checker reads of a model built from its IR without refusing anything: the graph
    and its problems, the live order, the ops (sub-graph bodies included) and the layers that made
    no op. The model layer builds it (``irrun.Model(ir, strict=False, declared_types=True)``) and passes the builder
    in, because building the ops' bodies is the runtime's work, which sits above analysis."""

    path: str
    dag: Graph
    problems: list
    order: list
    ops: dict[int, Any]
    op_errors: dict[int, IrrunError]

    def find_input(self, name: str) -> int: ...


@dataclass
class _Scope:
    """The model's graph or one sub-graph body, as the checker walks it."""

    g: Graph
    order: list
    ops: dict
    op_errors: dict
    live: set
    path: tuple[str, ...] = ()         # ids of the enclosing sub-graph layers
    types: dict = field(default_factory=dict)     # (filled by Checker.infer)
    failed: set = field(default_factory=set)   # layers whose own rule rejected their inputs


@dataclass
class Finding:
    severity: str          # "error" | "warning" | "unchecked"
    code: str              # kind, e.g. "dims", "input-precision", "graph", "const" (module doc)
    layer_id: str | None   # "5", or "3/5" for layer 5 in the body of layer 3
    layer_name: str | None
    layer_type: str | None
    port: str | None       # "out 3" / "in 0": the port id as written in the XML
    declared: str | None
    inferred: str | None
    message: str

    @staticmethod
    def from_error(err: IrrunError, code: str, severity: str = "error",
                   layer: Layer | None = None) -> "Finding":
        L = err.layer
        lid = "/".join(L.path + (L.id,)) if L else None
        return Finding(severity, code, lid, L.name if L else None, L.type if L else None,
                       _port_label(err.port, layer), None, None, err.message)


def _port_label(port: str | None, layer: Layer | None) -> str | None:
    """``"input 1"`` (an index, from op code) / ``"input port 5"`` (an id) -> ``"in <id>"``."""
    if port is None:
        return None
    m = re.fullmatch(r"(input|output)( port)? (\d+)", port)
    if not m:
        return port
    kind, is_id, k = m[1], m[2], int(m[3])
    decls = (layer.inputs if kind == "input" else layer.outputs) if layer else []
    if not is_id and k < len(decls):
        k = decls[k].id
    return f"{kind[:-3]} {k}"


def _dims_text(dims: tuple[int, ...]) -> str:
    return "[" + ",".join("?" if d == -1 else str(d) for d in dims) + "]"


def _dims_problem(declared: tuple[int, ...], inferred: PartialShape) -> str | None:
    """Why ``declared`` does not describe ``inferred`` ("rank" or "dim i: ..."), or None."""
    if inferred.rank is None:
        return None
    if len(declared) != inferred.rank:
        return "rank"
    for i, (d, dim) in enumerate(zip(declared, inferred)):
        if d != -1 and not dim.contains(d):
            return f"dim {i}: declared {d}, inferred {dim}"
    return None


def _etype_differs(decl: PortDecl, etype: elements.ElementType | None) -> bool:
    return (decl.etype is not None and etype is not None and not decl.etype.is_dynamic
            and not etype.is_dynamic and decl.etype.name != etype.name)


class _Check:
    """One run of the checker over one read IR (see :func:`check_model`)."""

    def __init__(self, ir: IRModel, shapes, build: Callable[[IRModel], BuiltModel]):
        self.ir, self.shapes = ir, shapes
        self.model = build(ir)
        self.g = self.model.dag
        self.findings: list[Finding] = []
        self.live = live_nodes(self.g) or set(self.g.nodes)     # no Result: check everything
        self.top = _Scope(self.g, self.model.order, self.model.ops, self.model.op_errors, self.live)
        self.bad_body_consts: set[tuple[tuple[str, ...], int]] = set()

    def add(self, severity, code, layer: Layer | None, port, declared, inferred, message) -> None:
        lid = "/".join(layer.path + (str(layer.id),)) if layer else None
        self.findings.append(Finding(severity, code, lid, layer.name if layer else None,
                                     layer.type if layer else None, port, declared, inferred,
                                     message))

    def layer_of(self, err: IrrunError) -> Layer | None:
        L = err.layer
        if L is None or L.path:
            return None
        data = self.g.nodes.get(int(L.id)) if L.id.isdigit() else None
        return data["layer"] if data else None

    # -- what needs no inference -----------------------------------------------------------------
    def structure(self) -> set:
        """Graph problems (all of them, bodies included); returns the nodes not fully wired."""
        for p in self.model.problems:
            self.findings.append(Finding.from_error(p, "graph", layer=self.layer_of(p)))
        self.ignored(self.ir.graph, None, None)
        for layer in self.ir.graph.layers:
            self.bodies(layer)
        return {n for n, d in self.g.nodes(data=True)
                if self.g.in_degree(n) != len(d["layer"].inputs)}

    def bodies(self, layer: Layer) -> None:
        for tag, body in layer.bodies.items():
            _, problems = build_graph(body, self.ir.xml_path)
            for p in problems:
                f = Finding.from_error(p, "graph")
                if f.layer_id is None:       # "no Result": say in which body
                    f = Finding.from_error(IrrunError(f"<{tag}>: {p.message}", layer=layer.ref), "graph")
                self.findings.append(f)
            self.ignored(body, layer, tag)
            for sub in body.layers:
                self.bodies(sub)

    def ignored(self, graph, owner: Layer | None, tag: str | None) -> None:
        """A warning for each second ``<layers>``/``<edges>`` of ``graph`` (the model's, or the
        ``<tag>`` body of layer ``owner``): OpenVINO runs the file with the first and ignores the
        rest (measured on 2026.4.1, also when the second one differs), so it is no error — but
        whoever edited the file may have meant the second one."""
        where = f" of <{tag}>" if tag else ""
        for section, line in graph.ignored:
            self.add("warning", "ignored-section", owner, None, None, None,
                     f"a second <{section}>{where} at line {line}: OpenVINO uses the first "
                     f"<{section}> and ignores this one, and so does irrun")

    def consts(self) -> set:
        bad = set()
        no_bin = [p for p in self.ir.problems if getattr(p, "weights_missing", False)]
        if no_bin:                      # one finding for the file, not one per Const
            ids = ", ".join(p.layer.id for p in no_bin[:8] if p.layer is not None) + (", ..." if len(no_bin) > 8 else "")
            self.findings.append(Finding("error", "const", None, None, None, None, None, None,
                                         f"the weights file {self.ir.bin_path} is missing; "
                                         f"{len(no_bin)} Const{'s need' if len(no_bin) > 1 else ' needs'} "
                                         f"it (layer{'s' * (len(no_bin) > 1)} {ids}), so the layers "
                                         "they feed are not checked"))
        for p in self.ir.problems:      # a Const too big to unpack is no fault of the file
            if not getattr(p, "weights_missing", False):
                self.findings.append(Finding.from_error(
                    p, "const", "error" if isinstance(p, ModelFileError) else "unchecked"))
            if p.layer is not None and p.layer.id.isdigit():
                if p.layer.path:
                    self.bad_body_consts.add((p.layer.path, int(p.layer.id)))
                else:
                    bad.add(int(p.layer.id))
        for n, d in self.g.nodes(data=True):
            layer = d["layer"]
            shape = layer.const_shape         # (not decoded: a packed Const would be unpacked)
            if shape is None or n not in self.live or layer.data.get("element_type") == "string":
                continue
            need = elements.storage_bytes(elements.from_attr(layer.data["element_type"]), math.prod(shape))
            size = int(layer.data["size"])
            # an empty Const is written with one byte of data (openvino-tokenizers' empty patterns):
            # what OpenVINO's own serializer does, so no finding
            if size > need and not (math.prod(shape) == 0 and size == 1):
                self.add("warning", "const-size", layer, None, None, None,
                         f"size={size} but the shape {list(shape)} needs {need} bytes "
                         "(OpenVINO ignores the rest)")
        return bad

    def ops(self, sc: _Scope, bad_consts: set) -> None:
        for n, err in sc.op_errors.items():
            if n in bad_consts or n not in sc.live or isinstance(err, GraphError):
                continue                 # a body's graph errors: structure() lists them
            layer = sc.g.nodes[n]["layer"]
            if isinstance(err, UnsupportedError):
                msg = err.message
                if role_of(layer.type) is Role.SUBGRAPH:
                    msg += "; its body is not checked"
                if err.layer is not None and err.layer != layer.ref:
                    self.findings.append(Finding.from_error(err, "unsupported", "unchecked"))
                else:
                    self.add("unchecked", "unsupported", layer, None, None, None, msg)
            else:
                self.findings.append(_rejection(err, "attribute", layer))
        for n, op in sc.ops.items():
            if n not in sc.live or n in bad_consts:
                continue
            layer = sc.g.nodes[n]["layer"]
            notes = list(op.warnings)
            for k, v in layer.data.items():
                decl = op.attrs.get(k)
                if decl is None:
                    notes.append(f'unknown attribute {k}="{v}" (OpenVINO ignores it)')
                elif decl.kind == "bool" and v.strip().lower() not in ("true", "false", "1", "0"):
                    notes.append(f'attribute {k}="{v}" is not a boolean; OpenVINO ignores it '
                                 f"and keeps the default {decl.default!r}")
            for m in notes:
                self.add("warning", "attribute", layer, None, None, None, m)

    def dead(self, sc: _Scope) -> None:
        if sc.live == set(sc.g.nodes):
            return
        for n, d in sc.g.nodes(data=True):
            L = d["layer"]
            # A Parameter that feeds nothing is part of the model's interface, kept by OpenVINO
            # and written on purpose: optimum-intel's stateless decoder_with_past IRs keep
            # encoder_hidden_states, which the cached cross-attention keys/values replace.
            if n not in sc.live and role_of(L.type) is not Role.PARAMETER:
                self.add("warning", "dead-layer", L, None, None, None,
                         "the layer feeds no Result; OpenVINO drops it (it is not checked)")

    # -- inference and comparisons ---------------------------------------------------------------
    def overrides(self) -> dict:
        model, overrides = self.model, {}
        for name, shape in (self.shapes or {}).items():
            n = model.find_input(name)
            op = model.ops.get(n)
            if op is not None:
                overrides[n] = TensorInfo(op.element_type, as_pshape(shape))
        return overrides

    def infer(self, sc: _Scope, skip: set, overrides: dict) -> None:
        sc.types = {}
        if not sc.order:
            return
        ops = {n: op for n, op in sc.ops.items() if n not in skip}

        def on_error(n, err: IrrunError) -> None:
            if err.layer is not None and len(err.layer.path) > len(sc.path):
                return                   # inside a body: checking the body reports it
            sc.failed.add(n)
            self.findings.append(_rejection(err, "shape-rule", sc.g.nodes[n]["layer"]))

        sc.types = infer_types(sc.g, sc.order, ops, self.model.path, overrides, on_error)

    def bodies_of(self, sc: _Scope, skip: set) -> None:
        """Check the body of every live sub-graph layer of ``sc`` (recursively)."""
        for n in sc.order:
            op = sc.ops.get(n)
            if n in skip or op is None or not hasattr(op, "body_inputs"):
                continue
            ins = [sc.types.get(p) for p in inputs_of(sc.g, n)]
            known = all(i is not None for i in ins) and n not in sc.failed
            why = op.unbounded(ins) if known and hasattr(op, "unbounded") else None
            if why:
                self.add("warning", "loop-bound", sc.g.nodes[n]["layer"], None, None, None, why)
            pairs = op.body_inputs(ins) if known else [(b, {}) for b in op.bodies.values()]
            path = sc.path + (str(n),)
            for body, params in pairs:
                self.scope(_Scope(body.g, body.order, body.ops, body.op_errors, set(body.order), path),
                           {i for p, i in self.bad_body_consts if p == path}, params)
            # a body holding (also in a nested body) a Const whose bytes cannot be decoded cannot be
            # validated as written (that Const is already reported)
            if not any(p[:len(path)] == path for p, _ in self.bad_body_consts):
                self.declarations(op, ins if all(i is not None for i in ins) else None, known)

    def declarations(self, op, ins: list | None, known: bool) -> None:
        """Each body as written (OpenVINO validates it so before it gives it the layer's inputs,
        and refuses the file when that fails; the body is then checked with the inputs, which may
        hide it; called after the body is checked, so a layer is not reported twice) and each body
        Parameter declared unlike what the layer feeds it: an error; a lying shape OpenVINO
        ignores (a lying element type fails the layer itself). Not when the layer rejected its
        inputs (``known`` false): its own error comes first."""
        for body in op.bodies.values():
            err = op.declared_error(body, ins if known else None)
            f = Finding.from_error(err, "shape-rule") if err is not None else None
            if f is not None and not any(g.layer_id == f.layer_id and g.severity == "error" for g in self.findings):
                self.findings.append(f)     # (not again when checking the body found it)
        for p, why, etype in op.lies(ins) if known and ins is not None else ():
            if not etype:
                self.add("error", "body-parameter", p, None, None, None,
                         f"{why}; OpenVINO ignores the declared shape and uses the input's "
                         "(measured on 2026.4.1)")

    def scope(self, sc: _Scope, skip: set, overrides: dict, bad_consts: set | None = None) -> None:
        self.ops(sc, skip if bad_consts is None else bad_consts)
        self.dead(sc)
        self.infer(sc, skip, overrides)
        self.compare(sc)
        self.bodies_of(sc, skip)

    def compare(self, sc: _Scope) -> None:
        dims = not self.shapes      # new input shapes make the declared dims stale by design
        g = sc.g
        computed = {(u, d["src_port"]) for n in sc.order if role_of(g.nodes[n]["layer"].type) is not Role.RESULT
                    for u, _, d in g.in_edges(n, data=True)}     # ports another layer computes with
        for n in sc.order:
            layer = g.nodes[n]["layer"]
            for i, decl in enumerate(layer.outputs):
                info = sc.types.get((n, i))
                if info is not None:
                    self.port(layer, f"out {decl.id}", decl, info.shape if dims else None,
                              info.etype, "", "what the layer produces", read=(n, i) in computed)
            for u, _, k, d in g.in_edges(n, keys=True, data=True):
                decl, sp = layer.inputs[k], d["src_port"]
                prod = g.nodes[u]["layer"]
                pdecl = prod.outputs[sp]
                info = sc.types.get((u, sp))
                src = f'layer {u} "{prod.name}" ({prod.type}) makes on port out {pdecl.id}'
                if info is not None:
                    if decl.dims == pdecl.dims and decl.etype == pdecl.etype:
                        continue     # same declaration as the producer's port: reported there
                    self.port(layer, f"in {decl.id}", decl, info.shape if dims else None,
                              info.etype, "input-", f"what {src}")
                else:                # producer not inferred: compare the two declarations
                    self.port(layer, f"in {decl.id}", decl,
                              PartialShape(pdecl.dims) if dims else None, pdecl.etype, "input-",
                              f"what {src} (declared; its type is not inferred)")

    def port(self, layer, port, decl: PortDecl, shape, etype, prefix, what, read: bool = True) -> None:
        """Findings for one declared port. ``read``: another layer computes with an output port;
        a precision on a port nothing reads, or only a Result (a model output), is a warning —
        OpenVINO ignores declared precisions, and an output's API type is its own (IR v10
        shows f16 outputs as f32)."""
        if shape is not None:
            why = _dims_problem(decl.dims, shape)
            if why == "rank":
                self.add("error", prefix + "rank", layer, port, _dims_text(decl.dims), str(shape),
                         f"declared rank {len(decl.dims)} differs from {what} (rank {shape.rank})")
            elif why:
                self.add("error", prefix + "dims", layer, port, _dims_text(decl.dims), str(shape),
                         f"declared dims differ from {what} ({why})")
        if _etype_differs(decl, etype):
            self.add("error" if read else "warning", prefix + "precision", layer, port,
                     decl.precision, etype.precision,
                     f"declared precision differs from {what} ({etype.name})" + ("" if read else
                     "; no layer computes with this port (a model output or unused), and OpenVINO "
                     "ignores declared precisions"))

    def downstream_notes(self) -> None:
        """Say, on each layer that stopped inference, how many layers after it went unchecked."""
        if not self.model.order:
            return
        g, types = self.g, self.top.types
        blind = {n for n in self.model.order
                 if any(types.get(p) is None for p in inputs_of(g, n))}
        for f in self.findings:
            if f.severity == "warning" or f.layer_id is None or not f.layer_id.isdigit():
                continue
            n = int(f.layer_id)
            if n in self.live and n in g and any(types.get((n, i)) is None
                                                  for i in range(len(g.nodes[n]["layer"].outputs))):
                k = len(descendants(g, n) & blind)
                if k:
                    f.message += f"; the {k} layer{'s' if k > 1 else ''} after it {'are' if k > 1 else 'is'} not checked"

    def run(self) -> list[Finding]:
        broken = self.structure()
        bad_consts = self.consts()
        overrides = self.overrides()
        if self.model.order:
            self.scope(self.top, broken | bad_consts, overrides, bad_consts)
        else:                           # a cycle: nothing can be inferred
            self.ops(self.top, bad_consts)
            self.dead(self.top)
            self.top.types = {}
        self.downstream_notes()
        pos = {str(L.id): L.position for L in reversed(self.ir.graph.layers)}
        order = {s: i for i, s in enumerate(SEVERITIES)}
        seen, out = set(), []
        for f in self.findings:        # a layer with two problems of one kind: report it once
            key = (f.code, f.layer_id, f.port, f.message)
            if key not in seen:
                seen.add(key)
                out.append(f)
        return sorted(out, key=lambda f: (order[f.severity],
                                          pos.get((f.layer_id or "").split("/")[0], -1)))


def _rejection(err: IrrunError, code: str, layer: Layer) -> Finding:
    """A layer's own error as a finding of ``code``, or of ``loads-but-fails`` when OpenVINO
    reads the file and fails only when it runs it."""
    if not err.openvino_loads:
        return Finding.from_error(err, code, layer=layer)
    f = Finding.from_error(err, "loads-but-fails", layer=layer)
    f.message = f"{LOADS_BUT_FAILS}: {err.message}"
    return f


def check_model(path, shapes=None, *, build: Callable[[IRModel], BuiltModel]) -> list[Finding]:
    """All findings for the IR at ``path``, errors first, then in XML order of the layers. With
    ``shapes`` (input name -> dims, e.g. ``{"x": "1,3,?,?"}``) the model is checked as if its
    inputs had those shapes: declared dims, which describe the original shapes, are then not
    compared, only whether every layer can take the new shapes. Raises :class:`IrrunError` only
    when the file cannot be read at all (or an input named in ``shapes`` does not exist).
    ``build`` makes the :class:`BuiltModel` of the read IR (:func:`irrun.check` passes it)."""
    return _Check(read_ir(path, strict=False), shapes, build).run()


