"""OpenVINO's measured answers for the math ops (tests/fixtures/math_expectations.{json,npz}, made by
tools/expectations/make_math_expectations.py), and the one check that holds irrun to them.

Each case is one layer exactly as OpenVINO serialised it (IR type spelling, version, attributes)
with its inputs, and what OpenVINO 2026.4.1 did with it:

* ``ok``: the reference evaluator's outputs -> irrun must match them (floats within the tolerances
  below, integers and booleans exactly);
* ``unfolded``: the reference has no kernel for this op/type, the CPU plugin (f32 hint) answered ->
  irrun must match the CPU, except where :data:`CPU_DEVIATIONS` says why irrun follows the
  reference rule instead;
* ``error``: OpenVINO refused it (stage read/infer: the graph, eval: the values) -> irrun must
  refuse it too (ShapeError / ExecutionError), with OpenVINO's message;
* ``crash``: OpenVINO's process died -> irrun must refuse it;
* :data:`IRRUN_REFUSES`: OpenVINO returned garbage (undefined behaviour) -> irrun refuses.
"""
from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import numpy as np
import pytest

from helpers import run_op
from irrun.types import elements
from irrun.errors import ExecutionError, IrrunError, ShapeError

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "math_expectations"

#: Float tolerances by element type: (rtol, atol). f32/f64 as issue 3 says; f16/bf16 ~1 ulp.
TOLERANCE = {"f64": (1e-4, 1e-5), "f32": (1e-4, 1e-5), "f16": (2 ** -10, 1e-4), "bf16": (2 ** -7, 1e-3)}

_TRUNC = "the reference kernel truncates (measured on i32/i64); the CPU plugin rounds"
_WRAP = "integers wrap as in the reference kernels (Add/Subtract on i8/u8); the CPU plugin saturates"
_F64 = "the CPU plugin computes f64 in f32 and saturates infinities to FLT_MAX"
F64 = np.float64


def _wrap(fn):
    """The exact integer result of ``fn`` (in Python ints via int64), wrapped to the input type."""
    return lambda a, *b: fn(a.astype(np.int64), *(x.astype(np.int64) for x in b)).astype(a.dtype)


def _trunc(fn):
    return lambda x: np.clip(np.trunc(fn(x.astype(F64))), np.iinfo(x.dtype).min,
                             np.iinfo(x.dtype).max).astype(x.dtype)


#: Cases where the CPU plugin (the only oracle: no reference kernel) is not followed: why, and the
#: answer by the reference rule, written here independently of irrun (inputs -> output 0).
CPU_DEVIATIONS: dict[str, tuple[str, object]] = {
    "Exp-u8": (_TRUNC, _trunc(np.exp)), "Log-i8": (_TRUNC, _trunc(np.log)),
    "Log-u8": (_TRUNC, _trunc(np.log)), "Sin-i8": (_TRUNC, _trunc(np.sin)), "Sin-u8": (_TRUNC, _trunc(np.sin)),
    "Divide-i8": ("integer Divide floors (the reference on i32/i64); the CPU plugin truncates",
                  _wrap(np.floor_divide)),
    "Divide-pythondiv-true-i8": ("integer Divide floors (the reference on i32/i64); the CPU plugin "
                                 "truncates", _wrap(np.floor_divide)),
    "SquaredDifference-i8": (_WRAP, _wrap(lambda a, b: (a - b) ** 2)),
    "SquaredDifference-u8": (_WRAP, _wrap(lambda a, b: (a - b) ** 2)),
    "SquaredDifference-big-i8": (_WRAP, _wrap(lambda a, b: (a - b) ** 2)),
    "SquaredDifference-big-u8": (_WRAP, _wrap(lambda a, b: (a - b) ** 2)),
    "Multiply-u8-overflow": (_WRAP, _wrap(np.multiply)),
    "ReduceSum-i8-overflow": (_WRAP, _wrap(lambda x, axis: np.sum(x, axis=int(axis)))),
    "Round-half_to_even-f64": (_F64, lambda x: np.round(x)),
    "Round-half_away_from_zero-f64": (_F64, lambda x: np.where(np.isfinite(x), np.sign(x) * np.floor(np.abs(x) + 0.5), x)),
    "IsInf-f64": (_F64, lambda x: np.isinf(x)),
    "LogSoftmax-extremes": ("a NaN makes its whole slice NaN, as the reference Softmax kernel does; "
                            "the CPU plugin keeps -inf for the other elements",
                            lambda x: np.array([[-1.3132616875182228, -0.3132616875182228, -np.inf],
                                                [np.nan] * 3, [-np.inf, -np.inf, 0.0]], np.float32)),
}

#: Cases OpenVINO accepts but computes garbage for (undefined behaviour): irrun refuses them.
IRRUN_REFUSES: dict[str, str] = {
    "Sqrt-i32-negative": "OpenVINO returns INT_MIN for the square root of a negative integer",
    "FloorMod-i32-by-zero": "OpenVINO returns INT_MIN for an integer FloorMod by zero",
    "PRelu-slope-2": "the slope does not broadcast; OpenVINO reads past its end",
    "PRelu-slope-3x1x1": "the slope does not broadcast to [2,3,4]; OpenVINO indexes it by axis 0",
    "Softmax8-i32": "irrun's restriction: Softmax on floating-point types only (the CPU plugin "
                    "rounds an integer softmax)",
}

@cache
def _index() -> tuple[dict, ...]:
    return tuple(json.loads(FIXTURE.with_suffix(".json").read_text(encoding="utf-8"))["cases"])


@cache
def _pools() -> dict[str, np.ndarray]:
    with np.load(FIXTURE.with_suffix(".npz")) as f:
        return {k: f[k] for k in f.files}


def _array(case: dict, key: str) -> np.ndarray:
    """Input ``in<i>``, reference output ``out<j>`` or CPU output ``cpu<j>`` of a case: a slice
    of a flat pool (tools/expectations/make_math_expectations.py: ``pack``)."""
    kind, i = key[:-1], int(key[-1])
    spec = {"in": case.get("inputs"), "out": case.get("outputs"), "cpu": case.get("cpu_outputs")}[kind][i]
    pool, offset = case["data"][key]
    n = int(np.prod(spec["shape"], dtype=np.int64))
    a = _pools()[pool][offset:offset + n].reshape(spec["shape"])
    return a.view(elements.TYPES["bf16"].dtype) if spec["etype"] == "bf16" else a


def cases(*types: str) -> list:
    """pytest params (id = case id) of the cases for these IR layer types (all when none given)."""
    wanted = {t.lower() for t in types}
    return [pytest.param(e, id=e["id"])
            for e in _index() if _answered(e) and (not wanted or e["type"].lower() in wanted)]


def _answered(e: dict) -> bool:
    """Whether OpenVINO gave an answer to hold irrun to. Left out (at collection, not skipped):
    cases it could not build, cases whose IR it cannot read back ("ptr is Null" for an empty
    Const, which irrun reads — the op's own tests cover those), and cases where neither the
    reference evaluator nor the CPU plugin answered."""
    if e["status"] == "build-error" or (e["status"] == "error" and e["message"] == "ptr is Null"):
        return False
    return e["status"] != "unfolded" or e.get("cpu") == "ok" or e["id"] in IRRUN_REFUSES


def inputs_of(case: dict) -> list[np.ndarray]:
    return [_array(case, f"in{i}") for i in range(len(case["inputs"]))]


def run_case(case: dict) -> list[np.ndarray]:
    params = tuple(i for i, d in enumerate(case["inputs"]) if d["param"])
    n_out = len(case.get("outputs") or case.get("cpu_outputs") or [None])
    return run_op(case["type"], inputs_of(case), case["attrs"], case["version"], n_out=n_out, params=params)


def assert_close(got: np.ndarray, want: np.ndarray, etype: str, what: str) -> None:
    assert got.dtype == want.dtype, f"{what}: dtype {got.dtype}, expected {want.dtype}"
    assert got.shape == want.shape, f"{what}: shape {got.shape}, expected {want.shape}"
    if etype in TOLERANCE:
        rtol, atol = TOLERANCE[etype]
        np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=rtol,
                                   atol=atol, equal_nan=True, err_msg=what)
    else:
        np.testing.assert_array_equal(got, want, err_msg=what)


def check(case: dict) -> None:
    """Hold irrun to OpenVINO's answer for one case (see the module docstring)."""
    cid, status = case["id"], case["status"]
    if cid in IRRUN_REFUSES or status in ("error", "crash"):
        with pytest.raises(IrrunError) as e:
            run_case(case)
        err = e.value
        assert err.layer is not None and err.layer.type.lower() == case["type"].lower(), err
        if status == "error" and cid not in IRRUN_REFUSES:
            assert isinstance(err, ExecutionError if case["stage"] == "eval" else ShapeError), err
            assert case["message"] in err.message, f"irrun: {err.message!r}\nOpenVINO: {case['message']!r}"
        return
    if status == "ok":
        want, specs = "out", case["outputs"]
    elif status == "unfolded" and case.get("cpu") == "ok":
        if cid in CPU_DEVIATIONS:          # the reference rule, not the CPU plugin
            got = run_case(case)[0]
            with np.errstate(all="ignore"):
                want = np.asarray(CPU_DEVIATIONS[cid][1](*inputs_of(case)))
            etype = case["cpu_outputs"][0]["etype"]
            assert_close(got, want.astype(got.dtype), etype, f"{cid}: {CPU_DEVIATIONS[cid][0]}")
            assert not np.array_equal(want, _array(case, "cpu0"), equal_nan=True), \
                f"{cid}: the CPU plugin now agrees with the reference rule; drop the deviation"
            return
        want, specs = "cpu", case["cpu_outputs"]
    else:
        raise AssertionError(f"{cid}: OpenVINO gave no answer; cases() should have left it out")
    got = run_case(case)
    assert len(got) == len(specs)
    for j, (g, s) in enumerate(zip(got, specs)):
        assert_close(g, _array(case, f"{want}{j}"), s["etype"], f"{cid} output {j} vs {want}")
