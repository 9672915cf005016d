"""RegexNormalization and CharsMapNormalization (openvino-tokenizers): rewrite every string of
a string tensor (``begins, ends, chars`` [, skips]); strings whose skip flag is set (special
tokens) pass unchanged. Sources: src/regex_normalization.cpp, src/charsmap_normalization.cpp,
src/utils.cpp (evaluate_normalization_helper).

* RegexNormalization: PCRE2 substitution of a search pattern by a replacement (u8 Const
  inputs), every match (``global_replace``) or the first; old patterns are rewritten as the C++
  does (``fix_search_pattern``) and ``\\1``..``\\9`` in the replacement become ``$1``..``$9``.
* CharsMapNormalization: SentencePiece's normalizer (:mod:`._charsmap`) with a precompiled
  charsmap input, or a built-in map chosen by ``normalization_form``/``case_fold``.
"""
from __future__ import annotations

import numpy as np

from ...errors import OpError
from ..base import Attr, Op
from ..registry import register
from ._charsmap import PrecompiledMap, check_form, form_map, normalize
from ._pcre import RESTRICTIONS, bounded, substitute
from ._ragged import BOOL, apply_each, normalization_outputs, scalar_text

#: fix_search_pattern: old patterns openvino-tokenizers rewrites before compiling them
_PATTERN_REWRITES = {
    rb" ([\\.\\?\\!,])| ('[ms])| (') | ('[rv]e)| (n't)": rb"(?| ([\\.\\?\\!,])| ('[ms])| (') | ('[rv]e)| (n't))",
    rb"(^)(.)": rb"(^)([\s\S])",
    rb"(^)(.+)": rb"(^)([\s\S])",
}


@register
class RegexNormalization(Op):
    """Inputs: begins, ends, chars, [skips], search pattern u8, replacement u8."""
    category = "text"

    type, version = "RegexNormalization", "extension"
    spec = "https://github.com/openvinotoolkit/openvino_tokenizers/blob/master/src/regex_normalization.cpp"
    attrs = {"global_replace": Attr("bool", True)}
    num_inputs = (5, 6)
    restrictions = RESTRICTIONS

    def infer(self, inputs):
        return normalization_outputs(inputs, len(inputs) == 6)

    def run(self, *inputs):
        has_skips = len(inputs) == 6
        search = scalar_text(inputs[-2], "the search pattern")
        pattern = bounded(_PATTERN_REWRITES.get(search, search), np.asarray(inputs[2]).size,
                          np.asarray(inputs[0]).size)
        replacement = scalar_text(inputs[-1], "the replacement")
        for d in b"123456789":
            replacement = replacement.replace(b"\\" + bytes([d]), b"$" + bytes([d]))
        return apply_each(inputs, has_skips, lambda s: substitute(pattern, s, replacement, self.global_replace))


@register
class CharsMapNormalization(Op):
    """Inputs: begins, ends, chars, [skips bool], [precompiled charsmap u8]."""
    category = "text"

    type, version = "CharsMapNormalization", "extension"
    spec = "https://github.com/openvinotoolkit/openvino_tokenizers/blob/master/src/charsmap_normalization.cpp"
    attrs = {"add_dummy_prefix": Attr("bool", False), "remove_extra_whitespaces": Attr("bool", True),
             "escape_whitespaces": Attr("bool", False), "normalization_form": Attr("str", ""),
             "case_fold": Attr("bool", False), "nmt": Attr("bool", False)}
    num_inputs = (3, 5)

    def _has_skips(self, n: int, fourth_is_bool: bool) -> bool:
        return n == 5 or (n == 4 and (fourth_is_bool or self.normalization_form != ""))

    def infer(self, inputs):
        fourth_bool = len(inputs) == 4 and inputs[3].etype == BOOL
        if self.normalization_form:
            check_form(self.normalization_form.lower(), self.case_fold)
        return normalization_outputs(inputs, self._has_skips(len(inputs), fourth_bool))

    def run(self, *inputs):
        has_skips = self._has_skips(len(inputs), len(inputs) == 4 and inputs[3].dtype == np.bool_)
        if self.normalization_form:
            cmap = form_map(self.normalization_form.lower(), self.case_fold)
        else:
            if len(inputs) < 4 + has_skips:
                raise OpError("CharsMapNormalization needs a precompiled charsmap input")
            cmap = PrecompiledMap(scalar_text(inputs[3 + has_skips], "the charsmap"))
        return apply_each(inputs, has_skips, lambda s: normalize(
            s, cmap, self.add_dummy_prefix, self.remove_extra_whitespaces, self.escape_whitespaces))
