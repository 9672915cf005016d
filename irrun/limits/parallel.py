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


def splits(size: int) -> bool:
    """Whether :func:`run_all` shares ``size`` elements of work with the pool (a kernel sizes its
    pieces by this: on the pool, bigger pieces than in one thread)."""
    return size >= WORTH and workers() > 1


def run_all(task: Callable[[T], object], pieces: Sequence[T], size: int) -> None:
    """``task(piece)`` for every piece: in the calling thread when one thread is used, there is
    one piece or the work is ``size`` < :data:`WORTH` elements, else shared with the pool.

    The pieces are taken one at a time from a common queue by the calling thread and by the pool's
    threads as they wake up (work sharing, not a fixed split): a pool thread that the scheduler
    runs late -- another process on the core, as on a busy 2-core machine -- takes fewer pieces
    or none, and the caller never waits for one that has not started a piece, so splitting costs
    at most the hand-over (a few microseconds), never a scheduler slice. The floating-point
    error state is NumPy's silent IEEE mode in every thread (OpenVINO's results: inf, NaN); the
    first exception a task raises is raised here after every piece taken has ended."""
    n = min(workers(), len(pieces)) if splits(size) else 1
    if n <= 1:
        for p in pieces:
            task(p)
        return
    share = _Share(task, pieces)
    pool = _executor(n)
    futures = [pool.submit(share.work) for _ in range(n - 1)]
    share.work()                        # the calling thread takes pieces too, until none is left
    for f in futures:
        f.cancel()                      # (a helper not started yet: nothing left for it)
    share.wait()


class _Share:
    """The pieces of one :func:`run_all`, handed out one at a time under a lock; which thread
    computes a piece does not change its bits (each writes its own part of the result)."""

    def __init__(self, task: Callable[[T], object], pieces: Sequence[T]):
        self.task, self.pieces = task, pieces
        self.next = 0
        self.busy = 0                   # pieces being computed by the pool's threads
        self.lock = threading.Lock()
        self.idle = threading.Event()   # no pool thread is computing a piece
        self.idle.set()
        self.error: BaseException | None = None

    def work(self) -> None:
        """Take and compute pieces until none is left (or one failed)."""
        with np.errstate(all="ignore"):
            while True:
                with self.lock:
                    i = self.next
                    if i >= len(self.pieces) or self.error is not None:
                        return
                    self.next = i + 1
                    self.busy += 1
                    self.idle.clear()
                try:
                    self.task(self.pieces[i])
                except BaseException as e:          # noqa: BLE001 - raised by wait(), in the caller
                    with self.lock:
                        self.error = self.error or e
                finally:
                    with self.lock:
                        self.busy -= 1
                        if not self.busy:
                            self.idle.set()

    def wait(self) -> None:
        """Until every piece taken has been computed; the first error a piece raised, raised."""
        self.idle.wait()
        if self.error is not None:
            raise self.error
