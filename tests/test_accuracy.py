"""Which layer loses the accuracy (irrun.debug.accuracy): ground truth by construction.

Fixtures: tests/fixtures/accuracy/, built by tools/fixtures/make_accuracy_fixtures.py with OpenVINO and
NNCF (fp32 weights uncompressed, so one weight Const feeds one MatMul).
"""
from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import irrun
from irrun.debug.accuracy.attribute import compare_models
from irrun.cli.accuracy import run_model
from irrun.debug.accuracy.metrics import ErrorStats
from irrun.debug.accuracy.report import write_file
from irrun.cli.main import main as cli
from irrun.errors import OutputError
from irrun.analysis.graph import inputs_of

FIX = Path(__file__).parent / "fixtures" / "accuracy"
WEIGHT_MATMULS = {"attn/q_proj/MatMul", "attn/k_proj/MatMul", "attn/v_proj/MatMul",
                  "attn/o_proj/MatMul", "mlp/up_proj/MatMul", "mlp/down_proj/MatMul"}


def feeds(name: str) -> dict:
    with np.load(FIX / name / "inputs.npz") as z:
        return {k: z[k] for k in z.files}


def compare(cand: str | Path, ref: str | Path, inputs: dict, precision=None):
    c, r = irrun.read_model(cand), irrun.read_model(ref)
    same = Path(cand).resolve() == Path(ref).resolve()
    return compare_models(c, r, [(inputs, inputs)], precision, same_model=same)


def weight_consts(model) -> list[tuple[int, str]]:
    """(Const id, MatMul name) for each Const that feeds only one MatMul's weight input."""
    g = model.graph
    out = []
    for n in g:
        layer = g.nodes[n]["layer"]
        if layer.type == "MatMul":
            (u, _) = inputs_of(g, n)[1]
            if g.nodes[u]["layer"].type == "Const" and g.out_degree(u) == 1:
                out.append((u, layer.name))
    return out


def test_metrics_by_hand():
    s = ErrorStats()
    s.add(np.float32([1, 2, 2]), np.float32([1, 2, 3]))          # error 1, ||ref|| = sqrt(14)
    assert s.rel_l2 == pytest.approx(1 / np.sqrt(14))
    assert s.snr_db == pytest.approx(20 * np.log10(np.sqrt(14)))
    assert s.cosine == pytest.approx(11 / np.sqrt(9 * 14))          # 1+4+6 over |c| |r|
    assert s.max_abs == 1
    s.add(np.float32([np.inf]), np.float32([1.0]))
    assert s.nonfinite == 1 and s.rel_l2 == np.inf and s.max_error == np.inf


def perturbed_copy(model: str, pick: int, seed: int, d: Path) -> str:
    """A copy of fixture ``model`` in ``d`` with one MatMul's f32 weights perturbed by 2% noise:
    the name of that MatMul (every other layer computes exactly what the original does)."""
    src = FIX / model
    m = irrun.read_model(src / "model.xml")
    consts = weight_consts(m)
    const_id, victim = consts[pick % len(consts)]
    data = m.graph.nodes[const_id]["layer"].data
    offset, size = int(data["offset"]), int(data["size"])
    assert data["element_type"] == "f32"
    shutil.copy(src / "model.xml", d / "model.xml")
    blob = bytearray((src / "model.bin").read_bytes())
    w = np.frombuffer(bytes(blob[offset:offset + size]), np.float32)
    noise = np.random.default_rng(seed).normal(0, 0.02, w.shape).astype(np.float32)
    blob[offset:offset + size] = (w * (1 + noise)).astype(np.float32).tobytes()
    (d / "model.bin").write_bytes(bytes(blob))
    return victim


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(model=st.sampled_from(["mlp", "block"]), pick=st.integers(0, 10), seed=st.integers(0, 2**16))
def test_degraded_layer_ranks_first(model, pick, seed):
    """A copy of an fp32 model with one MatMul's weights perturbed by 2% noise: that MatMul adds
    the most error, whatever comes after it inherits."""
    with tempfile.TemporaryDirectory() as d:
        victim = perturbed_copy(model, pick, seed, Path(d))
        res = compare(Path(d) / "model.xml", FIX / model / "model.xml", feeds(model))
    ranked = res.ranking()
    assert ranked[0].name == victim
    assert ranked[0].added_worst.rel_l2 > 0
    assert all(le.added_worst.rel_l2 == 0 for le in ranked[1:])     # identical kernels, inputs


@pytest.mark.parametrize("compressed", ["block_int8", "block_int4"])
def test_nncf_compressed_matches_through_decompression(compressed):
    res = compare(FIX / compressed / "model.xml", FIX / "block" / "model.xml", feeds("block"))
    assert len(res.layers) == res.activation_layers == 18            # every layer with activations
    ranked = res.ranking()
    assert {le.name for le in ranked[:6]} == WEIGHT_MATMULS
    assert all(le.added_worst.rel_l2 > 0 for le in ranked[:6])
    assert all(le.added_worst.rel_l2 == 0 for le in ranked[6:])
    q = res.layers[next(n for n, le in res.layers.items() if le.name == "attn/q_proj/MatMul")]
    assert res.inherited(q).rel_l2 == 0                               # reads the model input
    assert 0 < res.outputs["mlp/residual/Add"].rel_l2 < 0.5


def test_f16_overflow_named_first():
    xml = FIX / "overflow" / "model.xml"
    res = compare(xml, xml, feeds("overflow"), "f16")
    assert res.first_nonfinite is not None and res.first_nonfinite.name == "big/Multiply"
    assert res.ranking()[0].name == "big/Multiply"
    assert res.first_nonfinite.inputs[0][2] > 65504 / 3000            # its input range, finite
    assert compare(xml, xml, feeds("overflow"), "bf16").first_nonfinite is None


def test_find_nonfinite_log0():
    model = irrun.read_model(FIX / "log0" / "model.xml")
    outputs, finding = run_model(model, feeds("log0"), None, True)
    assert finding.name == "Log"
    assert [ix for ix, _ in finding.positions] == [(0, 1), (0, 4)]
    assert all(v == -np.inf for _, v in finding.positions)
    assert finding.inputs[0][2:4] == (0.0, 4.0)
    assert np.isneginf(outputs["Add"][0, 1])


def test_bf16_simulation_against_openvino():
    """OpenVINO CPU at INFERENCE_PRECISION_HINT=bf16 (fixture) vs the simulation: both lose about
    the same to f32 and agree with each other to within that loss (OpenVINO fuses and also rounds
    the f32 weights, so the two are not bit-equal: tolerance = the bf16 error itself)."""
    ov_out = np.load(FIX / "block" / "bf16_openvino.npz")["y"]     # recorded on a bf16 CPU
    model = irrun.read_model(FIX / "block" / "model.xml")
    f32 = model.run(feeds("block"))["mlp/residual/Add"]
    sim, _ = run_model(model, feeds("block"), "bf16", False)
    rel = lambda a, b: np.linalg.norm(a - b) / np.linalg.norm(b)      # noqa: E731
    e_ov, e_sim = rel(ov_out, f32), rel(sim["mlp/residual/Add"], f32)
    assert 0 < e_sim and 1 / 4 < e_sim / e_ov < 4
    assert rel(sim["mlp/residual/Add"], ov_out) < 2 * e_ov


def test_cli_json_ignored_scope_and_plot(tmp_path, capsys):
    scope, plot = tmp_path / "scope.json", tmp_path / "err.png"
    args = ["compare", str(FIX / "block_int4" / "model.xml"), "--reference", str(FIX / "block" / "model.xml"),
            "-i", str(FIX / "block" / "inputs.npz"), "--json", "--top", "3", "--ignored-scope", str(scope)]
    try:
        import matplotlib  # noqa: F401
        args += ["--plot", str(plot)]
    except ImportError:
        plot = None
    assert cli(args) == 0
    doc = json.loads(capsys.readouterr().out)
    ranked = sorted((x for x in doc["layers"] if x["rank"]), key=lambda x: x["rank"])
    names = json.loads(scope.read_text())["names"]
    assert names == [x["reference_name"] for x in ranked[:3]] and set(names) <= WEIGHT_MATMULS
    if plot is not None:
        assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_cli_text_and_exit_codes(capsys):
    xml = str(FIX / "overflow" / "model.xml")
    assert cli(["compare", xml, "--precision", "f16", "-i", str(FIX / "overflow" / "inputs.npz")]) == 1
    out = capsys.readouterr().out
    assert 'layer 4 "big/Multiply"' in out and "first layer making an overflow" in out
    assert cli(["compare", xml, "--reference", xml, "-i", str(FIX / "overflow" / "inputs.npz")]) == 2
    assert cli([str(FIX / "log0" / "model.xml"), "-i", str(FIX / "log0" / "inputs.npz"),
                "--find-nonfinite"]) == 1


def test_write_file_refuses_symlinks_and_inputs(tmp_path):
    target = tmp_path / "real.json"
    link = tmp_path / "link.json"
    link.symlink_to(target)
    with pytest.raises(OutputError, match="symbolic link"):
        write_file(link, b"x")
    assert not target.exists()
    keep = tmp_path / "model.xml"
    keep.write_text("<net/>")
    with pytest.raises(OutputError, match="the model or an input"):
        write_file(keep, b"x", protect=(str(keep),))
    write_file(tmp_path / "ok.json", b"{}")
    assert (tmp_path / "ok.json").read_bytes() == b"{}" and len(os.listdir(tmp_path)) == 3


def test_cli_report_escapes_layer_names(tmp_path, capsys):
    """A layer name holding a newline or a C1 CSI (both legal in XML 1.0) must not forge report
    lines or reach the terminal raw: the ranking and the overflow finding show them escaped."""
    for f in ("model.bin", "inputs.npz"):
        shutil.copy(FIX / "overflow" / f, tmp_path / f)
    xml = (FIX / "overflow" / "model.xml").read_text()
    assert 'name="big/Multiply"' in xml
    (tmp_path / "model.xml").write_text(xml.replace('name="big/Multiply"', 'name="big&#155;31m&#10;forged"'))
    assert cli(["compare", str(tmp_path / "model.xml"), "--precision", "f16",
                "-i", str(tmp_path / "inputs.npz")]) == 1
    out = capsys.readouterr().out
    assert "\x9b" not in out and not any(line.startswith("forged") for line in out.splitlines())
    assert 'layer 4 "big\\x9b31m\\nforged" (Multiply-1)' in out
    assert any(line.split()[:3] == ["1", "4", "big\\x9b31m\\nforged"] for line in out.splitlines())


@pytest.mark.parametrize("option", ["--ignored-scope", "--plot", "--graph"])
def test_cli_output_files_refused_before_running(tmp_path, capsys, option):
    """Each file compare writes is checked before the run: never over either model's .xml or
    .bin (the weights!) or an input, and a wrong suffix fails at once, not after the report."""
    for f in ("model.xml", "model.bin", "inputs.npz"):
        shutil.copy(FIX / "mlp" / f, tmp_path / f)
    weights = (tmp_path / "model.bin").read_bytes()
    base = ["compare", str(tmp_path / "model.xml"), "--precision", "f16", "-i", str(tmp_path / "inputs.npz")]
    for victim in ("model.bin", "inputs.npz"):
        assert cli(base + [option, str(tmp_path / victim)]) == 2
        out, err = capsys.readouterr()
        assert out == "" and victim in err
    assert (tmp_path / "model.bin").read_bytes() == weights
    ref_bin = FIX / "block" / "model.bin"          # the reference's weights, beside its .xml
    assert cli(["compare", str(FIX / "block_int8" / "model.xml"), "-r", str(FIX / "block" / "model.xml"),
                "-i", str(FIX / "block" / "inputs.npz"), option, str(ref_bin)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and str(ref_bin) in err
    assert "must end in" in err       # a .bin is not what any of them writes (issue 27 class 3)
    if option == "--plot":
        assert cli(base + [option, str(tmp_path / "err.jpg")]) == 2
        out, err = capsys.readouterr()
        assert out == "" and ".png or .svg" in err


@pytest.mark.parametrize("reference", ["openvino", "openvino-reference", "dump", "tensors.npz"])
def test_precision_with_a_non_ir_reference_is_refused(tmp_path, capsys, reference):
    """--precision simulates OpenVINO on irrun; against OpenVINO itself or a dump it has no
    meaning: a usage error naming the reference, not "no such file" for an existing dump."""
    (tmp_path / "dump").mkdir()
    np.savez(tmp_path / "tensors.npz", a=np.zeros(1))
    ref = reference if reference.startswith("openvino") else str(tmp_path / reference)
    assert cli(["compare", str(FIX / "mlp" / "model.xml"), "-i", str(FIX / "mlp" / "inputs.npz"),
                "--precision", "f16", "-r", ref]) == 2
    out, err = capsys.readouterr()
    assert out == "" and f"{ref}: --precision compares" in err and "no such file" not in err
