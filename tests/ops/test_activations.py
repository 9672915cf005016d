"""Activations: ReLU, Sigmoid, HSwish, HSigmoid, Mish (rows of the unary table) and Clamp-1, Elu-1,
Swish-4, Gelu-2/7, PRelu-1, HardSigmoid-1, Selu-1, SoftPlus-4, SoftSign-9, Identity-16
(irrun/ops/activations.py). OpenVINO's measured answers
(expectations.py), the spec formulas evaluated with Python's math module, the integer and NaN
behaviour measured on OpenVINO 2026.4.1, PRelu's slope layouts, and the error messages."""
from __future__ import annotations

import math

import numpy as np
import pytest

from expectations import cases, check
from helpers import ALL_DTYPES, Param, infer_op, raises_for, run_op, sample, shape_str
from irrun.types import elements
from irrun.errors import ShapeError, UnsupportedError
from nn_cases import case_ids, replay

TYPES = ["ReLU", "Sigmoid", "HSwish", "HSigmoid", "Mish", "Clamp", "Elu", "Swish", "Gelu", "PReLU"]
BF16 = elements.TYPES["bf16"].dtype
X = np.array([-6.0, -3.5, -1.0, -0.25, 0.0, 0.5, 2.0, 3.5, 7.0])


@pytest.mark.parametrize("case", cases(*TYPES))
def test_openvino_expectations(case):
    check(case)


def act(op, x, attrs=None, version="opset1", params=(0,), extra=()):
    return run_op(op, [np.asarray(x), *extra], attrs, version=version, params=params)[0]


def spec(fn, x=X):
    return np.array([fn(v) for v in x])


FORMULAS = [  # op, version, attrs, formula from the op's spec
    ("ReLU", "opset1", None, lambda v: max(v, 0.0)),
    ("Sigmoid", "opset1", None, lambda v: 1 / (1 + math.exp(-v))),
    ("HSwish", "opset4", None, lambda v: v * min(max(v + 3, 0), 6) / 6),
    ("HSigmoid", "opset5", None, lambda v: min(max(v + 3, 0), 6) / 6),
    ("Mish", "opset4", None, lambda v: v * math.tanh(math.log1p(math.exp(v)))),
    ("Elu", "opset1", {"alpha": "0.5"}, lambda v: v if v > 0 else 0.5 * (math.exp(v) - 1)),
    ("Swish", "opset4", None, lambda v: v / (1 + math.exp(-v))),
    ("Gelu", "opset2", None, lambda v: 0.5 * v * (1 + math.erf(v / math.sqrt(2)))),
    ("Gelu", "opset7", {"approximation_mode": "tanh"},
     lambda v: 0.5 * v * (1 + math.tanh(math.sqrt(2 / math.pi) * (v + 0.044715 * v ** 3)))),
    ("Gelu", "opset7", {"approximation_mode": "ERF"}, lambda v: 0.5 * v * (1 + math.erf(v / math.sqrt(2)))),
    ("Clamp", "opset1", {"min": "-1.5", "max": "2.5"}, lambda v: min(max(v, -1.5), 2.5)),
]


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16, BF16], ids=["f64", "f32", "f16", "bf16"])
@pytest.mark.parametrize("op, version, attrs, fn", FORMULAS, ids=[f"{f[0]}-{f[1]}" for f in FORMULAS])
def test_spec_formulas(op, version, attrs, fn, dtype):
    x = X.astype(dtype)
    out = act(op, x, attrs, version)
    assert out.dtype == np.dtype(dtype) and out.shape == x.shape
    rtol = {np.float64: 1e-12, np.float32: 1e-6}.get(dtype, 2 ** -7)
    np.testing.assert_allclose(out.astype(np.float64), spec(fn, x.astype(np.float64)), rtol=rtol, atol=rtol * 1e-2)


def test_clamp_integers_ceil_min_floor_max():
    out = act("Clamp", np.array([7, 0, 9, 2, 5, 1, -2, -5, -8], np.int32), {"min": "-1.5", "max": "6.7"})
    np.testing.assert_array_equal(out, [6, 0, 6, 2, 5, 1, -1, -1, -1])
    np.testing.assert_array_equal(act("Clamp", np.array([-3, 0, 3], np.int32), {"min": "0.2", "max": "0.8"}), [1, 1, 0])
    np.testing.assert_array_equal(act("Clamp", np.array([0, 3, 200, 255], np.uint8), {"min": "-5", "max": "250.2"}),
                                  [0, 3, 200, 250])
    np.testing.assert_array_equal(act("Clamp", np.array([np.nan, np.inf, -np.inf], np.float32), {"min": "-1", "max": "1"}),
                                  [np.nan, 1, -1])


def test_clamp_errors():
    raises_for("Clamp", ShapeError, "Attribute 'min' must be less or equal than 'max'. Got: 2 and 1",
               act, "Clamp", np.ones(2, np.float32), {"min": "2", "max": "1"})
    raises_for("Clamp", ShapeError, "Input element type must be numeric. Got: boolean",
               act, "Clamp", np.array([True]), {"min": "0", "max": "1"})


@pytest.mark.parametrize("params", [(0,), (0, 1)], ids=["const-beta", "param-beta"])
def test_swish_beta(params):
    x = X.astype(np.float32)
    out = act("Swish", x, version="opset4", params=params, extra=[np.float32(0.75)])
    np.testing.assert_allclose(out, spec(lambda v: v / (1 + math.exp(-0.75 * v))), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("shape", [(), (7,), (1, 3, 301, 307)])
def test_swish_is_the_spec_formula_bit_for_bit_in_f32(shape):
    """swish-4.rst ``x / (1 + exp(-x * beta))`` in f32, the operations in that order: the same bits
    on a 0-d tensor, a SIMD tail and a tensor of several blocks (each computed in the result
    itself), NaN, infinities, zeros and overflowing exponents included."""
    from irrun.ops.activations import Swish4
    rng = np.random.default_rng(8)
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -100.0, 100.0, 1e-40, -3.5, 2.25], np.float32)
    x = rng.choice(np.concatenate([special, rng.normal(scale=4, size=64).astype(np.float32)]), size=shape)
    x = np.asarray(x, np.float32)
    for beta in (np.float32(1.0), np.float32(0.75)):
        with np.errstate(all="ignore"):
            want = np.asarray(x / (np.float32(1) + np.exp(-x * beta)), np.float32)
        got = Swish4().run(x, np.asarray(beta))[0]
        assert got.shape == x.shape and got.dtype == np.float32
        np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))


def test_swish_errors():
    x = np.ones(3, np.float32)
    raises_for("Swish", ShapeError, "Swish input with beta must be scalar but it has rank: 1", act, "Swish", x,
               version="opset4", extra=[np.ones(1, np.float32)])
    raises_for("Swish", ShapeError, "Swish inputs must have the same type but they are: f32 and f16", act, "Swish",
               x, version="opset4", extra=[np.float16(1)])
    raises_for("Swish", ShapeError, "Swish input tensor must be floating point type(i32).", act, "Swish",
               np.ones(2, np.int32), version="opset4")
    raises_for("Gelu", ShapeError, "Argument element type must be f16, bf16, f32, f64 or dynamic (got i32).",
               act, "Gelu", np.ones(2, np.int32), version="opset7")


def test_elu_integers_and_booleans():
    np.testing.assert_array_equal(act("Elu", np.array([-8, -2, 0, 4], np.int32), {"alpha": "0.7"}), [-1, -1, 0, 4])
    np.testing.assert_array_equal(act("Elu", np.array([True, False]), {"alpha": "1"}), [True, False])


@pytest.mark.parametrize("params", [(0, 1), (0,)], ids=["param-slope", "const-slope"])
@pytest.mark.parametrize("shape, slope_shape, layout", [
    ((2, 3, 4), (3,), (1, 3, 1)),           # 1-D slope of the channel count: per channel (axis 1)
    ((2, 3, 4), (4,), (1, 1, 4)),           # any other 1-D length: NumPy broadcasting
    ((2, 3, 4, 5), (3, 1, 1), (1, 3, 1, 1)),  # the ONNX/PyTorch [C,1,1] layout
    ((2, 3, 4), (1,), (1, 1, 1)), ((2, 3, 4), (), ()), ((2, 3, 4), (2, 3, 4), (2, 3, 4)),
    ((2, 3, 4), (1, 2, 3, 4), (2, 3, 4)),   # extra leading 1s (measured: accepted)
    ((5,), (5,), (5,)),                     # 1-D data: the channel axis is 0
])
def test_prelu_slope_layouts(shape, slope_shape, layout, params):
    x = np.arange(-12, -12 + math.prod(shape), dtype=np.float32).reshape(shape)
    s = (np.arange(math.prod(slope_shape), dtype=np.float32) + 1).reshape(slope_shape) / 8
    out = act("PReLU", x, params=params, extra=[s])
    np.testing.assert_array_equal(out, np.where(x < 0, x * s.reshape(layout), x))


def test_prelu_slope_types():
    out = act("PReLU", np.array([-4.0, 2.0], np.float32), params=(0, 1), extra=[np.array([0.5], np.float16)])
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out, [-2.0, 2.0])
    np.testing.assert_array_equal(act("PReLU", np.array([[-8, 3], [-1, -2]], np.int32), params=(0, 1),
                                      extra=[np.array([2, 5], np.int32)]), [[-16, 3], [-2, -10]])


@pytest.mark.parametrize("slope", [(2,), (3, 1, 1)], ids=["2", "3x1x1"])
def test_prelu_refuses_slopes_that_do_not_broadcast(slope):
    """OpenVINO accepts these and reads past the slope (measured: garbage values)."""
    raises_for("PReLU", ShapeError, "does not broadcast to the data shape [2,3,4]", act, "PReLU",
               np.ones((2, 3, 4), np.float32), params=(0, 1), extra=[np.ones(slope, np.float32)])


def test_prelu_partial_shapes():
    assert shape_str(infer_op("PReLU", [Param("f32", "2,?,4"), Param("f32", "3")])[0]) == "[2,?,4]"
    assert shape_str(infer_op("PReLU", [Param("f32", "..."), Param("f32", "3")])[0]) == "[...]"
    assert shape_str(infer_op("PReLU", [Param("f32", "2,3"), Param("f32", "?")])[0]) == "[2,3]"


def test_partial_shapes_pass_through():
    for op, version in [("ReLU", "opset1"), ("Gelu", "opset7"), ("Swish", "opset4")]:
        (info,) = infer_op(op, [Param("f16", "1..4,?")], version=version)
        assert shape_str(info) == "[1..4,?]" and info.etype.name == "f16"



# ---------------------------------------------------------------------------------------------
# HardSigmoid-1, Selu-1, SoftPlus-4, SoftSign-9, Identity-16 (attention_quantize_movement_expectations: the CPU plugin)

#: OpenVINO builds these but computes something else than the formula: irrun refuses
REFUSE = {"HardSigmoid-i32": "irrun does not support HardSigmoid on i32",
          "Selu-alpha-2": "the 'alpha' input has 2 elements, not one"}
#: the CPU plugin (the only oracle) computes f64 in f32 and saturates infinities to FLT_MAX;
#: test_more_formulas covers f64 by the spec formula instead
CPU_F64 = {"Selu-f64", "SoftPlus-f64", "SoftSign-f64"}
MORE = ["HardSigmoid", "Selu", "SoftPlus", "SoftSign", "Identity"]


@pytest.mark.parametrize("case", [c for c in case_ids(*MORE) if c not in CPU_F64])
def test_openvino_case(case):
    replay(case, REFUSE)


def _softplus(v):
    return math.log(math.exp(v) + 1) if v < math.log(np.finfo(np.float64).max) else v


MORE_FORMULAS = [  # op, version, extra inputs, formula from the op's spec
    ("HardSigmoid", "opset1", (0.2, 0.5), lambda v: max(0.0, min(1.0, 0.2 * v + 0.5))),
    ("Selu", "opset1", (1.67, 1.05), lambda v: 1.05 * (v if v > 0 else 1.67 * (math.exp(v) - 1))),
    ("SoftPlus", "opset4", (), _softplus),
    ("SoftSign", "opset9", (), lambda v: v / (1 + abs(v))),
    ("Identity", "opset16", (), lambda v: v),
]


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16, BF16], ids=["f64", "f32", "f16", "bf16"])
@pytest.mark.parametrize("op, version, extra, fn", MORE_FORMULAS, ids=[f[0] for f in MORE_FORMULAS])
def test_more_formulas(op, version, extra, fn, dtype):
    x = np.concatenate([X, [-30.0, 30.0]]).astype(dtype)
    ins = [np.asarray(v, dtype) for v in extra]
    for params in ((0,), tuple(range(1 + len(ins)))):
        out = act(op, x, None, version, params=params, extra=ins)
        assert out.dtype == np.dtype(dtype) and out.shape == x.shape
        rtol = {np.float64: 1e-12, np.float32: 1e-6}.get(dtype, 2 ** -7)
        want = spec(fn, x.astype(np.float64))     # (SoftPlus's log(exp(x) + 1) loses 3e-8 near 0)
        np.testing.assert_allclose(out.astype(np.float64), want, rtol=rtol, atol=rtol * 1e-1)


def test_more_special_values():
    x = np.array([np.nan, np.inf, -np.inf], np.float32)
    np.testing.assert_array_equal(act("HardSigmoid", x, extra=[np.float32(0.2), np.float32(0.5)]), [1, 1, 0])
    np.testing.assert_array_equal(act("Selu", x, extra=[np.float32(2), np.float32(3)]), [np.nan, np.inf, -6])
    np.testing.assert_array_equal(act("SoftPlus", x, version="opset4"), [np.nan, np.inf, 0])
    np.testing.assert_array_equal(act("SoftSign", x, version="opset9"), [np.nan, np.nan, np.nan])
    # SoftPlus is x itself from log(max of the type) on: 11.09 for f16
    assert act("SoftPlus", np.float16(11.5), version="opset4") == np.float16(11.5)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_identity_every_type_is_the_input(dtype):
    x = sample((2, 3), dtype)
    for params in ((0,), ()):
        out = act("Identity", x, version="opset16", params=params)
        assert out.dtype == x.dtype and (out == x).all()
    from irrun.ops.activations import Identity16
    assert Identity16().run(x)[0] is x                     # no copy


def test_more_errors():
    x = np.ones(3, np.float32)
    rejects = raises_for
    rejects("HardSigmoid", ShapeError, "A scalar is expected for the 'alpha' input. Got: [1]", act, "HardSigmoid", x,
            extra=[np.ones(1, np.float32), np.float32(1)])
    rejects("HardSigmoid", ShapeError, "A scalar is expected for the 'beta' input. Got: [1,1]", act, "HardSigmoid", x,
            extra=[np.float32(1), np.ones((1, 1), np.float32)])
    rejects("HardSigmoid", ShapeError, "The element types of both alpha and beta inputs must match the data input "
            "type.", act, "HardSigmoid", x, extra=[np.float16(1), np.float32(1)])
    rejects("HardSigmoid", UnsupportedError, "irrun does not support HardSigmoid on i32", act, "HardSigmoid",
            x.astype(np.int32), extra=[np.int32(1), np.int32(1)])
    rejects("Selu", ShapeError, "Input element types do not match : f32 and f16 and f32", act, "Selu", x,
            extra=[np.float16(1), np.float32(1)])
    rejects("Selu", ShapeError, "Input element types must be floating-point. Got: i32", act, "Selu",
            x.astype(np.int32), extra=[np.int32(1), np.int32(1)])
    rejects("Selu", ShapeError, "the 'lambda' input has 2 elements", act, "Selu", x,
            extra=[np.float32(1), np.ones(2, np.float32)])
    rejects("SoftPlus", ShapeError, "Input element type must be float. Got: i32", act, "SoftPlus",
            x.astype(np.int32), version="opset4")
    rejects("SoftSign", ShapeError, "Input element type must be float, instead got: i32", act, "SoftSign",
            x.astype(np.int32), version="opset9")


def test_more_partial_shapes():
    for op, version, extra in [("HardSigmoid", "opset1", [np.float32(1)] * 2), ("Selu", "opset1", [np.float32(1)] * 2),
                               ("SoftPlus", "opset4", []), ("SoftSign", "opset9", []), ("Identity", "opset16", [])]:
        for shape in ("1..4,?", "..."):
            (info,) = infer_op(op, [Param("f32", shape), *extra], version=version)
            assert shape_str(info) == f"[{shape}]"


@pytest.mark.parametrize("path", ["clip", "ties_keep_second", "fallback"])
def test_clamp_and_relu_keep_the_sign_of_a_zero_at_a_zero_bound(path, monkeypatch):
    """``x < min ? min : x > max ? max : x`` returns x itself for a tie of 0.0 and -0.0. The f32
    kernels are np.clip where this NumPy build is probed to clip by that rule, else
    np.maximum/np.minimum, with the operand order that keeps x where the build is probed to
    return the second operand of a tie, else with a pass that restores the signs; all three
    paths run here (long arrays take NumPy's SIMD loops)."""
    from irrun.ops import activations, elementwise
    if path != "clip":
        monkeypatch.setattr(activations, "clip_is_clamp", lambda dtype: False)
        monkeypatch.setattr(elementwise, "clip_is_clamp", lambda dtype: False)
    if path == "fallback":
        monkeypatch.setattr(activations, "ties_keep_second", lambda dtype: False)
        monkeypatch.setattr(elementwise, "ties_keep_second", lambda dtype: False)
    x = np.tile(np.array([-0.0, 0.0, -1.0, 7.0], np.float32), 300)
    for lo, hi in (("0", "6"), ("-0", "6"), ("-6", "0"), ("-6", "-0")):
        out = act("Clamp", x, {"min": lo, "max": hi})
        assert np.signbit(out[0::4]).all() and not np.signbit(out[1::4]).any(), (lo, hi)
    out = act("ReLU", x)
    assert np.signbit(out[0::4]).all() and not np.signbit(out[1::4]).any() and not np.signbit(out[2::4]).any()


def _spec_clamp(x: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Clamp-1's rule as the spec writes it, one element at a time (NaN and -0.0 pass as x)."""
    with np.errstate(invalid="ignore"):
        return np.array([lo if v < lo else hi if v > hi else v for v in x], x.dtype)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "bfloat16"])
def test_clamp_and_relu_on_edge_values_follow_the_spec_rule_bit_for_bit(dtype):
    """Every float type, edge data (NaN of both signs, +-0, +-inf, bounds and their neighbours,
    subnormals) and edge bounds (zeros of both signs, equal bounds, bounds that round in the type,
    infinite ones), in lengths that take NumPy's SIMD loops and tails: the result's bits are the
    spec rule's ``x < min ? min : x > max ? max : x`` (ReLU: ``x < 0 ? 0 : x``)."""
    dt = BF16 if dtype == "bfloat16" else np.dtype(dtype)
    bits = f"u{dt.itemsize}"
    with np.errstate(all="ignore"):
        edges = np.array([np.nan, -np.nan, 0.0, -0.0, np.inf, -np.inf, 1.0, -1.0, 6.0, 6.0001, 0.1, -0.1,
                          1e-40, -1e-40, 65504.0, 1e30, -3e38], np.float64).astype(dt)
    rng = np.random.default_rng(0)
    for n in (5, 33, 1000):
        x = rng.permutation(np.resize(edges, n))
        for lo, hi in ((0.0, 6.0), (-0.0, 6.0), (-6.0, 0.0), (-6.0, -0.0), (0.0, 0.0), (-0.0, 0.0),
                       (0.1, 0.1), (-1e300, 1e300), (1e-40, 1.0), (-np.inf, np.inf), (6.0001, 6.0001)):
            with np.errstate(all="ignore"):
                lo_t, hi_t = np.asarray(lo, np.float64).astype(dt), np.asarray(hi, np.float64).astype(dt)
            got = act("Clamp", x, {"min": repr(lo), "max": repr(hi)})
            want = _spec_clamp(x, lo_t, hi_t)
            assert got.dtype == dt and np.array_equal(got.view(bits), want.view(bits)), (dtype, n, lo, hi)
        got = act("ReLU", x)
        want = _spec_clamp(x, np.asarray(0, dt), np.asarray(np.inf, dt))
        assert got.dtype == dt and np.array_equal(got.view(bits), want.view(bits)), (dtype, n)


def test_gelu_f32_over_a_wide_range():
    """f32 Gelu(erf) uses an erfc fit (Numerical Recipes' erfcc): within 1e-5 relative of
    ``0.5 x erfc(-x/sqrt(2))``, tails included."""
    x = np.linspace(-9, 9, 36001, dtype=np.float32)
    want = np.array([0.5 * v * math.erfc(-v / math.sqrt(2)) for v in x.astype(np.float64)])
    for version in ("opset2", "opset7"):
        np.testing.assert_allclose(act("Gelu", x, version=version).astype(np.float64), want, rtol=1e-5, atol=1e-12)


def test_gelu_tanh_over_a_wide_range():
    """Gelu-7 ``approximation_mode="tanh"`` (gelu-7.rst: ``0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715
    x^3)))``), computed in f64 with the cube as two products: within 1e-6 of the formula on a wide
    range (absolute 1e-12 where ``1 + tanh`` cancels to ~1e-16 in the negative tail)."""
    x = np.linspace(-9, 9, 36001, dtype=np.float32)
    want = np.array([0.5 * v * (1 + math.tanh(math.sqrt(2 / math.pi) * (v + 0.044715 * v ** 3)))
                     for v in x.astype(np.float64)])
    got = act("Gelu", x, {"approximation_mode": "tanh"}, version="opset7")
    np.testing.assert_allclose(got.astype(np.float64), want, rtol=1e-6, atol=1e-12)


def test_clamp_of_a_scalar_tensor():
    # ONNX DynamicQuantizeLinear clamps a 0-d zero point; spec: min(max(x, min), max)
    for x, want in ((np.float32(300.4), 255.0), (np.float32(-2.0), 0.0), (np.float32(7.5), 7.5)):
        got = run_op("Clamp", [np.array(x)], {"min": "0", "max": "255"}, params=(0,))[0]
        assert got.shape == () and got.dtype == np.float32 and got == want


@pytest.mark.parametrize("slopes", [[-0.0563], [-0.5, 0.25, 1.0], [-2.0], [3.0, 1.5, 1.0], [0.25], [0.1, 1.0, 0.5]])
def test_prelu_negative_and_mixed_slopes_follow_the_spec_bit_for_bit(slopes):
    """prelu-1.rst: ``x < 0 ? x * slope : x`` — a zero stays the zero it was (no -0.0 from
    ``0 * -k``), infinities and NaN pass, also on long rows (NumPy's SIMD loops and tails)."""
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -3.5, 2.25, -1e-30, 1e30], np.float32)
    x = np.tile(special, (1, len(slopes), 37, 1))            # [1, C, 37, 9]: 333 values per channel
    s = np.array(slopes, np.float32)
    out = act("PReLU", x, params=(0, 1), extra=[s])
    want = np.array([[[[v * s[c] if v < 0 else v for v in row] for row in x[0, c]] for c in range(len(slopes))]],
                    np.float32)
    np.testing.assert_array_equal(out, want)
    np.testing.assert_array_equal(np.signbit(out), np.signbit(want))


@pytest.mark.parametrize("slope", [0.25, 1.0, 2.5, -0.1])
def test_prelu_in_place_and_in_blocks_is_the_spec_bit_for_bit(slope):
    """The kernel as the run loop calls it, on a tensor of several float_math blocks, written into
    its own input (``out=x``) and into a fresh array: ``x < 0 ? x * slope : x`` with the very bits
    (quiet and signalling NaN payloads, zeros' signs, infinities, subnormals, SIMD tails)."""
    from irrun.ops.activations import PRelu1
    rng = np.random.default_rng(5)
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -3.5, 2.25, -1e-40, 1e-40, 3e38, -3e38], np.float32)
    x = rng.choice(np.concatenate([special, rng.normal(size=64).astype(np.float32)]), size=(1, 3, 301, 307))
    x.reshape(-1)[:2] = np.array([0x7FA00001, 0xFFC00123], np.uint32).view(np.float32)    # sNaN, a payload
    s = np.array([slope], np.float32)
    s.flags.writeable = False
    with np.errstate(all="ignore"):
        want = np.where(x < 0, x * s.reshape(1, 1, 1, 1), x)
    op = PRelu1()
    fresh = op.run(x, s)[0]
    np.testing.assert_array_equal(fresh.view(np.uint32), want.view(np.uint32))
    y = x.copy()
    assert op.run(y, s, out=y)[0] is y
    np.testing.assert_array_equal(y.view(np.uint32), want.view(np.uint32))


@pytest.mark.parametrize("n_threads", [1, 2, 3])
def test_gelu_f32_block_by_block_is_the_erf_formula_with_the_same_bits_at_any_thread_count(n_threads,
                                                                                          monkeypatch):
    """A tensor cut into many blocks (``float_math(gelu_erf_fast, into=True)``: each block written
    straight into the result, shared with the pool):
    within 1e-5 of ``0.5 x erfc(-x/sqrt(2))`` in f64, NaN for NaN and +-inf (the CPU plugin's
    result), the very bits of one thread and of the kernel run in place."""
    from irrun.limits import parallel, threads
    from irrun.ops import _numerics as numerics
    from irrun.ops import gelu
    x = np.linspace(-9, 9, 5 * 4099, dtype=np.float32).reshape(5, 4099)
    x[0, :3] = [np.nan, np.inf, -np.inf]
    want = np.array([0.5 * v * math.erfc(-v / math.sqrt(2)) for v in x.astype(np.float64).reshape(-1)[3:]])
    monkeypatch.setattr(numerics, "BLOCK", 4099)             # 5 blocks of one row
    monkeypatch.setattr(parallel, "WORTH", 0)                # shared even at this size
    monkeypatch.setattr(threads, "_chosen", 1)
    one = numerics.float_math(gelu.gelu_erf_fast, x, into=True)
    monkeypatch.setattr(threads, "_chosen", n_threads)
    got = act("Gelu", x, version="opset7")
    assert np.isnan(got[0, :3]).all()
    np.testing.assert_allclose(got.reshape(-1)[3:].astype(np.float64), want, rtol=1e-5, atol=1e-12)
    np.testing.assert_array_equal(got.view(np.uint32), one.view(np.uint32))
    y = x.copy()
    assert numerics.float_math(gelu.gelu_erf_fast, y, out=y, into=True) is y
    np.testing.assert_array_equal(y.view(np.uint32), one.view(np.uint32))
