"""Acos, Asin, Atan, Cosh, Sinh, Tan (opset1) and Acosh, Asinh, Atanh (written opset4, the specs'
"-3"): the Tan spec's examples, domain edges (NaN outside the domain, infinities), the integer
rules measured on the reference kernels (rounded, Asin truncated, Atanh's spec rule), f16/bf16/f64,
partial shapes, the boolean refusal, and OpenVINO's answers
(tools/expectations/make_trig_bitwise_dft_sampling_expectations.py)."""
import numpy as np
import pytest

from helpers import Param, infer_op, run_op, shape_str
from irrun.types import elements
from irrun.errors import ExecutionError
from nn_cases import array, assert_close, case_ids, entry, inputs_of, replay, run_case

OPS = {"Acos": "opset1", "Asin": "opset1", "Atan": "opset1", "Cosh": "opset1", "Sinh": "opset1", "Tan": "opset1",
       "Acosh": "opset4", "Asinh": "opset4", "Atanh": "opset4"}
FN = {"Acos": np.arccos, "Asin": np.arcsin, "Atan": np.arctan, "Cosh": np.cosh, "Sinh": np.sinh, "Tan": np.tan,
      "Acosh": np.arccosh, "Asinh": np.arcsinh, "Atanh": np.arctanh}
BF16 = elements.TYPES["bf16"].dtype
#: integers outside the function's domain: no integer result (OpenVINO returns INT_MIN)
REFUSE = {f"{op}-i32-outside": "has no int32 value" for op in ("Acos", "Asin", "Acosh")}
_F64 = "the CPU plugin (no reference kernel for f64) computes in f32 and saturates to +-FLT_MAX"
_ASIN = "the reference kernel truncates Asin of integers (measured on i32/i64/u32/u64); the CPU plugin rounds"
#: cases where the only answer (the CPU plugin) is not followed: why, and the rule irrun follows,
#: written here with NumPy in f64 (not irrun's kernels)
CPU_DEVIATIONS = {**{f"{op}-f64": (_F64, FN[op]) for op in ("Cosh", "Sinh", "Tan", "Acosh", "Asinh", "Atanh")},
                  **{f"Asin-{t}": (_ASIN, lambda x: np.trunc(np.arcsin(x))) for t in ("i8", "u8", "i16", "u16")},
                  "Tan-u8": ("the CPU plugin saturates u8 (tan(2) -> 0); the reference's C cast wraps, as both "
                             "evaluators do on u16..u64 (-> 254)", lambda x: np.round(np.tan(x)).astype(np.int64))}


@pytest.mark.parametrize("case", case_ids(*OPS))
def test_openvino_case(case):
    if case not in CPU_DEVIATIONS:
        return replay(case, REFUSE)
    e = entry(case)
    (x,), _ = inputs_of(case)
    with np.errstate(all="ignore"):
        want = CPU_DEVIATIONS[case][1](x.astype(np.float64)).astype(x.dtype)
    cpu = array(e["outputs"][0]["array"], e["outputs"][0]["etype"], e["fixture"])
    assert not np.allclose(cpu.astype(np.float64), want.astype(np.float64), equal_nan=True)    # a real deviation
    assert_close(run_case(case)[0], want, e["outputs"][0]["etype"], case)


def unary(op, x, params=(0,)):
    return run_op(op, [np.asarray(x)], {}, OPS[op], params=params)[0]


@pytest.mark.parametrize("params", [(0,), ()], ids=["param", "const"])
def test_tan_spec_examples(params):
    np.testing.assert_allclose(unary("Tan", np.array([0.0, 0.25, -0.25, 0.5, -0.5], np.float32), params),
                               [0.0, 0.25534192, -0.25534192, 0.54630249, -0.54630249], rtol=1e-6)
    np.testing.assert_array_equal(unary("Tan", np.array([-2, -1, 0, 1, 2], np.int32), params), [2, -2, 0, 2, -2])


def test_domains():
    nan = np.nan
    np.testing.assert_array_equal(unary("Acos", np.float32([-2, -1, 1, 2])), np.float32([nan, np.pi, 0, nan]))
    np.testing.assert_array_equal(unary("Asin", np.float32([1.5, nan])), [nan, nan])
    np.testing.assert_array_equal(unary("Acosh", np.float32([0.5, 1])), [nan, 0])
    np.testing.assert_array_equal(unary("Atanh", np.float32([-1, 1, 2])), [-np.inf, np.inf, nan])
    np.testing.assert_array_equal(unary("Cosh", np.float32([100, -100])), [np.inf, np.inf])


def test_integer_rules():
    """acos(0) = 1.57 -> 2 (rounded), asin(1) = 1.57 -> 1 (truncated), sinh(2) = 3.63 -> 4, Tan of an
    unsigned integer with a negative result wraps (tan(2) = -2.19 -> -2 -> 254)."""
    np.testing.assert_array_equal(unary("Acos", np.int32([0, 1, -1])), [2, 0, 3])
    np.testing.assert_array_equal(unary("Asin", np.int32([1, -1])), [1, -1])
    np.testing.assert_array_equal(unary("Sinh", np.int64([2, -2])), [4, -4])
    np.testing.assert_array_equal(unary("Tan", np.uint8([2])), [254])


def test_atanh_integers_follow_the_spec():
    """Atanh-3: min for x <= -1, max for x >= 1 (unsigned: max for x > 0), else atanh(x) = 0."""
    np.testing.assert_array_equal(unary("Atanh", np.int8([-5, -1, 0, 1, 9])), [-128, -128, 0, 127, 127])
    np.testing.assert_array_equal(unary("Atanh", np.uint16([0, 1, 7])), [0, 65535, 65535])


@pytest.mark.parametrize("op", ["Acos", "Acosh"])
def test_integer_outside_the_domain_is_refused(op):
    with pytest.raises(ExecutionError, match="has no int32 value"):
        unary(op, np.int32([-3]))


@pytest.mark.parametrize("op", list(OPS))
@pytest.mark.parametrize("dtype", [np.float16, BF16, np.float64], ids=["f16", "bf16", "f64"])
def test_float_types(op, dtype):
    x = np.array([0.5, 0.75], dtype) if op not in ("Acosh",) else np.array([1.5, 2.0], dtype)
    out = unary(op, x)
    assert out.dtype == np.dtype(dtype)
    np.testing.assert_allclose(out.astype(np.float64), FN[op](x.astype(np.float64)), rtol=1e-2 if dtype != np.float64 else 1e-12)


@pytest.mark.parametrize("op", list(OPS))
def test_shapes(op):
    assert shape_str(infer_op(op, [Param("f32", "2..5,?")], {}, OPS[op], params=())[0]) == "[2..5,?]"
