"""irrun's own thread pool: big element-wise kernels (FakeQuantize, PRelu, activations) split their work into
independent pieces along the outer axes and run them on :func:`irrun.limits.threads.count`
threads. NumPy releases the GIL inside its ufunc loops, so the pieces really run side by side.

Every piece writes its own part of the result, computed exactly as one thread would compute it,
so results are bit-identical at every thread count. The run loop itself stays sequential: only
work *inside* one kernel is split, never layers or branches.
"""
from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

import numpy as np

from . import threads

T = TypeVar("T")

#: Elements of work below which a kernel does not split it: handing a piece to another thread costs
#: tens of microseconds on a quiet machine and up to a scheduler slice (milliseconds) on a busy
#: one, more than a smaller kernel takes.
WORTH = 1 << 20

_lock = threading.Lock()
_pool: ThreadPoolExecutor | None = None
_pool_size = 0
_inside = threading.local()         # set in the pool's threads: a nested split runs serially


def workers() -> int:
    """The threads a split uses now (1 inside a pool thread: no pool waits on itself)."""
    return 1 if getattr(_inside, "busy", False) else threads.count()


def _enter() -> None:
    _inside.busy = True


def _executor(n: int) -> ThreadPoolExecutor:
    global _pool, _pool_size
    with _lock:
        if _pool is None or _pool_size != n:
            old = _pool
            _pool, _pool_size = ThreadPoolExecutor(n, thread_name_prefix="irrun", initializer=_enter), n
            if old is not None:
                old.shutdown(wait=False)
        return _pool


def run_all(task: Callable[[T], object], pieces: Sequence[T], size: int) -> None:
    """``task(piece)`` for every piece: in the calling thread when one thread is used, there is
    one piece or the work is ``size`` < :data:`WORTH` elements, else spread over the pool in as
    many contiguous runs as threads. The floating-point
    error state is NumPy's silent IEEE mode in every thread (OpenVINO's results: inf, NaN); the
    first exception a task raises is raised here after all tasks have ended."""
    n = min(workers(), len(pieces)) if size >= WORTH else 1
    if n <= 1:
        for p in pieces:
            task(p)
        return

    def some(part: Sequence[T]) -> None:
        with np.errstate(all="ignore"):
            for p in part:
                task(p)
    step = -(-len(pieces) // n)
    parts = [pieces[i:i + step] for i in range(0, len(pieces), step)]
    futures = [_executor(n).submit(some, part) for part in parts[1:]]
    try:
        some(parts[0])                  # the calling thread does its share too
    finally:
        for f in futures:               # wait for all before anything is raised
            f.exception()
    for f in futures:
        f.result()
