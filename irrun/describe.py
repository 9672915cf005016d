"""What is in a model: ``irrun info`` (a summary) and ``irrun graph`` (Graphviz dot or Mermaid)."""
from __future__ import annotations

import json
import math
from collections import Counter

from .debug import table, find_layer, type_version
from .errors import IrrunError

SPECIAL = ("parameter", "const", "constant", "result")


def _all_layers(irg):
    for L in irg.layers:
        yield L
        for body in L.bodies.values():
            yield from _all_layers(body)


def info_text(model) -> str:
    """Inputs and outputs, layer counts, op types with versions, opsets, weights."""
    g, ir = model.dag, model.ir
    layers = [d["layer"] for _, d in g.nodes(data=True)]
    kinds = Counter(L.type for L in layers if L.type.lower() in SPECIAL)
    ops = Counter(type_version(model, n) for n, d in g.nodes(data=True) if d["layer"].type.lower() not in SPECIAL)
    missing = {type_version(model, n) for n in model.op_errors}
    out = [f'{model.path}: IR v{ir.ir_version}, "{ir.name}", {len(layers)} layers ('
           + ", ".join([f"{v} {k}" for k, v in sorted(kinds.items())] + [f"{sum(ops.values())} ops"]) + ")"]
    for title, ports in (("inputs", model.inputs), ("outputs", model.outputs)):
        rows = []
        for p in ports:
            also = [a for a in p.names[1:] if a != g.nodes[p.node]["layer"].name]
            rows.append((f"  {p.name}", f"{p.etype}{p.shape}", f"(also {', '.join(also)})" if also else ""))
        out += ["", title] + (table(rows, set()) if rows else ["  none"])
    rows = [(f"  {op}", str(c), "not implemented by irrun" if op in missing else "")
            for op, c in sorted(ops.items(), key=lambda kv: kv[0].lower())]
    out += ["", "ops (type-version, layers)"] + (table(rows, {1}) if rows else ["  none"])
    all_layers = list(_all_layers(ir.graph))
    opsets = sorted({L.version for L in all_layers}, key=lambda v: (not v.startswith("opset"), len(v), v))
    consts = [L for L in all_layers if L.const is not None]
    nbytes = sum(int(L.data.get("size", 0)) for L in consts)
    values = sum(math.prod(L.const_shape) for L in consts)
    dead = len(layers) - len(model.order) if model.order else 0
    out += ["", f"opsets   {', '.join(opsets)}",
            f"weights  {values} values in {len(consts)} Consts, {nbytes} bytes" if consts else "weights  none"]
    if len(all_layers) > len(layers):
        out.append(f"bodies   {len(all_layers) - len(layers)} layers inside TensorIterator/Loop/If bodies")
    if dead:
        out.append(f"unused   {dead} layer{'s feed' if dead > 1 else ' feeds'} no Result (OpenVINO drops "
                   f"{'them' if dead > 1 else 'it'}; irrun check lists {'them' if dead > 1 else 'it'})")
    return "\n".join(out)


# ---------------------------------------------------------------------------------------------
# Graph pictures

def neighbourhood(model, spec, depth: int) -> tuple[int, set]:
    """The layer and every layer within ``depth`` edges of it (either direction)."""
    n = find_layer(model, spec)
    import networkx as nx          # only for drawing a neighbourhood
    near = nx.single_source_shortest_path_length(model.graph.to_undirected(as_view=True), n, cutoff=depth)
    return n, set(near)


def _types(model) -> dict:
    try:
        return model.types()
    except IrrunError:
        return {}


def _node_label(model, n) -> tuple[str, str]:
    """(text lines, kind) where kind is param | result | const | op."""
    L = model.dag.nodes[n]["layer"]
    t = L.type.lower()
    if t in ("const", "constant"):
        v = L.const_value
        shown = json.dumps(v.tolist()) if v is not None and v.size <= 8 and v.dtype.kind in "iufb" else \
            "[" + ",".join(map(str, v.shape)) + "]" if v is not None else ""
        et = L.data.get("element_type", "")
        return f"{L.id} {L.name}\nConst {et} {shown}".rstrip(), "const"
    if t == "result":
        return f"{L.id} {model._output_names(n)[0]}\nResult", "result"
    if t == "parameter":
        return f"{L.id} {L.name}\nParameter", "param"
    return f"{L.id} {L.name}\n{type_version(model, n)}", "op"


def _edge_label(model, types, u, sp) -> str:
    """The tensor's inferred type (declared one when inference fails), and which output of a
    multi-output layer it is (its port id, as in the dump keys)."""
    outs = model.dag.nodes[u]["layer"].outputs
    info = types.get((u, sp))
    text = str(info) if info is not None else \
        f"{outs[sp].etype or '?'}[{','.join('?' if d < 0 else str(d) for d in outs[sp].dims)}]"
    return f"port {outs[sp].id}: {text}" if len(outs) > 1 else text


def _parts(model, nodes):
    g = model.dag
    keep = [n for n in sorted(g.nodes, key=lambda n: g.nodes[n]["layer"].position) if nodes is None or n in nodes]
    kept = set(keep)
    types = _types(model)
    edges = [(u, v, _edge_label(model, types, u, d["src_port"])) for u, v, d in g.edges(data=True)
             if u in kept and v in kept]
    return keep, edges


def to_dot(model, nodes: set | None = None, focus: int | None = None) -> str:
    keep, edges = _parts(model, nodes)
    q = lambda s: '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'  # noqa: E731
    style = {"param": "shape=ellipse", "result": "shape=ellipse", "const": 'style="dashed,rounded", fontsize=8',
             "op": ""}
    out = [f"digraph {q(model.ir.name or 'model')} {{",
           '  node [shape=box, style=rounded, fontname="Helvetica", fontsize=10];',
           '  edge [fontname="Helvetica", fontsize=9];']
    for n in keep:
        text, kind = _node_label(model, n)
        attrs = ", ".join(a for a in (f"label={q(text)}", style[kind], "penwidth=3" if n == focus else "") if a)
        out.append(f"  n{n} [{attrs}];")
    out += [f"  n{u} -> n{v} [label={q(lab)}];" for u, v, lab in edges]
    return "\n".join(out + ["}"])


def to_mermaid(model, nodes: set | None = None, focus: int | None = None) -> str:
    keep, edges = _parts(model, nodes)
    q = lambda s: '"' + s.replace('"', "#quot;").replace("\n", "<br/>") + '"'  # noqa: E731
    shape = {"param": "([{}])", "result": "([{}])", "const": "[{}]", "op": "[{}]"}
    out = ["flowchart TD", "  classDef const stroke-dasharray: 3 3, font-size: 10px",
           "  classDef focus stroke-width: 3px"]
    for n in keep:
        text, kind = _node_label(model, n)
        out.append(f"  n{n}{shape[kind].format(q(text))}" + (":::const" if kind == "const" else ""))
    out += [f"  n{u} -->|{q(lab)}| n{v}" for u, v, lab in edges]
    return "\n".join(out + ([f"  class n{focus} focus"] if focus is not None else []))
