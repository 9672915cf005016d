"""tools/conformance/export_generated.py on the checked-in decoders (tests/fixtures/llm_zoo), which
tests/test_export_onnx.py holds to OpenVINO's logits: each is a ``pass`` row with its 4 steps
(prefill + 3 greedy tokens) measured, and a folder irrun cannot read is a row, not a crash."""
from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("onnx", reason="onnx is not installed: pip install -e '.[test]' (or irrun[onnx])")
pytest.importorskip("onnxruntime", reason="onnxruntime is not installed: pip install -e '.[test]'")

from tools.conformance.export_generated import run  # noqa: E402

LLM_ZOO = Path(__file__).parent / "fixtures" / "llm_zoo"


def test_checked_in_decoders_export_and_decode_like_irrun():
    rows = run([LLM_ZOO])
    assert len(rows) == len([d for d in LLM_ZOO.iterdir() if (d / "model.xml").exists()]) >= 3
    for r in rows:
        assert r.status == "pass", (r.case, r.detail)
        assert len(r.detail.removeprefix("max abs per step ").split()) == 4, r.detail


def test_an_unreadable_model_is_an_excluded_row(tmp_path):
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "model.xml").write_text("<net", encoding="utf-8")
    (row,) = run([tmp_path])
    assert (row.case, row.status) == ("broken", "excluded") and "irrun cannot read the model" in row.detail
