"""WordpieceTokenizer (openvino-tokenizers, src/wordpiece_tokenizer.cpp): BERT's greedy
longest-match-first word pieces.

Inputs: ragged words (5), vocab (begins, ends, chars), unk_token_id (i32 scalar). A word is
matched from its start against the vocabulary entries without ``suffix_indicator`` (``##``),
then repeatedly against the entries with it (the indicator stripped); a word longer than
``max_bytes_per_word`` bytes, or one with a part no entry matches, becomes ``[unk]`` alone.
A later vocabulary entry with the same text wins.
"""
from __future__ import annotations

from ..base import Attr, Op
from ..registry import register
from ._ragged import I32, LongestMatch, expect_types, ragged_out, scalar, strings, tokenize_rows


@register
class WordpieceTokenizer(Op):
    category = "text"
    type, version = "WordpieceTokenizer", "extension"
    spec = "https://github.com/openvinotoolkit/openvino_tokenizers/blob/master/src/wordpiece_tokenizer.cpp"
    attrs = {"suffix_indicator": Attr("str", "##"), "max_bytes_per_word": Attr("int", 100)}
    num_inputs = (9, 9)

    def infer(self, inputs):
        expect_types(inputs, 0, "iiiiuiiun", "WordpieceTokenizer inputs")
        return ragged_out(inputs[0].shape, I32)

    def run(self, *inputs):
        suffix = self.suffix_indicator.encode()
        roots: dict[bytes, int] = {}
        subwords: dict[bytes, int] = {}
        for i, w in enumerate(strings(*inputs[5:8], "the vocab")):
            if w.startswith(suffix):
                subwords[w[len(suffix):]] = i
            else:
                roots[w] = i
        root_match, sub_match = LongestMatch(roots), LongestMatch(subwords)
        unk = scalar(inputs[8], 8)

        def tokenize(word: bytes) -> list[int]:
            if len(word) > self.max_bytes_per_word:
                return [unk]
            tid, pos = root_match(word, 0)
            if tid == -1:
                return [unk]
            out = [tid]
            while pos < len(word):
                tid, pos = sub_match(word, pos)
                if tid == -1:
                    return [unk]
                out.append(tid)
            return out

        return tokenize_rows(inputs, tokenize)
