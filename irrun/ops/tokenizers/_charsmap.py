"""SentencePiece's normalizer (sentencepiece/src/normalizer.cc), as CharsMapNormalization runs it.

A *precompiled charsmap* is ``u32 trie_size | Darts-clone double array (trie_size bytes) |
NUL-terminated replacement strings``: the trie maps byte strings to offsets of their
replacements. Normalizing takes, at each position, the longest key that prefixes the rest of
the input (among the first 32 prefixes the trie reports, as sentencepiece does), else one UTF-8
character as is (one invalid byte -> U+FFFD), then applies the whitespace options.

openvino-tokenizers also ships built-in charsmaps for ``normalization_form`` nfc/nfd/nfkc/nfkd
(± ``case_fold``), made at its build time with ICU by sentencepiece's Builder. irrun computes
them with :mod:`unicodedata` as Builder does: nfd, nfkd and identity + case fold map each code
point to its decomposition, then its simple case folding; nfc/nfkc also hold multi-character
keys (compositions, :mod:`._compose`). The Unicode version may differ from the ICU one
(Python's ``unicodedata.unidata_version``).
"""
from __future__ import annotations

import re
import struct
import unicodedata
from functools import lru_cache
from typing import Literal

import numpy as np

from ...errors import OpError
from ._compose import composed_map, is_unicode_char, simple_fold

_MAX_RESULTS = 32          # Normalizer::kMaxTrieResultsSize
_SPACE_SYMBOL = "\u2581".encode()
_REPLACEMENT = "\ufffd".encode()


class PrecompiledMap:
    """A decoded precompiled charsmap: ``prefix(data, pos)`` -> (replacement, bytes consumed)."""

    def __init__(self, blob: bytes):
        if len(blob) <= 4:
            raise OpError("Blob for normalization rule is broken.")
        size = struct.unpack_from("<I", blob)[0]
        if size > len(blob) - 4 or size % 4:
            raise OpError(f"Trie data size exceeds the input blob size: the header says {size} bytes, "
                          f"the charsmap holds {len(blob) - 4} after it")
        self.units = np.frombuffer(blob, "<u4", size // 4, 4).astype(np.int64).tolist()
        self.normalized = blob[4 + size:]
        firsts = {c: self._child(0, c) for c in range(256)}
        self.starters = frozenset(c for c, at in firsts.items() if at is not None)
        #: ASCII bytes no key is, whose keys all go on with a non-ASCII byte
        self.before_ascii = frozenset(c for c in self.starters if c < 0x80 and self.prefix(bytes([c]), 0) is None
                                      and not any(self._child(firsts[c], d) is not None for d in range(0x80)))

    def _child(self, node: int | None, c: int) -> int | None:
        """The trie node at the edge labelled ``c`` from node ``node`` (0: the root), or None."""
        units, n = self.units, len(self.units)
        if node is None or node >= n:
            return None
        unit = units[node]
        child = node ^ ((unit >> 10) << ((unit & (1 << 9)) >> 6)) ^ c
        return child if child < n and units[child] & ((1 << 31) | 0xFF) == c else None

    def prefix(self, data: bytes, pos: int) -> tuple[bytes, int] | None:
        units, n = self.units, len(self.units)
        if not n:
            return None
        node = units[0]
        node_pos = (node >> 10) << ((node & (1 << 9)) >> 6)
        best_len, best_value, found = 0, 0, 0
        for i in range(pos, len(data)):
            c = data[i]
            node_pos ^= c
            if node_pos >= n:
                break
            unit = units[node_pos]
            if unit & ((1 << 31) | 0xFF) != c:
                break
            node_pos ^= (unit >> 10) << ((unit & (1 << 9)) >> 6)
            if (unit >> 8) & 1:
                if node_pos >= n:
                    break
                if found < _MAX_RESULTS:
                    best_len, best_value = i + 1 - pos, units[node_pos] & ((1 << 31) - 1)
                found += 1
        if not best_len:
            return None
        if best_value >= len(self.normalized):
            raise OpError("the precompiled charsmap points past its replacement strings")
        end = self.normalized.find(b"\0", best_value)
        return self.normalized[best_value: end if end >= 0 else len(self.normalized)], best_len


def check_form(form: str, case_fold: bool) -> None:
    """Refuse a ``normalization_form`` openvino-tokenizers has no built-in map for."""
    if form not in ("identity", "nfd", "nfkd", "nfc", "nfkc") or (form == "identity" and not case_fold):
        raise OpError(f"Unsupported normalization form: `{form}` with case_fold={case_fold}")


@lru_cache(maxsize=16)
def form_map(form: str, case_fold: bool) -> "FormMap":
    """The built-in map, built once per process (an nfkc one takes seconds)."""
    return FormMap(form, case_fold)


#: a form's name for :func:`unicodedata.normalize` ("identity": none)
_FORMS: dict[str, Literal["NFC", "NFD", "NFKC", "NFKD"]] = {"nfc": "NFC", "nfd": "NFD", "nfkc": "NFKC", "nfkd": "NFKD"}


class FormMap:
    """The built-in charsmaps (see the module docstring): nfd, nfkd and identity map single
    characters, computed here as needed; nfc and nfkc hold compositions (:mod:`._compose`)."""

    def __init__(self, form: str, case_fold: bool):
        check_form(form, case_fold)
        self.form: Literal["NFC", "NFD", "NFKC", "NFKD"] | None = _FORMS.get(form)
        self.case_fold = case_fold
        self.table = composed_map(self.form, case_fold) if form in ("nfc", "nfkc") else None
        self.max_len = max(map(len, self.table)) if self.table else 1
        ascii_changed = {c for c in range(0x80) if self._map(chr(c)) != chr(c)}
        self.starters = frozenset({k.encode()[0] for k in self.table} if self.table is not None
                                  else ascii_changed | set(range(0xC2, 0xF5)))
        ascii_then_ascii = {ord(k[0]) for k in self.table or () if len(k) > 1 and k[1] < "\x80"}
        self.before_ascii = frozenset(c for c in self.starters if c < 0x80 and self.table is not None
                                      and chr(c) not in self.table and c not in ascii_then_ascii)

    @lru_cache(maxsize=65536)
    def _map(self, c: str) -> str:
        if not is_unicode_char(ord(c)):
            return c                                # never in the map
        out = unicodedata.normalize(self.form, c) if self.form else c
        return "".join(simple_fold(x) for x in out) if self.case_fold else out

    def prefix(self, data: bytes, pos: int) -> tuple[bytes, int] | None:
        n = _char_len(data, pos)
        if n is None:
            return None
        if self.table is None:
            c = data[pos:pos + n].decode("utf-8")
            m = self._map(c)
            return (m.encode("utf-8", "surrogatepass"), n) if m != c else None
        ends = [pos + n]                            # the longest key among the next characters
        while len(ends) < self.max_len and ends[-1] < len(data):
            k = _char_len(data, ends[-1])
            if k is None:
                break
            ends.append(ends[-1] + k)
        for end in reversed(ends):
            hit = self.table.get(data[pos:end].decode("utf-8"))
            if hit is not None:
                return hit.encode("utf-8"), end - pos
        return None


def _char_len(data: bytes, pos: int) -> int | None:
    """Bytes of the valid UTF-8 character at ``pos``, or None (sentencepiece IsValidDecodeUTF8)."""
    b = data[pos]
    n = 1 if b < 0x80 else 2 if 0xC2 <= b < 0xE0 else 3 if 0xE0 <= b < 0xF0 else 4 if 0xF0 <= b < 0xF5 else 0
    if not n or pos + n > len(data):
        return None
    try:
        data[pos:pos + n].decode("utf-8")
    except UnicodeDecodeError:
        return None
    return n


@lru_cache(maxsize=16)
def _plain_runs(starters: frozenset, before_ascii: frozenset) -> re.Pattern:
    """Runs where no key matches, without spaces: bytes no key starts with, and ASCII bytes whose
    keys all go on with a non-ASCII byte when an ASCII byte follows. The normalizer copies such a
    run of valid UTF-8 as is, so it is copied whole instead of character by character."""
    def cls(byte_set, negate=False):
        return b"[" + b"^" * negate + b"".join(b"\\x%02x" % c for c in sorted(byte_set)) + b"]"
    alts = [cls(starters | {0x20}, negate=True)]
    if before_ascii - {0x20}:
        alts.append(cls(before_ascii - {0x20}) + rb"(?=[\x00-\x7f]|\Z)")
    return re.compile(b"(?:" + b"|".join(alts) + b")+")


def _normalize_prefix(cmap, data: bytes, pos: int) -> tuple[bytes, int]:
    hit = cmap.prefix(data, pos) if cmap is not None else None
    if hit is not None:
        return hit
    n = _char_len(data, pos)
    return (_REPLACEMENT, 1) if n is None else (data[pos:pos + n], n)


def normalize(data: bytes, cmap, add_dummy_prefix: bool, remove_extra_whitespaces: bool,
              escape_whitespaces: bool) -> bytes:
    """Normalizer::Normalize (treat_whitespace_as_suffix false)."""
    if not data:
        return b""
    pos, n = 0, len(data)
    if remove_extra_whitespaces:
        while pos < n:
            sp, k = _normalize_prefix(cmap, data, pos)
            if sp != b" ":
                break
            pos += k
    if pos >= n:
        return b""
    out = bytearray()
    if add_dummy_prefix:
        out += _SPACE_SYMBOL if escape_whitespaces else b" "
    is_prev_space = remove_extra_whitespaces
    plain = _plain_runs(cmap.starters, cmap.before_ascii) if cmap is not None else _plain_runs(frozenset(), frozenset())
    while pos < n:
        run = plain.match(data, pos)
        if run is not None:
            try:
                run.group().decode("utf-8")
                good = run.end() - pos
            except UnicodeDecodeError as err:
                good = err.start                  # up to the first invalid byte (a character boundary)
            if good:
                out += data[pos:pos + good]
                is_prev_space = False
                pos += good
                continue
        sp, k = _normalize_prefix(cmap, data, pos)
        if is_prev_space:
            sp = sp.lstrip(b" ")
        if sp:
            out += sp.replace(b" ", _SPACE_SYMBOL) if escape_whitespaces else sp
            is_prev_space = sp.endswith(b" ")
        pos += k
        if not remove_extra_whitespaces:
            is_prev_space = False
    if remove_extra_whitespaces:
        space = _SPACE_SYMBOL if escape_whitespaces else b" "
        while out.endswith(space):
            del out[len(out) - len(space):]
    return bytes(out)
