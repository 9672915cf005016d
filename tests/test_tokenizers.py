"""openvino-tokenizers IRs (tests/fixtures/tokenizers, made by tools/fixtures/make_tokenizer_fixtures.py
with openvino-tokenizers' convert_tokenizer and run by OpenVINO's CPU plugin) replayed through
irrun without OpenVINO: every token id, mask and decoded string must be equal.

String outputs were read exactly (through a StringTensorUnpack the tool appends): the tensors'
``bytes_data`` drops trailing NUL bytes and, for ids of shape [B, 0], showed a stray byte
(earlier fixtures needed a list of known differences for those; none is left).
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import irrun
from irrun.cli.main import main
from irrun.ops.tokenizers._charsmap import FormMap, normalize, simple_fold
from irrun.ops.tokenizers._pcre import bounded, compile_pattern, substitute, to_regex_syntax
from irrun.ops.tokenizers.decoding import validate_utf8

FIXTURES = Path(__file__).parent / "fixtures" / "tokenizers"
CASES = sorted(p.name for p in FIXTURES.iterdir() if (p / "meta.json").exists())
def _runs():
    for case in CASES:
        meta = json.loads((FIXTURES / case / "meta.json").read_text(encoding="utf-8"))
        for r in meta["runs"]:
            yield pytest.param(case, r, id=f"{case}-{r['model']}-{r['name']}")


def _expected(arrays, key: str):
    """A stored output: an array, or (for strings) the list of UTF-8 byte strings + shape."""
    if key in arrays:
        return arrays[key]
    data, ends = arrays[key + "__utf8"].tobytes(), arrays[key + "__ends"].tolist()
    starts = [0] + ends[:-1]
    return [data[a:b] for a, b in zip(starts, ends)], tuple(arrays[key + "__shape"].tolist())


_MODELS: dict = {}


def _model(path: Path):
    if path not in _MODELS:
        _MODELS[path] = irrun.read_model(path)
    return _MODELS[path]


@pytest.mark.parametrize("case,run", list(_runs()))
def test_matches_openvino(case, run):
    d = FIXTURES / case
    arrays = np.load(d / "runs.npz")
    model = _model(d / f"{run['model']}.xml")
    out = model.run({name: arrays[key] for name, key in run["inputs"].items()})
    mismatches = []
    assert run["outputs"]
    for name, key in run["outputs"].items():
        spec = next(o for o in model.outputs if name in o.names)
        got, want = out[spec.name], _expected(arrays, key)
        if isinstance(want, tuple):
            items, shape = want
            same = got.shape == shape and [s.encode("utf-8") for s in got.reshape(-1).tolist()] == items
        else:
            same = got.dtype == want.dtype and np.array_equal(got, want)
        if not same:
            mismatches.append(name)
    assert not mismatches, f"{case} {run['model']} {run['name']}: {mismatches} differ from OpenVINO"


def test_every_kind_and_op_is_covered():
    """The fixtures hold each tokenizer kind and every op this package implements."""
    kinds = {json.loads((FIXTURES / c / "meta.json").read_text())["kind"] for c in CASES}
    assert {"bpe_bytelevel", "bpe_sentencepiece", "wordpiece", "unigram"} <= kinds
    seen = set()
    for c in CASES:
        for m in ("tokenizer", "detokenizer"):
            text = (FIXTURES / c / f"{m}.xml").read_text(encoding="utf-8")
            seen |= {t for t in ("StringTensorUnpack", "StringTensorPack", "SpecialTokensSplit", "RegexSplit",
                                 "RegexNormalization", "CharsMapNormalization", "BPETokenizer",
                                 "WordpieceTokenizer", "UnigramTokenizer", "Truncate", "CombineSegments",
                                 "RaggedToDense", "VocabDecoder", "FuzeRagged", "UTF8Validate", "ByteFallback")
                     if f'type="{t}"' in text}
    assert len(seen) == 16, seen


def test_cli_runs_a_tokenizer_on_a_unicode_npy(tmp_path, capsys):
    np.save(tmp_path / "text.npy", np.array(["Hello, world!", "日本語 🙂", ""]))
    xml = FIXTURES / "wordpiece" / "tokenizer.xml"
    code = main([str(xml), "--input", str(tmp_path / "text.npy"), "--output", str(tmp_path / "o.npz")])
    err = capsys.readouterr().err
    assert code == 0, err
    res = np.load(tmp_path / "o.npz")
    ids = res["input_ids"]
    assert ids.shape[0] == 3 and ids[:, 0].tolist() == [2, 2, 2]          # [CLS] first
    assert res["attention_mask"][2].tolist()[:3] == [1, 1, 0]            # "" -> [CLS] [SEP]


# --- units: expected values from the C++ sources' rules, worked by hand ----------------------

def test_pcre_escapes_are_rewritten_for_regex():
    assert to_regex_syntax(r"[\x{4E00}-\x{9FFF}]") == r"[\U00004E00-\U00009FFF]"
    assert to_regex_syntax(r"\\x{41}") == r"\\x{41}"                     # an escaped backslash
    assert compile_pattern(rb"[\x{4E00}-\x{9FFF}]+").findall("a\u4e2d\u6587b") == ["\u4e2d\u6587"]
    assert compile_pattern(b"(unclosed") is None                      # PCRE2 would not compile it


def test_substitute_follows_pcre2_replacement_rules():
    p = bounded(rb"(a)|(b)")
    assert substitute(p, b"ab", b"[$1]", True) == b"ab"               # $1 unset on "b": unchanged
    assert substitute(bounded(rb"(a)"), b"aXa", b"<${1}$$>", True) == b"<a$>X<a$>"
    assert substitute(bounded(rb"a"), b"aaa", b"b", False) == b"baa"
    assert substitute(bounded(rb"\s*$"), b"ab  ", b"X", True) == b"abXX"  # as PCRE2: empty match at the end too


def test_utf8_validate_rules():
    assert validate_utf8(b"a\xe2\x82", True) == b"a\xef\xbf\xbd"          # truncated: one U+FFFD
    assert validate_utf8(b"\xc0\x80", True) == b"\xef\xbf\xbd" * 2       # overlong: one per byte
    assert validate_utf8(b"\x80x", False) == b"x"
    assert validate_utf8(b"\xe2(x", True) == b"\xef\xbf\xbd(x"           # the bad byte is read again


def test_charsmap_builtin_forms():
    nfd_fold = FormMap("nfd", True)
    assert normalize("\u00c9COLE  x".encode(), nfd_fold, False, False, False) == "e\u0301cole  x".encode()
    assert normalize(b"  a  b ", None, False, True, False) == b"a b"          # remove_extra_whitespaces
    assert normalize(b"a b", None, True, False, True) == "\u2581a\u2581b".encode()
    assert normalize(b"\xffa", None, False, False, False) == "\ufffda".encode()
    assert simple_fold("\u00df") == "\u00df" and simple_fold("\u1e9e") == "\u00df" and simple_fold("A") == "a"
    nfkc = FormMap("nfkc", False)                     # compositions: multi-character keys
    assert normalize("e\u0301 \ufb01 \U0001d41a\u0301".encode(), nfkc, False, False, False) == "\u00e9 fi \u00e1".encode()
    with pytest.raises(irrun.errors.OpError, match="nfkc_cf"):
        FormMap("nfkc_cf", False)


# --- hostile inputs: clear errors naming the layer, never an out-of-range read ---------------

def _u8(text: bytes) -> np.ndarray:
    return np.frombuffer(text, np.uint8).copy()


def test_offsets_outside_the_chars_are_refused():
    from helpers import raises_for, run_op
    from irrun.errors import ExecutionError
    i32 = lambda *v: np.array(v, np.int32)                              # noqa: E731
    raises_for("RegexSplit", ExecutionError, "offsets outside", run_op, "RegexSplit",
               [i32(0), i32(1), i32(0), i32(99), _u8(b"abc"), _u8(b"b")],
               {"behaviour": "isolate"}, version="extension", n_out=5, params=(0, 1, 2, 3, 4))
    raises_for("VocabDecoder", ExecutionError, "offsets outside", run_op, "VocabDecoder",
               [np.array([[0]], np.int32), i32(0), i32(5), _u8(b"ab")], version="extension", n_out=5)


def test_dense_output_over_the_budget_is_refused_before_allocating():
    from helpers import raises_for, run_op
    from irrun.limits import memory as budget
    from irrun.limits.memory import MemoryBudgetError
    with budget.limit(1 << 20):
        raises_for("RaggedToDense", MemoryBudgetError, "memory budget", run_op, "RaggedToDense",
                   [np.array([0], np.int32), np.array([1], np.int32), np.array([7], np.int64),
                    np.int32(2**30), np.int64(0)], version="extension", n_out=2, params=(0, 1, 2, 3))


def test_regex_split_modes_by_hand():
    """regex_split.cpp's modes on "a,b,,c" split by ",": worked by hand from the C++."""
    from helpers import run_op
    text = b"a,b,,c"
    ins = [np.array([0], np.int32), np.array([1], np.int32), np.array([0], np.int32),
           np.array([len(text)], np.int32), _u8(text), _u8(b",")]

    def pieces(**attrs):
        rb, re_, b, e, c = run_op("RegexSplit", ins, attrs, version="extension", n_out=5, params=(0, 1, 2, 3, 4))
        data = c.tobytes()
        return [data[i:j] for i, j in zip(b.tolist(), e.tolist())]
    assert pieces(behaviour="remove") == [b"a", b"b", b"c"]
    assert pieces(behaviour="isolate") == [b"a", b",", b"b", b",", b",", b"c"]
    assert pieces(behaviour="contiguous") == [b"a", b",", b"b", b",,", b"c"]
    # a match right after a match reuses the last gap's begin (the C++ keeps last_begin)
    assert pieces(behaviour="mergedwithprevious") == [b"a,", b"b,", b"b,,", b"c"]
    assert pieces(behaviour="mergedwithnext") == [b"a", b",b", b",c"]       # (the middle "," is lost, as in the C++)
    # the piece after max_splits pieces runs to the end, and splitting goes on (as in the C++)
    assert pieces(behaviour="remove", max_splits=1) == [b"a", b"b,,c", b"c"]


@pytest.mark.parametrize("case", CASES)
def test_check_finds_nothing_in_what_openvino_tokenizers_wrote(case, capsys):
    """No finding, warnings included (its empty Consts hold one byte, as OpenVINO writes them)."""
    for m in ("tokenizer", "detokenizer"):
        assert main(["check", str(FIXTURES / case / f"{m}.xml")]) == 0
        assert "OK, no problems found" in capsys.readouterr().out
