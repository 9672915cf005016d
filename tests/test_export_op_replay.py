"""The op-by-op export replay (issue 24): every op case of tests/fixtures/*_expectations whose ONNX
export matched OpenVINO's outputs in onnxruntime when tests/fixtures/export_op_replay.json was
written (``python -m tools.conformance.export_suite --write-baseline``) must still match.

Expected values are OpenVINO's recorded outputs (the fixtures), never irrun's. The cases that
differ for a known reason (TopK's order of equal values, NMS at IoU == threshold, ...) are listed
with the reason in one table, ``tools.conformance.export_suite.KNOWN_DIFFERENCES``; the full
replay, with every difference and refusal named, is the conformance tool's ``--suite export``.
One test per fixture family, so that ``-n 2`` spreads them (about 20 s in all).
"""
from __future__ import annotations

import json

import pytest

pytest.importorskip("onnx", reason="onnx is not installed: pip install -e '.[test]' (or irrun[onnx])")
pytest.importorskip("onnxruntime", reason="onnxruntime is not installed: pip install -e '.[test]'")

from tools.conformance import export_suite  # noqa: E402

MATCHING = set(json.loads(export_suite.BASELINE.read_text(encoding="utf-8"))["matching"])
FAMILIES = sorted(p.stem for p in export_suite.FIXTURES.glob("*_expectations.json"))


def test_the_baseline_names_only_cases_that_exist():
    known = {c.id for c in export_suite.op_cases()}
    assert MATCHING and MATCHING <= known, sorted(MATCHING - known)[:10]


@pytest.mark.parametrize("family", FAMILIES)
def test_op_cases_that_matched_still_match_openvino_in_onnxruntime(family, tmp_path):
    cases = [c for c in export_suite.op_cases() if c.fixture == family and c.id in MATCHING]
    if not cases:
        pytest.skip(f"no case of {family} matched when the baseline was written")
    bad = []
    for n, case in enumerate(cases):
        d = tmp_path / str(n)
        d.mkdir()
        row = export_suite.replay_op(case, d)
        if row.status != "pass":
            bad.append(f"{case.id}: {row.status}: {row.detail[:300]}")
    assert not bad, f"{len(bad)} of {len(cases)} {family} cases stopped matching:\n" + "\n".join(bad)


def test_every_known_difference_still_names_a_case_that_differs():
    """Each entry of the table names cases, and at least one of them is not in the baseline of
    matching cases (when none differs any more, the entry leaves the table). Cases an entry names
    that match are held to matching above."""
    cases = export_suite.op_cases()
    for op_type, fragment, why in export_suite.KNOWN_DIFFERENCES:
        named = [c.id for c in cases if c.type == op_type and fragment in c.id]
        assert named, f"{op_type} {fragment!r} names no case"
        assert why
        assert any(i not in MATCHING for i in named), f"{op_type} {fragment!r}: every case matches now: drop the entry"
