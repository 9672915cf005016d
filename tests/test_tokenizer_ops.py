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
