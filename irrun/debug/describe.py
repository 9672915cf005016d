"""What is in a model: ``irrun info`` (a summary) and ``irrun graph`` (Graphviz dot or Mermaid)."""
from __future__ import annotations

import math
import shutil
import subprocess
from collections import Counter
from dataclasses import dataclass, field

from ..analysis.graph import inputs_of
from ..errors import IrrunError, printable
from ..ops.registry import classes_of, role_of
from ..types.tensor_info import Role
from .tracing import find_layer, table, type_version

#: layers ``info`` counts by type rather than listing them as ops
SPECIAL = (Role.PARAMETER, Role.CONSTANT, Role.RESULT)


def _all_layers(irg):
    for L in irg.layers:
        yield L
        for body in L.bodies.values():
            yield from _all_layers(body)


def info_json(model) -> dict:
    """What :func:`info_text` says, as one JSON-ready object (``irrun info --json``)."""
    g, ir = model.dag, model.ir
    all_layers = list(_all_layers(ir.graph))
    ops = Counter(type_version(model, n) for n, d in g.nodes(data=True) if role_of(d["layer"].type) not in SPECIAL)
    missing = {type_version(model, n) for n in model.op_errors}
    consts = [L for L in all_layers if L.const is not None]
    port = lambda p: {"name": p.name, "names": list(p.names), "element_type": str(p.etype),   # noqa: E731
                      "shape": str(p.shape)}
    return {"path": str(model.path), "ir_version": ir.ir_version, "name": ir.name, "layers": len(g),
            "body_layers": len(all_layers) - len(g),
            "inputs": [port(p) for p in model.inputs], "outputs": [port(p) for p in model.outputs],
            "ops": [{"op": op, "layers": c, "implemented": op not in missing}
                    for op, c in sorted(ops.items(), key=lambda kv: kv[0].lower())],
            "opsets": sorted({L.version for L in all_layers}),
            "weights": {"consts": len(consts), "values": sum(math.prod(L.const_shape) for L in consts),
                        "bytes": sum(int(L.data.get("size", 0)) for L in consts)},
            "unused_layers": len(g) - len(model.order) if model.order else 0}


def info_text(model) -> str:
    """Inputs and outputs, layer counts, op types with versions, opsets, weights."""
    g, ir = model.dag, model.ir
    layers = [d["layer"] for _, d in g.nodes(data=True)]
    kinds = Counter(L.type for L in layers if role_of(L.type) in SPECIAL)
    ops = Counter(type_version(model, n) for n, d in g.nodes(data=True) if role_of(d["layer"].type) not in SPECIAL)
    missing = {type_version(model, n) for n in model.op_errors}
    out = [printable(f'{model.path}: IR v{ir.ir_version}, "{ir.name}", {len(layers)} layers (')
           + ", ".join([printable(f"{v} {k}") for k, v in sorted(kinds.items())] + [f"{sum(ops.values())} ops"]) + ")"]
    for title, ports in (("inputs", model.inputs), ("outputs", model.outputs)):
        rows = []
        for p in ports:
            also = [a for a in p.names[1:] if a != g.nodes[p.node]["layer"].name]
            rows.append((f"  {printable(p.name)}", f"{p.etype}{p.shape}",
                         printable(f"(also {', '.join(also)})") if also else ""))
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
    out += ["", f"opsets   {printable(', '.join(opsets))}",
            f"weights  {values} values in {len(consts)} Consts, {nbytes} bytes" if consts else "weights  none"]
    if len(all_layers) > len(layers):
        out.append(f"bodies   {len(all_layers) - len(layers)} layers inside TensorIterator/Loop/If bodies")
    if dead:
        out.append(f"unused   {dead} layer{'s feed' if dead > 1 else ' feeds'} no Result (OpenVINO drops "
                   f"{'them' if dead > 1 else 'it'}; irrun check lists {'them' if dead > 1 else 'it'})")
    return "\n".join(out)


# ---------------------------------------------------------------------------------------------
# Graph pictures

PICTURES = ("svg", "png", "pdf")
#: file extension -> format (pictures are drawn by Graphviz's dot; dot and mermaid are text)
EXTENSIONS = {".svg": "svg", ".png": "png", ".pdf": "pdf", ".dot": "dot", ".gv": "dot",
              ".mmd": "mermaid", ".mermaid": "mermaid", ".md": "mermaid"}
INSTALL_HINT = ("drawing a picture needs Graphviz's dot program, which is not on PATH; install "
                "Graphviz (apt install graphviz, dnf install graphviz, brew install graphviz, "
                "conda install graphviz, or https://graphviz.org/download/), or write the DOT text "
                "with --format dot and render it elsewhere")
DOT_TIMEOUT = 600      # seconds; Graphviz lays out thousands of nodes in well under that


def need_dot(fmt: str, text_option: str = "--format dot") -> None:
    """Refuse a picture ``fmt`` when Graphviz's dot is not on PATH — before any work is done;
    ``text_option`` is how this command writes the DOT text instead."""
    if fmt in PICTURES and shutil.which("dot") is None:
        raise IrrunError(INSTALL_HINT.replace("--format dot", text_option))


def render(dot_text: str, fmt: str, smaller: str = "--layer ID --depth N") -> bytes:
    """The picture Graphviz's ``dot`` draws from ``dot_text`` (``smaller``: the options that
    draw less, named when dot runs out of time)."""
    exe = shutil.which("dot")
    if exe is None:
        raise IrrunError(INSTALL_HINT)
    try:
        r = subprocess.run([exe, f"-T{fmt}"], input=dot_text.encode("utf-8"), capture_output=True,
                           timeout=DOT_TIMEOUT, check=False)
    except subprocess.TimeoutExpired:
        raise IrrunError(f"Graphviz's dot took more than {DOT_TIMEOUT} s; draw a part of the graph "
                         f"with {smaller}") from None
    except OSError as e:
        raise IrrunError(f"cannot run Graphviz's dot ({exe}): {e.strerror or e}") from None
    if r.returncode != 0 or not r.stdout:
        msg = " ".join(r.stderr.decode("utf-8", "replace").split())[:500]
        raise IrrunError(f"Graphviz's dot failed (exit {r.returncode}): {msg or 'no output'}")
    return r.stdout


def neighbourhood(model, spec, depth: int) -> tuple[int, set]:
    """The layer and every layer within ``depth`` edges of it (either direction)."""
    n = find_layer(model, spec)
    import networkx as nx  # only for drawing a neighbourhood
    near = nx.single_source_shortest_path_length(model.graph.to_undirected(as_view=True), n, cutoff=depth)
    return n, set(near)


def _types(model) -> dict:
    try:
        return model.types()
    except IrrunError:
        return {}


#: op category -> (fill colour, legend text), by the irrun.ops module that implements the op
CATEGORIES = {
    "linear": ("#9ecae1", "convolution, matmul, attention, RNN"),
    "elementwise": ("#fff3b0", "element-wise, activations, conversions"),
    "normalize": ("#d9c2e9", "normalisation, softmax, reductions"),
    "spatial": ("#b8e3b0", "pooling, resizing, sampling"),
    "movement": ("#fdd7b0", "data movement (reshape, concat, gather...)"),
    "shape": ("#e4e4e4", "shapes and index ranges"),
    "detection": ("#f7c6c0", "detection, sorting, FFT"),
    "control": ("#f49a9a", "sub-graphs and state"),
    "text": ("#c9e4de", "strings and tokenizers"),
    "io": ("#c6e6f5", "inputs and outputs"),
}
MAX_ATTRS, MAX_VALUE = 6, 24


def category(layer_type: str) -> str | None:
    """The colour category of an op type, as its class declares it (``Op.category``; None: irrun
    has no such op)."""
    return next((cls.category for cls in classes_of(layer_type) if cls.category in CATEGORIES), None)


def _attr_lines(data: dict) -> list[str]:
    """``k=v`` of the layer's attributes, two a line, values cut at MAX_VALUE characters."""
    items = [printable(f"{k}={v if len(v) <= MAX_VALUE else v[:MAX_VALUE - 1] + '…'}")
             for k, v in data.items()]
    if len(items) > MAX_ATTRS:
        items = items[:MAX_ATTRS - 1] + [f"+{len(items) - MAX_ATTRS + 1} more"]
    return [", ".join(items[i:i + 2]) for i in range(0, len(items), 2)]


def _const_text(v) -> str:
    """A small scalar or vector's values (``[0, 1, 3, 2]``), else its shape (``[64,3,3,3]``)."""
    if v is None:
        return ""
    if v.size <= 8 and v.ndim <= 1 and v.dtype.kind in "iufb":
        vals = [f"{x:.4g}" if isinstance(x, float) else str(x) for x in v.reshape(-1).tolist()]
        return vals[0] if v.ndim == 0 else "[" + ", ".join(vals) + "]"
    return "[" + ",".join(map(str, v.shape)) + "]"


def _node_label(model, n, types=None) -> tuple[str, Role]:
    """(text lines, role) where role is PARAMETER, RESULT, CONSTANT or COMPUTE (any other op):
    id and name, type-version, the key attributes (Parameter/Result: the tensor's type and shape)."""
    L = model.dag.nodes[n]["layer"]
    t = role_of(L.type)
    if t is Role.CONSTANT:
        v = L.const_value
        et = L.data.get("element_type", "")
        return f"{L.id} {printable(L.name)}\nConst {printable(et)} {_const_text(v)}".rstrip(), t
    if t is Role.RESULT:
        src = inputs_of(model.dag, n)
        tensor = _edge_label(model, types or {}, *src[0]).split(": ", 1)[-1] if len(src) == 1 else ""
        return f"{L.id} {printable(model.output_key(n))}\nResult {tensor}".rstrip(), t
    if t is Role.PARAMETER:
        return (f"{L.id} {printable(L.name)}\nParameter "
                f"{printable(L.data.get('element_type', ''))}[{printable(L.data.get('shape', ''))}]"), t
    return "\n".join([f"{L.id} {printable(L.name)}", type_version(model, n)] + _attr_lines(L.data)), Role.COMPUTE


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


@dataclass
class Paint:
    """Fills a caller chooses instead of the op categories (``irrun compare --graph`` fills by
    the error each layer adds): ``fill`` per layer id, ``other`` for every other op, an extra
    label line per layer (``note``), layers drawn with a thick border (``bold``; their dark fill
    gets white text when also in ``dark``), and the legend as Graphviz HTML-like table rows."""

    fill: dict = field(default_factory=dict)       # layer id -> "#rrggbb"
    other: str = "#d9d9d9"
    note: dict = field(default_factory=dict)       # layer id -> text line
    bold: set = field(default_factory=set)
    dark: set = field(default_factory=set)
    legend: str = ""                               # <tr>...</tr> rows
    title: str = ""                                # over the picture


def to_dot(model, nodes: set | None = None, focus: int | None = None, paint: Paint | None = None) -> str:
    """Graphviz DOT: one box per layer, filled by op category (:data:`CATEGORIES`, with a legend
    of the categories present) or as ``paint`` says, Consts dashed, edges labelled with the
    tensor's type."""
    keep, edges = _parts(model, nodes)
    types = _types(model)
    q = lambda s: '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'  # noqa: E731
    io = f'shape=ellipse, style=filled, fillcolor="{CATEGORIES["io"][0]}"'
    style = {Role.PARAMETER: io, Role.RESULT: io, Role.CONSTANT: 'style="dashed,rounded", fontsize=8, color=gray40',
             Role.COMPUTE: ""}
    out = [f"digraph {q(printable(model.ir.name or 'model'))} {{",
           '  node [shape=box, style="rounded,filled", fillcolor=white, fontname="Helvetica", fontsize=10];',
           '  edge [fontname="Helvetica", fontsize=9, color=gray30];']
    if paint is not None and paint.title:
        out.append(f"  labelloc=t; fontname=\"Helvetica\"; fontsize=12; label={q(printable(paint.title))};")
    seen: dict[str, None] = {}
    for n in keep:
        text, kind = _node_label(model, n, types)
        fill, more = "", []
        if paint is not None:
            text += f"\n{paint.note[n]}" if n in paint.note else ""
            if kind is Role.COMPUTE:
                fill = f'fillcolor="{paint.fill.get(n, paint.other)}"'
            more = ["penwidth=2.5" if n in paint.bold else "", "fontcolor=white" if n in paint.dark else ""]
        elif kind is Role.COMPUTE:
            cat = category(model.dag.nodes[n]["layer"].type)
            if cat:
                seen[cat] = None
                fill = f'fillcolor="{CATEGORIES[cat][0]}"'
        attrs = ", ".join(a for a in (f"label={q(text)}", style[kind], fill, "penwidth=3" if n == focus else "",
                                      *more) if a)
        out.append(f"  n{n} [{attrs}];")
    out += [f"  n{u} -> n{v} [label={q(lab)}];" for u, v, lab in edges]
    rows = paint.legend if paint is not None else "<tr><td>op categories</td></tr>" + "".join(
        f'<tr><td bgcolor="{CATEGORIES[c][0]}">{CATEGORIES[c][1]}</td></tr>' for c in seen) if seen else ""
    if rows:          # one table node: a legend of the colours used (fixed texts, no model data)
        out.append('  legend [shape=plaintext, style="", fontsize=8, label=<<table border="0" '
                   f'cellborder="1" cellspacing="0" cellpadding="3">{rows}</table>>];')
    return "\n".join(out + ["}"])


def to_mermaid(model, nodes: set | None = None, focus: int | None = None) -> str:
    keep, edges = _parts(model, nodes)
    q = lambda s: '"' + s.replace('"', "#quot;").replace("\n", "<br/>") + '"'  # noqa: E731
    shape = {Role.PARAMETER: "([{}])", Role.RESULT: "([{}])", Role.CONSTANT: "[{}]", Role.COMPUTE: "[{}]"}
    out = ["flowchart TD", "  classDef const stroke-dasharray: 3 3, font-size: 10px",
           "  classDef focus stroke-width: 3px"]
    out += [f"  classDef {c} fill:{colour}" for c, (colour, _) in CATEGORIES.items()]
    types = _types(model)
    for n in keep:
        text, kind = _node_label(model, n, types)
        cat = "io" if kind in (Role.PARAMETER, Role.RESULT) else \
            category(model.dag.nodes[n]["layer"].type) if kind is Role.COMPUTE else "const"
        out.append(f"  n{n}{shape[kind].format(q(text))}" + (f":::{cat}" if cat else ""))
    out += [f"  n{u} -->|{q(lab)}| n{v}" for u, v, lab in edges]
    return "\n".join(out + ([f"  class n{focus} focus"] if focus is not None else []))
