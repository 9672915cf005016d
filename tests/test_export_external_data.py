"""ONNX external data (issue 24): a model past protobuf's 2 GB limit, or any with
``--external-data``, is written as ``model.onnx`` + ``model.onnx.data``; both files atomically
through irrun.io.writers, never over a file the command reads.

The 2 GB case is tested with the limit lowered (CI has no 2 GB model); expected outputs are
OpenVINO's (the zoo fixture's expected.npz), read back by onnx and onnxruntime from the two files.
"""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from helpers import _input_sets

import irrun
from irrun.cli.main import main

onnx = pytest.importorskip("onnx", reason="onnx is not installed: pip install -e '.[test]' (or irrun[onnx])")
ort = pytest.importorskip("onnxruntime", reason="onnxruntime is not installed: pip install -e '.[test]'")

CASE = Path(__file__).parent / "fixtures" / "zoo" / "bert_fp32"


def _matches_openvino(onnx_path: Path) -> None:
    """onnxruntime, loading ``onnx_path`` and its data file by path, gives OpenVINO's outputs."""
    model = irrun.read_model(CASE / "model.xml")
    alias = {name: spec.name for spec in model.inputs for name in spec.names}
    out_alias = {name: spec.name for spec in model.outputs for name in spec.names}
    s = ort.InferenceSession(str(onnx_path), providers=["CPUExecutionProvider"])
    for inputs, expected in _input_sets(CASE):
        got = dict(zip([o.name for o in s.get_outputs()], s.run(None, {alias[k]: v for k, v in inputs.items()})))
        for name, want in expected.items():
            np.testing.assert_allclose(got[out_alias[name]], want, rtol=1e-4, atol=1e-4, err_msg=name)


def _external(proto) -> list:
    return [t for t in proto.graph.initializer if t.data_location == onnx.TensorProto.EXTERNAL]


def test_external_data_on_request_writes_two_files_that_onnxruntime_reads(tmp_path):
    out = irrun.export_onnx(CASE / "model.xml", tmp_path / "bert.onnx", external_data=True)
    data = tmp_path / "bert.onnx.data"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bert.onnx", "bert.onnx.data"]
    proto = onnx.load(out, load_external_data=False)
    moved = _external(proto)
    assert moved, "no tensor went to the data file"
    assert {e.value for t in moved for e in t.external_data if e.key == "location"} == {"bert.onnx.data"}
    assert all(len(t.raw_data) < 1024 for t in proto.graph.initializer), "a tensor of 1 KB or more stayed inline"
    assert os.path.getsize(out) < 20_000 < os.path.getsize(data)
    onnx.checker.check_model(str(out), full_check=True)
    full = onnx.load(out)                                 # onnx reads the data back, byte for byte
    inline = onnx.load_from_string(irrun.export.onnx.build_onnx(irrun.read_model(CASE / "model.xml"))
                                   .SerializeToString())
    for a, b in zip(full.graph.initializer, inline.graph.initializer):
        np.testing.assert_array_equal(onnx.numpy_helper.to_array(a), onnx.numpy_helper.to_array(b), err_msg=a.name)
    _matches_openvino(out)


def test_a_model_past_the_protobuf_limit_gets_external_data_unasked(tmp_path, monkeypatch):
    import irrun.export.onnx as export
    monkeypatch.setattr(export, "PROTOBUF_LIMIT", 50_000)      # the bert fixture's export is ~100 KB
    out = irrun.export_onnx(CASE / "model.xml", tmp_path / "m.onnx")
    assert (tmp_path / "m.onnx.data").is_file()
    assert _external(onnx.load(out, load_external_data=False))
    _matches_openvino(out)


def test_without_the_limit_or_the_flag_one_file_is_written(tmp_path, capsys):
    assert main(["export", str(CASE / "model.xml"), "-o", str(tmp_path / "m.onnx")]) == 0
    assert [p.name for p in tmp_path.iterdir()] == ["m.onnx"]


def test_cli_external_data_says_what_it_wrote(tmp_path, capsys):
    code = main(["export", str(CASE / "model.xml"), "-o", str(tmp_path / "m.onnx"), "--external-data"])
    out = capsys.readouterr().out
    assert code == 0
    assert "m.onnx.data: its external data" in out
    _matches_openvino(tmp_path / "m.onnx")


def test_external_data_never_overwrites_a_file_the_command_reads(tmp_path, capsys):
    """The data file's name is a hard link to the model's own .bin: refused (exit 2) before any
    work, and neither file is touched."""
    xml = tmp_path / "model.xml"
    xml.write_bytes((CASE / "model.xml").read_bytes())
    (tmp_path / "model.bin").write_bytes((CASE / "model.bin").read_bytes())
    os.link(tmp_path / "model.bin", tmp_path / "out.onnx.data")
    code = main(["export", str(xml), "-o", str(tmp_path / "out.onnx"), "--external-data"])
    err = capsys.readouterr().err
    assert code == 2 and "out.onnx.data" in err and "one of the files this command reads" in err
    assert (tmp_path / "model.bin").read_bytes() == (CASE / "model.bin").read_bytes()
    assert not (tmp_path / "out.onnx").exists()
    assert not any("irrun-tmp" in p.name for p in tmp_path.iterdir())
