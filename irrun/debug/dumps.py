"""The dump directory (``tensors.npz`` + ``manifest.json``): writing it, and reading one back
without trusting it (``compare --reference DIR`` may be handed anything).

``tensors.npz`` holds one array per key; types .npz cannot hold are stored as their bits (bf16,
f8, 4-bit types: unsigned ints of the same width) and strings in the IR's own string encoding as
uint8 (int32 count, int32 end offsets, UTF-8 bytes) — fixed-width unicode would widen every
string to the longest one. ``manifest.json`` gives each key's ``dtype`` and ``shape``, which
:func:`load_tensors` uses to restore them. The manifest is bounded (size, nesting) and checked
against a small schema; an array that does not match its entry is refused naming the file and
the key (exit 2), never passed on.
"""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import ml_dtypes
import numpy as np

from ..errors import InputError
from ..io import writers
from ..io.files import open_regular
from ..io.npy import load_npz
from ..io.outputs import storable
from ..limits import memory as budget
from ..types import elements

TENSORS, MANIFEST = "tensors.npz", "manifest.json"
#: manifest.json bigger than this is refused before it is read (a real one: ~300 bytes per tensor)
MAX_MANIFEST = 64 << 20


def stats(a: np.ndarray) -> dict:
    """min, max, mean over the finite values (None for strings or when there are none), NaN and
    Inf counts. Integer min/max stay exact ints."""
    out: dict[str, Any] = dict(min=None, max=None, mean=None, nan=0, inf=0)
    if a.size == 0 or a.dtype.kind in "TUSO":
        return out
    f = a.astype(np.float64)
    finite = np.isfinite(f)
    out["nan"], out["inf"] = int(np.isnan(f).sum()), int(np.isinf(f).sum())
    if a.dtype.kind in "iub":
        out.update(min=a.min().item(), max=a.max().item(), mean=float(f.mean()))
    elif finite.any():
        v = f if finite.all() else f[finite]
        with np.errstate(over="ignore"):           # the mean of huge finite values may overflow
            out.update(min=float(v.min()), max=float(v.max()), mean=float(v.mean()))
    if a.dtype.kind == "b":
        out.update(min=int(out["min"]), max=int(out["max"]))
    return out


def dtype_name(a: np.ndarray) -> str:
    return "string" if a.dtype.kind == "T" else str(a.dtype)


def _packed(a: np.ndarray) -> np.ndarray:
    """The dump's form of an array: strings IR-encoded as uint8, ml_dtypes types as their bits."""
    if a.dtype.kind == "T":
        from ..ir.builder import encode_strings
        return np.frombuffer(encode_strings(a), np.uint8)
    return storable(a)


def dump_target(directory: str | os.PathLike, protect=()) -> Path:
    """Check, before a run, that a dump can be written to ``directory`` (OutputError if not)."""
    return writers.directory_of(directory, (TENSORS, MANIFEST), protect=protect)


def save_tensors(directory: str | os.PathLike, entries: list[tuple[dict, np.ndarray]],
                 protect=(), **header) -> Path:
    """Write ``(fields, array)`` pairs (fields must hold ``key``) as a dump directory, both files
    or neither."""
    d = dump_target(directory, protect)
    rows = ["  " + json.dumps(dict(f, shape=list(np.shape(a)), dtype=dtype_name(np.asarray(a)),
                                   **stats(np.asarray(a)))) for f, a in entries]
    head = json.dumps(header)[1:-1]
    manifest = ("{" + head + (", " if head else "") + '"tensors": [\n' + ",\n".join(rows) + "\n]}\n")
    arrays = {f["key"]: _packed(np.asarray(a)) for f, a in entries}
    writers.write_files([(d / TENSORS, writers.npz(arrays)), (d / MANIFEST, writers.data(manifest))],
                        protect=protect)
    return d


# ---------------------------------------------------------------------------------------------
# Reading a dump

def _bad(path: Path, why: str) -> InputError:
    return InputError(f"not a valid dump manifest: {why}", file=str(path))


def read_manifest(path: Path) -> dict:
    """manifest.json, bounded and checked: an object whose ``tensors`` is a list of objects with a
    string ``key``, and, when present, a string ``dtype`` and a ``shape`` of non-negative ints."""
    try:
        with open_regular(path) as f:                  # a FIFO or a link loop: named, not skipped
            size = os.fstat(f.fileno()).st_size
            if size > MAX_MANIFEST:
                raise _bad(path, f"{size} bytes, more than the {MAX_MANIFEST} irrun reads")
            text = f.read(MAX_MANIFEST + 1)
        manifest = json.loads(text)
    except InputError:
        raise
    except (ValueError, OSError, RecursionError, MemoryError) as e:
        why = "nested too deeply" if isinstance(e, RecursionError) else f"{type(e).__name__}: {e}"
        raise _bad(path, why) from None
    if not isinstance(manifest, dict):
        raise _bad(path, f"the top level is a {type(manifest).__name__}, not an object")
    tensors = manifest.get("tensors", [])
    if not isinstance(tensors, list):
        raise _bad(path, '"tensors" is not a list')
    for i, t in enumerate(tensors):
        where = f"tensors[{i}]"
        if not isinstance(t, dict):
            raise _bad(path, f"{where} is not an object")
        if not isinstance(t.get("key"), str):
            raise _bad(path, f'{where} has no string "key"')
        if "dtype" in t and not isinstance(t["dtype"], str):
            raise _bad(path, f'{where} "dtype" is not a string')
        shape = t.get("shape")
        if shape is not None and not (isinstance(shape, list) and all(
                type(d) is int and 0 <= d < budget.NUMPY_MAX for d in shape)
                and len(shape) <= budget.NUMPY_MAXDIMS):
            raise _bad(path, f'{where} "shape" is not a list of dims')
    return manifest


def _restore(a: np.ndarray, entry: dict, member: str) -> np.ndarray:
    """The array a dump member stands for, per its manifest entry; InputError when they disagree."""
    dtype, shape = entry.get("dtype"), entry.get("shape")
    try:
        if dtype == "string":
            if a.dtype.kind == "U":                              # an older dump: unicode
                out = a.astype(elements.STRING_DTYPE)
            elif a.dtype == np.uint8 and a.ndim == 1 and shape is not None:
                out = elements.decode(a, elements.TYPES["string"], tuple(shape))
            else:
                raise ValueError(f"a string tensor stored as {a.dtype}{list(a.shape)}")
        elif dtype and dtype != str(a.dtype) and hasattr(ml_dtypes, dtype):
            want = np.dtype(getattr(ml_dtypes, dtype))
            if a.dtype.kind != "u" or a.dtype.itemsize != want.itemsize:
                raise ValueError(f"{dtype} stored as {a.dtype} (needs {want.itemsize}-byte unsigned ints)")
            out = a.view(want)
        elif dtype and dtype != str(a.dtype):
            raise ValueError(f"the manifest says {dtype}, the array is {a.dtype}")
        else:
            out = a
    except (ValueError, TypeError) as e:
        raise InputError(f"the tensor does not match its manifest entry: {e}", file=member) from None
    if shape is not None and list(out.shape) != shape:
        raise InputError(f"the tensor has shape {list(out.shape)}, its manifest entry {shape}", file=member)
    return out


def load_tensors(path: str | os.PathLike) -> tuple[dict[str, np.ndarray], dict]:
    """A dump (its directory or its tensors.npz) or any .npz keyed like one: arrays by key, and
    the manifest (``{"tensors": []}`` when there is none beside the .npz)."""
    p = Path(path)
    npz = p / TENSORS if p.is_dir() else p
    arrays = load_npz(str(npz))
    man_path = npz.parent / MANIFEST
    manifest = read_manifest(man_path) if os.path.lexists(man_path) else {"tensors": []}
    entries = {t["key"]: t for t in manifest.get("tensors", ())}
    return {k: _restore(a, entries.get(k, {}), f"{npz}[{k}.npy]") for k, a in arrays.items()}, manifest
