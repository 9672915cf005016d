"""The IR fixtures made by OpenVINO itself (tools/fixtures/make_fixtures.py): irrun must read them, run them
to OpenVINO's reference-evaluator values, and find nothing wrong in them with ``irrun.check``.

Data movement is compared bit-exactly (floats by their bits: a copy must not even turn -0.0
into 0.0); only fixtures whose meta says ``float_compute`` would use allclose.
"""
from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import numpy as np
import pytest

import irrun
from irrun.types import elements

FIXTURES = Path(__file__).parent / "fixtures"
CASES = sorted(p.name for p in FIXTURES.iterdir() if (p / "meta.json").exists())


def meta_of(case: str) -> dict:
    return json.loads((FIXTURES / case / "meta.json").read_text(encoding="utf-8"))


def load_arrays(npz: Path, specs: list[dict]) -> dict[str, np.ndarray]:
    """The .npz arrays in irrun's dtypes (bf16 is stored as uint16 bits, strings as <U)."""
    with np.load(npz) as f:
        out = {}
        for s in specs:
            a = f[s["name"]]
            dtype = elements.TYPES[s["etype"]].dtype
            out[s["name"]] = a.view(dtype) if s["etype"] == "bf16" else a.astype(dtype)
        return out


def assert_same(got: np.ndarray, want: np.ndarray, approx: bool, what: str) -> None:
    assert got.dtype == want.dtype, f"{what}: dtype {got.dtype}, expected {want.dtype}"
    assert got.shape == want.shape, f"{what}: shape {got.shape}, expected {want.shape}"
    if approx and want.dtype.kind == "f":
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6, err_msg=what)
    elif want.dtype.kind in "fV" or want.dtype == elements.TYPES["bf16"].dtype:
        bits = np.dtype(f"u{want.dtype.itemsize}")
        assert np.array_equal(got.view(bits), want.view(bits)), f"{what}:\n{got}\n!=\n{want}"
    else:
        assert np.array_equal(got, want), f"{what}:\n{got}\n!=\n{want}"


def test_fixtures_exist():
    assert len(CASES) >= 20, "run python -m tools.fixtures.make_fixtures"


@pytest.mark.parametrize("case", CASES)
def test_fixture_runs_to_openvino_values(case):
    meta = meta_of(case)
    d = FIXTURES / case
    model = irrun.read_model(d / "model.xml")
    assert [(p.name, p.etype.name) for p in model.inputs] == \
        [(s["name"], s["etype"]) for s in meta["inputs"]]
    inputs = load_arrays(d / "inputs.npz", meta["inputs"])
    expected = load_arrays(d / "expected.npz", meta["outputs"])
    got = model.run(inputs)
    assert len(model.outputs) == len(meta["outputs"])
    for port, spec in zip(model.outputs, meta["outputs"]):
        assert spec["name"] in port.names, f"output {port} should be called {spec['name']}"
        assert_same(np.asarray(got[port.name]), expected[spec["name"]], meta["float_compute"],
                    f"{case}: output {spec['name']}")


@pytest.mark.parametrize("case", CASES)
def test_fixture_checks_clean(case):
    findings = irrun.check(str(FIXTURES / case / "model.xml"))
    errors = [f for f in findings if f.severity == "error"]
    assert not errors, "\n".join(f"{f.layer_id} {f.port}: {f.message} ({f.declared} vs {f.inferred})"
                                 for f in errors)


def test_check_names_a_changed_output_dim(tmp_path):
    """Change one declared output <dim> of the ShuffleChannels layer ([1,8,4,4] -> [1,8,4,5]):
    the checker must report that layer and port, and nothing else."""
    src = FIXTURES / "shufflenet_block"
    for f in ("model.xml", "model.bin"):
        shutil.copy(src / f, tmp_path / f)
    xml = (tmp_path / "model.xml").read_text(encoding="utf-8")
    m = re.search(r'<layer id="(\d+)" [^>]*type="ShuffleChannels".*?<output>\s*<port id="(\d+)"'
                  r'[^>]*>\s*<dim>1</dim>\s*<dim>8</dim>\s*<dim>4</dim>\s*<dim>4</dim>', xml, re.S)
    assert m, "fixture layout changed"
    layer_id, port = m[1], m[2]
    edited = xml[:m.end()].rsplit("<dim>4</dim>", 1)[0] + "<dim>5</dim>" + xml[m.end():]
    (tmp_path / "model.xml").write_text(edited, encoding="utf-8")
    errors = [f for f in irrun.check(str(tmp_path / "model.xml")) if f.severity == "error"]
    assert len(errors) == 1, errors
    (f,) = errors
    assert str(f.layer_id) == layer_id
    assert port in str(f.port)
    assert "5" in str(f.declared) and "4" in str(f.inferred)
    assert f.message
