"""Decomposed string and ragged tensors, as openvino-tokenizers passes them between its ops.

* a **string tensor** is three ports ``(begins i32[N], ends i32[N], chars u8[?])``: string ``i``
  is ``chars[begins[i]:ends[i]]`` (UTF-8 bytes, not necessarily valid);
* a **ragged tensor** adds a row level in front: ``(ragged_begins i32[B], ragged_ends i32[B], ...)``,
  row ``b`` holding elements ``ragged_begins[b]:ragged_ends[b]`` of what follows (a string tensor,
  or a flat ``data`` tensor of token ids).

The C++ ops trust these offsets; irrun checks them (a hostile model or input must get an error,
never an out-of-range read) and checks every output size against the memory budget before
building it. Shape rules: all such outputs have dynamic length except the row ports, which keep
their input's shape.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from ...errors import OpError
from ...limits.memory import OverBudget, check_alloc, current, over_message
from ...types.elements import TYPES
from ...types.shapes import DYN, PartialShape
from ..base import TensorInfo

I32, U8, BOOL = TYPES["i32"], TYPES["u8"], TYPES["boolean"]
#: Largest string / vocabulary / text irrun handles in one element (OpenVINO's offsets are i32).
MAX_I32 = 2**31 - 1
#: Bytes a Python bytes/str object costs beyond its text (CPython: 33 for bytes, 49 for an ASCII
#: str, plus 8 for the list slot that holds it, rounded up for the allocator). Ops that turn
#: spans into Python objects count it: 25 million empty vocabulary entries hold no text but cost
#: 1.6 GB.
PY_OBJECT = 64


def expect_types(inputs: Sequence[TensorInfo], first: int, kinds: str, what: str) -> None:
    """Check the element types of ``len(kinds)`` consecutive inputs from ``first``: ``i`` = i32,
    ``u`` = u8, ``b`` = boolean, ``f`` = f32, ``n`` = any integer, ``.`` = anything (OpenVINO's
    check_*_input messages); a dynamic element type passes."""
    want = {"i": I32, "u": U8, "b": BOOL, "f": TYPES["f32"]}
    for k, kind in enumerate(kinds):
        port = first + k
        if port >= len(inputs):
            raise OpError(f"{what} needs input {port}")
        et = inputs[port].etype
        if kind == "." or et.is_dynamic:
            continue
        ok = et.is_integer if kind == "n" else et == want[kind]
        if not ok:
            name = "integer" if kind == "n" else want[kind].name
            raise OpError(f"Expected an {name} tensor as part {k + 1} of the {what}, got {et.name}",
                          port=f"input {port}")


def scalar(value: np.ndarray, port: int) -> int:
    """The first element of an integer input that must hold one (max_length, an id...)."""
    v = np.asarray(value).reshape(-1)
    if v.size == 0:
        raise OpError("expected a scalar, got an empty tensor", port=f"input {port}")
    return int(v[0])


def flat(n: int = 1, etype=I32) -> list[TensorInfo]:
    """``n`` outputs of one dynamic dimension."""
    return [TensorInfo(etype, PartialShape([DYN])) for _ in range(n)]


def ragged_out(shape: PartialShape, etype) -> list[TensorInfo]:
    """(ragged_begins, ragged_ends) of ``shape`` and a flat ``etype`` data tensor."""
    return [TensorInfo(I32, shape), TensorInfo(I32, shape), TensorInfo(etype, PartialShape([DYN]))]


def string_out(shape: PartialShape) -> list[TensorInfo]:
    """(begins, ends) of ``shape`` and the chars: a ragged tensor of bytes."""
    return ragged_out(shape, U8)


def ragged_string_out(shape: PartialShape) -> list[TensorInfo]:
    """(ragged_begins, ragged_ends) of ``shape``, then a flat string tensor."""
    return [TensorInfo(I32, shape), TensorInfo(I32, shape)] + flat(2) + flat(1, U8)


def check_spans(begins: np.ndarray, ends: np.ndarray, size: int, what: str,
                native: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Begins/ends as flat int64 arrays of one shape (``native``: integer arrays as they are,
    for callers that only list them — an int64 copy of a 25-million-entry i32 vocabulary would
    double its memory before :func:`check_text` refuses it), each span inside ``[0, size]`` and
    not reversed."""
    b, e = (a if a.dtype.kind in "iu" else a.astype(np.int64) for a in
            (np.asarray(begins).reshape(-1), np.asarray(ends).reshape(-1)))
    if b.shape != e.shape:
        raise OpError(f"{what}: begins has {b.size} elements, ends {e.size}")
    if b.size and (b.min() < 0 or e.max() > size or np.any(e < b)):
        raise OpError(f"{what}: offsets outside [0, {size}] or an end before its begin")
    return (b, e) if native else (b.astype(np.int64, copy=False), e.astype(np.int64, copy=False))


def check_text(b: np.ndarray, e: np.ndarray, what: str) -> None:
    """Refuse (:class:`OverBudget`) spans whose copies, one Python object each, would pass the
    memory budget. Spans may overlap: 10**5 spans of one 1 MB buffer describe 100 GB, so the
    count is of the bytes they describe, not of the buffer, and is made before any is copied."""
    text = int(e.sum(dtype=np.int64)) - int(b.sum(dtype=np.int64))     # (no temporary array)
    need = text + PY_OBJECT * int(b.size)
    if need > current():
        raise OverBudget(over_message(f"{what} ({b.size} strings, {text} bytes of text "
                                      f"+ {PY_OBJECT} bytes per Python string)", need, current()))


def strings(begins: np.ndarray, ends: np.ndarray, chars: np.ndarray, what: str = "string tensor") -> list[bytes]:
    """The strings of a decomposed string tensor, as bytes (their total size checked first)."""
    buf = np.ascontiguousarray(chars, np.uint8).tobytes()
    b, e = check_spans(begins, ends, len(buf), what, native=True)
    check_text(b, e, what)
    return [buf[i:j] for i, j in zip(b.tolist(), e.tolist())]


def rows(ragged_begins: np.ndarray, ragged_ends: np.ndarray, n: int, what: str = "ragged tensor") -> list[range]:
    """Row ``r`` as the range of its elements (of ``n``)."""
    b, e = check_spans(ragged_begins, ragged_ends, n, what)
    return [range(i, j) for i, j in zip(b.tolist(), e.tolist())]


def pack(items: Sequence[bytes], shape: tuple[int, ...] | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(begins, ends, chars) of ``items`` in order, begins/ends shaped ``shape`` (default flat)."""
    lengths = np.fromiter((len(s) for s in items), np.int64, len(items))
    total = int(lengths.sum())
    if total > MAX_I32:
        raise OpError(f"the strings hold {total} bytes, more than an i32 offset reaches")
    check_alloc((total,), np.dtype(np.uint8), "the string bytes")
    ends = np.cumsum(lengths)
    begins = ends - lengths
    chars = np.frombuffer(b"".join(items), np.uint8).copy() if total else np.zeros(0, np.uint8)
    shape = (len(items),) if shape is None else shape
    return begins.astype(np.int32).reshape(shape), ends.astype(np.int32).reshape(shape), chars


def pack_rows(row_items: Iterable[Sequence], counts_shape: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray, list]:
    """(ragged_begins, ragged_ends, flattened items) of consecutive rows."""
    out: list = []
    begins, ends = [], []
    for items in row_items:
        begins.append(len(out))
        out.extend(items)
        ends.append(len(out))
    if len(out) > MAX_I32:
        raise OpError(f"{len(out)} elements: more than an i32 offset reaches")
    return (np.array(begins, np.int32).reshape(counts_shape), np.array(ends, np.int32).reshape(counts_shape), out)


def int_array(values: Sequence[int], dtype=np.int32) -> np.ndarray:
    check_alloc((len(values),), np.dtype(dtype), "the token ids")
    return np.array(values, dtype).reshape(len(values))


def scalar_text(value: np.ndarray, what: str) -> bytes:
    """A u8 1-D Const that holds a pattern or a name (openvino-tokenizers' string attributes)."""
    return np.ascontiguousarray(value, np.uint8).reshape(-1).tobytes()


def tokenize_rows(inputs, tokenize) -> list[np.ndarray]:
    """Apply ``tokenize(piece: bytes) -> list[int]`` to every string of a ragged string tensor
    (inputs 0..4), once per distinct string; returns the ragged ids (ragged_begins, ragged_ends,
    ids i32)."""
    rb, re_, b, e, chars = inputs[:5]
    items = strings(b, e, chars, "the words")
    row_ranges = rows(rb, re_, len(items), "the word rows")
    memo: dict[bytes, list[int]] = {}       # a word's tokens depend on the word only; text repeats words

    def once(word: bytes) -> list[int]:
        ids = memo.get(word)
        if ids is None:
            ids = memo[word] = tokenize(word)
        return ids
    begins, ends, ids = pack_rows(([t for k in r for t in once(items[k])] for r in row_ranges), rb.shape)
    return [begins, ends, int_array(ids)]


class LongestMatch:
    """The longest key of a ``bytes -> id`` table that starts at a position of a string
    (openvino-tokenizers' Trie::find_longest): ``(id, end)``, or ``(-1, pos)`` if none. Tries
    the table's distinct key lengths, longest first."""

    def __init__(self, table: dict[bytes, int]):
        self.table = table
        self.lengths = sorted({len(k) for k in table if k}, reverse=True)

    def __call__(self, word: bytes, pos: int) -> tuple[int, int]:
        rest = len(word) - pos
        for n in self.lengths:
            if n <= rest:
                tid = self.table.get(word[pos:pos + n])
                if tid is not None:
                    return tid, pos + n
        return -1, pos


class BuiltOnce:
    """The last model built from an op's vocabulary inputs, reused while their bytes are equal
    (they are Consts in every IR convert_tokenizer writes; comparing costs a memcmp, rebuilding
    a vocabulary table costs far more)."""

    def __init__(self):
        self._key: tuple | None = None
        self._value = None

    def get(self, arrays: Sequence[np.ndarray], build):
        key = tuple((a.dtype.str, a.shape, np.ascontiguousarray(a).tobytes()) for a in map(np.asarray, arrays))
        if key != self._key:
            self._value, self._key = build(), key
        return self._value


def skip_flags(inputs, port: int | None, n: int) -> np.ndarray:
    """The boolean ``skips`` input at ``port`` (one flag per string: a special token passes
    unchanged), all False where the op has none (``port`` None); its length must be ``n``."""
    if port is None:
        return np.zeros(n, bool)
    skips = np.asarray(inputs[port], bool).reshape(-1)
    if skips.size != n:
        raise OpError(f"skips has {skips.size} elements for {n} strings", port=f"input {port}")
    return skips


def apply_each(inputs, has_skips: bool, fn) -> list:
    """evaluate_normalization_helper: ``fn`` on every string not marked as a skip."""
    b, e, chars = inputs[:3]
    items = strings(b, e, chars)
    skips = skip_flags(inputs, 3 if has_skips else None, len(items))
    out = list(pack([s if k else fn(s) for s, k in zip(items, skips.tolist())], b.shape))
    return out + [np.asarray(inputs[3])] if has_skips else out


def normalization_outputs(inputs, has_skips: bool) -> list:
    expect_types(inputs, 0, "iiu" + "b" * has_skips + "u" * (len(inputs) - 3 - has_skips), "normalization inputs")
    return string_out(inputs[0].shape) + (flat(1, BOOL) if has_skips else [])
