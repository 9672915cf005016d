"""How many threads irrun computes with.

irrun's kernels are NumPy calls; only the BLAS library behind ``np.matmul`` (MatMul, the
convolutions' GEMMs) runs threads. By default it uses what the library itself chose when NumPy
loaded it: ``OMP_NUM_THREADS`` / ``OPENBLAS_NUM_THREADS`` / ``MKL_NUM_THREADS`` if set, else
every core. :func:`set_threads` (``irrun --threads N``) changes that for the whole process, also
after NumPy is loaded, through threadpoolctl (imported only then).
"""
from __future__ import annotations

import os
import sys

from ..errors import InputError

ENV = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def set_threads(n: int) -> None:
    """Use ``n`` BLAS threads from now on: the environment variables for libraries loaded later,
    and threadpoolctl for those already loaded (NumPy's BLAS, OpenMP runtimes)."""
    if n < 1:
        raise InputError(f"the thread count must be at least 1, got {n}")
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
