"""Progress on long work — compare, ``--dump``, ``--profile``, ``reshape``/``check`` of a big
model, ``-i DIR/`` and ``--workers`` runs: one line on stderr, redrawn in place. The one helper for
all of them (the zoo tools use it too).

A user who waits 25 s in silence thinks irrun hangs; a script that pipes irrun's output must not
get a bar in its logs. So the line is drawn only when stderr is a terminal (or the caller forces
it: ``--workers --progress``), never under ``--quiet`` (:func:`set_quiet`), and only once the work
has taken :data:`DELAY` seconds, so quick commands print what they always printed. Redraws come
at most every :data:`INTERVAL` seconds; the line is erased when the work ends, so what the command
prints next starts on a clean line; :meth:`Progress.message` prints a line above it (a skipped
input). Names in the line go through :func:`irrun.errors.printable`.

    with progress("comparing", total=len(ports)) as bar:
        for port in ports:
            ...
            bar.step(port)            # one unit done; the text says what is being worked on

    with waiting("OpenVINO runs the model"):     # calls that report nothing: the seconds tick by
        subprocess.run(...)
"""
from __future__ import annotations

import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TextIO

from ..errors import printable

#: seconds of work before the line appears
DELAY = 0.5
#: seconds between redraws
INTERVAL = 0.1
WIDTH = 30

_quiet = False


def set_quiet(quiet: bool) -> None:
    """``--quiet``: no progress lines (nor notes: :func:`note`) for the rest of the process."""
    global _quiet
    _quiet = bool(quiet)


def is_quiet() -> bool:
    return _quiet


def note(text: str, stream: TextIO | None = None) -> None:
    """A remark that is not an error (an input converted, a random input's dims guessed) on
    stderr as ``irrun: note: ...``; silenced by ``--quiet``."""
    if not _quiet:
        print(f"irrun: note: {text}", file=stream or sys.stderr)


def is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


class Progress:
    """``what [#####.....] 12/40  3.1/s  1 failed  4s  name`` (``total`` None: ``what: 12  4s``)."""

    def __init__(self, what: str, total: int | None = None, stream: TextIO | None = None,
                 show: bool | None = None, delay: float | None = None, interval: float | None = None):
        self.what, self.total = what, total
        self.stream = stream or sys.stderr
        self.show = (not _quiet and is_terminal(self.stream)) if show is None else show
        self.delay = DELAY if delay is None else delay
        self.interval = INTERVAL if interval is None else interval
        self.done = 0
        self.start = time.monotonic()
        self._drawn_at = float("-inf")
        self._width = 0
        self._lock = threading.Lock()
        self._text = self._suffix = ""

    def step(self, text: object = "", n: int = 1, suffix: str = "") -> None:
        """``n`` more units done; ``text`` names what comes next, ``suffix`` adds a count."""
        self.done += n
        self._text, self._suffix = printable(text)[:40], suffix
        now = time.monotonic()
        if self.show and now - self.start >= self.delay and now - self._drawn_at >= self.interval:
            self.draw()

    def draw(self) -> None:
        with self._lock:
            elapsed = time.monotonic() - self.start
            if self.total:
                filled = WIDTH * min(self.done, self.total) // self.total
                line = f"{self.what} [{'#' * filled}{'.' * (WIDTH - filled)}] {self.done}/{self.total}"
                line += f"  {self.done / max(elapsed, 1e-9):.1f}/s"
            else:
                line = f"{self.what}: {self.done}" if self.done else f"{self.what}..."
            for extra in (self._suffix, f"{elapsed:.0f}s", self._text):
                if extra:
                    line += f"  {extra}"
            self.stream.write("\r" + line.ljust(self._width))
            self.stream.flush()
            self._drawn_at, self._width = time.monotonic(), len(line)

    def message(self, line: str) -> None:
        """A line of its own above the progress line (printed whether or not the line is shown)."""
        self.clear()
        self.stream.write(line + "\n")
        self.stream.flush()
        if self.show and self._width == 0 and self.done:
            self.draw()

    def clear(self) -> None:
        with self._lock:
            if self._width:
                self.stream.write("\r" + " " * self._width + "\r")
                self.stream.flush()
                self._width = 0


@contextmanager
def progress(what: str, total: int | None = None, stream: TextIO | None = None,
             show: bool | None = None) -> Iterator[Progress]:
    """A :class:`Progress` whose line is erased when the block ends (also on an error)."""
    bar = Progress(what, total, stream, show)
    try:
        yield bar
    finally:
        bar.clear()


@contextmanager
def waiting(what: str, total: int | None = None, stream: TextIO | None = None) -> Iterator[Progress]:
    """For long calls that report nothing (a child process, a big file written, a whole model run
    per step): the elapsed seconds tick by on the line, redrawn from a daemon thread, until the
    block ends; the yielded :class:`Progress` still counts steps when the caller has them."""
    bar = Progress(what, total, stream)
    if not bar.show:
        yield bar
        return
    stop = threading.Event()

    def tick() -> None:
        while not stop.wait(bar.interval if time.monotonic() - bar.start >= bar.delay else bar.delay):
            bar.draw()

    thread = threading.Thread(target=tick, name="irrun-progress", daemon=True)
    thread.start()
    try:
        yield bar
    finally:
        stop.set()
        thread.join()
        bar.clear()
