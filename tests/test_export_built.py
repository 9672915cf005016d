"""The export suite's replay of the models the zoo suites build into ``--workdir`` (issue 24):
tools/conformance/export_suite.py ``replay_built``. A workdir laid out as tools/zoo/zoo.py lays it
(``zoo/<name>/stamp.json``, ``inputs_0.npz``, ``fp32/`` and ``fp16/`` IRs) from the checked-in
resnet case; the expected values are OpenVINO's, asked for in a child process as the zoo suite asks.
"""
from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from tests.helpers import needs_openvino

pytest.importorskip("onnx", reason="onnx is not installed: pip install -e '.[test]' (or irrun[onnx])")
pytest.importorskip("onnxruntime", reason="onnxruntime is not installed: pip install -e '.[test]'")

from tools.conformance import export_suite  # noqa: E402

RESNET = export_suite.FIXTURES / "zoo"


def _zoo_workdir(root, feeds: dict[str, np.ndarray]):
    d = root / "zoo" / "resnet"
    for v in ("fp32", "fp16"):
        (d / v).mkdir(parents=True)
        for f in ("model.xml", "model.bin"):
            shutil.copyfile(RESNET / f"resnet_{v}" / f, d / v / f)
    np.savez(d / "inputs_0.npz", **feeds)
    (d / "stamp.json").write_text(json.dumps({"stamp": "test", "meta": {
        "inputs": ["x"], "outputs": ["logits", "features"], "feeds": 1}}))
    return root


@needs_openvino
def test_built_zoo_models_are_exported_and_match_openvino(tmp_path):
    with np.load(RESNET / "resnet_fp32" / "inputs.npz") as f:
        feeds = {k: f[k] for k in f.files}
    rows = export_suite.replay_built(_zoo_workdir(tmp_path, feeds))
    assert [(r.suite, r.case, r.status) for r in rows] == [
        ("export:zoo-built", "resnet/fp32", "pass"), ("export:zoo-built", "resnet/fp16", "pass")], rows


def test_a_workdir_without_built_suites_adds_no_rows(tmp_path):
    (tmp_path / "public").mkdir()
    assert export_suite.replay_built(tmp_path) == []
