"""One runnable graph — a model's or a sub-graph body's — with what is worth keeping across runs.

A :class:`Program` holds the graph, its ops, the live order, its Parameters and Results, its plans
(one per input signature, :func:`irrun.runtime.plan.plan`) and its *constants*: the values of the
layers that depend on no input (weight-decompression chains ``Const(u4/i8...) -> Convert ->
Subtract -> Multiply -> Reshape -> Convert``, with :mod:`irrun.analysis.constant_precision`'s rounding), computed once and
shared by every plan of the program. Only the *frontier* is kept — the constant ports a
non-constant layer reads — and only while their sum fits the memory budget
(:func:`irrun.limits.memory.current`); the rest is recomputed by every run, as before, with one warning.

A Gather that reads rows of such a table (an LLM's embedding) does not make it a frontier: the
plan replaces it by a :class:`RowGather`, which slices the compressed Consts at the picked rows and
runs the chain on those rows only — the op modules register what allows it in
:mod:`irrun.ops.fast_paths` (``ROWS``, ``ROW_GATHER``; a weight too big to keep is multiplied
block by block through ``WEIGHT_BLOCKS``), so nothing here names an op type.
"""
from __future__ import annotations

import warnings
from collections.abc import Callable

import numpy as np

from ..analysis import constant_precision as widen
from ..analysis.contract import run_checked
from ..analysis.graph import Graph, of_roles
from ..errors import IrrunError
from ..limits import memory as budget
from ..ops import fast_paths
from ..ops.base import Op
from ..types.shapes import PartialShape
from ..types.tensor_info import Role, TensorInfo
from .plan import Plan, cached_plan, plan
from .step import CONST, OP, Step

Port = tuple
#: Bytes of constants computed between two releases of the weight pages they were read from.
RELEASE_EVERY = 64 << 20


class Program:
    """The graph, ops (``op_errors`` for layers that have none), live ``order``, ``params`` and
    ``results`` (XML order), plans and constants of one model or body."""

    def __init__(self, g: Graph, ops: dict[int, Op], op_errors: dict[int, IrrunError],
                 order: list, file: str | None):
        self.g, self.ops, self.op_errors, self.order, self.file = g, ops, op_errors, order, file
        self.params = of_roles(g, (Role.PARAMETER,))
        self.results = of_roles(g, (Role.RESULT,))
        self.plans: dict[tuple, Plan] = {}
        self.constants: dict[Port, np.ndarray] = {}     # frontier port -> its value (read-only)
        self.constant_bytes = 0
        self._warned = False
        #: called after every ``RELEASE_EVERY`` bytes of constants computed: lets the kernel take
        #: back the compressed .bin pages they were computed from (irrun.ir.records.IRModel.release_pages)
        self.release: Callable[[], None] | None = None

    def plan(self, key: tuple, types: Callable[[], dict], order: list | None = None,
             every_layer: bool = False) -> Plan:
        """The cached plan for ``key`` (made from ``types()`` for ``order``, default: all live
        layers). Constant layers come from the program's constants, except in a plan that shows
        ``every_layer`` to an observer (:class:`irrun.runtime.plan.Plan`): debug runs see every
        layer computed."""
        if self.constant_bytes > budget.current():      # a smaller budget than they were made under
            self.constants.clear()
            self.constant_bytes = 0
            self.plans.clear()
        return cached_plan(self.plans, key + (not every_layer,), lambda: plan(
            self.g, self.order if order is None else order, self.ops, types(),
            None if every_layer else self._bake, every_layer))

    # -- constants ---------------------------------------------------------------------------
    def _bake(self, steps: list[Step]) -> list[Step]:
        by_node = {s.node: s for s in steps}
        fixed = set()                       # layers whose outputs depend on no input
        for s in steps:
            if s.kind in (CONST, OP) and not (s.kind is OP and s.op.uses_context) \
                    and all(u in fixed for u, _ in s.reads):
                fixed.add(s.node)
        todo = {s.node for s in steps if s.kind is OP and s.node in fixed}
        if not todo:
            return self._prepare(steps)
        readers: dict[Port, list[Step]] = {}
        for s in steps:
            for r in s.reads:
                readers.setdefault(r, []).append(s)
        fused, blocked = {}, {}             # node -> chain (RowGather) / (input, chain) (RowBlocks)
        for s in steps:
            if s.kind is not OP or s.node in todo or not s.reads:
                continue
            infos = [by_node[u].infos[p] for u, p in s.reads]
            gather = fast_paths.lookup(fast_paths.ROW_GATHER, s.op)
            if s.reads[0][0] in todo and gather is not None and gather.applies(s.op, infos):
                if (chain := _chain(s.reads[0], by_node, todo, readers)) is not None:
                    fused[s.node] = chain
                    continue
            blocks = fast_paths.lookup(fast_paths.WEIGHT_BLOCKS, s.op)
            k = blocks.weight_input(s.op, infos) \
                if blocks is not None and all(i is not None for i in infos) else None
            if k is not None and s.reads[k][0] in todo \
                    and (chain := _chain(s.reads[k], by_node, todo, readers)) is not None:
                blocked[s.node] = (k, chain)
        skipped = {(n, 0) for n in fused} | {(n, k) for n, (k, _) in blocked.items()}
        frontier = [r for s in steps if s.node not in todo for k, r in enumerate(s.reads)
                    if r[0] in todo and (s.node, k) not in skipped]
        frontier += [p for _, ext in fused.values() for p, _ in ext if p[0] in todo]
        frontier += [p for _, (_, ext) in blocked.values() for p, _ in ext if p[0] in todo]
        weights = {by_node[n].reads[k] for n, (k, _) in blocked.items()}
        frontier += list(weights)
        # first what only a whole recomputation could give, then weights that can come in blocks
        self._cache(sorted(dict.fromkeys(frontier), key=lambda p: p in weights), by_node, steps)
        per_run = [p for p in frontier if p not in self.constants and p not in weights]
        for node, (chain, ext) in list(fused.items()):
            if any(p[0] in todo and p not in self.constants for p, _ in ext):
                del fused[node]             # over the budget: the Gather reads the table per run
                per_run.append(by_node[node].reads[0])
        for node, (k, (chain, ext)) in list(blocked.items()):
            w = by_node[node].reads[k]
            if w in self.constants or any(p[0] in todo and p not in self.constants for p, _ in ext):
                del blocked[node]           # kept whole, or its chain needs what was not kept
                per_run.append(w)
        recomputed = _ancestors([p for p in per_run if p not in self.constants], by_node, todo,
                                self.constants)
        out = []
        for s in steps:
            if s.node in fused:
                chain, ext = fused[s.node]
                rows = ChainRows(chain, {(p, sl): self._value(p, by_node) for p, sl in ext}, self.file)
                s = Step(s.node, OP, RowGather(s.op, rows), s.reads[1:], s.infos, [], s.ref)
            elif s.node in blocked:
                k, (chain, ext) = blocked[s.node]
                rows = ChainRows(chain, {(p, sl): self._value(p, by_node) for p, sl in ext}, self.file)
                s = Step(s.node, OP, RowBlocks(s.op, rows), s.reads[:k] + s.reads[k + 1:],
                         s.infos, [], s.ref)
            elif s.node in todo and s.node not in recomputed:
                cached = [(s.node, i) in self.constants for i in range(len(s.infos))]
                if not any(cached):
                    continue                # an intermediate: nobody needs it any more
                s = Step(s.node, CONST, s.op, [], [
                    TensorInfo(i.etype, i.shape, self.constants[(s.node, k)]) if c and i is not None else i
                    for k, (i, c) in enumerate(zip(s.infos, cached))], [], s.ref)
            out.append(s)
        return self._prepare(out)

    def _prepare(self, steps: list[Step]) -> list[Step]:
        """Layers that run faster on a constant input in another layout (``fast_paths.PREPARED``):
        each reads its own copy — made once, kept in the constants while the budget allows, under
        the key (producer, port, reader) — from a CONST step of its own, when the input is a
        Const's value that no other layer reads (one copy, never two: the Const's value is a view
        of the .bin). Outputs are the same bits (the rule's promise)."""
        by_node = {s.node: s for s in steps}
        readers: dict[Port, int] = {}
        for s in steps:
            for r in s.reads:
                readers[r] = readers.get(r, 0) + 1
        out = []
        for s in steps:
            rule = fast_paths.lookup(fast_paths.PREPARED, s.op) if s.kind is OP else None
            chosen = rule.prepare(s.op, [by_node[u].infos[p] for u, p in s.reads], s.infos) \
                if rule is not None and all(u in by_node for u, _ in s.reads) else None
            if chosen is not None:
                k, op, make = chosen
                u, p = port = s.reads[k]
                info = by_node[u].infos[p]
                key = (u, p, s.node)
                if by_node[u].kind is CONST and readers[port] == 1 and info is not None \
                        and info.value is not None and key not in self.constants:
                    if self.constant_bytes + info.value.nbytes <= budget.current():
                        value = make(info.value)
                        value.flags.writeable = False       # shared by every run
                        self.constants[key] = value
                        self.constant_bytes += value.nbytes
                if key in self.constants:
                    value = self.constants[key]
                    out.append(Step(key, CONST, by_node[u].op, [], [TensorInfo(
                        info.etype, PartialShape(value.shape), value)], [], by_node[u].ref))
                    s = Step(s.node, OP, op, s.reads[:k] + [(key, 0)] + s.reads[k + 1:], s.infos,
                             [], s.ref)
            out.append(s)
        return out

    def _value(self, p: Port, by_node: dict) -> np.ndarray:
        v = self.constants.get(p)
        return v if v is not None else by_node[p[0]].infos[p[1]].value

    def _cache(self, frontier: list[Port], by_node: dict, steps: list[Step]) -> None:
        """Compute the frontier ports that are not cached yet and fit the budget."""
        limit, want, skipped = budget.current(), [], 0
        for u, i in frontier:
            if (u, i) in self.constants:
                continue
            info = by_node[u].infos[i]
            size = budget.nbytes(info.shape.to_tuple(), info.etype.dtype) \
                if info is not None and info.shape.is_static and info.etype.dtype is not None else None
            if size is not None and self.constant_bytes + size <= limit:
                want.append((u, i))
                self.constant_bytes += size
            elif size is not None:          # (a size known only from the values: per run, quietly)
                skipped += 1
        if skipped and not self._warned:
            self._warned = True
            warnings.warn(f"{self.file}: {skipped} constant tensor(s) do not fit the memory budget "
                          f"of {budget.human(limit)} beside the {budget.human(self.constant_bytes)} "
                          "kept; they are recomputed on every run, weights block by block (slower)",
                          RuntimeWarning, stacklevel=2)
        if not want:
            return
        need = _ancestors(want, by_node, set(by_node), {})
        order = [s for s in steps if s.node in need and s.kind is OP]
        last = {r: s.node for s in order for r in s.reads}
        env: dict[Port, np.ndarray] = {}
        wanted = set(want)
        made = 0
        for s in order:
            args = [env[r] if r in env else self._value(r, by_node) for r in s.reads]
            # outputs not kept feed constant layers only: no rounded copy (irrun/analysis/constant_precision.py)
            outs = run_checked(s.op, args, s.infos, s.ref, self.file, constant=True,
                               rounded=any((s.node, k) in wanted for k in range(len(s.infos))))
            for k, a in enumerate(outs):
                env[(s.node, k)] = a
                if (s.node, k) in wanted:
                    a.flags.writeable = False       # shared by every run: never written in place
                    self.constants[(s.node, k)] = a
                    made += a.nbytes
            if made >= RELEASE_EVERY and self.release is not None:
                self.release()
                made = 0
            for r in s.reads:
                if last.get(r) == s.node and r not in wanted:
                    env.pop(r, None)
        if self.release is not None:
            self.release()


def _ancestors(ports: list[Port], by_node: dict, within: set, stop: dict) -> set:
    """The layers in ``within`` that computing ``ports`` runs (stopping at ports in ``stop``)."""
    need: set = set()
    todo = [p for p in ports if p not in stop]
    while todo:
        u, _ = todo.pop()
        if u in need or u not in within:
            continue
        need.add(u)
        todo.extend(r for r in by_node[u].reads if r not in stop)
    return need


def _chain(table: Port, by_node: dict, todo: set, readers: dict):
    """The constant layers the ``table`` port is computed from row by row, in plan order, and
    the ports they read from outside ((port, sliced) pairs); None when the table's last layer
    cannot compute rows. (Ports inside the chain have no other reader; the table may have.)"""
    chain: list[tuple[Step, tuple[bool, ...], fast_paths.Rows]] = []
    ext: list[tuple[Port, bool]] = []

    def visit(port: Port, sliced: bool) -> None:
        s = by_node[port[0]]
        rows, rule = None, fast_paths.rows_rule(s.op)
        if rule is not None and sliced and s.node in todo \
                and (port == table or len(readers.get(port, ())) == 1) and len(s.infos) == 1:
            rows = rule.rows_of(s.op, [by_node[u].infos[p] for u, p in s.reads], s.infos)
        if rule is None or rows is None or len(rows) != len(s.reads):
            ext.append((port, sliced))
            return
        chain.append((s, rows, rule))
        for r, sl in zip(s.reads, rows):
            visit(r, sl)

    visit(table, True)
    if not chain:
        return None
    index = {n: k for k, n in enumerate(by_node)}
    chain.sort(key=lambda c: index[c[0].node])
    return chain, list(dict.fromkeys(ext))


class ChainRows:
    """Rows of a constant table computed from the rows of its compressed inputs only: the
    ``chain`` of :func:`_chain` run on ``rows`` (an index array or a slice) of the ``values`` of
    its sliced outside ports (whole for the others); a layer without inputs gives its rows
    itself (``Rows.take_rows``: a packed Const unpacks only those)."""

    def __init__(self, chain: list[tuple[Step, tuple[bool, ...], fast_paths.Rows]], values: dict,
                 file: str | None):
        self.chain, self.values, self.file = chain, values, file
        table = chain[-1][0].infos[0]
        assert table is not None            # _chain: rows_of answered for a known output
        self.n_rows, self.row_shape, self.dtype = table.shape[0].lo, table.shape.to_tuple()[1:], table.etype.dtype

    def __call__(self, rows: "np.ndarray | slice", k: int) -> np.ndarray:
        env = {key: widen.take(v, rows) if key[1] else v for key, v in self.values.items()}
        last = self.chain[-1][0]
        for s, flags, rule in self.chain:
            info = s.infos[0]
            assert info is not None         # (as the table's)
            row_info = TensorInfo(info.etype, PartialShape((k,) + info.shape.to_tuple()[1:]))
            if not s.reads:
                assert rule.take_rows is not None       # (rows_of gave (): it takes rows itself)
                out = rule.take_rows(s.op, rows)
            else:
                args = rule.row_args(s.op, [env[(r, sl)] for r, sl in zip(s.reads, flags)], k,
                                     row_info.shape.to_tuple()[1:])
                out, = run_checked(s.op, args, [row_info], s.ref, self.file, constant=True,
                                   rounded=s is last)    # the others feed the chain only
            env[((s.node, 0), True)] = out
        return env[((self.chain[-1][0].node, 0), True)]


class _OnRows(Op):
    """The op of a layer that reads its constant input as :class:`ChainRows` (named as ``op``)."""

    fresh_outputs = True
    allocation = "checked"

    def __init__(self, op: Op, rows: ChainRows):
        super().__init__()
        self.type, self.version, self.op, self.rows = op.type, op.version, op, rows


class RowGather(_OnRows):
    """A row-gathering op (``fast_paths.ROW_GATHER``) whose table is a constant chain computed
    row-wise: runs the chain on the picked rows of its compressed inputs only. Reads the op's
    inputs after the table (indices, axis)."""

    def __init__(self, op: Op, rows: ChainRows):
        super().__init__(op, rows)
        rule = fast_paths.lookup(fast_paths.ROW_GATHER, op)
        assert rule is not None             # (Program._bake asked it)
        self.rule = rule

    def run(self, indices, *rest):
        budget.check_alloc(indices.shape + self.rows.row_shape, self.rows.dtype)
        return [self.rule.gather(self.op, lambda r: self.rows(r, len(r)), self.rows.n_rows, indices)]


class RowBlocks(_OnRows):
    """An op reading a constant too big to keep (``fast_paths.WEIGHT_BLOCKS``: a compressed LLM
    weight under a small budget): the op multiplies it block by block, each block of rows
    decompressed from the compressed inputs when it is needed and dropped after. Reads the op's
    other inputs, in order."""

    def __init__(self, op: Op, rows: ChainRows):
        super().__init__(op, rows)
        rule = fast_paths.lookup(fast_paths.WEIGHT_BLOCKS, op)
        assert rule is not None             # (Program._bake asked it)
        self.rule = rule

    def run(self, *others):
        return self.rule.run(self.op, lambda a, b: self.rows(slice(a, b), b - a), self.rows.n_rows,
                             *others)
