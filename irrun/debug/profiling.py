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
  ``shapes`` (``--shape NAME=DIMS``) gives an input's dims instead (they must fit its Parameter);
* values by what the input means, as benchmark_app and optimum-intel's exports name them (random
  integers in an attention mask made NaN in a converted BERT): an input named ``*mask*`` is ones;
  ``position_ids`` is ``0..n-1`` along its last dim, ``beam_idx`` ``0..n-1`` along its first;
  ``token_type_ids`` zeros; an integer input that reaches a Gather's indices (through Convert,
  Reshape, Squeeze, Unsqueeze) is uniform in ``[0, table size)``, the size read from that Gather's
  data along its axis (token ids below the embedding table's rows); other integers uniform in
  [0, 8) (small, so that index-like inputs stay valid on small dims); floats uniform in [-1, 1);
  booleans uniform; strings are refused.
"""
from __future__ import annotations

import json
import statistics
import time
from dataclasses import dataclass, field

import numpy as np

from ..errors import InputError, printable
from ..io.progress import progress

# ---------------------------------------------------------------------------------------------
# Random inputs

def random_shape(name: str, shape, given: tuple[int, ...] | None = None) -> tuple[int, ...]:
    """The concrete shape a random input takes for a declared PartialShape (see module doc);
    ``given`` (from ``--shape``) must fit it."""
    if given is not None:
        if not shape.accepts(given):
            raise InputError(f'--shape {printable(name)}={",".join(map(str, given))} does not fit the input, '
                             f"which the model declares {shape} (irrun reshape writes the IR for other static shapes)")
        return given
    if shape.dims is None:
        raise InputError(f'input "{printable(name)}" has a dynamic rank; give it with --input NAME=FILE.npy '
                         "or its dims with --shape NAME=DIMS")
    return tuple(d.lo if d.lo == d.hi else (max(d.lo, 1) if d.hi is None else min(max(d.lo, 1), d.hi))
                 for d in shape.dims)


def index_bound(model, node) -> int | None:
    """The size of the table Parameter ``node``'s values index (:func:`irrun.ops.gather.table_size`)."""
    from ..ops.gather import table_size
    return table_size(model.dag, model.types(), node)


def input_kind(names: list[str], etype) -> str:
    """What a model input means, from its names: "mask", "positions", "beams", "token_types" or ""."""
    low = [n.lower() for n in names]
    if etype.name == "string":
        return ""
    if any("mask" in n for n in low):
        return "mask"
    if any(n.endswith("position_ids") for n in low):
        return "positions"
    if any(n == "beam_idx" for n in low):
        return "beams"
    if any(n.endswith("token_type_ids") for n in low):
        return "token_types"
    return ""


def random_array(name: str, etype, shape: tuple[int, ...], rng: np.random.Generator, kind: str = "",
                 bound: int | None = None) -> np.ndarray:
    """One input's values (module doc): ``kind`` from :func:`input_kind`, ``bound`` from
    :func:`index_bound`."""
    dtype = etype.dtype
    if dtype is None or etype.name == "string":
        raise InputError(f'input "{printable(name)}" is {etype}: irrun makes no random values of that type; '
                         "give it with --input NAME=FILE.npy")
    if kind == "mask":
        return np.ones(shape, dtype)
    if kind == "token_types":
        return np.zeros(shape, dtype)
    if kind in ("positions", "beams") and shape:
        axis = len(shape) - 1 if kind == "positions" else 0
        along = np.arange(shape[axis]).reshape([-1 if i == axis else 1 for i in range(len(shape))])
        return np.broadcast_to(along, shape).astype(dtype)
    if np.dtype(dtype) == np.bool_:
        return rng.integers(0, 2, shape).astype(np.bool_)
    if np.issubdtype(np.dtype(dtype), np.integer):
        high = bound if bound else 8
        return rng.integers(0, min(high, int(np.iinfo(dtype).max) + 1), shape).astype(dtype)
    return rng.uniform(-1.0, 1.0, shape).astype(dtype)


def random_inputs(model, given: dict[str, np.ndarray] | None = None, seed: int = 0,
                  shapes: dict[str, tuple[int, ...]] | None = None,
                  notes: list[str] | None = None) -> dict[str, np.ndarray]:
    """``given`` plus a random array for every input of ``model`` not in it (checked against the
    memory budget before it is made). ``shapes``: dims for some of them (``--shape``); ``notes``
    collects one line per input whose dynamic dims were guessed, and what each input was made as."""
    from ..limits import memory as budget

    rng = np.random.default_rng(seed)
    feeds = dict(given or {})
    have = {model.find_input(k) for k in feeds}
    shapes = dict(shapes or {})
    for name in shapes:
        if model.find_input(name) in have:
            raise InputError(f'--shape sets the dims of a random input, but "{printable(name)}" is given with --input')
    for p in model.inputs:
        if p.node in have:
            continue
        wanted = next((v for k, v in shapes.items() if model.find_input(k) == p.node), None)
        shape = random_shape(p.name, p.shape, wanted)
        why = budget.refusal(shape, p.etype.dtype, f'the random input "{p.name}"', budget.current()) \
            if p.etype.dtype is not None else None
        if why:
            raise budget.MemoryBudgetError(why, file=model.path)
        kind = input_kind(list(p.names) or [p.name], p.etype)
        bound = index_bound(model, p.node) if not kind and p.etype.dtype is not None \
            and np.issubdtype(np.dtype(p.etype.dtype), np.integer) else None
        feeds[p.name] = random_array(p.name, p.etype, shape, rng, kind, bound)
        guessed = wanted is None and p.shape.dims is not None and any(d.lo != d.hi for d in p.shape.dims)
        if notes is not None and (kind or bound or guessed):
            what = {"mask": "ones", "positions": "0..n-1 along the last dim", "beams": "0..n-1",
                    "token_types": "zeros"}.get(kind) or (f"token ids in [0, {bound})" if bound else "random")
            notes.append(f'input "{printable(p.name)}": {p.etype}[{",".join(map(str, shape))}], {what}'
                         + (f" (dynamic dims {p.shape} taken as the smallest, at least 1: "
                            f"--shape {printable(p.name)}=DIMS sets them)" if guessed else ""))
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
    wall: list[float] = field(default_factory=list)   # each timed run's wall time (benchmark_app's latency)

    def latency(self) -> dict[str, float]:
        """benchmark_app's summary, in ms: median, average, min, max of the runs' wall times."""
        w = self.wall or self.totals
        return {"median": _ms(statistics.median(w)), "average": _ms(statistics.fmean(w)),
                "min": _ms(min(w)), "max": _ms(max(w))}

    def throughput(self) -> float:
        """Inferences per second, one at a time (as benchmark_app's sync mode): 1 / median latency."""
        med = statistics.median(self.wall or self.totals)
        return 1.0 / med if med > 0 else float("inf")

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
            "latency_ms": self.latency(), "throughput_per_s": round(self.throughput(), 3),
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
        lat = self.latency()
        out += ["", f"latency (wall time per run, {self.iterations} run{'s' * (self.iterations != 1)}): "
                    f"median {lat['median']:.3f} ms, average {lat['average']:.3f}, min {lat['min']:.3f}, "
                    f"max {lat['max']:.3f}",
                f"throughput: {self.throughput():.2f} inferences/s (one at a time: 1 / median latency)"]
        return "\n".join(out)


def _ms(s: float) -> float:
    return round(s * 1e3, 4)


def profile(model, feeds, iterations: int = 5, warmup: int = 1, stop_at=None) -> Profile:
    """Run ``warmup`` + ``iterations`` times; per-layer times of the timed runs."""
    from .tracing import trace

    if iterations < 1 or warmup < 0:
        raise InputError(f"--iterations must be >= 1 and --warmup >= 0 (got {iterations}, {warmup})")
    runs, wall = [], []
    with progress("profiling", total=warmup + iterations) as bar:
        for _ in range(warmup):
            model.run(feeds, stop_at=stop_at)
            bar.step("warm-up")
        for _ in range(iterations):
            start = time.perf_counter()
            runs.append(trace(model, feeds, stop_at=stop_at, arrays=False, progress=None))
            wall.append(time.perf_counter() - start)
            bar.step()
    first = [r for r in runs[0].layers if r.kind == "op"]
    layers = [LayerTimes(r.id, r.name, r.op, [list(s) for s in r.inputs], [list(s) for s in r.shapes], [])
              for r in first]
    for t in runs:
        ran = [r for r in t.layers if r.kind == "op"]
        for lt, r in zip(layers, ran, strict=True):     # the same plan every run: same layers
            lt.seconds.append(r.seconds)
    totals = [sum(r.seconds for r in t.layers if r.kind == "op") for t in runs]
    folded = [r.op for r in runs[0].layers if r.kind == "folded"]
    return Profile(iterations, warmup, layers, totals, folded, runs[-1].outputs, wall)


def dumps(p: Profile) -> str:
    return json.dumps(p.to_json())
