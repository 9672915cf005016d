"""Files irrun writes (irrun.io.writers), the outputs' names, the OpenVINO child process, escaped names.

The hostile corpus (tests/hostile/, classes 3, 7 and 8 of issue 11) holds one case per kind of bad
target; here: the property over random names and planted links, what the files hold, and the
child process's isolation."""
from __future__ import annotations

import os
import subprocess
import warnings
import zipfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import irrun
from helpers import needs_openvino
from irrun.debug import openvino_reference as ovref
from irrun.io import writers
from irrun.cli.main import main
from irrun.errors import OutputError, printable
from irrun.ir.builder import IRWriter
from irrun.io.npy import load_npz
from test_fixtures import FIXTURES, load_arrays, meta_of

BLOCK = FIXTURES / "shufflenet_block"


def run_cli(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def leftovers(d: Path) -> list[str]:
    return sorted(p.name for p in d.rglob("*irrun-tmp*"))


# --- the writer -------------------------------------------------------------------------------

NAMES = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="/\0"),
                min_size=1, max_size=20).filter(lambda s: s not in (".", ".."))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=NAMES, sub=st.booleans(), plant=st.sampled_from(["none", "file", "dir", "parent", "protected"]),
       fail=st.booleans())
def test_writer_property(tmp_path_factory, name, sub, plant, fail):
    """Whatever the name and whatever is planted, a write either puts exactly the new bytes at the
    final name or raises OutputError; the victim a link points to never changes; a failing write
    leaves no file, temporary file or directory behind."""
    d = tmp_path_factory.mktemp("w")
    victim = d / "victim"
    victim.write_bytes(b"precious")
    target = d / ("sub" if sub else "") / name
    if plant == "file":
        target.parent.mkdir(exist_ok=True)
        target.symlink_to(victim)
    elif plant == "dir":
        target.parent.mkdir(exist_ok=True)
        target.symlink_to(d, target_is_directory=True)
    elif plant == "parent" and sub:
        (d / "sub").write_bytes(b"a file where a directory should be")
    protect = [victim]
    if plant == "protected":
        target.parent.mkdir(exist_ok=True)
        os.link(victim, target)                  # a hard link to a protected file
    before = sorted(str(p) for p in d.rglob("*"))

    def boom(f):
        f.write(b"partial")
        raise OSError(28, "No space left on device")

    try:
        written = writers.write_files([(target, boom if fail else writers.data(b"new"))], protect=protect)
    except OutputError as e:
        assert plant != "none" or fail
        assert printable(target) in str(e) and "\n" not in str(e)
        assert sorted(str(p) for p in d.rglob("*")) == before       # nothing left behind
    else:
        assert plant in ("none", "parent") and not fail and written == [target]
        assert not target.is_symlink() and target.read_bytes() == b"new"
    assert victim.read_bytes() == b"precious"
    assert leftovers(d) == []


def test_several_files_all_or_nothing(tmp_path):
    ok = (tmp_path / "new" / "a.txt", writers.data(b"a"))
    bad = (tmp_path / "new" / "b.txt", lambda f: (_ for _ in ()).throw(OSError(5, "I/O error")))
    with pytest.raises(OutputError, match="I/O error"):
        writers.write_files([ok, bad])
    assert list(tmp_path.iterdir()) == []           # new/ was made for them and removed again
    (tmp_path / "a.txt").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(OutputError, match="symbolic link"):
        writers.write_files([(tmp_path / "b.txt", writers.data(b"b")), (tmp_path / "a.txt", writers.data(b"a"))])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt"]


def test_model_save_to_missing_directory_and_link(tmp_path):
    model = irrun.read_model(BLOCK / "model.xml")
    assert model.save(tmp_path / "a" / "b" / "m.xml") == tmp_path / "a" / "b" / "m.xml"
    assert (tmp_path / "a/b/m.bin").read_bytes() == (BLOCK / "model.bin").read_bytes()
    (tmp_path / "l.bin").symlink_to(tmp_path / "victim")
    with pytest.raises(OutputError, match="l.bin: is a symbolic link"):
        model.save(tmp_path / "l.xml")
    assert not (tmp_path / "l.xml").exists() and not (tmp_path / "victim").exists()


# --- what the files hold ----------------------------------------------------------------------

def test_outputs_named_like_savez_keywords_and_shared_tensors(tmp_path, capsys):
    """np.savez(file=..., allow_pickle=...) broke on these names; two Results reading one tensor
    are two outputs (OpenVINO 2026.4 lists both, named "t"; the second is keyed by its Result's
    name here), and a clash between two tensors is renamed "t_1" as OpenVINO does."""
    b = IRWriter("names")
    x = b.parameter("x", "f32", [2])
    r = b.layer("Relu", [x], name="relu")
    b.layers[r[0]]["out"][0] = ("FP32", [2], "t")
    n = b.layer("Negative", [x], name="neg")
    b.layers[n[0]]["out"][0] = ("FP32", [2], "t")
    b.result(r, None)
    b.result(r, None)
    b.result(n, None)
    b.result(b.layer("Abs", [x], name="f"), "file")
    b.result(b.layer("Exp", [x], name="p"), "allow_pickle")
    b.save(tmp_path / "m.xml")
    model = irrun.read_model(tmp_path / "m.xml")
    keys = ["t", "Result_4", "t_1", "file", "allow_pickle"]
    assert [p.name for p in model.outputs] == keys
    np.save(tmp_path / "x.npy", np.array([1, -2], np.float32))
    code, out, err = run_cli(capsys, tmp_path / "m.xml", "-i", tmp_path / "x.npy", "-o", tmp_path / "o.npz")
    assert code == 0, err
    with np.load(tmp_path / "o.npz", allow_pickle=False) as f:
        assert list(f.keys()) == keys
        assert f["t_1"].tolist() == [-1, 2] and f["Result_4"].tolist() == [1, 0]
        assert f["allow_pickle"].tolist() == pytest.approx(np.exp([1, -2]).tolist())


def test_string_outputs_are_unicode_that_irrun_reads_back(tmp_path, capsys):
    d = FIXTURES / "string_data"                    # expected.npz: OpenVINO's answer
    want = load_arrays(d / "expected.npz", meta_of("string_data")["outputs"])
    code, out, err = run_cli(capsys, d / "model.xml", "-i", d / "inputs.npz", "-o", tmp_path / "o.npz")
    assert code == 0, err
    with zipfile.ZipFile(tmp_path / "o.npz") as z:
        assert all(not z.read(i).startswith(b"\x80") for i in z.namelist())      # no pickle
    back = load_npz(str(tmp_path / "o.npz"))
    assert back.keys() == want.keys()
    assert all(v.dtype.kind in "TU" for v in want.values())
    for k, v in want.items():
        assert back[k].dtype.kind == "U" and back[k].tolist() == v.tolist()


def test_dump_strings_are_not_widened(tmp_path):
    """One long string among many short ones: the dump stores the IR's packed encoding, so its
    size follows the characters, not count x longest."""
    from irrun.io.dumps import load_tensors, save_tensors
    a = np.array(["x"] * 10000 + ["y" * 10000], dtype=np.dtypes.StringDType())
    save_tensors(tmp_path, [(dict(key="0:0"), a)])
    assert (tmp_path / "tensors.npz").stat().st_size < 100_000        # unicode would be 400 MB
    back, _ = load_tensors(tmp_path)
    assert back["0:0"].tolist() == a.tolist()


def test_summary_of_infinities_warns_nothing(tmp_path, capsys):
    b = IRWriter("inf")
    b.result(b.parameter("x", "f32", [3]), "y")
    b.save(tmp_path / "m.xml")
    np.save(tmp_path / "x.npy", np.array([np.inf, -np.inf, 1], np.float32))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        code, out, err = run_cli(capsys, tmp_path / "m.xml", "-i", tmp_path / "x.npy")
    assert code == 0 and err == ""
    assert "min -inf  max inf  mean nan" in out


def test_dump_target_is_checked_before_the_run(tmp_path, capsys, monkeypatch):
    np.save(tmp_path / "x.npy", np.ones((1, 8, 4, 4), np.float32))
    (tmp_path / "file").write_text("x")
    monkeypatch.setattr(irrun.Model, "run", lambda *a, **k: pytest.fail("the model ran"))
    code, out, err = run_cli(capsys, BLOCK / "model.xml", "-i", tmp_path / "x.npy", "--dump", tmp_path / "file")
    assert code == 2 and out == "" and "file: is a file, not a directory" in err


# --- names ------------------------------------------------------------------------------------

@pytest.mark.parametrize("name, shown", [("a\nb", "a\\nb"), ("\x1b[2J", "\\x1b[2J"), ("r\rx", "r\\rx"),
                                         ("\u202eevil", "\\u202eevil"), ("\x85", "\\x85"), ("ok é", "ok é")])
def test_printable(name, shown):
    assert printable(name) == shown


def test_a_forged_name_stays_on_its_line_everywhere(tmp_path, capsys):
    b = IRWriter("m\nx")
    x = b.parameter("x", "f32", [2])
    r = b.layer("Relu", [x], name="relu\nFAKE relu", out_dims=[[3]])
    b.layers[r[0]]["out"][0] = ("FP32", [3], "t\nFAKE t")
    b.result(r, None)
    b.save(tmp_path / "m.xml")
    np.save(tmp_path / "x.npy", np.ones(2, np.float32))
    for args, lines in [(["check"], 3), (["info"], 13), ([], 1), (["--profile"], 12)]:   # + latency, throughput
        argv = args[:1] + [tmp_path / "m.xml"] + (["-i", tmp_path / "x.npy", *args] if args[:1] != ["check"]
                                                  and args[:1] != ["info"] else [])
        code, out, err = run_cli(capsys, *argv)
        text = out + err
        assert "FAKE" in text and not any(ln.startswith("FAKE") for ln in text.splitlines()), text
        assert len(out.splitlines()) == lines, out


# --- the OpenVINO child -----------------------------------------------------------------------

def test_child_command_is_isolated(monkeypatch, tmp_path):
    """Without OpenVINO: the command line and environment the child gets."""
    seen = {}

    def fake_run(cmd, **kw):
        seen.update(cmd=cmd, **kw)
        raise subprocess.TimeoutExpired(cmd, 1)
    monkeypatch.setattr(ovref, "available", lambda: True)
    monkeypatch.setattr(ovref.subprocess, "run", fake_run)
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    monkeypatch.setenv("LD_PRELOAD", "/tmp/evil.so")
    monkeypatch.chdir(tmp_path)
    model = irrun.read_model(BLOCK / "model.xml")
    with pytest.raises(ovref.OpenVINOError):
        ovref.all_ports(model, np.ones((1, 8, 4, 4), np.float32))
    assert seen["cmd"][1] == "-I" and seen["env"]["CI"] == "true"
    assert not {"PYTHONPATH", "LD_PRELOAD"} & set(seen["env"])
    assert Path(seen["cwd"]) != tmp_path and Path(seen["cwd"]).name.startswith("irrun-ov-")


@needs_openvino
def test_compare_never_imports_from_the_cwd_or_the_model_dir(tmp_path, capsys, monkeypatch):
    """numpy.py, openvino.py, sitecustomize.py in the working directory and beside the model
    would each leave a marker file if the OpenVINO child imported them."""
    m, cwd = tmp_path / "m", tmp_path / "cwd"
    m.mkdir()
    cwd.mkdir()
    for f in ("model.xml", "model.bin"):
        (m / f).write_bytes((BLOCK / f).read_bytes())
    np.save(m / "x.npy", np.ones((1, 8, 4, 4), np.float32))
    for d in (m, cwd):
        for mod in ("numpy", "openvino", "sitecustomize", "irrun"):
            (d / f"{mod}.py").write_text(f"open({str(tmp_path / ('MARKER_' + mod))!r}, 'w').write('ran')\n")
    monkeypatch.chdir(cwd)
    code, out, err = run_cli(capsys, "compare", m / "model.xml", "-i", m / "x.npy")
    assert code == 0, err
    assert "agree" in out
    assert not list(tmp_path.glob("MARKER_*"))
