"""The loop of every run without an observer (:func:`run`), kept to what a layer needs beyond its
kernel: a bound method, prepared keyword arguments, O(1) output checks where the plan proved the
shapes static, a plan's values set before the loop — and the ports numbered.

The plan and the observed loop (:func:`irrun.runtime.executor.execute` with ``observe``) key arrays by
port, ``(producer, output)``; here every port a run keeps has a slot in a list, numbered once per
plan (:func:`number`), so reading, keeping and freeing an array is a list index, not a tuple hash.
The live account is the observed loop's (``irrun.runtime.executor._account``), on slots: both decide the
same (tests/test_run_loop.py).
"""
from __future__ import annotations

from collections.abc import Sequence
from operator import attrgetter
from typing import TYPE_CHECKING, cast

import numpy as np

from ..analysis.contract import check_outputs, outputs_fit, outputs_match, raise_failure, run_checked
from ..errors import LayerRef
from ..limits import memory as budget

if TYPE_CHECKING:
    from .executor import Plan, RunContext, Step

_SIZE = attrgetter("size")


def number(preset: dict, loop: list[Step]) -> list:
    """Give every port a run keeps a slot: set each loop step's ``ins`` (its inputs' slots),
    ``slots`` ((output index, slot) per kept output), ``drop`` (the slots it is the last to
    read) and ``into`` (its in-place input's slot). Returns the slots' initial values: the
    plan's values (``preset``), None elsewhere."""
    slot = {p: k for k, p in enumerate(preset)}
    for s in loop:
        for _, p in s.puts:
            slot.setdefault(p, len(slot))
    for s in loop:
        s.ins = tuple(slot[r] for r in s.reads)
        s.slots = tuple((i, slot[p]) for i, p in s.puts)
        s.drop = tuple(slot[r] for r in s.frees)
        s.into = None if s.inplace is None else slot[s.inplace]
    return list(preset.values()) + [None] * (len(slot) - len(preset))


def run(plan: Plan, feeds: dict, file: str | None, ctx: RunContext | None, limit: int,
        live: budget.Live | None) -> dict:
    """Run ``plan`` (made by :func:`irrun.runtime.executor.link`); ``feeds`` maps Parameter node ->
    array. Returns Result node -> array."""
    results = {}
    env = list(plan.initial)
    counted = [0] * len(env)                # slot -> bytes its array owns (the live account)
    ndarray = np.ndarray
    outs: Sequence[np.ndarray]
    for s in plan.loop:
        kind = s.kind
        if kind == "op":
            args = [env[i] for i in s.ins]
            if s.hi > limit and s.guard:
                guard(s, args, limit, file)
            if s.slow:                      # constant math (irrun/analysis/constant_precision.py) or a context
                kw = dict(s.kw)
                if s.into is not None:
                    kw["out"] = env[s.into]
                outs = run_checked(s.op, args, s.infos, s.ref, file, ctx=ctx, kwargs=kw,
                                   expect=s.expect, constant=s.constant, specs=s.specs)
            else:
                try:
                    if s.into is not None:
                        outs = s.call(*args, out=env[s.into], **s.kw)
                    else:
                        outs = s.call(*args, **s.kw)
                except Exception as e:
                    raise_failure(e, file, s.ref)
                if not (outputs_match(outs, s.expect) if s.expect is not None
                        else outputs_fit(outs, s.specs)):
                    outs = check_outputs(outs, s.infos, s.ref, file)
        elif kind == "param":
            outs = (feeds[s.node],)
        else:                               # a Result ("const" steps are the plan's values)
            results[s.node] = env[s.ins[0]]
            outs = ()
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
                n = counted[j] = a.nbytes if a.dtype.kind != "T" else budget.string_bytes(a)
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


def guard(s: Step, args: list, limit: int, file: str | None) -> None:
    """Before a layer whose op allocates no more elements than its largest input holds
    (``Op.allocation == "inputs"``) runs where shape inference could not bound its output."""
    most = max(map(_SIZE, args), default=0) * s.guard
    if most > limit:
        raise budget.MemoryBudgetError(budget.over_message(f"the output (up to {most // s.guard} "
                                                           "elements)", most, limit),
                                       file=file, layer=cast(LayerRef, s.ref), port="output 0")
