"""BytesToChars (openvino-tokenizers, src/bytes_to_chars.cpp): GPT-2's byte-level alphabet —
every byte of every word becomes one printable character (``bytes_to_unicode``: the printable
Latin-1 bytes stay themselves, the others map to U+0100.. in order), as UTF-8.

Inputs: a ragged string tensor (ragged_begins, ragged_ends, begins, ends, chars) [, skips];
outputs: the same rows, the new words [, the skips]. A word whose skip flag is set (a special
token) is copied as is. The C++ writes only the words some row holds; irrun writes every word.
"""
from __future__ import annotations

from ..base import Op, TensorInfo
from ..registry import register
from ._bytelevel import byte_level_alphabet
from ._ragged import BOOL, I32, U8, expect_types, flat, pack, skip_flags, strings

_TABLE = {b: c.encode() for b, c in enumerate(byte_level_alphabet())}


@register
class BytesToChars(Op):
    """Inputs: ragged_begins, ragged_ends, begins, ends, chars, [skips bool]."""
    category = "text"

    type, version = "BytesToChars", "extension"
    spec = "https://github.com/openvinotoolkit/openvino_tokenizers/blob/master/src/bytes_to_chars.cpp"
    num_inputs = (5, 6)

    def infer(self, inputs):
        expect_types(inputs, 0, "iiiiu" + "b" * (len(inputs) == 6), "BytesToChars inputs")
        rb, re_, b, e = inputs[:4]
        out = [TensorInfo(I32, rb.shape), TensorInfo(I32, re_.shape), TensorInfo(I32, b.shape),
               TensorInfo(I32, e.shape)] + flat(1, U8)
        return out + ([TensorInfo(BOOL, inputs[5].shape)] if len(inputs) == 6 else [])

    def run(self, *inputs):
        rb, re_, b, e, chars = inputs[:5]
        words = strings(b, e, chars, "the words")
        skips = skip_flags(inputs, 5 if len(inputs) == 6 else None, len(words)).tolist()
        mapped = [w if k else b"".join(_TABLE[x] for x in w) for w, k in zip(words, skips)]
        return [rb, re_, *pack(mapped, b.shape)] + list(inputs[5:])
