"""The built-in nfc/nfkc charsmaps of openvino-tokenizers (NormalizeUnicode NFC/NFKC,
CharsMapNormalization ``normalization_form`` nfc/nfkc ± ``case_fold``), rebuilt as sentencepiece's
``Builder::BuildNFCMap`` / ``BuildNFKCMap`` (src/builder.cc, ``BuildMapInternal``) builds them:

1. every code point whose composed form differs maps to it;
2. every multi-character decomposition ``D`` of a code point whose composition differs from it
   maps, from every sequence of characters that decompose one-to-one to the characters of ``D``
   (``ExpandUnnormalized``), to that composition;
3. case folding (``MergeUnicodeCaseFoldMap``): the values folded character by character, and every
   other character that folds maps to its simple folding;
4. ``RemoveRedundantMap``: a multi-character key goes when the shorter keys normalize it alike.

The normalizer then takes the longest key at each position. openvino-tokenizers built its tables
with ICU; irrun builds them with :mod:`unicodedata`, once per form, on first use (0.3 s of CPU
for nfc, 2 s for nfkc with case folding). Measured against openvino-tokenizers 2026.4.1 with
Python 3.11's Unicode 14.0 (``tools/fixtures/make_tokenizer_op_fixtures.py --measure``): NormalizeUnicode
of every form, CaseFold and nfc/nfkc + case folding give the same bytes on each of the 1111997
code points alone and on each of the 219904 multi-character keys alone. A Python whose Unicode
version differs from that ICU's would differ on the characters added in between.
"""
from __future__ import annotations

import unicodedata
from collections import defaultdict
from functools import lru_cache
from itertools import product
from typing import Literal, cast

_HANGUL = range(0xAC00, 0xD7A4)
_Form = Literal["NFC", "NFD", "NFKC", "NFKD"]


def is_unicode_char(cp: int) -> bool:
    """ICU's U_IS_UNICODE_CHAR: not a surrogate, not a non-character."""
    return not (0xD800 <= cp <= 0xDFFF or (cp & 0xFFFE) == 0xFFFE or 0xFDD0 <= cp <= 0xFDEF) and cp <= 0x10FFFF


def simple_fold(c: str) -> str:
    """ICU's u_foldCase(c, U_FOLD_CASE_DEFAULT): simple (one code point) case folding. Python
    only has full folding; where that gives several code points the simple folding is the
    lower-case mapping when it is one code point (the C+S lines of CaseFolding.txt), else none."""
    f = c.casefold()
    if len(f) == 1:
        return f
    low = c.lower()
    return low if len(low) == 1 else c


def _candidates() -> list[str]:
    """The characters a normalization form can change: those with a decomposition, and Hangul."""
    return [chr(cp) for cp in range(1, 0x110000)
            if is_unicode_char(cp) and (unicodedata.decomposition(chr(cp)) or cp in _HANGUL)]


def _greedy(table: dict[str, str], text: str, max_len: int) -> str:
    """Builder's Normalize: the longest key (up to ``max_len`` characters) at each position."""
    out, i = [], 0
    while i < len(text):
        for n in range(min(max_len, len(text) - i), 0, -1):
            hit = table.get(text[i:i + n])
            if hit is not None:
                out.append(hit)
                i += n
                break
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def _remove_redundant(table: dict[str, str]) -> dict[str, str]:
    kept = {k: v for k, v in table.items() if len(k) == 1}
    max_len = max(map(len, table), default=1)
    for n in range(2, max_len + 1):
        for k in sorted(k for k in table if len(k) == n):
            if table[k] != _greedy(kept, k, n - 1):
                kept[k] = table[k]
    return kept


@lru_cache(maxsize=4)
def composed_map(form: str, case_fold: bool) -> dict[str, str]:
    """The charsmap of ``form`` ("NFC" or "NFKC"), as characters -> replacement."""
    compose = cast(_Form, "NFC" if form == "NFC" else "NFKC")
    decompose = cast(_Form, "NFD" if form == "NFC" else "NFKD")
    table: dict[str, str] = {}
    norm2orig: dict[str, set[str]] = defaultdict(set)
    decomposed: set[str] = set()
    for c in _candidates():
        composed = unicodedata.normalize(compose, c)
        if composed != c:
            table[c] = composed
        d = unicodedata.normalize(decompose, c)
        if len(d) == 1:
            norm2orig[d].add(c)
        else:
            decomposed.add(d)
    for d in sorted(decomposed):
        composed = unicodedata.normalize(compose, d)
        if composed == d:
            continue
        for chars in product(*(sorted(norm2orig[x] | {x}) for x in d)):
            key = "".join(chars)
            if key != composed:
                table[key] = composed
    table = _remove_redundant(table)
    if case_fold:
        table = {k: "".join(map(simple_fold, v)) for k, v in table.items()}
        for cp in range(1, 0x110000):
            c = chr(cp)
            if c not in table and is_unicode_char(cp):
                f = simple_fold(c)
                if f != c:
                    table[c] = f
        table = _remove_redundant(table)
    return table
