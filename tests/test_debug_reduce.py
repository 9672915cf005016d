"""``irrun reduce`` and ``irrun compare --reference openvino:DEVICE``: issue 25.

A copy of the zoo BERT (torch -> ``openvino.convert_model``, 2 post-norm layers) gets one
MatMul's weights multiplied by 1 + 0.2·N(0, 1); reduced against the original, the repro must
hold that MatMul and at most 20 computing layers, and OpenVINO running the repro must still
disagree with the expected values. Against ``openvino:CPU,INFERENCE_PRECISION_HINT=bf16`` the
repro must be small and OpenVINO must reproduce its own bf16-vs-f32 disagreement (repro.py
compares both). bf16 keeps 8 significant bits: a MatMul's relative error at bf16 is of the order
of 2^-9 ≈ 2e-3, while f32 OpenVINO agrees with irrun to ~1e-6 (the zoo's conformance tolerance
is 1e-4).
"""
from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
from helpers import needs_openvino
from test_debug_compare import run_cli
from test_fixtures import FIXTURES

from irrun.debug.openvino_reference import child_env
from tools.fixtures.make_optimum_bert import perturbed_copy as perturb

BERT = FIXTURES / "zoo" / "bert_fp32"
PERTURBED = "__module.layers.0.ff.0/aten::linear/MatMul"
BLOCK = FIXTURES / "accuracy" / "block"
#: transformers.BertModel (random weights) exported by optimum-intel: tools/fixtures/make_optimum_bert.py
OPTIMUM_BERT = FIXTURES / "optimum_bert"
OPTIMUM_PERTURBED = "__module.encoder.layer.1.attention.self.value/aten::linear/MatMul"


def perturbed_copy(tmp_path, layer_name: str = PERTURBED, source=BERT):
    """``source`` with ``layer_name``'s weight Const scaled by 1 + 0.2·N(0,1) (seeded), in tmp_path/A."""
    return perturb(source, layer_name, tmp_path / "A")


def run_repro(directory) -> subprocess.CompletedProcess:
    """repro.py as a user would run it (in its directory), isolated: OpenVINO is the judge."""
    return subprocess.run([sys.executable, "-I", "repro.py"], cwd=directory, env=child_env(),
                          capture_output=True, text=True, timeout=300)


@needs_openvino
@pytest.mark.parametrize("bert, layer", [(BERT, PERTURBED), (OPTIMUM_BERT, OPTIMUM_PERTURBED)],
                         ids=["zoo", "optimum"])
def test_reduce_against_another_ir_keeps_the_perturbed_matmul(tmp_path, capsys, bert, layer):
    """Issue 25's "done when", also on the optimum-intel export (a value projection deep in its
    layer 1 perturbed): the repro holds the perturbed MatMul in at most 20 computing layers, and
    OpenVINO running it still disagrees with the expected (unperturbed) values."""
    model, node = perturbed_copy(tmp_path, layer, bert)
    out = tmp_path / "repro"
    code, text, err = run_cli(capsys, "reduce", model, "--reference", bert / "model.xml",
                              "-i", bert / "inputs.npz", "-o", out)
    assert code == 0, err
    report = json.loads((out / "report.json").read_text())
    assert node in [x["id"] for x in report["layers"]]
    assert report["after"]["compute_layers"] <= 20
    assert report["before"]["layers"] > 40
    for name in ("model.xml", "model.bin", "inputs.npz", "expected.npz", "repro.py"):
        assert (out / name).is_file()
    proc = run_repro(out)
    assert proc.returncode == 1, proc.stdout + proc.stderr       # OpenVINO: still bad
    assert "still bad" in proc.stdout
    assert "layers ->" in text and "python repro.py" in text


@needs_openvino
@pytest.mark.parametrize("bert", [BERT, OPTIMUM_BERT], ids=["zoo", "optimum"])
def test_reduce_against_openvino_bf16_is_reproduced_by_openvino(tmp_path, capsys, bert):
    out = tmp_path / "repro"
    code, _, err = run_cli(capsys, "reduce", bert / "model.xml", "--reference",
                           "openvino:CPU,INFERENCE_PRECISION_HINT=bf16", "-i", bert / "inputs.npz",
                           "-o", out)
    assert code == 0, err
    report = json.loads((out / "report.json").read_text())
    assert report["after"]["compute_layers"] <= 20 < report["before"]["layers"]
    proc = run_repro(out)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    # OpenVINO's own f32 run of the repro disagrees with its bf16 run by at least the threshold
    f32 = [float(line.split("relative L2 ")[1].split()[0]) for line in proc.stdout.splitlines()
           if line.endswith("vs OpenVINO CPU at f32")]
    assert f32 and max(f32) >= report["threshold"] > 0


def test_reduce_with_a_check_command_keeps_what_it_looks_for(tmp_path, capsys):
    """The predicate: 'still bad' while the model has an Erf-GELU layer (exit 1)."""
    check = tmp_path / "has_gelu.py"
    check.write_text("import sys\nsys.exit(1 if 'type=\"Gelu\"' in open(sys.argv[1]).read() else 0)\n")
    out = tmp_path / "repro"
    code, _, err = run_cli(capsys, "reduce", BERT / "model.xml", "--check",
                           f"{sys.executable} -I {check} {{model}}", "-i", BERT / "inputs.npz", "-o", out)
    assert code == 0, err
    report = json.loads((out / "report.json").read_text())
    assert [x["op"] for x in report["layers"]] == ["Gelu-7"]
    assert report["after"]["compute_layers"] == 1


def test_reduce_refuses_when_nothing_disagrees(tmp_path, capsys):
    code, _, err = run_cli(capsys, "reduce", BERT / "model.xml", "--reference", BERT / "model.xml",
                           "-i", BERT / "inputs.npz", "-o", tmp_path / "r")
    assert code == 2
    assert "no disagreement to reduce" in err
    assert not (tmp_path / "r" / "model.xml").exists()


def test_reduce_check_without_a_program(tmp_path, capsys):
    code, _, err = run_cli(capsys, "reduce", BERT / "model.xml", "--check", "'unclosed",
                           "-i", BERT / "inputs.npz", "-o", tmp_path / "r")
    assert code == 2 and "--check" in err


@needs_openvino
def test_device_compare_ranks_matmuls_at_bf16_and_agrees_at_f32(capsys):
    args = ["compare", BLOCK / "model.xml", "-i", BLOCK / "inputs.npz", "--json", "--reference"]
    code, out, err = run_cli(capsys, *args, "openvino:CPU,INFERENCE_PRECISION_HINT=bf16")
    assert code == 0, err
    doc = json.loads(out)
    ranked = sorted((x for x in doc["layers"] if x["rank"]), key=lambda x: x["rank"])
    assert ranked[0]["added"]["rel_l2"] > 5e-4                    # bf16: ~2^-9 per rounding
    assert any(x["op"].startswith("MatMul") for x in ranked[:5])
    assert all(float(s["rel_l2"]) > 5e-4 for s in doc["outputs"].values())
    code, out, err = run_cli(capsys, *args, "openvino:CPU,INFERENCE_PRECISION_HINT=f32")
    assert code == 0, err
    doc = json.loads(out)
    assert max(float(x["added"]["rel_l2"]) for x in doc["layers"] if x["added"]) < 1e-5


@needs_openvino
@pytest.mark.parametrize("spec, code, words", [
    ("openvino:NPU", 3, ["no device 'NPU'", "its devices: CPU"]),
    ("openvino:", 2, ["expected openvino:DEVICE[,KEY=VALUE...]"]),
    ("openvino:CPU,INFERENCE_PRECISION_HINT", 2, ["expected openvino:DEVICE[,KEY=VALUE...]"]),
])
def test_device_compare_says_what_is_wrong(capsys, spec, code, words):
    got, _, err = run_cli(capsys, "compare", BLOCK / "model.xml", "-i", BLOCK / "inputs.npz",
                          "--reference", spec)
    assert got == code, err
    assert all(w in err for w in words), err


@needs_openvino
def test_keep_f32_marks_the_top_layers_as_openvino_reads_them(tmp_path, capsys):
    """The written IR: the ``precise`` rt_info (DisableFP16Compression's RTTI name) on the top K
    layers by added error, nothing else changed; OpenVINO reads each mark back as a runtime
    attribute of exactly those layers."""
    out = tmp_path / "kept" / "model.xml"
    args = ["compare", BLOCK / "model.xml", "-i", BLOCK / "inputs.npz", "--top", "3", "--json",
            "--reference", "openvino:CPU,INFERENCE_PRECISION_HINT=bf16"]
    code, text, err = run_cli(capsys, *args, "--keep-f32", out)
    assert code == 0, err
    top = [x["name"] for x in sorted((x for x in json.loads(text)["layers"] if x["rank"]),
                                     key=lambda x: x["rank"])[:3]]
    assert (out.with_suffix(".bin")).read_bytes() == (BLOCK / "model.bin").read_bytes()
    script = ("import json, sys, openvino as ov\n"
              "m = ov.Core().read_model(sys.argv[1])\n"
              "print(json.dumps({op.get_friendly_name(): sorted(op.get_rt_info().keys()) for op in m.get_ordered_ops()}))\n")
    proc = subprocess.run([sys.executable, "-I", "-c", script, str(out)], cwd=tmp_path, env=child_env(),
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    marked = json.loads(proc.stdout)
    plain = subprocess.run([sys.executable, "-I", "-c", script, str(BLOCK / "model.xml")], cwd=tmp_path,
                           env=child_env(), capture_output=True, text=True, timeout=120)
    before = json.loads(plain.stdout)
    gained = {name for name, keys in marked.items() if set(keys) - set(before.get(name, []))}
    assert gained == set(top)
    code, _, err = run_cli(capsys, *args, "--keep-f32", tmp_path / "k.txt")
    assert code == 2 and "must end in .xml" in err


def _compiled_errors(text: str) -> tuple[float, float]:
    """The ``rel L2 BEFORE in MODEL, AFTER in OUT.xml`` of ``compare --keep-f32``'s first output."""
    line = next(ln for ln in text.splitlines() if ln.strip().startswith("output ") and " in MODEL, " in ln)
    before, after = line.split("rel L2 ")[1].split(" in MODEL, ")
    return float(before), float(after.split()[0])


@needs_openvino
def test_keep_f32_lowers_the_error_openvino_shows_where_the_marks_survive(tmp_path, capsys):
    """OpenVINO's CPU plugin keeps a marked layer out of bf16 when the plugin node it becomes still
    carries the mark (its Node constructor reads ``fp16_compression_is_disabled``; graph.cpp's
    EnforceInferencePrecision skips such nodes). The block's MatMuls have no bias, so each becomes
    a FullyConnected that keeps the mark: compiled as a user compiles it, the marked IR's error
    against f32 must drop well below the unmarked one's (bf16 rounds each MatMul's inputs to 8
    significant bits: ~2^-9 relative per layer)."""
    out = tmp_path / "kept" / "model.xml"
    code, text, err = run_cli(capsys, "compare", BLOCK / "model.xml", "-i", BLOCK / "inputs.npz",
                              "--top", "20", "--reference", "openvino:CPU,INFERENCE_PRECISION_HINT=bf16",
                              "--keep-f32", out)
    assert code == 0, err
    before, after = _compiled_errors(text)
    assert before > 1e-3 and after < 0.6 * before, text
    ran = next(ln for ln in text.splitlines() if ln.startswith("OpenVINO ran "))
    kept, marked = int(ran.split()[2]), int(ran.split()[5])
    assert marked >= 8 and kept >= 6, ran                     # the 8 MatMuls, at least 6 honoured
    lost = text.split(ran, 1)[1].strip().splitlines()
    assert len(lost) == marked - kept and all(": ran in " in ln or "merged into" in ln for ln in lost), text


@needs_openvino
def test_keep_f32_on_a_stateful_llm_compares_from_the_initial_state(tmp_path, capsys):
    """The "compiled as they are" errors of an LLM's prefill step must be taken from a fresh state
    (the layer recording before it advances irrun's KV cache): OpenVINO's own bf16-vs-f32 logits
    error on this model is ~8e-3, so anything near 1 is a comparison against the wrong step."""
    llm = FIXTURES / "llm_zoo" / "tiny_llama-int4"
    steps = np.load(llm / "steps.npz")
    prefill = tmp_path / "prefill.npz"
    np.savez(prefill, **{k[2:]: steps[k] for k in steps.files if k.startswith("0.")})
    code, text, err = run_cli(capsys, "compare", llm / "model.xml", "-i", prefill, "--top", "4",
                              "--reference", "openvino:CPU,INFERENCE_PRECISION_HINT=bf16",
                              "--keep-f32", tmp_path / "kept.xml")
    assert code == 0, err
    before, after = _compiled_errors(text)
    assert 1e-4 < before < 0.05 and after < 0.05, text
