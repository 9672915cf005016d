"""``irrun compare ... --graph``: the candidate's graph filled by the error each layer adds.

Ground truth by construction, as in tests/test_accuracy.py: a copy of an fp32 fixture with one
MatMul's weights perturbed adds error at that MatMul only. The DOT text is checked, not pixels.
"""
from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

import irrun
import irrun.io.writers
from irrun.debug.accuracy.errorgraph import GREY, SCALE, error_dot, step_of
from irrun.cli.main import main as cli
from irrun.errors import EXIT_ERROR

from test_accuracy import FIX, compare, feeds, perturbed_copy


def fills(dot: str) -> dict[int, str]:
    return {int(n): c for n, c in re.findall(r'^  n(\d+) \[.*fillcolor="(#[0-9a-f]{6})"', dot, re.M)}


def label(dot: str, n: int) -> str:
    return re.search(rf'^  n{n} \[label="([^"]*)"', dot, re.M).group(1)


@pytest.mark.parametrize("model,pick", [("mlp", 0), ("block", 3)])
def test_perturbed_layer_in_the_worst_colour(tmp_path, model, pick):
    victim = perturbed_copy(model, pick, 7, tmp_path)
    cand = irrun.read_model(tmp_path / "model.xml")
    res = compare(tmp_path / "model.xml", FIX / model / "model.xml", feeds(model))
    dot, drawn, total = error_dot(cand, res, top=3)
    by_name = {le.name: n for n, le in res.layers.items()}
    colours = fills(dot)
    assert colours[by_name[victim]] == SCALE[-1]                      # the darkest
    assert "#1 adds" in label(dot, by_name[victim])
    untouched = [n for n, le in res.layers.items() if le.op.startswith("MatMul") and le.name != victim]
    assert untouched and all(colours[n] == SCALE[0] for n in untouched)  # the palest
    assert sum("adds" in label(dot, n) for n in colours) == 1        # only layers adding error labelled
    assert drawn == total and "Const" not in dot                      # the activation graph only
    assert "relative L2 error the layer adds" in dot                  # the legend


def test_unmatched_layers_grey_and_scale_is_log():
    res = compare(FIX / "block_int4" / "model.xml", FIX / "block" / "model.xml", feeds("block"))
    cand = irrun.read_model(FIX / "block_int4" / "model.xml")
    gone = next(n for n, le in res.layers.items() if le.name == "mlp/residual/Add")
    del res.layers[gone]                                              # as if it were unmatched
    dot, _, _ = error_dot(cand, res)
    assert fills(dot)[gone] == GREY
    # log steps between 1e-6 and 1e-2: a tenfold error moves two of the eight steps
    assert [step_of(v, -6, -2) for v in (0, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, float("inf"))] == \
        [0, 1, 1, 3, 5, 7, 8, 8]


def run_graph(tmp_path, out, *more) -> int:
    victim_dir = tmp_path / "cand"
    victim_dir.mkdir(exist_ok=True)
    perturbed_copy("mlp", 1, 3, victim_dir)
    return cli(["compare", str(victim_dir / "model.xml"), "--reference", str(FIX / "mlp" / "model.xml"),
                "-i", str(FIX / "mlp" / "inputs.npz"), "--graph", str(out), *more])


def test_cli_writes_through_writers(tmp_path, monkeypatch, capsys):
    calls = []
    real = irrun.io.writers.write_files
    monkeypatch.setattr(irrun.io.writers, "write_files", lambda files, **kw: calls.append(kw) or real(files, **kw))
    out = tmp_path / "err.dot"
    assert run_graph(tmp_path, out) == 0
    assert len(calls) == 1 and calls[0]["protect"]                   # the models and inputs protected
    assert out.read_text().startswith("digraph") and SCALE[-1] in out.read_text()
    assert "wrote the graph coloured by added error" in capsys.readouterr().out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cand", "err.dot"]   # no temp file left
    if shutil.which("dot"):
        assert run_graph(tmp_path, tmp_path / "err.svg") == 0
        assert b"<svg" in (tmp_path / "err.svg").read_bytes()


def test_cli_refuses_bad_paths_before_running(tmp_path, monkeypatch, capsys):
    # a .dot target: the path checks must hold on a machine without Graphviz too (README command 2)
    target = tmp_path / "real.dot"
    (tmp_path / "link.dot").symlink_to(target)
    assert run_graph(tmp_path, tmp_path / "link.dot") == EXIT_ERROR
    assert "symbolic link" in capsys.readouterr().err and not target.exists()
    assert run_graph(tmp_path, tmp_path / "cand" / "model.xml") == EXIT_ERROR        # the model itself
    assert run_graph(tmp_path, tmp_path / "g.txt") == EXIT_ERROR
    assert ".svg, .png, .pdf or .dot" in capsys.readouterr().err
    monkeypatch.setattr(shutil, "which", lambda name: None)                         # no Graphviz
    assert run_graph(tmp_path, tmp_path / "g.png") == EXIT_ERROR
    err = capsys.readouterr()
    assert "Graphviz" in err.err and "--graph FILE.dot" in err.err and "layers adding" not in err.out
    assert run_graph(tmp_path, tmp_path / "g.dot") == 0                             # text needs nothing


def test_large_graph_draws_the_top_layers_neighbourhoods(tmp_path, monkeypatch):
    import irrun.debug.accuracy.errorgraph as eg
    victim = perturbed_copy("block", 5, 11, tmp_path)                   # mlp/down_proj, near the end
    res = compare(tmp_path / "model.xml", FIX / "block" / "model.xml", feeds("block"))
    cand = irrun.read_model(tmp_path / "model.xml")
    monkeypatch.setattr(eg, "MAX_LAYERS", 10)
    dot, drawn, total = error_dot(cand, res, top=1)
    near = fills(dot)
    victim_id = next(n for n, le in res.layers.items() if le.name == victim)
    far = next(n for n, le in res.layers.items() if le.name == "attn/q_proj/MatMul")
    assert drawn < total and victim_id in near and far not in near
    assert f"n{far} " not in dot
