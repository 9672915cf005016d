"""``irrun MODEL.xml -i DIR/ -o OUTDIR/ --workers N`` (or ``--cluster ADDRESS``): the flags, the
progress bar and the summary around :func:`irrun.distributed.run_many`. ``irrun.cli.run``
adds the flags and hands a directory run over when one of them is given."""
from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TextIO

from ..errors import EXIT_FINDINGS, EXIT_OK, InputError, printable
from ..io.progress import Progress as SharedProgress
from ..io.progress import is_quiet


def add_arguments(p) -> None:
    g = p.add_argument_group("many inputs on a Dask cluster (with --input DIR/ --output OUTDIR/; "
                             "needs pip install 'irrun[dask]')")
    g.add_argument("--workers", type=int, metavar="N",
                   help="run the input files on a local cluster of N worker processes (1 BLAS thread "
                        "each unless --threads; --max-memory and --max-iterations apply per worker "
                        "and per run); a bad input is "
                        "reported and skipped, exit code 1 if any failed")
    g.add_argument("--cluster", metavar="ADDRESS",
                   help="run on an existing Dask scheduler, e.g. tcp://10.0.0.5:8786 (the workers "
                        "read the model and the input files from the same paths)")
    g.add_argument("--progress", action="store_true",
                   help="draw the progress bar on stderr even when it is not a terminal")


def wanted(args) -> bool:
    """Whether the run goes to a Dask cluster."""
    return args.workers is not None or args.cluster is not None


def check_args(args) -> None:
    """Refuse flags that do not combine, and a missing Dask, before anything is read."""
    if not wanted(args):
        return
    if args.workers is not None and args.cluster is not None:
        raise InputError("give --workers N (a new local cluster) or --cluster ADDRESS, not both")
    if args.workers is not None and args.workers < 1:
        raise InputError(f"--workers must be at least 1, got {args.workers}")
    if len(args.input) != 1 or not Path(args.input[0]).is_dir() or not args.output:
        raise InputError("--workers and --cluster run a directory of inputs: --input DIR/ --output OUTDIR/")
    for flag in ("dump", "profile", "stop_at", "precision", "find_nonfinite", "random_inputs"):
        if getattr(args, flag, None):
            raise InputError(f"--{flag.replace('_', '-')} does not combine with --workers or --cluster")
    from ..distributed.cluster import require_dask
    require_dask()


class Progress:
    """``inputs [#####.....] 12/40  3.1/s  1 failed`` (:class:`irrun.io.progress.Progress`, the
    shared line): redrawn at every result; failure messages go above it. Drawn only when ``show``
    (a terminal, or ``--progress``)."""

    def __init__(self, total: int, stream: TextIO, show: bool):
        self.bar = SharedProgress("inputs", total, stream, show=show, delay=0, interval=0)
        self.failed = 0
        if show:
            self.bar.draw()

    def update(self, name: str, failure) -> None:
        if failure is not None:
            self.failed += 1
            self.bar.message(f"irrun: {failure}; skipped")
        self.bar.step(name, suffix=f"{self.failed} failed" if self.failed else "")

    def clear(self) -> None:
        self.bar.clear()


def main(args, files: list[Path]) -> int:
    """Run ``files`` (the .npy/.npz of ``--input DIR/``) on the cluster; one OUTDIR/<stem>.npz each."""
    from ..distributed import prepare, run_prepared
    batch = prepare(args.model, files, args.output)          # every destination, before the cluster
    show = args.progress or (sys.stderr.isatty() and not is_quiet())
    t0 = time.perf_counter()
    with _client(args, show) as client:
        setup = time.perf_counter() - t0
        progress = Progress(len(files), sys.stderr, show)
        result = run_prepared(batch, client, max_memory=args.max_memory, on_result=progress.update,
                              max_iterations=args.max_iterations,
                              threads=1 if args.threads is None else args.threads)
        progress.clear()
    n = len(files)
    where = f"a local cluster of {result.workers}" if args.workers else f"{result.workers}"
    print(f"ran {n} input file{'s' * (n != 1)} from {printable(args.input[0])} on {where} "
          f"worker{'s' * (result.workers != 1)} in {result.seconds:.1f} s ({n / result.seconds:.2f} "
          f"inputs/s; {setup:.1f} s to start the cluster): {len(result.written)} written to "
          f"{printable(args.output)}, {len(result.failed)} failed")
    if result.failed:
        print("failed: " + ", ".join(printable(Path(f.input).name) for f in result.failed[:20])
              + (f" and {len(result.failed) - 20} more" if len(result.failed) > 20 else ""))
        return EXIT_FINDINGS
    return EXIT_OK


@contextmanager
def _client(args, show: bool) -> Iterator[Any]:
    """A client on a new local cluster (``--workers``) or on the scheduler at ``--cluster``."""
    from ..distributed.cluster import connect, local_cluster
    if args.workers is not None:
        if show:
            sys.stderr.write(f"starting a local Dask cluster of {args.workers} worker processes...")
            sys.stderr.flush()
        with local_cluster(args.workers) as client:
            yield client
        return
    with connect(args.cluster) as client:
        yield client
