"""The worker side of :mod:`irrun.distributed`: the adapter between irrun and a Dask worker process.

A task carries a :class:`Job` (paths and numbers). The worker reads the model once per process
(:func:`worker_model`, cached by path and the SHA-256 of the .xml, so the model never travels with
a task), reads the input file itself, runs under the memory budget and returns an
:class:`Outcome` (outputs or why the input failed: never an exception object, so the client needs
nothing from the worker's environment to read it).
"""
from __future__ import annotations

import hashlib
import threading
import time
from typing import Any, NamedTuple

from ..errors import EXIT_INTERNAL, InputError, IrrunError, printable


class Job(NamedTuple):
    """One task: a batch of inputs, small and picklable (paths and numbers; arrays only for
    in-memory inputs)."""
    model: str                       # absolute path of the .xml, as the workers see it
    digest: str                      # SHA-256 of the .xml the client read
    items: tuple                     # input files (.npy/.npz) and/or {input name: array}
    max_memory: int | None           # per worker; None: half the worker's memory limit
    threads: int | None              # BLAS threads per worker process
    max_iterations: int | None = None   # Loop/TensorIterator budget per run; None: irrun's default


class Outcome(NamedTuple):
    """What a task returns: outputs, or why this input failed (never an exception object, so the
    client needs nothing from the worker's environment to read it)."""
    outputs: dict | None
    kind: str = ""
    message: str = ""
    exit_code: int = 0


#: (path, SHA-256) -> (model, lock): one run at a time per model (a worker may have several threads)
_models: dict[tuple[str, str], tuple[Any, threading.Lock]] = {}
_models_lock = threading.Lock()
_threads_set: list[int | None] = [None]
MODELS_PER_WORKER = 2                # models kept per worker process (older ones are dropped)


def file_digest(path: str) -> str:
    """SHA-256 of a (model .xml) file."""
    h = hashlib.sha256()
    from ..io.files import open_regular
    with open_regular(path) as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def worker_model(path: str, digest: str):
    """The model at ``path``, read once per worker process. A worker whose file differs from the
    client's (another copy of the model on that machine) is refused rather than silently used."""
    return _cached(path, digest)[0]


def _cached(path: str, digest: str) -> tuple[Any, threading.Lock]:
    key = (path, digest)
    with _models_lock:
        entry = _models.get(key)
        if entry is None:
            from .. import read_model
            try:
                mine = file_digest(path)
            except OSError as e:
                raise InputError(f"this worker cannot read the model: {e.strerror or e} (workers read "
                                 "it from the same path as the client: a shared filesystem or a copy "
                                 "at that path on every machine)", file=printable(path)) from None
            if mine != digest:
                raise InputError("this worker's copy of the model differs from the client's "
                                 "(SHA-256 of the .xml)", file=printable(path))
            model = read_model(path)
            while len(_models) >= MODELS_PER_WORKER:
                _models.pop(next(iter(_models)))
            entry = _models[key] = (model, threading.Lock())
        return entry


def _worker_budget(max_memory: int | None) -> int | None:
    """``max_memory``, else half of this Dask worker's memory limit (LocalCluster divides the
    machine's memory among its workers), else irrun's default."""
    if max_memory is not None:
        return max_memory
    from ..limits.memory import DEFAULT_SHARE
    try:
        from distributed import get_worker
        limit = get_worker().memory_manager.memory_limit
    except (ImportError, ValueError, AttributeError):
        return None
    return int(limit * DEFAULT_SHARE) if limit else None


def run_batch(job: Job) -> tuple[list[Outcome], float]:
    """The task: run the model on each input of the batch on this worker; one Outcome per input
    (a failure stays with its input) and the seconds the batch took."""
    from ..limits import memory as budget
    start = time.perf_counter()
    if job.threads is not None and _threads_set[0] != job.threads:
        from ..limits.threads import set_threads
        set_threads(job.threads)
        _threads_set[0] = job.threads
    from ..limits import iterations
    with budget.limit(_worker_budget(job.max_memory)), iterations.limit(job.max_iterations):
        outcomes = [_run_one(job, item) for item in job.items]
    return outcomes, time.perf_counter() - start


def _run_one(job: Job, item: str | dict) -> Outcome:
    try:
        model, lock = _cached(job.model, job.digest)
        if isinstance(item, str):
            from ..io.inputs import load_inputs
            feeds = load_inputs(model, [item])
        else:
            feeds = dict(item)
        with lock:
            model.reset_state()
            return Outcome(model.run(feeds))
    except IrrunError as e:
        return Outcome(None, e.kind, str(e), e.exit_code)
    except Exception as e:  # a bug in irrun: reported for this input, the others go on
        return Outcome(None, "internal error (a bug in irrun)", f"{type(e).__name__}: {e}", EXIT_INTERNAL)


def warm_up(model: str, digest: str) -> str:
    """Run on every worker before the tasks (``client.run``): reads the model into the worker's
    cache and proves irrun, the model file and its contents are there. Returns irrun's version."""
    from .. import __version__
    worker_model(model, digest)
    return __version__


