"""The hostile-input corpus (tests/hostile/corpus, built by tools/fuzz/make_hostile_corpus.py): every
bad input gets its documented exit code and one short paragraph naming the layer or file, never a
traceback; nothing outside the named files is read and nothing is fetched."""
from __future__ import annotations

import json
import os
import shutil
import socket
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from irrun.cli.main import main

HERE = Path(__file__).parent
ROOT = HERE.parent.parent
CASES = json.loads((HERE / "cases.json").read_text())


def _tool():
    from tools.fuzz import make_hostile_corpus
    return make_hostile_corpus


def case_dir(case, tmp_path) -> Path:
    """A copy of the case (commands may write there), with its ``setup`` applied."""
    d = tmp_path / case["name"]
    if "make" in case:                  # too big to check in: written now
        d.mkdir()
        getattr(_tool(), case["make"])(d)
    else:
        shutil.copytree(HERE / "corpus" / case["name"], d)
    if "setup" in case:                 # symlinks and sparse files are planted at test time
        getattr(_tool(), case["setup"])(d)
    return d


def argv(case, d: Path) -> list[str]:
    return [a.replace("{dir}", str(d)) for a in case["argv"]]


def snapshot(d: Path) -> dict[str, object]:
    """Every entry under ``d``: a link's target, a file's bytes (a huge sparse one's size); a FIFO
    planted by a case is only named (reading it would block)."""
    out: dict[str, object] = {}
    for p in sorted(d.rglob("*")):
        key = str(p.relative_to(d))
        out[key] = ("link", os.readlink(p)) if p.is_symlink() else ("dir",) if p.is_dir() else \
            ("fifo",) if stat.S_ISFIFO(p.lstat().st_mode) else \
            ("file", p.stat().st_size if p.stat().st_size > 1 << 26 else p.read_bytes())
    return out


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_case(case, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)                  # relative paths in argv must not exist
    d = case_dir(case, tmp_path)
    before = snapshot(d)
    code = main(argv(case, d))
    out, err = capsys.readouterr()
    assert code == case["exit"], f"{case['name']}: exit {code}, stderr: {err}"
    assert "Traceback" not in err + out
    after = snapshot(d)
    created = sorted(k for k in after if k not in before and after[k][0] == "file")
    assert created == sorted(case.get("creates", [])), f"{case['name']} wrote {created}"
    assert {k: v for k, v in after.items() if k in before} == before, "a file the command must not touch changed"
    fragments = [f.replace("{dir}", str(d)) for f in case["fragments"]]
    if case["exit"] == 0 or (case["argv"][0] == "check" and case["exit"] == 1):   # check: findings on stdout
        assert err == ""
        for frag in fragments:
            assert frag in out, f"{case['name']}: {frag!r} not in {out!r}"
        if "stdout_lines" in case:
            assert len(out.splitlines()) == case["stdout_lines"], out
        return
    assert err.startswith("irrun: ") and err.count("\n") == 1, err   # one line, one paragraph
    for frag in fragments:
        assert frag in err, f"{case['name']}: {frag!r} not in {err!r}"
    assert len(err) < 1200


def test_corpus_matches_its_script(tmp_path):
    """cases.json lists what the generator writes (the corpus is checked in, not stale)."""
    names = sorted(p.name for p in (HERE / "corpus").iterdir())
    assert names == sorted(c["name"] for c in CASES)
    for c in CASES:
        if "make" not in c:
            assert sorted(p.name for p in (HERE / "corpus" / c["name"]).iterdir()) == c["files"]


def test_cli_process_prints_no_traceback():
    """The real process, for one case per exit-code kind."""
    for name in ("xml_external_entity_file", "broadcast_huge_const", "custom_op"):
        case = next(c for c in CASES if c["name"] == name)
        p = subprocess.run([sys.executable, "-m", "irrun", *argv(case, HERE / "corpus" / name)],
                           capture_output=True, text=True, timeout=60, env={**os.environ, "CI": "true"})
        assert p.returncode == case["exit"]
        assert "Traceback" not in p.stderr and p.stderr.count("\n") == 1


def test_external_entities_leak_nothing_and_fetch_nothing(tmp_path, capsys):
    """A secret file and a listening socket named by entities in every place they can hide:
    neither is read nor contacted (the DOCTYPE is refused; the parser has entities off too)."""
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET-7f3a")
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(4)
    srv.settimeout(0.5)
    hits = []

    def accept():
        try:
            hits.append(srv.accept())
        except OSError:
            pass
    t = threading.Thread(target=accept)
    t.start()
    url = f"http://127.0.0.1:{srv.getsockname()[1]}/x"
    body = (HERE / "corpus" / "xml_doctype" / "model.xml").read_bytes().split(b"<!DOCTYPE net>", 1)[1]
    shutil.copy(HERE / "corpus" / "xml_doctype" / "model.bin", tmp_path / "model.bin")
    for doctype in [f'<!DOCTYPE net [<!ENTITY e SYSTEM "file://{secret}">]>',
                    f'<!DOCTYPE net [<!ENTITY e SYSTEM "{url}">]>',
                    f'<!DOCTYPE net SYSTEM "{url}">',
                    f'<!DOCTYPE net [<!ENTITY % p SYSTEM "{url}"> %p;]>',
                    f'<!DOCTYPE net [<!ENTITY % p SYSTEM "file://{secret}"> %p;]>']:
        (tmp_path / "model.xml").write_bytes(
            b'<?xml version="1.0"?>' + doctype.encode() + body.replace(b'name="cat"', b'name="&e;"'))
        assert main([str(tmp_path / "model.xml"), "--input", "x.npy"]) == 2
        out, err = capsys.readouterr()
        assert "TOP-SECRET" not in out + err and "DOCTYPE" in err
        assert main(["check", str(tmp_path / "model.xml")]) == 2
        assert "TOP-SECRET" not in "".join(capsys.readouterr())
    t.join()
    srv.close()
    assert hits == []


def test_parser_flags_hold_even_without_the_doctype_check(tmp_path):
    """Defence in depth: lxml as irrun configures it neither resolves nor fetches entities."""
    from lxml import etree

    from irrun.ir import reader
    secret = tmp_path / "s.txt"
    secret.write_text("TOP-SECRET-7f3a")
    doc = f'<!DOCTYPE r [<!ENTITY e SYSTEM "file://{secret}">]><r>&e;</r>'.encode()
    parser = etree.XMLParser(resolve_entities=False, load_dtd=False, no_network=True,
                             huge_tree=False)
    assert b"TOP-SECRET" not in etree.tostring(etree.fromstring(doc, parser))
    (tmp_path / "m.xml").write_bytes(doc)
    with pytest.raises(reader.ModelFileError, match="DOCTYPE"):
        reader.parse_xml(str(tmp_path / "m.xml"))


HUGE = [c["name"] for c in CASES
        if c["name"].endswith(("huge_const", "huge_input")) or c["name"] == "param_huge"]


@pytest.mark.parametrize("name", HUGE)
def test_check_on_a_huge_model_allocates_nothing(name, capsys):
    """`irrun check` on the 4 PB models is fast and small (no allocation); they are valid IR."""
    import resource
    import time
    t0, rss0 = time.perf_counter(), resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    assert main(["check", str(HERE / "corpus" / name / "model.xml")]) == 0, capsys.readouterr()
    assert time.perf_counter() - t0 < 5
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss0 < 100_000   # kB


def test_library_raises_budget_error_naming_the_layer(tmp_path):
    import numpy as np

    import irrun
    from irrun.limits.memory import MemoryBudgetError
    d = HERE / "corpus" / "broadcast_huge_input"
    m = irrun.read_model(d / "model.xml")
    with pytest.raises(MemoryBudgetError) as e:
        m.run({"x": np.ones(1, np.float32), "t": np.array([10**5] * 3, np.int64)})
    assert e.value.layer.name == "grow" and "4000000000000000 bytes" in str(e.value)
    # under a budget of 1000 bytes a [10,10,10] f32 broadcast (4000 bytes) is refused too
    with pytest.raises(MemoryBudgetError, match="4000 bytes"):
        m.run({"x": np.ones(1, np.float32), "t": np.array([10] * 3, np.int64)}, max_memory=1000)
    out = m.run({"x": np.ones(1, np.float32), "t": np.array([2, 3, 4], np.int64)}, max_memory=1000)
    assert out["y"].shape == (2, 3, 4)


def test_time_is_linear_in_a_wide_layer(tmp_path, capsys):
    """A Concat with 8000 input ports (one edge each): reading, checking and running take time
    proportional to the file (port lookups were quadratic: ~20 s here, hours at 100000 ports)."""
    import time
    n = 8000
    ports = "".join(f'<port id="{i}" precision="FP32"><dim>1</dim></port>' for i in range(n))
    edges = "".join(f'<edge from-layer="0" from-port="0" to-layer="1" to-port="{i}"/>' for i in range(n))
    (tmp_path / "m.xml").write_text(
        f'<?xml version="1.0"?><net name="wide" version="11"><layers>'
        '<layer id="0" name="x" type="Parameter" version="opset1"><data shape="1" element_type="f32"/>'
        '<output><port id="0" precision="FP32"><dim>1</dim></port></output></layer>'
        f'<layer id="1" name="cat" type="Concat" version="opset1"><data axis="0"/><input>{ports}</input>'
        f'<output><port id="{n}" precision="FP32"><dim>{n}</dim></port></output></layer>'
        f'<layer id="2" name="y" type="Result" version="opset1"><input><port id="0" precision="FP32">'
        f'<dim>{n}</dim></port></input></layer></layers><edges>{edges}'
        f'<edge from-layer="1" from-port="{n}" to-layer="2" to-port="0"/></edges></net>')
    import numpy as np
    np.save(tmp_path / "x.npy", np.ones(1, np.float32))
    t0 = time.perf_counter()
    assert main(["check", str(tmp_path / "m.xml")]) == 0
    assert main([str(tmp_path / "m.xml"), "--input", str(tmp_path / "x.npy")]) == 0
    assert time.perf_counter() - t0 < 10
    assert "float32[8000]" in capsys.readouterr().out
