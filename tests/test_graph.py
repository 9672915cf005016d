"""The layer graph irrun walks (irrun/analysis/graph.py): plain adjacency, no networkx on the path of
``import irrun`` and reading or running a model; ``Model.graph`` is still a networkx graph."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import networkx as nx

import irrun
from irrun.analysis.graph import Graph, inputs_of, live_order

FIXTURES = Path(__file__).parent / "fixtures"
MODEL = FIXTURES / "compressed" / "u4_asym_group" / "model.xml"


def test_import_read_and_run_load_no_networkx(tmp_path):
    code = ("import sys, numpy as np, irrun\n"
            f"m = irrun.read_model({str(MODEL)!r})\n"
            "m.run({p.name: np.zeros([d.lo for d in p.shape], p.etype.dtype) for p in m.inputs})\n"
            "irrun.check(m.path)\n"
            "print(sorted(k for k in sys.modules if k.split('.')[0] == 'networkx'))\n")
    out = subprocess.run([sys.executable, "-I", "-c", code], cwd=tmp_path, capture_output=True,
                         text=True, check=True).stdout
    assert out.strip() == "[]"


def test_model_graph_is_the_same_graph_in_networkx():
    m = irrun.read_model(MODEL)
    assert isinstance(m.dag, Graph) and isinstance(m.graph, nx.MultiDiGraph)
    assert list(m.graph.nodes) == list(m.dag.nodes)
    for n in m.dag:
        assert inputs_of(m.graph, n) == inputs_of(m.dag, n)
        assert m.graph.nodes[n]["layer"] is m.dag.nodes[n]["layer"]
    order = list(nx.lexicographical_topological_sort(m.graph, key=lambda n: m.graph.nodes[n]["layer"].position))
    assert live_order(m.dag) == order
    assert m.graph is m.graph                       # built once
