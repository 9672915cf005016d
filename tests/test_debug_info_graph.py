"""``irrun info`` and ``irrun graph`` on the fixtures (expected text read off the XML files)."""
from __future__ import annotations

import re

import pytest

from irrun.cli import main
from irrun.irwriter import IRWriter
from test_fixtures import CASES, FIXTURES


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
    assert '  n5 [label="5 Transpose_182\\nTranspose-1"];' in dot
    assert '  n4 [label="4 Constant_181\\nConst i64 [0, 1, 3, 2]", style="dashed,rounded", fontsize=8];' in dot
    assert '  n3 -> n5 [label="port 4: f32[1,4,4,4]"];' in dot      # VariadicSplit's 2nd output
    assert '  n9 -> n11 [label="port 3: f32[1,4,4,4]"];' in dot
    assert '  n10 [label="10 p\\nResult", shape=ellipse];' in dot


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
    out = run_cli(capsys, "graph", FIXTURES / "shufflenet_block" / "model.xml", "-o", tmp_path / "g.dot")
    assert out == f"wrote {tmp_path / 'g.dot'} (12 layers)\n"
    assert (tmp_path / "g.dot").read_text().startswith("digraph")


@pytest.mark.parametrize("case", CASES)
def test_info_and_graph_work_on_every_fixture(case, capsys):
    xml = FIXTURES / case / "model.xml"
    assert run_cli(capsys, "info", xml).startswith(f"{xml}: IR v")
    assert run_cli(capsys, "graph", xml, "-f", "mermaid").startswith("flowchart TD")
