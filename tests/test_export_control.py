"""ONNX export of the sub-graph ops (If-8 -> If, Loop-5 / TensorIterator-1 -> Loop) and of the
detection ops, run in onnxruntime against OpenVINO's recorded outputs (issue 24).

The sub-graph cases are tools/fixtures/make_subgraph_fixtures.py's (OpenVINO 2026.4.1 CPU, f32):
sliced inputs of both strides, concatenated outputs (reversed for a negative stride), back
edges, current_iteration, runtime trip counts and conditions, early stops, nested bodies. The
expected values are OpenVINO's, never irrun's. Skips without onnx/onnxruntime.
"""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import numpy as np
import pytest
from helpers import _build
from subgraph_cases import CASES, assert_close, load

import irrun
from irrun.errors import UnsupportedError

sys.path.insert(0, str(Path(__file__).parent / "ops"))
from nn_cases import array, case_ids, entry, inputs_of  # noqa: E402
from nn_cases import assert_close as assert_case_close  # noqa: E402

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


# --- detection ops: OpenVINO's recorded cases (tools/expectations/make_detection_expectations.py) ----

#: run cases irrun itself refuses (OpenVINO writes uninitialised memory) or the export refuses by name
_NOT_EXPORTED = {"PriorBox1-shape-overflow", "PriorBox8-shape-overflow", "PriorBox1-shape-mxnet-max",
                 "PriorBox8-shape-mxnet-max", "PriorBox1-mxnet-param", "PriorBox8-mxnet-param",
                 "PriorBox8-mxnet-step-auto-param", "DetectionOutput1-mxnet", "DetectionOutput8-mxnet",
                 "DetectionOutput8-mxnet-top-k", "MulticlassNms-opset8-eta-unnorm", "MulticlassNms-opset9-eta-unnorm",
                 "MulticlassNms-opset9-roisnum", "ROIAlignRotated-ratio0-scale"}
#: irrun refuses what OpenVINO writes into uninitialised memory
_NOT_EXPORTED |= {"ExperimentalDetectronPriorGridGenerator-True-2-7.0"}
DETECTION_TYPES = ("PriorBox", "PriorBoxClustered", "DetectionOutput", "ROIPooling", "ReorgYolo", "RegionYolo",
                   "ExperimentalDetectronTopKROIs", "ExperimentalDetectronPriorGridGenerator", "DeformableConvolution",
                   "PSROIPooling", "MulticlassNms", "MatrixNms", "Proposal",
                   "GenerateProposals", "ExperimentalDetectronGenerateProposalsSingleImage",
                   "ExperimentalDetectronROIFeatureExtractor", "ROIAlignRotated",
                   "ExperimentalDetectronDetectionOutput")
DETECTION_CASES = [c for c in case_ids(*DETECTION_TYPES, kind="run", status="ok") if c not in _NOT_EXPORTED]
#: more max_rois than boxes: OpenVINO's CPU plugin leaves the rows after these uninitialised
_GARBAGE_TAIL = {"ExperimentalDetectronTopKROIs-8": 6}


def _export_case(case: str, tmp_path: Path):
    e = entry(case)
    ins, params = inputs_of(case)
    model, feeds = _build(tmp_path, e["type"], ins, e["attrs"], e["version"], len(e["outputs"]), params)
    out = irrun.export_onnx(model, tmp_path / "m.onnx")
    return model, feeds, out


@pytest.mark.parametrize("case", DETECTION_CASES)
def test_detection_case_exports_and_matches_openvino(case, tmp_path):
    """PriorBox(Clustered) with constant and run-time sizes (the "-param" cases: the grid is
    computed in the graph), DetectionOutput's Caffe style with ARM, unshared locations,
    unnormalised priors, ties and keep_top_k cuts, ROIPooling max and bilinear, Region/ReorgYolo,
    ExperimentalDetectron TopKROIs / PriorGridGenerator: onnxruntime gives OpenVINO's outputs."""
    model, feeds, out = _export_case(case, tmp_path)
    onnx.checker.check_model(onnx.load(out), full_check=True)
    e = entry(case)
    got = _session(out).run([o.name for o in model.outputs], feeds)
    rows = _GARBAGE_TAIL.get(case)
    for j, (g, want) in enumerate(zip(got, e["outputs"], strict=True)):
        w = array(want["array"], want["etype"], e["fixture"])
        assert_case_close(g[:rows], w[:rows], want["etype"], f"{case} output {j}")


def test_prior_box_with_run_time_sizes_keeps_the_grid_dynamic(tmp_path):
    """A "-param" case: the sizes are graph inputs, so the ONNX graph computes the grid (Range)
    rather than holding OpenVINO's boxes as a constant."""
    model, feeds, out = _export_case("PriorBoxClustered-spec-param", tmp_path)
    assert feeds, "the case feeds its sizes at run time"
    assert "Range" in {n.op_type for n in onnx.load(out).graph.node}


@pytest.mark.parametrize("case, why", [
    ("DetectionOutput8-mxnet", "decrease_label_id (MXNet: one best class per prior"),
    ("PriorBox8-mxnet-param", "scale_all_sizes=false with a run-time image size"),
    ("MulticlassNms-opset8-eta-unnorm", "nms_eta < 1 (a threshold that shrinks after each kept box)"),
    ("MulticlassNms-opset9-roisnum", "per-class boxes with roisnum"),
    ("ROIAlignRotated-ratio0-scale", "sampling_ratio=0 (as many samples as each box needs)")])
def test_detection_forms_not_written_are_refused_by_name(case, why, tmp_path):
    with pytest.raises(UnsupportedError) as err:
        _export_case(case, tmp_path)
    assert why in err.value.message and entry(case)["type"] in err.value.message
    assert not (tmp_path / "m.onnx").exists()


#: Open Model Zoo SSD detectors (PriorBox / PriorBoxClustered, most with DetectionOutput) of the public
#: corpus, when it is on this machine ($IRRUN_PUBLIC_CORPUS, tools/conformance/public_corpus.py)
_CORPUS = Path(os.environ.get("IRRUN_PUBLIC_CORPUS", "/nonexistent"))
DETECTORS = sorted(d.name for d in _CORPUS.iterdir() if (d / "expected.npz").exists() and
                   'type="PriorBox' in (d / "model.xml").read_text(errors="replace")) \
    if _CORPUS.is_dir() else []


@pytest.mark.parametrize("name", DETECTORS or [None])
def test_public_detector_exports_and_matches_openvino(name, tmp_path):
    """The corpus's own measure (tools/conformance/public_corpus.py): f32/f16 files within
    atol/rtol 1e-3 of OpenVINO's outputs, INT8 files by the INT8 measure."""
    if name is None:
        pytest.skip("the public corpus is not here: set IRRUN_PUBLIC_CORPUS")
    from tools.conformance import public_corpus
    d = _CORPUS / name
    try:
        model = irrun.read_model(d / "model.xml")
    except irrun.errors.ModelFileError as x:
        pytest.skip(f"irrun does not read it: {x.message}")     # IR v3/v4 files: OpenVINO 2026 neither
    out = irrun.export_onnx(model, tmp_path / "m.onnx")
    onnx.checker.check_model(onnx.load(out), full_check=True)
    exp = np.load(d / "expected.npz")
    off = dict(np.load(d / "expected_lpt_off.npz")) if (d / "expected_lpt_off.npz").exists() else {}
    alias = {n: spec.name for spec in model.inputs for n in spec.names}
    s = _session(out)
    got = dict(zip([o.name for o in model.outputs],
                   s.run([o.name for o in model.outputs],
                         {alias[k[3:]]: exp[k] for k in exp.files if k.startswith("in:")})))
    meta = json.loads((d / "openvino.json").read_text(encoding="utf-8"))
    outputs = {}
    for o in meta["outputs"]:
        spec = next(p for p in model.outputs if o["any_name"] in p.names)
        outputs[o["any_name"]] = (got[spec.name], exp["out:" + o["any_name"]], off.get("out:" + o["any_name"]))
    if "FakeQuantize" in (d / "model.xml").read_text(errors="replace"):
        assert public_corpus.int8_verdict(outputs) is None
    else:
        for o, (g, want, _) in outputs.items():
            assert public_corpus.within_tolerance(g, want) is None, o
