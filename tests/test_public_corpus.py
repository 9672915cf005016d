"""IR files people already have (issue 22), without OpenVINO: small Open Model Zoo files from the
public corpus (python -m tools.conformance.public_corpus --write-fixtures) with OpenVINO CPU's outputs, and the
OpenVINO behaviours they rely on, each measured on OpenVINO 2026.4.1 (the values below are its
outputs):

* f16 graphs are computed in f32 (irrun/analysis/execution_types.py): a v10 FP16 file shows f32
  inputs and outputs and matches OpenVINO within atol/rtol 1e-3;
* INT8 files agree by the documented measure, which a broken FakeQuantize fails;
* ``check`` reports no error on them; a stale precision nothing computes with is a warning;
* whitespace before ``<?xml`` is read by both readers; other text there is still refused;
* ``StringTensorUnpack`` ``version="extension"`` takes openvino-tokenizers' packed u8 strings.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import irrun
from irrun.errors import ModelFileError
from irrun.ir.builder import IRWriter
from tools.conformance import public_corpus

FIXTURES = Path(__file__).parent / "fixtures" / "public"
CASES = sorted(p.name for p in FIXTURES.iterdir() if (p / "model.xml").exists()) if FIXTURES.is_dir() else []


def test_fixtures_present_and_small():
    assert set(CASES) == set(public_corpus.FIXTURE_CASES), "run python -m tools.conformance.public_corpus --write-fixtures"
    assert sum(p.stat().st_size for p in FIXTURES.rglob("*") if p.is_file()) < 2 << 20


@pytest.mark.parametrize("case", CASES)
def test_fixture_matches_openvino_by_its_measure(case):
    d = FIXTURES / case
    meta = json.loads((d / "case.json").read_text())
    entry = meta["source"]
    model = irrun.read_model(d / "model.xml")
    assert sorted(p.etype.name for p in model.inputs) == sorted(p["element_type"] for p in meta["inputs"])
    assert sorted(p.etype.name for p in model.outputs) == sorted(p["element_type"] for p in meta["outputs"])
    exp = np.load(d / "expected.npz")
    got = model.run({k[3:]: exp[k] for k in exp.files if k.startswith("in:")})
    by = {n: got[p.name] for p in model.outputs for n in p.names}
    off = dict(np.load(d / "expected_lpt_off.npz")) if (d / "expected_lpt_off.npz").exists() else {}
    outputs = {o["any_name"]: (by[o["any_name"]], exp["out:" + o["any_name"]], off.get("out:" + o["any_name"]))
               for o in meta["outputs"]}
    if entry["has_fakequantize"]:
        assert public_corpus.int8_verdict(outputs) is None
    else:
        for name, (got_, want, _) in outputs.items():
            assert public_corpus.within_tolerance(got_, want) is None, name


@pytest.mark.parametrize("case", CASES)
def test_check_finds_no_error_on_a_file_openvino_runs(case):
    findings = irrun.check(FIXTURES / case / "model.xml")
    assert not [f for f in findings if f.severity != "warning"], findings


def test_v10_fp16_file_declares_f16_and_irrun_computes_f32():
    """The v10 fixture really is an f16 graph: f16 Parameter and Consts in the file."""
    xml = (FIXTURES / "landmarks-regression-retail-0009-fp16-v10" / "model.xml").read_text()
    assert 'version="10"' in xml and 'element_type="f16"' in xml
    model = irrun.read_model(FIXTURES / "landmarks-regression-retail-0009-fp16-v10" / "model.xml")
    assert [p.etype.name for p in model.inputs] == ["f32"]      # as OpenVINO's Model.inputs


def test_int8_measure_fails_a_broken_fakequantize(tmp_path):
    """A FakeQuantize with 16 levels for 256 (at the first, middle or last of the 17): the
    measure fails it, though it passes the intact file (test above). (A 64-level one passes: that
    much quantization noise is within OpenVINO's own int8-vs-f32 spread on this model.)"""
    d = FIXTURES / "vehicle-attributes-recognition-barrier-0039-fp16-int8"
    xml = (d / "model.xml").read_text()
    spots = [i for i in range(len(xml)) if xml.startswith('levels="256"', i)]
    assert len(spots) == 17
    (tmp_path / "model.bin").write_bytes((d / "model.bin").read_bytes())
    exp, off = np.load(d / "expected.npz"), dict(np.load(d / "expected_lpt_off.npz"))
    for i in (spots[0], spots[8], spots[-1]):
        (tmp_path / "model.xml").write_text(xml[:i] + 'levels="16"' + xml[i + len('levels="256"'):])
        model = irrun.read_model(tmp_path / "model.xml")
        got = model.run({k[3:]: exp[k] for k in exp.files if k.startswith("in:")})
        outputs = {p.name: (got[p.name], exp["out:" + p.name], off.get("out:" + p.name)) for p in model.outputs}
        assert public_corpus.int8_verdict(outputs) is not None, i


# -- f16 computed in f32: small graphs, OpenVINO 2026.4.1 CPU (INFERENCE_PRECISION_HINT f32) ---
X = np.array([1.0001, 2.0003, 3.1415926, 100.123, 0.3333333, 7.77777, 1e-3 + 1e-7, 65.4321], np.float32)


def _save(b: IRWriter, tmp_path: Path) -> Path:
    """The graph as an IR v10 file (f16 is computed in f32 for v10 files: Model Optimizer's FP16)."""
    xml = b.save(tmp_path / "m.xml")
    xml.write_bytes(xml.read_bytes().replace(b'version="11"', b'version="10"', 1))
    return xml


def test_live_convert_to_f16_is_a_no_op(tmp_path):
    """Parameter(f32) -> Convert(f16) -> Convert(f32): OpenVINO returns the input unrounded."""
    b = IRWriter()
    x = b.parameter("x", "f32", [8])
    c = b.layer("Convert", [x], {"destination_type": "f16"}, out_precision="FP16")
    b.result(b.layer("Convert", [c], {"destination_type": "f32"}), "y")
    y = irrun.read_model(_save(b, tmp_path)).run(X)["y"]
    assert y.dtype == np.float32 and np.array_equal(y, X)


def test_constant_convert_to_f16_still_rounds(tmp_path):
    """Const(f32) -> Convert(f16) -> Convert(f32) -> Add: the constant is rounded to f16."""
    b = IRWriter()
    x = b.parameter("x", "f32", [8])
    k = b.const(np.linspace(0.1, 0.9, 8).astype(np.float32))
    c = b.layer("Convert", [k], {"destination_type": "f16"}, out_precision="FP16")
    b.result(b.layer("Add", [x, b.layer("Convert", [c], {"destination_type": "f32"})]), "y")
    y = irrun.read_model(_save(b, tmp_path)).run(X)["y"]
    ov = [1.100075602531433, 2.2145333290100098, 3.470205783843994, 100.56587219238281,
          0.8904622197151184, 8.449156761169434, 0.7866446375846863, 66.33200073242188]
    np.testing.assert_array_equal(y, np.array(ov, np.float32))


def test_f16_activations_are_computed_in_f32(tmp_path):
    """Parameter(f32) -> Convert(f16) -> Multiply(f16 Const 0.1) -> Convert(f32): x * f16(0.1)
    in f32, the activation never rounded (f16 arithmetic gives 0.1000 for the first value)."""
    b = IRWriter()
    x = b.parameter("x", "f32", [8])
    c = b.layer("Convert", [x], {"destination_type": "f16"}, out_precision="FP16")
    m = b.layer("Multiply", [c, b.const(np.full(8, 0.1, np.float16))], out_precision="FP16")
    b.result(b.layer("Convert", [m], {"destination_type": "f32"}), "y")
    model = irrun.read_model(_save(b, tmp_path))
    ov = [0.09998558461666107, 0.19998115301132202, 0.3140825629234314, 10.009855270385742,
          0.0333251915872097, 0.7775871157646179, 9.998559107771143e-05, 6.541612148284912]
    np.testing.assert_array_equal(model.run(X)["y"], np.array(ov, np.float32))


def test_v10_f16_parameter_and_result_are_f32_at_the_api(tmp_path):
    """An IR v10 f16 Parameter takes f32 and an f16 Result gives f32 (OpenVINO's v10 reader),
    computed in f32 in between: x * f16(0.1), then Sqrt, never rounded."""
    b = IRWriter()
    x = b.parameter("x", "f16", [8])
    m = b.layer("Multiply", [x, b.const(np.full(8, 0.1, np.float16))], out_precision="FP16")
    b.result(b.layer("Sqrt", [m], out_precision="FP16"), "y")
    model = irrun.read_model(_save(b, tmp_path))
    assert [p.etype.name for p in model.inputs] == ["f32"] and [p.etype.name for p in model.outputs] == ["f32"]
    y = model.run(X)["y"]
    assert y.dtype == np.float32 and np.array_equal(y, np.sqrt(X * np.float32(np.float16(0.1))))


# -- check: a stale precision nothing computes with is a warning ----------------------------
def _maxpool_model(tmp_path: Path, read_indices: bool) -> Path:
    b = IRWriter()
    x = b.parameter("x", "f32", [1, 1, 4, 4])
    vals, idx = b.layer("MaxPool", [x], {"strides": [2, 2], "pads_begin": [0, 0], "pads_end": [0, 0],
                                        "kernel": [2, 2], "dilations": [1, 1]}, version="opset8", n_out=2,
                        out_dims=[[1, 1, 2, 2], [1, 1, 2, 2]])
    b.layers[-1]["out"][1] = ("FP32", [1, 1, 2, 2], None)       # MO wrote FP32; it is i64
    b.result(vals, "y")
    if read_indices:
        b.result(b.layer("Convert", [idx], {"destination_type": "f32"}, out_dims=[[1, 1, 2, 2]]), "i")
    return b.save(tmp_path / "pool.xml")


def test_stale_precision_on_an_unread_port_is_a_warning(tmp_path):
    f = [x for x in irrun.check(_maxpool_model(tmp_path, False)) if x.code == "precision"]
    assert [x.severity for x in f] == ["warning"] and "OpenVINO ignores" in f[0].message


def test_stale_precision_on_a_port_a_layer_computes_with_is_an_error(tmp_path):
    f = [x for x in irrun.check(_maxpool_model(tmp_path, True)) if x.code == "precision"]
    assert [x.severity for x in f] == ["error"]


# -- whitespace before the XML declaration ------------------------------------------------------
def _m1(tmp_path: Path, name: str = "x") -> Path:
    b = IRWriter()
    b.result(b.layer("Relu", [b.parameter(name, "f32", [3])]), "y")
    return b.save(tmp_path / "ws.xml")


@pytest.mark.parametrize("layer_name", ["x", "x&amp;y"])      # fast reader, element-tree reader
def test_whitespace_before_the_declaration_is_read(tmp_path, layer_name):
    xml = _m1(tmp_path)
    text = xml.read_bytes().replace(b'name="x"', f'name="{layer_name}"'.encode(), 1)
    assert text.startswith(b"<?xml")
    xml.write_bytes(b"\n  \r\n" + text)
    y = irrun.read_model(xml).run(np.array([-1.0, 0.5, 2.0], np.float32))["y"]
    np.testing.assert_array_equal(y, [0.0, 0.5, 2.0])


def test_text_before_the_declaration_is_still_refused(tmp_path):
    xml = _m1(tmp_path)
    xml.write_bytes(b"x\n" + xml.read_bytes())
    with pytest.raises(ModelFileError, match="not a well-formed XML file"):
        irrun.read_model(xml)


# -- StringTensorUnpack version="extension": packed u8 strings --------------------------------
def test_string_tensor_unpack_extension_reads_packed_strings(tmp_path):
    """openvino-tokenizers' packed format (its ``parse_packed_strings``): i32 count, count + 1 i32
    offsets, the bytes. ["ab", "", "cde"] -> begins [0,2,2], ends [2,2,5], symbols b"abcde"."""
    packed = np.frombuffer(np.array([3, 0, 2, 2, 5], "<i4").tobytes() + b"abcde", np.uint8)
    b = IRWriter()
    k = b.const(packed)
    outs = b.layer("StringTensorUnpack", [k], {"mode": "begins_ends"}, version="extension", n_out=3)
    for i, o in enumerate(outs):
        b.result(b.layer("Convert", [o], {"destination_type": "i32"}), f"o{i}")
    got = irrun.read_model(b.save(tmp_path / "t.xml")).run({})
    assert got["o0"].tolist() == [0, 2, 2] and got["o1"].tolist() == [2, 2, 5]
    assert bytes(got["o2"].astype(np.uint8)) == b"abcde"


def test_string_tensor_unpack_extension_refuses_offsets_past_the_bytes(tmp_path):
    packed = np.frombuffer(np.array([1, 0, 9], "<i4").tobytes() + b"abc", np.uint8)
    b = IRWriter()
    outs = b.layer("StringTensorUnpack", [b.const(packed)], {"mode": "begins_ends"}, version="extension", n_out=3)
    b.result(b.layer("Convert", [outs[0]], {"destination_type": "i32"}), "o")
    with pytest.raises(irrun.errors.IrrunError, match="offsets outside"):
        irrun.read_model(b.save(tmp_path / "t.xml")).run({})


@pytest.mark.parametrize("version", ["3", "6", "9"])
def test_legacy_ir_versions_are_refused_naming_the_version(tmp_path, version):
    """IR v3-v9 (Model Optimizer before 2020.1): OpenVINO 2026.4.1 cannot read them either."""
    xml = _m1(tmp_path)
    xml.write_bytes(xml.read_bytes().replace(b'version="11"', f'version="{version}"'.encode(), 1))
    with pytest.raises(ModelFileError, match=f'IR version "{version}" is not supported.*cannot read it either'):
        irrun.read_model(xml)
