"""BPETokenizer (openvino-tokenizers, src/bpe_tokenizer.cpp): byte-pair encoding of each word.

Inputs: ragged words (5), vocab (3 string ports), merges — either ``"left right"`` strings (3)
or left and right strings (3 + 3) — and optionally added tokens (3 string ports + i32 ids).
Byte-level BPE needs no separate byte-to-char step: openvino-tokenizers writes the vocabulary
and merges as raw bytes.

Per word, as the C++ does: split it into the longest vocabulary entries (those that are not the
result of a merge), left to right; a byte no entry starts becomes ``<0xXX>`` with
``byte_fallback`` when the vocabulary has it, else the ``unk_token`` (every time: the C++ check
meant to fuse unknowns never fires); then repeatedly apply the merge of lowest rank among
adjacent pairs, the leftmost (earliest queued) on ties, until none applies.
"""
from __future__ import annotations

import heapq

import numpy as np

from ...errors import OpError
from ..base import Attr, Op
from ..registry import register
from ._ragged import I32, BuiltOnce, LongestMatch, expect_types, ragged_out, strings, tokenize_rows


class BPEModel:
    """Vocabulary, merges and the initial-split table of one BPETokenizer layer."""

    def __init__(self, vocab: list[bytes], merges: list[tuple[bytes, bytes]], added: dict[bytes, int],
                 unk_token: bytes, byte_fallback: bool):
        table: dict[bytes, int] = {}
        for i, tok in enumerate(vocab):
            table[tok] = i                       # insert_or_assign: a later duplicate wins
        for tok, i in added.items():
            table.setdefault(tok, i)
        self.unk = table.get(unk_token, -1)
        self.merges: dict[tuple[int, int], tuple[int, int]] = {}
        merged = []
        for rank, (left, right) in enumerate(merges):
            try:
                key = (table[left], table[right])
                new = table[left + right]
            except KeyError as e:
                raise OpError(f"merge {rank} ({left!r} {right!r}) names a token the vocabulary lacks: "
                              f"{e.args[0]!r}") from None
            self.merges[key] = (rank, new)           # a later duplicate merge wins
            merged.append(left + right)
        for tok in merged:
            table.pop(tok, None)
        self.byte_ids = {b: table[b"<0x%02X>" % b] for b in range(256) if b"<0x%02X>" % b in table} \
            if byte_fallback else {}
        self.match = LongestMatch(table)
        self.cache: dict[bytes, list[int]] = {}

    def tokenize(self, word: bytes, cache_capacity: int) -> list[int]:
        hit = self.cache.get(word)
        if hit is not None:
            return hit
        ids: list[int] = []
        pos = 0
        while pos < len(word):
            tid, end = self.match(word, pos)
            if tid != -1:
                ids.append(tid)
                pos = end
                continue
            fallback = self.byte_ids.get(word[pos], -1)
            if fallback != -1:
                ids.append(fallback)
            elif self.unk != -1:
                ids.append(self.unk)
            pos += 1
        out = self._merge(ids)
        if len(self.cache) < cache_capacity and ids:
            self.cache[word] = out
        return out

    def _merge(self, ids: list[int]) -> list[int]:
        n = len(ids)
        if n < 2:
            return ids
        sym = list(ids)                               # symbols: id, prev, next, alive
        prev = list(range(-1, n - 1))
        nxt = list(range(1, n)) + [-1]
        alive = [True] * n
        heap: list[tuple[int, int, int, int, int]] = []
        merges = self.merges
        for a in range(n - 1):
            m = merges.get((sym[a], sym[a + 1]))
            if m is not None:
                heap.append((m[0], a, a, a + 1, m[1]))
        heapq.heapify(heap)
        head, live, step = 0, n, n - 1
        while heap and live >= 2:
            _, _, a, b, new = heapq.heappop(heap)
            if not (alive[a] and alive[b] and nxt[a] == b):
                continue
            p, q = prev[a], nxt[b]
            k = len(sym)
            sym.append(new)
            prev.append(p)
            nxt.append(q)
            alive.append(True)
            alive[a] = alive[b] = False
            if p != -1:
                nxt[p] = k
            else:
                head = k
            if q != -1:
                prev[q] = k
            live -= 1
            step += 1
            for x, y in ((p, k), (k, q)):
                if x != -1 and y != -1:
                    m = merges.get((sym[x], sym[y]))
                    if m is not None:
                        heapq.heappush(heap, (m[0], step, x, y, m[1]))
        out = []
        i = head
        while i != -1:
            out.append(sym[i])
            i = nxt[i]
        return out


@register
class BPETokenizer(Op):
    category = "text"
    type, version = "BPETokenizer", "extension"
    spec = "https://github.com/openvinotoolkit/openvino_tokenizers/blob/master/src/bpe_tokenizer.cpp"
    attrs = {"unk_token": Attr("str", ""), "fuse_unk": Attr("bool", False), "suffix_indicator": Attr("str", ""),
             "end_suffix": Attr("str", ""), "byte_fallback": Attr("bool", False),
             "cache_capacity": Attr("int", 20000)}
    num_inputs = (11, 18)

    def _check(self, n: int) -> None:
        if n not in (11, 14, 15, 18):
            raise OpError("Incorrect number of inputs passed to BPETokenizer, try to reconvert tokenizer "
                          "with newer version of OpenVINO Tokenizers")

    def infer(self, inputs):
        self._check(len(inputs))
        expect_types(inputs, 0, "iiiiu" + "iiu" * ((len(inputs) - 5) // 3) + "i" * (len(inputs) in (15, 18)),
                     "BPETokenizer inputs")
        return ragged_out(inputs[0].shape, I32)

    def _model(self, inputs) -> BPEModel:
        n = len(inputs)
        vocab = strings(inputs[5], inputs[6], inputs[7], "the vocab")
        left = strings(inputs[8], inputs[9], inputs[10], "the merges")
        if n in (14, 18):
            right = strings(inputs[11], inputs[12], inputs[13], "the right merges")
            if len(right) != len(left):
                raise OpError(f"{len(left)} left merges but {len(right)} right ones")
            merges = list(zip(left, right))
        else:
            merges = [(a, b) for a, _, b in (m.partition(b" ") for m in left)]   # "a b" -> (a, b)
        added: dict[bytes, int] = {}
        if n in (15, 18):
            toks = strings(inputs[n - 4], inputs[n - 3], inputs[n - 2], "the added tokens")
            ids = np.asarray(inputs[n - 1]).reshape(-1).tolist()
            if len(ids) != len(toks):
                raise OpError("Expected equal number of added tokens and added token indices.")
            for t, i in zip(toks, ids):
                added.setdefault(t, int(i))
        return BPEModel(vocab, merges, added, self.unk_token.encode(), self.byte_fallback)

    def run(self, *inputs):
        self._check(len(inputs))
        if not hasattr(self, "_built"):
            self._built = BuiltOnce()
        model = self._built.get(inputs[5:], lambda: self._model(inputs))
        suffix = self.end_suffix.encode()
        cap = max(0, self.cache_capacity)
        return tokenize_rows(inputs, lambda w: model.tokenize(w + suffix, cap))
