"""How many threads irrun computes with.

irrun's kernels are NumPy calls. The BLAS library behind ``np.matmul`` (MatMul, the
convolutions' GEMMs) runs its own threads; the big element-wise kernels (FakeQuantize, PRelu, activations)
split their work over irrun's own pool (:mod:`irrun.limits.parallel`) of :func:`count` threads.
By default both use what the BLAS library itself chose when NumPy loaded it:
``OMP_NUM_THREADS`` / ``OPENBLAS_NUM_THREADS`` / ``MKL_NUM_THREADS`` if set, else every core.
:func:`set_threads` (``irrun --threads N``) changes that for the whole process, also after NumPy
is loaded, through threadpoolctl (imported only then).

A small matrix product runs on one BLAS thread whatever the count (:func:`blas_threads_for`,
decided per layer when a plan is made; :func:`use_blas` in the run loop): OpenBLAS splits a
product into fixed halves, and the caller then waits for the other thread's half -- on a busy
core a whole scheduler slice (milliseconds) for work of tens of microseconds. Measured on a 2-core
machine shared with other processes (landmarks-regression-retail-0009, median of a run loop,
alternating processes): 174 ms with 2 BLAS threads for every product, 47 ms with the small ones
on one thread, 6 ms with every product on one thread.
"""
from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable
from typing import Any

from ..errors import InputError

ENV = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")

_chosen: int | None = None          # set_threads' n; None: the environment's choice

#: Multiply-adds (M x K x N) of a matrix product below which it runs on one BLAS thread: below
#: this a product takes under ~50 us on one core, so a second thread saves at most ~25 us and may
#: cost a scheduler slice. (OpenBLAS's own limit is 64K x 4 multiply-adds.)
SMALL_PRODUCT = 1 << 21
#: Elements (1 MiB of f32) from which an operand makes a product worth two threads even with few
#: multiply-adds: a matrix-vector product (an LLM's decode step) is bound by reading its matrix,
#: which two cores read faster (1 x 896 x 4864 in f32: 248 us on one thread, 127 on two).
SMALL_OPERAND = 1 << 18
#: Multiply-adds below which OpenBLAS runs a product on one thread anyway (its
#: GEMM_MULTITHREAD_THRESHOLD of 4 x 64K).
BLAS_SINGLE = 1 << 18
#: :func:`blas_threads_for`'s answers: the layer multiplies nothing (BLAS left as it is), a small
#: product (one thread), a big one or one of unknown size (:func:`count` threads).
NO_BLAS, ONE, ALL = None, 1, 0


class _Blas:
    """The loaded BLAS libraries (threadpoolctl's controllers, found once NumPy is loaded) and
    what :func:`use_blas` last set: ``before`` holds their thread counts while a small product
    has them on one thread."""
    libs: list[tuple[Callable[[], Any], Callable[[int], Any]]] | None = None    # (get, set) per library
    now: int = ALL
    before: list[int] = []
    lock = threading.Lock()


_blas = _Blas()


def count() -> int:
    """How many threads irrun's own kernels use: :func:`set_threads`' ``n``, else the first of
    :data:`ENV` that is set to a positive number, else the cores this process may run on."""
    if _chosen is not None:
        return _chosen
    for var in ENV:
        value = os.environ.get(var, "").strip()
        if value.isdigit() and int(value) > 0:
            return int(value)
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:              # (not on every platform)
        return os.cpu_count() or 1


def set_threads(n: int) -> None:
    """Use ``n`` BLAS threads from now on: the environment variables for libraries loaded later,
    and threadpoolctl for those already loaded (NumPy's BLAS, OpenMP runtimes)."""
    global _chosen
    if n < 1:
        raise InputError(f"the thread count must be at least 1, got {n}")
    _chosen = n
    for var in ENV:
        os.environ[var] = str(n)
    if "numpy" in sys.modules:      # its BLAS has read the variables already
        try:
            from threadpoolctl import threadpool_limits
        except ImportError:
            raise InputError("changing the thread count after NumPy is loaded needs threadpoolctl "
                             f"(pip install threadpoolctl), or set {ENV[1]}={n} before starting") from None
        threadpool_limits(limits=n)       # stays in force: it is not used as a context manager
    _blas.now = ALL


def blas_threads_for(multiply_adds: int | None, largest_operand: int | None) -> int | None:
    """:data:`ONE` for a product of fewer than :data:`SMALL_PRODUCT` multiply-adds whose operands
    all have fewer than :data:`SMALL_OPERAND` elements, else :data:`ALL` (also when a size is
    unknown: ``None``); :data:`NO_BLAS` (BLAS left as it is) below :data:`BLAS_SINGLE`, which
    OpenBLAS runs on one thread by itself: switching there would only cost the switch."""
    if multiply_adds is None or largest_operand is None:
        return ALL
    if multiply_adds < BLAS_SINGLE and largest_operand < SMALL_OPERAND:
        return NO_BLAS
    return ONE if multiply_adds < SMALL_PRODUCT and largest_operand < SMALL_OPERAND else ALL


def use_blas(setting: int) -> None:
    """Put the loaded BLAS on one thread (:data:`ONE`), or back to the count it had before
    (:data:`ALL`); a no-op without threadpoolctl or a BLAS it knows."""
    if setting == _blas.now:
        return
    with _blas.lock:                # (runs in two Python threads: one records the count, not 1)
        if setting != _blas.now:
            _switch(setting)


def _switch(setting: int) -> None:
    if _blas.libs is None:
        if "numpy" not in sys.modules:      # (nothing loaded yet: look again next time)
            return
        try:
            from threadpoolctl import ThreadpoolController
            _blas.libs = [_count_functions(lib) for lib in
                          ThreadpoolController().select(user_api="blas").lib_controllers]
        except Exception:           # noqa: BLE001 - (not installed, or an unknown library: BLAS as it is)
            _blas.libs = []
    if setting == ONE:
        _blas.before = [get() or 1 for get, _ in _blas.libs]
    for (_, put), n in zip(_blas.libs, [1] * len(_blas.libs) if setting == ONE else _blas.before):
        put(n)
    _blas.now = setting


def _count_functions(lib: Any) -> tuple[Callable[[], Any], Callable[[int], Any]]:
    """A BLAS library's thread count getter and setter. For OpenBLAS's own thread pool, its C
    functions: a ctypes call (~0.5 us, where threadpoolctl's methods take 2-5), and not
    threadpoolctl's ``set_num_threads``, which lets only the first Python thread that calls it
    change OpenBLAS -- a run in another thread would take that right from the user's
    ``threadpool_limits`` and :func:`set_threads`."""
    if lib.internal_api == "openblas" and getattr(lib, "threading_layer", "") != "openmp":
        for prefix, suffix in (("", ""), ("scipy_", "64_"), ("scipy_", ""), ("", "64_"), ("", "_64")):
            get, put = (getattr(getattr(lib, "dynlib", None), f"{prefix}openblas_{x}_num_threads{suffix}", None)
                        for x in ("get", "set"))
            if get is not None and put is not None:
                return get, put
    return lib.get_num_threads, lib.set_num_threads


def blas_now() -> int:
    """What :func:`use_blas` last set (:data:`ALL` until it is first called)."""
    return _blas.now


def current() -> dict[str, int]:
    """The loaded thread pools and their sizes, e.g. ``{"openblas": 2}`` (needs threadpoolctl)."""
    from threadpoolctl import threadpool_info
    return {p["internal_api"]: p["num_threads"] for p in threadpool_info()}
