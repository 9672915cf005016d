"""openvino-tokenizers' ops (``version="extension"`` layers) and the opset15 string-tensor ops
they start and end with: what ``openvino_tokenizers.convert_tokenizer`` writes for BPE (byte-level
and SentencePiece), WordPiece and Unigram tokenizers and their detokenizers.

Strings travel between these ops decomposed, as OpenVINO's extension does (see :mod:`._ragged`):
a string tensor is ``(begins i32, ends i32, chars u8)`` and a ragged tensor adds a row level
``(ragged_begins i32, ragged_ends i32, ...)``. Semantics follow the extension's C++ sources
(openvinotoolkit/openvino_tokenizers, src/*.cpp) and are measured against openvino-tokenizers
2026.4 by tests/test_tokenizers.py (fixtures from tools/fixtures/make_tokenizer_fixtures.py).
"""
from __future__ import annotations

import pkgutil
from importlib import import_module

for _m in pkgutil.iter_modules(__path__):
    if not _m.name.startswith("_"):
        import_module(f"{__name__}.{_m.name}")
