"""``irrun compare ... --html``: one self-contained page, opened in a real headless browser.

The page must fetch nothing (no src=, no href= other than in-page, no url(), no @import), hold
the ranking table and the graph with the layer that was perturbed (one MatMul's weights of the
zoo BERT scaled by 1 + 0.2·N(0,1), see test_debug_reduce) filled darkest, with Graphviz's layout and
with irrun's own, and open in Chromium (Debian's package) without a crash, drawing something.
"""
from __future__ import annotations

import json
import re
import shutil
import subprocess

import numpy as np
import pytest
from test_debug_compare import run_cli
from test_debug_reduce import BERT, perturbed_copy

import irrun
from irrun.debug import html_report
from irrun.debug.accuracy.attribute import compare_models
from irrun.debug.accuracy.errorgraph import SCALE

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture(scope="module")
def perturbed(tmp_path_factory):
    model, node = perturbed_copy(tmp_path_factory.mktemp("html"))
    feeds = dict(np.load(BERT / "inputs.npz"))
    cand, ref = irrun.read_model(model), irrun.read_model(BERT / "model.xml")
    return cand, compare_models(cand, ref, [(feeds, feeds)]), node, model


def assert_self_contained(page: str) -> None:
    assert not re.search(r"""\bsrc\s*=|url\((?!#)|@import|<script|<link""", page, re.I)   # url(#clip): in-page
    assert all(h.startswith("#") for h in re.findall(r"""href\s*=\s*["']([^"']*)""", page))


@pytest.mark.parametrize("graphviz", [False, None])
def test_page_is_self_contained_and_shows_the_perturbed_layer(perturbed, graphviz):
    cand, res, node, _ = perturbed
    if graphviz is None and shutil.which("dot") is None:
        pytest.skip("Graphviz's dot is not installed")
    page = html_report.render(cand, res, top=5, plot_svg=None, graphviz=graphviz).decode("utf-8")
    assert_self_contained(page)
    assert page.startswith("<!DOCTYPE html>") and page.count("<svg") == 1
    first = re.search(r"<tr class='top'><td>1</td>.*?</tr>", page, re.S)
    assert first and f"<td>{node}</td>" in first[0] and "MatMul-1" in first[0]
    if graphviz is False:        # irrun's layout: the perturbed MatMul's box is the darkest
        box = re.search(rf"<title>{node} [^<]*</title><rect [^>]*fill='([^']+)'", page)
        assert box and box[1] == SCALE[-1]
        assert page.count(f"fill='{SCALE[-1]}'") == 1


def test_cli_writes_the_page_and_refuses_other_suffixes(tmp_path, capsys, perturbed):
    *_, model = perturbed
    args = ["compare", model, "--reference", BERT / "model.xml", "-i", BERT / "inputs.npz"]
    code, out, err = run_cli(capsys, *args, "--html", tmp_path / "r.html")
    assert code == 0, err
    assert "wrote the report page to" in out
    assert_self_contained((tmp_path / "r.html").read_text(encoding="utf-8"))
    code, _, err = run_cli(capsys, *args, "--html", tmp_path / "r.txt")
    assert code == 2 and "must end in .html" in err
    assert not (tmp_path / "r.txt").exists()


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install chromium)")
def test_page_opens_in_headless_chromium(tmp_path, perturbed):
    cand, res, _, _ = perturbed
    page = tmp_path / "report.html"
    page.write_bytes(html_report.render(cand, res, top=5, graphviz=False))
    shot = tmp_path / "shot.png"
    proc = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--window-size=1200,1600",
                           f"--screenshot={shot}", page.as_uri()], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    png = shot.read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 20_000      # drew more than a blank page


def test_node_data_is_model_explorers_format_keyed_by_tensor_name(tmp_path, capsys, perturbed):
    """GraphNodeData (google-ai-edge/model-explorer node_data_builder.py): {"results": {key:
    {"value": number, "bgColor": css colour}}}; the perturbed MatMul's tensor is the darkest."""
    cand, _, node, model = perturbed
    code, out, err = run_cli(capsys, "compare", model, "--reference", BERT / "model.xml", "-i",
                             BERT / "inputs.npz", "--node-data", tmp_path / "nd.json")
    assert code == 0, err
    doc = json.loads((tmp_path / "nd.json").read_text())
    assert set(doc) == {"results"}
    assert all(set(v) == {"value", "bgColor"} and isinstance(v["value"], (int, float)) for v in doc["results"].values())
    layer = cand.dag.nodes[node]["layer"]
    names = [nm for o in layer.outputs for nm in o.names] or [layer.name]    # no tensor name: its name
    assert all(doc["results"][nm]["bgColor"] == SCALE[-1] for nm in names)
    assert max(doc["results"].values(), key=lambda v: v["value"]) == doc["results"][names[0]]
