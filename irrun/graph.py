"""Build a networkx MultiDiGraph from the reader's records and validate its structure.

Nodes are layer ids with the :class:`~irrun.reader.Layer` record under ``"layer"``; an edge
``u -> v`` carries ``src_port`` (index of the output port of ``u``) and ``dst_port`` (index of the
input port of ``v``) — positions, not the file's port ids, which OpenVINO maps to positions
(ir-format.md §3.2). Parallel edges (one output feeding two inputs of one layer) survive because
the edge key is the destination port.
"""
from __future__ import annotations

import weakref

import networkx as nx

from .errors import GraphError
from .reader import IRGraph, Layer

SINK_TYPES = ("result", "assign")


def build_graph(irg: IRGraph, file: str) -> tuple[nx.MultiDiGraph, list[GraphError]]:
    """The graph and every structural problem found (the graph holds what could be built)."""
    g = nx.MultiDiGraph()
    problems: list[GraphError] = []

    def problem(msg: str, layer: Layer | None = None, port: str | None = None) -> None:
        problems.append(GraphError(msg, file=file, layer=layer.ref if layer else None, port=port))

    out_index: dict[int, dict[int, int]] = {}   # layer -> port id -> position (first wins)
    in_index: dict[int, dict[int, int]] = {}
    for layer in irg.layers:
        if layer.id in g:
            problem(f"duplicate layer id {layer.id} (also used by layer "
                    f'"{g.nodes[layer.id]["layer"].name}")', layer)
            continue
        g.add_node(layer.id, layer=layer, type=layer.type, name=layer.name)
        out_index[layer.id] = {p.id: p.index for p in reversed(layer.outputs)}
        in_index[layer.id] = {p.id: p.index for p in reversed(layer.inputs)}

    fed_ports: set[tuple[int, int]] = set()
    for e in irg.edges:
        desc = f"edge {e.from_layer}:{e.from_port} -> {e.to_layer}:{e.to_port}"
        src = g.nodes[e.from_layer]["layer"] if e.from_layer in g else None
        dst = g.nodes[e.to_layer]["layer"] if e.to_layer in g else None
        if src is None or dst is None:
            missing = e.from_layer if src is None else e.to_layer
            problem(f"{desc} names layer {missing}, which does not exist", src or dst)
            continue
        sp = out_index[src.id].get(e.from_port)        # dicts: a hostile layer with 100000
        dp = in_index[dst.id].get(e.to_port)           # ports must not cost 100000**2 steps
        if sp is None:
            problem(f"{desc}: layer {src.id} has no output port with id {e.from_port}", src)
            continue
        if dp is None:
            problem(f"{desc}: layer {dst.id} has no input port with id {e.to_port}", dst)
            continue
        if src.type.lower() == "result":
            problem(f"{desc} reads a Result layer, which has no outputs", src)
            continue
        if (e.to_layer, dp) in fed_ports:
            problem(f"input port {e.to_port} is fed by more than one edge ({desc} is another)",
                    dst, f"input port {e.to_port}")
            continue
        g.add_edge(e.from_layer, e.to_layer, key=dp, src_port=sp, dst_port=dp)
        fed_ports.add((e.to_layer, dp))

    for n, data in g.nodes(data=True):
        layer = data["layer"]
        fed = {k for _, _, k in g.in_edges(n, keys=True)}
        for p in layer.inputs:
            if p.index not in fed:
                problem("input port is not connected to anything", layer, f"input port {p.id}")
    if not nx.is_directed_acyclic_graph(g):     # find_cycle alone is slow on a valid graph
        cycle = nx.find_cycle(g)
        ids = [str(u) for u, *_ in cycle]
        problem(f"the graph has a cycle through layers {' -> '.join(ids + ids[:1])}",
                g.nodes[cycle[0][0]]["layer"])
    if not any(d["layer"].type.lower() == "result" for _, d in g.nodes(data=True)):
        problem("the graph has no Result layer, so it has no outputs")
    return g, problems


def of_types(g: nx.MultiDiGraph, types: tuple[str, ...]) -> list:
    """The layers whose (lower-case) type is in ``types``, in XML order."""
    return sorted((n for n, d in g.nodes(data=True) if d["layer"].type.lower() in types),
                  key=lambda n: g.nodes[n]["layer"].position)


def sinks(g: nx.MultiDiGraph) -> list:
    """Result and Assign layers in XML order: the roots OpenVINO keeps the graph alive from."""
    return of_types(g, SINK_TYPES)


def live_nodes(g: nx.MultiDiGraph) -> set:
    """The layers that feed a Result or Assign (those layers included)."""
    live = set()
    for s in sinks(g):
        live.add(s)
        live |= nx.ancestors(g, s)
    return live


def live_order(g: nx.MultiDiGraph) -> list:
    """Topological order (ties in XML order) of the layers that feed a Result or Assign.

    OpenVINO silently drops the other layers (ir-format.md §5), so they are neither run nor
    shape-checked (the checker lists them as a warning).
    """
    live = live_nodes(g)
    sub = g if len(live) == len(g) else g.subgraph(live)
    return list(nx.lexicographical_topological_sort(sub, key=lambda n: g.nodes[n]["layer"].position))


def inputs_of(g: nx.MultiDiGraph, n) -> list[tuple]:
    """``[(producer, src_port)]`` ordered by the consumer's input port index.

    Asked for every layer by inference, planning and the checker, so the answer for the whole
    graph is computed once per graph object (a model's graph is not changed after build_graph)."""
    table = _INPUTS_OF.get(g)
    if table is None:
        ins: dict = {v: [] for v in g}
        for u, v, k, d in g.edges(keys=True, data=True):
            ins[v].append((k, u, d["src_port"]))
        table = _INPUTS_OF[g] = {v: [(u, sp) for _, u, sp in sorted(es)] for v, es in ins.items()}
    return list(table.get(n, ()))


_INPUTS_OF: "weakref.WeakKeyDictionary[nx.MultiDiGraph, tuple]" = weakref.WeakKeyDictionary()
