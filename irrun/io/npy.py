"""Read the user's input arrays (.npy / .npz) without trusting them.

The 10-byte preamble and the header are read here, bounded (numpy's own np.load allocates before
it checks, reads a 4 GB header length first, and leaks non-documented exceptions — see
input-safety.md); pickled (object) arrays are refused; the byte count the header promises is
checked against the file (or zip member) size and the memory budget, and dtype and shape against
the model (``expect``), before any data is read. Every failure is an :class:`InputError` (or a
:class:`~irrun.limits.memory.MemoryBudgetError`) naming the file.
"""
from __future__ import annotations

import io
import os
import zipfile
from collections.abc import Callable

import numpy as np

from ..errors import InputError, IrrunError
from ..limits import memory as budget
from .files import open_regular

MAX_HEADER = 65536


#: Signature check run on each header before its data is read: (member key or None, dtype, shape).
Expect = Callable[[str | None, np.dtype, tuple[int, ...]], None]


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
    if dtype.itemsize == 0 or dtype.fields is not None or dtype.subdtype is not None:
        raise InputError(f"unsupported .npy dtype {dtype} (irrun reads plain numeric, bool and "
                         "unicode arrays)", file=name)
    if any(type(d) is not int or d < 0 for d in shape):
        raise InputError(f"invalid .npy shape {shape}", file=name)
    return dtype, tuple(shape), fortran


def _checked_header(f, name: str, key: str | None, expect: Expect | None):
    """The header, refused if the model does not want this dtype/shape or it exceeds the budget."""
    dtype, shape, fortran = _read_header(f, name)
    if expect is not None:
        try:
            expect(key, dtype, shape)
        except InputError as e:           # the model's complaint, about this file
            raise InputError(e.message, file=name) from None
    nbytes = budget.nbytes(shape, dtype)
    if nbytes > budget.current():
        raise budget.MemoryBudgetError(budget.over_message(f"the array {dtype}{list(shape)}", nbytes,
                                                           budget.current()), file=name)
    return dtype, shape, fortran, nbytes


def _read_array(f, name: str, available: int, key: str | None = None,
                expect: Expect | None = None) -> np.ndarray:
    dtype, shape, fortran, nbytes = _checked_header(f, name, key, expect)
    if nbytes > available - f.tell():
        raise InputError(f".npy header promises {nbytes} bytes of {dtype} {list(shape)} but the "
                         f"file holds {max(available - f.tell(), 0)}", file=name)
    data = f.read(nbytes)
    if len(data) != nbytes:
        raise InputError(f"the file ends after {len(data)} of {nbytes} data bytes", file=name)
    try:
        arr = np.frombuffer(data, dtype=dtype)
        return arr.reshape(shape[::-1]).T if fortran else arr.reshape(shape)
    except (ValueError, TypeError) as e:
        raise InputError(f"cannot read the array data: {e}", file=name) from None


def load_npy(path: str, expect: Expect | None = None) -> np.ndarray:
    """One array from a .npy; ``expect(None, dtype, shape)`` may refuse it before the data is read."""
    f = open_regular(path)
    try:
        with f:
            return _read_array(f, path, os.fstat(f.fileno()).st_size, None, expect)
    except OSError as e:
        raise InputError(f"cannot read the file: {e.strerror or e}", file=path) from None


def load_npz(path: str, expect: Expect | None = None) -> dict[str, np.ndarray]:
    """Every member of an .npz (name without .npy -> array). Each member's declared size is
    checked against the memory budget and its header against ``expect(key, dtype, shape)``
    before it is decompressed; decompression stops at the declared size (zip bombs)."""
    raw = open_regular(path)
    try:
        zf = zipfile.ZipFile(raw)
    except (zipfile.BadZipFile, OSError, ValueError, EOFError) as e:
        raw.close()
        raise InputError(f"not a valid .npz (zip) file: {e}", file=path) from None
    out = {}
    with raw, zf:
        for info in zf.infolist():
            member = f"{path}[{info.filename}]"
            if not info.filename.endswith(".npy"):
                raise InputError("member is not a .npy array", file=member)
            key = info.filename[:-4]
            if key in out:
                raise InputError(f'the archive holds "{key}" twice', file=member)
            if info.file_size > budget.current():
                raise budget.MemoryBudgetError(budget.over_message(
                    "the member, decompressed,", info.file_size, budget.current()), file=member)
            try:
                with zf.open(info) as f:
                    head = f.read(min(info.file_size, MAX_HEADER + 12))
                    _checked_header(io.BytesIO(head), member, key, expect)   # before inflating
                    data = head + f.read(info.file_size + 1 - len(head))
            except IrrunError:
                raise
            except Exception as e:   # zipfile raises BadZipFile, zlib.error, NotImplementedError...
                raise InputError(f"cannot read member: {type(e).__name__}: {e}", file=member) from None
            out[key] = _read_array(io.BytesIO(data), member, len(data), key, expect)
    return out


#: Fixed-width unicode arrays with wider items than this are converted element by element:
#: NumPy's ``astype(StringDType)`` buffers whole items (a U20000000 array of 4 items took 10 GB
#: and 30 s; one of U80000000 raised MemoryError).
_WIDE = 4096


def as_strings(arr: np.ndarray, name: str = "the input") -> np.ndarray:
    """A ``<U`` array (what .npy files hold) as the StringDType array string inputs take,
    refused when the result would not fit the memory budget beside the original."""
    from ..types.elements import STRING_DTYPE
    need = budget.STRING_ITEMSIZE * arr.size + arr.nbytes // 4       # 16 + one byte per character
    if need + arr.nbytes > budget.current():
        raise budget.MemoryBudgetError(budget.over_message(
            f"{name} as strings (string{list(arr.shape)})", need + arr.nbytes, budget.current()))
    try:
        if arr.dtype.itemsize <= _WIDE:
            return arr.astype(STRING_DTYPE)
        out = np.empty(arr.shape, STRING_DTYPE)
        flat, src = out.reshape(-1), arr.reshape(-1)
        for i in range(src.size):
            flat[i] = str(src[i])
        return out
    except MemoryError:
        raise budget.MemoryBudgetError(f"out of memory converting {name} to strings "
                                       f"(string{list(arr.shape)})") from None
