"""SpecialTokensSplit and RegexSplit (openvino-tokenizers): split the strings of a ragged string
tensor into more strings by a PCRE2 pattern (a u8 Const input).

Both take a ragged string tensor (5 inputs) and optionally a boolean ``skips`` per string:
strings marked as special tokens pass through untouched. Sources: src/special_tokens_split.cpp,
src/regex_split.cpp. Each string is searched on its own (a look-behind cannot see the previous
string). A search that finds an empty match ends the splitting of that string, as in the C++.

* SpecialTokensSplit isolates every match (or the capture group inside it) and marks it as a skip;
* RegexSplit ``behaviour``: ``remove`` (drop the matches), ``isolate`` (matches and the text
  between them), ``contiguous`` (isolate, the pattern wrapped in ``(...)+``),
  ``mergedwithprevious`` / ``mergedwithnext``; ``invert`` swaps matches and gaps;
  ``max_splits`` (-1: no limit) makes the ``max_splits``-th piece run to the string's end.
  With no bytes at all in a batch of one row, RegexSplit outputs one empty row and passes its
  input strings on (openvino-tokenizers' workaround CVS-160624, kept). The C++ does that for any
  batch size, breaking its own shape (a batch of two empty strings gives one row; OpenVINO then
  fails in a later Broadcast); irrun splits such a batch as any other: one row per input row.
"""
from __future__ import annotations

import numpy as np

from ...errors import OpError
from ..base import Attr, Op
from ..registry import register
from ._pcre import RESTRICTIONS, Matcher, bounded
from ._ragged import BOOL, expect_types, flat, pack, ragged_string_out, rows, scalar_text, skip_flags, strings

_MODES = ("remove", "isolate", "contiguous", "mergedwithprevious", "mergedwithnext")


def _unpack(inputs, has_skips: bool):
    rb, re_, b, e, chars = inputs[:5]
    items = strings(b, e, chars, "the ragged strings")
    row_ranges = rows(rb, re_, len(items), "the ragged rows")
    skips = skip_flags(inputs, 5 if has_skips else None, len(items))
    return rb.shape, items, row_ranges, skips


def _outputs(shape, pieces_per_row: list[list[tuple[bytes, bool]]], with_skips: bool) -> list:
    """Ragged string outputs (+ skips) of the pieces; pieces are byte strings of ``chars``.

    The C++ ops return begins/ends into the unchanged input chars; irrun re-packs the pieces,
    which gives the same strings (the chars output is then a different, equivalent buffer)."""
    flat_pieces = [p for row in pieces_per_row for p in row]
    begins, ends, chars = pack([p for p, _ in flat_pieces])
    counts = np.array([len(r) for r in pieces_per_row], np.int64)
    rends = np.cumsum(counts)
    outs = [(rends - counts).astype(np.int32).reshape(shape), rends.astype(np.int32).reshape(shape),
            begins, ends, chars]
    if with_skips:
        outs.append(np.array([s for _, s in flat_pieces], bool).reshape(len(flat_pieces)))
    return outs


@register
class SpecialTokensSplit(Op):
    """Inputs: ragged strings (5), [skips], pattern u8. Outputs: ragged strings (5), skips."""
    category = "text"

    type, version = "SpecialTokensSplit", "extension"
    spec = "https://github.com/openvinotoolkit/openvino_tokenizers/blob/master/src/special_tokens_split.cpp"
    num_inputs = (6, 7)
    restrictions = RESTRICTIONS

    def infer(self, inputs):
        expect_types(inputs, 0, "iiiiu" + "b" * (len(inputs) == 7) + "u", "SpecialTokensSplit inputs")
        return ragged_string_out(inputs[0].shape) + flat(1, BOOL)

    def run(self, *inputs):
        has_skips = len(inputs) == 7
        shape, items, row_ranges, skips = _unpack(inputs, has_skips)
        pattern = bounded(scalar_text(inputs[-1], "the split pattern"), np.asarray(inputs[4]).size, len(items))
        out_rows = []
        for r in row_ranges:
            pieces = []
            for k in r:
                s = items[k]
                if skips[k]:
                    pieces.append((s, True))
                    continue
                m, start = Matcher(pattern, s), 0
                while start <= len(s):
                    found = m.search(start, groups=True)
                    if found is None or found[0][0] == found[0][1]:
                        break
                    (ms, me), groups = found
                    gs, ge = ms, me
                    for g in groups:
                        if g is not None and ms <= g[0] <= me and g[1] <= me:
                            gs, ge = g if g[0] != g[1] else (ms, me)
                    if start < ms:
                        pieces.append((s[start:ms], False))
                    pieces.append((s[gs:ge], True))
                    start = me
                if start < len(s):
                    pieces.append((s[start:], False))
            out_rows.append(pieces)
        return _outputs(shape, out_rows, True)


@register
class RegexSplit(Op):
    """Inputs: ragged strings (5), [skips bool], pattern u8 [, skip-token strings (3)]."""
    category = "text"

    type, version = "RegexSplit", "extension"
    spec = "https://github.com/openvinotoolkit/openvino_tokenizers/blob/master/src/regex_split.cpp"
    attrs = {"behaviour": Attr("str", "remove"), "invert": Attr("bool", False), "max_splits": Attr("int", -1)}
    num_inputs = (6, 9)
    restrictions = RESTRICTIONS

    def _check(self, n: int) -> None:
        if n not in (6, 7, 9):
            raise OpError(f"Incorrect number of inputs passed to RegexSplit: {n}")
        if self.behaviour not in _MODES:
            raise OpError(f"RegexSplit doesn't support unknown split mode: {self.behaviour}")
        if not (self.max_splits == -1 or self.max_splits > 0):
            raise OpError(f"RegexSplit max_splits attribute must be greater then `0` or equal to `-1`, "
                          f"got {self.max_splits}")

    def infer(self, inputs):
        self._check(len(inputs))
        expect_types(inputs, 0, {6: "iiiiuu", 7: "iiiiubu", 9: "iiiiuuiiu"}[len(inputs)], "RegexSplit inputs")
        outs = ragged_string_out(inputs[0].shape)
        if len(inputs) == 7:
            outs += flat(1, BOOL)
        return outs

    def _pattern(self, text: bytes, text_bytes: int, n_strings: int):
        if self.behaviour == "contiguous" and not text.endswith(b"+"):
            text = b"(" + text + b")+"
        return bounded(text, text_bytes, n_strings)

    def run(self, *inputs):
        self._check(len(inputs))
        has_skips = len(inputs) == 7
        pattern = self._pattern(scalar_text(inputs[5 + has_skips], "the split pattern"), np.asarray(inputs[4]).size,
                                np.asarray(inputs[2]).size)
        skip_tokens = set(strings(*inputs[6:9], "the skip tokens")) if len(inputs) == 9 else set()
        if np.asarray(inputs[4]).size == 0 and np.asarray(inputs[0]).size == 1:   # CVS-160624
            outs = [np.zeros(1, np.int32), np.zeros(1, np.int32)] + [np.asarray(a) for a in inputs[2:5]]
            return outs + [np.asarray(inputs[5], bool)] if has_skips else outs
        shape, items, row_ranges, skips = _unpack(inputs, has_skips)
        out_rows = []
        for r in row_ranges:
            pieces: list[tuple[bytes, bool]] = []
            for k in r:
                s = items[k]
                if skips[k]:
                    pieces.append((s, True))
                elif s in skip_tokens:
                    pieces.append((s, False))
                else:
                    pieces.extend((p, False) for p in self._split(pattern, s))
            out_rows.append(pieces)
        return _outputs(shape, out_rows, has_skips)

    def _split(self, pattern, s: bytes) -> list[bytes]:
        """One string's pieces (regex_split.cpp's add_split, mode by mode)."""
        mode = {"contiguous": "isolate"}.get(self.behaviour, self.behaviour)
        n = len(s)
        out: list[bytes] = []
        last_begin = -1

        def add(begin: int, end: int, invert: bool) -> None:
            nonlocal last_begin
            if mode == "remove" and invert:
                return
            if mode == "mergedwithprevious":
                if not invert and end != n:
                    last_begin = begin
                    return
                if invert:
                    begin = last_begin
            elif mode == "mergedwithnext":
                if not invert:
                    if last_begin != -1:
                        begin = last_begin
                else:
                    last_begin = begin
                    return
            begin, end = max(0, begin), min(n, end)
            if len(out) == self.max_splits:
                end = n
            out.append(s[begin:end])

        start = 0
        for cs, ce in Matcher(pattern, s).spans():
            if cs != start:
                add(start, cs, self.invert)
            add(cs, ce, not self.invert)
            start = ce
        if start < n:
            add(start, n, self.invert)
        elif mode == "mergedwithnext" and last_begin != n:
            add(last_begin, n, self.invert)
        return out
