"""openvino-tokenizers ops convert_tokenizer rarely writes — NormalizeUnicode, CaseFold,
BytesToChars, CharsToBytes — and CharsMapNormalization's built-in normalization forms, each run
alone by OpenVINO's CPU plugin on varied text (tests/fixtures/tokenizer_ops, made by
tools/make_tokenizer_op_fixtures.py) and replayed through irrun without OpenVINO: every output
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
