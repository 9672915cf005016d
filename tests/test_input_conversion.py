"""Inputs of another dtype than their Parameter (issue 26, point 4): converted as OpenVINO's Python
API converts them (OpenVINO is the oracle: ``irrun compare`` feeds it the same unconverted array),
with a note in the CLI; ``--strict-inputs`` / ``conversion.strict()`` refuse; a conversion that
would change values is refused with the ``.astype`` call that does it on purpose."""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import irrun
from helpers import needs_openvino
from irrun.cli.main import main
from irrun.types import conversion

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "samples" / "shufflenet_block" / "model.xml"          # x: f32[?,8,4,4]
BERT = ROOT / "tests" / "fixtures" / "zoo" / "bert_fp32" / "model.xml"  # three i64[?,?] inputs


def run_cli(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def bert_feeds(dtype) -> dict[str, np.ndarray]:
    ids = np.array([[5, 17, 42, 99]], dtype)
    return {"input_ids": ids, "attention_mask": np.ones_like(ids), "token_type_ids": np.zeros_like(ids)}


@needs_openvino
def test_openvino_converts_float64_and_so_does_irrun(tmp_path, capsys):
    x = np.random.default_rng(0).standard_normal((1, 8, 4, 4))            # float64
    np.save(tmp_path / "x.npy", x)
    code, out, err = run_cli(capsys, "compare", SAMPLE, "-i", tmp_path / "x.npy", "--rtol", "0", "--atol", "0")
    assert code == 0, out + err                                            # OpenVINO took it too
    assert 'note: input "x" is float64: converted to f32 as OpenVINO does' in err


@needs_openvino
def test_openvino_converts_int32_ids_and_so_does_irrun(tmp_path, capsys):
    np.savez(tmp_path / "in.npz", **bert_feeds(np.int32))
    code, out, err = run_cli(capsys, "compare", BERT, "-i", tmp_path / "in.npz")
    assert code == 0, out + err
    assert err.count("converted to i64 as OpenVINO does") == 3


def test_library_converts_like_openvino():
    model = irrun.read_model(BERT)
    want = model.run(bert_feeds(np.int64))
    got = model.run(bert_feeds(np.int32))
    for k in want:
        np.testing.assert_array_equal(got[k], want[k])
    sample = irrun.read_model(SAMPLE)
    x = np.random.default_rng(1).standard_normal((1, 8, 4, 4))
    np.testing.assert_array_equal(sample.run(x)["y"], sample.run(x.astype(np.float32))["y"])


@pytest.mark.parametrize("values,dtype,want,fragment", [
    ([7.5], np.float64, np.int64, "value 7.5 at [0] is not a whole number that fits i64"),
    ([300], np.int32, np.uint8, "value 300 at [0] does not fit u8"),
    ([0, 2], np.int64, np.bool_, "value 2 at [1] is neither 0 nor 1"),
    ([1e39], np.float64, np.float32, "is too large for f32"),
])
def test_value_changing_conversions_are_refused_with_astype(values, dtype, want, fragment):
    from irrun.types.elements import from_dtype
    with pytest.raises(irrun.InputError) as e:
        conversion.convert("ids", np.array(values, dtype), np.dtype(want), str(from_dtype(np.dtype(want))))
    assert fragment in str(e.value) and f"ids.astype(np.{np.dtype(want).name})" in str(e.value)


@pytest.mark.parametrize("values,dtype,want", [
    ([1.0, -3.0], np.float64, np.int64), ([255], np.int64, np.uint8), ([0, 1], np.int32, np.bool_),
    ([True], np.bool_, np.float32), ([2**40], np.int64, np.float64), ([0.1], np.float32, np.float16),
])
def test_value_keeping_conversions_match_astype(values, dtype, want):
    a = np.array(values, dtype)
    got = conversion.convert("x", a, np.dtype(want), "t")
    assert got.dtype == want and np.array_equal(got, a.astype(want))


def test_strings_never_convert():
    model = irrun.read_model(SAMPLE)
    with pytest.raises(irrun.InputError, match=r"has dtype <U1, the model wants f32 \(float32\); convert it first"):
        model.run(np.full((1, 8, 4, 4), "a"))


def test_strict_refuses_and_suggests_astype(tmp_path, capsys):
    np.save(tmp_path / "x.npy", np.ones((1, 8, 4, 4)))
    code, out, err = run_cli(capsys, SAMPLE, "-i", tmp_path / "x.npy", "--strict-inputs")
    assert code == 2
    assert re.search(r'x.npy: input "x" has dtype float64, the model wants f32 \(float32\) \(--strict-inputs\); '
                     r"convert it first: x.astype\(np.float32\)", err), err
    with conversion.strict(), pytest.raises(irrun.InputError, match=r"input_ids.astype\(np.int64\)"):
        irrun.read_model(BERT).run(bert_feeds(np.int32))
    code, out, err = run_cli(capsys, SAMPLE, "-i", tmp_path / "x.npy", "--quiet")
    assert code == 0 and err == ""                                          # the note silenced


def test_cli_refusal_names_the_input_file(tmp_path, capsys):
    np.save(tmp_path / "ids.npy", np.array([[1.5, 2.0]]))
    code, out, err = run_cli(capsys, BERT, "--random-inputs", "-i", f"input_ids={tmp_path / 'ids.npy'}")
    assert code == 2 and f"{tmp_path / 'ids.npy'}: input \"input_ids\" is float64 and its value 1.5" in err
    assert "input_ids.astype(np.int64)" in err
