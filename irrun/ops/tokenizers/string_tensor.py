"""StringTensorUnpack-15 and StringTensorPack-15: a string tensor <-> (begins, ends, symbols).

and .../type/string-tensor-pack-15.html

Unpack: ``begins``/``ends`` (i32, the input's shape) index the UTF-8 bytes of every string,
concatenated in row-major order into ``symbols`` (u8, 1-D). Pack is the inverse: the begins
and ends (i32 or i64) may point anywhere in the symbols, overlap or leave gaps. irrun's string
tensors are Python strings (NumPy StringDType), so Pack decodes bytes that are not valid UTF-8
with U+FFFD replacement characters, where OpenVINO keeps the raw bytes.
"""
from __future__ import annotations

import numpy as np

from ...errors import OpError
from ...limits.memory import check_alloc
from ...types.elements import STRING_DTYPE, TYPES
from ...types.shapes import Dim, PartialShape
from ..base import Attr, Op, TensorInfo, spec_url
from ..registry import register
from ._ragged import U8, check_spans, check_text, pack, string_out


def _check_mode(mode: str) -> None:
    if mode != "begins_ends":
        raise OpError(f"The mode '{mode}' is not supported; only 'begins_ends' is.")


@register
class StringTensorUnpack15(Op):
    """A string tensor of any shape -> (begins i32, ends i32, symbols u8)."""
    category = "text"

    type, version = "StringTensorUnpack", "opset15"
    spec = spec_url("type/string-tensor-unpack-15")
    attrs = {"mode": Attr("str", "begins_ends")}

    def infer(self, inputs):
        _check_mode(self.mode)
        et = inputs[0].etype
        if not et.is_dynamic and et.name != "string":
            raise OpError(f"StringTensorUnpack expects a string tensor, got {et.name}", port="input 0")
        return string_out(inputs[0].shape)

    def run(self, data):
        items = [s.encode("utf-8", "surrogatepass") for s in data.reshape(-1).tolist()]
        return list(pack(items, data.shape))


@register
class StringTensorPack15(Op):
    """(begins, ends, symbols) -> a string tensor of the begins' shape."""
    category = "text"

    type, version = "StringTensorPack", "opset15"
    spec = spec_url("type/string-tensor-pack-15")
    attrs = {"mode": Attr("str", "begins_ends")}
    num_inputs = (3, 3)
    restrictions = "bytes that are not valid UTF-8 become U+FFFD (irrun's strings are Unicode)"

    def infer(self, inputs):
        _check_mode(self.mode)
        b, e, s = inputs
        for port, info in ((0, b), (1, e)):
            if not info.etype.is_dynamic and info.etype.name not in ("i32", "i64"):
                raise OpError("The element types of the begins and ends input tensors must be i32 or i64.",
                              port=f"input {port}")
        if not (b.shape.rank is None or e.shape.rank is None or b.shape.compatible(e.shape)):
            raise OpError("The shapes of the begins and ends input tensors must be equal.", port="input 1")
        if not s.etype.is_dynamic and s.etype != U8:
            raise OpError("The element type of the symbols input tensor must be u8.", port="input 2")
        if s.shape.rank not in (None, 1):
            raise OpError("The symbols input tensor must be 1D.", port="input 2")
        shape = b.shape if b.shape.rank is not None else e.shape
        return [TensorInfo(TYPES["string"], shape)]

    def run(self, begins, ends, symbols):
        if begins.shape != ends.shape:
            raise OpError(f"begins {list(begins.shape)} and ends {list(ends.shape)} differ in shape")
        buf = np.ascontiguousarray(symbols, np.uint8).tobytes()
        b, e = check_spans(begins, ends, len(buf), "StringTensorPack", native=True)
        check_alloc(begins.shape, STRING_DTYPE, "the string tensor")
        check_text(b, e, "the string tensor")
        out = [buf[i:j].decode("utf-8", "replace") for i, j in zip(b.tolist(), e.tolist())]
        return [np.array(out, dtype=STRING_DTYPE).reshape(begins.shape)]


#: i32 count, then count + 1 i32 offsets, then the bytes: openvino-tokenizers' packed strings.
_PACKED_HEAD = 4


@register
class StringTensorUnpack(StringTensorUnpack15):
    """``version="extension"``: what openvino-tokenizers wrote before the op moved into opset15.
    Besides a string tensor it takes that era's *packed* strings, a 1-D u8 tensor (how those
    tokenizers stored their vocabularies): an i32 count n, n + 1 i32 offsets into the bytes that
    follow, then the bytes — begins are ``offsets[:-1]``, ends ``offsets[1:]`` (the extension's
    ``parse_packed_strings``; OpenVINO 2026.4.1 with openvino-tokenizers reads such files)."""
    type, version = "StringTensorUnpack", "extension"

    def infer(self, inputs):
        x = inputs[0]
        if x.etype != U8:
            return super().infer(inputs)
        _check_mode(self.mode)
        if x.shape.rank not in (None, 1):
            raise OpError(f"packed strings (u8) must be 1-D, got rank {x.shape.rank}", port="input 0")
        if x.value is not None:
            begins, _, symbols = _unpack_packed(x.value)
            return string_out(PartialShape([len(begins)]))[:2] + [TensorInfo(U8, PartialShape([len(symbols)]))]
        return string_out(PartialShape([Dim()]))

    def run(self, data):
        if data.dtype != np.uint8:
            return super().run(data)
        return list(_unpack_packed(data))


def _unpack_packed(packed: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(begins, ends, symbols) of openvino-tokenizers' packed strings (:class:`StringTensorUnpack`),
    every offset checked to lie inside the bytes."""
    raw = np.ascontiguousarray(packed, np.uint8).reshape(-1)
    if raw.size < _PACKED_HEAD:
        raise OpError(f"packed strings of {raw.size} bytes: no count (needs 4)", port="input 0")
    n = int(raw[:4].view("<i4")[0])
    start = _PACKED_HEAD + 4 * (n + 1)
    if n < 0 or raw.size < start:
        raise OpError(f"packed strings: a count of {n} needs {max(start, 0)} bytes of offsets, "
                      f"the tensor has {raw.size}", port="input 0")
    offsets = raw[_PACKED_HEAD:start].view("<i4").astype(np.int32)
    symbols = raw[start:]
    begins, ends = offsets[:-1], offsets[1:]
    check_spans(begins, ends, symbols.size, "packed strings", native=True)
    return begins.copy(), ends.copy(), symbols.copy()


@register
class StringTensorPack(StringTensorPack15):
    """``version="extension"``: what openvino-tokenizers wrote before the op moved into opset15;
    OpenVINO reads it as StringTensorPack-15."""
    type, version = "StringTensorPack", "extension"
