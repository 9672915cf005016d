"""CaseFold (openvino-tokenizers, src/case_fold.cpp): case folding of every string
(``begins, ends, chars`` [, skips]).

* ``encoding="utf-8"`` (``lower`` must be true): sentencepiece's normalizer with the built-in
  identity + case-fold charsmap, i.e. ICU's simple case folding of each character
  (:mod:`._charsmap`); strings whose skip flag is set pass unchanged; invalid UTF-8 bytes
  become U+FFFD.
* ``encoding=""``: bytes ``A``-``Z`` -> ``a``-``z`` (``lower``) or ``a``-``z`` -> ``A``-``Z``, every
  other byte as is. The C++ applies this to every string, skip flags or not.
"""
from __future__ import annotations

from ...errors import OpError
from ..base import Attr, Op
from ..registry import register
from ._charsmap import form_map, normalize
from ._ragged import apply_each, normalization_outputs

_LOWER = bytes.maketrans(b"ABCDEFGHIJKLMNOPQRSTUVWXYZ", b"abcdefghijklmnopqrstuvwxyz")
_UPPER = bytes.maketrans(b"abcdefghijklmnopqrstuvwxyz", b"ABCDEFGHIJKLMNOPQRSTUVWXYZ")


@register
class CaseFold(Op):
    """Inputs: begins, ends, chars, [skips bool]."""
    category = "text"

    type, version = "CaseFold", "extension"
    spec = "https://github.com/openvinotoolkit/openvino_tokenizers/blob/master/src/case_fold.cpp"
    attrs = {"encoding": Attr("str", "utf-8"), "lower": Attr("bool", True)}
    num_inputs = (3, 4)

    def infer(self, inputs):
        if self.encoding not in ("", "utf-8") or (self.encoding == "utf-8" and not self.lower):
            raise OpError('CaseFold operation `encoding` attribute must be either "" or "utf-8". When `encoding` '
                          f'is "utf-8", only `lower` = true is supported. Got encoding = `{self.encoding}` and '
                          f"lower = {int(self.lower)}.")
        return normalization_outputs(inputs, len(inputs) == 4)

    def run(self, *inputs):
        has_skips = len(inputs) == 4
        if self.encoding == "":
            table = _LOWER if self.lower else _UPPER
            out = apply_each(inputs[:3], False, lambda s: s.translate(table))
            return out + list(inputs[3:])
        cmap = form_map("identity", True)
        return apply_each(inputs, has_skips, lambda s: normalize(s, cmap, False, False, False))
