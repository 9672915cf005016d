"""How much error each layer *adds*, and how much it only passes on.

For each candidate layer whose output matches a reference port (:mod:`irrun.debug.accuracy.match`):

* **total** error: the candidate's output against the reference's — everything upstream
  included;
* **added** error: the candidate layer run again on the *reference's* inputs (its own weights:
  the compressed chain, the FakeQuantize ranges; unmatched layers between it and its matched
  inputs, such as an activation FakeQuantize, run again too) against the reference output. With
  identical inputs, only what this layer does differently shows: a layer whose weights were
  compressed adds error, an Add downstream of it adds none though its total error is large;
* **inherited** error: the largest total error among its activation inputs.

Under a simulated precision the reference's inputs are first stored at that precision (as the
candidate's producers store them) and the added error is the rounding of the layer's own output
(an overflow included) — a Reshape of a rounded tensor adds nothing, a Multiply that leaves f16's
range adds inf — while what the layer makes of its inputs' rounding is inherited. Stateful layers
(ReadValue) add nothing by definition: what they read is what earlier steps inherited. Everything
accumulates over the steps of a sequence.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ...analysis.contract import run_checked
from ...analysis.graph import inputs_of
from ...io.progress import Progress, waiting
from ...runtime.step import OP
from ..tracing import type_version
from .capture import Recording, record
from .match import Matching, match
from .metrics import ErrorStats, comparable, worst
from .nonfinite import Finding, Watch
from .precision import Policy

MAX_RERUN_DEPTH = 8     # unmatched layers re-run between a layer and its matched inputs


@dataclass
class LayerError:
    node: int
    name: str
    op: str
    order: int                                   # position in the candidate's execution order
    ref_node: int
    ref_name: str
    total: dict = field(default_factory=dict)    # port -> ErrorStats
    added: dict = field(default_factory=dict)
    inputs: list = field(default_factory=list)   # candidate activation ports it reads (resolved)
    rerun: bool = True                           # False: stateful, added error is 0 by definition
    floating: bool = False                       # some matched output is a float tensor

    @property
    def total_worst(self) -> ErrorStats:
        return worst(list(self.total.values()))

    @property
    def added_worst(self) -> ErrorStats:
        return worst(list(self.added.values())) if self.rerun else ErrorStats()


@dataclass
class Result:
    candidate: str
    reference: str
    precision: str | None
    steps: int
    matching: Matching
    layers: dict = field(default_factory=dict)   # candidate layer id -> LayerError
    outputs: dict = field(default_factory=dict)  # output name -> ErrorStats
    first_nonfinite: Finding | None = None
    activation_layers: int = 0
    live: set = field(default_factory=set)       # the candidate's activation layers (Recording.live)

    def inherited(self, le: LayerError) -> ErrorStats:
        stats = [self.layers[u].total[(u, i)] for u, i in le.inputs
                 if u in self.layers and (u, i) in self.layers[u].total]
        return worst(stats)

    def ranking(self) -> list[LayerError]:
        """Layers by added error, largest first (ties: larger total error first)."""
        ranked = [le for le in self.layers.values() if le.rerun and le.added]
        return sorted(ranked, key=lambda le: (-le.added_worst.rel_l2, -le.added_worst.max_abs,
                                              -le.total_worst.rel_l2, le.order))


def compare_models(cand_model, ref_model, steps: list[tuple[dict, dict]], precision: str | None = None,
                   same_model: bool = False) -> Result:
    """Run both models over ``steps`` (pairs of feeds: candidate's, reference's; the models'
    state carries from step to step), the candidate at ``precision`` when given."""
    policy = Policy(cand_model, precision) if precision else None
    res = Result(str(cand_model.path), str(ref_model.path), precision, len(steps), Matching())
    watch = Watch()
    with waiting("running both models", total=len(steps)) as bar:
        res = _compare_steps(res, cand_model, ref_model, steps, policy, watch, same_model, bar)
    res.first_nonfinite = watch.first
    return res


def _compare_steps(res: Result, cand_model, ref_model, steps, policy, watch: Watch, same_model: bool,
                   bar: Progress) -> Result:
    matching: Matching | None = None
    for k, (cfeeds, rfeeds) in enumerate(steps):
        with np.errstate(all="ignore"):      # overflow and log(0) are what we look for
            ref, cand = _run_pair(ref_model, rfeeds, cand_model, cfeeds, policy, watch, k, same_model)
        bar.step(f"step {k + 1}")
        if matching is None:
            matching = res.matching = match(cand, ref, same_model)
            res.activation_layers = sum(cand.steps[n].kind is OP for n in cand.live)
            res.live = set(cand.live)
        with np.errstate(all="ignore"):
            _accumulate(res, cand, ref, matching, policy, k)
        for name, arr in cand.outputs.items():
            if name in ref.outputs and comparable(arr, ref.outputs[name]):
                res.outputs.setdefault(name, ErrorStats()).add(arr, ref.outputs[name])
    return res


def attribute_recordings(res: Result, cand: Recording, ref: Recording) -> Result:
    """Fill ``res`` from two recordings of the *same* model (e.g. irrun's run and the ports an
    OpenVINO device computed, :mod:`irrun.debug.accuracy.device`): every port paired with itself,
    each layer's added error being the candidate layer run on the reference's inputs."""
    res.matching = match(cand, ref, same_model=True)
    res.activation_layers = sum(cand.steps[n].kind == "op" for n in cand.live)
    res.live = set(cand.live)
    with np.errstate(all="ignore"):
        _accumulate(res, cand, ref, res.matching, None, 0)
    for name, arr in cand.outputs.items():
        if name in ref.outputs and comparable(arr, ref.outputs[name]):
            res.outputs.setdefault(name, ErrorStats()).add(arr, ref.outputs[name])
    return res


def _run_pair(ref_model, rfeeds, cand_model, cfeeds, policy, watch, k, same_model):
    ref = record(ref_model, rfeeds)
    if same_model:
        watch.reference = lambda n, p: ref.arrays.get((n, p))
    return ref, record(cand_model, cfeeds, policy, watch, k)


def _accumulate(res: Result, cand: Recording, ref: Recording, m: Matching, policy, k: int) -> None:
    model = cand.model
    g = model.dag
    rerun = _Rerun(cand, ref, m, policy)
    for pos, n in enumerate(cand.order):
        step = cand.steps[n]
        ports = [(n, i) for i in range(len(step.infos)) if (n, i) in m.pairs]
        if step.kind is not OP or n not in cand.live or not ports:
            continue
        le = res.layers.get(n)
        if le is None:
            layer = g.nodes[n]["layer"]
            rn = m.pairs[ports[0]][0]
            le = res.layers[n] = LayerError(n, layer.name, type_version(model, n), pos, rn,
                                            ref.model.dag.nodes[rn]["layer"].name,
                                            inputs=_activation_inputs(cand, m, n),
                                            rerun=not step.op.uses_context)
        local = rerun.outputs(n) if le.rerun else None
        rounded = None                               # precision: a layer kept in f32 adds 0
        if policy is not None and local is not None:
            rounded = policy.apply(step, local, True) or local
        for p in ports:
            c, r = cand.arrays.get(p), ref.arrays.get(m.pairs[p])
            if c is None or r is None or not comparable(c, r):
                continue
            le.floating |= c.dtype.kind == "f" or c.dtype.name.startswith("bfloat")
            le.total.setdefault(p, ErrorStats()).add(c, r)
            if rounded is not None and local is not None:   # precision: own rounding only
                le.added.setdefault(p, ErrorStats()).add(rounded[p[1]], local[p[1]])
            elif local is not None:
                le.added.setdefault(p, ErrorStats()).add(local[p[1]], r)


def _activation_inputs(cand: Recording, m: Matching, n, depth: int = 0) -> list:
    """The matched activation ports ``n`` reads, looking through unmatched producers."""
    out = []
    for r in inputs_of(cand.model.dag, n):
        if not cand.is_activation(r):
            continue
        if r in m.pairs or depth >= MAX_RERUN_DEPTH:
            out.append(r)
        else:
            out.extend(_activation_inputs(cand, m, r[0], depth + 1))
    return out


class _Rerun:
    """Candidate layers re-run on the reference's values (memoised per run), unrounded: the
    caller rounds the layer's own output under a precision policy."""

    def __init__(self, cand: Recording, ref: Recording, m: Matching, policy: Policy | None):
        self.cand, self.ref, self.m, self.policy = cand, ref, m, policy
        self.memo: dict = {}

    def outputs(self, n, depth: int = 0) -> list:
        if n in self.memo:
            return self.memo[n]
        step = self.cand.steps[n]
        args = []
        for r in step.reads:
            args.append(self._value(r, depth))
        outs = run_checked(step.op, args, step.infos, step.ref, str(self.cand.model.path),
                           expect=step.expect)
        self.memo[n] = outs
        return outs

    def _value(self, r, depth: int) -> np.ndarray:
        own = self.cand.arrays[r]
        if not self.cand.is_activation(r):
            return own                                   # the layer's own weights
        if r in self.m.pairs:
            theirs = self.ref.arrays.get(self.m.pairs[r])
            if theirs is None or theirs.shape != own.shape:
                return own
            theirs = theirs if theirs.dtype == own.dtype else theirs.astype(own.dtype)
            if self.policy is not None:                  # stored as the candidate stores it
                theirs = (self.policy.apply(self.cand.steps[r[0]], [theirs], True) or [theirs])[0]
            return theirs
        step = self.cand.steps[r[0]]
        if step.kind is OP and not step.op.uses_context and depth < MAX_RERUN_DEPTH:
            return self.outputs(r[0], depth + 1)[r[1]]  # e.g. a FakeQuantize on the matched input
        return own
