"""``irrun check``: one test per kind of finding, on small IRs built with IRWriter and then broken
by hand (lxml edits of the XML, as a stale or hand-edited file would be), plus the reports and
exit codes. No false alarm: every fixture written by OpenVINO checks with no finding at all."""
from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from lxml import etree

import irrun
from irrun.cli.check_report import format_json
from irrun.analysis.check import LOADS_BUT_FAILS
from irrun import check as check_model
from irrun.cli.main import main
from irrun.errors import ModelFileError
from irrun.ir.builder import IRWriter

from helpers import needs_openvino
FIXTURES = Path(__file__).parent / "fixtures"
#: (tests/fixtures/public/ holds Model Optimizer's v10 files from public repositories, which carry
#: findings OpenVINO ignores — output_padding, stale precisions: tests/test_public_corpus.py)
ALL_IRS = sorted(p for p in FIXTURES.rglob("*.xml") if "public" not in p.relative_to(FIXTURES).parts)


def edit(path: Path, fn) -> Path:
    """Apply ``fn(root)`` to the XML of ``path`` in place (the .bin is left alone)."""
    root = etree.parse(str(path)).getroot()
    fn(root)
    path.write_bytes(etree.tostring(root, xml_declaration=True, encoding="UTF-8"))
    return path


def layer_el(root, lid: int):
    return root.find(f"layers/layer[@id='{lid}']")


def only(findings, **kw):
    """The one finding matching every ``field=value`` (and there must be exactly one)."""
    hits = [f for f in findings if all(getattr(f, k) == v for k, v in kw.items())]
    assert len(hits) == 1, "\n".join(map(str, findings))
    return hits[0]


def errors(findings):
    return [f for f in findings if f.severity == "error"]


@pytest.fixture
def chain(tmp_path) -> Path:
    """x f32[2,6] -> Transpose [6,2] -> Reshape [3,4] -> Result; layer ids 0..6."""
    b = IRWriter("chain")
    x = b.parameter("x", "f32", [2, 6])                                          # 0
    t = b.layer("Transpose", [x, b.const(np.array([1, 0]))], out_dims=[[6, 2]])  # 1 const, 2
    r = b.layer("Reshape", [t, b.const(np.array([3, 4]))], {"special_zero": False},
                out_dims=[[3, 4]])                                               # 3 const, 4
    b.result(r, "y")                                                             # 5
    return b.save(tmp_path / "chain.xml")


def run_cli(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


# --- no false alarm ----------------------------------------------------------------------------

@pytest.mark.parametrize("xml", ALL_IRS, ids=lambda p: str(p.relative_to(FIXTURES).parent))
def test_openvino_written_irs_check_without_any_finding(xml):
    """Only the warning that a Loop has no bound (irrun/limits/iterations.py) may appear."""
    assert [f for f in check_model(xml) if f.code != "loop-bound"] == []


def test_loops_without_a_bound_are_warned_about():
    """The fixtures whose Loop has a trip count from an input (or -1 with a computed condition);
    constant trip counts are bounds, even with a computed condition (loop_early_stop)."""
    warned = sorted(str(x.relative_to(FIXTURES).parent) for x in ALL_IRS
                    if any(f.code == "loop-bound" for f in check_model(x)))
    assert warned == ["subgraphs/loop_doubling", "subgraphs/loop_nested",
                      "subgraphs/loop_runtime_trip_and_condition", "subgraphs/loop_runtime_trip_scan",
                      "subgraphs/loop_while", "subgraphs/torch_loop_if"]
    f, = check_model(FIXTURES / "subgraphs/loop_while/model.xml")
    assert (f.severity, f.layer_type, f.layer_id) == ("warning", "Loop", "4")
    assert "cannot bound" in f.message and "--max-iterations" in f.message


def test_clean_model(chain):
    assert check_model(chain) == []


# --- declared vs inferred ----------------------------------------------------------------------

def test_declared_output_dim(chain):
    edit(chain, lambda r: layer_el(r, 4).find("output/port/dim").__setattr__("text", "4"))
    f = only(check_model(chain), code="dims")
    assert (f.severity, f.layer_id, f.layer_name, f.layer_type, f.port) == \
        ("error", "4", "Reshape_4", "Reshape", "out 2")
    assert (f.declared, f.inferred) == ("[4,4]", "[3,4]")
    assert "dim 0: declared 4, inferred 3" in f.message
    assert len(check_model(chain)) == 1          # its consumer's port is not blamed again


def test_declared_rank_and_precision(chain):
    def change(root):
        port = layer_el(root, 2).find("output/port")
        etree.SubElement(port, "dim").text = "1"
        port.set("precision", "I32")
    edit(chain, change)
    fs = check_model(chain)
    assert only(fs, code="rank").declared == "[6,2,1]"
    f = only(fs, code="precision")
    assert (f.layer_id, f.port, f.declared, f.inferred) == ("2", "out 2", "I32", "FP32")
    assert len(fs) == 2


def test_declared_minus_one_and_interval(tmp_path):
    b = IRWriter("iv")
    x = b.parameter("x", "f32", "4..8,6", dims=[-1, 6])
    parts = b.layer("Split", [x, b.const(np.int64(0))], {"num_splits": 2}, n_out=2,
                    out_dims=[[3, 6], [-1, 6]])          # 3 lies inside the inferred 2..4
    b.result(parts[0], "a")
    b.result(parts[1], "b")
    p = b.save(tmp_path / "iv.xml")
    assert check_model(p) == []
    edit(p, lambda r: layer_el(r, 2).find("output/port/dim").__setattr__("text", "5"))
    f = only(check_model(p), code="dims")
    assert (f.layer_id, f.port, f.declared, f.inferred) == ("2", "out 2", "[5,6]", "[2..4,6]")


def test_consumer_input_port_against_its_producer(chain):
    def change(root):
        port = layer_el(root, 4).find("input/port")
        port.find("dim").text = "7"
        port.set("precision", "FP16")
    edit(chain, change)
    fs = check_model(chain)
    d, p = only(fs, code="input-dims"), only(fs, code="input-precision")
    assert (d.layer_id, d.port, d.declared, d.inferred) == ("4", "in 0", "[7,2]", "[6,2]")
    assert 'layer 2 "Transpose_2" (Transpose) makes on port out 2' in d.message
    assert (p.declared, p.inferred) == ("FP16", "FP32")
    assert len(fs) == 2


# --- structure ---------------------------------------------------------------------------------

def test_every_structural_problem_is_reported(chain):
    def change(root):
        edges = root.find("edges")
        for e in edges:
            if e.get("to-layer") == "4" and e.get("to-port") == "1":
                e.set("to-port", "0")                     # port 0 fed twice, port 1 never
        etree.SubElement(edges, "edge", {"from-layer": "99", "from-port": "0", "to-layer": "5",
                                         "to-port": "0"})  # a missing layer
        dup = etree.fromstring(etree.tostring(layer_el(root, 1)))
        dup.set("name", "dup")
        root.find("layers").append(dup)                   # a duplicate id
    edit(chain, change)
    graph = [f for f in check_model(chain) if f.code == "graph"]
    msgs = "\n".join(f"{f.layer_id} {f.port} {f.message}" for f in graph)
    assert len(graph) == 4, msgs
    assert any(f.layer_id == "1" and "duplicate layer id 1" in f.message for f in graph)
    assert any("names layer 99, which does not exist" in f.message for f in graph)
    assert any(f.layer_id == "4" and f.port == "in 0" and "more than one edge" in f.message for f in graph)
    assert any(f.layer_id == "4" and f.port == "in 1" and "not connected" in f.message for f in graph)


def test_cycle_and_no_result(tmp_path):
    b = IRWriter("cyc")
    x = b.parameter("x", "f32", [2])
    a = b.layer("Convert", [x], {"destination_type": "f32"}, out_dims=[[2]])
    b.layer("Convert", [a], {"destination_type": "f32"}, out_dims=[[2]])
    p = b.save(tmp_path / "cyc.xml")
    assert only(check_model(p), code="graph").message == \
        "the graph has no Result layer, so it has no outputs"

    def loop(root):
        e = next(e for e in root.find("edges") if e.get("to-layer") == "1")
        e.set("from-layer", "2")
        e.set("from-port", "1")
        etree.SubElement(root.find("layers"), "layer", id="3", name="r", type="Result",
                         version="opset1").append(etree.fromstring(
                             '<input><port id="0" precision="FP32"><dim>2</dim></port></input>'))
        etree.SubElement(root.find("edges"), "edge", {"from-layer": "2", "from-port": "1",
                                                      "to-layer": "3", "to-port": "0"})
    edit(p, loop)
    fs = check_model(p)
    assert "the graph has a cycle through layers 1 -> 2 -> 1" in only(fs, code="graph").message
    assert [f.code for f in fs] == ["graph"]      # the Parameter cut off by the cycle: no finding


def test_dead_layer_is_a_warning_and_an_unused_input_no_finding(tmp_path, capsys):
    """An input that feeds nothing is interface (optimum-intel's stateless decoder_with_past keeps
    encoder_hidden_states unused; OpenVINO keeps it as an input): nothing to report."""
    b = IRWriter("dead")
    x = b.parameter("x", "f32", [2])
    b.parameter("unused", "f32", [3])
    b.layer("Convert", [x], {"destination_type": "i32"}, out_dims=[[2]], out_precision="I32")
    b.result(x, "y")
    p = b.save(tmp_path / "dead.xml")
    fs = check_model(p)
    assert [(f.severity, f.code, f.layer_id) for f in fs] == [("warning", "dead-layer", "2")]
    assert run_cli(capsys, "check", p)[0] == 0
    assert run_cli(capsys, "check", p, "--strict")[0] == 1


@needs_openvino
def test_openvino_keeps_an_unused_input(tmp_path):
    from tools.ovoracle import Oracle
    b = IRWriter("unused")
    x = b.parameter("x", "f32", [2])
    b.parameter("unused", "f32", [3])
    b.result(b.layer("Negative", [x], {}, out_dims=[[2]]), "y")
    p = b.save(tmp_path / "unused.xml")
    with Oracle() as ov:
        r = ov.cpu(p, {"x": np.array([1.0, 2.0], np.float32), "unused": np.zeros(3, np.float32)})
    assert r.ok, r.message
    assert r.outputs[0].array.tolist() == [-1.0, -2.0]
    assert check_model(p) == []


# --- Consts ------------------------------------------------------------------------------------

def test_each_bad_const_is_a_finding_and_read_model_stays_strict(chain):
    size = chain.with_suffix(".bin").stat().st_size

    def change(root):
        layer_el(root, 1).find("data").set("offset", str(size))         # past the .bin
        layer_el(root, 3).find("data").set("shape", "3")                # 16 bytes for 3 i64
    edit(chain, change)
    fs = errors(check_model(chain))
    a, c = only(fs, code="const", layer_id="1"), only(fs, code="const", layer_id="3")
    assert "lie outside the weights file" in a.message
    assert "needs 24 bytes but size=16" in c.message
    assert a.layer_type == "Const" and a.layer_name == "Const_1"
    with pytest.raises(ModelFileError, match="lie outside the weights file"):
        irrun.read_model(chain)


def test_const_with_spare_bytes_is_a_warning(chain):
    edit(chain, lambda r: layer_el(r, 1).find("data").set("size", "24"))     # [2] i64 needs 16
    f = only(check_model(chain))
    assert (f.severity, f.code, f.layer_id) == ("warning", "const-size", "1")
    assert f.message == "size=24 but the shape [2] needs 16 bytes (OpenVINO ignores the rest)"


# --- attributes --------------------------------------------------------------------------------

def test_attribute_findings(tmp_path):
    b = IRWriter("attrs")
    x = b.parameter("x", "f32", [1, 8, 2, 2])
    d = b.layer("DepthToSpace", [x], {"mode": "blocks_first", "block_size": 2, "colour": "red"},
                out_dims=[[1, 2, 4, 4]])
    s = b.layer("ShuffleChannels", [d], {"axis": 1, "group": 2}, out_dims=[[1, 2, 4, 4]])
    r = b.layer("Reshape", [s, b.const(np.array([2, 16]))], {"special_zero": "yes"},
                out_dims=[[2, 16]])
    b.result(r, "y")
    p = b.save(tmp_path / "attrs.xml")
    fs = check_model(p)
    assert [(f.severity, f.code, f.layer_id) for f in fs] == \
        [("warning", "attribute", "1"), ("warning", "attribute", "4")]
    assert fs[0].message == 'unknown attribute colour="red" (OpenVINO ignores it)'
    assert fs[1].message.startswith('attribute special_zero="yes" is not a boolean; OpenVINO '
                                    "ignores it and keeps the default")
    edit(p, lambda root: layer_el(root, 1).find("data").set("mode", "sideways"))
    f = only(check_model(p), code="attribute", severity="error")
    assert f.layer_id == "1" and 'mode="sideways" is not one of' in f.message
    edit(p, lambda root: (layer_el(root, 1).find("data").set("mode", "depth_first"),
                          layer_el(root, 1).find("data").attrib.pop("colour"),
                          layer_el(root, 4).remove(layer_el(root, 4).find("data"))))
    f = only(check_model(p))        # special_zero is required; OpenVINO defaults it silently
    assert (f.severity, f.code, f.layer_id) == ("warning", "attribute", "4")
    assert f.message == "missing attribute special_zero, using OpenVINO's default False"


def test_missing_mandatory_attribute_without_default(chain):
    b = IRWriter("conv")
    x = b.parameter("x", "f32", [2])
    b.result(b.layer("Convert", [x], {"destination_type": "i32"}, out_dims=[[2]],
                     out_precision="I32"), "y")
    p = b.save(chain.parent / "conv.xml")
    edit(p, lambda root: layer_el(root, 1).remove(layer_el(root, 1).find("data")))
    f = only(check_model(p))
    assert (f.severity, f.code, f.layer_id, f.message) == \
        ("error", "attribute", "1", "missing mandatory attribute: destination_type; the 1 layer "
                                    "after it is not checked")


# --- graphs that cannot run --------------------------------------------------------------------

def one_op(tmp_path, type_, inputs, attrs=None, n_out=1, dims=None, version="opset1"):
    b = IRWriter("op")
    ports = [b.parameter("x", "f32", list(inputs[0].shape))] + [b.const(v) for v in inputs[1:]]
    outs = b.layer(type_, ports, attrs, n_out=n_out, out_dims=dims, version=version)
    for i, o in enumerate(outs if n_out > 1 else [outs]):
        b.result(o, f"y{i}")
    return b.save(tmp_path / f"{type_}.xml")


@pytest.mark.parametrize("type_,inputs,attrs,n_out,fragment", [
    ("VariadicSplit", [np.zeros((2, 6)), np.int64(1), np.array([8, -1])], None, 2,
     "so the -1 would be -2"),
    ("StridedSlice", [np.zeros(5), np.array([5]), np.array([6]), np.array([1])],
     {"begin_mask": [0], "end_mask": [0], "shrink_axis_mask": [1]}, 1,
     "shrink_axis_mask index 5 is out of range for axis 0 of size 5"),
    ("Pad", [np.zeros((3, 4)), np.array([-3, 0]), np.array([-3, 0])], {"pad_mode": "constant"}, 1,
     "Pad crops axis 0 below zero"),
])
def test_graphs_openvino_loads_but_cannot_run(tmp_path, type_, inputs, attrs, n_out, fragment):
    f = only(check_model(one_op(tmp_path, type_, inputs, attrs, n_out)), severity="error")
    assert (f.code, f.layer_type) == ("loads-but-fails", type_)
    assert f.message.startswith(LOADS_BUT_FAILS + ": ") and fragment in f.message


def test_graph_openvino_rejects_and_what_it_hides(tmp_path):
    p = one_op(tmp_path, "Split", [np.zeros((2, 6)), np.int64(1)], {"num_splits": 4}, 4)
    f = only(check_model(p), severity="error")
    assert (f.code, f.layer_id, f.port) == ("shape-rule", "2", "in 0")
    assert f.message == ("Dimension of data input shape along 'axis': 6 must be evenly divisible "
                         "by 'num_splits' attribute value: 4; the 4 layers after it are not checked")


# --- ops irrun does not know -------------------------------------------------------------------

def test_unknown_op_is_unchecked_by_name_never_all_clear(tmp_path, capsys):
    b = IRWriter("ext")
    x = b.parameter("x", "f32", [2, 6])
    f = b.layer("FancyNorm", [x], version="extension", out_dims=[[2, 6]])
    t = b.layer("Transpose", [f, b.const(np.array([1, 0]))], out_dims=[[6, 2]])
    b.result(t, "y")
    p = b.save(tmp_path / "ext.xml")
    fs = check_model(p)
    u = only(fs, severity="unchecked")
    assert (u.code, u.layer_id, u.layer_type) == ("unsupported", "1", "FancyNorm")
    assert "irrun does not implement FancyNorm" in u.message
    assert u.message.endswith("the 2 layers after it are not checked")
    assert len(fs) == 1
    code, out, _ = run_cli(capsys, "check", p)
    assert code == 1 and out.splitlines()[0] == f"{p}: 1 unchecked layer"
    assert out.splitlines()[-1] == ("irrun could not check the FancyNorm layers above nor the "
                                    "layers they feed: this is not a clean bill of health")
    # the consumer of an uninferred port is still compared with the producer's declaration
    edit(p, lambda root: layer_el(root, 3).find("input/port/dim").__setattr__("text", "3"))
    d = only(check_model(p), code="input-dims")
    assert (d.layer_id, d.declared, d.inferred) == ("3", "[3,6]", "[2,6]")
    assert "(declared; its type is not inferred)" in d.message


TI_XML = """<?xml version="1.0"?>
<net name="ti" version="11">
 <layers>
  <layer id="0" name="x" type="Parameter" version="opset1"><data shape="2,3" element_type="f32"/>
   <output><port id="0" precision="FP32"><dim>2</dim><dim>3</dim></port></output></layer>
  <layer id="1" name="loop" type="TensorIterator" version="opset1">
   <port_map><input external_port_id="0" internal_layer_id="0"/>
    <output external_port_id="1" internal_layer_id="2"/></port_map>
   <input><port id="0" precision="FP32"><dim>2</dim><dim>3</dim></port></input>
   <output><port id="1" precision="FP32"><dim>2</dim><dim>3</dim></port></output>
   <body>
    <layers>
     <layer id="0" name="bx" type="Parameter" version="opset1"><data shape="2,3" element_type="f32"/>
      <output><port id="0" precision="FP32"><dim>2</dim><dim>3</dim></port></output></layer>
     <layer id="1" name="bc" type="Const" version="opset1">
      <data element_type="f32" shape="3" offset="100" size="12"/>
      <output><port id="0" precision="FP32"><dim>3</dim></port></output></layer>
     <layer id="2" name="br" type="Result" version="opset1">
      <input><port id="0" precision="FP32"><dim>2</dim><dim>3</dim></port></input></layer>
    </layers>
    <edges><edge from-layer="0" from-port="0" to-layer="2" to-port="0"/>
     <edge from-layer="7" from-port="0" to-layer="2" to-port="0"/></edges>
   </body>
  </layer>
  <layer id="2" name="y" type="Result" version="opset1">
   <input><port id="0" precision="FP32"><dim>2</dim><dim>3</dim></port></input></layer>
 </layers>
 <edges><edge from-layer="0" from-port="0" to-layer="1" to-port="0"/>
  <edge from-layer="1" from-port="1" to-layer="2" to-port="0"/></edges>
</net>
"""


def test_problems_in_a_body_are_named_with_their_path(tmp_path):
    p = tmp_path / "ti.xml"
    p.write_text(TI_XML)
    p.with_suffix(".bin").write_bytes(bytes(12))
    fs = check_model(p)
    assert [(f.severity, f.code, f.layer_id, f.layer_name) for f in fs] == [
        ("error", "graph", "1/2", "br"), ("error", "const", "1/1", "bc")]
    assert "edge 7:0 -> 2:0 names layer 7, which does not exist" in fs[0].message
    assert "lie outside the weights file (12 bytes)" in fs[1].message


# --- --shape -----------------------------------------------------------------------------------

def test_check_with_new_shapes(chain, capsys):
    assert check_model(chain, {"x": "2,6"}) == []
    f = only(check_model(chain, {"x": "4,6"}), severity="error")
    assert (f.code, f.layer_id) == ("shape-rule", "4")
    assert "Requested output shape [3,4] is incompatible with input shape [6,4]" in f.message
    assert check_model(chain, {"x": "?,6"}) == []          # a batch of 2 still fits
    code, out, err = run_cli(capsys, "check", chain, "--shape", "x=4,6")
    assert code == 1 and "Reshape" in out
    code, out, err = run_cli(capsys, "check", chain, "--shape", "x=4,six")
    assert code == 2 and "bad --shape" in err
    code, out, err = run_cli(capsys, "check", chain, "--shape", "x=1", "--shape", "x=2")
    assert code == 2 and 'gives input "x" twice' in err


# --- reports -----------------------------------------------------------------------------------

def test_text_report_is_aligned_and_json_has_every_field(chain, capsys):
    def change(root):
        layer_el(root, 4).find("output/port/dim").text = "4"
        layer_el(root, 2).find("output/port").set("precision", "FP16")
        layer_el(root, 2).set("name", "a/very/long/hierarchical/name/of/a/layer/Transpose_2")
        layer_el(root, 5).find("input/port/dim").text = "9"
    edit(chain, change)
    code, out, _ = run_cli(capsys, "check", chain)
    lines = out.splitlines()
    assert code == 1 and lines[0] == f"{chain}: 3 errors"
    header, rows = lines[1], lines[2:]
    starts = [m.start() for m in re.finditer(r"(?<=  )\S", header)]
    for row in rows:                                  # every column starts where its header does
        assert all(row[s - 2:s] == "  " and row[s] != " " for s in starts), (header, row)
    assert "a/very/long/" in out and "…" in out and "ayer/Transpose_2" in out
    code, out, _ = run_cli(capsys, "check", chain, "--json")
    data = json.loads(out)
    assert [set(d) for d in data] == [{"severity", "code", "layer_id", "layer_name", "layer_type",
                                       "port", "declared", "inferred", "message"}] * 3
    assert [(d["code"], d["layer_id"]) for d in data] == \
        [("precision", "2"), ("dims", "4"), ("input-dims", "5")]


def test_exit_codes(chain, tmp_path, capsys):
    assert run_cli(capsys, "check", chain)[0] == 0
    assert run_cli(capsys, "check", chain, "--strict")[0] == 0
    bad = tmp_path / "bad.xml"
    bad.write_text("<net version='11'><layers>")
    code, out, err = run_cli(capsys, "check", bad)
    assert code == 2 and out == "" and "not a well-formed XML file" in err
    assert format_json([]) == "[]"


# --- issue 27 class 10: a second <layers>/<edges> ------------------------------------------------

@needs_openvino
@pytest.mark.parametrize("tag", ["layers", "edges"])
def test_a_second_section_is_a_warning_openvino_ignores_it(tmp_path, capsys, tag):
    """OpenVINO 2026.4.1 runs the file with the first section (checked here: a second <edges>
    that drops the Result's edge, a second <layers> whose Concat became an unknown type)."""
    import copy

    from tools.ovoracle import Oracle
    b = IRWriter("two")
    x = b.parameter("x", "f32", [1, 4])
    b.result(b.layer("Concat", [x, x], {"axis": 0}, out_dims=[[2, 4]], name="cat"), "y")
    p = b.save(tmp_path / "two.xml")

    def second(root):
        sec = copy.deepcopy(root.find(tag))
        if tag == "edges":
            sec.remove(sec[-1])
        else:
            sec.find("layer[@id='1']").set("type", "Frobnicate")
        root.append(sec)
    edit(p, second)
    with Oracle() as ov:
        r = ov.cpu(p, {"x": np.ones((1, 4), np.float32)})
    assert r.ok, r.message
    assert r.outputs[0].array.shape == (2, 4)
    f, = check_model(p)
    assert (f.severity, f.code, f.layer_id) == ("warning", "ignored-section", None)
    assert f.message.startswith(f"a second <{tag}> at line ")
    assert f"OpenVINO uses the first <{tag}> and ignores this one" in f.message
    assert run_cli(capsys, "check", p)[0] == 0
    assert run_cli(capsys, "check", p, "--strict")[0] == 1


# --- issue 27 class 11: body Parameters that lie ------------------------------------------------

def _body_param(case: str, tmp_path: Path, lid: int, **attrs) -> Path:
    from subgraph_cases import copy_case
    xml = copy_case(case, tmp_path)
    return edit(xml, lambda r: r.find(f"layers/layer[@id='3']/body/layers/layer[@id='{lid}']/data").attrib.update(attrs))


@needs_openvino
def test_body_parameter_with_a_lying_shape_is_an_error_openvino_ignores(tmp_path):
    """ti_forward's bx declared [1,1,3] where the slice [2,1,3] flows in: OpenVINO 2026.4.1
    runs it and gives the fixture's expected outputs (the declaration is ignored)."""
    from tools.ovoracle import Oracle
    from subgraph_cases import load
    xml = _body_param("ti_forward", tmp_path, 0, shape="1,1,3")
    case = load("ti_forward")
    with Oracle() as ov:
        r = ov.cpu(xml, case.runs[0])
    assert r.ok, r.message
    f, = check_model(xml)
    assert (f.severity, f.code, f.layer_id, f.layer_name, f.layer_type) == (
        "error", "body-parameter", "3/0", "bx", "Parameter")
    assert f.message.startswith('is declared f32[1,1,3] but layer 3 "TensorIterator_16" '
                                "(TensorIterator-opset1) feeds it f32[2,1,3] (a part of input 0)")
    assert "OpenVINO ignores the declared shape" in f.message


def test_loop_body_parameter_with_a_lying_shape(tmp_path):
    xml = _body_param("loop_fixed", tmp_path, 0, shape="1,3")
    f, = check_model(xml)
    assert (f.code, f.layer_id, f.layer_name) == ("body-parameter", "3/0", "bx")
    assert 'is declared f32[1,3] but layer 3 "Loop_27270" (Loop-opset5) feeds it f32[2,3]' in f.message


@needs_openvino
def test_body_failing_as_written_is_reported_and_run_names_the_parameter(tmp_path):
    """ti_forward's bh declared i32 (f32 flows in): OpenVINO 2026.4.1 refuses it at read
    ("Arguments do not have the same element type" in the body's MatMul). check used to say
    nothing (the body checked with the layer's inputs passes)."""
    from tools.ovoracle import Oracle
    xml = _body_param("ti_forward", tmp_path, 1, element_type="i32")
    with Oracle() as ov:
        r = ov.load(xml)
    assert not r.ok and "Arguments do not have the same element type" in r.message
    f, = check_model(xml)
    assert (f.severity, f.code, f.layer_id, f.layer_name) == ("error", "shape-rule", "3/3", "MatMul_9")
    assert 'body Parameter layer 3/1 "bh" (Parameter-opset1) is declared i32[2,3]' in f.message
    with pytest.raises(irrun.ShapeError) as e:
        irrun.read_model(xml).types()
    assert 'layer 3 "TensorIterator_16" (TensorIterator-opset1) feeds it f32[2,3]' in e.value.message


@needs_openvino
def test_body_parameter_with_a_lying_element_type_is_refused(tmp_path):
    """A body ``Parameter -> Relu -> Result`` declared i32 where f32 flows in: OpenVINO 2026.4.1
    runs the body in i32 (its output is i32; without the Relu it would be f32), which irrun does
    not do: run and check refuse it, naming the Parameter and the TensorIterator."""
    from tools.ovoracle import Oracle
    p = tmp_path / "ti.xml"
    body = ('<layer id="0" name="bx" type="Parameter" version="opset1"><data shape="2,3" element_type="i32"/>'
            '<output><port id="0" precision="I32"><dim>2</dim><dim>3</dim></port></output></layer>'
            '<layer id="1" name="br" type="Relu" version="opset1">'
            '<input><port id="0" precision="I32"><dim>2</dim><dim>3</dim></port></input>'
            '<output><port id="1" precision="I32"><dim>2</dim><dim>3</dim></port></output></layer>'
            '<layer id="2" name="bres" type="Result" version="opset1">'
            '<input><port id="0" precision="I32"><dim>2</dim><dim>3</dim></port></input></layer>')
    edges = ('<edge from-layer="0" from-port="0" to-layer="1" to-port="0"/>'
             '<edge from-layer="1" from-port="1" to-layer="2" to-port="0"/>')
    start, end = TI_XML.index("<body>"), TI_XML.index("</body>")
    p.write_text(TI_XML[:start] + f"<body><layers>{body}</layers><edges>{edges}</edges>" + TI_XML[end:])
    with Oracle() as ov:
        r = ov.cpu(p, {"x": np.ones((2, 3), np.float32)})
    assert r.ok and r.outputs[0].array.dtype == np.int32, r.message
    fs = [f for f in check_model(p) if f.code == "shape-rule"]
    assert [(f.layer_id, f.layer_type) for f in fs] == [("1", "TensorIterator")]
    assert 'body Parameter layer 1/0 "bx" (Parameter-opset1) is declared i32[2,3]' in fs[0].message
    with pytest.raises(irrun.IrrunError, match='feeds it f32.*runs the body in the declared element type'):
        irrun.read_model(p).run({"x": np.ones((2, 3), np.float32)})
