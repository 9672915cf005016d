"""Measure OpenVINO's element-wise, activation, comparison/logic and reduction ops into ONE fixture.

    python -m tools.expectations.make_math_expectations [--out tests/fixtures/math_expectations] [-k substring]

Writes ``math_expectations.json`` (the index, one line per case) and ``math_expectations.npz``
(inputs and expected outputs of every case: small seeded arrays, packed into one flat pool per
dtype), which ``tests/ops/expectations.py`` reads; the unit tests never need OpenVINO.

Each case is one op built with OpenVINO's ``NodeFactory(opset).create(type, inputs, attrs)`` (the
opset API with every attribute reachable), with Parameters for the inputs listed in ``params``
and Constants for the others, saved with ``ov.save_model(compress_to_fp16=False)``. The index
records the layer exactly as OpenVINO serialised it (IR ``type`` spelling, ``version``, ``<data>``
attributes), so the tests also check that irrun reads OpenVINO's attribute spellings. Cases marked
``ir=True`` are instead written by irrun's IRWriter with the given type/version/attributes: the
graphs OpenVINO's API refuses to build, so that its *reader* says what it thinks of them.

Every case is evaluated twice (tools/ovoracle.py, a worker process with CI=true):
  * the reference evaluator (Parameters replaced by Constants + ConstantFolding) -> ``expected``;
  * the CPU plugin with INFERENCE_PRECISION_HINT f32 -> stored as ``cpu`` only when it differs
    from the reference (beyond rtol 1e-4 / atol 1e-5 for floats, exactly otherwise).
A case whose reference evaluation fails records the status (``error`` at stage read/infer/eval,
``unfolded`` when OpenVINO has no reference kernel for the element type, ``crash``) and message.
bf16 arrays are stored as their uint16 bits (the index says "bf16"). The seeded values (``Rnd``),
the element-type tables, the layer reading, the CPU/reference comparison, the options and the
writing of the .json/.npz pair are tools/expectations/make_nn_expectations.py's; ``build_case`` is this file's
own (see it for why).
"""
from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import NamedTuple

import numpy as np

from tools.expectations.make_nn_expectations import (BF16, F16, F32, F64, INF, NAN, Cases, Rnd, _agree,
                                                     _layer_of, etype, parse_args, select, write_fixture)
from tools.ovoracle import Oracle, short_message

INTS = [np.int32, np.int64, np.int8, np.uint8]
FLOATS = [np.float32, np.float16, BF16, np.float64]


class Case(NamedTuple):   # (not a dataclass: the oracle worker imports this file unregistered)
    id: str
    type: str                       # OpenVINO class name (NodeFactory) or, with ir=True, IR type
    opset: str                      # "opset16": NodeFactory opset, or the IR version string
    inputs: list
    attrs: dict = {}
    params: tuple = (0,)            # inputs fed as Parameters (the others are Constants)
    ir: bool = False                # write the IR with irrun's IRWriter instead of the API
    n_out: int = 1
    note: str = ""


CASES = Cases()
add = CASES.add
rnd = Rnd(20260)


# ---------------------------------------------------------------------------------------------
# The cases

#: unary op -> (value range for floats, value range for integers or None when ints are not tried)
UNARY = {
    "Abs": ((-3, 3), (-9, 9)), "Ceiling": ((-3, 3), (-9, 9)), "Cos": ((-4, 4), (-4, 4)),
    "Erf": ((-3, 3), (-3, 3)), "Exp": ((-4, 4), (-3, 3)), "Floor": ((-3, 3), (-9, 9)),
    "Log": ((0.01, 5), (1, 9)), "Negative": ((-3, 3), (-9, 9)), "Sign": ((-3, 3), (-9, 9)),
    "Sin": ((-4, 4), (-4, 4)), "Sqrt": ((0, 9), (0, 30)), "Tanh": ((-3, 3), (-3, 3)),
    "Relu": ((-3, 3), (-9, 9)), "Sigmoid": ((-6, 6), (-3, 3)), "HSwish": ((-5, 5), (-5, 5)),
    "HSigmoid": ((-5, 5), (-5, 5)), "Mish": ((-5, 5), (-5, 5)), "SoftPlus": ((-5, 5), None),
    "IsNaN": ((-3, 3), None), "IsFinite": ((-3, 3), None),
}
#: special float values every unary op sees once
SPECIAL = np.array([NAN, INF, -INF, 0.0, -0.0, 0.5, -0.5, 1.5, -2.5, 1e-30, 80.0, -80.0], np.float32)


def unary_cases() -> None:
    for op, (frange, irange) in UNARY.items():
        if op == "SoftPlus":
            continue
        opset = "opset16"
        for dt in FLOATS:
            add(Case(f"{op}-{etype(dt)}", op, opset, [rnd(2, 3, 4, dtype=dt, lo=frange[0], hi=frange[1])]))
        add(Case(f"{op}-special", op, opset, [SPECIAL.copy()]))
        if irange is not None:
            for dt in INTS:
                lo, hi = irange
                if np.dtype(dt).kind == "u":
                    lo = 0 if op not in ("Negative", "Abs", "Sign") else lo
                add(Case(f"{op}-{etype(dt)}", op, opset, [rnd(2, 5, dtype=dt, lo=max(lo, 0) if np.dtype(dt).kind == "u" else lo, hi=hi)]))
    add(Case("Negative-u8-wrap", "Negative", "opset16", [np.array([0, 1, 200, 255], np.uint8)]))
    add(Case("Abs-boolean", "Abs", "opset1", [np.array([True, False])], ir=True))
    add(Case("Sqrt-i32-negative", "Sqrt", "opset16", [np.array([-4, -1, 0, 2, 3, 5, 8], np.int32)]))
    add(Case("Exp-i32-rounding", "Exp", "opset16", [np.array([-2, -1, 0, 1, 2, 3], np.int32)]))
    add(Case("Log-i32-zero", "Log", "opset16", [np.array([1, 2, 3, 7, 8, 20], np.int32)]))
    for mode in ("half_to_even", "half_away_from_zero"):
        vals = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 2.4, -2.6, 0.0, NAN, INF], np.float32)
        for dt in FLOATS:
            add(Case(f"Round-{mode}-{etype(dt)}", "Round", "opset16", [vals.astype(dt)], {"mode": mode}))
        add(Case(f"Round-{mode}-i32", "Round", "opset16", [np.array([-3, 0, 7], np.int32)], {"mode": mode}))
    for det in [(True, True), (True, False), (False, True), (False, False)]:
        add(Case(f"IsInf-{int(det[0])}{int(det[1])}", "IsInf", "opset16", [SPECIAL.copy()],
                 {"detect_negative": det[0], "detect_positive": det[1]}))
    for dt in (F16, BF16, F64):
        add(Case(f"IsInf-{etype(dt)}", "IsInf", "opset16", [SPECIAL.astype(dt)]))
        add(Case(f"IsNaN-{etype(dt)}-special", "IsNaN", "opset16", [SPECIAL.astype(dt)]))
    # element types each op refuses (or not): read by OpenVINO's IR reader
    for op, ver in [("Abs", "opset1"), ("Exp", "opset1"), ("Sqrt", "opset1"), ("Floor", "opset1"),
                    ("Negative", "opset1"), ("Sign", "opset1"), ("ReLU", "opset1"), ("Sigmoid", "opset1"),
                    ("HSwish", "opset4"), ("HSigmoid", "opset5"), ("Mish", "opset4"), ("Gelu", "opset7"),
                    ("Gelu", "opset2"), ("Erf", "opset1"), ("Tanh", "opset1"), ("Round", "opset5"),
                    ("IsNaN", "opset10"), ("IsInf", "opset10"), ("IsFinite", "opset10"), ("Swish", "opset4"),
                    ("SoftMax", "opset8"), ("LogSoftmax", "opset5")]:
        for a in (np.array([True, False]), np.array([1, 2], np.int32)):
            add(Case(f"{op}-{ver}-{etype(a.dtype)}-type", op, ver, [a], ir=True))
    add(Case("Clamp-boolean-type", "Clamp", "opset1", [np.array([True])], {"min": "0", "max": "1"}, ir=True))
    add(Case("LogicalNot", "LogicalNot", "opset16", [rnd(2, 3, dtype=bool)]))
    add(Case("LogicalNot-f32", "LogicalNot", "opset16", [np.array([0.0, 1.5, -2.0], np.float32)]))
    add(Case("LogicalNot-i32", "LogicalNot", "opset16", [np.array([0, 1, -2], np.int32)]))


BINARY = {  # op -> (float range a, float range b, integer range a, integer range b)
    "Add": ((-3, 3), (-3, 3), (-50, 50), (-50, 50)),
    "Subtract": ((-3, 3), (-3, 3), (-50, 50), (-50, 50)),
    "Multiply": ((-3, 3), (-3, 3), (-9, 9), (-9, 9)),
    "Divide": ((-3, 3), (0.5, 3), (-20, 20), (1, 6)),
    "Power": ((0.1, 3), (-2, 2), (0, 5), (0, 3)),
    "Maximum": ((-3, 3), (-3, 3), (-50, 50), (-50, 50)),
    "Minimum": ((-3, 3), (-3, 3), (-50, 50), (-50, 50)),
    "FloorMod": ((-5, 5), (0.5, 3), (-20, 20), (1, 6)),
    "Mod": ((-5, 5), (0.5, 3), (-20, 20), (1, 6)),
    "SquaredDifference": ((-3, 3), (-3, 3), (-9, 9), (-9, 9)),
    "Equal": ((-2, 2), (-2, 2), (-2, 2), (-2, 2)),
    "NotEqual": ((-2, 2), (-2, 2), (-2, 2), (-2, 2)),
    "Less": ((-2, 2), (-2, 2), (-2, 2), (-2, 2)),
    "LessEqual": ((-2, 2), (-2, 2), (-2, 2), (-2, 2)),
    "Greater": ((-2, 2), (-2, 2), (-2, 2), (-2, 2)),
    "GreaterEqual": ((-2, 2), (-2, 2), (-2, 2), (-2, 2)),
}
COMPARE = ("Equal", "NotEqual", "Less", "LessEqual", "Greater", "GreaterEqual")


def rounded(a: np.ndarray) -> np.ndarray:
    """Floats on a 0.5 grid (comparisons then see ties)."""
    return (np.round(a.astype(np.float32) * 2) / 2).astype(a.dtype)


def binary_cases() -> None:
    for op, (fa, fb, ia, ib) in BINARY.items():
        for dt in FLOATS:
            a, b = rnd(2, 3, 4, dtype=dt, lo=fa[0], hi=fa[1]), rnd(3, 1, dtype=dt, lo=fb[0], hi=fb[1])
            if op in COMPARE:
                a, b = rounded(a), rounded(b)
            add(Case(f"{op}-{etype(dt)}", op, "opset16", [a, b], params=(0, 1)))
        for dt in INTS:
            lo_a = 0 if np.dtype(dt).kind == "u" and op not in ("Subtract",) else ia[0]
            lo_b = ib[0] if np.dtype(dt).kind != "u" else max(ib[0], 0)
            add(Case(f"{op}-{etype(dt)}", op, "opset16", [rnd(2, 5, dtype=dt, lo=lo_a, hi=ia[1]),
                                                          rnd(5, dtype=dt, lo=lo_b, hi=ib[1])], params=(0, 1)))
        add(Case(f"{op}-boolean", op, "opset1", [np.array([True, False]), np.array([True, True])],
                 ir=True, params=(0, 1)))
        add(Case(f"{op}-mixed-types", op, "opset1", [np.ones(2, np.float32), np.ones(2, np.float16)],
                 ir=True, params=(0, 1)))
    # semantics worth a dedicated look
    ia = np.array([-7, 7, -7, 7, 0, -1, 1, 9, -9], np.int32)
    ib = np.array([2, 2, -2, -2, 3, 3, 3, -4, -4], np.int32)
    for dt in (np.int32, np.int64, np.int8):
        for py in (True, False):
            add(Case(f"Divide-pythondiv-{str(py).lower()}-{etype(dt)}", "Divide", "opset16",
                     [ia.astype(dt), ib.astype(dt)], {"m_pythondiv": py}, params=(0, 1)))
        add(Case(f"FloorMod-signs-{etype(dt)}", "FloorMod", "opset16", [ia.astype(dt), ib.astype(dt)], params=(0, 1)))
        add(Case(f"Mod-signs-{etype(dt)}", "Mod", "opset16", [ia.astype(dt), ib.astype(dt)], params=(0, 1)))
    fa = np.array([-7.5, 7.5, -7.5, 7.5, 0, -1, 1, 9, -9, 5.0, -0.0], np.float32)
    fb = np.array([2, 2, -2, -2, 3, 3, 3, -4, -4, 0.0, 3.0], np.float32)
    for op in ("FloorMod", "Mod", "Divide"):
        add(Case(f"{op}-signs-f32", op, "opset16", [fa, fb], params=(0, 1)))
    add(Case("Divide-pythondiv-false-f32", "Divide", "opset16", [fa, fb], {"m_pythondiv": False}, params=(0, 1)))
    add(Case("Divide-u8-floor", "Divide", "opset16", [np.array([7, 200, 9], np.uint8), np.array([2, 3, 4], np.uint8)], params=(0, 1)))
    add(Case("Divide-i32-by-zero", "Divide", "opset16", [np.array([7, -7, 0], np.int32), np.array([0, 0, 0], np.int32)], params=(0, 1)))
    add(Case("FloorMod-i32-by-zero", "FloorMod", "opset16", [np.array([7, -7], np.int32), np.array([0, 0], np.int32)], params=(0, 1)))
    add(Case("Power-i32-negative-exp", "Power", "opset16",
             [np.array([2, -2, 1, -1, 3, 0], np.int32), np.array([-1, -1, -2, -3, 2, 0], np.int32)], params=(0, 1)))
    add(Case("Power-f32-special", "Power", "opset16",
             [np.array([-2, -2, 0, 0, 4, NAN, 1], np.float32), np.array([0.5, 2, -1, 0, 0.5, 0, NAN], np.float32)], params=(0, 1)))
    add(Case("Add-i8-overflow", "Add", "opset16", [np.array([100, -100, 127], np.int8), np.array([100, -100, 1], np.int8)], params=(0, 1)))
    add(Case("Multiply-u8-overflow", "Multiply", "opset16", [np.array([100, 16, 255], np.uint8), np.array([3, 16, 255], np.uint8)], params=(0, 1)))
    add(Case("Subtract-u8-wrap", "Subtract", "opset16", [np.array([1, 0, 5], np.uint8), np.array([2, 1, 5], np.uint8)], params=(0, 1)))
    add(Case("Maximum-f32-nan", "Maximum", "opset16", [np.array([NAN, 1, NAN], np.float32), np.array([1, NAN, NAN], np.float32)], params=(0, 1)))
    add(Case("Minimum-f32-nan", "Minimum", "opset16", [np.array([NAN, 1, NAN], np.float32), np.array([1, NAN, NAN], np.float32)], params=(0, 1)))
    add(Case("Equal-f32-nan", "Equal", "opset16", [np.array([NAN, 1, 0.0], np.float32), np.array([NAN, 1, -0.0], np.float32)], params=(0, 1)))
    add(Case("NotEqual-f32-nan", "NotEqual", "opset16", [np.array([NAN, 1, 0.0], np.float32), np.array([NAN, 1, -0.0], np.float32)], params=(0, 1)))
    add(Case("Equal-boolean-api", "Equal", "opset16", [np.array([True, False, True]), np.array([True, True, False])], params=(0, 1)))
    add(Case("Less-boolean-api", "Less", "opset16", [np.array([True, False, False]), np.array([True, True, False])], params=(0, 1)))
    # broadcasting modes
    a, b = rnd(2, 3, 4), rnd(2, 3, 4)
    add(Case("Add-none", "Add", "opset16", [a, b], {"auto_broadcast": "none"}, params=(0, 1)))
    add(Case("Add-none-mismatch", "Add", "opset1", [rnd(2, 3), rnd(3)], {"auto_broadcast": "none"}, ir=True, params=(0, 1)))
    add(Case("Add-numpy-mismatch", "Add", "opset1", [rnd(2, 3), rnd(2)], ir=True, params=(0, 1)))
    for sb in [(3, 4), (3, 1), (1, 4), (2, 3), (2, 1), (3,), (1, 3, 4), (2, 3, 1)]:
        add(Case(f"Add-pdpd-{'x'.join(map(str, sb))}", "Add", "opset1", [rnd(2, 3, 4), rnd(*sb)],
                 {"auto_broadcast": "pdpd"}, ir=True, params=(0, 1)))
    add(Case("Add-pdpd-smaller-first", "Add", "opset1", [rnd(3, 1), rnd(3, 4)], {"auto_broadcast": "pdpd"}, ir=True, params=(0, 1)))
    add(Case("Add-pdpd-bigger-second", "Add", "opset1", [rnd(3, 4), rnd(2, 3, 4)], {"auto_broadcast": "pdpd"}, ir=True, params=(0, 1)))
    add(Case("Add-pdpd-2x1x4", "Add", "opset1", [rnd(2, 3, 4), rnd(2, 1, 4)], {"auto_broadcast": "pdpd"}, ir=True, params=(0, 1)))
    add(Case("Add-pdpd-scalar", "Add", "opset1", [rnd(2, 3), np.float32(2.0)], {"auto_broadcast": "pdpd"}, ir=True, params=(0, 1)))
    add(Case("Multiply-pdpd-api", "Multiply", "opset16", [rnd(2, 3, 4), rnd(3, 4)], {"auto_broadcast": "pdpd"}, params=(0, 1)))
    add(Case("Add-scalar", "Add", "opset16", [rnd(2, 3), np.float32(0.5)], params=(0, 1)))
    add(Case("Add-empty", "Add", "opset16", [rnd(0, 3), rnd(1, 3)], params=(0, 1)))
    for op in ("LogicalAnd", "LogicalOr", "LogicalXor"):
        add(Case(op, op, "opset16", [rnd(2, 3, 4, dtype=bool), rnd(3, 1, dtype=bool)], params=(0, 1)))
        add(Case(f"{op}-f32", op, "opset1", [np.ones(2, np.float32), np.ones(2, np.float32)], ir=True, params=(0, 1)))
    add(Case("LogicalXor-opset1", "LogicalXor", "opset1", [rnd(4, dtype=bool), rnd(4, dtype=bool)], params=(0, 1)))
    for dt in FLOATS + INTS:
        add(Case(f"SquaredDifference-big-{etype(dt)}", "SquaredDifference", "opset16",
                 [rnd(4, dtype=dt, lo=0, hi=9), rnd(4, dtype=dt, lo=0, hi=9)], params=(0, 1)))


def activation_cases() -> None:
    x = rnd(2, 3, 4, lo=-8, hi=8)
    for dt in FLOATS:
        xd = x.astype(dt)
        add(Case(f"Clamp-{etype(dt)}", "Clamp", "opset16", [xd], {"min": -1.5, "max": 6.0}))
        add(Case(f"Elu-{etype(dt)}", "Elu", "opset16", [xd], {"alpha": 0.7}))
        add(Case(f"Swish-{etype(dt)}", "Swish", "opset16", [xd]))
        add(Case(f"Swish-beta-{etype(dt)}", "Swish", "opset16", [xd, np.array(0.75, dt)]))
        add(Case(f"Swish-beta-param-{etype(dt)}", "Swish", "opset16", [xd, np.array(1.25, dt)], params=(0, 1)))
        add(Case(f"PRelu-channels-{etype(dt)}", "PRelu", "opset16", [xd, rnd(3, dtype=dt, lo=0, hi=1)], params=(0, 1)))
        add(Case(f"PRelu-scalar-{etype(dt)}", "PRelu", "opset16", [xd, np.array([0.25], dt)], params=(0, 1)))
        add(Case(f"Gelu7-erf-{etype(dt)}", "Gelu", "opset16", [xd], {"approximation_mode": "erf"}))
        add(Case(f"Gelu7-tanh-{etype(dt)}", "Gelu", "opset16", [xd], {"approximation_mode": "tanh"}))
        add(Case(f"Gelu2-{etype(dt)}", "Gelu", "opset2", [xd]))
    for dt in INTS:
        xi = rnd(2, 6, dtype=dt, lo=-9, hi=9) if np.dtype(dt).kind == "i" else rnd(2, 6, dtype=dt, lo=0, hi=12)
        add(Case(f"Clamp-{etype(dt)}", "Clamp", "opset16", [xi], {"min": -1.5, "max": 6.7}))
        add(Case(f"Elu-{etype(dt)}", "Elu", "opset16", [xi], {"alpha": 0.7}))
        add(Case(f"PRelu-{etype(dt)}", "PRelu", "opset16", [xi.reshape(2, 6, 1), rnd(6, dtype=dt, lo=0, hi=3)], params=(0, 1)))
    add(Case("Clamp-u8-negative-min", "Clamp", "opset16", [np.array([0, 3, 200, 255], np.uint8)], {"min": -5.0, "max": 250.2}))
    add(Case("Clamp-i32-equal", "Clamp", "opset16", [np.array([-3, 0, 3], np.int32)], {"min": 1.0, "max": 1.0}))
    add(Case("Clamp-i32-between-ints", "Clamp", "opset16", [np.array([-3, 0, 3], np.int32)], {"min": 0.2, "max": 0.8}))
    add(Case("Clamp-min-gt-max", "Clamp", "opset1", [rnd(3)], {"min": "2", "max": "1"}, ir=True))
    add(Case("Clamp-f32-nan", "Clamp", "opset16", [np.array([NAN, INF, -INF], np.float32)], {"min": -1.0, "max": 1.0}))
    # PReLU slope shapes
    for s in [(1,), (4,), (3, 1, 1), (2, 3, 4), (1, 3, 4), (3, 4)]:
        add(Case(f"PRelu-slope-{'x'.join(map(str, s))}", "PRelu", "opset16", [x, rnd(*s, lo=0, hi=1)], params=(0, 1)))
    add(Case("PRelu-slope-1d-rank1", "PRelu", "opset16", [rnd(5), rnd(5, lo=0, hi=1)], params=(0, 1)))
    add(Case("PRelu-slope-2", "PRelu", "opset1", [x, rnd(2, lo=0, hi=1)], ir=True, params=(0, 1)))
    add(Case("PRelu-scalar-slope", "PRelu", "opset16", [x, np.float32(0.1)], params=(0, 1)))
    add(Case("Swish-beta-shape", "Swish", "opset4", [x, np.array([1.0, 2.0], np.float32)], ir=True))
    add(Case("Elu-boolean", "Elu", "opset1", [np.array([True])], {"alpha": "1"}, ir=True))
    add(Case("Swish-beta-type", "Swish", "opset4", [x, np.array(1.0, np.float16)], ir=True))
    add(Case("PRelu-slope-type", "PReLU", "opset1", [x, np.array([0.5], np.float16)], ir=True, params=(0, 1)))
    add(Case("PRelu-slope-rank", "PReLU", "opset1", [x, np.full((1, 2, 3, 4), 0.5, np.float32)], ir=True, params=(0, 1)))
    add(Case("Elu-negative-alpha", "Elu", "opset16", [x], {"alpha": -0.5}))


def softmax_cases() -> None:
    x = rnd(2, 3, 4, lo=-5, hi=5)
    for dt in FLOATS:
        for axis in (0, 1, 2):
            add(Case(f"Softmax1-axis{axis}-{etype(dt)}", "Softmax", "opset1", [x.astype(dt)], {"axis": axis}))
        for axis in (-1, -3, 1):
            add(Case(f"Softmax8-axis{axis}-{etype(dt)}", "Softmax", "opset16", [x.astype(dt)], {"axis": axis}))
            add(Case(f"LogSoftmax-axis{axis}-{etype(dt)}", "LogSoftmax", "opset16", [x.astype(dt)], {"axis": axis}))
    big = np.array([[1000.0, 1001.0, -INF], [NAN, 0.0, 1.0], [-INF, -INF, 0.0]], np.float32)
    add(Case("Softmax8-extremes", "Softmax", "opset16", [big], {"axis": 1}))
    add(Case("LogSoftmax-extremes", "LogSoftmax", "opset16", [big], {"axis": 1}))
    add(Case("Softmax1-negative-axis", "SoftMax", "opset1", [x], {"axis": "-1"}, ir=True))
    add(Case("Softmax8-axis-out-of-range", "SoftMax", "opset8", [x], {"axis": "3"}, ir=True))
    add(Case("LogSoftmax-axis-out-of-range", "LogSoftmax", "opset5", [x], {"axis": "-4"}, ir=True))
    add(Case("Softmax1-axis-3", "SoftMax", "opset1", [x], {"axis": "3"}, ir=True))
    add(Case("Softmax8-i32", "SoftMax", "opset8", [np.array([[1, 2]], np.int32)], {"axis": "1"}, ir=True))
    add(Case("Softmax8-empty", "Softmax", "opset16", [np.zeros((0, 3), np.float32)], {"axis": 1}))


REDUCE = ("ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2")


def reduce_cases() -> None:
    for op in REDUCE:
        for dt in FLOATS:
            x = rnd(2, 3, 4, dtype=dt, lo=-2, hi=2) if op != "ReduceProd" else rnd(2, 3, 4, dtype=dt, lo=0.5, hi=1.5)
            add(Case(f"{op}-{etype(dt)}", op, "opset16", [x, np.array([1, -1], np.int64)]))
            add(Case(f"{op}-keep-{etype(dt)}", op, "opset16", [x, np.array([0, 2], np.int32)], {"keep_dims": True}))
        for dt in INTS:
            x = rnd(3, 4, dtype=dt, lo=-5 if np.dtype(dt).kind == "i" else 0, hi=5)
            add(Case(f"{op}-{etype(dt)}", op, "opset16", [x, np.array(1, np.int64)]))
        x = rnd(2, 3, 4)
        add(Case(f"{op}-scalar-axis", op, "opset16", [x, np.array(-2, np.int64)], {"keep_dims": True}))
        add(Case(f"{op}-all-axes", op, "opset16", [x, np.array([0, 1, 2], np.int64)]))
        add(Case(f"{op}-no-axes", op, "opset16", [x, np.zeros(0, np.int64)]))
        add(Case(f"{op}-no-axes-keep", op, "opset16", [x, np.zeros(0, np.int64)], {"keep_dims": True}))
        add(Case(f"{op}-empty-axis", op, "opset16", [np.zeros((2, 0, 3), np.float32), np.array([1], np.int64)]))
        add(Case(f"{op}-empty-axis-i32", op, "opset16", [np.zeros((2, 0, 3), np.int32), np.array([1], np.int64)]))
        add(Case(f"{op}-axes-param", op, "opset16", [x, np.array([0, 2], np.int64)], params=(0, 1)))
        add(Case(f"{op}-duplicate-axes", op, "opset1" if op in REDUCE[:5] else "opset4",
                 [x, np.array([1, 1], np.int64)], ir=True))
        add(Case(f"{op}-axis-out-of-range", op, "opset1" if op in REDUCE[:5] else "opset4",
                 [x, np.array([3], np.int64)], ir=True))
        add(Case(f"{op}-float-axes", op, "opset1" if op in REDUCE[:5] else "opset4",
                 [x, np.array([1.0], np.float32)], ir=True))
        add(Case(f"{op}-no-axes-param", op, "opset16", [x, np.zeros(0, np.int64)], params=(0, 1)))
        add(Case(f"{op}-scalar-input", op, "opset16", [np.array(2.5, np.float32), np.zeros(0, np.int64)], params=(0, 1)))
        add(Case(f"{op}-axes-rank2", op, "opset1" if op in REDUCE[:5] else "opset4",
                 [x, np.array([[0]], np.int64)], ir=True))
        add(Case(f"{op}-boolean", op, "opset1" if op in REDUCE[:5] else "opset4",
                 [np.array([True, False]), np.array([0], np.int64)], ir=True))
    add(Case("ReduceMean-i32-rounding", "ReduceMean", "opset16", [np.array([[-7, 2], [7, 2], [5, 6], [-5, -6]], np.int32), np.array(1)]))
    add(Case("ReduceSum-f32-nan", "ReduceSum", "opset16", [np.array([[NAN, 1], [INF, -INF]], np.float32), np.array(1)]))
    add(Case("ReduceMax-f32-nan", "ReduceMax", "opset16", [np.array([[NAN, 1], [1, NAN]], np.float32), np.array(1)]))
    add(Case("ReduceMin-f32-nan", "ReduceMin", "opset16", [np.array([[NAN, 1], [1, NAN]], np.float32), np.array(1)]))
    add(Case("ReduceSum-f16-accumulation", "ReduceSum", "opset16", [np.full((4096,), 1.0, np.float16) * np.float16(0.1), np.array(0)]))
    add(Case("ReduceSum-f32-accumulation", "ReduceSum", "opset16", [np.concatenate([[1e8], np.ones(1000)]).astype(np.float32), np.array(0)]))
    add(Case("ReduceMean-f16-accumulation", "ReduceMean", "opset16", [rnd(2048, dtype=F16, lo=0, hi=8), np.array(0)]))
    add(Case("ReduceSum-i8-overflow", "ReduceSum", "opset16", [np.full((4,), 100, np.int8), np.array(0)]))
    add(Case("ReduceL2-i32-sqrt", "ReduceL2", "opset16", [np.array([[3, 4], [1, 1]], np.int32), np.array(1)]))
    for op in ("ReduceLogicalAnd", "ReduceLogicalOr"):
        x = rnd(2, 3, 4, dtype=bool)
        add(Case(op, op, "opset16", [x, np.array([1, 2], np.int64)]))
        add(Case(f"{op}-keep", op, "opset16", [x, np.array([0], np.int64)], {"keep_dims": True}))
        add(Case(f"{op}-empty-axis", op, "opset16", [np.zeros((2, 0), bool), np.array([1], np.int64)]))
        add(Case(f"{op}-f32", op, "opset1", [np.ones(2, np.float32), np.array([0], np.int64)], ir=True))


def misc_cases() -> None:
    # Select
    c = rnd(2, 3, 4, dtype=bool)
    for dt in FLOATS + INTS + [np.bool_]:
        add(Case(f"Select-{etype(dt)}", "Select", "opset16", [c, rnd(3, 1, dtype=dt, lo=0, hi=9), rnd(4, dtype=dt, lo=0, hi=9)], params=(0, 1, 2)))
    add(Case("Select-none", "Select", "opset16", [c, rnd(2, 3, 4), rnd(2, 3, 4)], {"auto_broadcast": "none"}, params=(0, 1, 2)))
    add(Case("Select-pdpd", "Select", "opset1", [rnd(3, 4, dtype=bool), rnd(2, 3, 4), rnd(3, 4)],
             {"auto_broadcast": "pdpd"}, ir=True, params=(0, 1, 2)))
    add(Case("Select-cond-bigger", "Select", "opset16", [rnd(2, 3, 4, dtype=bool), rnd(4), rnd(1)], params=(0, 1, 2)))
    add(Case("Select-cond-f32", "Select", "opset1", [np.ones(2, np.float32), rnd(2), rnd(2)], ir=True, params=(0, 1, 2)))
    add(Case("Select-cond-u8", "Select", "opset1", [np.array([0, 1, 2], np.uint8), rnd(3), rnd(3)], ir=True, params=(0, 1, 2)))
    add(Case("Select-cond-not-broadcastable", "Select", "opset1", [rnd(2, 1, 5, dtype=bool), rnd(2, 3, 4), rnd(2, 3, 4)], ir=True, params=(0, 1, 2)))
    add(Case("Select-pdpd-cond", "Select", "opset1", [rnd(2, 5, dtype=bool), rnd(2, 3, 4), rnd(2, 3)],
             {"auto_broadcast": "pdpd"}, ir=True, params=(0, 1, 2)))
    add(Case("Select-pdpd-ok", "Select", "opset1", [rnd(2, 1, dtype=bool), rnd(2, 3, 4), rnd(2, 3)],
             {"auto_broadcast": "pdpd"}, ir=True, params=(0, 1, 2)))
    add(Case("Select-mixed", "Select", "opset1", [c, rnd(2, 3, 4), rnd(2, 3, 4, dtype=F16)], ir=True, params=(0, 1, 2)))
    # CumSum
    x = rnd(2, 3, 4, lo=-3, hi=3)
    for ex in (False, True):
        for rev in (False, True):
            for axis in (0, -1, 1):
                add(Case(f"CumSum-e{int(ex)}r{int(rev)}-axis{axis}", "CumSum", "opset16",
                         [x, np.array(axis, np.int64)], {"exclusive": ex, "reverse": rev}))
    for dt in FLOATS + INTS:
        add(Case(f"CumSum-{etype(dt)}", "CumSum", "opset16", [rnd(2, 5, dtype=dt, lo=0, hi=9), np.array(1, np.int32)]))
    add(Case("CumSum-no-axis", "CumSum", "opset3", [x], {"exclusive": "true"}, ir=True))
    add(Case("CumSum-axis-param", "CumSum", "opset16", [x, np.array(2, np.int32)], params=(0, 1)))
    add(Case("CumSum-axis-1d", "CumSum", "opset3", [x, np.array([1], np.int64)], ir=True))
    add(Case("CumSum-axis-f32", "CumSum", "opset3", [x, np.array(1.0, np.float32)], ir=True))
    add(Case("CumSum-axis-out-of-range", "CumSum", "opset3", [x, np.array(3, np.int64)], ir=True))
    add(Case("CumSum-scalar", "CumSum", "opset3", [np.float32(2.0), np.array(0, np.int64)], ir=True))
    # ConvertLike
    src = np.array([-2.7, -0.5, 0.5, 2.5, 300.2, -300.2, NAN], np.float32)
    for dt in [np.int32, np.uint8, np.int8, np.float16, BF16, np.bool_, np.int64, np.float64]:
        add(Case(f"ConvertLike-f32-to-{etype(dt)}", "ConvertLike", "opset16", [src, np.zeros((2,), dt)], params=(0, 1)))
    add(Case("ConvertLike-i32-to-f16", "ConvertLike", "opset16", [np.array([1, -70000, 65519], np.int32), np.zeros(1, F16)], params=(0, 1)))
    add(Case("ConvertLike-bool-to-f32", "ConvertLike", "opset16", [np.array([True, False]), np.zeros(1, F32)], params=(0, 1)))
    # Range
    for start, stop, step, dt in [(0, 10, 3, np.int32), (10, 0, -3, np.int64), (0.5, 3.0, 0.7, np.float32),
                                  (5, 5, 1, np.int32), (0, 10, -1, np.int32), (1.0, -2.0, -0.5, np.float64),
                                  (0, 1, 0.1, np.float32), (0, 3, 1, np.float16)]:
        tag = f"{start}_{stop}_{step}_{etype(dt)}"
        add(Case(f"Range1-{tag}", "Range", "opset1", [np.array(start, dt), np.array(stop, dt), np.array(step, dt)], params=()))
        add(Case(f"Range1-param-{tag}", "Range", "opset1", [np.array(start, dt), np.array(stop, dt), np.array(step, dt)], params=(0, 1, 2)))
    for start, stop, step, it, ot in [(0, 10, 3, np.int32, "i64"), (0.5, 7.9, 2.6, np.float32, "i32"),
                                      (0.0, 1.0, 0.3, np.float32, "f32"), (-1.5, 4.2, 1.1, np.float32, "f16"),
                                      (7, -3, -2, np.int64, "f32"), (0, 5, 1, np.int64, "u8"),
                                      (1.2, 3.0, 0.5, np.float64, "i64"), (2.9, 9.9, 2.9, np.float32, "i32"),
                                      (0, 10, 3, np.int32, "bf16"), (5, 5, 1, np.int32, "i32")]:
        tag = f"{start}_{stop}_{step}_{etype(it)}_{ot}"
        add(Case(f"Range4-{tag}", "Range", "opset16", [np.array(start, it), np.array(stop, it), np.array(step, it)],
                 {"output_type": ot}, params=()))
        add(Case(f"Range4-param-{tag}", "Range", "opset16", [np.array(start, it), np.array(stop, it), np.array(step, it)],
                 {"output_type": ot}, params=(0, 1, 2)))
    add(Case("Range4-mixed-inputs", "Range", "opset16", [np.array(1, np.int32), np.array(7.5, np.float32), np.array(2, np.int64)],
             {"output_type": "f32"}, params=()))
    add(Case("Range4-zero-step", "Range", "opset4", [np.array(0, np.int32), np.array(5, np.int32), np.array(0, np.int32)],
             {"output_type": "i32"}, ir=True, params=()))
    add(Case("Range1-zero-step", "Range", "opset1", [np.array(0, np.int32), np.array(5, np.int32), np.array(0, np.int32)],
             ir=True, params=()))
    add(Case("Range4-shape-1", "Range", "opset4", [np.array([0], np.int32), np.array(5, np.int32), np.array(1, np.int32)],
             {"output_type": "i32"}, ir=True, params=()))
    add(Case("Range1-mixed-types", "Range", "opset1", [np.array(0, np.int32), np.array(5, np.int64), np.array(1, np.int32)],
             ir=True, params=()))
    add(Case("Range4-nan-start", "Range", "opset4", [np.array(NAN, np.float32), np.array(5, np.float32), np.array(1, np.float32)],
             {"output_type": "f32"}, ir=True, params=()))
    add(Case("Range4-negative-length", "Range", "opset16", [np.array(5, np.int32), np.array(0, np.int32), np.array(1, np.int32)],
             {"output_type": "i32"}, params=()))
    add(Case("Range4-boolean-output", "Range", "opset4", [np.array(0, np.int32), np.array(5, np.int32), np.array(1, np.int32)],
             {"output_type": "boolean"}, ir=True, params=()))


all_cases = CASES.built_by(unary_cases, binary_cases, activation_cases, softmax_cases, reduce_cases, misc_cases)


# ---------------------------------------------------------------------------------------------
# Worker side: build one case with the opset API and save it (runs inside the oracle worker).

def build_case(type_: str, opset: str, inputs: list, params: tuple, attrs: dict, xml: str) -> str:
    """make_nn_expectations.build_case without its Dyn inputs and with empty Constants made from
    an empty ov.Tensor, which the saved IR cannot be read back with ("ptr is Null": the fixture's
    answer for the empty-axes cases; the nn builder avoids it, and would change those entries)."""
    import openvino as ov
    import openvino.opset16 as o16
    from openvino.utils.node_factory import NodeFactory
    from tools.ovoracle import _ov_tensor

    nodes, parameters = [], []
    for i, a in enumerate(inputs):
        if i in params:
            et = ov.Type.bf16 if a.dtype == BF16 else ov.Type(a.dtype)
            p = o16.parameter(list(a.shape), et, name=f"in{i}")
            parameters.append(p)
            nodes.append(p.output(0))
        else:
            nodes.append(ov.op.Constant(_ov_tensor(a)).output(0))
    node = NodeFactory(opset).create(type_, nodes, attrs)
    for j, o in enumerate(node.outputs()):
        o.set_names({f"out{j}"})
    ov.save_model(ov.Model(node.outputs(), parameters), xml, compress_to_fp16=False)
    return xml


# ---------------------------------------------------------------------------------------------
# Parent side

def _write_ir(case: Case, xml: Path) -> None:
    from irrun.ir.builder import IRWriter
    b = IRWriter(case.id)
    ports = []
    for i, a in enumerate(case.inputs):
        a = np.asarray(a)
        ports.append(b.parameter(f"in{i}", etype(a.dtype), list(a.shape)) if i in case.params else b.const(a))
    outs = b.layer(case.type, ports, case.attrs, version=case.opset, n_out=case.n_out)
    for j, o in enumerate([outs] if case.n_out == 1 else outs):
        b.result(o, f"out{j}")
    b.save(xml)


def _store(a: np.ndarray) -> np.ndarray:
    return a.view(np.uint16) if a.dtype == BF16 else a


PACKING = ("every array of a case is a slice of one flat pool per storage dtype: case['data'][key] = "
           "[pool, offset]; its element type and shape are those of inputs/outputs/cpu_outputs")


def pack(index: list[dict], arrays: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Concatenate the arrays into one flat pool per storage dtype (a zip member per array would
    cost ~250 bytes of headers each), recording [pool, offset] in each case's ``data``."""
    pools: dict[str, list[np.ndarray]] = {}
    sizes: dict[str, int] = {}
    for e in index:
        e["data"] = {}
        for key in sorted(k for k in arrays if k.startswith(e["id"] + "/")):
            a = arrays[key]
            name = a.dtype.name
            e["data"][key.split("/", 1)[1]] = [name, sizes.get(name, 0)]
            pools.setdefault(name, []).append(a.reshape(-1))
            sizes[name] = sizes.get(name, 0) + a.size
    return {k: np.concatenate(v) for k, v in pools.items()}


def measure(case: Case, ov: Oracle, tmp: Path) -> tuple[dict, dict]:
    xml = tmp / f"{case.id}.xml"
    entry = {"id": case.id, **({"note": case.note} if case.note else {})}
    arrays = {}
    inputs = [np.asarray(a) for a in case.inputs]
    if case.ir:
        _write_ir(case, xml)
        entry.update(type=case.type, version=case.opset, attrs={k: str(v).lower() if isinstance(v, bool)
                                                                 else str(v) for k, v in case.attrs.items()})
    else:
        r = ov.call(build_case, case.type, case.opset, inputs, case.params, case.attrs, str(xml))
        if not r.ok:
            entry.update(status="build-error", message=short_message(r.message))
            return entry, arrays
        t, v, a = _layer_of(xml)
        entry.update(type=t, version=v, attrs=a)
    entry["inputs"] = [{"etype": etype(a.dtype), "shape": list(a.shape), "param": i in case.params}
                       for i, a in enumerate(inputs)]
    for i, a in enumerate(inputs):
        arrays[f"{case.id}/in{i}"] = _store(a)
    feeds = {f"in{i}": a for i, a in enumerate(inputs) if i in case.params}
    ref = ov.reference(xml, feeds)
    cpu = ov.cpu(xml, feeds)
    entry["status"] = ref.status
    if ref.status == "unfolded":       # (its message names the node, which changes run to run)
        entry.update(stage="eval", message="no reference kernel for these element types")
    elif not ref.ok:
        entry.update(stage=ref.stage, message=short_message(ref.message))
    else:
        entry["outputs"] = [{"etype": o.etype, "shape": list(o.array.shape)} for o in ref.outputs]
        for j, o in enumerate(ref.outputs):
            arrays[f"{case.id}/out{j}"] = _store(o.array)
    if cpu.ok:
        if ref.ok:
            agree = [_agree(o.array, c.array) for o, c in zip(ref.outputs, cpu.outputs)]
            entry["cpu"] = "agrees" if all(a for a, _ in agree) else \
                "differs (max abs diff " + ", ".join(f"{d:.3g}" for _, d in agree) + ")"
        else:
            entry["cpu"] = "ok"
        if not ref.ok or entry["cpu"] != "agrees":
            entry["cpu_outputs"] = [{"etype": o.etype, "shape": list(o.array.shape)} for o in cpu.outputs]
            for j, o in enumerate(cpu.outputs):
                arrays[f"{case.id}/cpu{j}"] = _store(o.array)
    else:
        entry["cpu"] = f"{cpu.status} ({cpu.stage}): {short_message(cpu.message)}"
    return entry, arrays


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv, __doc__, "math_expectations")
    cases = select(all_cases(), args.k)
    index, arrays = [], {}
    with Oracle() as ov, tempfile.TemporaryDirectory() as tmp:
        for case in cases:
            entry, arr = measure(case, ov, Path(tmp))
            index.append(entry)
            arrays.update(arr)
            if args.k:
                print(json.dumps(entry))
                for k, v in arr.items():
                    print(k, v.dtype, v.tolist())
    if args.k:
        return 0
    write_fixture(args.out, index, pack(index, arrays), pools=PACKING)
    bad = [e for e in index if e["status"] not in ("ok", "error")]
    diff = [e for e in index if e.get("cpu", "").startswith("differs")]
    print(f"{len(index)} cases: {sum(e['status'] == 'ok' for e in index)} ok, "
          f"{sum(e['status'] == 'error' for e in index)} rejected, {len(bad)} other; "
          f"CPU differs on {len(diff)}")
    for e in bad:
        print(f"  {e['id']}: {e['status']} {e.get('message', '')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
