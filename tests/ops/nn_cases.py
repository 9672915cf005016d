"""The OpenVINO measurements of tools/expectations/make_nn_expectations.py (and of the generators built on it,
tools/expectations/make_<family>_expectations.py), replayed through irrun.

``tests/fixtures/<family>_expectations.json`` lists one case per line: the layer exactly as OpenVINO
serialised it (type, version, attributes), its inputs (arrays in the .npz, or a Parameter's
partial shape) and what OpenVINO said — output values (``run`` cases, from the CPU plugin at f32
or, where it fails, the reference evaluator), output partial shapes (``shape`` cases) or its error
message. The test modules parametrize over the cases of their ops:

    @pytest.mark.parametrize("case", case_ids("MatMul"))
    def test_openvino_case(case):
        replay(case, REFUSE, MESSAGES)

Where OpenVINO gives no answer (its CPU plugin and reference evaluator both fail) the case is
skipped unless the module lists it in REFUSE.
"""
from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import numpy as np
import pytest

from irrun.types import elements
from irrun.errors import IrrunError, ShapeError
from irrun.types.shapes import Dim, PartialShape

from helpers import Param, infer_op, run_op

#: every ``tests/fixtures/<name>_expectations.{json,npz}`` pair in the format of
#: tools/expectations/make_nn_expectations.py (the math fixture has its own format and reader, expectations.py)
FIXTURES = sorted(p.with_suffix("") for p in (Path(__file__).resolve().parents[1] / "fixtures").glob("*_expectations.json")
                  if p.name != "math_expectations.json")
#: float tolerances: f32/f64 as the issue asks; f16/bf16 results round differently per evaluator
TOL = {"f32": (1e-4, 1e-5), "f64": (1e-4, 1e-5), "f16": (1e-2, 1e-2), "bf16": (2e-2, 2e-2)}


@cache
def _index() -> dict[str, dict]:
    index = {}
    for fixture in FIXTURES:
        for c in json.loads(fixture.with_suffix(".json").read_text(encoding="utf-8"))["cases"]:
            assert c["id"] not in index, f"case {c['id']} is in two fixtures"
            index[c["id"]] = dict(c, fixture=fixture.name)
    return index


@cache
def _arrays(fixture: str) -> dict[str, np.ndarray]:
    with np.load(FIXTURES[0].with_name(fixture + ".npz")) as f:
        return {k: f[k] for k in f.files}


def case_ids(*types: str, kind: str | None = None, status: str | None = None) -> list[str]:
    """Ids of the cases whose op type is one of ``types`` (optionally of one kind/status).
    Cases where OpenVINO gave no answer (no reference kernel, CPU failed) hold nothing to compare
    with and are left out at collection rather than skipped."""
    return [i for i, c in _index().items() if c["type"] in types and c["status"] in ("ok", "error")
            and (kind is None or c["kind"] == kind) and (status is None or c["status"] == status)]


def entry(case: str) -> dict:
    return _index()[case]


def array(key: str, etype: str, fixture: str = "nn_expectations") -> np.ndarray:
    a = _arrays(fixture)[key]
    return a.view(elements.TYPES["bf16"].dtype) if etype == "bf16" else a


def inputs_of(case: str) -> tuple[list, tuple[int, ...]]:
    """(inputs for run_op/infer_op, indices of the Parameter inputs)."""
    e = entry(case)
    ins, params = [], []
    for i, spec in enumerate(e["inputs"]):
        if "array" in spec:
            ins.append(array(spec["array"], spec["etype"], e["fixture"]))
            if spec["param"]:
                params.append(i)
        else:
            ins.append(Param(spec["etype"], spec["shape"]))
    return ins, tuple(params)


def run_case(case: str) -> list[np.ndarray]:
    e = entry(case)
    ins, params = inputs_of(case)
    return run_op(e["type"], ins, e["attrs"], e["version"], n_out=len(e.get("outputs", [1])), params=params)


def infer_case(case: str, n_out: int = 1):
    e = entry(case)
    ins, _ = inputs_of(case)
    return infer_op(e["type"], ins, e["attrs"], e["version"], n_out=n_out, params=())


def assert_close(got: np.ndarray, want: np.ndarray, etype: str, what: str) -> None:
    assert got.shape == want.shape, f"{what}: shape {got.shape}, OpenVINO {want.shape}"
    assert got.dtype == want.dtype, f"{what}: dtype {got.dtype}, OpenVINO {want.dtype}"
    if etype in TOL:
        rtol, atol = TOL[etype]
        np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=rtol, atol=atol,
                                   equal_nan=True, err_msg=what)
    else:
        np.testing.assert_array_equal(got, want, err_msg=what)


def expected_shape(spec) -> PartialShape:
    if spec is None:
        return PartialShape(None)
    return PartialShape([Dim(lo, hi) for lo, hi in spec])


def check_case(case: str, message: str | None = None) -> None:
    """Replay one case. OpenVINO's outputs must be matched (values within tolerance, or the
    inferred partial shapes exactly); where OpenVINO rejected the layer, irrun must reject it with
    ``message`` (default: OpenVINO's own message) and name the layer."""
    e = entry(case)
    if e["status"] == "error":
        with pytest.raises(ShapeError) as err:
            infer_case(case, n_out=max(1, len(e.get("outputs", [])))) if e["kind"] == "shape" else run_case(case)
        assert (message or e["message"]) in err.value.message, \
            f"irrun: {err.value.message!r}\nOpenVINO: {e['message']!r}"
        assert err.value.layer is not None and err.value.layer.type == e["type"]
        return
    assert e["status"] == "ok", e       # case_ids() leaves out cases without an answer
    if e["kind"] == "shape":
        got = infer_case(case, n_out=len(e["outputs"]))
        for j, (g, want) in enumerate(zip(got, e["outputs"], strict=True)):
            assert str(g.shape) == str(expected_shape(want["shape"])), f"output {j}"
            assert g.etype.name == want["etype"], f"output {j}"
        return
    got = run_case(case)
    for j, (g, want) in enumerate(zip(got, e["outputs"], strict=True)):
        assert_close(g, array(want["array"], want["etype"], e["fixture"]), want["etype"], f"{case} output {j}")


def rejects(case: str, fragment: str, exc: type[IrrunError] = IrrunError) -> IrrunError:
    """irrun refuses a case OpenVINO accepts (or cannot run); returns the error."""
    e = entry(case)
    with pytest.raises(exc) as err:
        run_case(case) if e["kind"] == "run" else infer_case(case)
    assert fragment in err.value.message
    assert err.value.layer is not None and err.value.layer.type == e["type"]
    return err.value


def replay(case: str, refuse: dict[str, str] | None = None, messages: dict[str, str] | None = None) -> None:
    """The body of a module's parametrized OpenVINO test: ``refuse`` maps the cases irrun
    deliberately refuses although OpenVINO builds them (to a fragment of irrun's message),
    ``messages`` the rejections irrun words differently from OpenVINO."""
    if refuse and case in refuse:
        rejects(case, refuse[case])
    else:
        check_case(case, (messages or {}).get(case))
