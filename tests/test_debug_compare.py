"""``irrun compare``: name the first layer whose inputs agree but whose output does not.

A copy of the ShuffleNet-style fixture gets one Const's bytes changed (the Transpose order
[0,1,3,2] becomes [0,1,2,3]); compared with a dump of the original, the Transpose must be named.
Against OpenVINO, the unchanged fixtures agree port by port, and an irrun kernel made wrong on
purpose is caught at its layer.
"""
from __future__ import annotations

import re
import shutil

import numpy as np
import pytest

from helpers import needs_openvino
from irrun.debug import openvino_reference as ovref
from irrun.cli.main import main
from irrun.debug.layer_diff import F32_ROUNDING, Tolerance, compare_arrays
from irrun.ops.registry import resolve
from test_fixtures import FIXTURES

BLOCK = FIXTURES / "shufflenet_block"


def run_cli(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def edited(tmp_path):
    """The fixture with the Transpose's order Const changed from [0,1,3,2] to [0,1,2,3]."""
    d = tmp_path / "edited"
    d.mkdir()
    shutil.copy(BLOCK / "model.xml", d / "model.xml")
    xml = (BLOCK / "model.xml").read_text(encoding="utf-8")
    m = re.search(r'name="Constant_181" type="Const".*?offset="(\d+)" size="32"', xml, re.S)
    assert m, "fixture layout changed"
    blob = bytearray((BLOCK / "model.bin").read_bytes())
    off = int(m[1])
    assert np.frombuffer(bytes(blob[off:off + 32]), "<i8").tolist() == [0, 1, 3, 2]
    blob[off:off + 32] = np.array([0, 1, 2, 3], "<i8").tobytes()
    (d / "model.bin").write_bytes(bytes(blob))
    return d / "model.xml"


def test_names_the_layer_whose_const_was_changed(tmp_path, capsys, edited):
    code, _, err = run_cli(capsys, BLOCK / "model.xml", "-i", BLOCK / "inputs.npz", "--dump", tmp_path / "good")
    assert code == 0, err
    code, out, err = run_cli(capsys, "compare", edited, "-i", BLOCK / "inputs.npz", "-r", tmp_path / "good")
    assert code == 1, err
    lines = out.splitlines()
    # x = arange(128): Transpose gives 64+16c+4j+i where the edit gives 64+16c+4i+j: |diff| = 3|i-j|,
    # non-zero off the diagonal (48 of 64 values), at most 9
    assert lines[0] == (f"irrun vs {tmp_path / 'good'}: 4 of 6 layers differ beyond float32 rounding "
                        "(1e-4 of the value or of the port's RMS)")
    assert lines[1] == "first layer whose inputs agree but whose output does not:"
    assert lines[2] == '  layer 5 "Transpose_182" (Transpose-1)'
    assert lines[3].split() == ["inputs", "3:4", "agrees,", "4:0", "Const"]
    assert lines[4].startswith("  output 2  float32[1,4,4,4]: 48 of 64 values differ, worst at [")
    assert "max abs error 9," in lines[4]
    assert lines[5] == 'differing after it: 6 "Concat_183", 7 "ShuffleChannels_184", 9 "Split_186"'


def test_a_model_agrees_with_its_own_dump(tmp_path, capsys):
    run_cli(capsys, BLOCK / "model.xml", "-i", BLOCK / "inputs.npz", "--dump", tmp_path / "d")
    code, out, err = run_cli(capsys, "compare", BLOCK / "model.xml", "-i", BLOCK / "inputs.npz",
                             "--reference", tmp_path / "d" / "tensors.npz")
    assert (code, out.strip()) == (0, f"irrun vs {tmp_path / 'd' / 'tensors.npz'}: all 6 layers agree "
                                      "within float32 rounding (8 ports, 1e-4 of the value or of the port's RMS)"), err


def test_a_reference_with_none_of_the_keys_is_an_error(tmp_path, capsys):
    np.savez(tmp_path / "r.npz", p=np.zeros(3))
    code, out, err = run_cli(capsys, "compare", BLOCK / "model.xml", "-i", BLOCK / "inputs.npz", "-r", tmp_path / "r.npz")
    assert code == 2
    assert 'the reference holds none of irrun\'s tensors (keys are "<layer id>:<port id>", e.g. 0:0, 3:3, 3:4' in err


def test_without_openvino_says_so(capsys, monkeypatch):
    monkeypatch.setattr(ovref, "available", lambda: False)
    code, out, err = run_cli(capsys, "compare", BLOCK / "model.xml", "-i", BLOCK / "inputs.npz")
    assert code == 2 and "openvino is not installed" in err and "--reference REF.npz" in err


@needs_openvino
@pytest.mark.parametrize("reference", ["openvino", "openvino-reference"])
@pytest.mark.parametrize("case", ["shufflenet_block", "variadic_split_shapeof", "string_data", "ir_v10"])
def test_fixtures_agree_with_openvino_port_by_port(capsys, case, reference):
    d = FIXTURES / case
    code, out, err = run_cli(capsys, "compare", d / "model.xml", "-i", d / "inputs.npz", "-r", reference,
                             "--rtol", "0", "--atol", "0")
    assert code == 0, out + err
    assert re.fullmatch(r"irrun vs OpenVINO [^:]+: (all \d+ layers agree|1 layer agrees) \(\d+ ports?, rtol 0, atol 0\)\n", out)


@needs_openvino
@pytest.mark.parametrize("reference", ["openvino", "openvino-reference"])
@pytest.mark.parametrize("case", ["state_kv_cache", "state_init", "state_two_variables"])
def test_stateful_models_agree_with_openvino_port_by_port(capsys, tmp_path, case, reference):
    """ReadValue/Assign models (issue 13): the CPU plugin has no output port on Assign, and the
    reference evaluator cannot fold a ReadValue; one inference from the initial state agrees."""
    d = FIXTURES / "subgraphs" / case
    runs = np.load(d / "inputs.npz")                   # keyed "<run>.<input>": take the first run
    np.savez(tmp_path / "first.npz", **{k[2:]: v for k, v in runs.items() if k.startswith("0.")})
    code, out, err = run_cli(capsys, "compare", d / "model.xml", "-i", tmp_path / "first.npz", "-r", reference,
                             "--rtol", "0", "--atol", "0")
    assert code == 0, out + err
    assert re.fullmatch(r"irrun vs OpenVINO [^:]+: all \d+ layers agree \(\d+ ports, rtol 0, atol 0\)\n", out)


@needs_openvino
def test_openvino_catches_a_wrong_irrun_kernel(capsys, monkeypatch):
    cls = resolve("Transpose", "opset1")
    right = cls.run
    monkeypatch.setattr(cls, "run", lambda self, *a: [right(self, *a)[0][..., ::-1]])   # mirror the last axis
    code, out, err = run_cli(capsys, "compare", BLOCK / "model.xml", "-i", BLOCK / "inputs.npz")
    assert code == 1, err
    lines = out.splitlines()
    assert lines[0] == ("irrun vs OpenVINO CPU (f32): 4 of 5 layers differ beyond float32 rounding "
                        "(1e-4 of the value or of the port's RMS)")
    assert lines[2:4] == ['  layer 5 "Transpose_182" (Transpose-1)', "  inputs    3:4 agrees, 4:0 Const"]


# ---------------------------------------------------------------------------------------------
# The tolerance rule: |irrun - ref| <= atol + rtol * |ref|; NaN equals NaN; integers exactly


@pytest.mark.parametrize("got,want,rtol,atol,bad", [
    ([1.0, 2.0], [1.0, 2.0], 0, 0, 0),
    ([1.0, 2.0], [1.0, 2.001], 1e-3, 0, 0),            # 0.001 <= 1e-3 * 2.001
    ([1.0, 2.0], [1.0, 2.01], 1e-3, 0, 1),
    ([0.0, 1e-7], [0.0, 0.0], 0, 1e-6, 0),
    ([np.nan, np.inf, -np.inf], [np.nan, np.inf, -np.inf], 0, 0, 0),
    ([np.nan, 1.0, np.inf], [1.0, np.nan, 5.0], 1, 1, 3),
    ([np.inf], [-np.inf], 1, 1, 1),
])
def test_float_tolerance(got, want, rtol, atol, bad):
    d = compare_arrays("k", np.array(got, np.float32), np.array(want, np.float32), Tolerance(rtol, atol))
    assert (d.bad, d.equal) == (bad, bad == 0)


def test_integers_compare_exactly_and_report_the_worst_value():
    d = compare_arrays("k", np.array([[5, 7], [1, 2]], np.int64), np.array([[5, 9], [1, -2]], np.int32), Tolerance(1, 10))
    assert (d.bad, d.where, int(d.got), int(d.want), d.max_abs) == (2, (1, 1), 2, -2, 4.0)
    assert d.max_rel == 2.0 and d.dtypes == ("int64", "int32")


def test_shapes_and_strings():
    d = compare_arrays("k", np.zeros((2, 3)), np.zeros((3, 2)), Tolerance(0))
    assert not d.equal and d.note == "shape [2,3] here, [3,2] in the reference"
    s = np.array(["a", "bc", ""], dtype=np.dtypes.StringDType())
    assert compare_arrays("k", s, np.array(["a", "bc", ""]), Tolerance(0)).equal
    d = compare_arrays("k", s, np.array(["a", "b", ""]), Tolerance(1, 1))
    assert (d.bad, d.where, d.got, d.want) == (1, (1,), "bc", "b")


def test_f32_rounding_scales_atol_to_the_port_rms():
    """The default tolerance: 1e-4 of the value or of the reference port's RMS (README "compare")."""
    want = np.array([3.0, -4.0, 0.0, 1e-3], np.float32)              # RMS 2.5
    noise = want + np.array([0, 0, 2e-4, 2e-4], np.float32)           # 8e-5 of the RMS near zero: rounding
    assert compare_arrays("k", noise, want).equal
    assert not compare_arrays("k", noise, want, Tolerance(1e-5, 1e-6)).equal   # the old fixed defaults
    off = want * np.float32(1.003)                                    # 0.3% off: a real error
    d = compare_arrays("k", off, want, F32_ROUNDING)
    assert (d.bad, d.equal) == (2, False)                             # 3 and -4; 0 stays, 1e-3 is in the RMS term


# ---------------------------------------------------------------------------------------------
# The default tolerance against OpenVINO: float32 rounding agrees, a 0.3% weight error does not

ZOO = FIXTURES / "zoo"
#: with the old fixed defaults (rtol 1e-5, atol 1e-6) all but BERT "differed" from OpenVINO
ROUNDING_ONLY = ["resnet_fp32", "mobilenet_v2_fp32", "mobilenet_v3_fp32", "shufflenet_v2_fp32", "unet_fp32",
                 "gpt2_fp32", "bert_fp32"]


@needs_openvino
@pytest.mark.parametrize("case", ROUNDING_ONLY)
def test_zoo_models_agree_with_openvino_within_float32_rounding(capsys, case):
    d = ZOO / case
    code, out, err = run_cli(capsys, "compare", d / "model.xml", "-i", d / "inputs.npz")
    assert code == 0, out + err
    assert re.fullmatch(r"irrun vs OpenVINO CPU \(f32\): all \d+ layers agree within float32 rounding "
                        r"\(\d+ ports, 1e-4 of the value or of the port's RMS\)\n", out), out


def _scaled_conv_copy(d, factor: float) -> str:
    """resnet_fp32 with one Convolution's f32 weights multiplied by ``factor``: that layer's name."""
    import irrun
    src = ZOO / "resnet_fp32"
    m = irrun.read_model(src / "model.xml")
    convs = [n for n in m.order if m.graph.nodes[n]["layer"].type == "Convolution"]
    victim = convs[len(convs) // 2]
    weights = next(u for u, _, e in m.graph.in_edges(victim, data=True) if e["dst_port"] == 1)
    data = m.graph.nodes[weights]["layer"].data
    assert m.graph.nodes[weights]["layer"].type == "Const" and data["element_type"] == "f32"
    offset, size = int(data["offset"]), int(data["size"])
    blob = bytearray((src / "model.bin").read_bytes())
    w = np.frombuffer(bytes(blob[offset:offset + size]), np.float32)
    blob[offset:offset + size] = (w * np.float32(factor)).astype(np.float32).tobytes()
    d.mkdir()
    shutil.copy(src / "model.xml", d / "model.xml")
    (d / "model.bin").write_bytes(bytes(blob))
    return m.graph.nodes[victim]["layer"].name


def test_a_three_per_mille_weight_error_still_differs(capsys, tmp_path):
    """The model as it should be (a dump of resnet_fp32) against a copy with one layer's weights
    0.3% off: that layer is named, exit 1."""
    inputs = ZOO / "resnet_fp32" / "inputs.npz"
    code, _, err = run_cli(capsys, ZOO / "resnet_fp32" / "model.xml", "-i", inputs, "--dump", tmp_path / "good")
    assert code == 0, err
    victim = _scaled_conv_copy(tmp_path / "bad", 1.003)
    code, out, err = run_cli(capsys, "compare", tmp_path / "bad" / "model.xml", "-i", inputs, "-r", tmp_path / "good")
    assert code == 1, out + err
    lines = out.splitlines()
    assert "layers differ beyond float32 rounding" in lines[0]
    assert re.fullmatch(rf'  layer \d+ "{re.escape(victim)}" \(Convolution-1\)', lines[2]), out


@needs_openvino
def test_openvino_catches_a_three_per_mille_wrong_kernel(capsys, monkeypatch):
    cls = resolve("Convolution", "opset1")
    right = cls.run
    monkeypatch.setattr(cls, "run", lambda self, *a: [right(self, *a)[0] * np.float32(1.003)])
    d = ZOO / "resnet_fp32"
    code, out, err = run_cli(capsys, "compare", d / "model.xml", "-i", d / "inputs.npz")
    assert code == 1, out + err
    assert "layers differ beyond float32 rounding" in out.splitlines()[0]
    assert re.search(r'\n  layer \d+ "[^"]+" \(Convolution-1\)\n  inputs    \S+ model input, \S+ Const', out), out


# ---------------------------------------------------------------------------------------------
# Messages (issue 26, point 9)

def test_an_input_error_names_which_model(capsys):
    bert = ZOO / "bert_fp32" / "model.xml"
    code, out, err = run_cli(capsys, "compare", BLOCK / "model.xml", "--reference", bert, "-i", BLOCK / "inputs.npz")
    assert code == 2, out + err
    assert f"the reference {bert} (3 inputs: input_ids, 36, token_type_ids; MODEL has 1 input: x): " in err, err


def test_tokenizer_against_openvino_without_the_extension_says_to_install_it(capsys, monkeypatch, tmp_path):
    import importlib.util
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "openvino_tokenizers" else real(name, *a))
    monkeypatch.setattr(ovref, "available", lambda: True)
    np.save(tmp_path / "text.npy", np.array(["hello world"]))
    tok = FIXTURES / "tokenizers" / "wordpiece" / "tokenizer.xml"
    code, out, err = run_cli(capsys, "compare", tok, "-i", tmp_path / "text.npy")
    assert code == 2
    assert "the model uses openvino-tokenizers ops (CharsMapNormalization, " in err
    assert "pip install openvino-tokenizers" in err and "Cannot create" not in err and "__irrun_" not in err
