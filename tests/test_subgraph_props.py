"""Property tests for Loops under random trip counts, port maps and iteration budgets (issue 11).

The models are OpenVINO-written fixtures (tools/fixtures/make_subgraph_fixtures.py) whose port maps are
rewritten at random; the expected values follow from the loop's definition (acc = acc + (x + 1)
starting from x; x = x / 2 + 1 nested T1 x T2 times), and the budget rule from irrun/limits/iterations.py:
a run fails, naming a Loop, exactly when its body executions would pass the budget.
"""
from __future__ import annotations

import os

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lxml import etree
from subgraph_cases import ROOT

import irrun
from irrun.errors import ExecutionError

SETTINGS = settings(max_examples=int(os.environ.get("IRRUN_PROPS_EXAMPLES", 60)), deadline=None)
X = np.arange(6, dtype=np.float32).reshape(2, 3) / 4


def _scan_model(tmp_path, reverse: bool, swap: bool):
    """loop_runtime_trip_scan with its scan output reversed (stride -1) and/or its two outputs'
    external ids swapped (each Result then receives the other output; the ports' declared dims
    go stale, which OpenVINO ignores)."""
    d = ROOT / "loop_runtime_trip_scan"
    root = etree.fromstring((d / "model.xml").read_bytes())
    pm = root.find("layers/layer[@id='3']/port_map")
    last, scan = pm.find("output[@internal_layer_id='8']"), pm.find("output[@axis]")
    if reverse:
        scan.attrib.update({"start": "-1", "end": "0", "stride": "-1"})
    if swap:
        a, b = last.get("external_port_id"), scan.get("external_port_id")
        last.set("external_port_id", b)
        scan.set("external_port_id", a)
    name = f"scan_{int(reverse)}{int(swap)}"
    out = tmp_path / name
    out.mkdir(exist_ok=True)
    (out / "model.xml").write_bytes(etree.tostring(root))
    (out / "model.bin").write_bytes((d / "model.bin").read_bytes())
    return irrun.read_model(out / "model.xml")


@pytest.fixture(scope="module")
def scan_models(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("props")
    return {(r, s): _scan_model(tmp, r, s) for r in (False, True) for s in (False, True)}


@SETTINGS
@given(trips=st.integers(0, 12), budget=st.integers(1, 10), reverse=st.booleans(), swap=st.booleans())
def test_loop_scan_under_random_trip_counts_port_maps_and_budgets(scan_models, trips, budget, reverse, swap):
    m = scan_models[(reverse, swap)]
    feeds = {"X": X, "T": np.int64(trips)}
    if trips > budget:
        with pytest.raises(ExecutionError, match=r'layer 3 "Loop_\d+" .*iteration budget of '
                                                 f"{budget} body executions"):
            m.run(feeds, max_iterations=budget)
        return
    outs = list(m.run(feeds, max_iterations=budget).values())
    last, scan = outs[::-1] if swap else outs
    steps = [X + (i + 1) * (X + 1) for i in range(trips)]
    np.testing.assert_allclose(last, steps[-1] if steps else X, rtol=1e-6)
    assert scan.shape == (trips, 2, 3)
    np.testing.assert_allclose(scan, np.array(steps[::-1] if reverse else steps).reshape(scan.shape),
                               rtol=1e-6)


@pytest.fixture(scope="module")
def nested():
    return irrun.read_model(ROOT / "loop_nested" / "model.xml")


@SETTINGS
@given(t1=st.integers(0, 6), t2=st.integers(0, 6), budget=st.integers(1, 40))
def test_nested_loops_share_one_budget(nested, t1, t2, budget):
    x = np.array([3.0, -1.0], np.float32)
    feeds = {"X": x, "T1": np.int64(t1), "T2": np.int64(t2)}
    if t1 * (1 + t2) > budget:                # outer iterations plus the inner ones
        with pytest.raises(ExecutionError, match=r"layer 4(/4)? .*iteration budget"):
            nested.run(feeds, max_iterations=budget)
        return
    want = x.copy()
    for _ in range(t1 * t2):
        want = want * np.float32(0.5) + np.float32(1)
    got, = nested.run(feeds, max_iterations=budget).values()
    np.testing.assert_allclose(got, want, rtol=1e-6)
