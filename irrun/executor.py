"""Run a graph on NumPy arrays: a loop over a precomputed plan, readable at a glance.

The plan is built once per (graph, inferred types): for each live layer in topological order, the
ports it reads, its op, and which of its inputs it is the last reader of. ``run`` then only moves
arrays between an environment dict and the kernels, checks each result against the inferred port
(:func:`irrun.contract.run_checked`), uses values already folded by shape inference, and drops
every intermediate after its last consumer.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import networkx as nx
import numpy as np

from .contract import run_checked
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
        steps.append(Step(n, kind, ops.get(n), reads, infos, [], layer.ref))
    for step in steps:
        step.keep = [i for i in range(len(step.infos)) if (step.node, i) in readers]
    seen: set = set()
    for step in reversed(steps):           # the last reader of a port frees it
        for r in step.reads:
            if r not in seen:
                seen.add(r)
                step.frees.append(r)
    return steps


def execute(steps: list[Step], feeds: dict, file: str | None = None) -> dict:
    """Run the plan; ``feeds`` maps Parameter node -> array. Returns Result node -> array."""
    env: dict[tuple, np.ndarray] = {}
    results = {}
    for s in steps:
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
        for i in s.keep:
            env[(s.node, i)] = outs[i]
        for r in s.frees:
            env.pop(r, None)
    return results
