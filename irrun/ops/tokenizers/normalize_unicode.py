"""NormalizeUnicode (openvino-tokenizers, src/normalize_unicode.cpp): NFC, NFD, NFKC or NFKD of
every string (``begins, ends, chars`` [, skips]; strings whose skip flag is set pass unchanged).

The C++ runs sentencepiece's normalizer with the extension's built-in charsmap of that form
(no case folding, no whitespace handling): the same map CharsMapNormalization's
``normalization_form`` selects, which irrun rebuilds (:mod:`._charsmap`, :mod:`._compose`).
Invalid UTF-8 bytes become U+FFFD, as the normalizer does.
"""
from __future__ import annotations

from ...errors import OpError
from ..base import Attr, Op
from ..registry import register
from ._charsmap import form_map, normalize
from ._ragged import apply_each, normalization_outputs

FORMS = ("NFC", "NFD", "NFKC", "NFKD")


@register
class NormalizeUnicode(Op):
    """Inputs: begins, ends, chars, [skips bool]."""
    category = "text"

    type, version = "NormalizeUnicode", "extension"
    spec = "https://github.com/openvinotoolkit/openvino_tokenizers/blob/master/src/normalize_unicode.cpp"
    attrs = {"normalization_form": Attr("str", "NFD")}
    num_inputs = (3, 4)

    def infer(self, inputs):
        if self.normalization_form not in FORMS:
            raise OpError(f"NormalizeUnicode doesn't know normalization form {self.normalization_form}")
        return normalization_outputs(inputs, len(inputs) == 4)

    def run(self, *inputs):
        cmap = form_map(self.normalization_form.lower(), False)
        return apply_each(inputs, len(inputs) == 4, lambda s: normalize(s, cmap, False, False, False))
