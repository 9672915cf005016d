"""The reader and graph builder on hand-written IR, each case from ir-format.md."""
from __future__ import annotations

import numpy as np
import pytest

import irrun
from irrun.errors import GraphError, ModelFileError, ShapeError, UnsupportedError
from irrun.ir.reader import read_ir, split_names
from irrun.types.shapes import Dim, PartialShape

PARAM = '''<layer id="{id}" name="{name}" type="Parameter" version="opset1">
  <data shape="{shape}" element_type="{et}"/>
  <output><port id="0" precision="FP32" names="{names}">{dims}</port></output></layer>'''


def xml(layers: str, edges: str, version: str = "11") -> str:
    return f'<?xml version="1.0"?>\n<net name="t" version="{version}"><layers>{layers}</layers><edges>{edges}</edges><rt_info/></net>'


def write(tmp_path, text: str, name: str = "m.xml", blob: bytes | None = None):
    p = tmp_path / name
    p.write_text(text)
    if blob is not None:
        p.with_suffix(".bin").write_bytes(blob)
    return p


# A Parameter feeding a Convert (input port id 7, output port id 9: ids are matched by position)
# and a Result, with escaped tensor names.
BASIC = xml(PARAM.format(id=3, name="x", shape="2,3", et="f32", names="x,x\\,alias",
                         dims="<dim>2</dim><dim>3</dim>") + '''
<layer id="10" name="cvt" type="convert" version="opset1"><data destination_type="i32"/>
  <input><port id="7" precision="FP32"><dim>2</dim><dim>3</dim></port></input>
  <output><port id="9" precision="I32" names="y"><dim>2</dim><dim>3</dim></port></output></layer>
<layer id="0" name="out" type="Result" version="opset1" output_names="y">
  <input><port id="0" precision="I32"><dim>2</dim><dim>3</dim></port></input></layer>''',
  '<edge from-layer="3" from-port="0" to-layer="10" to-port="7"/>'
  '<edge from-layer="10" from-port="9" to-layer="0" to-port="0"/>')


def test_basic_model_runs_with_port_ids_by_position(tmp_path):
    m = irrun.read_model(write(tmp_path, BASIC))
    assert [i.names for i in m.inputs] == [("x", "x,alias")]
    assert [o.name for o in m.outputs] == ["y"]
    out = m.run(np.array([[1.9, -1.9, 0], [3, 4, 5]], np.float32))
    np.testing.assert_array_equal(out["y"], np.array([[1, -1, 0], [3, 4, 5]], np.int32))
    assert out["y"].dtype == np.int32
    # the same input found by its escaped alias
    assert m.run({"x,alias": np.zeros((2, 3), np.float32)})["y"].shape == (2, 3)


def test_graph_is_multidigraph_keeping_parallel_edges(tmp_path):
    body = PARAM.format(id=0, name="x", shape="4", et="i64", names="x", dims="<dim>4</dim>") + '''
<layer id="1" name="c" type="Concat" version="opset1"><data axis="0"/>
  <input><port id="0" precision="I64"><dim>4</dim></port><port id="1" precision="I64"><dim>4</dim></port></input>
  <output><port id="2" precision="I64"><dim>8</dim></port></output></layer>
<layer id="2" name="r" type="Result" version="opset1"><input><port id="0" precision="I64"><dim>8</dim></port></input></layer>'''
    edges = ('<edge from-layer="0" from-port="0" to-layer="1" to-port="0"/>'
             '<edge from-layer="0" from-port="0" to-layer="1" to-port="1"/>'
             '<edge from-layer="1" from-port="2" to-layer="2" to-port="0"/>')
    m = irrun.read_model(write(tmp_path, xml(body, edges)))
    assert m.graph.number_of_edges(0, 1) == 2
    assert sorted(d["dst_port"] for _, _, d in m.graph.in_edges(1, data=True)) == [0, 1]


def test_split_names_escapes():
    assert split_names("x,x_alias\\,with_comma") == ["x", "x_alias,with_comma"]
    assert split_names("") == []


@pytest.mark.parametrize("text,expect", [
    ("1,3,224,224", "[1,3,224,224]"), ("?,3", "[?,3]"), ("-1,3", "[?,3]"),
    ("1..10", "[1..10]"), ("..7", "[0..7]"), ("2..", "[2..]"), ("...", "[...]"), ("", "[]"),
    ("[1, 2]", "[1,2]"),
])
def test_parameter_shape_grammar(text, expect):
    assert str(PartialShape.parse(text)) == expect


def test_bad_parameter_shape_is_named(tmp_path):
    p = write(tmp_path, xml(PARAM.format(id=0, name="x", shape="1.5", et="f32", names="x", dims="")
                            + '<layer id="1" name="r" type="Result" version="opset1"><input><port id="0"/></input></layer>',
                            '<edge from-layer="0" from-port="0" to-layer="1" to-port="0"/>'))
    with pytest.raises(ShapeError, match=r'layer 0 "x" \(Parameter-opset1\).*shape="1.5"'):
        irrun.read_model(p).types()


@pytest.mark.parametrize("version", ["7", "12", None])
def test_ir_version_must_be_10_or_11(tmp_path, version):
    text = BASIC.replace('version="11"', f'version="{version}"' if version else "")
    with pytest.raises(ModelFileError, match="IR version"):
        read_ir(write(tmp_path, text))


def test_v10_reads_and_runs(tmp_path):
    m = irrun.read_model(write(tmp_path, BASIC.replace('version="11"', 'version="10"')))
    assert m.run(np.ones((2, 3), np.float32))["y"].tolist() == [[1, 1, 1], [1, 1, 1]]


def test_doctype_refused_no_entity_expansion(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("TOPSECRET")
    text = f'<?xml version="1.0"?><!DOCTYPE net [<!ENTITY x SYSTEM "file://{secret}">]>' + \
        BASIC.split("?>", 1)[1].replace('name="t"', 'name="&x;"')
    with pytest.raises(ModelFileError, match="DOCTYPE") as e:
        read_ir(write(tmp_path, text))
    assert "TOPSECRET" not in str(e.value)


@pytest.mark.parametrize("text,fragment", [
    ("", "not a well-formed XML"), ("garbage", "not a well-formed XML"),
    ("<net version='11'><layers>", "not a well-formed XML"),
    ("<model version='11'/>", "not <net>"),
])
def test_unreadable_xml(tmp_path, text, fragment):
    with pytest.raises(ModelFileError, match=fragment):
        read_ir(write(tmp_path, text))


def test_missing_and_directory_paths(tmp_path):
    with pytest.raises(ModelFileError, match="no such file"):
        irrun.read_model(tmp_path / "nope.xml")
    with pytest.raises(ModelFileError, match="directory"):
        irrun.read_model(tmp_path)


CONST = '''<layer id="{id}" name="w" type="{type}" version="opset1">
  <data element_type="{et}" shape="{shape}" offset="{offset}" size="{size}"/>
  <output><port id="0" precision="FP32">{dims}</port></output></layer>'''
RESULT = '<layer id="{id}" name="r" type="Result" version="opset1"><input><port id="0"/></input></layer>'


@pytest.mark.parametrize("type_", ["Const", "const", "Constant", "CONST"])
def test_const_spellings_and_zero_copy(tmp_path, type_):
    blob = b"\x00" * 3 + np.arange(4, dtype="<f4").tobytes()  # unaligned offset 3
    p = write(tmp_path, xml(CONST.format(id=0, type=type_, et="f32", shape="2, 2", offset=3, size=16,
                                         dims="<dim>2</dim><dim>2</dim>") + RESULT.format(id=1),
                            '<edge from-layer="0" from-port="0" to-layer="1" to-port="0"/>'), blob=blob)
    m = irrun.read_model(p)
    (out,) = m.run({}).values()
    np.testing.assert_array_equal(out, [[0, 1], [2, 3]])
    assert isinstance(m.graph.nodes[0]["layer"].const_value.base, np.ndarray) and \
        not m.graph.nodes[0]["layer"].const_value.flags.owndata  # a view of the mapped .bin


@pytest.mark.parametrize("offset,size,fragment", [
    (0, 8, "needs 16 bytes"), (8, 16, "outside the weights file"), (-1, 16, "negative"),
    ("x", 16, "non-integer"), (2**64, 16, "outside the weights file"),
])
def test_const_bounds(tmp_path, offset, size, fragment):
    p = write(tmp_path, xml(CONST.format(id=5, type="Const", et="f32", shape="2, 2", offset=offset,
                                         size=size, dims="") + RESULT.format(id=1),
                            '<edge from-layer="5" from-port="0" to-layer="1" to-port="0"/>'),
              blob=bytes(16))
    with pytest.raises(ModelFileError, match=fragment) as e:
        read_ir(p)
    assert 'layer 5 "w"' in str(e.value)


def test_missing_bin_only_matters_with_a_const(tmp_path):
    p = write(tmp_path, xml(CONST.format(id=0, type="Const", et="f32", shape="1", offset=0, size=4,
                                         dims="") + RESULT.format(id=1),
                            '<edge from-layer="0" from-port="0" to-layer="1" to-port="0"/>'))
    with pytest.raises(ModelFileError, match="weights file .* is missing") as e:
        read_ir(p)
    assert 'layer 0 "w"' in str(e.value)
    irrun.read_model(write(tmp_path, BASIC, "nobin.xml"))  # no Const: no .bin needed


EDGE = '<edge from-layer="{}" from-port="{}" to-layer="{}" to-port="{}"/>'
CVT = '''<layer id="{id}" name="c{id}" type="Convert" version="opset1"><data destination_type="f32"/>
  <input><port id="0"/></input><output><port id="1"/></output></layer>'''
X = PARAM.format(id=0, name="x", shape="2", et="f32", names="x", dims="<dim>2</dim>")


@pytest.mark.parametrize("layers,edges,fragment", [
    (X + CVT.format(id=1) + RESULT.format(id=2), EDGE.format(0, 0, 9, 0) + EDGE.format(1, 1, 2, 0),
     "names layer 9, which does not exist"),
    (X + CVT.format(id=1) + RESULT.format(id=2), EDGE.format(0, 5, 1, 0) + EDGE.format(1, 1, 2, 0),
     "has no output port with id 5"),
    (X + CVT.format(id=1) + RESULT.format(id=2), EDGE.format(0, 0, 1, 3) + EDGE.format(1, 1, 2, 0),
     "has no input port with id 3"),
    (X + CVT.format(id=1) + RESULT.format(id=2), EDGE.format(1, 1, 2, 0), "not connected"),
    (X + CVT.format(id=1) + RESULT.format(id=2),
     EDGE.format(0, 0, 1, 0) + EDGE.format(0, 0, 1, 0) + EDGE.format(1, 1, 2, 0), "more than one edge"),
    (X + CVT.format(id=1) + CVT.format(id=1) + RESULT.format(id=2),
     EDGE.format(0, 0, 1, 0) + EDGE.format(1, 1, 2, 0), "duplicate layer id 1"),
    (X + CVT.format(id=1), EDGE.format(0, 0, 1, 0), "no Result"),
    (X + CVT.format(id=1).replace('<input><port id="0"/></input>', '<input><port id="0"/><port id="2"/></input>')
     + RESULT.format(id=2), EDGE.format(0, 0, 1, 0) + EDGE.format(1, 1, 1, 2) + EDGE.format(1, 1, 2, 0), "cycle"),
])
def test_structural_errors(tmp_path, layers, edges, fragment):
    with pytest.raises(GraphError, match=fragment):
        irrun.read_model(write(tmp_path, xml(layers, edges)))


def test_unknown_version_and_type(tmp_path):
    text = BASIC.replace('type="convert" version="opset1"', 'type="Convert" version="extension"')
    with pytest.raises(UnsupportedError, match=r'layer 10 "cvt".*irrun implements Convert as: opset1'):
        irrun.read_model(write(tmp_path, text)).run(np.zeros((2, 3), np.float32))
    text = BASIC.replace('type="convert" version="opset1"', 'type="Convert" version="opset13"')
    assert irrun.read_model(write(tmp_path, text, "b.xml")).run(np.zeros((2, 3), np.float32))["y"].dtype == np.int32


def test_sub_graph_bodies_are_read(tmp_path):
    ti = '''<layer id="1" name="ti" type="TensorIterator" version="opset1">
  <port_map><input external_port_id="0" internal_layer_id="0" axis="0"/><output external_port_id="1" internal_layer_id="1" axis="0"/></port_map>
  <back_edges/>
  <input><port id="0"><dim>2</dim></port></input><output><port id="1"><dim>2</dim></port></output>
  <body><layers>''' + PARAM.format(id=0, name="b", shape="1", et="f32", names="", dims="<dim>1</dim>") + \
        RESULT.format(id=1) + '''</layers><edges>''' + EDGE.format(0, 0, 1, 0) + '''</edges><rt_info/></body></layer>'''
    p = write(tmp_path, xml(X + ti + RESULT.format(id=2), EDGE.format(0, 0, 1, 0) + EDGE.format(1, 1, 2, 0)))
    ir = read_ir(p)
    layer = ir.graph.layers[1]
    assert [L.type for L in layer.bodies["body"].layers] == ["Parameter", "Result"]
    assert layer.port_maps["port_map"][0]["axis"] == "0"
    out, = irrun.read_model(p).run(np.array([3, 4], np.float32)).values()   # sliced, concatenated
    np.testing.assert_array_equal(out, [3, 4])


def test_dim_intervals():
    assert Dim(4, 8) // 2 == Dim(2, 4)
    assert Dim(2, None).contains(10**9) and not Dim(2, 5).contains(6)
    assert PartialShape.parse("1..3,?").accepts((2, 0)) and not PartialShape.parse("1..3").accepts((4,))


# --- issue 27 class 9: the XML's integers are ASCII ---------------------------------------------

def _concat_ir(tmp_path, fn=None):
    """x f32[1,4] ++ Const f32[1,4] (axis 0) -> y, its XML edited by ``fn(root)``."""
    from lxml import etree

    from irrun.ir.builder import IRWriter
    b = IRWriter("m")
    x = b.parameter("x", "f32", [1, 4])
    c = b.const(np.arange(4, dtype=np.float32).reshape(1, 4))
    b.result(b.layer("Concat", [x, c], {"axis": 0}, out_dims=[[2, 4]], name="cat"), "y")
    p = b.save(tmp_path / "m.xml")
    if fn is not None:
        root = etree.parse(str(p)).getroot()
        fn(root)
        p.write_bytes(etree.tostring(root, xml_declaration=True, encoding="utf-8"))
    return p


def _renumber(root, old: str, new: str) -> None:
    root.find(f"layers/layer[@id='{old}']").set("id", new)
    for e in root.findall("edges/edge"):
        for k in ("from-layer", "to-layer"):
            if e.get(k) == old:
                e.set(k, new)


@pytest.mark.parametrize("digit", ["\u0661", "\uff11", "0_1"])
def test_layer_ids_in_other_digits_are_refused_on_both_paths(tmp_path, digit):
    """OpenVINO 2026.4.1 refuses all three at read_model (``stoll`` for ١ and １; "which is not an
    unsigned 64 bit integer" for 0_1); ``int()`` would take each of them."""
    p = _concat_ir(tmp_path, lambda r: _renumber(r, "1", digit))
    with pytest.raises(ModelFileError, match="not written in ASCII digits") as e:
        read_ir(p)
    assert e.value.layer is not None and e.value.layer.name == "Const_1"
    assert f'id="{digit}"' in e.value.message and e.value.file == str(p)


def test_port_ids_edges_and_dims_in_other_digits_are_refused(tmp_path):
    """OpenVINO: ``stoll`` for a port id / edge; "dimension (２) in node dim must be greater or
    equal to -1" for a dim."""
    def port(r):
        r.find("layers/layer[@id='2']/input/port[2]").set("id", "\uff11")
        r.findall("edges/edge")[1].set("to-port", "\uff11")
    with pytest.raises(ModelFileError, match='input port at line .* id="\uff11" is not written in ASCII'):
        read_ir(_concat_ir(tmp_path, port))
    with pytest.raises(ModelFileError, match='to-port="\u0661"'):
        read_ir(_concat_ir(tmp_path, lambda r: r.findall("edges/edge")[1].set("to-port", "\u0661")))
    with pytest.raises(ModelFileError, match='dimension "\uff12" is not an integer') as e:
        read_ir(_concat_ir(tmp_path, lambda r: setattr(r.find("layers/layer[@id='2']/output/port/dim"),
                                                       "text", "\uff12")))
    assert e.value.port == "output port 2"


def test_attributes_and_shapes_in_other_digits_are_invalid(tmp_path):
    """OpenVINO: "Cannot parse '٠' to number" (Concat axis), "Cannot parse dimension: "١""
    (Parameter shape); a plus sign and ASCII blanks stay accepted as before."""
    p = _concat_ir(tmp_path, lambda r: r.find("layers/layer[@id='2']/data").set("axis", "\u0660"))
    with pytest.raises(ShapeError, match='attribute axis="\u0660" is not a valid int'):
        irrun.read_model(p).types()
    p = _concat_ir(tmp_path, lambda r: r.find("layers/layer[@id='0']/data").set("shape", "\u0661,4"))
    with pytest.raises(ShapeError, match='attribute shape="\u0661,4"'):
        irrun.read_model(p).types()
    p = _concat_ir(tmp_path, lambda r: _renumber(r, "1", "+1"))       # OpenVINO runs this one
    assert [L.id for L in read_ir(p).graph.layers] == [0, 1, 2, 3]
