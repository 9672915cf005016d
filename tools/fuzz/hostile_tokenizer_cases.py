"""Hostile cases of issue 27 (classes 4-8 and 15) for tools/fuzz/make_hostile_corpus.py: tokenizer ops
given patterns and sizes no real tokenizer has.

* 4, 5: a regex that backtracks catastrophically (``((a+)(?1))+b`` over 40 ``a``) in
  RegexNormalization, RegexSplit and SpecialTokensSplit, and a quadratic split (``[a-z]+[0-9]``
  over a 300000-letter word): each stops at the op's regex time limit (exit 2, the layer and the
  pattern named) instead of running for hours;
* 6: 10**5 spans over one 1 MB buffer (100 GB of text) in RegexNormalization and
  StringTensorPack: refused by the memory budget before a string is copied;
* 7: a VocabDecoder vocabulary of 25 million (empty) entries made at run time: the Python
  objects it would take count against the budget;
* 8: a CharsMapNormalization charsmap shorter than its header says;
* 15: the WordPiece pair tokenizer fixture given two empty strings: runs (OpenVINO 2026.4.1 fails
  with a Broadcast error; given one empty text and "a b" it gives ``[CLS] [SEP] a b [SEP]``, so
  two empty texts give ``[CLS] [SEP] [SEP]``: ids 2, 3, 3).

Large texts are made inside the model (a Broadcast of one byte), so the corpus stays small.
``timeout`` in a case: tests/hostile/test_tokenizer_hostile.py runs it in a subprocess that must
end within that many seconds (they ran for minutes or hours before).
"""
from __future__ import annotations

import struct

import numpy as np

from irrun.ir.builder import IRWriter
from tools import ROOT

FIXTURES = ROOT / "tests" / "fixtures" / "tokenizers"
BACKTRACK = b"((a+)(?1))+b"
QUADRATIC = b"[a-z]+[0-9]"
#: A case's subprocess must end within this (irrun's own bound is ~0.5 s of matching per op)
TIMEOUT = 10


def _u8(text: bytes) -> np.ndarray:
    return np.frombuffer(text, np.uint8).copy()


def _i32(*v: int) -> np.ndarray:
    return np.array(v, np.int32)


def _fill(b: IRWriter, value, n: int, name: str, precision: str) -> tuple[int, int]:
    """``value`` (a 1-element array or a port) broadcast to ``[n]`` at run time."""
    src = value if isinstance(value, tuple) else b.const(value)
    return b.layer("Broadcast", [src, b.const(np.array([n], np.int64))], version="opset3",
                   out_dims=[[n]], out_precision=precision, name=name)


def _text(b: IRWriter, n: int) -> tuple:
    """chars u8[n] of ``x.npy``'s byte repeated (a Broadcast), and one string spanning them."""
    chars = _fill(b, b.parameter("x", "u8", [1]), n, "text", "U8")
    return b.const(_i32(0)), b.const(_i32(n)), chars


def regex_model(op: str, pattern: bytes, n: int) -> tuple[bytes, bytes]:
    """``op`` with ``pattern`` over one string of ``n`` copies of the input byte."""
    b = IRWriter(op.lower())
    begins, ends, chars = _text(b, n)
    pat = b.const(_u8(pattern))
    if op == "RegexNormalization":
        out = b.layer(op, [begins, ends, chars, pat, b.const(_u8(b"x"))], version="extension",
                      n_out=3, out_precision="I32", name="hostile_regex")[2]
    else:
        rows = [b.const(_i32(0)), b.const(_i32(1))]
        out = b.layer(op, [*rows, begins, ends, chars, pat], {"behaviour": "isolate"} if op == "RegexSplit" else {},
                      version="extension", n_out=5 + (op == "SpecialTokensSplit"), out_precision="I32",
                      name="hostile_regex")[4]
    b.result(out, "chars")
    return b.to_xml(), bytes(b.blob)


def spans_model(op: str, n_spans: int, size: int) -> tuple[bytes, bytes]:
    """``n_spans`` begin/end pairs, every one the whole ``size``-byte buffer (Broadcasts)."""
    b = IRWriter(op.lower())
    chars = _fill(b, b.parameter("x", "u8", [1]), size, "buffer", "U8")
    begins = _fill(b, _i32(0), n_spans, "begins", "I32")
    ends = _fill(b, _i32(size), n_spans, "ends", "I32")
    if op == "StringTensorPack":
        out = b.layer(op, [begins, ends, chars], version="opset15", out_precision="STRING", name="overlap")
    else:
        out = b.layer(op, [begins, ends, chars, b.const(_u8(b"a")), b.const(_u8(b"b"))], version="extension",
                      n_out=3, out_precision="I32", name="overlap")[2]
    b.result(out, "y")
    return b.to_xml(), bytes(b.blob)


def vocab_model(entries: int) -> tuple[bytes, bytes]:
    """VocabDecoder over ``entries`` empty vocabulary strings (begins = ends = 0, Broadcasts)."""
    b = IRWriter("vocab")
    ids = b.parameter("ids", "i32", [1, 1])
    vb = _fill(b, _i32(0), entries, "vocab_begins", "I32")
    ve = _fill(b, _i32(0), entries, "vocab_ends", "I32")
    out = b.layer("VocabDecoder", [ids, vb, ve, b.const(_u8(b"a"))], version="extension", n_out=5,
                  out_precision="I32", name="decoder")[4]
    b.result(out, "y")
    return b.to_xml(), bytes(b.blob)


def charsmap_model(blob: bytes) -> tuple[bytes, bytes]:
    b = IRWriter("charsmap")
    x = b.parameter("x", "string", [1])
    s = b.layer("StringTensorUnpack", [x], version="opset15", n_out=3, out_precision="I32", name="unpack")
    out = b.layer("CharsMapNormalization", [*s, b.const(_u8(blob))], version="extension", n_out=3,
                  out_precision="I32", name="charsmap")[2]
    b.result(out, "y")
    return b.to_xml(), bytes(b.blob)


def cases(model_case, npy) -> None:
    a = {"x.npy": npy(np.array([ord("a")], np.uint8))}
    budget = ["--max-memory", "256M"]
    for op in ("RegexNormalization", "RegexSplit", "SpecialTokensSplit"):
        xml, bin_ = regex_model(op, BACKTRACK, 40)
        model_case(f"tok_backtracking_{op.lower()}", f"{op}: ((a+)(?1))+b over 40 x 'a' (catastrophic "
                   "backtracking; it ran for hours)", xml, bin_, 2,
                   ['"hostile_regex"', op, "((a+)(?1))+b", "time limit"], a, timeout=TIMEOUT)
    xml, bin_ = regex_model("RegexSplit", QUADRATIC, 300_000)
    model_case("tok_quadratic_split", "RegexSplit [a-z]+[0-9] over a 300000-letter word (quadratic: > 60 s)",
               xml, bin_, 2, ['"hostile_regex"', "[a-z]+[0-9]", "time limit"], a, timeout=TIMEOUT)
    for op in ("RegexNormalization", "StringTensorPack"):
        xml, bin_ = spans_model(op, 100_000, 1_000_000)
        model_case(f"tok_overlapping_spans_{op.lower()}", f"{op}: 10**5 spans over one 1 MB buffer (100 GB "
                   "of text) under --max-memory 256M", xml, bin_, 2,
                   ['"overlap"', op, "100000 strings", "100000000000 bytes of text", "memory budget"],
                   {"x.npy": npy(np.array([ord("a")], np.uint8))}, args=["--input", "{dir}/x.npy", *budget],
                   timeout=TIMEOUT)
    xml, bin_ = vocab_model(25_000_000)
    model_case("tok_vocab_25m_entries", "VocabDecoder with 25 million vocabulary entries made at run time "
               "(Python objects: 1.6 GB) under --max-memory 256M", xml, bin_, 2,
               ['"decoder"', "VocabDecoder", "25000000 strings", "memory budget"],
               {"ids.npy": npy(np.zeros((1, 1), np.int32))}, args=["--input", "{dir}/ids.npy", *budget],
               timeout=TIMEOUT)
    xml, bin_ = charsmap_model(struct.pack("<I", 8) + b"\0" * 6)
    model_case("tok_charsmap_short_blob", "a CharsMapNormalization charsmap of 10 bytes whose header "
               "promises 4 + 8", xml, bin_, 2, ['"charsmap"', "CharsMapNormalization", "header says 8 bytes"],
               {"x.npy": npy(np.array(["ab"]))}, timeout=TIMEOUT)
    d = FIXTURES / "wordpiece_pair_trunc"
    empty = npy(np.array([""]))
    model_case("tok_wordpiece_pair_empty", "the WordPiece pair tokenizer given two empty strings "
               "(RegexSplit's kernel broke its shape rule: exit 4)",
               (d / "tokenizer.xml").read_bytes(), (d / "tokenizer.bin").read_bytes(), 0,
               ["input_ids", "[2, 3, 3, 0, 0, 0, 0, 0,", "[0, 0, 1, 0, 0"], {"a.npy": empty, "b.npy": empty},
               args=["--input", "Parameter_82002={dir}/a.npy", "--input", "string_input_2={dir}/b.npy"],
               timeout=TIMEOUT)
