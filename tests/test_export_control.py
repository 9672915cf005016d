"""ONNX export of the sub-graph ops (If-8 -> If, Loop-5 / TensorIterator-1 -> Loop) and of the
detection ops, run in onnxruntime against OpenVINO's recorded outputs (issue 24).

The sub-graph cases are tools/fixtures/make_subgraph_fixtures.py's (OpenVINO 2026.4.1 CPU, f32):
sliced inputs of both strides, concatenated outputs (reversed for a negative stride), back
edges, current_iteration, runtime trip counts and conditions, early stops, nested bodies. The
expected values are OpenVINO's, never irrun's. Skips without onnx/onnxruntime.
"""
from __future__ import annotations

import pytest
from subgraph_cases import CASES, assert_close, load

import irrun
from irrun.errors import UnsupportedError

onnx = pytest.importorskip("onnx", reason="onnx is not installed: pip install -e '.[test]' (or irrun[onnx])")
ort = pytest.importorskip("onnxruntime", reason="onnxruntime is not installed: pip install -e '.[test]'")
ort.set_default_logger_severity(4)

#: the stateless sub-graph cases (state_* are ReadValue/Assign models, tested with the export's state ports)
SUBGRAPH_CASES = [c for c in CASES if not c.startswith("state_") and c != "loop_state_accumulate"]


def _session(path) -> "ort.InferenceSession":
    options = ort.SessionOptions()
    options.log_severity_level = 4
    return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])


@pytest.mark.parametrize("case", SUBGRAPH_CASES)
def test_subgraph_case_exports_and_matches_openvino(case, tmp_path):
    c = load(case)
    model = irrun.read_model(c.xml)
    out = irrun.export_onnx(model, tmp_path / "m.onnx")
    proto = onnx.load(out)
    onnx.checker.check_model(proto, full_check=True)
    ops = {n.op_type for n in proto.graph.node}
    assert ops & {"If", "Loop"}, f"{case}: no ONNX If/Loop in {sorted(ops)}"
    s = _session(out)
    alias = {n: spec.name for spec in model.inputs for n in spec.names}
    for r, feeds in enumerate(c.runs):
        got = s.run([o.name for o in model.outputs], {alias.get(k, k): v for k, v in feeds.items()})
        assert len(got) == len(c.expected[r])
        for j, (g, w) in enumerate(zip(got, c.expected[r])):
            assert_close(g, w, f"{case} run {r} output {j}")


def test_a_variable_inside_a_loop_body_is_refused_by_name(tmp_path):
    """ONNX has no variables; the export's state ports are graph inputs/outputs, which a Loop
    body cannot reach: the refusal names the Loop and the body's ReadValue."""
    xml = load("loop_state_accumulate").xml
    with pytest.raises(UnsupportedError) as err:
        irrun.export_onnx(xml, tmp_path / "m.onnx")
    msg = err.value.message
    assert "Loop-opset5" in msg and "body layer 1 ReadValue_3 (ReadValue-opset6)" in msg
    assert "a variable read or written inside a sub-graph body" in msg
    assert not (tmp_path / "m.onnx").exists()


def test_tensor_iterator_reverse_slicing_reads_chunks_from_the_end(tmp_path):
    """ti_reverse: stride -1 input slicing and output concatenation (OpenVINO's outputs); the
    ONNX Loop runs as many times as the sliced axis has chunks."""
    c = load("ti_reverse")
    model = irrun.read_model(c.xml)
    proto = onnx.load(irrun.export_onnx(model, tmp_path / "m.onnx"))
    (loop,) = [n for n in proto.graph.node if n.op_type == "Loop"]
    body = next(a.g for a in loop.attribute if a.name == "body")
    assert "Slice" in {n.op_type for n in body.node}
    s = _session(tmp_path / "m.onnx")
    alias = {n: spec.name for spec in model.inputs for n in spec.names}
    got = s.run([o.name for o in model.outputs], {alias.get(k, k): v for k, v in c.runs[0].items()})
    for j, w in enumerate(c.expected[0]):
        assert_close(got[j], w, f"ti_reverse output {j}")
