"""GPT-2's byte-level alphabet (``bytes_to_unicode``), shared by BytesToChars and CharsToBytes."""
from __future__ import annotations


def byte_level_alphabet() -> list[str]:
    """Byte -> character of GPT-2's bytes_to_unicode (the C++ table create_bytes_to_chars_map)."""
    keep = set(range(33, 127)) | set(range(161, 173)) | set(range(174, 256))
    out, extra = [], 0
    for b in range(256):
        if b in keep:
            out.append(chr(b))
        else:
            out.append(chr(256 + extra))
            extra += 1
    return out
