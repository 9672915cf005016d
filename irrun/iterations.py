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
real models run (an LLM's generate loop, an RNN over a long sequence) and takes seconds to
minutes to reach. ``irrun run --max-iterations N`` or ``Model.run(..., max_iterations=N)`` change
it; :func:`limit` sets it for a block of library calls.
"""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from .errors import InputError, OpError

#: Body executions one run may make, nested loops counted together.
DEFAULT_MAX_ITERATIONS = 10**6

_limit: ContextVar[int | None] = ContextVar("irrun_iteration_budget", default=None)
_spent: ContextVar[list[int] | None] = ContextVar("irrun_iterations_spent", default=None)


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
    force), counted afresh: one run, one total."""
    n = current() if max_iterations is None else int(max_iterations)
    if n <= 0:
        raise InputError(f"the iteration budget must be positive, got {n}")
    tl, ts = _limit.set(n), _spent.set([0])
    try:
        yield n
    finally:
        _spent.reset(ts)
        _limit.reset(tl)


@contextmanager
def counting() -> Iterator[None]:
    """Count body executions from here unless a run already counts them (a Loop run outside
    :func:`limit`, e.g. while shape inference folds a constant Loop, still ends)."""
    if _spent.get() is not None:
        yield
        return
    token = _spent.set([0])
    try:
        yield
    finally:
        _spent.reset(token)


def _message(what: str) -> str:
    return (f"{what}, more than the iteration budget of {current()} body executions per run "
            "(nested loops count together; see --max-iterations)")


def remaining() -> int:
    spent = _spent.get()
    return current() - (spent[0] if spent else 0)


def refuse_static(least: int, what: str = "the Loop runs") -> None:
    """Refuse, before any iteration, a loop that must run ``least`` more body executions than
    the run has left."""
    left = remaining()
    if least > left:
        spent = current() - left
        raise OpError(_message(f"{what} at least {least} iterations" + (
            f" and the run has made {spent} body executions already" if spent else "")))


def spend(n: int = 1) -> None:
    """Count ``n`` body executions; raises :class:`OpError` once the run's total passes the
    budget (the framework names the Loop)."""
    spent = _spent.get()
    if spent is None:
        return
    spent[0] += n
    if spent[0] > current():
        raise OpError(_message(f"the run reached {spent[0]} body executions"))
