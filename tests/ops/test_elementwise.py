"""Element-wise math, comparison and logic (irrun/ops/elementwise.py, irrun/ops/binary.py): OpenVINO's measured answers
(tests/fixtures/math_expectations, see expectations.py), the broadcast rules of
broadcast-rules.rst, interval shape inference measured with OpenVINO 2026.4.1, the integer and
NaN semantics measured there, element-type checks with OpenVINO's messages, and erf against
Python's math.erf."""
from __future__ import annotations

import math
from functools import partial

import numpy as np
import pytest

from expectations import cases, check
from helpers import Param, infer_op, raises_for, run_op, shape_str
from irrun.types import elements
from irrun import read_model
from irrun.errors import ExecutionError, ShapeError, UnsupportedError
from irrun.ir.builder import IRWriter
from irrun.ops._numerics import erf
from irrun.ops.binary import BinaryOp
from irrun.ops.elementwise import UnaryOp

ACTIVATIONS = {"Relu", "Sigmoid", "HSwish", "HSigmoid", "Mish"}     # tested in test_activations.py
UNARY = [c.type for c in UnaryOp.__subclasses__()]      # the one-row classes, in module order
BINARY = [c.type for c in BinaryOp.__subclasses__()]
TYPES = [("ReLU" if t == "Relu" else t) for t in UNARY if t not in ACTIVATIONS] + BINARY + ["Round", "IsInf"]
BF16 = elements.TYPES["bf16"].dtype
NUMERIC = [np.float64, np.float32, np.float16, BF16, np.int64, np.int32, np.int16, np.int8,
           np.uint64, np.uint32, np.uint16, np.uint8]


@pytest.mark.parametrize("case", cases(*TYPES))
def test_openvino_expectations(case):
    check(case)


def binary(op, a, b, attrs=None, params=(0, 1)):
    return run_op(op, [np.asarray(a), np.asarray(b)], attrs, params=params)[0]


def unary(op, x, attrs=None, version="opset1", params=(0,)):
    return run_op(op, [np.asarray(x)], attrs, version=version, params=params)[0]


# ---------------------------------------------------------------------------------------------
# Broadcasting: broadcast-rules.rst examples, then intervals as measured

NUMPY_EXAMPLES = [((), (), ()), ((2, 3), (1,), (2, 3)), ((3,), (2, 3), (2, 3)), ((2, 3, 5), (), (2, 3, 5)),
                  ((2, 1, 5), (1, 4, 5), (2, 4, 5)), ((6, 5), (2, 1, 5), (2, 6, 5)),
                  ((2, 1, 5), (4, 1), (2, 4, 5)), ((3, 2, 1, 4), (5, 4), (3, 2, 5, 4)),
                  ((1, 5, 3), (5, 2, 1, 3), (5, 2, 5, 3)), ((8, 1, 6, 1), (7, 1, 5), (8, 7, 6, 5))]


@pytest.mark.parametrize("params", [(), (0, 1)], ids=["const", "params"])
@pytest.mark.parametrize("a, b, out", NUMPY_EXAMPLES, ids=[f"{a}+{b}" for a, b, _ in NUMPY_EXAMPLES])
def test_numpy_broadcast_examples(a, b, out, params):
    x, y = np.arange(math.prod(a), dtype=np.float32).reshape(a), np.ones(b, np.float32)
    res = binary("Add", x, y, params=params)
    assert res.shape == out
    np.testing.assert_array_equal(res, np.broadcast_to(x, out) + 1)


@pytest.mark.parametrize("a, b", [((3,), (2,)), ((3, 1, 5), (4, 4, 5))])
def test_numpy_broadcast_mismatch(a, b):
    raises_for("Add", ShapeError, "Argument shapes are inconsistent.", binary, "Add", np.ones(a), np.ones(b))


def test_pdpd_examples_axis_0():
    """broadcast-rules.rst PDPD examples reachable from IR: the attribute carries no axis and
    OpenVINO's reader uses axis 0 (measured: B (3,4) onto (2,3,4) is refused)."""
    a = np.arange(120, dtype=np.float32).reshape(2, 3, 4, 5)
    res = binary("Add", a, np.array([[10.0, 20.0, 30.0]], np.float32), {"auto_broadcast": "pdpd"})
    np.testing.assert_array_equal(res, a + np.array([10.0, 20.0, 30.0]).reshape(1, 3, 1, 1))
    np.testing.assert_array_equal(binary("Add", a, np.float32(1), {"auto_broadcast": "pdpd"}), a + 1)
    raises_for("Add", ShapeError, "Argument shapes are inconsistent.", binary, "Add", np.ones((8, 1, 6, 1)),
               np.ones((7, 1, 5)), {"auto_broadcast": "pdpd"})
    raises_for("Add", ShapeError, "Argument shapes are inconsistent.", binary, "Add", np.ones((2, 3, 4)),
               np.ones((3, 4)), {"auto_broadcast": "pdpd"})


def test_none_broadcast_needs_equal_shapes():
    np.testing.assert_array_equal(binary("Multiply", [[1, 2]], [[3, 4]], {"auto_broadcast": "none"}), [[3, 8]])
    raises_for("Multiply", ShapeError, "Argument shapes are inconsistent.", binary, "Multiply", np.ones((2, 3)),
               np.ones(3), {"auto_broadcast": "explicit"})


#: (a, b) -> output per mode, measured with OpenVINO 2026.4.1 (Add on Parameters); None: refused.
INTERVALS = [
    ("?", "1", "[?]", "[1]", "[?]"), ("?", "3", "[3]", "[3]", "[3]"), ("1..3", "2", "[2]", "[2]", "[2]"),
    ("1..3", "5", "[5]", None, "[5]"), ("2..5", "3..8", "[3..5]", "[3..5]", "[3..5]"),
    ("?", "1..3", "[?]", "[1..3]", "[?]"), ("0..2", "3", "[3]", None, "[3]"),
    ("2..3", "?", "[2..3]", "[2..3]", "[2..3]"), ("0..1", "3", "[3]", None, "[3]"),
    ("1..4", "1..4", "[1..4]", "[1..4]", "[1..4]"), ("0", "1", "[0]", None, None), ("0", "3", None, None, None),
    ("1..2", "0", "[0]", None, "[0]"), ("3..", "2..4", "[3..4]", "[3..4]", "[3..4]"), ("..5", "2", "[2]", "[2]", "[2]"),
    ("2,3", "3", "[2,3]", None, None), ("2,3", "...", "[...]", "[2,3]", "[...]"), ("2,?", "?,3,1", None, None, None),
    ("2..6,3", "1,3", "[2..6,3]", None, "[2..6,3]"), ("2,3", "2", None, None, "[2,3]"), ("", "2,3", "[2,3]", None, None),
    ("1..5", "6..8", "[6..8]", None, "[6..8]"),
]


@pytest.mark.parametrize("mode, col", [("numpy", 2), ("none", 3), ("pdpd", 4)])
@pytest.mark.parametrize("row", INTERVALS, ids=[f"{r[0]}|{r[1]}" for r in INTERVALS])
def test_interval_shapes(row, mode, col):
    args = [Param("f32", row[0]), Param("f32", row[1])], {"auto_broadcast": mode}
    if row[col] is None:
        raises_for("Add", ShapeError, "Argument shapes are inconsistent.", infer_op, "Add", *args)
    else:
        assert shape_str(infer_op("Add", *args)[0]) == row[col]


def _dynamic_model(op, shapes, attrs=None):
    b = IRWriter("dyn")
    ports = [b.parameter(f"in{i}", "f32", s, dims=[]) for i, s in enumerate(shapes)]
    b.result(b.layer(op, ports, attrs), "out")
    import tempfile
    from pathlib import Path
    return read_model(b.save(Path(tempfile.mkdtemp()) / "m.xml"))


def test_run_time_shapes_checked_like_constant_ones():
    m = _dynamic_model("Add", ["?,3", "2..4,?"])
    out = m.run({"in0": np.ones((1, 3), np.float32), "in1": np.full((2, 1), 2, np.float32)})["out"]
    np.testing.assert_array_equal(out, np.full((2, 3), 3))
    with pytest.raises(ShapeError) as e:
        m.run({"in0": np.ones((2, 3), np.float32), "in1": np.ones((3, 2), np.float32)})
    assert "Argument shapes are inconsistent." in e.value.message and e.value.layer.type == "Add"


def test_in_place_buffer_keeps_the_shape_rule():
    """An arithmetic op given the planner's buffer (``out=``) computes straight into it, and still
    refuses what OpenVINO refuses: shapes that do not broadcast (numpy), unequal shapes (none);
    an input that would grow the result beyond the buffer's shape gets a fresh result."""
    from irrun.errors import OpError
    from irrun.ops.binary import Add1, Multiply1
    a, b = np.arange(6, dtype=np.float32).reshape(2, 3), np.array([10, 20, 30], np.float32)
    out = np.empty((2, 3), np.float32)
    (res,) = Add1().run(a, b, out=out)
    assert res is out
    np.testing.assert_array_equal(out, [[10, 21, 32], [13, 24, 35]])
    for op, y in ((Add1(), np.ones((3, 2), np.float32)), (Multiply1(auto_broadcast="none"), b)):
        with pytest.raises(OpError, match="Argument shapes are inconsistent."):
            op.run(a, y, out=np.empty((2, 3), np.float32))
    (grown,) = Add1().run(b, a, out=np.empty(3, np.float32))     # the buffer of the smaller input
    assert grown.shape == (2, 3)
    np.testing.assert_array_equal(grown, a + b)


# ---------------------------------------------------------------------------------------------
# Numerics measured on the reference evaluator

def test_integer_divide_floors_or_truncates():
    a, b = [-7, 7, -7, 7, 0, -1, 1, 9, -9], [2, 2, -2, -2, 3, 3, 3, -4, -4]
    for dt in (np.int32, np.int64, np.int8):
        A, B = np.array(a, dt), np.array(b, dt)
        np.testing.assert_array_equal(binary("Divide", A, B), [-4, 3, 3, -4, 0, -1, 0, -3, 2])
        np.testing.assert_array_equal(binary("Divide", A, B, {"m_pythondiv": "false"}), [-3, 3, 3, -3, 0, 0, 0, -2, 2])
    f = binary("Divide", np.array([-7.5, 5.0, -0.0], np.float32), np.array([2, 0, 3], np.float32))
    np.testing.assert_array_equal(f, [-3.75, np.inf, -0.0])


@pytest.mark.parametrize("params", [(), (0, 1)], ids=["const", "params"])
@pytest.mark.parametrize("op", ["Divide", "FloorMod", "Mod"])
def test_integer_division_by_zero_refused(op, params):
    raises_for(op, ExecutionError, "by zero", binary, op, np.array([7, -7], np.int32), np.array([1, 0], np.int32),
               params=params)


def test_floor_mod_and_mod_signs():
    a, b = np.array([-7, 7, -7, 7, 0, -1, 9, -9], np.int64), np.array([2, 2, -2, -2, 3, 3, -4, -4], np.int64)
    np.testing.assert_array_equal(binary("FloorMod", a, b), [1, 1, -1, -1, 0, 2, -3, -1])
    np.testing.assert_array_equal(binary("Mod", a, b), [-1, 1, -1, 1, 0, -1, 1, -1])
    fa, fb = np.array([-7.5, 7.5, -7.5, 7.5, 5.0, -0.0], np.float32), np.array([2, 2, -2, -2, 0, 3], np.float32)
    np.testing.assert_array_equal(binary("FloorMod", fa, fb), [0.5, 1.5, -1.5, -0.5, np.nan, 0.0])
    np.testing.assert_array_equal(binary("Mod", fa, fb), [-1.5, 1.5, -1.5, 1.5, np.nan, 0.0])


def test_integer_power():
    out = binary("Power", np.array([2, -2, 1, -1, 3, 0, -1], np.int32), np.array([-1, -1, -2, -3, 2, 0, -2], np.int32))
    np.testing.assert_array_equal(out, [0, 0, 1, -1, 9, 1, 1])
    raises_for("Power", ExecutionError, "negative power", binary, "Power", np.array([0], np.int32), np.array([-1], np.int32))
    f = binary("Power", np.array([-2, -2, 0, 0, np.nan, 1], np.float32), np.array([0.5, 2, -1, 0, 0, np.nan], np.float32))
    np.testing.assert_array_equal(f, [np.nan, 4, np.inf, 1, 1, 1])


def test_integers_wrap():
    np.testing.assert_array_equal(binary("Add", np.array([100, -100, 127], np.int8), np.array([100, -100, 1], np.int8)),
                                  [-56, 56, -128])
    np.testing.assert_array_equal(binary("Subtract", np.array([1, 0], np.uint8), np.array([2, 1], np.uint8)), [255, 255])


def test_maximum_minimum_nan_keep_first_input():
    a, b = np.array([np.nan, 1, np.nan], np.float32), np.array([1, np.nan, np.nan], np.float32)
    np.testing.assert_array_equal(binary("Maximum", a, b), [np.nan, 1, np.nan])
    np.testing.assert_array_equal(binary("Minimum", a, b), [np.nan, 1, np.nan])


def test_comparisons_ieee():
    a, b = np.array([np.nan, 1, 0.0], np.float32), np.array([np.nan, 1, -0.0], np.float32)
    np.testing.assert_array_equal(binary("Equal", a, b), [False, True, True])
    np.testing.assert_array_equal(binary("NotEqual", a, b), [True, False, False])
    np.testing.assert_array_equal(binary("Less", np.array([True, False]), np.array([True, True])), [False, True])


@pytest.mark.parametrize("dtype", NUMERIC, ids=lambda d: np.dtype(d).name)
def test_every_numeric_type(dtype):
    a, b = np.array([[1, 2, 3]], dtype), np.array([[2], [1]], dtype)
    for op, want in [("Add", [[3, 4, 5], [2, 3, 4]]), ("Multiply", [[2, 4, 6], [1, 2, 3]]),
                     ("Maximum", [[2, 2, 3], [1, 2, 3]]), ("Minimum", [[1, 2, 2], [1, 1, 1]]),
                     ("SquaredDifference", [[1, 0, 1], [0, 1, 4]])]:
        out = binary(op, a, b)
        assert out.dtype == np.dtype(dtype)
        np.testing.assert_array_equal(out.astype(np.float64), want)
    assert binary("Greater", a, b).dtype == np.bool_
    np.testing.assert_array_equal(binary("Greater", a, b), [[False, False, True], [False, True, True]])
    np.testing.assert_array_equal(unary("Abs", a).astype(np.float64), [[1, 2, 3]])
    np.testing.assert_array_equal(unary("Floor", a).astype(np.float64), [[1, 2, 3]])


def test_unary_integer_rules():
    x = np.array([1, 2, 3, 7, 8, 20], np.int32)
    np.testing.assert_array_equal(unary("Exp", np.array([-2, -1, 0, 1, 2, 3], np.int32)), [0, 0, 1, 2, 7, 20])
    np.testing.assert_array_equal(unary("Log", x), [0, 0, 1, 1, 2, 2])
    np.testing.assert_array_equal(unary("Sqrt", np.array([2, 3, 5, 8, 13], np.int64)), [1, 2, 2, 3, 4])
    np.testing.assert_array_equal(unary("Sigmoid", np.array([-3, 0, 2], np.int32)), [0, 0, 1])
    np.testing.assert_array_equal(unary("Negative", np.array([0, 1, 200], np.uint8)), [0, 255, 56])
    raises_for("Log", ExecutionError, "Log of the integer 0", unary, "Log", np.array([0, 1], np.int32))
    raises_for("Sqrt", ExecutionError, "Sqrt of the integer -4", unary, "Sqrt", np.array([-4], np.int64), params=())


def test_unary_float_specials():
    x = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 0.5, -0.5, -2.5], np.float32)
    np.testing.assert_array_equal(unary("ReLU", x), [np.nan, np.inf, 0, 0, -0.0, 0.5, 0, 0])
    assert np.signbit(unary("ReLU", x)[4])
    s = unary("Sign", x)
    np.testing.assert_array_equal(s, [np.nan, 1, -1, 0, 0, 1, -1, -1])
    assert not np.signbit(s[4])
    np.testing.assert_array_equal(unary("Round", x, {"mode": "half_to_even"}, "opset5"), [np.nan, np.inf, -np.inf, 0, -0.0, 0, -0.0, -2])
    np.testing.assert_array_equal(unary("Round", x, {"mode": "half_away_from_zero"}, "opset5"),
                                  [np.nan, np.inf, -np.inf, 0, -0.0, 1, -1, -3])
    np.testing.assert_array_equal(unary("IsInf", x, {"detect_negative": "false"}, "opset10"),
                                  [False, True, False, False, False, False, False, False])
    np.testing.assert_array_equal(unary("IsNaN", x, version="opset10"), [True] + [False] * 7)
    np.testing.assert_array_equal(unary("IsFinite", x, version="opset10"), [False, False, False] + [True] * 5)


def test_logical_ops():
    a, b = np.array([True, True, False, False]), np.array([True, False, True, False])
    np.testing.assert_array_equal(binary("LogicalAnd", a, b), [True, False, False, False])
    np.testing.assert_array_equal(binary("LogicalOr", a, b), [True, True, True, False])
    np.testing.assert_array_equal(run_op("LogicalXor", [a, b], version="opset2", params=(0, 1))[0], [False, True, True, False])
    np.testing.assert_array_equal(unary("LogicalNot", a), [False, False, True, True])
    np.testing.assert_array_equal(unary("LogicalNot", np.array([0.0, 1.5, -2.0], np.float32)), [1, 0, 0])


@pytest.mark.parametrize("dtype", [np.float16, BF16], ids=["f16", "bf16"])
def test_half_types_round_once(dtype):
    """f16/bf16 compute in f32 and round once: exp(1) is the nearest f16/bf16 of e."""
    out = unary("Exp", np.array([1.0], dtype))
    assert out.dtype == np.dtype(dtype) and out[0] == np.array(math.e, np.float32).astype(dtype)


# ---------------------------------------------------------------------------------------------
# Element types

rejects_add = partial(raises_for, "Add")


def test_type_errors():
    rejects_add(ShapeError, "Arguments do not have the same element type (arg0 element type: f32, arg1 element "
                "type: f16).", binary, "Add", np.ones(2, np.float32), np.ones(2, np.float16))
    rejects_add(ShapeError, "This operation does not support inputs with element type: boolean", binary, "Add",
                np.array([True]), np.array([False]))
    raises_for("LogicalAnd", ShapeError, "Operands for logical operators must have boolean element type but have "
               "element type i32.", binary, "LogicalAnd", np.ones(2, np.int32), np.ones(2, np.int32))
    raises_for("Abs", ShapeError, "This operation does not support input with element type: boolean",
               unary, "Abs", np.array([True]))
    raises_for("Mish", ShapeError, "Element must be of floating point type, Got: i32", unary, "Mish",
               np.array([1], np.int32), version="opset4")
    raises_for("IsNaN", ShapeError, "must be a floating point number", unary, "IsNaN", np.array([1], np.int8),
               version="opset10")
    rejects_add(UnsupportedError, "irrun does not support Add on f8e4m3", infer_op, "Add",
                [Param("f8e4m3", "2"), Param("f8e4m3", "2")])


def test_dynamic_element_type_propagates():
    (out,) = infer_op("Add", [Param("dynamic", "2"), Param("f16", "1")])
    assert out.etype.name == "f16"
    (out,) = infer_op("Equal", [Param("dynamic", "2"), Param("dynamic", "2")])
    assert out.etype.name == "boolean"


def test_erf_against_math_erf():
    x = np.concatenate([np.linspace(-7, 7, 2801), [0.46875, -0.46875, 4.0, 1e-300, -1e-12, 30.0]])
    want = np.array([math.erf(v) for v in x])
    np.testing.assert_allclose(erf(x), want, rtol=2e-15, atol=1e-300)
    assert np.isnan(erf(np.array([np.nan])))[0] and erf(np.array([-np.inf]))[0] == -1.0


def test_folds_when_constant():
    (info,) = infer_op("Multiply", [np.array([1, 2], np.int64), np.array(3, np.int64)], params=())
    np.testing.assert_array_equal(info.value, [3, 6])


def test_every_measured_op_has_a_test_module():
    import test_activations
    import test_reduce
    from expectations import _index
    tested = {t.lower() for t in TYPES + test_activations.TYPES + test_reduce.TYPES}
    tested |= {"softmax", "logsoftmax", "select", "cumsum", "range", "convertlike"}   # one module each
    assert {c["type"].lower() for c in _index() if "type" in c} <= tested


def test_large_and_strided_inputs_run_in_blocks():
    """float_math evaluates element-wise functions block by block (BLOCK elements): the blocks
    must tile the whole array, in order, whatever its strides."""
    from irrun.ops._numerics import BLOCK
    x = np.linspace(-5, 5, 3 * BLOCK + 7)[::-1]                     # negative stride, ragged end
    np.testing.assert_allclose(unary("Erf", x), [math.erf(v) for v in x], rtol=1e-15, atol=1e-300)
    y = np.linspace(-3, 3, 300 * 400, dtype=np.float32).reshape(300, 400).T
    out = run_op("Gelu", [y], {"approximation_mode": "tanh"}, version="opset7")[0]
    want = 0.5 * y * (1 + np.tanh(np.sqrt(2 / np.pi) * (y + 0.044715 * y.astype(np.float64) ** 3)))
    assert out.shape == (400, 300)
    np.testing.assert_allclose(out, want, rtol=1e-6, atol=1e-7)
