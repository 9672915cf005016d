"""CharsToBytes (openvino-tokenizers, src/chars_to_bytes.cpp): the inverse of BytesToChars —
the words of each row, written in GPT-2's byte-level alphabet, back to the bytes they stand for,
one string per row.

Inputs: a ragged string tensor (ragged_begins, ragged_ends, begins, ends, chars); outputs: a
string tensor of the rows' shape. An ASCII byte stands for itself; a two-byte character must be
one of the alphabet's (U+00A1..U+0143). The C++ reads any other byte pair outside its table
(undefined values); irrun refuses it with the word's position.
"""
from __future__ import annotations

from ...errors import OpError
from ..base import Op
from ..registry import register
from ._bytelevel import byte_level_alphabet
from ._ragged import expect_types, pack, rows, string_out, strings

_PAIRS = {c.encode(): bytes([b]) for b, c in enumerate(byte_level_alphabet()) if ord(c) >= 0x80}


def _to_bytes(word: bytes, index: int) -> bytes:
    out, k = bytearray(), 0
    while k < len(word):
        if word[k] < 0x80:
            out.append(word[k])
            k += 1
            continue
        b = _PAIRS.get(word[k:k + 2])
        if b is None:
            raise OpError(f"word {index} holds bytes {word[k:k + 2]!r} at {k}: not a character of the byte-level "
                          "alphabet (OpenVINO would read outside its table)")
        out += b
        k += 2
    return bytes(out)


@register
class CharsToBytes(Op):
    """Inputs: ragged_begins, ragged_ends, begins, ends, chars."""
    category = "text"

    type, version = "CharsToBytes", "extension"
    spec = "https://github.com/openvinotoolkit/openvino_tokenizers/blob/master/src/chars_to_bytes.cpp"
    num_inputs = (5, 5)

    def infer(self, inputs):
        expect_types(inputs, 0, "iiiiu", "CharsToBytes inputs")
        return string_out(inputs[0].shape)

    def run(self, rb, re_, b, e, chars):
        words = strings(b, e, chars, "the words")
        decoded = [_to_bytes(w, i) for i, w in enumerate(words)]
        return list(pack([b"".join(decoded[k] for k in r) for r in rows(rb, re_, len(words), "the word rows")],
                         rb.shape))
