"""Progress on long work (compare, ``--dump``, ``reshape``/``check`` of a big model, ``-i DIR/``,
the zoo tools): one line on stderr, redrawn in place.

A user who waits 25 s in silence thinks irrun hangs; a script that pipes irrun's output must not
get a bar in its logs. So the line is drawn only when stderr is a terminal, never when it is piped
or a file, never under ``--quiet`` (:func:`set_quiet`), and only once the work has taken
:data:`DELAY` seconds (quick commands stay as they were). Redraws are at most every
:data:`INTERVAL` seconds, and the line is erased when the work ends, so what the command prints
afterwards starts on a clean line. Names in the line go through :func:`irrun.errors.printable`.

    with progress("comparing", total=len(layers)) as step:
        for layer in layers:
            ...
            step(layer.name)          # one unit done; the text shows what is being worked on
"""
from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
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


def shown(stream: TextIO | None = None) -> bool:
    """Whether progress lines go to ``stream`` (default stderr): a terminal, and not quiet."""
    s = stream or sys.stderr
    try:
        return not _quiet and s.isatty()
    except (AttributeError, ValueError):
        return False


@contextmanager
def progress(what: str, total: int | None = None, stream: TextIO | None = None
             ) -> Iterator[Callable[..., None]]:
    """Yields ``step(text="", n=1)``: call it when ``n`` units of ``total`` are done (``total``
    None: a count without a bar). Draws nothing unless :func:`shown`."""
    s = stream or sys.stderr
    if not shown(s):
        yield lambda text="", n=1: None
        return
    start = time.monotonic()
    done = 0
    last_time, last_width = 0.0, 0        # of the last redraw

    def draw(text: str) -> None:
        nonlocal last_time, last_width
        elapsed = time.monotonic() - start
        if total:
            filled = WIDTH * min(done, total) // total
            line = f"{what} [{'#' * filled}{'.' * (WIDTH - filled)}] {done}/{total}"
        else:
            line = f"{what}: {done}"
        line += f" {elapsed:.0f}s"
        if text:
            line += f"  {printable(text)[:40]}"
        s.write("\r" + line.ljust(last_width))
        s.flush()
        last_time, last_width = time.monotonic(), len(line)

    def step(text: str = "", n: int = 1) -> None:
        nonlocal done
        done += n
        now = time.monotonic()
        if now - start >= DELAY and now - last_time >= INTERVAL:
            draw(text)

    try:
        yield step
    finally:
        if last_width:
            s.write("\r" + " " * last_width + "\r")
            s.flush()
