"""TensorIterator-1, Loop-5 and If-8: bodies run and shape-inferred by irrun, against OpenVINO.

Expected values come from OpenVINO's CPU plugin (tools/fixtures/make_subgraph_fixtures.py, replayed by
subgraph_cases.py); expected partial shapes from its ``read_model`` — irrun's must lie inside
them, and where irrun knows more (a constant trip count, an interval) the literal shape follows
from the rules in irrun/ops/_subgraph_op.py. The graphs OpenVINO loads but runs differently from the
spec are made by editing those fixtures; what OpenVINO does on them is in the generator's
docstring (``--probe``).
"""
from __future__ import annotations

import re

import numpy as np
import pytest
from helpers import ALL_DTYPES, sample
from lxml import etree
from subgraph_cases import CASES, copy_case, load, replay, within

import irrun
from irrun.types import elements
from irrun.analysis.check import LOADS_BUT_FAILS
from irrun import check as check_model
from irrun.errors import ShapeError, UnsupportedError
from irrun.analysis.graph import inputs_of

SUBGRAPH_CASES = [c for c in CASES if not c.startswith("state_")]


@pytest.mark.parametrize("case", SUBGRAPH_CASES)
def test_matches_openvino(case):
    replay(case)


@pytest.mark.parametrize("case", CASES)
def test_output_shapes_lie_within_openvinos(case):
    c = load(case)
    outs = irrun.read_model(c.xml).outputs
    for o, ov in zip(outs, c.meta["ov_shapes"], strict=True):
        assert within(o.shape, ov), f"{o.name}: irrun {o.shape}, OpenVINO {ov}"


#: where irrun's rules give more than read_model: (case, output index) -> shape
TIGHTER = {
    ("loop_early_stop", 1): "[1..10,2,3]",   # trip 10, first condition true: 1 to 10 iterations
    ("loop_while", 1): "[1..,2,3]",          # trip -1, first condition true: at least one
    ("loop_growing", 0): "[2..]",            # [1] grows: the Parameter widens to [1..], +1
    ("loop_runtime_trip_and_condition", 1): "[?,2,3]",
    ("loop_fixed", 1): "[4,2,3]",            # trip 4, both conditions constant true
    ("if_branch_shapes", 0): "[2..4,3]",     # the hull of [2,3] and [4,3]
    ("ti_partial_end", 1): "[2,4,3]",        # end=-2 on 5: dim + 1 + end = 4 iterations
}


@pytest.mark.parametrize("key", sorted(TIGHTER), ids=lambda k: f"{k[0]}-{k[1]}")
def test_inferred_shape(key):
    case, j = key
    assert str(irrun.read_model(load(case).xml).outputs[j].shape) == TIGHTER[key]


@pytest.mark.parametrize("case,shapes,want", [
    ("ti_dynamic", {"X": "2,7,3", "H": "2,3"}, ["[2,3]", "[2,7,3]"]),
    ("ti_dynamic", {"X": "2,4..6,3", "H": "?,3"}, ["[2,3]", "[2,4..6,3]"]),   # back edge: H meets [2,3]
    ("ti_dynamic", {"X": "...", "H": "..."}, ["[...]", "[...]"]),
    ("loop_dynamic_batch", {"X": "1..8,3"}, ["[1..8,3]", "[2,1..8,3]"]),
    ("if_dynamic", {"X": "5,3", "Y": "5,3"}, ["[5,3]"]),
    ("if_dynamic", {"X": "5,3", "Y": "?,3"}, ["[5,3]"]),
])
def test_new_input_shapes_flow_through_bodies(case, shapes, want):
    model = irrun.read_model(load(case).xml)
    types = model.infer_shapes(shapes)
    got = [str(types[_producer(model, o.node)].shape) for o in model.outputs]
    assert got == want


def _producer(model, result_node):
    (src,) = inputs_of(model.graph, result_node)
    return src


# --- every element type goes through a body; identities stay views ---------------------------

def _port(et, dims):
    """A port template; ``{}`` is filled with the port id."""
    return f'<port id="{{}}" precision="{et.precision}">' + "".join(f"<dim>{d}</dim>" for d in dims) + "</port>"


def _layer(lid, name, type_, data, ins=(), outs=()):
    d = " ".join(f'{k}="{v}"' for k, v in data.items())
    i = "".join(p.format(k) for k, p in enumerate(ins))
    o = "".join(p.format(len(ins) + k) for k, p in enumerate(outs))
    return (f'<layer id="{lid}" name="{name}" type="{type_}" version="opset1">'
            + (f"<data {d}/>" if d else "") + (f"<input>{i}</input>" if ins else "")
            + (f"<output>{o}</output>" if outs else "") + "</layer>")


def _param(lid, name, et, dims):
    return _layer(lid, name, "Parameter", {"shape": ",".join(map(str, dims)), "element_type": et.name},
                  outs=[_port(et, dims)])


def _edges(*edges):
    """(from layer, from port id, to layer, to port id)..."""
    return "".join(f'<edge from-layer="{a}" from-port="{b}" to-layer="{c}" to-port="{d}"/>'
                   for a, b, c, d in edges)


def _graph(layers, edges):
    return f"<layers>{layers}</layers><edges>{edges}</edges>"


def _identity_body(et, dims):
    return _graph(_param(0, "p", et, dims) + _layer(1, "r", "Result", {}, [_port(et, dims)]),
                  _edges((0, 0, 1, 0)))


def _model(tmp_path, et, layers, edges) -> irrun.Model:
    p = tmp_path / f"m_{et.name}.xml"
    p.write_text(f'<?xml version="1.0"?><net name="m" version="11">{_graph(layers, edges)}</net>')
    return irrun.read_model(p)


def _if_identity(tmp_path, et, else_convert=None):
    """y = If(c, x) with identity bodies (``else_convert``: the else-body converts)."""
    x, b = _port(et, [2, 3]), _port(elements.TYPES["boolean"], [])
    body = els = _identity_body(et, [2, 3])
    if else_convert:
        y = _port(elements.TYPES[else_convert], [2, 3])
        els = _graph(_param(0, "p", et, [2, 3]) + _layer(1, "r", "Result", {}, [y])
                     + _layer(2, "cvt", "Convert", {"destination_type": else_convert}, [x], [y]),
                     _edges((0, 0, 2, 0), (2, 1, 1, 0)))
    pm = '<input external_port_id="1" internal_layer_id="0"/><output external_port_id="2" internal_layer_id="1"/>'
    iff = (f'<layer id="2" name="if" type="If" version="opset8"><then_port_map>{pm}</then_port_map>'
           f'<else_port_map>{pm}</else_port_map><input>{b.format(0)}{x.format(1)}</input>'
           f'<output>{x.format(2)}</output><then_body>{body}</then_body><else_body>{els}</else_body></layer>')
    layers = _param(0, "c", elements.TYPES["boolean"], []) + _param(1, "x", et, [2, 3]) + iff \
        + _layer(3, "y", "Result", {}, [x])
    return _model(tmp_path, et, layers, _edges((0, 0, 2, 0), (1, 0, 2, 1), (2, 2, 3, 0)))


def _ti_identity(tmp_path, et, reverse):
    """y = TensorIterator slicing x [4,3] into rows (backwards with ``reverse``), concatenating."""
    x = _port(et, [4, 3])
    s = 'start="-1" end="0" stride="-1"' if reverse else 'start="0" end="-1" stride="1"'
    ti = (f'<layer id="1" name="ti" type="TensorIterator" version="opset1"><port_map>'
          f'<input external_port_id="0" internal_layer_id="0" axis="0" {s}/>'
          f'<output external_port_id="1" internal_layer_id="1" axis="0" start="0" end="-1" stride="1"/>'
          f'</port_map><input>{x.format(0)}</input><output>{x.format(1)}</output>'
          f'<body>{_identity_body(et, [1, 3])}</body></layer>')
    layers = _param(0, "x", et, [4, 3]) + ti + _layer(2, "y", "Result", {}, [x])
    return _model(tmp_path, et, layers, _edges((0, 0, 1, 0), (1, 1, 2, 0)))


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=lambda d: np.dtype(d).name)
def test_every_element_type_passes_through_bodies(tmp_path, dtype):
    et = elements.from_dtype(np.dtype(dtype))
    x = sample((2, 3), dtype)
    m = _if_identity(tmp_path, et)
    for c in (True, False):
        y, = m.run({"c": np.bool_(c), "x": x}).values()
        assert y.dtype == x.dtype and np.shares_memory(y, x)       # the body returns the same array
        np.testing.assert_array_equal(y, x)
    x4 = sample((4, 3), dtype)
    y, = _ti_identity(tmp_path, et, False).run(x4).values()
    np.testing.assert_array_equal(y, x4)
    y, = _ti_identity(tmp_path, et, True).run(x4).values()
    np.testing.assert_array_equal(y, x4[::-1])                      # sliced backwards, concatenated forwards


# --- graphs OpenVINO loads but cannot run as specified -------------------------------------------

def _edit(xml, fn):
    root = etree.parse(str(xml)).getroot()
    fn(root)
    xml.write_bytes(etree.tostring(root, xml_declaration=True, encoding="UTF-8"))
    return xml


def _set_trip(xml, value: int):
    b = bytearray(xml.with_suffix(".bin").read_bytes())     # the trip count Const is at offset 0
    b[0:8] = np.int64(value).tobytes()
    xml.with_suffix(".bin").write_bytes(bytes(b))
    return xml


def _loads_but_fails(xml, layer_id: str, fragment: str):
    fs = [f for f in check_model(xml) if f.severity != "warning"]
    assert [(f.code, f.layer_id) for f in fs] == [("loads-but-fails", layer_id)], fs
    assert fs[0].message.startswith(LOADS_BUT_FAILS) and fragment in fs[0].message
    with pytest.raises(ShapeError, match=re.escape(fragment)) as e:
        irrun.read_model(xml).types()
    assert e.value.openvino_loads


@pytest.mark.parametrize("attrs,fragment", [
    ({"start": "1"}, "reads a different range than the spec says"),      # CPU: reads 0..3
    ({"end": "3"}, "reads a different range than the spec says"),        # CPU: 3 vs 4 iterations
    ({"stride": "2"}, "part_size=1 differs from |stride|=2"),
    ({"stride": "2", "part_size": "2"}, "length (5) is not divisible by step (2)"),
    ({"stride": "0"}, 'invalid "stride" value 0'),
])
def test_tensor_iterator_slicing_openvino_runs_wrongly(tmp_path, attrs, fragment):
    xml = _edit(copy_case("ti_forward", tmp_path),
                lambda r: [r.find("layers/layer[@id='3']/port_map/input[@axis]").set(k, v) for k, v in attrs.items()])
    _loads_but_fails(xml, "3", fragment)


def test_loop_scan_chunk_must_be_one_element_on_the_axis(tmp_path):
    xml = _edit(copy_case("loop_fixed", tmp_path),
                lambda r: r.find("layers/layer[@id='3']/port_map/output[@axis]").set("axis", "1"))
    _loads_but_fails(xml, "3", "1 is expected, but actual: 2")


def test_loop_past_its_sliced_input(tmp_path):
    _loads_but_fails(_set_trip(copy_case("loop_sliced", tmp_path), 10), "4",
                     "runs at least 10 iterations but input 2 has 5 parts")


def test_never_ending_loop(tmp_path):
    _loads_but_fails(_set_trip(copy_case("loop_fixed", tmp_path), -1), "3", "the Loop never ends")


def test_loop_zero_iterations():
    m = irrun.read_model(load("loop_runtime_trip_and_condition").xml)
    x = np.ones((2, 3), np.float32)
    for t, c in ((0, True), (4, False)):
        last, scan = m.run({"X": x, "T": np.int64(t), "C": np.bool_(c)}).values()
        np.testing.assert_array_equal(last, x)            # the initial value of the back edge
        assert scan.shape == (0, 2, 3) and scan.dtype == np.float32


# --- findings and errors inside bodies are named with their path ---------------------------------

def test_findings_inside_a_body(tmp_path):
    def edit(root):
        body = root.find("layers/layer[@id='3']/body")
        body.find("layers/layer[@id='7']/output/port/dim").text = "5"      # Tanh declares [5,3]
    fs = check_model(_edit(copy_case("ti_forward", tmp_path), edit))
    assert [(f.severity, f.code, f.layer_id, f.port, f.declared, f.inferred) for f in fs] == [
        ("error", "dims", "3/7", "out 1", "[5,3]", "[2,3]")]


def test_unsupported_op_in_a_body(tmp_path):
    def edit(root):
        layer = root.find("layers/layer[@id='3']/body/layers/layer[@id='7']")
        layer.set("type", "Frobnicate")
        layer.set("version", "my_extension")
    xml = _edit(copy_case("ti_forward", tmp_path), edit)
    fs = check_model(xml)
    assert [(f.severity, f.code, f.layer_id) for f in fs] == [("unchecked", "unsupported", "3/7")]
    with pytest.raises(UnsupportedError, match=r'layer 3/7 "Tanh_11" \(Frobnicate'):
        irrun.read_model(xml).run(load("ti_forward").runs[0])


def test_shape_error_in_a_nested_body(tmp_path):
    """The Loop inside the If's then-body adds [2,3] to a Const that no longer broadcasts."""
    def edit(root):
        loop_body = root.find("layers/layer[@id='2']/then_body/layers/layer[@id='3']/body")
        add = loop_body.find("layers/layer[@id='3']")                     # bx + 1
        add.find("data").set("auto_broadcast", "none")
    xml = _edit(copy_case("loop_in_if", tmp_path), edit)
    fs = [f for f in check_model(xml) if f.severity == "error"]
    assert [(f.code, f.layer_id) for f in fs] == [("shape-rule", "2/3/3")]
    with pytest.raises(ShapeError, match=r"layer 2/3/3 "):
        irrun.read_model(xml).types()


def test_if_branches_must_agree_on_element_types(tmp_path):
    f32 = elements.TYPES["f32"]
    m = _if_identity(tmp_path, f32, else_convert="f16")
    with pytest.raises(ShapeError, match="type of then_body output is not equal type of else_body "
                                         r"output \(output 0: f32 and f16\)"):
        m.types()


def test_a_body_parameter_declared_with_another_type_is_rejected(tmp_path):
    """OpenVINO validates a body as written: a then-body Parameter declared f16 where f32 flows
    in makes its Multiply by an f32 Const invalid, and read_model fails (measured, 2026.4)."""
    def edit(root):
        p = root.find("layers/layer[@id='3']/then_body/layers/layer[@id='0']")
        p.find("data").set("element_type", "f16")
        p.find("output/port").set("precision", "FP16")
    xml = _edit(copy_case("if_runtime", tmp_path), edit)
    with pytest.raises(ShapeError, match=r'layer 3/2 "Multiply_\d+".*with the body.s Parameters '
                                         r"as declared.*same element type"):
        irrun.read_model(xml).run(load("if_runtime").runs[0])
    assert ("shape-rule", "3/2") in [(f.code, f.layer_id) for f in check_model(xml)]


def test_a_body_parameter_takes_its_inputs_shape(tmp_path):
    """A declared shape the body accepts is replaced by the input's, as in OpenVINO (it runs
    the If on [2,3] although tx says [3,3])."""
    def edit(root):
        root.find("layers/layer[@id='3']/then_body/layers/layer[@id='0']/data").set("shape", "3,3")
    xml = _edit(copy_case("if_runtime", tmp_path), edit)
    c = load("if_runtime")
    y, = irrun.read_model(xml).run(c.runs[0]).values()
    np.testing.assert_allclose(y, c.expected[0][0], rtol=1e-4, atol=1e-5)
    assert check_model(xml) == []      # OpenVINO reads and runs it too


@pytest.mark.parametrize("etype, dims, fragment", [
    ("f16", "2,3", "element type"), ("i32", "2,3", "element type"), ("f32", "2,4", "MatMul"),
])
def test_tensor_iterator_body_parameter_must_validate_as_declared(tmp_path, etype, dims, fragment):
    """The back-edge Parameter bh of ti_forward redeclared: OpenVINO's read_model fails in the
    body's MatMul for each of these (measured, 2026.4)."""
    def edit(root):
        d = root.find("layers/layer[@id='3']/body/layers/layer[@id='1']/data")
        d.set("element_type", etype)
        d.set("shape", dims)
    xml = _edit(copy_case("ti_forward", tmp_path), edit)
    with pytest.raises(ShapeError, match=f"layer 3/.*with the body's Parameters as declared.*{fragment}"):
        irrun.read_model(xml).types()
