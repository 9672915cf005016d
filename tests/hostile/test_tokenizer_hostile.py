"""Hostile cases that ran for minutes or hours (issue 27: regex backtracking, quadratic splits,
100 GB of overlapping spans): test_hostile.py checks their answer in-process; here each runs as
the real CLI process, which must end within the case's ``timeout`` (a bound on the run, not a
speed measurement: before the fix these never ended within it)."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest
from test_hostile import CASES, ROOT, argv, case_dir

BOUNDED = [c for c in CASES if "timeout" in c]


@pytest.mark.parametrize("case", BOUNDED, ids=[c["name"] for c in BOUNDED])
def test_the_process_ends_in_time(case, tmp_path):
    d = case_dir(case, tmp_path)
    env = {**os.environ, "CI": "true", "PYTHONPATH": str(ROOT)}
    p = subprocess.run([sys.executable, "-m", "irrun", *argv(case, d)], capture_output=True, text=True,
                       timeout=case["timeout"], cwd=tmp_path, env=env)
    assert p.returncode == case["exit"], p.stderr
    assert "Traceback" not in p.stderr
