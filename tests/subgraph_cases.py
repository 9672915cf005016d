"""The OpenVINO-measured sub-graph and state fixtures (tools/fixtures/make_subgraph_fixtures.py), replayed.

``tests/fixtures/subgraphs/<case>/``: model.xml/.bin, ``inputs.npz`` (``"<run>.<input>"``),
``expected.npz`` (``"<run>.<output index>"``, OpenVINO CPU f32 on one infer request) and
``meta.json`` (``runs``, ``reset_before``, ``ov_shapes`` from read_model, ``state``).
"""
from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path

import numpy as np

import irrun
from irrun.types.shapes import PartialShape

ROOT = Path(__file__).parent / "fixtures" / "subgraphs"
CASES = sorted(d.name for d in ROOT.iterdir() if (d / "meta.json").exists())


@dataclass
class Case:
    name: str
    meta: dict
    runs: list[dict[str, np.ndarray]]
    expected: list[list[np.ndarray]]

    @property
    def xml(self) -> Path:
        return ROOT / self.name / "model.xml"


def load(name: str) -> Case:
    d = ROOT / name
    meta = json.loads((d / "meta.json").read_text(encoding="utf-8"))
    ins, exp = np.load(d / "inputs.npz"), np.load(d / "expected.npz")
    runs = [{k.split(".", 1)[1]: ins[k] for k in ins.files if k.split(".", 1)[0] == str(r)}
            for r in range(meta["runs"])]
    expected = [[exp[f"{r}.{j}"] for j in range(len(meta["outputs"]))] for r in range(meta["runs"])]
    return Case(name, meta, runs, expected)


def assert_close(got: np.ndarray, want: np.ndarray, what: str) -> None:
    """Exact for integers and booleans; rtol 1e-4 / atol 1e-5 for floats (the house tolerance)."""
    assert got.dtype == want.dtype and got.shape == want.shape, \
        f"{what}: {got.dtype}{list(got.shape)} != {want.dtype}{list(want.shape)}"
    if want.dtype.kind == "f":
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5, err_msg=what)
    else:
        np.testing.assert_array_equal(got, want, err_msg=what)


def replay(name: str) -> irrun.Model:
    """Run every recorded run on one model object (reset where the fixture reset) and compare."""
    case = load(name)
    model = irrun.read_model(case.xml)
    assert case.runs, f"{name}: no recorded runs"
    for r, feeds in enumerate(case.runs):
        if r == case.meta["reset_before"]:
            model.reset_state()
        got = list(model.run(feeds).values())
        assert len(got) == len(case.expected[r])
        for j, (g, w) in enumerate(zip(got, case.expected[r])):
            assert_close(g, w, f"{name} run {r} output {j}")
    return model


def within(mine: PartialShape, ov: list | None) -> bool:
    """Is irrun's partial shape inside OpenVINO's ([[lo, hi], ...], hi None = unbounded)?"""
    if ov is None:
        return True
    if mine.rank != len(ov):
        return False
    return all(d.lo >= lo and (hi is None or (d.hi is not None and d.hi <= hi))
               for d, (lo, hi) in zip(mine, ov))


def copy_case(name: str, tmp: Path) -> Path:
    """A writable copy of a fixture (model.xml + model.bin); returns the .xml."""
    d = tmp / name
    d.mkdir()
    for f in ("model.xml", "model.bin"):
        if (ROOT / name / f).exists():
            shutil.copy(ROOT / name / f, d / f)
    return d / "model.xml"
