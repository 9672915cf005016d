r"""PCRE2 patterns (as openvino-tokenizers compiles them: ``PCRE2_UTF | PCRE2_UCP``) run with the
``regex`` library, on UTF-8 bytes with byte offsets.

Why ``regex`` and not ``re``: the patterns tokenizers write use ``\p{L}``/``\p{N}``/``\p{Han}``
classes, branch reset ``(?|...)``, and (Llama 3, Qwen) possessive/atomic forms, which ``re``
lacks; ``regex``'s ``\s`` is Unicode White_Space like PCRE2's with UCP (``re`` also counts
U+001C..U+001F). Measured against OpenVINO on 50 code points chosen where the two could differ
(spaces, controls, format characters, marks, cased letters, CJK, emoji, private use, unassigned;
the ``codepoints`` batch of tests/test_tokenizers.py) through every fixture tokenizer: ``regex``
lacks ``\x{HHHH}`` and its ``\s`` misses U+180E, which PCRE2's has (its ``\h`` list); both are
rewritten by :func:`to_regex_syntax`, after which every run matches. Not rewritten (not in any
pattern convert_tokenizer writes): ``\Q..\E``, ``\o{..}``, callouts, ``\R``/``\h``/``\v`` as
PCRE2 defines them.

Semantics kept from the C++ wrapper (src/utils.cpp):

* a search starts at a byte offset of the whole string, so look-behinds and ``^`` see the real
  start (``regex``'s ``search(s, pos)`` does the same);
* a split subject that is not valid UTF-8 never matches (pcre2_match checks UTF); substitution
  runs with NO_UTF_CHECK, so irrun decodes invalid bytes with ``surrogateescape`` (they match
  no class and come back unchanged);
* every match is bounded in time (:class:`Bounded`): PCRE2 stops a match at its match limit
  (``PCRE2_ERROR_MATCHLIMIT``); ``regex`` has no step limit, only a ``timeout=``, so an op gets
  :data:`SECONDS` of matching (plus :data:`SECONDS_PER_MB` per MB of its text) across all its
  strings, and a hostile pattern (catastrophic backtracking, a quadratic split) stops there with an
  error naming the pattern instead of running for hours;
* the replacement is PCRE2 syntax: ``$n``, ``${n}``, ``$$`` (a backslash is literal; the op
  rewrites ``\1``..``\9`` to ``$1``..``$9`` first); a reference to an unset or missing group
  makes pcre2_substitute fail, and the op then keeps the string unchanged.
"""
from __future__ import annotations

import time
from functools import lru_cache

import numpy as np
import regex

from ...errors import OpError, printable

#: What ``irrun ops`` says of the regex ops.
RESTRICTIONS = ("PCRE2 patterns run by the regex library (\\x{..} and \\s rewritten); "
                "PCRE2-only syntax \\Q..\\E, \\o{..}, callouts unsupported")
#: Longest pattern irrun compiles (a hostile model could ask for a pathological one).
MAX_PATTERN = 1 << 20
#: Seconds of matching one op may spend, plus SECONDS_PER_MB per MB of its text and
#: SECONDS_PER_STRING per string (a hostile file gets time linear in the text it holds). The
#: fixture tokenizers spend well under 10 ms per op; GPT-2's and Llama 3's split patterns run at
#: 3-5 MB/s here (calls included), under a third of the allowance. ``regex`` overshoots its
#: ``timeout`` up to 2x on a quadratic search, so a hostile op stops after ~0.5-1.2 s and a run that
#: trips on it (start-up ~0.7 s) ends within 5 s.
SECONDS, SECONDS_PER_MB, SECONDS_PER_STRING = 0.5, 0.5, 1e-5
#: Characters of a pattern shown in an error
SHOWN = 60


_TOKEN = regex.compile(r"\\x\{([0-9A-Fa-f]{1,8})\}|\\.|\[\^?|\]|[^\\\[\]]+", regex.DOTALL)
#: PCRE2's \s with UCP is its horizontal and vertical space lists plus category Z: Unicode
#: White_Space and U+180E (a space before Unicode 6.3, still in PCRE2's \h list)
_SPACE_EXTRA = "\\u180e"


def to_regex_syntax(pattern: str) -> str:
    r"""PCRE2 syntax ``regex`` lacks or reads differently, rewritten: ``\x{HHHH}`` ->
    ``\UHHHHHHHH``; ``\s`` also matches U+180E (``\S`` outside a class does not). Other
    escapes are left as they are (``\\x{..}`` is an escaped backslash)."""
    out, in_class = [], False
    for m in _TOKEN.finditer(pattern):
        t = m.group(0)
        if m.group(1) is not None:
            cp = int(m.group(1), 16)
            out.append(f"\\U{cp:08X}" if cp <= 0x10FFFF else t)
        elif t == "\\s":
            out.append("\\s" + _SPACE_EXTRA if in_class else "[\\s" + _SPACE_EXTRA + "]")
        elif t == "\\S" and not in_class:
            out.append("[^\\s" + _SPACE_EXTRA + "]")
        elif t.startswith("[") and not in_class:
            in_class = True
            out.append(t)
        elif t == "]" and in_class:
            in_class = False
            out.append(t)
        else:
            out.append(t)
    return "".join(out)


@lru_cache(maxsize=256)
def compile_pattern(pattern: bytes) -> "regex.Pattern | None":
    """The compiled pattern, or None where PCRE2 would fail to compile it (the ops then match
    nothing, as openvino-tokenizers does)."""
    if len(pattern) > MAX_PATTERN:
        raise OpError(f"a regex pattern of {len(pattern)} bytes is longer than irrun accepts ({MAX_PATTERN})")
    try:
        return regex.compile(to_regex_syntax(pattern.decode("utf-8")), regex.VERSION0)
    except (UnicodeDecodeError, regex.error):
        return None


def byte_offsets(text: str) -> np.ndarray | None:
    """Byte offset of each character boundary of ``text`` (None when ASCII: they are equal)."""
    if text.isascii():
        return None
    cps = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), np.uint32)
    sizes = 1 + (cps >= 0x80) + (cps >= 0x800) + (cps >= 0x10000)
    out = np.zeros(len(cps) + 1, np.int64)
    np.cumsum(sizes, out=out[1:])
    return out


def shown(pattern: bytes) -> str:
    """A pattern as an error shows it: escaped (:func:`printable`), shortened to :data:`SHOWN`."""
    text = pattern.decode("utf-8", "backslashreplace")
    return printable(text if len(text) <= SHOWN else text[:SHOWN] + f"... ({len(pattern)} bytes)")


class Bounded:
    """One op's use of one compiled pattern, within one time budget: every ``regex`` call gets
    the time left as its ``timeout``; only time inside the calls counts. The one way the
    tokenizer ops run a pattern (PCRE2's match limit, made a time limit)."""

    def __init__(self, source: bytes, compiled: "regex.Pattern | None", text_bytes: int = 0, n_strings: int = 0):
        self.source, self.compiled = source, compiled
        self.groups = compiled.groups if compiled is not None else 0
        self.limit = SECONDS + SECONDS_PER_MB * text_bytes / 1e6 + SECONDS_PER_STRING * n_strings
        self.spent = 0.0

    def _call(self, fn, *args, **kwargs):
        t0 = time.perf_counter()
        try:
            return fn(*args, timeout=max(self.limit - self.spent, 1e-3), **kwargs)
        except TimeoutError:
            self.spent = self.limit
            raise OpError(f"the regex pattern \"{shown(self.source)}\" ran past the time limit of "
                          f"{self.limit:.2f} s (catastrophic backtracking or a quadratic search; PCRE2 "
                          "stops such a match at its match limit)") from None
        finally:
            self.spent += time.perf_counter() - t0

    def search(self, text: str, pos: int):
        assert self.compiled is not None
        return self._call(self.compiled.search, text, pos)

    def sub(self, repl, text: str, count: int) -> str:
        assert self.compiled is not None
        return self._call(self.compiled.sub, repl, text, count=count)


def bounded(source: bytes, text_bytes: int = 0, n_strings: int = 0) -> Bounded:
    """The compiled ``source`` (:func:`compile_pattern`) with a fresh time budget for an op
    over ``n_strings`` strings of ``text_bytes`` bytes in all."""
    return Bounded(source, compile_pattern(source), text_bytes, n_strings)


class Matcher:
    """Successive non-empty matches of one pattern in one UTF-8 subject, in byte offsets."""

    def __init__(self, pattern: Bounded, subject: bytes):
        self.pattern: Bounded | None = pattern if pattern.compiled is not None else None
        try:
            self.text = subject.decode("utf-8")
        except UnicodeDecodeError:
            self.pattern = None
            self.text = ""
        self.offsets = byte_offsets(self.text)

    def _char(self, byte_pos: int) -> int:
        if self.offsets is None:
            return byte_pos
        return int(np.searchsorted(self.offsets, byte_pos))

    def _byte(self, char_pos: int) -> int:
        return char_pos if self.offsets is None else int(self.offsets[char_pos])

    def spans(self):
        """``(start, end)`` in bytes of each successive match from the start, up to the first
        empty one: what repeated ``search`` from each match's end gives, in one pass."""
        if self.pattern is None:
            return
        to_byte = self.offsets.tolist() if self.offsets is not None else None
        pos = 0
        while True:                 # (search by search: each call bounded by the time left)
            m = self.pattern.search(self.text, pos)
            if m is None:
                return
            a, b = m.span()
            if a == b:
                return
            yield (a, b) if to_byte is None else (to_byte[a], to_byte[b])
            pos = b

    def search(self, byte_start: int, groups: bool = False):
        """``(start, end)`` in bytes of the first match at or after ``byte_start``, or None for
        no match; with ``groups``, ``((start, end), [(gs, ge) or None per group])``."""
        if self.pattern is None:
            return None
        m = self.pattern.search(self.text, self._char(byte_start))
        if m is None:
            return None
        span = (self._byte(m.start()), self._byte(m.end()))
        if not groups:
            return span
        gs = [None if m.start(g) < 0 else (self._byte(m.start(g)), self._byte(m.end(g)))
              for g in range(1, (m.re.groups or 0) + 1)]
        return span, gs


def _parse_replacement(repl: str) -> list | None:
    """PCRE2 replacement text -> literal strings and group numbers (None: invalid syntax)."""
    parts: list = []
    i, lit = 0, []
    while i < len(repl):
        c = repl[i]
        if c != "$":
            lit.append(c)
            i += 1
            continue
        if i + 1 < len(repl) and repl[i + 1] == "$":
            lit.append("$")
            i += 2
            continue
        m = regex.match(r"\$(?:(\d+)|\{(\d+)\})", repl[i:])
        if m is None:
            return None
        if lit:
            parts.append("".join(lit))
            lit = []
        parts.append(int(m.group(1) or m.group(2)))
        i += m.end()
    if lit:
        parts.append("".join(lit))
    return parts


class _Unset(Exception):
    pass


def substitute(pattern: Bounded, subject: bytes, replacement: bytes, global_replace: bool) -> bytes:
    """pcre2_substitute as the RegexNormalization op calls it."""
    if pattern.compiled is None:
        return subject
    text = subject.decode("utf-8", "surrogateescape")    # (NO_UTF_CHECK: invalid bytes go through)
    parts = _parse_replacement(replacement.decode("utf-8", "surrogateescape"))
    if parts is None or any(isinstance(p, int) and p > pattern.groups for p in parts):
        return subject

    def repl(m) -> str:
        out = []
        for p in parts:
            if isinstance(p, str):
                out.append(p)
            else:
                g = m.group(p)
                if g is None:
                    raise _Unset
                out.append(g)
        return "".join(out)

    try:
        result = pattern.sub(repl, text, 0 if global_replace else 1)
    except _Unset:
        return subject
    return result.encode("utf-8", "surrogateescape")
