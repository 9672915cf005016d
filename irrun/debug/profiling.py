"""Profiling over several runs (``irrun MODEL.xml --profile``), and random inputs for it.

One run's per-layer times move by tens of percent (caches, the BLAS thread pool, other processes),
so a single run names a different "slowest layer" each time. :func:`profile` runs ``warmup``
untimed runs (first-run costs: plans, page faults, lazy imports), then ``iterations`` timed runs
with the same inputs, and reports per layer and per op type the **median** of the runs and the
spread (min and max). The layer times come from :class:`irrun.debug.Trace`, the same observer
as ``--dump``.

Random inputs (``--random-inputs``, like benchmark_app without input files): seeded
(``numpy.random.default_rng(seed)``), one array per input the user did not give:

* dims: a static dim is itself; an interval ``lo..hi`` takes ``max(lo, 1)`` (not above ``hi``);
  an unbounded dim (``?``, ``2..``) takes ``max(lo, 1)``; a dynamic rank is refused (give that
  input with ``--input``);
* values: floats uniform in [-1, 1); integers uniform in [0, 8) (small, so that index-like inputs
  stay valid on small dims); booleans uniform; strings are refused.
"""
from __future__ import annotations

import json
import statistics
from dataclasses import dataclass

import numpy as np

from ..errors import InputError

# ---------------------------------------------------------------------------------------------
# Random inputs

def random_shape(name: str, shape) -> tuple[int, ...]:
    """The concrete shape a random input takes for a declared PartialShape (see module doc)."""
    if shape.dims is None:
        raise InputError(f'input "{name}" has a dynamic rank; give it with --input NAME=FILE.npy')
    return tuple(d.lo if d.lo == d.hi else (max(d.lo, 1) if d.hi is None else min(max(d.lo, 1), d.hi))
                 for d in shape.dims)


def random_array(name: str, etype, shape: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
    dtype = etype.dtype
    if dtype is None or etype.name == "string":
        raise InputError(f'input "{name}" is {etype}: irrun makes no random values of that type; '
                         "give it with --input NAME=FILE.npy")
    if np.dtype(dtype) == np.bool_:
        return rng.integers(0, 2, shape).astype(np.bool_)
    if np.issubdtype(np.dtype(dtype), np.integer):
        return rng.integers(0, 8, shape).astype(dtype)
    return rng.uniform(-1.0, 1.0, shape).astype(dtype)


def random_inputs(model, given: dict[str, np.ndarray] | None = None, seed: int = 0) -> dict[str, np.ndarray]:
    """``given`` plus a random array for every input of ``model`` not in it (checked against the
    memory budget before it is made)."""
    from ..limits import memory as budget

    rng = np.random.default_rng(seed)
    feeds = dict(given or {})
    have = {model.find_input(k) for k in feeds}
    for p in model.inputs:
        if p.node in have:
            continue
        shape = random_shape(p.name, p.shape)
        why = budget.refusal(shape, p.etype.dtype, f'the random input "{p.name}"', budget.current()) \
            if p.etype.dtype is not None else None
        if why:
            raise budget.MemoryBudgetError(why, file=model.path)
        feeds[p.name] = random_array(p.name, p.etype, shape, rng)
    return feeds


# ---------------------------------------------------------------------------------------------
# Profiling

@dataclass
class LayerTimes:
    id: int
    name: str
    op: str
    inputs: list
    outputs: list
    seconds: list[float]

    @property
    def median(self) -> float:
        return statistics.median(self.seconds)


@dataclass
class Profile:
    """Per-layer times of ``iterations`` runs after ``warmup`` untimed ones."""

    iterations: int
    warmup: int
    layers: list[LayerTimes]            # executed op layers, in execution order
    totals: list[float]                 # each run's sum of layer times
    folded: list[str]                   # op types folded before running
    outputs: dict[str, np.ndarray]

    def by_op(self) -> dict[str, tuple[int, float]]:
        """op -> (layers, median over runs of the op's total time), slowest first."""
        agg: dict[str, list] = {}
        for r in self.layers:
            agg.setdefault(r.op, [0, [0.0] * self.iterations])
            agg[r.op][0] += 1
            agg[r.op][1] = [a + b for a, b in zip(agg[r.op][1], r.seconds, strict=True)]
        rows = {op: (n, statistics.median(v)) for op, (n, v) in agg.items()}
        return dict(sorted(rows.items(), key=lambda kv: -kv[1][1]))

    def to_json(self) -> dict:
        return {
            "iterations": self.iterations, "warmup": self.warmup,
            "total_ms": {"median": _ms(statistics.median(self.totals)), "min": _ms(min(self.totals)),
                         "max": _ms(max(self.totals))},
            "layers": [{"id": r.id, "name": r.name, "op": r.op, "inputs": r.inputs, "outputs": r.outputs,
                        "median_ms": _ms(r.median), "min_ms": _ms(min(r.seconds)),
                        "max_ms": _ms(max(r.seconds))} for r in self.layers],
            "ops": [{"op": op, "layers": n, "median_ms": _ms(s)} for op, (n, s) in self.by_op().items()],
            "folded": self.folded,
        }

    def text(self, top: int = 10) -> str:
        from .tracing import shapes_text, short_name, table

        f = lambda s: f"{s * 1e3:.3f}"                                   # noqa: E731
        total = statistics.median(self.totals) or 1e-12
        rows = [("id", "name", "op", "inputs -> outputs", "median ms", "min", "max")]
        rows += [(str(r.id), short_name(r.name), r.op, f"{shapes_text(r.inputs)} -> {shapes_text(r.outputs)}",
                  f(r.median), f(min(r.seconds)), f(max(r.seconds))) for r in self.layers]
        out = table(rows, {0, 4, 5, 6})
        note = f"; {len(self.folded)} folded before running ({', '.join(dict.fromkeys(self.folded))})" \
            if self.folded else ""
        out.append(f"total: median {f(total)} ms (min {f(min(self.totals))}, max {f(max(self.totals))}) "
                   f"in {len(self.layers)} layers over {self.iterations} run{'s' * (self.iterations != 1)} "
                   f"after {self.warmup} warm-up{note}")
        if len(self.layers) > top:
            slow = sorted(self.layers, key=lambda r: -r.median)[:top]
            out += ["", f"slowest {top} (median)"] + table(
                [("id", "name", "op", "ms", "%")] +
                [(str(r.id), short_name(r.name), r.op, f(r.median), f"{100 * r.median / total:.1f}") for r in slow],
                {0, 3, 4})
        if self.layers:
            out += ["", "per op type (median of each run's total)"] + table(
                [("op", "layers", "ms", "%")] +
                [(op, str(n), f(s), f"{100 * s / total:.1f}") for op, (n, s) in self.by_op().items()],
                {1, 2, 3})
        return "\n".join(out)


def _ms(s: float) -> float:
    return round(s * 1e3, 4)


def profile(model, feeds, iterations: int = 5, warmup: int = 1, stop_at=None) -> Profile:
    """Run ``warmup`` + ``iterations`` times; per-layer times of the timed runs."""
    from .tracing import trace

    if iterations < 1 or warmup < 0:
        raise InputError(f"--iterations must be >= 1 and --warmup >= 0 (got {iterations}, {warmup})")
    for _ in range(warmup):
        model.run(feeds, stop_at=stop_at)
    runs = [trace(model, feeds, stop_at=stop_at, arrays=False) for _ in range(iterations)]
    first = [r for r in runs[0].layers if r.kind == "op"]
    layers = [LayerTimes(r.id, r.name, r.op, [list(s) for s in r.inputs], [list(s) for s in r.shapes], [])
              for r in first]
    for t in runs:
        ran = [r for r in t.layers if r.kind == "op"]
        for lt, r in zip(layers, ran, strict=True):     # the same plan every run: same layers
            lt.seconds.append(r.seconds)
    totals = [sum(r.seconds for r in t.layers if r.kind == "op") for t in runs]
    folded = [r.op for r in runs[0].layers if r.kind == "folded"]
    return Profile(iterations, warmup, layers, totals, folded, runs[-1].outputs)


def dumps(p: Profile) -> str:
    return json.dumps(p.to_json())
