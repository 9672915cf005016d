"""Every file irrun reads is opened here: checked to be a regular file without blocking, and
recorded so that no output of the same command can overwrite it.

* **Regular files only, no hang.** :func:`open_regular` opens with ``O_NONBLOCK`` (opening a FIFO
  with no writer would otherwise wait forever) and checks ``fstat`` before a byte is read; a FIFO,
  a device, a directory or a link loop is an error naming the file (exit 2), never a hang, a read
  of ``/dev/zero`` or a silently skipped file.
* **Recorded.** Inside :func:`command` (the CLI wraps every command in it) each file opened here
  is remembered; :mod:`irrun.io.writers` refuses to write over any of them (``os.path.samefile``, so
  links count). The protected set is thus the files actually read — each file of an ``-i DIR/``,
  a reference's .xml/.bin, a dump's files — not the paths as typed. Outside :func:`command` (the
  library) nothing is recorded: a program may well write a file it read earlier.
"""
from __future__ import annotations

import contextlib
import contextvars
import os
import stat
from collections.abc import Iterator
from typing import BinaryIO

from ..errors import InputError, IrrunError

_READ: contextvars.ContextVar[list[str] | None] = contextvars.ContextVar("irrun_files_read", default=None)


@contextlib.contextmanager
def command() -> Iterator[list[str]]:
    """Record the files read until the block ends (one command); yields the list."""
    files: list[str] = []
    token = _READ.set(files)
    try:
        yield files
    finally:
        _READ.reset(token)


def files_read() -> list[str]:
    """The files read so far in this command (empty outside :func:`command`)."""
    return list(_READ.get() or ())


def record(path: str | os.PathLike) -> None:
    """Count ``path`` as read by this command (protected from its outputs)."""
    files = _READ.get()
    if files is not None and str(path) not in files:
        files.append(str(path))


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISDIR, "a directory"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "not a regular file"


def open_regular(path: str | os.PathLike, error: type[IrrunError] = InputError) -> BinaryIO:
    """``path`` opened for reading (binary), after checking it is a regular file; ``error`` (exit 2)
    naming the file otherwise. Opening never blocks (``O_NONBLOCK``; cleared again for the read)."""
    p = str(path)
    try:
        fd = os.open(p, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError as e:
        why = "no such file" if isinstance(e, FileNotFoundError) else f"cannot read the file: {e.strerror or e}"
        raise error(why, file=p) from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise error(f"is {_kind(mode)}, not a regular file; irrun reads only regular files"
                        if _kind(mode) != "not a regular file" else "not a regular file", file=p)
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        f = os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise
    record(p)
    return f


def check_regular(path: str | os.PathLike, error: type[IrrunError] = InputError) -> None:
    """:func:`open_regular` for readers that open the file themselves (zipfile, mmap)."""
    open_regular(path, error).close()
