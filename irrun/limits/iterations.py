"""The iteration budget: every run ends, however its Loops are written.

A Loop's trip count comes from the file or from an input (``2**62``, ``-1``), its condition may be
computed and always true, and Loops nest: OpenVINO runs such a model forever. irrun counts the
*body executions* of one run — every pass through a TensorIterator or Loop body, nested ones
included, all against one total — and stops the run with an :class:`~irrun.errors.ExecutionError`
naming the Loop (exit code 2) when the total would pass the budget:

* shape inference refuses a Loop that must run more iterations than the budget (a constant trip
  count with a condition that is constant true; ``irrun check`` reports it too);
* a running Loop whose iteration count is already known (the trip count, when its body's
  condition is constant true; a TensorIterator's slices) is refused before its first iteration;
* any other Loop is stopped when the run's total passes the budget.

The default, :data:`DEFAULT_MAX_ITERATIONS` (10**6 body executions per run), is far above what
real models run (an LLM's generate loop, an RNN over a long sequence) — but a hostile file's body
of ten layers took 115 s to reach it (two nested Loops of 10**9, 30 nested Loops of 2: the same).
So by default a second, cost-aware budget applies too (issue 27): the *work* of the run's loop
bodies, :data:`DEFAULT_MAX_WORK` units, where one body execution costs its layers plus
:data:`ITERATION_COST` (what the loop machinery spends around it, measured in layers). It is what
~1.5-2.5 s of small loop bodies run on a busy machine (a hostile file is refused within 5 s); a
real model's loops stay below it (an RNN body of 20 layers over 1000 steps: 28 000; a body of 100
layers may run 2300 times). ``irrun run --max-iterations N`` or ``Model.run(...,
max_iterations=N)`` set the body-execution budget and lift the work budget (the user chose to run
that long); :func:`limit` sets both for a block of library calls.
"""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from ..errors import InputError, OpError

#: Body executions one run may make, nested loops counted together.
DEFAULT_MAX_ITERATIONS = 10**6
#: Work units the run's loop bodies may spend by default (none with an explicit budget).
DEFAULT_MAX_WORK = 250_000
#: What one body execution costs beyond its layers, in layers: the loop's own bookkeeping
#: (feeds, slices, the plan lookup, the outputs) took as long as 6-8 small layers (measured:
#: 40-75 us per execution of a one-layer body, 80-90 us for a seven-layer one, 2 busy cores).
ITERATION_COST = 8

_limit: ContextVar[int | None] = ContextVar("irrun_iteration_budget", default=None)
#: [body executions, work units] spent by the run
_spent: ContextVar[list[int] | None] = ContextVar("irrun_iterations_spent", default=None)
#: the work budget in force: None when an explicit --max-iterations lifted it
_work: ContextVar[int | None] = ContextVar("irrun_work_budget", default=DEFAULT_MAX_WORK)


def current() -> int:
    """The budget in force: set by :func:`limit`, else the default."""
    n = _limit.get()
    return DEFAULT_MAX_ITERATIONS if n is None else n


def parse(text: str) -> int:
    """``"1000"``, ``"1e6"`` -> int; raises ValueError (argparse reports it)."""
    try:
        n = int(text) if text.strip().isdigit() else int(float(text))
    except (ValueError, OverflowError):
        raise ValueError(f"not a number of iterations: {text!r} (examples: 1000, 1e6)") from None
    if n <= 0:
        raise ValueError(f"the iteration budget must be positive: {text!r}")
    return n


@contextmanager
def limit(max_iterations: int | None) -> Iterator[int]:
    """Run a block under a budget of ``max_iterations`` body executions (``None``: the one in
    force, with the work budget in force), counted afresh: one run, one total. An explicit
    ``max_iterations`` lifts the work budget."""
    n = current() if max_iterations is None else int(max_iterations)
    if n <= 0:
        raise InputError(f"the iteration budget must be positive, got {n}")
    work = _work.get() if max_iterations is None else None
    tl, ts, tw = _limit.set(n), _spent.set([0, 0]), _work.set(work)
    try:
        yield n
    finally:
        _work.reset(tw)
        _spent.reset(ts)
        _limit.reset(tl)


@contextmanager
def counting() -> Iterator[None]:
    """Count body executions from here unless a run already counts them (a Loop run outside
    :func:`limit`, e.g. while shape inference folds a constant Loop, still ends)."""
    if _spent.get() is not None:
        yield
        return
    token = _spent.set([0, 0])
    try:
        yield
    finally:
        _spent.reset(token)


def _message(what: str) -> str:
    return (f"{what}, more than the iteration budget of {current()} body executions per run "
            "(nested loops count together; see --max-iterations)")


def _work_message(what: str) -> str:
    return (f"{what}, more than the default loop work budget of {_work.get()} per run (a body "
            f"execution costs its layers + {ITERATION_COST}; nested loops count together; "
            "--max-iterations N lifts it and allows N body executions)")


def cost(layers: int) -> int:
    """The work units of one body execution that runs ``layers`` layers."""
    return layers + ITERATION_COST


def remaining() -> int:
    spent = _spent.get()
    return current() - (spent[0] if spent else 0)


def refuse_static(least: int, what: str = "the Loop runs", layers: int = 0) -> None:
    """Refuse, before any iteration, a loop that must run ``least`` more body executions (each
    running ``layers`` layers) than the run has left."""
    left = remaining()
    if least > left:
        spent = current() - left
        raise OpError(_message(f"{what} at least {least} iterations" + (
            f" and the run has made {spent} body executions already" if spent else "")))
    work, done = _work.get(), _spent.get()
    need = least * cost(layers)
    if work is not None and least and need > work - (done[1] if done else 0):
        raise OpError(_work_message(f"{what} at least {least} iterations of {layers} layer{'s' * (layers != 1)} "
                                    f"({need} units)" + (f" and the run has spent {done[1]} already"
                                                         if done and done[1] else "")))


def spend(n: int = 1, layers: int = 0) -> None:
    """Count ``n`` body executions of ``layers`` layers each; raises :class:`OpError` once the
    run's total passes a budget (the framework names the Loop)."""
    spent = _spent.get()
    if spent is None:
        return
    spent[0] += n
    spent[1] += n * cost(layers)
    if spent[0] > current():
        raise OpError(_message(f"the run reached {spent[0]} body executions"))
    work = _work.get()
    if work is not None and spent[1] > work:
        raise OpError(_work_message(f"the run's loop bodies reached {spent[1]} work units "
                                    f"({spent[0]} body executions)"))
