"""Element types of OpenVINO IR: names, in-memory NumPy dtypes, and decoding of .bin bytes.

The table follows ``ir-format.md`` §6 (measured against OpenVINO 2026.4.1). Byte-aligned types
are decoded without copying (a view of the .bin buffer). Sub-byte types (u1 u2 u3 u4 u6 i4 nf4
f4e2m1) are unpacked into one byte per element: u1/u2/u3/u6 and nf4 (its 4-bit *codes*) as uint8,
u4/i4/f4e2m1 as the ml_dtypes types of the same name. Strings become NumPy ``StringDType`` arrays.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import ml_dtypes
import numpy as np

STRING_DTYPE = np.dtypes.StringDType()


@dataclass(frozen=True)
class ElementType:
    name: str              # lower-case IR name, e.g. "f32"
    bits: int              # storage bits per element in the .bin (0 for dynamic/string)
    dtype: np.dtype | None  # in-memory NumPy dtype (None for dynamic)
    precision: str         # legacy upper-case port precision name

    @property
    def is_integer(self) -> bool:
        return self.dtype is not None and self.dtype.kind in "iu" and self.name not in ("nf4",)

    @property
    def is_float(self) -> bool:
        return self.name in FLOAT_TYPES

    @property
    def is_dynamic(self) -> bool:
        """The element type is not known (``dynamic``, read from ``undefined``/``UNSPECIFIED``)."""
        return self.name == "dynamic"

    def __str__(self) -> str:
        return self.name

    __repr__ = __str__


def _et(name: str, bits: int, dtype, precision: str) -> ElementType:
    return ElementType(name, bits, None if dtype is None else np.dtype(dtype), precision)


_TABLE = [
    _et("f64", 64, "<f8", "FP64"), _et("f32", 32, "<f4", "FP32"), _et("f16", 16, "<f2", "FP16"),
    _et("bf16", 16, ml_dtypes.bfloat16, "BF16"),
    _et("f8e4m3", 8, ml_dtypes.float8_e4m3fn, "F8E4M3"), _et("f8e5m2", 8, ml_dtypes.float8_e5m2, "F8E5M2"),
    _et("f8e8m0", 8, ml_dtypes.float8_e8m0fnu, "F8E8M0"), _et("f4e2m1", 4, ml_dtypes.float4_e2m1fn, "F4E2M1"),
    _et("nf4", 4, np.uint8, "NF4"),
    _et("i64", 64, "<i8", "I64"), _et("i32", 32, "<i4", "I32"), _et("i16", 16, "<i2", "I16"),
    _et("i8", 8, "i1", "I8"), _et("i4", 4, ml_dtypes.int4, "I4"),
    _et("u64", 64, "<u8", "U64"), _et("u32", 32, "<u4", "U32"), _et("u16", 16, "<u2", "U16"),
    _et("u8", 8, "u1", "U8"), _et("u6", 6, np.uint8, "U6"), _et("u4", 4, ml_dtypes.uint4, "U4"),
    _et("u3", 3, np.uint8, "U3"), _et("u2", 2, np.uint8, "U2"), _et("u1", 1, np.uint8, "BIN"),
    _et("boolean", 8, np.bool_, "BOOL"),
    _et("string", 0, STRING_DTYPE, "STRING"),
    _et("dynamic", 0, None, "UNSPECIFIED"),
]
TYPES: dict[str, ElementType] = {t.name: t for t in _TABLE}
FLOAT_TYPES = frozenset({"f64", "f32", "f16", "bf16", "f8e4m3", "f8e5m2", "f8e8m0", "f4e2m1"})
DYNAMIC = TYPES["dynamic"]

# element_type attribute: lower-case names, case-insensitive, 'undefined' = dynamic; NOT the legacy names.
_BY_ATTR = {t.name: t for t in _TABLE} | {"undefined": DYNAMIC}
# port precision: lower-case names and the legacy upper-case ones (FP32, BOOL, BIN, UNSPECIFIED...).
_BY_PRECISION = _BY_ATTR | {t.precision.lower(): t for t in _TABLE}

# The NF4 code book (ir-format.md §6), code -> value.
NF4_TABLE = np.array([
    -1.0, -0.6961928009986877, -0.5250730514526367, -0.39491748809814453, -0.28444138169288635,
    -0.18477343022823334, -0.09105003625154495, 0.0, 0.07958029955625534, 0.16093020141124725,
    0.24611230194568634, 0.33791524171829224, 0.44070982933044434, 0.5626170039176941,
    0.7229568362236023, 1.0], dtype=np.float32)

#: Types whose values are unpacked (a copy) rather than viewed.
PACKED = frozenset({"u1", "u2", "u3", "u4", "u6", "i4", "nf4", "f4e2m1"})


def from_attr(text: str) -> ElementType:
    """Parse an ``element_type``/``destination_type`` attribute value; raises KeyError."""
    return _BY_ATTR[text.strip().lower()]


def from_precision(text: str) -> ElementType:
    """Parse a port ``precision`` value; raises KeyError."""
    return _BY_PRECISION[text.strip().lower()]


def from_dtype(dtype: np.dtype) -> ElementType:
    """The natural element type of a NumPy dtype (uint8 -> u8, bool -> boolean...)."""
    dtype = np.dtype(dtype)
    if dtype.kind == "T":
        return TYPES["string"]
    for t in _TABLE:
        if t.dtype == dtype and t.name not in PACKED:
            return t
    raise KeyError(str(dtype))


def storage_bytes(et: ElementType, numel: int) -> int:
    """Bytes a Const of ``numel`` elements needs in the .bin (ceil, whole blocks for u3/u6)."""
    if et.name == "u3":
        return 3 * -(-numel // 8)
    if et.name == "u6":
        return 3 * -(-numel // 4)
    return -(-numel * et.bits // 8)


def decode(buf: np.ndarray, et: ElementType, shape: tuple[int, ...]) -> np.ndarray:
    """Decode ``buf`` (a uint8 view of exactly the Const's bytes) into an array of ``shape``.

    Byte-aligned types return a read-only view of ``buf``; packed types a new array.
    The caller has checked ``len(buf) >= storage_bytes(et, numel)``.
    """
    numel = math.prod(shape)
    name = et.name
    if name == "string":
        return _decode_strings(buf, shape)
    dtype = et.dtype
    if dtype is None:
        raise ValueError(f"{name} has no values to decode")
    if name not in PACKED:
        return buf[: numel * dtype.itemsize].view(dtype).reshape(shape)
    codes: np.ndarray
    high: np.ndarray
    if name == "u1":                      # 8 per byte, MSB first
        codes = np.unpackbits(buf, bitorder="big")
    elif name == "u2":                    # 4 per byte, LSB first
        codes = (buf[:, None] >> np.array([0, 2, 4, 6], np.uint8)) & 3
    elif name == "u3":                    # blocks: 2 bytes of low 2-bit pairs (MSB first) + 1 byte of high bits
        blocks = buf[: 3 * -(-numel // 8)].reshape(-1, 3)
        low = (blocks[:, :2, None] >> np.array([6, 4, 2, 0], np.uint8)) & 3
        high = np.unpackbits(blocks[:, 2:3], axis=1, bitorder="big")
        codes = low.reshape(-1, 8) | (high << 2)
    elif name == "u6":                    # blocks: 2 bytes of low nibbles (high first) + 1 byte of high 2 bits
        blocks = buf[: 3 * -(-numel // 4)].reshape(-1, 3)
        low = (blocks[:, :2, None] >> np.array([4, 0], np.uint8)) & 0xF
        high = (blocks[:, 2:3] >> np.array([6, 4, 2, 0], np.uint8)) & 3
        codes = low.reshape(-1, 4) | (high << 4)
    else:                                 # u4 i4 nf4 f4e2m1: 2 per byte, low nibble first
        codes = np.stack([buf & 0xF, buf >> 4], axis=-1)
    codes = codes.reshape(-1)[:numel].reshape(shape)
    if name == "i4":
        return ((codes.astype(np.int8) ^ 8) - 8).astype(ml_dtypes.int4)
    if name in ("u4", "f4e2m1"):
        return codes.astype(np.uint8).view(dtype)
    return np.ascontiguousarray(codes, dtype=np.uint8)


def encode_strings(value: np.ndarray) -> bytes:
    """int32 count, count+1 int32 end offsets, UTF-8 bytes (ir-format.md §6.2): what
    :func:`_decode_strings` reads (the IR builder's Consts and the dump files write it)."""
    items = [str(v).encode("utf-8") for v in value.reshape(-1)]
    offs = np.cumsum([0] + [len(b) for b in items]).astype("<i4")
    return np.array([len(items)], "<i4").tobytes() + offs.tobytes() + b"".join(items)


def _decode_strings(buf: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """int32 count, count+1 int32 end offsets, then the UTF-8 bytes (ir-format.md §6.2)."""
    numel = int(np.prod(shape, dtype=np.int64))
    if len(buf) < 4:
        raise ValueError(f"string tensor needs at least 4 bytes, has {len(buf)}")
    count = int(buf[:4].view("<i4")[0])
    if count != numel:
        raise ValueError(f"string tensor holds {count} strings, shape needs {numel}")
    header = 4 + 4 * (count + 1)
    if len(buf) < header:
        raise ValueError(f"string tensor header needs {header} bytes, has {len(buf)}")
    offs = buf[4:header].view("<i4").astype(np.int64)
    chars = buf[header:]
    if offs[0] != 0 or np.any(np.diff(offs) < 0) or offs[-1] > len(chars):
        raise ValueError("string tensor offsets are not increasing within its bytes")
    raw = chars.tobytes()
    try:
        items = [raw[a:b].decode("utf-8") for a, b in zip(offs[:-1], offs[1:])]
    except UnicodeDecodeError as e:
        raise ValueError(f"string tensor holds invalid UTF-8 ({e.reason})") from None
    return np.array(items, dtype=STRING_DTYPE).reshape(shape)
