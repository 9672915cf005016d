"""``irrun info`` and ``irrun graph`` on the fixtures (expected text read off the XML files)."""
from __future__ import annotations

import re

import pytest
from helpers import needs_dot
from test_fixtures import CASES, FIXTURES

from irrun.cli.main import main
from irrun.debug.describe import CATEGORIES, _attr_lines, category
from irrun.ir.builder import IRWriter


def run_cli(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    assert code == 0, err
    return out


def test_info_of_a_fixture(capsys):
    xml = FIXTURES / "variadic_split_shapeof" / "model.xml"
    assert run_cli(capsys, "info", xml).splitlines() == [
        f'{xml}: IR v11, "variadic_split_shapeof", 12 layers (4 Const, 2 Parameter, 2 Result, 4 ops)',
        "",
        "inputs",
        "  x  f32[2,10]",
        "  y  i8[?,?]",
        "",
        "outputs",
        "  head  f32[2,?]",
        "  tail  f32[2,?]",
        "",
        "ops (type-version, layers)",
        "  Concat-1         1",
        "  Gather-8         1",
        "  ShapeOf-3        1",
        "  VariadicSplit-1  1",
        "",
        "opsets   opset1, opset3, opset8",
        "weights  4 values in 4 Consts, 20 bytes",       # i64 scalar + 3 i32 scalars (offsets in the XML)
    ]


def test_info_names_ops_irrun_lacks_and_unused_layers(tmp_path, capsys):
    b = IRWriter("m")
    x = b.parameter("x", "f32", [2, 3])
    b.result(b.layer("MyOp", [x], version="extension", name="act", out_dims=[[2, 3]]), "y")
    b.layer("Convert", [x], {"destination_type": "i8"}, name="unused")
    b.layer("Convert", [x], {"destination_type": "i8"}, name="unused2")
    out = run_cli(capsys, "info", b.save(tmp_path / "m.xml"))
    lines = out.splitlines()
    assert lines[0].endswith("5 layers (1 Parameter, 1 Result, 3 ops)")
    assert lines[5:7] == ["outputs", "  y  f32[2,3]"]                # declared: irrun cannot infer MyOp
    assert lines[8:11] == ["ops (type-version, layers)", "  Convert-1       2",
                           "  MyOp-extension  1  not implemented by irrun"]
    assert "weights  none" in lines
    assert out.splitlines()[-1] == "unused   2 layers feed no Result (OpenVINO drops them; irrun check lists them)"


def test_dot_has_every_layer_and_edge(capsys):
    xml = FIXTURES / "shufflenet_block" / "model.xml"
    dot = run_cli(capsys, "graph", xml)
    text = xml.read_text()
    ids = re.findall(r'<layer id="(\d+)"', text)
    edges = re.findall(r'<edge from-layer="(\d+)" from-port="\d+" to-layer="(\d+)"', text)
    assert dot.startswith('digraph "shufflenet_block" {\n') and dot.endswith("}\n")
    assert sorted(re.findall(r"^  n(\d+) \[label=", dot, re.M)) == sorted(ids)
    assert sorted(re.findall(r"^  n(\d+) -> n(\d+) ", dot, re.M)) == sorted(edges)
    movement = CATEGORIES["movement"][0]
    assert f'  n5 [label="5 Transpose_182\\nTranspose-1", fillcolor="{movement}"];' in dot
    assert f'  n7 [label="7 ShuffleChannels_184\\nShuffleChannels-1\\naxis=1, group=2", fillcolor="{movement}"];' in dot
    assert '  n4 [label="4 Constant_181\\nConst i64 [0, 1, 3, 2]", style="dashed,rounded", fontsize=8, color=gray40];' in dot
    assert '  n3 -> n5 [label="port 4: f32[1,4,4,4]"];' in dot      # VariadicSplit's 2nd output
    assert '  n9 -> n11 [label="port 3: f32[1,4,4,4]"];' in dot
    io = CATEGORIES["io"][0]
    assert f'  n10 [label="10 p\\nResult f32[1,4,4,4]", shape=ellipse, style=filled, fillcolor="{io}"];' in dot
    assert f'  n0 [label="0 x\\nParameter f32[1,8,4,4]", shape=ellipse, style=filled, fillcolor="{io}"];' in dot
    legend = next(ln for ln in dot.splitlines() if ln.startswith("  legend "))
    assert legend.count("<tr>") == 2 and CATEGORIES["movement"][1] in legend   # only the colours used


def test_categories_cover_every_op_irrun_has():
    from irrun.ops.registry import _index
    missing = [t for t in _index() if t not in ("Parameter", "Result", "Constant") and category(t) is None]
    assert missing == [], "give these ops' modules a colour in irrun.debug.describe._MODULE_CATEGORY"
    assert (category("Convolution"), category("relu"), category("MaxPool"), category("NoSuchOp")) == \
        ("linear", "elementwise", "spatial", None)


def test_attribute_lines_are_bounded():
    lines = _attr_lines({f"a{i}": "x" * (30 if i == 0 else 1) for i in range(9)})
    assert lines[0] == "a0=" + "x" * 23 + "…, a1=x" and lines[-1] == "a4=x, +4 more" and len(lines) == 3


def test_mermaid_neighbourhood(capsys):
    xml = FIXTURES / "shufflenet_block" / "model.xml"
    mm = run_cli(capsys, "graph", xml, "--format", "mermaid", "--layer", "Transpose_182", "--depth", "1")
    lines = mm.splitlines()
    assert lines[0] == "flowchart TD"
    assert sorted(re.findall(r"^  n(\d+)\[", mm, re.M)) == ["3", "4", "5", "6"]   # 5 and its neighbours
    assert '  n4["4 Constant_181<br/>Const i64 [0, 1, 3, 2]"]:::const' in lines
    assert '  n3 -->|"port 4: f32[1,4,4,4]"| n5' in lines and lines[-1] == "  class n5 focus"
    assert sum("-->" in ln for ln in lines) == 4                 # 3->5, 3->6, 4->5, 5->6


def test_graph_to_file(tmp_path, capsys):
    out = run_cli(capsys, "graph", FIXTURES / "shufflenet_block" / "model.xml", "-o", tmp_path / "new" / "g.dot")
    assert out == f"wrote {tmp_path / 'new' / 'g.dot'} (dot, 12 layers)\n"
    assert (tmp_path / "new" / "g.dot").read_text().startswith("digraph")
    run_cli(capsys, "graph", FIXTURES / "shufflenet_block" / "model.xml", "-o", tmp_path / "g.mmd")
    assert (tmp_path / "g.mmd").read_text().startswith("flowchart TD")


@needs_dot
@pytest.mark.parametrize("fmt, magic", [("svg", b"<svg"), ("png", b"\x89PNG\r\n")])
def test_graph_picture(tmp_path, capsys, fmt, magic):
    out = run_cli(capsys, "graph", FIXTURES / "shufflenet_block" / "model.xml", "-o", tmp_path / f"g.{fmt}")
    assert out == f"wrote {tmp_path / f'g.{fmt}'} ({fmt}, 12 layers)\n"
    data = (tmp_path / f"g.{fmt}").read_bytes()
    assert magic in data[:400]
    if fmt == "svg":
        assert data.count(CATEGORIES["movement"][0].encode()) >= 5 and b"Transpose_182" in data


def test_graph_picture_without_graphviz(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))          # no dot on it
    code = main(["graph", str(FIXTURES / "shufflenet_block" / "model.xml"), "-o", str(tmp_path / "g.svg")])
    err = capsys.readouterr().err
    assert code == 2 and "needs Graphviz's dot program" in err and "apt install graphviz" in err
    assert not (tmp_path / "g.svg").exists()
    code = main(["graph", str(FIXTURES / "shufflenet_block" / "model.xml"), "-f", "png"])
    assert code == 2 and "give the file to write with -o FILE.png" in capsys.readouterr().err


@pytest.mark.parametrize("case", CASES)
def test_info_and_graph_work_on_every_fixture(case, capsys):
    xml = FIXTURES / case / "model.xml"
    assert run_cli(capsys, "info", xml).startswith(f"{xml}: IR v")
    assert run_cli(capsys, "graph", xml, "-f", "mermaid").startswith("flowchart TD")


def test_info_and_ops_json(capsys):
    import json
    xml = FIXTURES / "shufflenet_block" / "model.xml"
    info = json.loads(run_cli(capsys, "info", xml, "--json"))
    text = xml.read_text()
    assert (info["ir_version"], info["layers"]) == (int(re.search(r'<net name="[^"]*" version="(\d+)"', text)[1]),
                                                   len(re.findall(r"<layer id=", text)))
    assert [(p["name"], p["element_type"], p["shape"]) for p in info["inputs"]] == [("x", "f32", "[1,8,4,4]")]
    assert [p["name"] for p in info["outputs"]] == ["p", "q"]
    assert {o["op"]: o["layers"] for o in info["ops"]} == {
        "Concat-1": 1, "ShuffleChannels-1": 1, "Split-1": 1, "Transpose-1": 1, "VariadicSplit-1": 1}
    assert info["weights"]["consts"] == len(re.findall(r'type="Const"', text))
    ops = json.loads(run_cli(capsys, "ops", "--json"))
    by_type = {o["type"]: o for o in ops}
    assert "opset1" in by_type["Concat"]["versions"] and by_type["Concat"]["spec"].startswith("https://")
