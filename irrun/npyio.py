"""Read the user's input arrays (.npy / .npz) without trusting them.

The 10-byte preamble and the header are read here, bounded (numpy's own np.load allocates before
it checks, reads a 4 GB header length first, and leaks non-documented exceptions — see
input-safety.md); pickled (object) arrays are refused; the byte count the header promises is
checked against the file (or zip member) size before any data is read. Every failure is an
:class:`InputError` naming the file.
"""
from __future__ import annotations

import io
import os
import zipfile

import numpy as np

from .errors import InputError

MAX_HEADER = 65536


def _read_header(f, name: str) -> tuple[np.dtype, tuple[int, ...], bool]:
    try:
        version = np.lib.format.read_magic(f)
    except Exception:
        raise InputError("not a .npy file (bad magic bytes)", file=name) from None
    try:
        if version == (1, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_1_0(f, max_header_size=MAX_HEADER)
        elif version in ((2, 0), (3, 0)):
            hlen = int.from_bytes(f.read(4), "little")
            if hlen > MAX_HEADER:
                raise InputError(f".npy header of {hlen} bytes is too large", file=name)
            f.seek(-4, io.SEEK_CUR)
            shape, fortran, dtype = np.lib.format.read_array_header_2_0(f, max_header_size=MAX_HEADER)
        else:
            raise InputError(f"unsupported .npy format version {version}", file=name)
    except InputError:
        raise
    except Exception as e:
        raise InputError(f"corrupted .npy header ({type(e).__name__}: {e})", file=name) from None
    if dtype.hasobject:
        raise InputError("the array holds Python objects (pickled data); irrun never unpickles",
                         file=name)
    if any(int(d) < 0 for d in shape):
        raise InputError(f"negative dimension in .npy shape {shape}", file=name)
    return dtype, tuple(int(d) for d in shape), fortran


def _read_array(f, name: str, available: int) -> np.ndarray:
    dtype, shape, fortran = _read_header(f, name)
    nbytes = int(np.prod(shape, dtype=object)) * dtype.itemsize
    if nbytes > available - f.tell():
        raise InputError(f".npy header promises {nbytes} bytes of {dtype} {list(shape)} but the "
                         f"file holds {max(available - f.tell(), 0)}", file=name)
    data = f.read(nbytes)
    arr = np.frombuffer(data, dtype=dtype)
    if fortran:
        return arr.reshape(shape[::-1]).T
    return arr.reshape(shape)


def load_npy(path: str) -> np.ndarray:
    if not os.path.isfile(path):
        raise InputError("no such file", file=path)
    with open(path, "rb") as f:
        return _read_array(f, path, os.path.getsize(path))


def load_npz(path: str, max_bytes: int | None = None) -> dict[str, np.ndarray]:
    """Every member of an .npz (name without .npy -> array); members are size-checked first."""
    if not os.path.isfile(path):
        raise InputError("no such file", file=path)
    try:
        zf = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as e:
        raise InputError(f"not a valid .npz (zip) file: {e}", file=path) from None
    out = {}
    with zf:
        for info in zf.infolist():
            member = f"{path}[{info.filename}]"
            if not info.filename.endswith(".npy"):
                raise InputError("member is not a .npy array", file=member)
            if max_bytes is not None and info.file_size > max_bytes:
                raise InputError(f"member would decompress to {info.file_size} bytes, more than "
                                 f"the {max_bytes} allowed", file=member)
            try:
                with zf.open(info) as f:
                    data = f.read(info.file_size + 1)
            except (zipfile.BadZipFile, OSError, EOFError, ValueError) as e:
                raise InputError(f"cannot read member: {e}", file=member) from None
            out[info.filename[:-4]] = _read_array(io.BytesIO(data), member, len(data))
    return out
