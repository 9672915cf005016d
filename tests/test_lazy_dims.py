"""Declared port dims parsed on first use (irrun/ir/declared_ports.py): the same dims as the file says,
the same errors as an eager reader, from every command."""
from __future__ import annotations

import gc
import weakref
from pathlib import Path

import pytest
from lxml import etree

import irrun
from irrun.cli.main import main
from irrun.errors import ModelFileError
from irrun.ir.reader import read_ir

FIXTURES = Path(__file__).parent / "fixtures"
SAMPLES = Path(__file__).parents[1] / "samples"
MODELS = [SAMPLES / "shufflenet_block" / "model.xml", FIXTURES / "subgraphs" / "torch_loop_if" / "model.xml",
          FIXTURES / "subgraphs" / "ti_forward" / "model.xml", FIXTURES / "ir_v10" / "model.xml"]


def _file_dims(elem) -> list:
    """Every port's dims straight from the XML, in document order of layers (bodies after
    their layer's ports, as they come in the file)."""
    out = []
    for le in elem.find("layers").iterchildren("layer"):
        for tag in ("input", "output"):
            sec = le.find(tag)
            for pe in sec.iterchildren("port") if sec is not None else ():
                out.append(tuple(int(d.text) for d in pe.iterchildren("dim")))
        for tag in ("body", "then_body", "else_body"):
            if le.find(tag) is not None:
                out += _file_dims(le.find(tag))
    return out


def _ir_dims(graph) -> list:
    out = []
    for layer in graph.layers:
        out += [p.dims for p in layer.inputs + layer.outputs]
        for body in layer.bodies.values():
            out += _ir_dims(body)
    return out


@pytest.mark.parametrize("path", MODELS, ids=lambda p: p.parent.name)
def test_lazy_dims_are_the_files_dims(path):
    ir = read_ir(path)
    ports = [p for layer in ir.graph.layers for p in layer.inputs + layer.outputs]
    assert ports and all(p._dims is None for p in ports)          # not parsed when read
    assert _ir_dims(ir.graph) == _file_dims(etree.parse(str(path)).getroot())


def _edit(path: Path, tmp_path: Path, old: bytes, new: bytes) -> Path:
    data = path.read_bytes()
    assert old in data
    tmp_path.mkdir(exist_ok=True)
    out = tmp_path / "model.xml"
    out.write_bytes(data.replace(old, new, 1))
    bin_ = path.with_suffix(".bin")
    if bin_.exists():
        out.with_suffix(".bin").write_bytes(bin_.read_bytes())
    return out


SHUFFLE = SAMPLES / "shufflenet_block" / "model.xml"


@pytest.mark.parametrize("text,lazy", [(b"+8", False), (b"8<!-- a comment -->", False), (b"&#56;", False),
                                       (b"\n 008 ", True)])
def test_unusual_but_valid_dims(tmp_path, text, lazy):
    """What the regular-expression scan does not call plain goes the eager way; either way a
    dim reads as the integer it is."""
    p = _edit(SHUFFLE, tmp_path, b"<dim>8</dim>", b"<dim>" + text + b"</dim>")
    ir = read_ir(p)
    ports = [port for layer in ir.graph.layers for port in layer.inputs + layer.outputs]
    assert all((port._dims is None) == lazy for port in ports)
    assert _ir_dims(ir.graph) == _file_dims(etree.parse(str(SHUFFLE)).getroot())


BAD = [(b"<dim>-5</dim>", "dimension -5 must be >= -1"), (b"<dim>x</dim>", 'dimension "x" is not an integer'),
       (b"<dim/>", 'dimension "None" is not an integer'), (b"<dim>1.5</dim>", 'dimension "1.5" is not an integer')]


@pytest.mark.parametrize("text,message", BAD)
def test_a_bad_dim_fails_reading_with_file_layer_and_port(tmp_path, text, message):
    p = _edit(SHUFFLE, tmp_path, b"<dim>8</dim>", text)
    with pytest.raises(ModelFileError) as e:
        irrun.read_model(p)
    assert message in str(e.value) and e.value.layer is not None and e.value.port
    assert str(p) in str(e.value)


def test_a_bad_dim_in_a_body_names_the_body_layer(tmp_path):
    path = FIXTURES / "subgraphs" / "ti_forward" / "model.xml"
    body = path.read_bytes().index(b"<body>")
    data = path.read_bytes()
    at = data.index(b"<dim>", body)
    end = data.index(b"</dim>", at)
    p = tmp_path / "model.xml"
    p.write_bytes(data[:at] + b"<dim>-7" + data[end:])
    with pytest.raises(ModelFileError) as e:
        irrun.read_model(p)
    assert "dimension -7 must be >= -1" in str(e.value) and e.value.layer.path


@pytest.mark.parametrize("command", [["check"], ["info"], ["run"], []])
@pytest.mark.parametrize("text,message", BAD[:2])
def test_every_command_reports_a_bad_dim_cleanly(tmp_path, capsys, command, text, message):
    p = _edit(SHUFFLE, tmp_path, b"<dim>8</dim>", text)
    code = main([*command, str(p)])
    out, err = capsys.readouterr()
    assert code == 2, (out, err)
    assert message in err and "Traceback" not in err + out
    assert "port" in err and "layer" in err


def test_check_still_reports_declared_dims(tmp_path, capsys):
    """A wrong declared dim (a valid integer) is only seen through the lazy path: check finds it."""
    p = _edit(SHUFFLE, tmp_path, b"<dim>8</dim>", b"<dim>7</dim>")
    code = main(["check", str(p)])
    out, _ = capsys.readouterr()
    assert code == 1 and "7" in out


def test_lazy_dims_make_no_reference_cycle():
    """The records read are freed at once (the mapped .bin with them), not at the next
    collection: the ports' lazy dims do not point back at them."""
    was = gc.isenabled()
    gc.disable()
    try:
        ir = read_ir(SHUFFLE)
        assert ir.graph.layers[0].outputs[0]._lazy is not None
        ref = weakref.ref(ir)
        del ir
        assert ref() is None
    finally:
        if was:
            gc.enable()


def test_reshape_keeps_new_dims_and_reads_the_others(tmp_path):
    m = irrun.read_model(SHUFFLE)                     # input x: ?,8,4,4
    m.reshape({"x": [2, 8, 4, 4]})
    first = m.dag.nodes[m.order[0]]["layer"]
    assert first.outputs[0].dims[0] == 2
    out = m.save(tmp_path / "r.xml")
    again = read_ir(out)
    assert again.graph.layers[first.position].outputs[0].dims[0] == 2


def test_a_lazy_port_pickles_and_copies_with_its_dims():
    import copy
    import pickle
    port = read_ir(SHUFFLE).graph.layers[0].outputs[0]
    assert port._dims is None
    for other in (pickle.loads(pickle.dumps(port)), copy.deepcopy(port)):
        assert other.dims == (-1, 8, 4, 4) and other.names == port.names and other == port


ALL = sorted({*Path(__file__).parent.glob("fixtures/**/*.xml"), *SAMPLES.glob("**/*.xml")})


def test_check_finds_the_same_with_lazy_and_eager_dims(monkeypatch, tmp_path):
    """``irrun check`` on every fixture and on files with stale declared dims: the findings
    with dims parsed on first use are those of a reader that parses them eagerly."""
    from irrun.ir import reader
    from irrun import check as check_model
    stale = [_edit(SHUFFLE, tmp_path / "a", b"<dim>8</dim>", b"<dim>7</dim>"),
             _edit(SHUFFLE, tmp_path / "b", b"<dim>4</dim>\n\t\t\t\t\t<dim>4</dim>", b"<dim>4</dim>"),
             _edit(FIXTURES / "subgraphs" / "ti_forward" / "model.xml", tmp_path / "c", b"<dim>", b"<dim>5</dim><dim>")]

    def findings(path):
        try:
            return [vars(f) for f in check_model(path)]
        except Exception as e:                      # noqa: BLE001 - compared, not judged
            return [type(e).__name__, str(e)]
    lazy = {p: findings(p) for p in ALL + stale}
    monkeypatch.setattr(reader, "all_plain", lambda data, enc: False)    # no fast path, no laziness
    assert read_ir(SHUFFLE).graph.layers[0].outputs[0]._dims is not None
    eager = {p: findings(p) for p in ALL + stale}
    assert lazy == eager
    assert sum(any(f["code"] in ("dims", "rank", "input-dims") for f in fs if isinstance(f, dict))
               for fs in lazy.values()) >= 3           # the stale declarations were found
