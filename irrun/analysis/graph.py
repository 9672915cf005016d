"""The layer graph: plain adjacency built from the reader's records, and its structural checks.

Nodes are layer ids with the :class:`~irrun.ir.records.Layer` record under ``"layer"``; an edge
``u -> v`` carries ``src_port`` (index of the output port of ``u``) and ``dst_port`` (index of the
input port of ``v``) — positions, not the file's port ids, which OpenVINO maps to positions
(ir-format.md §3.2). Parallel edges (one output feeding two inputs of one layer) survive because
an edge is keyed by its destination port.

:class:`Graph` answers the few questions irrun asks (inputs of a layer, readers, a topological
order) with dicts and a heap, and reads like the networkx calls it replaced (``g.nodes[n]``,
``g.nodes(data=True)``, ``successors``, ``in_edges``...), so that ``import irrun`` and reading a
model load no networkx. :meth:`Graph.to_networkx` gives the networkx MultiDiGraph that
``Model.graph`` offers library users (built on first access).
"""
from __future__ import annotations

import functools
import heapq
import weakref

from ..errors import GraphError
from ..ir.records import IRGraph, Layer


@functools.lru_cache(maxsize=None)
def role(type_name: str):
    """The role (``Op.role``, :class:`irrun.types.tensor_info.Role`) of a layer type, asked of its op
    classes (cached per type name)."""
    from ..ops.registry import role_of
    return role_of(type_name)


def _result_role():
    from ..types.tensor_info import Role
    return Role.RESULT


class _Nodes(dict):
    """``g.nodes``: node -> its attributes (``layer``, ``type``, ``name``); called like
    networkx's node view: ``g.nodes()`` the nodes, ``g.nodes(data=True)`` (node, attributes)."""

    def __call__(self, data: bool = False) -> list:
        return list(self.items()) if data else list(self)


class Graph:
    """A directed multigraph of layers, in XML order: ``ins[v]`` maps an input port index of ``v``
    to the (producer, output port index) feeding it; ``outs[u]`` lists (reader, its input port,
    output port of ``u``). Filled once, by :func:`build_graph`."""

    def __init__(self) -> None:
        self.nodes = _Nodes()
        self.ins: dict = {}
        self.outs: dict = {}
        self._inputs: dict | None = None
        self.order: list | None = None     # every layer in topological order (build_graph)
        self.by_role: dict = {}            # Op.role -> its layers in XML order (build_graph)

    def __contains__(self, n) -> bool:
        return n in self.nodes

    def __iter__(self):
        return iter(self.nodes)

    def __len__(self) -> int:
        return len(self.nodes)

    def number_of_nodes(self) -> int:
        return len(self.nodes)

    def inputs(self, n) -> list[tuple]:
        """``[(producer, src_port)]`` ordered by ``n``'s input port index (one table per graph)."""
        if self._inputs is None:
            self._inputs = {v: [e[1] for e in sorted(ins.items())] for v, ins in self.ins.items()}
        return self._inputs.get(n, [])

    def in_degree(self, n) -> int:
        return len(self.ins[n])

    def out_degree(self, n) -> int:
        return len(self.outs[n])

    def successors(self, n) -> list:
        return list(dict.fromkeys(v for v, _, _ in self.outs[n]))

    def in_edges(self, n, keys: bool = False, data: bool = False) -> list[tuple]:
        return [(u, n) + ((k,) if keys else ()) + (({"src_port": sp, "dst_port": k},) if data else ())
                for k, (u, sp) in sorted(self.ins[n].items())]

    def edges(self, keys: bool = False, data: bool = False) -> list[tuple]:
        return [(u, v) + ((k,) if keys else ()) + (({"src_port": sp, "dst_port": k},) if data else ())
                for u, outs in self.outs.items() for v, k, sp in outs]

    def to_networkx(self):
        """The same graph as a networkx MultiDiGraph (edge key = destination port)."""
        import networkx as nx
        g = nx.MultiDiGraph()
        for n, attrs in self.nodes.items():
            g.add_node(n, **attrs)
        for u, v, k, d in self.edges(keys=True, data=True):
            g.add_edge(u, v, key=k, **d)
        return g


def build_graph(irg: IRGraph, file: str) -> tuple[Graph, list[GraphError]]:
    """The graph and every structural problem found (the graph holds what could be built)."""
    g = Graph()
    problems: list[GraphError] = []

    def problem(msg: str, layer: Layer | None = None, port: str | None = None) -> None:
        problems.append(GraphError(msg, file=file, layer=layer.ref if layer else None, port=port))

    nodes, ins, outs = g.nodes, g.ins, g.outs     # filled here directly: one pass, few calls
    layers: dict[int, Layer] = {}
    results: set[int] = set()
    result = _result_role()
    for layer in irg.layers:
        lid = layer.id
        if lid in layers:
            problem(f"duplicate layer id {lid} (also used by layer "
                    f'"{layers[lid].name}")', layer)
            continue
        layers[lid] = layer
        nodes[lid] = {"layer": layer, "type": layer.type, "name": layer.name}
        ins[lid], outs[lid] = {}, []
        r = role(layer.type)
        by_role = g.by_role.get(r)
        if by_role is None:
            by_role = g.by_role[r] = []
        by_role.append(lid)
        if r is result:
            results.add(lid)

    tables: dict[int, dict[int, int]] = {}       # big port lists: port id -> position
    forward = True                                # does every edge go down the file?
    for e in irg.edges:
        u, v = e.from_layer, e.to_layer
        src, dst = layers.get(u), layers.get(v)
        sp = _position(src.outputs, e.from_port, tables) if src is not None else None
        dp = _position(dst.inputs, e.to_port, tables) if dst is not None else None
        if src is not None and dst is not None and sp is not None and dp is not None \
                and dp not in ins[v] and u not in results:
            ins[v][dp] = (u, sp)
            outs[u].append((v, dp, sp))
            forward = forward and src.position < dst.position
            continue
        desc = f"edge {u}:{e.from_port} -> {v}:{e.to_port}"
        if src is None or dst is None:
            missing = u if src is None else v
            problem(f"{desc} names layer {missing}, which does not exist", src or dst)
            continue
        if sp is None:
            problem(f"{desc}: layer {src.id} has no output port with id {e.from_port}", src)
            continue
        if dp is None:
            problem(f"{desc}: layer {dst.id} has no input port with id {e.to_port}", dst)
            continue
        if u in results:
            problem(f"{desc} reads a Result layer, which has no outputs", src)
            continue
        problem(f"input port {e.to_port} is fed by more than one edge ({desc} is another)",
                dst, f"input port {e.to_port}")

    for n, layer in layers.items():
        if len(ins[n]) != len(layer.inputs):
            fed = ins[n]
            for p in layer.inputs:
                if p.index not in fed:
                    problem("input port is not connected to anything", layer, f"input port {p.id}")
    # Kahn's algorithm with ties in XML order gives the XML order itself when every edge goes
    # down the file (as OpenVINO writes them): then no sort is needed.
    g.order = list(nodes) if forward else _topological(g, nodes)
    cycle = _cycle(g) if len(g.order) < len(g) else []
    if cycle:
        ids = [str(u) for u in cycle]
        problem(f"the graph has a cycle through layers {' -> '.join(ids + ids[:1])}",
                g.nodes[cycle[0]]["layer"])
    if not results:
        problem("the graph has no Result layer, so it has no outputs")
    return g, problems


def _position(ports: list, port_id: int, tables: dict) -> int | None:
    """The position of the first port with id ``port_id``: a scan of a few ports, a dict for
    more (``tables``, made once per port list), so that a layer with 100000 ports does not cost
    100000**2."""
    if len(ports) <= 8:
        for p in ports:
            if p.id == port_id:
                return p.index
        return None
    table = tables.get(id(ports))
    if table is None:
        table = tables[id(ports)] = {p.id: p.index for p in reversed(ports)}
    return table.get(port_id)


def _topological(g: Graph, nodes) -> list:
    """``nodes`` (closed under predecessors) in topological order, ties in XML order (a heap
    keyed by position); nodes on or after a cycle are left out."""
    pending = {n: len({u for u, _ in g.ins[n].values()}) for n in nodes}
    heap = [(g.nodes[n]["layer"].position, n) for n, k in pending.items() if k == 0]
    heapq.heapify(heap)
    order = []
    while heap:
        _, u = heapq.heappop(heap)
        order.append(u)
        for v in dict.fromkeys(v for v, _, _ in g.outs[u]):
            if v in pending:
                pending[v] -= 1
                if pending[v] == 0:
                    heapq.heappush(heap, (g.nodes[v]["layer"].position, v))
    return order


def _cycle(g: Graph) -> list:
    """The layers of one cycle, in edge order (empty when the graph is acyclic)."""
    left = set(g.nodes) - set(g.order or ())
    if not left:
        return []
    start = next(n for n in g.nodes if n in left)
    path, on_path, seen = [start], {start: 0}, {start}
    stack = [iter([v for v, _, _ in g.outs[start] if v in left])]
    while stack:                           # depth-first: every node left is on or before a cycle
        v = next(stack[-1], None)
        if v is None:
            stack.pop()
            on_path.pop(path.pop())
            continue
        if v in on_path:
            return path[on_path[v]:]
        if v in seen:
            continue
        seen.add(v)
        on_path[v] = len(path)
        path.append(v)
        stack.append(iter([w for w, _, _ in g.outs[v] if w in left]))
    return []


def of_roles(g: Graph, roles: tuple) -> list:
    """The layers whose op's role (``Op.role``) is in ``roles``, in XML order."""
    return sorted((n for r in dict.fromkeys(roles) for n in g.by_role.get(r, ())),
                  key=lambda n: g.nodes[n]["layer"].position)


def sinks(g: Graph) -> list:
    """Result and Assign layers in XML order: the roots OpenVINO keeps the graph alive from."""
    from ..types.tensor_info import Role
    return of_roles(g, (Role.RESULT, Role.VARIABLE_WRITE))


def ancestors(g: Graph, nodes) -> set:
    """The layers some of ``nodes`` depend on (``nodes`` not included unless on a cycle)."""
    found: set = set()
    todo = [u for n in nodes for u, _ in g.ins[n].values()]
    while todo:
        u = todo.pop()
        if u not in found:
            found.add(u)
            todo.extend(w for w, _ in g.ins[u].values())
    return found


def descendants(g: Graph, n) -> set:
    """The layers that depend on ``n``."""
    found: set = set()
    todo = [v for v, _, _ in g.outs[n]]
    while todo:
        v = todo.pop()
        if v not in found:
            found.add(v)
            todo.extend(w for w, _, _ in g.outs[v])
    return found


def live_nodes(g: Graph) -> set:
    """The layers that feed a Result or Assign (those layers included)."""
    roots = sinks(g)
    return ancestors(g, roots) | set(roots)


def live_order(g: Graph) -> list:
    """Topological order (ties in XML order) of the layers that feed a Result or Assign.

    OpenVINO silently drops the other layers (ir-format.md §5), so they are neither run nor
    shape-checked (the checker lists them as a warning).
    """
    live = live_nodes(g)
    if g.order is not None and len(g.order) == len(g):
        return [n for n in g.order if n in live]    # what Kahn's algorithm gives on them alone
    return _topological(g, live)


def inputs_of(g, n) -> list[tuple]:
    """``[(producer, src_port)]`` ordered by the consumer's input port index, for a
    :class:`Graph` or a networkx MultiDiGraph of the same form (``Model.graph``)."""
    if isinstance(g, Graph):
        return list(g.inputs(n))
    table = _INPUTS_OF.get(g)
    if table is None:
        ins: dict = {v: [] for v in g}
        for u, v, k, d in g.edges(keys=True, data=True):
            ins[v].append((k, u, d["src_port"]))
        table = _INPUTS_OF[g] = {v: [(u, sp) for _, u, sp in sorted(es)] for v, es in ins.items()}
    return list(table.get(n, ()))


_INPUTS_OF: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
