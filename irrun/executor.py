"""Run a graph on NumPy arrays: a loop over a precomputed plan, readable at a glance.

The plan is built once per (graph, inferred types): for each live layer in topological order, the
ports it reads, its op, and which of its inputs it is the last reader of. ``run`` then only moves
arrays between an environment dict and the kernels, checks each result against the inferred port
(:func:`irrun.contract.run_checked`), uses values already folded by shape inference, and drops
every intermediate after its last consumer.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from time import perf_counter

import networkx as nx
import numpy as np

from . import budget
from .contract import run_checked
from .errors import UnsupportedError
from .graph import inputs_of
from .ops.base import Op, TensorInfo


@dataclass
class Step:
    node: object
    kind: str                      # "param" | "result" | "const" (value known) | "op"
    op: Op
    reads: list[tuple]             # (producer, port) per input, in input order
    infos: list[TensorInfo | None]
    frees: list[tuple]             # ports whose last reader is this step
    ref: object
    keep: list[int] | None = None  # output ports somebody reads (others are dropped at once)
    need: tuple = (0, 0, ())       # (bytes, output port, dims) of its largest output's least size


def plan(g: nx.MultiDiGraph, order: list, ops: dict, types: dict) -> list[Step]:
    readers = Counter()
    steps = []
    for n in order:
        reads = inputs_of(g, n)
        readers.update(reads)
        layer = g.nodes[n]["layer"]
        infos = [types.get((n, i)) for i in range(len(layer.outputs))]
        t = layer.type.lower()
        kind = ("param" if t == "parameter" else "result" if t == "result" else
                "const" if infos and all(i is not None and i.value is not None for i in infos) else "op")
        steps.append(Step(n, kind, ops.get(n), reads, infos, [], layer.ref,
                          need=_least_shape(infos) if kind != "const" else (0, 0, ())))
    for step in steps:
        step.keep = [i for i in range(len(step.infos)) if (step.node, i) in readers]
    seen: set = set()
    for step in reversed(steps):           # the last reader of a port frees it
        for r in step.reads:
            if r not in seen:
                seen.add(r)
                step.frees.append(r)
    return steps


def _least_shape(infos: list[TensorInfo | None]) -> tuple[int, int, tuple[int, ...]]:
    """(bytes, port, dims) of the output whose smallest possible shape is largest; Consts are
    views of the mapped .bin and folded values are small, so those are not counted."""
    best = (0, 0, ())
    for i, info in enumerate(infos):
        if info is not None and info.value is None and info.shape.rank is not None:
            lo = tuple(d.lo for d in info.shape)
            n = budget.nbytes(lo, info.etype.dtype)
            if len(lo) > budget.NUMPY_MAXDIMS or budget.too_big_for_numpy(lo, info.etype.dtype):
                n = budget.NUMPY_MAX + 1
            best = max(best, (n, i, lo))
    return best


def check_memory(steps: list[Step], limit: int, file: str | None = None) -> None:
    """Before anything runs: refuse a plan in which some tensor must exceed ``limit`` bytes,
    naming the layer, the port and the bytes. Allocates nothing, so ``check`` works on any model."""
    for s in steps:
        if s.need[0] > limit:
            _, i, lo = s.need
            info = s.infos[i]
            if len(lo) > budget.NUMPY_MAXDIMS:
                raise UnsupportedError(f"the output has rank {len(lo)}; NumPy arrays have at most "
                                       f"{budget.NUMPY_MAXDIMS} dims", file=file, layer=s.ref,
                                       port=f"output {i}")
            what = "the output" + ("" if info.shape.is_static else f" (shape {info.shape}, at least)")
            raise budget.MemoryBudgetError(budget.refusal(lo, info.etype.dtype, what, limit),
                                           file=file, layer=s.ref, port=f"output {i}")


#: ``observe(step, inputs, outputs, seconds)``: called after every step (debug tools: dump,
#: profile, compare, stop-at). A Result step has no outputs; a "const" step took no time.
Observer = Callable[[Step, list, list, float], None]


def execute(steps: list[Step], feeds: dict, file: str | None = None,
            observe: Observer | None = None) -> dict:
    """Run the plan; ``feeds`` maps Parameter node -> array. Returns Result node -> array."""
    env: dict[tuple, np.ndarray] = {}
    results = {}
    for s in steps:
        t0 = perf_counter() if observe is not None else 0.0
        args = [env[r] for r in s.reads]
        if s.kind == "param":
            outs = [feeds[s.node]]
        elif s.kind == "result":
            results[s.node] = args[0]
            outs = []
        elif s.kind == "const":
            outs = [i.value for i in s.infos]
        else:
            outs = run_checked(s.op, args, s.infos, s.ref, file)
        if observe is not None:
            observe(s, args, outs, perf_counter() - t0)
        for i in s.keep:
            env[(s.node, i)] = outs[i]
        for r in s.frees:
            env.pop(r, None)
    return results
