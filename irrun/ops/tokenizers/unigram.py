"""UnigramTokenizer (openvino-tokenizers, src/unigram_tokenizer.cpp): SentencePiece Unigram —
the segmentation of highest total log-probability (Viterbi over vocabulary matches).

Inputs: ragged words (5), vocab (3 string ports), scores (f32). Per word, from each character
start (UTF-8 lead-byte length), every vocabulary entry that matches there extends the best path
to its end with ``score + best score so far`` (f32 sums, as the C++); when no entry covers
exactly that one character, the character alone becomes ``unk_token_id`` with score
``min(scores) - 10``. The best path is read back from the end; consecutive unknowns fuse into
one.
"""
from __future__ import annotations

import numpy as np

from ...errors import OpError
from ..base import Attr, Op
from ..registry import register
from ._ragged import I32, BuiltOnce, expect_types, ragged_out, strings, tokenize_rows

_F32 = np.float32


def _char_len(b: int) -> int:
    """unigram_impl::get_next_char_length: 1 below 0xC0, 2, 3, 4 by the lead byte's high bits."""
    return (1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 3, 4)[b >> 4]


class UnigramModel:
    def __init__(self, vocab: list[bytes], scores: np.ndarray, unk: int):
        if scores.size != len(vocab):
            raise OpError(f"{len(vocab)} vocabulary entries but {scores.size} scores", port="input 8")
        self.scores = [_F32(s) for s in scores.astype(np.float32).tolist()]
        self.table: dict[bytes, int] = {}
        self.prefixes: set[bytes] = set()
        for i, tok in sorted(enumerate(vocab), key=lambda t: t[1], reverse=True):
            tok = tok.split(b"\0", 1)[0]            # the Darts keys are C strings
            self.table[tok] = i                      # equal keys: the first in byte order
            for k in range(1, len(tok)):
                self.prefixes.add(tok[:k])
        self.unk = unk
        min_score = float(min(scores.astype(np.float32).tolist(), default=np.finfo(np.float32).max))
        self.unk_score = min_score - 10.0            # a double in the C++

    def tokenize(self, text: bytes) -> list[int]:
        n = len(text)
        if not n:
            return []
        best_score = [_F32(0)] * (n + 1)
        starts_at = [-1] * (n + 1)
        token = [self.unk] * (n + 1)
        table, prefixes, scores = self.table, self.prefixes, self.scores
        s = 0
        while s < n:
            so_far = best_score[s]
            step = min(_char_len(text[s]), n - s)
            found_next = False
            for end in range(s + 1, n + 1):
                piece = text[s:end]
                tid = table.get(piece)
                if tid is not None:
                    cand = _F32(scores[tid] + so_far)
                    if starts_at[end] == -1 or cand > best_score[end]:
                        best_score[end], starts_at[end], token[end] = cand, s, tid
                    if end - s == step:
                        found_next = True
                if piece not in prefixes:
                    break
            if not found_next:
                t = s + step
                unk_cand = self.unk_score + float(so_far)
                if starts_at[t] == -1 or unk_cand > float(best_score[t]):
                    best_score[t], starts_at[t], token[t] = _F32(unk_cand), s, self.unk
            s += step
        out: list[int] = []
        e, prev = n, -1
        while e > 0:
            tid, e = token[e], starts_at[e]
            if tid == self.unk and prev == self.unk:
                continue
            out.append(tid)
            prev = tid
        return out[::-1]


@register
class UnigramTokenizer(Op):
    category = "text"
    type, version = "UnigramTokenizer", "extension"
    spec = "https://github.com/openvinotoolkit/openvino_tokenizers/blob/master/src/unigram_tokenizer.cpp"
    attrs = {"byte_fallback": Attr("bool", False), "unk_token_id": Attr("int", 0), "fuse_unk": Attr("bool", False),
             "min_score": Attr("float", float("inf"))}
    num_inputs = (9, 9)

    def infer(self, inputs):
        expect_types(inputs, 0, "iiiiuiiuf", "UnigramTokenizer inputs")
        return ragged_out(inputs[0].shape, I32)

    def run(self, *inputs):
        if not hasattr(self, "_built"):
            self._built = BuiltOnce()
        model = self._built.get(inputs[5:], lambda: UnigramModel(
            strings(*inputs[5:8], "the vocab"), np.asarray(inputs[8]).reshape(-1), self.unk_token_id))
        return tokenize_rows(inputs, model.tokenize)
