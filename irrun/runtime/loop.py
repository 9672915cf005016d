"""The one loop every run goes through (:func:`execute`), kept to what a layer needs beyond its
kernel: a bound method, prepared keyword arguments, O(1) output checks where the plan proved the
shapes static, a plan's values set before the loop — ports numbered into slots
(:func:`irrun.runtime.plan.number`) — and the run's live-memory account.

Observation (dump, stop-at, profile, compare and accuracy capture) is not a second loop: it is
an optional ``observe`` callable (:mod:`irrun.runtime.observation`), as torch.fx's ``Interpreter``
runs one loop that analyses hook into. Absent, it costs one ``is not None`` test per step; present,
the loop times each step and shows it to the observer, which may replace its outputs. What the
observer sees is the plan's choice (:attr:`irrun.runtime.plan.Plan.every_layer`).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from time import perf_counter
from typing import TYPE_CHECKING, cast

import numpy as np

from ..analysis.contract import check_outputs, outputs_fit, outputs_match, raise_failure, run_checked
from ..errors import LayerRef
from ..limits import memory as budget
from ..limits import threads
from ..ops._numerics import quiet_run
from . import heap
from .plan import Plan
from .step import OP, PARAM, RESULT, Step

if TYPE_CHECKING:
    from .observation import Observer



@dataclass
class RunContext:
    """What one run shares beyond the arrays, handed to the ops with ``uses_context``: the
    values the model's variables hold (ReadValue reads them) and this run's writes (Assign), which
    the model keeps only when the whole run succeeds — like OpenVINO, a ReadValue sees the value
    of the previous run even when an Assign of the same variable ran before it."""

    values: dict[str, np.ndarray] = field(default_factory=dict)
    writes: dict[str, np.ndarray] = field(default_factory=dict)

    def read(self, variable_id: str) -> np.ndarray | None:
        """The variable's value, or None when it is unset (never written, or reset)."""
        return self.values.get(variable_id)

    def write(self, variable_id: str, value: np.ndarray) -> None:
        self.writes[variable_id] = value


def execute(plan: Plan, feeds: dict, file: str | None = None, observe: Observer | None = None,
            ctx: RunContext | None = None) -> dict:
    """Run the plan; ``feeds`` maps Parameter node -> array. Returns Result node -> array.
    ``ctx`` reaches the ops that use it (variables; sub-graph bodies run with the same one).
    ``observe(step, inputs, outputs, seconds)`` is called after every step the plan's loop
    runs; layers write in place (``Step.inplace``) unless it keeps the arrays it is shown (its
    ``keeps_arrays`` attribute, true when absent): a kept array must not change later."""
    heap.keep()
    try:
        with quiet_run():                   # one errstate for every kernel (ops/_numerics.py)
            return run(plan, feeds, file, ctx, budget.current(), budget.live(), observe)
    finally:
        if threads.blas_now() != threads.ALL:       # (a small product ran last: BLAS as it was)
            threads.use_blas(threads.ALL)


def run(plan: Plan, feeds: dict, file: str | None, ctx: RunContext | None, limit: int,
        live: budget.Live | None, observe: Observer | None = None) -> dict:
    """The loop (see the module doc); ``live`` is the run's account (bodies included), None
    outside a :func:`irrun.limits.memory.live_scope`."""
    results = {}
    env = list(plan.initial)
    counted = [0] * len(env)                # slot -> bytes its array owns (the live account)
    ndarray = np.ndarray
    in_place = observe is None or not getattr(observe, "keeps_arrays", True)
    t0 = 0.0
    op_step, param_step, result_step = OP, PARAM, RESULT     # (locals: read at every step)
    strings = plan.strings                  # (else no output's dtype needs looking at: ~70 ns a layer)
    # the set variables (a view: this run's writes go to ctx.writes); an observer sees every step
    held = ctx.values.keys() if ctx is not None and observe is None else None
    args: Sequence[np.ndarray]
    outs: Sequence[np.ndarray]
    for s in plan.loop:
        if observe is not None:
            t0 = perf_counter()
        kind = s.kind
        if kind is op_step and s.unless is not None and held is not None and s.unless <= held:
            args, outs = (), s.nones        # a variable's initial value, not needed: it is set
        elif kind is op_step:
            args = s.fetch(env)
            if s.blas is not None and s.blas != threads.blas_now():
                threads.use_blas(s.blas)
            if s.hi > limit and s.guard:
                guard(s, args, limit, file)
            if s.slow:                      # constant math (irrun/analysis/constant_precision.py) or a context
                kw = dict(s.kw)
                if s.into is not None and in_place:
                    kw["out"] = env[s.into]
                outs = run_checked(s.op, args, s.infos, s.ref, file, ctx=ctx, kwargs=kw,
                                   expect=s.expect, constant=s.constant, specs=s.specs)
            else:
                try:
                    if s.into is not None and in_place:
                        outs = s.call(*args, out=env[s.into], **s.kw)
                    else:
                        outs = s.call(*args, **s.kw)
                except Exception as e:
                    raise_failure(e, file, s.ref)
                if not (outputs_match(outs, s.expect) if s.expect is not None
                        else outputs_fit(outs, s.specs)):
                    outs = check_outputs(outs, s.infos, s.ref, file)
        elif kind is param_step:
            args = ()
            outs = (feeds[s.node],)
        elif kind is result_step:
            args = (env[s.ins[0]],)
            results[s.node] = args[0]
            outs = ()
        else:                               # CONST: only in a plan that shows every layer
            args = s.fetch(env)
            outs = s.values
        if observe is not None:
            replaced = observe(s, list(args), list(outs), perf_counter() - t0)
            if replaced is not None:
                outs = replaced
        if live is None:
            for i, j in s.slots:
                env[j] = outs[i]
            for j in s.drop:
                env[j] = None
            continue
        total = live.total
        for i, j in s.slots:
            a = env[j] = outs[i]
            if type(a) is ndarray and a.base is None and a.flags.writeable:   # it owns its bytes
                n = counted[j] = a.nbytes if not strings or a.dtype.kind != "T" else budget.string_bytes(a)
                total += n
        peak = total
        if s.into is not None and outs and env[s.into] is outs[0]:
            peak -= counted[s.into]         # the output took that input's buffer: counted twice
        for j in s.drop:
            env[j] = None
            total -= counted[j]
            counted[j] = 0
        live.total = total
        if peak > limit:
            raise budget.MemoryBudgetError(budget.over_message("the run's live tensors", peak, limit),
                                           file=file, layer=s.ref)
    return results


def guard(s: Step, args: Sequence[np.ndarray], limit: int, file: str | None) -> None:
    """Before a layer whose op allocates no more elements than its largest input holds
    (``Op.allocation == "inputs"``) runs where shape inference could not bound its output."""
    most = 0                    # (a plain loop: ~0.2 us where max() over a generator took ~0.7, at
    for a in args:              # every such layer of a decoder's token; None: a skipped init)
        if a is not None and a.size > most:
            most = a.size
    most *= s.guard
    if most > limit:
        raise budget.MemoryBudgetError(budget.over_message(f"the output (up to {most // s.guard} "
                                                           "elements)", most, limit),
                                       file=file, layer=cast(LayerRef, s.ref), port="output 0")
