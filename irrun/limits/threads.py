"""How many threads irrun computes with.

irrun's kernels are NumPy calls. The BLAS library behind ``np.matmul`` (MatMul, the
convolutions' GEMMs) runs its own threads; the big element-wise kernels (FakeQuantize, PRelu, activations)
split their work over irrun's own pool (:mod:`irrun.limits.parallel`) of :func:`count` threads.
By default both use what the BLAS library itself chose when NumPy loaded it:
``OMP_NUM_THREADS`` / ``OPENBLAS_NUM_THREADS`` / ``MKL_NUM_THREADS`` if set, else every core.
:func:`set_threads` (``irrun --threads N``) changes that for the whole process, also after NumPy
is loaded, through threadpoolctl (imported only then).
"""
from __future__ import annotations

import os
import sys

from ..errors import InputError

ENV = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")

_chosen: int | None = None          # set_threads' n; None: the environment's choice


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


def current() -> dict[str, int]:
    """The loaded thread pools and their sizes, e.g. ``{"openblas": 2}`` (needs threadpoolctl)."""
    from threadpoolctl import threadpool_info
    return {p["internal_api"]: p["num_threads"] for p in threadpool_info()}
