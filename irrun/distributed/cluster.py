"""A local Dask cluster whose worker processes never import from the user's working directory."""
from __future__ import annotations

import contextlib
import logging
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from typing import Any

from ..errors import InputError, UnsupportedError, printable

INSTALL_HINT = "pip install 'irrun[dask]'"

#: Dask's statistical profiler samples every thread's stack every 10 ms under the GIL: on a
#: Python-heavy interpreter like irrun that cost up to half the throughput (README "Many inputs").
WORKER_CONFIG = {"distributed.worker.profile.enabled": False}


def require_dask():
    """Import ``distributed`` or say how to install it (exit code 3, like ``--plot``)."""
    try:
        import distributed
    except ImportError:
        raise UnsupportedError(f"running on several workers needs Dask: {INSTALL_HINT}") from None
    return distributed


def _findable(name: str, path: list[str]) -> bool:
    """Whether a fresh interpreter with ``sys.path == path`` would find the package ``name``
    (through ``path`` or a meta-path finder such as an editable install's)."""
    from importlib.machinery import PathFinder
    if PathFinder.find_spec(name, path) is not None:
        return True
    for finder in sys.meta_path:
        if finder is PathFinder or not hasattr(finder, "find_spec"):
            continue
        with contextlib.suppress(Exception):
            if finder.find_spec(name, None) is not None and "frozen" not in repr(finder).lower():
                return True
    return False


@contextlib.contextmanager
def safe_spawn() -> Iterator[None]:
    """Worker processes must not import from the user's working directory. Dask starts them with
    multiprocessing's *spawn*: a fresh ``python -c ...`` (which puts the current directory first
    on ``sys.path`` while it boots) that then copies this process's ``sys.path``, where ``''``
    stands for the working directory. While the cluster runs, ``PYTHONSAFEPATH=1`` (Python 3.11+)
    keeps the booting child's path clean and ``sys.path`` here leaves out ``''`` and the working
    directory; both are restored afterwards. (On Python 3.10 only the second applies.)

    One exception: a user's script run as ``python script.py`` from its own directory. Spawn
    runs that script again in every worker (as ``__mp_main__``, for its ``if __name__ ==
    "__main__"`` guard), so its directory stays: the user chose to run code from there."""
    cwd = os.path.realpath(os.getcwd())
    main_file = getattr(sys.modules.get("__main__"), "__file__", None)
    script_dir = os.path.realpath(os.path.dirname(main_file)) if main_file else None
    clean = [p for p in sys.path if p and (os.path.realpath(p) != cwd or os.path.realpath(p) == script_dir)]
    if not _findable("irrun", clean):
        raise UnsupportedError("irrun is imported from the working directory, which the worker "
                               "processes must not import from; install it (pip install -e .) first")
    saved_path, saved_env = sys.path[:], os.environ.get("PYTHONSAFEPATH")
    sys.path[:] = clean
    os.environ["PYTHONSAFEPATH"] = "1"
    try:
        yield
    finally:
        sys.path[:] = saved_path
        if saved_env is None:
            os.environ.pop("PYTHONSAFEPATH", None)
        else:
            os.environ["PYTHONSAFEPATH"] = saved_env


@contextlib.contextmanager
def local_cluster(workers: int, threads_per_worker: int = 1) -> Iterator[Any]:
    """A Dask ``Client`` on a new local cluster of ``workers`` processes, closed on exit. The
    workers never import from the working directory (:func:`safe_spawn`); the cluster talks TLS
    with throw-away certificates when ``cryptography`` is installed, so other local users cannot
    submit work to it; scratch space is a private temporary directory; no dashboard, and Dask's
    statistical profiler off (:data:`WORKER_CONFIG`)."""
    distributed = require_dask()
    import dask
    if workers < 1:
        raise InputError(f"--workers must be at least 1, got {workers}")
    try:
        import cryptography  # noqa: F401
        security = True          # Security.temporary(): TLS with certificates made for this cluster
    except ImportError:
        security = None          # plain TCP on 127.0.0.1
    scratch = tempfile.mkdtemp(prefix="irrun-dask-")
    try:
        with safe_spawn(), dask.config.set(WORKER_CONFIG):
            try:
                cluster = distributed.LocalCluster(
                    n_workers=workers, threads_per_worker=threads_per_worker, processes=True,
                    dashboard_address=None, local_directory=scratch, security=security,
                    silence_logs=logging.CRITICAL)
            except Exception as e:       # e.g. a worker whose __main__ script cannot import
                cause = e.__cause__ or e
                raise InputError(f"could not start a local Dask cluster: {type(cause).__name__}: {cause}"
                                 ) from None
            with cluster, distributed.Client(cluster) as client:
                yield client
    finally:
        shutil.rmtree(scratch, ignore_errors=True)




def connect(address: str, timeout: float = 10) -> Any:
    """A Dask ``Client`` on the existing scheduler at ``address`` (``tcp://host:8786``...)."""
    distributed = require_dask()
    try:
        return distributed.Client(address, timeout=timeout)
    except (OSError, ValueError, TypeError) as e:
        raise InputError(f"cannot reach the Dask scheduler at {printable(address)}: {e}") from None
