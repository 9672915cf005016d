"""openvino-tokenizers ops convert_tokenizer rarely writes — NormalizeUnicode, CaseFold,
BytesToChars, CharsToBytes — and CharsMapNormalization's built-in normalization forms, each run
alone by OpenVINO's CPU plugin on varied text (tests/fixtures/tokenizer_ops, made by
tools/fixtures/make_tokenizer_op_fixtures.py) and replayed through irrun without OpenVINO: every output
array must be equal.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from helpers import run_op

FIXTURES = Path(__file__).parent / "fixtures" / "tokenizer_ops"
INDEX = json.loads((FIXTURES / "cases.json").read_text())


def _strings(b, e, chars) -> list[bytes]:
    data = chars.tobytes()
    return [data[i:j] for i, j in zip(b.reshape(-1).tolist(), e.reshape(-1).tolist())]


@pytest.mark.parametrize("case", sorted(INDEX))
def test_matches_openvino(case):
    meta = INDEX[case]
    arrays = np.load(FIXTURES / f"{case}.npz")
    inputs = [arrays[f"in{i}"] for i in range(meta["inputs"])]
    want = [arrays[f"out{i}"] for i in range(meta["outputs"])]
    got = run_op(meta["type"], inputs, meta["attrs"], version="extension", n_out=len(want),
                 params=tuple(range(len(inputs))))
    s = 2 if meta["type"] == "BytesToChars" else 0         # where the string tensor starts
    g, w = _strings(*got[s:s + 3]), _strings(*want[s:s + 3])
    bad = [i for i, (x, y) in enumerate(zip(g, w)) if x != y]
    assert len(g) == len(w) and not bad, f"{len(bad)} strings differ, first {bad[:1]}: {g[bad[0]]!r} != {w[bad[0]]!r}"
    for k, (x, y) in enumerate(zip(got, want)):
        np.testing.assert_array_equal(np.asarray(x), y, err_msg=f"output {k}")


# --- hand-worked values and bad inputs: clear errors naming the layer ------------------------

def _u8(text: bytes) -> np.ndarray:
    return np.frombuffer(text, np.uint8).copy()


def _i32(*v) -> np.ndarray:
    return np.array(v, np.int32)


def test_bytes_to_chars_and_back_by_hand():
    """GPT-2's alphabet: ' ' (0x20) -> U+0120 'Ġ', 0xFF stays U+00FF, 'a' stays."""
    rb, re_, b, e, c = run_op("BytesToChars", [_i32(0), _i32(1), _i32(0), _i32(3), _u8(b" a\xff")],
                              version="extension", n_out=5, params=(0, 1, 2, 3, 4))
    assert c.tobytes() == "\u0120a\u00ff".encode() and e.tolist() == [len(c)]
    b2, e2, c2 = run_op("CharsToBytes", [rb, re_, b, e, c], version="extension", n_out=3, params=(0, 1, 2, 3, 4))
    assert c2.tobytes() == b" a\xff"


def test_chars_to_bytes_refuses_a_character_outside_the_alphabet():
    from helpers import raises_for
    from irrun.errors import ExecutionError
    raises_for("CharsToBytes", ExecutionError, "not a character of the byte-level alphabet", run_op, "CharsToBytes",
               [_i32(0), _i32(1), _i32(0), _i32(3), _u8("\u4e2d".encode())], version="extension", n_out=3,
               params=(0, 1, 2, 3, 4))


@pytest.mark.parametrize("op,attrs,fragment", [
    ("NormalizeUnicode", {"normalization_form": "NFX"}, "doesn't know normalization form NFX"),
    ("CaseFold", {"encoding": "utf-8", "lower": False}, "only `lower` = true is supported"),
    ("CaseFold", {"encoding": "latin-1"}, "must be either"),
])
def test_bad_attributes_are_refused(op, attrs, fragment):
    from helpers import raises_for
    from irrun.errors import IrrunError
    raises_for(op, IrrunError, fragment, run_op, op, [_i32(0), _i32(1), _u8(b"a")], attrs,
               version="extension", n_out=3, params=(0, 1, 2))


def test_skips_of_the_wrong_length_are_refused():
    """One skip flag per string (irrun's check; the C++ reads past the flags), naming the port."""
    from helpers import raises_for
    from irrun.errors import ExecutionError
    raises_for("BytesToChars", ExecutionError, "skips has 2 elements for 1 strings", run_op, "BytesToChars",
               [_i32(0), _i32(1), _i32(0), _i32(1), _u8(b"a"), np.array([True, False])], version="extension",
               n_out=6, params=(0, 1, 2, 3, 4, 5))


# --- hostile patterns and sizes (issue 27): bounded time, counted bytes, clean errors ---------

def test_a_backtracking_pattern_stops_at_the_time_limit_naming_it():
    """((a+)(?1))+b over 40 'a' backtracks for hours in `regex` (PCRE2 stops at its match
    limit): the op stops at its time limit; the pattern is shown escaped and shortened."""
    from helpers import raises_for
    from irrun.errors import ExecutionError
    pattern = b"((a+)(?1))+b(?#\x1b[31m\n" + b"z" * 100 + b")"     # a comment to show
    e = raises_for("RegexNormalization", ExecutionError, "time limit", run_op, "RegexNormalization",
                   [_i32(0), _i32(40), _u8(b"a" * 40), _u8(pattern), _u8(b"x")], version="extension",
                   n_out=3, params=(0, 1, 2))
    assert "((a+)(?1))+b(?#\\x1b[31m\\n" in e.message and f"({len(pattern)} bytes)" in e.message
    assert "\n" not in e.message and "\x1b" not in e.message


@pytest.mark.parametrize("op,inputs,n_out", [
    ("RegexSplit", [_i32(0), _i32(1), _i32(0), _i32(40), _u8(b"a" * 40), _u8(b"((a+)(?1))+b")], 5),
    ("SpecialTokensSplit", [_i32(0), _i32(1), _i32(0), _i32(40), _u8(b"a" * 40), _u8(b"((a+)(?1))+b")], 6),
])
def test_the_split_ops_share_the_bound(op, inputs, n_out):
    from helpers import raises_for
    from irrun.errors import ExecutionError
    raises_for(op, ExecutionError, '"((a+)(?1))+b" ran past the time limit', run_op, op, inputs,
               version="extension", n_out=n_out, params=(0, 1, 2, 3, 4))


def test_overlapping_spans_count_the_text_they_describe():
    """1000 spans of one 1000-byte buffer are 10**6 bytes of text plus 1000 Python strings,
    refused under a budget of 10**6 bytes before any string is made; the buffer alone fits."""
    from helpers import raises_for
    from irrun.limits import memory as budget
    from irrun.limits.memory import MemoryBudgetError
    inputs = [np.zeros(1000, np.int32), np.full(1000, 1000, np.int32), _u8(b"a" * 1000)]
    with budget.limit(10**6):
        raises_for("StringTensorPack", MemoryBudgetError, "1000 strings, 1000000 bytes of text", run_op,
                   "StringTensorPack", inputs, version="opset15", params=(0, 1, 2))
    with budget.limit(2 * 10**6):
        out = run_op("StringTensorPack", inputs, version="opset15", params=(0, 1, 2))[0]
    assert out.shape == (1000,) and out[999] == "a" * 1000


def test_empty_vocabulary_entries_cost_their_python_objects():
    """A vocabulary of 10**5 empty strings holds no text, but 10**5 Python objects."""
    from helpers import raises_for
    from irrun.limits import memory as budget
    from irrun.limits.memory import MemoryBudgetError
    z = np.zeros(10**5, np.int32)
    with budget.limit(5 * 10**6):
        raises_for("VocabDecoder", MemoryBudgetError, "100000 strings", run_op, "VocabDecoder",
                   [np.zeros((1, 1), np.int32), z, z, _u8(b"a")], version="extension", n_out=5,
                   params=(0, 1, 2, 3))


def test_a_charsmap_shorter_than_its_header_is_refused():
    """u32 trie size | trie | strings: 8 promised, 6 there (sentencepiece reads past the end)."""
    import struct

    from irrun.errors import OpError
    from irrun.ops.tokenizers._charsmap import PrecompiledMap
    with pytest.raises(OpError, match="header says 8 bytes, the charsmap holds 6"):
        PrecompiledMap(struct.pack("<I", 8) + bytes(6))
    assert PrecompiledMap(struct.pack("<I", 8) + bytes(8)).normalized == b""      # exactly full: accepted


def test_regex_split_of_a_batch_of_empty_strings_keeps_its_rows():
    """Two rows of one empty string each: two empty rows, as the shape rule promises (the C++
    workaround CVS-160624 gives one row, and OpenVINO then fails in a Broadcast); a batch of one
    keeps the workaround's output."""
    pattern = _u8(rb"\s+")
    rb, re_, b, e, c = run_op("RegexSplit", [_i32(0, 1), _i32(1, 2), _i32(0, 0), _i32(0, 0), _u8(b""), pattern],
                              version="extension", n_out=5, params=(0, 1, 2, 3, 4))
    assert rb.tolist() == [0, 0] and re_.tolist() == [0, 0] and b.size == 0 and c.size == 0
    rb, re_, b, e, c = run_op("RegexSplit", [_i32(0), _i32(1), _i32(0), _i32(0), _u8(b""), pattern],
                              version="extension", n_out=5, params=(0, 1, 2, 3, 4))
    assert rb.tolist() == [0] and re_.tolist() == [0] and b.tolist() == [0] and e.tolist() == [0]
