"""The CLI as a user meets it: exit codes, messages without tracebacks, input forms."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from irrun.cli.main import main
from irrun.ir.builder import IRWriter


@pytest.fixture
def two_input_model(tmp_path):
    b = IRWriter("two")
    x = b.parameter("x", "f32", [2, 3])
    y = b.parameter("y", "i64", "?,4")
    b.result(b.layer("Convert", [x], {"destination_type": "i32"}, out_dims=[[2, 3]], out_precision="I32"), "xi")
    b.result(b.layer("Convert", [y], {"destination_type": "f32"}, out_dims=[[-1, 4]]), "yf")
    return b.save(tmp_path / "two.xml")


@pytest.fixture
def one_input_model(tmp_path):
    b = IRWriter("one")
    x = b.parameter("x", "f32", [2, 3])
    b.result(b.layer("Convert", [x], {"destination_type": "i8"}, out_dims=[[2, 3]], out_precision="I8"), "out")
    return b.save(tmp_path / "one.xml")


def run_cli(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def test_run_one_input_prints_summary(tmp_path, capsys, one_input_model):
    np.save(tmp_path / "x.npy", np.array([[1.5, 2, 3], [4, 5, -6.5]], np.float32))
    code, out, err = run_cli(capsys, one_input_model, "--input", tmp_path / "x.npy")
    assert code == 0, err
    assert out.split() == ["out", "int8[2,3]", "min", "-6", "max", "5", "mean", "1.5", "[1,", "2,", "3,", "4,", "5,", "-6]"]


def test_run_named_inputs_and_npz_output(tmp_path, capsys, two_input_model):
    np.save(tmp_path / "x.npy", np.ones((2, 3), np.float32))
    np.save(tmp_path / "y.npy", np.arange(20, dtype=np.int64).reshape(5, 4))
    code, out, err = run_cli(capsys, two_input_model, "--input", f"x={tmp_path / 'x.npy'}",
                             "--input", f"y={tmp_path / 'y.npy'}", "--output", tmp_path / "o.npz")
    assert code == 0, err
    res = np.load(tmp_path / "o.npz")
    assert list(res.keys()) == ["xi", "yf"]
    np.testing.assert_array_equal(res["yf"], np.arange(20, dtype=np.float32).reshape(5, 4))


def test_run_inputs_npz(tmp_path, capsys, two_input_model):
    np.savez(tmp_path / "in.npz", x=np.ones((2, 3), np.float32), y=np.zeros((1, 4), np.int64))
    code, out, err = run_cli(capsys, two_input_model, "--input", tmp_path / "in.npz")
    assert code == 0, err
    assert out.splitlines()[1].split()[:2] == ["yf", "float32[1,4]"]


@pytest.mark.parametrize("inputs,fragment", [
    ([], "no input given; the model's inputs are: x, y"),
    (["x.npy"], "the model has 2 inputs (x, y); name each one"),
    (["x=x.npy"], "missing input(s): y"),
    (["x=x.npy", "y=bad_shape.npy"], 'input "y" has shape [2,3], the model wants [?,4]'),
    (["x=x.npy", "y=frac.npy"], 'input "y" is float64 and its value 1.5 at [0,0] is not a whole number that fits i64'),
    (["x=x.npy", "y=y32.npy", "--strict-inputs"], 'input "y" has dtype int32, the model wants i64 (int64) '
                                                   "(--strict-inputs); convert it first: y.astype(np.int64)"),
    (["z=x.npy", "y=y.npy"], 'no input named "z" (its inputs: x, y)'),
    (["x=nope.npy", "y=y.npy"], "nope.npy: no such file"),
    (["x=pickled.npy", "y=y.npy"], "Python objects"),
])
def test_bad_inputs_exit_2_with_one_clear_line(tmp_path, capsys, monkeypatch, two_input_model, inputs, fragment):
    monkeypatch.chdir(tmp_path)
    np.save("x.npy", np.ones((2, 3), np.float32))
    np.save("y.npy", np.ones((2, 4), np.int64))
    np.save("bad_shape.npy", np.ones((2, 3), np.int64))
    np.save("frac.npy", np.full((2, 4), 1.5))
    np.save("y32.npy", np.ones((2, 4), np.int32))
    np.save("pickled.npy", np.array([{"a": 1}], dtype=object), allow_pickle=True)
    args = [two_input_model] + [a for i in inputs for a in (("--input", i) if not i.startswith("--") else (i,))]
    code, out, err = run_cli(capsys, *args)
    assert code == 2
    assert fragment in err
    assert "Traceback" not in err and err.count("\n") == 1


def test_check_clean_and_findings(tmp_path, capsys, one_input_model):
    code, out, err = run_cli(capsys, "check", one_input_model)
    assert (code, out.strip()) == (0, f"{one_input_model}: OK, no problems found")
    text = one_input_model.read_text().replace("<dim>3</dim>\n        </port>\n      </output>",
                                               "<dim>7</dim>\n        </port>\n      </output>", 1)
    bad = tmp_path / "bad.xml"
    bad.write_text(text)
    (tmp_path / "bad.bin").write_bytes(b"")
    code, out, err = run_cli(capsys, "check", bad)
    assert code == 1
    lines = out.splitlines()
    assert lines[0] == f"{bad}: 1 error"
    assert lines[2].split()[:7] == ["error", "0", "x", "Parameter", "out", "0", "[2,7]"]
    code, out, err = run_cli(capsys, "check", bad, "--json")
    (f,) = json.loads(out)
    assert (f["layer_id"], f["port"], f["declared"], f["inferred"]) == ("0", "out 0", "[2,7]", "[2,3]")


def test_check_with_new_shape(capsys, two_input_model):
    code, out, err = run_cli(capsys, "check", two_input_model, "--shape", "y=8,4")
    assert code == 0, out + err
    code, out, err = run_cli(capsys, "check", two_input_model, "--shape", "q=8,4")
    assert code == 2 and 'no input named "q"' in err


def test_unreadable_model_exit_2(tmp_path, capsys):
    p = tmp_path / "m.xml"
    p.write_text("not xml")
    for args in ([p], ["check", p]):
        code, out, err = run_cli(capsys, *args)
        assert code == 2 and "not a well-formed XML file" in err and str(p) in err


def test_console_script_no_traceback(tmp_path):
    r = subprocess.run([sys.executable, "-m", "irrun", str(tmp_path / "missing.xml")],
                       capture_output=True, text=True)
    assert r.returncode == 2
    assert r.stderr.strip() == f"irrun: unreadable model: {tmp_path / 'missing.xml'}: no such file"


# ---------------------------------------------------------------------------------------------
# The front door: what a new user types first

SAMPLE = Path(__file__).parent.parent / "samples" / "shufflenet_block"


def test_version_help_and_python_m(capsys):
    import irrun
    code, out, err = run_cli(capsys, "--version")
    assert (code, out.strip()) == (0, f"irrun {irrun.__version__}")
    code, out, err = run_cli(capsys, "--help")
    assert code == 0
    listed = [ln.split()[0] for ln in out.splitlines() if ln.startswith("  ") and not ln.startswith("   ")
              and not ln.strip().startswith("-")]
    from irrun.cli.main import COMMANDS
    assert listed == list(COMMANDS), "every command, one line each"
    assert all(len(ln.split()) > 2 for ln in out.splitlines() if ln.split()[:1] in ([c] for c in COMMANDS))
    r = subprocess.run([sys.executable, "-m", "irrun", "--version"], capture_output=True, text=True)
    assert (r.returncode, r.stdout.strip()) == (0, f"irrun {irrun.__version__}")


def test_help_command(capsys):
    code, out, err = run_cli(capsys, "help")
    assert code == 0 and "commands:" in out
    with pytest.raises(SystemExit) as e:
        run_cli(capsys, "help", "check")
    assert e.value.code == 0 and "usage: irrun check" in capsys.readouterr().out


def test_no_arguments_prints_the_overview_and_exits_2(capsys):
    code, out, err = run_cli(capsys)
    assert code == 2 and "commands:" in err


@pytest.mark.parametrize("word, hint", [("chek", "did you mean 'check'?"), ("rehsape", "did you mean 'reshape'?"),
                                        ("zzz", "commands: run, check")])
def test_unknown_command_suggests(capsys, word, hint):
    code, out, err = run_cli(capsys, word, SAMPLE / "model.xml")
    assert code == 2 and err.strip().startswith(f"irrun: error: unknown command '{word}'") and hint in err


@pytest.mark.parametrize("args", [
    ["--debug", "check", SAMPLE / "model.xml"], ["check", "--debug", SAMPLE / "model.xml"],
    ["--threads", "1", "check", SAMPLE / "model.xml"], ["--max-memory=1G", "check", "-m", SAMPLE / "model.xml"],
    ["check", "--model", SAMPLE / "model.xml", "--threads", "1"], ["check", f"--model={SAMPLE / 'model.xml'}"],
])
def test_global_options_anywhere_and_dash_m(capsys, args):
    code, out, err = run_cli(capsys, *args)
    assert (code, out.strip()) == (0, f"{SAMPLE / 'model.xml'}: OK, no problems found"), err


def test_two_unnamed_inputs_for_a_one_input_model(capsys):
    code, out, err = run_cli(capsys, SAMPLE / "model.xml", "-i", SAMPLE / "input.npy", "-i", SAMPLE / "input.npy")
    assert code == 2 and 'the model has one input ("x"), but 2 --input options are given' in err
    assert "1 inputs" not in err and "name each one" not in err


def test_run_with_dash_m_and_run_command(capsys):
    for args in (["-m", SAMPLE / "model.xml"], ["run", SAMPLE / "model.xml"], ["--threads", "1", SAMPLE / "model.xml"]):
        code, out, err = run_cli(capsys, *args, "-i", SAMPLE / "input.npy")
        assert code == 0 and out.split()[:2] == ["y", "float32[1,8,4,4]"], err


@pytest.mark.parametrize("name, head, what", [
    ("model.onnx", b"\x08\x08\x12\x07pytorch", "this is an ONNX model"),
    ("model", b"\x08\x08\x12\x07pytorch", "this is an ONNX model"),      # by its first bytes
    ("model.tflite", b"\x1c\x00\x00\x00TFL3", "this is a TensorFlow Lite model"),
    ("model.bin", b"\x00" * 16, "this is an IR weights file"),
])
def test_other_model_formats_are_named(tmp_path, capsys, name, head, what):
    p = tmp_path / name
    p.write_bytes(head + b"\x00" * 32)
    for args in ([p], ["check", p], ["info", p]):
        code, out, err = run_cli(capsys, *args)
        assert code == 2 and what in err and "not a well-formed XML" not in err
    assert ("ovc" in err) == (what != "this is an IR weights file")


def test_check_missing_bin_is_one_finding(tmp_path, capsys):
    xml = tmp_path / "model.xml"
    xml.write_bytes((SAMPLE / "model.xml").read_bytes())          # 3 Consts, no .bin beside it
    code, out, err = run_cli(capsys, "check", xml)
    assert code == 1
    lines = out.splitlines()
    assert lines[0] == f"{xml}: 1 error" and len(lines) == 3
    assert f"the weights file {tmp_path / 'model.bin'} is missing; 3 Consts need it (layers 1, 2, 4)" in lines[2]


@pytest.mark.parametrize("shape, fragment", [
    ("x=1,abc", "dimension 'abc' is not a number, ?, or an interval"),
    ("x=1,..x", "dimension '..x' is not a number"), ("x=1,5..2", "bad interval"),
])
def test_check_bad_shape_is_clean(capsys, shape, fragment):
    for cmd in (["check"], ["reshape", "-o", "unused.xml"]):
        code, out, err = run_cli(capsys, *cmd, SAMPLE / "model.xml", "--shape", shape)
        assert code == 2 and fragment in err and f'"{shape}"' in err
        assert "invalid literal" not in err and "Traceback" not in err


@pytest.mark.parametrize("ops, fragment", [
    ("Convolutoin", 'no op type is named "Convolutoin"; did you mean Convolution?'),
    ("Concat,Transpsoe", 'no op type is named "Transpsoe"; did you mean Transpose?'),
    ("Convolution", 'the model has no layer of type "Convolution" (the model\'s types: Concat, Const'),
])
def test_dump_ops_typo_is_refused_before_running(tmp_path, capsys, ops, fragment):
    code, out, err = run_cli(capsys, SAMPLE / "model.xml", "-i", SAMPLE / "input.npy", "--dump", tmp_path / "d",
                             "--dump-ops", ops)
    assert code == 2 and fragment in err and not (tmp_path / "d").exists()


def test_dump_names_matching_nothing_and_without_dump(tmp_path, capsys):
    code, out, err = run_cli(capsys, SAMPLE / "model.xml", "-i", SAMPLE / "input.npy", "--dump", tmp_path / "d",
                             "--dump-names", "Concat_*,nothing*")
    assert code == 2 and 'no layer name matches "nothing*"' in err
    code, out, err = run_cli(capsys, SAMPLE / "model.xml", "-i", SAMPLE / "input.npy", "--dump-names", "C*")
    assert code == 2 and "--dump-names chooses what --dump writes; give --dump DIR too" in err
