"""``irrun extract``: one layer as its own IR, which OpenVINO reads and computes identically.

Every layer of every fixture that runs a kernel is extracted with the inputs that reach it; the
new IR must check clean, and OpenVINO (CPU plugin at f32, in a worker process) must compute, from
``inputs.npz``, exactly what the layer produced inside the whole model, which is also what irrun
saved in ``outputs.npz``.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from helpers import needs_openvino
import irrun
from irrun import debug
from irrun.cli.main import main
from irrun.errors import InputError
from irrun.debug.extract import extract_layer
from test_fixtures import CASES, FIXTURES, assert_same, load_arrays, meta_of
SPECIAL = ("parameter", "const", "result")


def op_layers(case: str) -> list[tuple[str, int]]:
    model = irrun.read_model(FIXTURES / case / "model.xml")
    return [(case, n) for n in model.order if model.graph.nodes[n]["layer"].type.lower() not in SPECIAL]


LAYERS = [cl for case in CASES for cl in op_layers(case)]


@pytest.fixture(scope="module")
def oracle():
    from tools.ovoracle import Oracle
    with Oracle() as o:
        yield o


def npz(path: Path) -> dict[str, np.ndarray]:
    tensors, _ = debug.load_tensors(path)
    return tensors


@needs_openvino
@pytest.mark.parametrize("case,layer", LAYERS, ids=[f"{c}-{n}" for c, n in LAYERS])
def test_openvino_computes_the_extracted_layer_identically(case, layer, oracle, tmp_path):
    d = FIXTURES / case
    model = irrun.read_model(d / "model.xml")
    inputs = load_arrays(d / "inputs.npz", meta_of(case)["inputs"])
    whole = debug.trace(model, inputs).tensors()
    r = extract_layer(model, layer, tmp_path, inputs)
    xml = tmp_path / "model.xml"
    assert not [f for f in irrun.check(str(xml)) if f.severity == "error"]
    ports = [p.id for p in model.graph.nodes[layer]["layer"].outputs]
    assert list(r.outputs) == [debug.port_name(model, layer, i) for i in range(len(ports))]
    saved = npz(tmp_path / "outputs.npz")
    feeds = r.inputs
    ov = oracle.cpu(xml, feeds)
    assert ov.ok, ov.message
    got = ov.by_name()
    for i, (name, want) in enumerate(zip(r.outputs, (whole[f"{layer}:{p}"] for p in ports))):
        if want.dtype == np.float32 and got[name].dtype == np.float16:   # an f16 port, computed in f32
            want = want.astype(np.float16)   # as OpenVINO's CPU plugin does; the extracted IR's output is f16
        assert_same(got[name], want, False, f"OpenVINO, output {name}")
        assert_same(r.outputs[name], want, False, f"outputs.npz, output {name}")
        if want.dtype.kind != "T":      # on disk bf16 & co. are their bits (.npz cannot hold them)
            disk = saved[name].view(want.dtype) if want.dtype.kind == "V" else saved[name]
            assert_same(disk, want, False, f"outputs.npz on disk, output {name}")
    again = irrun.read_model(xml).run(feeds)
    for name, want in r.outputs.items():
        assert_same(again[name], want, False, f"irrun on the extracted IR, output {name}")


def test_extract_cli_writes_the_files_and_says_how_to_check(tmp_path, capsys):
    d = FIXTURES / "variadic_split_shapeof"          # lengths = Concat(Gather(ShapeOf(y)), -1): run-time
    code = main(["extract", str(d / "model.xml"), "--layer", "VariadicSplit_36", "-o", str(tmp_path),
                 "-i", str(d / "inputs.npz")])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert out.splitlines() == [
        f'wrote {tmp_path / "model.xml"} (+ .bin): layer 9 "VariadicSplit_36" (VariadicSplit-1) with 2 Parameters, 1 Const',
        f"wrote {tmp_path / 'inputs.npz'} (x: float32[2,10], Concat_34: int32[2])",
        f"wrote {tmp_path / 'outputs.npz'} (irrun's outputs: head: float32[2,4], tail: float32[2,6])",
        f"check it: irrun compare {tmp_path / 'model.xml'} --input {tmp_path / 'inputs.npz'}"]
    with np.load(tmp_path / "inputs.npz") as f:
        assert f["Concat_34"].tolist() == [4, -1]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["inputs.npz", "model.bin", "model.xml", "outputs.npz"]


def test_constant_inputs_become_consts(tmp_path):
    """f16 weights -> Convert -> Concat: the Convert is folded, so Concat's input is a Const."""
    d = FIXTURES / "f16_compressed_weights"
    model = irrun.read_model(d / "model.xml")
    concat = next(n for n in model.order if model.graph.nodes[n]["layer"].type == "Concat")
    r = extract_layer(model, concat, tmp_path)
    assert (list(r.params), r.consts, r.inputs) == (["x"], 1, None)
    types = [L.type for L in irrun.read_model(tmp_path / "model.xml").ir.graph.layers]
    assert types == ["Parameter", "Const", "Concat", "Result"]


def test_without_inputs_the_parameters_keep_inferred_shapes(tmp_path, capsys):
    d = FIXTURES / "shapeof_reshape_dynamic_batch"
    model = irrun.read_model(d / "model.xml")
    n = next(n for n in model.order if model.graph.nodes[n]["layer"].type == "Reshape")
    code = main(["extract", str(d / "model.xml"), "--layer", str(n), "-o", str(tmp_path)])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert out.splitlines()[1].startswith("no --input given, so no inputs.npz; the Parameters keep the model's")
    params = [L for L in irrun.read_model(tmp_path / "model.xml").ir.graph.layers if L.type == "Parameter"]
    assert params[0].data["shape"].startswith("?")


@pytest.mark.parametrize("layer,fragment", [
    ("0", 'layer 0 "x" (Parameter-opset1) is a Parameter; extract a layer that computes something'),
    ("Constant_181", "is a Const"),
    ("nope", 'no layer with id or name "nope"'),
])
def test_extract_refuses_what_is_not_an_op_layer(tmp_path, layer, fragment):
    model = irrun.read_model(FIXTURES / "shufflenet_block" / "model.xml")
    with pytest.raises(InputError) as e:
        extract_layer(model, layer, tmp_path)
    assert fragment in str(e.value)
