"""irrun.io.files (issue 27 classes 1 and 12) and writers.distinct (class 2): every file a
command reads is a regular file, opened without blocking, and protected from that command's
outputs; two outputs of one command are never one file."""
from __future__ import annotations

import os
import threading

import numpy as np
import pytest

from irrun.io.inputs import input_files
from irrun.cli.graph import pick_format
from irrun.errors import InputError, ModelFileError, OutputError
from irrun.io.npy import load_npy
from irrun.io.files import command, files_read, open_regular
from irrun.io.writers import data, destination, distinct, write_files


def _in_thread(fn, timeout=10.0):
    """Run ``fn`` in a thread; fail (instead of hanging the suite) if it blocks."""
    out: dict = {}

    def go():
        try:
            out["value"] = fn()
        except BaseException as e:  # noqa: BLE001 - handed to the test
            out["error"] = e
    t = threading.Thread(target=go, daemon=True)
    t.start()
    t.join(timeout)
    assert not t.is_alive(), "blocked: opening a FIFO must not wait for a writer"
    return out


def test_fifo_is_refused_without_blocking(tmp_path):
    f = tmp_path / "x.npy"
    os.mkfifo(f)
    out = _in_thread(lambda: open_regular(f, ModelFileError))
    e = out["error"]
    assert isinstance(e, ModelFileError) and e.exit_code == 2
    assert str(f) in str(e) and "FIFO" in str(e)
    out = _in_thread(lambda: load_npy(str(f)))            # a reader through the helper
    assert isinstance(out["error"], InputError) and "FIFO" in str(out["error"])


@pytest.mark.parametrize("make, words", [
    (lambda p: p.mkdir(), "a directory"),
    (lambda p: p.symlink_to(p.name), "Too many levels of symbolic links"),
    (lambda p: None, "no such file"),
])
def test_other_non_files_are_named(tmp_path, make, words):
    p = tmp_path / "manifest.json"
    make(p)
    with pytest.raises(InputError) as e:
        open_regular(p)
    assert str(p) in str(e.value) and words in str(e.value)


def test_reads_are_recorded_only_inside_a_command(tmp_path):
    f = tmp_path / "x.npy"
    np.save(f, np.ones(3, np.float32))
    load_npy(str(f))
    assert files_read() == []                  # the library: nothing recorded, nothing refused
    destination(f)
    with command() as files:
        load_npy(str(f))
        assert files == [str(f)]
        with pytest.raises(OutputError, match="never overwrites"):
            destination(tmp_path / "." / "x.npy")         # another spelling
        os.link(f, tmp_path / "scope.json")
        with pytest.raises(OutputError, match="never overwrites"):
            write_files([(tmp_path / "scope.json", data(b"{}"))])
    assert np.load(f).tolist() == [1.0, 1.0, 1.0]


def test_input_dir_protects_its_files(tmp_path):
    (tmp_path / "in").mkdir()
    for n in ("a.npy", "b.npz", "notes.txt"):
        (tmp_path / "in" / n).write_bytes(b"")
    got = input_files([str(tmp_path / "in"), f"y={tmp_path / 'y.npy'}"])
    assert sorted(got) == sorted([str(tmp_path / "in" / "a.npy"), str(tmp_path / "in" / "b.npz"),
                                  str(tmp_path / "y.npy")])


def test_distinct_outputs(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "alias").symlink_to("sub")
    distinct([("--a", tmp_path / "x.json"), ("--b", tmp_path / "x.dot"), ("--c", None)])
    for other in (tmp_path / "sub" / ".." / "sub" / "o.dot", tmp_path / "alias" / "o.dot"):
        with pytest.raises(OutputError, match="--a and --b would write the same file"):
            distinct([("--a", tmp_path / "sub" / "o.dot"), ("--b", other)])
    (tmp_path / "one").write_text("x")
    os.link(tmp_path / "one", tmp_path / "two")
    with pytest.raises(OutputError, match="same file"):
        distinct([("--a", tmp_path / "one"), ("--b", tmp_path / "two")])


@pytest.mark.parametrize("fmt, out, want", [
    (None, "g.svg", "svg"), (None, "g.mmd", "mermaid"), (None, None, "dot"), ("dot", "g", "dot"),
    ("mermaid", "g.md", "mermaid"), ("png", "g.PNG", "png"),
])
def test_graph_format_is_the_name(fmt, out, want):
    assert pick_format(fmt, out) == want


@pytest.mark.parametrize("fmt, out, words", [
    (None, "g.jpg", 'cannot write a ".jpg" file'), ("png", "x.svg", "--format png does not match"),
    ("dot", "g.mmd", "--format dot does not match"), ("svg", "g.txt", 'cannot write a ".txt" file'),
])
def test_graph_name_format_mismatch_refused(fmt, out, words):
    with pytest.raises(InputError, match=words):
        pick_format(fmt, out)


def test_fixed_names_in_one_directory_are_distinct(tmp_path):
    """A dump or an extract directory where two of its fixed names are hard links to one file."""
    from irrun.debug.dumps import dump_target
    d = tmp_path / "dump"
    d.mkdir()
    (d / "tensors.npz").write_bytes(b"old")
    os.link(d / "tensors.npz", d / "manifest.json")
    with pytest.raises(OutputError, match="would write the same file"):
        dump_target(d)
    assert (d / "tensors.npz").read_bytes() == b"old"
