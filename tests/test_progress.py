"""Progress on long work (issue 26, point 8): one shared line on stderr (irrun.io.progress) —
only on a terminal, nothing when piped, nothing under --quiet, erased when the work ends."""
from __future__ import annotations

import io
import time
from pathlib import Path

import numpy as np
import pytest

import irrun.io.progress as prog
from irrun.cli.main import main

ZOO = Path(__file__).parent / "fixtures" / "zoo"
RESNET = ZOO / "resnet_fp32"


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture(autouse=True)
def loud(monkeypatch):
    monkeypatch.setattr(prog, "DELAY", 0.0)
    monkeypatch.setattr(prog, "INTERVAL", 0.0)
    prog.set_quiet(False)
    yield
    prog.set_quiet(False)


def test_drawn_on_a_terminal_and_erased():
    t = Terminal()
    with prog.progress("working", total=4, stream=t) as bar:
        for name in "abcd":
            bar.step(f"layer {name}")
    text = t.getvalue()
    assert "\rworking [###############...............] 2/4" in text and "layer b" in text
    assert "\rworking [##############################] 4/4" in text
    assert text.endswith("\r") and text.rsplit("\r", 2)[-2].strip() == ""      # the last draw: blanks


def test_nothing_when_piped_or_quiet():
    piped = io.StringIO()
    with prog.progress("working", total=2, stream=piped) as bar:
        bar.step()
        bar.step()
    assert piped.getvalue() == ""
    prog.set_quiet(True)
    t = Terminal()
    with prog.progress("working", total=2, stream=t) as bar:
        bar.step()
    with prog.waiting("waiting", stream=t):
        time.sleep(0.05)
    prog.note("hidden", stream=t)
    assert t.getvalue() == ""


def test_waiting_ticks_from_a_thread():
    t = Terminal()
    with prog.waiting("OpenVINO runs the model", stream=t):
        time.sleep(0.3)
    text = t.getvalue()
    assert text.count("\rOpenVINO runs the model...  0s") >= 2 and text.endswith("\r")


def test_message_goes_above_the_line():
    t = Terminal()
    bar = prog.Progress("inputs", 3, t, delay=0, interval=0)
    bar.step("a.npy")
    bar.message("irrun: bad input: b.npy; skipped")
    text = t.getvalue()
    assert "\r" + " " * len("inputs [##########....................] 1/3") in text
    assert "irrun: bad input: b.npy; skipped\n" in text


def test_cli_dump_and_compare_show_progress_on_a_terminal(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(prog, "is_terminal", lambda stream: True)
    code = main([str(RESNET / "model.xml"), "-i", str(RESNET / "inputs.npz"), "--dump", str(tmp_path / "d")])
    err = capsys.readouterr().err
    assert code == 0 and "\rrunning [" in err and "\rwriting the dump to" in err
    code = main(["compare", str(RESNET / "model.xml"), "-i", str(RESNET / "inputs.npz"), "-r", str(tmp_path / "d")])
    out, err = capsys.readouterr()
    assert code == 0 and "\rrunning [" in err and "\rcomparing" in err
    assert "\r" not in out                                   # the report itself stays clean
    code = main(["--quiet", "compare", str(RESNET / "model.xml"), "-i", str(RESNET / "inputs.npz"),
                 "-r", str(tmp_path / "d")])
    assert code == 0 and capsys.readouterr().err == ""


def test_cli_input_directory_uses_the_shared_line(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(prog, "is_terminal", lambda stream: True)
    (tmp_path / "in").mkdir()
    for k in range(3):
        np.save(tmp_path / "in" / f"x{k}.npy", np.load(RESNET / "inputs.npz")["x"])
    code = main([str(RESNET / "model.xml"), "-i", str(tmp_path / "in"), "-o", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert code == 0 and "\rinputs [##########" in err and "3/3" in err
