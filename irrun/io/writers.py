"""Every file irrun writes goes through here: checked first, written atomically, never through a link.

Rules (README "Untrusted files"):

* **Checked before the work.** :func:`destination` refuses, with an :class:`OutputError` (exit 2)
  naming the path, a final name that is a symbolic link, a directory where a file is expected (or
  a file where a directory is), a device or pipe, a path under a regular file, an unwritable
  directory, and any file in ``protect`` (the model's .xml/.bin and the input files, compared with
  ``os.path.samefile``, so hard links and other spellings of the same path count too) or read so
  far by the command (:mod:`irrun.io.files` records every file it opens; checked again just
  before the rename, so a file read during the run is covered too). Commands call it before
  running the model, so a bad ``-o`` fails in a second, not after the run.
* **Distinct.** :func:`distinct` refuses two outputs of one command that are one file (two
  spellings of a path, or links to one file), before anything runs.
* **Atomic.** :func:`write_files` writes each file to a temporary file in its target directory
  (``O_EXCL``, so never through a planted name) and renames it over the final name; a rename
  replaces a symlink planted there in the meantime instead of following it. Several files (a dump,
  an extracted IR, an IR and its .bin) are all written to temporary files first and renamed only
  when every one succeeded. On failure the temporary files, and any directory irrun created for
  them, are removed: nothing is left behind.
* Missing parent directories are created (and removed again if the write fails).

Only the last component of a path is refused as a link: the directories above it are the user's.
"""
from __future__ import annotations

import os
import shutil
import stat
import tempfile
import zipfile
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import BinaryIO

import numpy as np

from ..errors import OutputError, printable
from .files import files_read

#: Fills an open (binary, seekable) temporary file with a file's content.
Fill = Callable[[BinaryIO], object]


def model_files(model) -> list[str]:
    """The files a model was read from (never written over)."""
    return [p for p in (model.ir.xml_path, model.ir.bin_path) if p]


def _why_not(path: Path, directory: bool, protect: Iterable[str | os.PathLike]) -> str | None:
    """Why ``path`` must not be written (None: fine)."""
    if os.path.islink(path):
        return "is a symbolic link; irrun does not write through links (remove it or pick another name)"
    if path.exists():
        mode = path.stat().st_mode
        if directory and not stat.S_ISDIR(mode):
            return "is a file, not a directory"
        if not directory and stat.S_ISDIR(mode):
            return "is a directory; give a file name"
        if not directory and not stat.S_ISREG(mode):
            return "is not a regular file"
        for q in [*protect, *files_read()]:
            try:
                if os.path.samefile(path, q):
                    return "is one of the files this command reads (the model or an input, a reference " \
                           "or a dump); irrun never overwrites them"
            except OSError:
                continue
        return None
    parent = path.parent
    while not parent.exists() and not os.path.islink(parent) and parent != parent.parent:
        parent = parent.parent
    if not parent.is_dir():
        return f"cannot be created: {parent} is not a directory"
    if not os.access(parent, os.W_OK | os.X_OK):
        return f"cannot be created: no permission to write in {parent}"
    return None


def destination(path: str | os.PathLike, *, protect: Iterable[str | os.PathLike] = (),
                directory: bool = False) -> Path:
    """``path`` as a Path, after checking it may be written (see the module docstring)."""
    p = Path(path)
    why = _why_not(p, directory, list(protect))
    if why:
        raise OutputError(why, file=str(p))
    if directory and p.exists() and not os.access(p, os.W_OK | os.X_OK):
        raise OutputError("no permission to write in this directory", file=str(p))
    return p


def directory_of(directory: str | os.PathLike, names: Iterable[str], *,
                 protect: Iterable[str | os.PathLike] = ()) -> Path:
    """:func:`destination` for a directory and the files with fixed ``names`` written into it (a
    dump, an extract), checked before the work; two of them that are one file (hard links planted
    there) are refused too."""
    protect = list(protect)
    d = destination(directory, directory=True, protect=protect)
    files = [destination(d / name, protect=protect) for name in names]
    distinct((f"{shown(directory)}/{name}", f) for name, f in zip(names, files))
    return d


def _same(a: Path, b: Path) -> bool:
    try:
        if os.path.samefile(a, b):
            return True
    except OSError:
        pass
    return os.path.normcase(os.path.abspath(a)) == os.path.normcase(os.path.abspath(b)) or \
        (a.parent.exists() and b.parent.exists() and a.name == b.name and _dir_same(a.parent, b.parent))


def _dir_same(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def distinct(outputs: Iterable[tuple[str, str | os.PathLike | None]]) -> None:
    """Refuse (OutputError, exit 2) two outputs of one command that are the same file: the same
    path spelled differently, a file name through a linked directory, or two links to one file.
    ``outputs``: (option, path) pairs; a None path (option not given) is skipped. Called before
    the run, so the second output never silently replaces the first."""
    given = [(opt, Path(p)) for opt, p in outputs if p is not None and str(p) != ""]
    for i, (opt_a, a) in enumerate(given):
        for opt_b, b in given[:i]:
            if _same(a, b):
                raise OutputError(f"{opt_b} and {opt_a} would write the same file ({shown(b)}); "
                                  "give each output its own name", file=str(a))


def _missing_dirs(directory: Path) -> list[Path]:
    """The directories that do not exist yet on the way to ``directory``, outermost first."""
    out = []
    while not directory.exists() and directory != directory.parent:
        out.append(directory)
        directory = directory.parent
    return out[::-1]


def _umask_mode() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


def write_files(files: Iterable[tuple[str | os.PathLike, Fill]], *,
                protect: Iterable[str | os.PathLike] = ()) -> list[Path]:
    """Write several files all or nothing: each ``fill(f)`` writes into a temporary file beside its
    target; when all succeeded they are renamed into place. Returns the paths written."""
    targets = [(Path(p), fill) for p, fill in files]
    protect = list(protect)
    for p, _ in targets:
        destination(p, protect=protect)
    made: list[Path] = []
    temps: list[str] = []
    current = targets[0][0] if targets else None
    try:
        for p, fill in targets:
            current = p
            for d in _missing_dirs(p.parent):
                d.mkdir()
                made.append(d)
            fd, tmp = tempfile.mkstemp(prefix=f".{p.name[:64]}.", suffix=".irrun-tmp", dir=p.parent)
            temps.append(tmp)
            with os.fdopen(fd, "wb") as f:
                fill(f)
            os.chmod(tmp, _umask_mode())
        for (p, _), tmp in zip(targets, list(temps)):
            current = p
            destination(p, protect=protect)        # nothing planted there while we wrote
            os.replace(tmp, p)
            temps.remove(tmp)
    except OSError as e:
        _clean(temps, made)
        raise OutputError(f"cannot write the file: {e.strerror or e}", file=str(current)) from None
    except BaseException:
        _clean(temps, made)
        raise
    return [p for p, _ in targets]


def _clean(temps: list[str], made: list[Path]) -> None:
    for tmp in temps:
        try:
            os.unlink(tmp)
        except OSError:
            pass
    for d in reversed(made):
        try:
            d.rmdir()
        except OSError:
            pass


# ---------------------------------------------------------------------------------------------
# Contents

def data(content: bytes | str) -> Fill:
    """A file holding ``content`` (text as UTF-8)."""
    raw = content.encode("utf-8") if isinstance(content, str) else content
    return lambda f: f.write(raw)


def copy_of(src: str | os.PathLike) -> Fill:
    """A byte-for-byte copy of the file ``src``."""
    def fill(f: BinaryIO) -> None:
        with open(src, "rb") as s:
            shutil.copyfileobj(s, f, 1 << 20)
    return fill


def npz(arrays: Mapping[str, np.ndarray]) -> Fill:
    """An .npz (uncompressed zip, one ``<key>.npy`` member per array), written member by member
    with ``np.lib.format.write_array`` — keys are never keyword arguments (``np.savez(file=...)``
    breaks on an output named ``file``) and object arrays are refused, never pickled."""
    def fill(f: BinaryIO) -> None:
        with zipfile.ZipFile(f, "w", zipfile.ZIP_STORED, allowZip64=True) as zf:
            for key, arr in arrays.items():
                with zf.open(f"{key}.npy", "w", force_zip64=True) as m:
                    np.lib.format.write_array(m, np.asanyarray(arr), allow_pickle=False)
    return fill


def npy(arr: np.ndarray) -> Fill:
    """A .npy of one array (no pickling)."""
    return lambda f: np.lib.format.write_array(f, np.asanyarray(arr), allow_pickle=False)


def shown(path: str | os.PathLike) -> str:
    """A path as messages print it."""
    return printable(str(path))
