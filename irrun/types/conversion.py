"""Inputs of another dtype than their Parameter: converted as OpenVINO's Python API converts them.

OpenVINO's ``compiled_model(x)`` and ``InferRequest.infer`` take any numeric array and convert it
to the Parameter's element type with NumPy's ``astype`` (checked with OpenVINO 2026.4 in a child
process over f32, f16, f64, i64, i32, i8, u8 and boolean Parameters and arrays: every pair runs;
tests/test_input_conversion.py repeats that check). So a float64 array feeds an f32 model and an
int32 array an i64 one, and a user coming from OpenVINO expects irrun to do the same.

``astype`` is also silent where it changes values: 7.5 becomes 7 in an integer Parameter, 300
becomes 44 in a u8 one, 2 becomes True in a boolean one. irrun converts what keeps the values —
floats to floats (rounding to the narrower type is the point of the conversion; a finite value
that overflows to infinity is refused), integers and booleans to floats, integers to integers that
hold them, whole-number floats to integers that hold them, 0/1 to booleans — and refuses the rest
with the ``.astype`` call that would do OpenVINO's conversion on purpose. Strings never convert
to numbers nor back.

``strict()`` (the CLI's ``--strict-inputs``) refuses every other dtype, as irrun did before,
with the same ``.astype`` suggestion.
"""
from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextvars import ContextVar

import numpy as np

from ..errors import InputError, printable

_STRICT: ContextVar[bool] = ContextVar("irrun_strict_inputs", default=False)


@contextlib.contextmanager
def strict(on: bool = True) -> Iterator[None]:
    """Within the block, an input whose dtype is not its Parameter's is refused, not converted."""
    token = _STRICT.set(bool(on))
    try:
        yield
    finally:
        _STRICT.reset(token)


def is_strict() -> bool:
    return _STRICT.get()


def _numeric(dtype: np.dtype) -> bool:
    return dtype.kind in "biuf"


def convertible(dtype: np.dtype, want: np.dtype | None) -> bool:
    """Whether an array of ``dtype`` may be fed (converted) to a Parameter of NumPy type ``want``
    — by dtype alone: the values are checked by :func:`convert`."""
    if want is None or dtype == want:
        return True
    return not is_strict() and _numeric(np.dtype(dtype)) and _numeric(np.dtype(want))


def astype_hint(name: str, want: np.dtype) -> str:
    """The call that converts on purpose, e.g. ``x.astype(np.float32)``."""
    return f"{_identifier(name)}.astype(np.{np.dtype(want).name})"


def refusal(name: str, dtype: np.dtype, etype_name: str, want: np.dtype) -> str:
    """Why an input of ``dtype`` is not taken, with the ``.astype`` that would make it fit."""
    why = " (--strict-inputs)" if is_strict() and _numeric(np.dtype(dtype)) and _numeric(np.dtype(want)) else ""
    return (f'input "{printable(name)}" has dtype {dtype}, the model wants {etype_name} ({np.dtype(want)}){why}; '
            f"convert it first: {astype_hint(name, want)}")


def convert(name: str, arr: np.ndarray, want: np.dtype, etype_name: str, file: str | None = None) -> np.ndarray:
    """``arr`` as ``want`` when the conversion keeps its values (module doc); ``arr`` itself when
    it already is. Raises InputError naming the input, the first value that does not fit, and the
    ``.astype`` that would convert it anyway."""
    if arr.dtype == want:
        return arr
    if not convertible(arr.dtype, want):
        raise InputError(refusal(name, arr.dtype, etype_name, want), file=file)
    src, dst = arr.dtype, np.dtype(want)
    with np.errstate(over="ignore", invalid="ignore"):
        out = arr.astype(dst)
    bad = None
    if dst.kind == "f":
        if src.kind == "f":
            lost = np.isinf(out) & np.isfinite(arr)
            if lost.any():
                bad = ("is too large for", lost)
    elif dst.kind == "b":
        off = (arr != 0) & (arr != 1)
        if off.any():
            bad = ("is neither 0 nor 1 and would become True in", off)
    else:                                              # an integer Parameter
        info = np.iinfo(dst)
        if src.kind == "f":
            wrong = ~np.isfinite(arr) | (arr != np.trunc(arr)) | (arr < info.min) | (arr > info.max)
            if wrong.any():
                bad = ("is not a whole number that fits", wrong)
        elif src.kind in "iu":
            wide = arr.astype(np.int64) if src != np.uint64 else arr
            wrong = (wide < info.min) | (wide > info.max) if src != np.uint64 else arr > info.max
            if np.any(wrong):
                bad = ("does not fit", wrong)
    if bad is not None:
        what, mask = bad
        where = tuple(int(i) for i in np.unravel_index(int(np.argmax(mask)), arr.shape)) if arr.ndim else ()
        value = (arr[where] if arr.ndim else arr[()]).item()
        raise InputError(f'input "{printable(name)}" is {src} and its value {value!r} at [{",".join(map(str, where))}] '
                         f"{what} {etype_name} ({dst}), the model's type; OpenVINO would convert it anyway "
                         f"with astype: if that is what you want, give {astype_hint(name, dst)}", file=file)
    return out


def _identifier(name: str) -> str:
    """An input name as a Python-looking variable for the hint (``input_ids``; ``x`` if it is none)."""
    ident = "".join(c if c.isalnum() or c == "_" else "_" for c in name)
    return ident if ident and not ident[0].isdigit() and ident.isascii() else "x"
