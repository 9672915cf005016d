"""Batch inference over many inputs on a Dask cluster: ``run_many`` and the per-worker adapter.

Why Dask (README "Many inputs"): a 5 MiB pure-Python install against Ray's ~160 MiB of wheels, a
local cluster of worker processes in about two seconds, and the same ``Client`` for one machine or
a cluster started by ``dask scheduler`` / ``dask worker``, dask-jobqueue or dask-kubernetes.

Who does what:

* **Workers** read the model once per process (:func:`.worker.worker_model`, cached by path and the
  SHA-256 of the .xml, so nothing big travels with a task), read each input file themselves (a
  task carries only paths), apply the memory budget, and return the outputs. The run never
  writes into its inputs (the executor never reuses a Parameter's buffer); a stateful model
  starts every input from its initial state, so which worker runs an input never changes its
  result, nor whether it fails.
* **The client** (this process) checks every destination before the run, keeps a bounded number
  of tasks in flight, writes each result as it arrives (:mod:`irrun.io.writers`: temp file + rename,
  never over the model or an input), reports a bad input by name and goes on, and prints a
  summary. Outputs come back to the client, so the workers need no shared output directory.

Dask is an optional extra (``pip install irrun[dask]``); this module imports it only when used.
Worker processes are started so that they never import from the user's working directory
(:func:`.cluster.safe_spawn`).
"""
from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import EXIT_INTERNAL, InputError, IrrunError, printable
from .cluster import INSTALL_HINT, connect, local_cluster
from .worker import Job, Outcome, file_digest, run_batch, warm_up, worker_model

__all__ = ["run_many", "prepare", "run_prepared", "Prepared", "BatchResult", "Failure", "local_cluster",
           "worker_model", "run_batch", "Job", "Outcome", "INSTALL_HINT"]


@dataclass
class Failure:
    """An input that failed: its name, the error's kind and message, and the exit code it has
    alone (2 bad input, 3 unsupported, 4 internal)."""
    input: str
    kind: str
    message: str
    exit_code: int

    def __str__(self) -> str:
        # the message is escaped (str(IrrunError)): look for the input's name as it shows there
        named = any(printable(p) in self.message for p in (self.input, os.path.abspath(self.input)))
        return f"{self.kind}: {self.message}" + ("" if named else f" (input {printable(self.input)})")


@dataclass
class BatchResult:
    """``done``: the inputs that ran (names, in completion order); ``failed``: the others;
    ``written``: output files (with ``output_dir``); ``outputs``: {input name: outputs} without
    ``output_dir``; ``workers``: worker processes the cluster had; ``seconds``: the call's wall time;
    ``worker_seconds``: the time workers spent on the tasks (over ``workers * seconds``: how busy
    Dask kept them)."""
    done: list[str] = field(default_factory=list)
    failed: list[Failure] = field(default_factory=list)
    written: list[Path] = field(default_factory=list)
    outputs: dict[str, dict[str, np.ndarray]] = field(default_factory=dict)
    workers: int = 0
    seconds: float = 0.0
    worker_seconds: float = 0.0      # summed over the tasks, as the workers timed them


def _name(item: str | os.PathLike | Mapping, k: int) -> str:
    return os.fspath(item) if isinstance(item, (str, os.PathLike)) else f"#{k}"


@dataclass
class Prepared:
    """A batch checked and ready to send: the model's path and digest, each input's name and
    payload (an absolute path or feeds), its destination (or None), and the files never written."""
    model: str
    digest: str
    names: list[str]
    payloads: list
    targets: list[Path | None]
    protect: list[str]


def prepare(model_path: str | os.PathLike, inputs, output_dir: str | os.PathLike | None = None,
            protect: Sequence[str] = ()) -> Prepared:
    """Check what :func:`run_many` will read and write, before any cluster starts: the model file,
    and every destination (irrun.io.writers rules: never a symlink, the model or an input)."""
    from ..io.writers import destination
    model = os.path.abspath(model_path)
    digest = file_digest(model) if os.path.isfile(model) else ""
    if not digest:
        raise InputError("no such model file", file=printable(model))
    items = list(inputs.items()) if isinstance(inputs, Mapping) else \
        [(_name(it, k), it) for k, it in enumerate(inputs)]
    payloads = [os.path.abspath(it) if isinstance(it, (str, os.PathLike)) else dict(it) for _, it in items]
    names = [n for n, _ in items]
    targets: list[Path | None] = [None] * len(items)
    keep: list[str] = []
    if output_dir is not None:
        keep = list(protect) + [model, os.path.splitext(model)[0] + ".bin"] + \
            [p for p in payloads if isinstance(p, str)]
        out = destination(output_dir, directory=True, protect=keep)
        stems = [Path(n).stem if isinstance(it, (str, os.PathLike)) else n for n, it in items]
        if len(set(stems)) < len(stems):
            dup = next(s for s in stems if stems.count(s) > 1)
            raise InputError(f'two inputs would both write "{printable(dup)}.npz"; keep one')
        targets = [destination(out / f"{s}.npz", protect=keep) for s in stems]
    return Prepared(model, digest, names, payloads, targets, keep)


def run_many(model_path: str | os.PathLike, inputs: Sequence[str | os.PathLike | Mapping[str, np.ndarray]]
             | Mapping[str, Mapping[str, np.ndarray]], output_dir: str | os.PathLike | None = None, *,
             workers: int = 2, client: Any = None, cluster: str | None = None,
             max_memory: int | None = None, threads: int | None = 1, batch_size: int | None = None,
             max_iterations: int | None = None, on_result: Callable[[str, Failure | None], None] | None = None,
             protect: Sequence[str] = ()) -> BatchResult:
    """Run ``model_path`` on every input on a Dask cluster; return a :class:`BatchResult`.

    ``inputs``: input files (.npy for a one-input model, .npz keyed by input name; read by the
    workers from the same path) and/or {input name: array} feeds, or a mapping name -> feeds.
    ``output_dir``: write ``<input stem>.npz`` (or ``<name>.npz``) per input there, each atomically,
    all checked before the run; without it the outputs are returned. The cluster: ``client`` (an
    existing ``distributed.Client``), else ``cluster`` (a scheduler address), else a new local
    cluster of ``workers`` processes. ``max_memory`` is each worker's budget (default: half its
    memory limit); ``max_iterations`` each run's Loop budget; ``threads`` its BLAS threads;
    ``batch_size`` the inputs per task (default: adaptive, growing until a task runs about 0.25 s).
    ``on_result(name, failure_or_None)`` is called as each input finishes. A bad input is recorded in
    ``failed`` and skipped."""
    started = time.perf_counter()
    batch = prepare(model_path, inputs, output_dir, protect)
    with contextlib.ExitStack() as stack:
        if client is None:
            if cluster is not None:
                client = stack.enter_context(connect(cluster))
            else:
                client = stack.enter_context(local_cluster(workers))
        result = run_prepared(batch, client, max_memory=max_memory, threads=threads,
                              batch_size=batch_size, max_iterations=max_iterations, on_result=on_result)
    result.seconds = time.perf_counter() - started
    return result


def run_prepared(batch: Prepared, client: Any, *, max_memory: int | None = None, threads: int | None = 1,
                 batch_size: int | None = None, max_iterations: int | None = None,
                 on_result: Callable[[str, Failure | None], None] | None = None) -> BatchResult:
    """:func:`run_many` for a batch :func:`prepare` checked, on ``client``."""
    started = time.perf_counter()
    result = BatchResult(workers=len(client.nthreads()))
    _preflight(client, batch.model, batch.digest)
    job = Job(batch.model, batch.digest, (), max_memory, threads, max_iterations)
    for k, outcome in _results(client, job, batch.payloads, batch_size, result):
        failure = _finish(batch.names[k], outcome, batch.targets[k], batch.protect, result)
        if on_result is not None:
            on_result(batch.names[k], failure)
    result.seconds = time.perf_counter() - started
    return result


def _preflight(client, model: str, digest: str) -> None:
    """Every worker reads the model now (into its cache): a worker without irrun or with another
    version of it, without the model file or with another copy of it fails here, once, instead of
    once per input."""
    from .. import __version__
    try:
        versions = client.run(warm_up, model, digest)
    except IrrunError:
        raise
    except Exception as e:
        raise InputError(f"the workers cannot run irrun: {type(e).__name__}: {e} (is irrun installed "
                         "on every worker?)") from None
    other = {w: v for w, v in versions.items() if v != __version__}
    if other:
        w, v = next(iter(other.items()))
        raise InputError(f"worker {printable(w)} has irrun {printable(v)}, this client {__version__}: "
                         "install the same version everywhere")


#: Batches grow until a task runs about this long: Dask spends ~1-20 ms per task (more on a busy
#: machine), which would dominate a small model's per-input time.
TASK_SECONDS = 0.25
MAX_BATCH = 64


def _results(client, job: Job, payloads: list, batch_size: int | None,
             result: BatchResult) -> Iterator[tuple[int, Outcome]]:
    """(index, outcome) per input as tasks finish. A task runs a batch of consecutive inputs:
    ``batch_size``, or adaptive (one input at first, then as many as take ~TASK_SECONDS by the
    time measured so far, never so many that a worker thread would go without work near the
    end). At most two tasks per worker thread are in flight, so the client holds few results at
    once however many inputs there are."""
    from distributed import as_completed
    nthreads = max(1, sum(client.nthreads().values()))
    index: dict[str, range] = {}
    running = as_completed()
    start = 0
    per_input: float | None = None

    def submit_next() -> None:
        nonlocal start
        left = len(payloads) - start
        if left <= 0:
            return
        if batch_size:
            n = batch_size
        elif per_input is None:
            n = 1
        else:
            n = min(max(1, int(TASK_SECONDS / max(per_input, 1e-6))), MAX_BATCH,
                    max(1, left // (2 * nthreads)))
        span = range(start, min(start + n, len(payloads)))
        start = span.stop
        fut = client.submit(run_batch, job._replace(items=tuple(payloads[k] for k in span)), pure=False)
        index[fut.key] = span
        running.add(fut)

    for _ in range(2 * nthreads):
        submit_next()
    for fut in running:
        span = index.pop(fut.key)
        try:
            outcomes, seconds = fut.result()
            per_input = seconds / len(span)
            result.worker_seconds += seconds
        except Exception as e:       # the worker died (KilledWorker) or the task was lost
            lost = Outcome(None, "worker failed", f"{type(e).__name__}: {e} (out of memory? see "
                           "--max-memory)", EXIT_INTERNAL)
            outcomes = [lost] * len(span)
        fut.release()
        submit_next()
        yield from zip(span, outcomes)


def _finish(name: str, outcome: Outcome, target: Path | None, protect: list[str],
            result: BatchResult) -> Failure | None:
    """Record one input's outcome: write its outputs (atomically) or keep them, or the failure."""
    failure = None
    if outcome.outputs is None:
        failure = Failure(name, outcome.kind, outcome.message, outcome.exit_code)
    elif target is not None:
        from ..io.outputs import write_outputs
        try:
            result.written.append(write_outputs(target, outcome.outputs, protect))
        except IrrunError as e:
            failure = Failure(name, e.kind, str(e), e.exit_code)
    else:
        result.outputs[name] = outcome.outputs
    if failure is None:
        result.done.append(name)
    else:
        result.failed.append(failure)
    return failure
