"""The detokenizer ops of openvino-tokenizers: VocabDecoder, ByteFallback, FuzeRagged and
UTF8Validate (src/vocab_decoder.cpp, byte_fallback.cpp, fuze.cpp, utf8_validate.cpp).

* VocabDecoder: ids ``[B, S]`` (i32) -> a ragged string tensor of B rows of S token strings;
  an id outside the vocabulary or listed in the optional skip-ids input gives an empty string
  (the C++ reads out of bounds for negative ids; irrun treats them as outside);
* ByteFallback: a token ``<0xXX>`` (exactly 6 bytes) becomes the byte XX;
* FuzeRagged: each row's strings, which lie back to back, become one string (row begin .. end);
* UTF8Validate: drop (``replace_mode`` false) or replace by U+FFFD the bytes that are not valid
  UTF-8, with the C++'s own rules: a truncated sequence or a stray continuation byte gives one
  U+FFFD, an overlong sequence one per byte; surrogates and code points above U+10FFFF pass.
"""
from __future__ import annotations

import numpy as np

from ...errors import OpError
from ...types.shapes import PartialShape
from ..base import Attr, Op
from ..registry import register
from ._ragged import expect_types, pack, ragged_string_out, string_out, strings

_FFFD = "\ufffd".encode()
_STARTS = (0x0, 0x80, 0x800, 0x10000)


@register
class VocabDecoder(Op):
    category = "text"
    type, version = "VocabDecoder", "extension"
    spec = "https://github.com/openvinotoolkit/openvino_tokenizers/blob/master/src/vocab_decoder.cpp"
    attrs = {"skip_tokens": Attr("ints", [])}
    num_inputs = (4, 5)

    def infer(self, inputs):
        expect_types(inputs, 0, "iiiu" + "i" * (len(inputs) == 5), "VocabDecoder inputs")
        ids = inputs[0].shape
        if ids.rank not in (None, 2):
            raise OpError(f"the token ids must be 2-D, got {ids}", port="input 0")
        return ragged_string_out(PartialShape([ids[0]]) if ids.rank else PartialShape(None))

    def run(self, ids, vb, ve, vc, skips=None):
        vocab = strings(vb, ve, vc, "the vocab")
        skip = set(np.asarray(skips if skips is not None else self.skip_tokens, np.int64).reshape(-1).tolist())
        batch, seq = ids.shape
        per_row = max(seq, 1)
        items = []
        for r in range(batch):
            if seq == 0:
                items.append(b"")
                continue
            for t in ids[r].tolist():
                items.append(vocab[t] if 0 <= t < len(vocab) and t not in skip else b"")
        b, e, chars = pack(items)
        starts = np.arange(batch, dtype=np.int32) * per_row
        return [starts, starts + per_row, b, e, chars]


@register
class ByteFallback(Op):
    category = "text"
    type, version = "ByteFallback", "extension"
    spec = "https://github.com/openvinotoolkit/openvino_tokenizers/blob/master/src/byte_fallback.cpp"
    num_inputs = (3, 3)

    def infer(self, inputs):
        expect_types(inputs, 0, "iiu", "string representation")
        return string_out(inputs[0].shape)

    def run(self, b, e, chars):
        def one(tok: bytes) -> bytes:
            if len(tok) == 6 and tok.startswith(b"<") and tok.endswith(b">"):
                return bytes([_piece_to_byte(tok)])
            return tok
        return list(pack([one(t) for t in strings(b, e, chars)], b.shape))


_BYTE_PIECES = {b"<0x%02X>" % i: i for i in range(256)}


def _piece_to_byte(tok: bytes) -> int:
    """sentencepiece::PieceToByte (``<0xXX>``, upper-case hex); any other 6-byte ``<....>``
    token gives -1, stored in a byte as 0xFF, as the C++ does."""
    return _BYTE_PIECES.get(tok, 0xFF)


@register
class FuzeRagged(Op):
    category = "text"
    type, version = "FuzeRagged", "extension"
    spec = "https://github.com/openvinotoolkit/openvino_tokenizers/blob/master/src/fuze.cpp"
    num_inputs = (4, 4)

    def infer(self, inputs):
        expect_types(inputs, 0, "iiii", "FuzeRagged inputs")
        return string_out(inputs[0].shape)[:2]

    def run(self, rb, re_, b, e):
        rb64, re64 = np.asarray(rb, np.int64).reshape(-1), np.asarray(re_, np.int64).reshape(-1)
        b64, e64 = np.asarray(b, np.int64).reshape(-1), np.asarray(e, np.int64).reshape(-1)
        first = rb64
        last = np.where(re64 > rb64, re64 - 1, re64)
        if rb64.size and (first.min() < 0 or max(first.max(), last.max()) >= b64.size or last.min() < 0):
            raise OpError("FuzeRagged: a row points outside the strings")
        return [b64[first].astype(np.int32).reshape(rb.shape), e64[last].astype(np.int32).reshape(rb.shape)]


def validate_utf8(data: bytes, replace: bool) -> bytes:
    """utf8_validate.cpp's loop for one string."""
    out = bytearray()
    rep = _FFFD if replace else b""
    need = num = cp = 0
    j = 0
    while j < len(data):
        c = data[j]
        if not need:
            if c < 0x80:
                out.append(c)
            elif c >> 5 == 0b110:
                num, need, cp = 2, 1, (c & 0x1F) << 6
            elif c >> 4 == 0b1110:
                num, need, cp = 3, 2, (c & 0x0F) << 12
            elif c >> 3 == 0b11110:
                num, need, cp = 4, 3, (c & 0x07) << 18
            else:
                out += rep
            j += 1
            continue
        if c >> 6 != 0b10:
            need = 0
            out += rep
            continue                                   # the byte is read again as a lead byte
        need -= 1
        cp |= (c & 0x3F) << (6 * need)
        if not need:
            if cp < _STARTS[num - 1]:
                out += rep * num
            else:
                out += data[j + 1 - num:j + 1]
            cp = 0
        j += 1
    if replace and need:
        out += rep
    return bytes(out)


@register
class UTF8Validate(Op):
    category = "text"
    type, version = "UTF8Validate", "extension"
    spec = "https://github.com/openvinotoolkit/openvino_tokenizers/blob/master/src/utf8_validate.cpp"
    attrs = {"replace_mode": Attr("bool", False)}
    num_inputs = (3, 3)

    def infer(self, inputs):
        expect_types(inputs, 0, "iiu", "string representation")
        return string_out(inputs[0].shape)

    def run(self, b, e, chars):
        return list(pack([validate_utf8(s, self.replace_mode) for s in strings(b, e, chars)], b.shape))
