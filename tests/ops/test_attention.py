"""ScaledDotProductAttention-13: the spec's pseudo-code evaluated by hand (Python's math module) on
tiny inputs, the masks, causal and scale inputs, batch broadcasting, the shape rule (the spec's
examples) and OpenVINO's measured answers (attention_quantize_movement_expectations, the CPU plugin)."""

import math

import numpy as np
import pytest

from helpers import Param, infer_op, raises_for, run_op, shape_str
from irrun.types import elements
from irrun.errors import ShapeError, UnsupportedError
from nn_cases import case_ids, inputs_of, replay

OP = "ScaledDotProductAttention"
BF16 = elements.TYPES["bf16"].dtype
#: the CPU plugin returns uninitialised memory when S = 0 (irrun: zeros, see below)
CPU_GARBAGE = {"ScaledDotProductAttention-empty-S"}
rejects = lambda *a, **k: raises_for(OP, *a, **k)  # noqa: E731


@pytest.mark.parametrize("case", [c for c in case_ids(OP) if c not in CPU_GARBAGE])
def test_openvino_case(case):
    replay(case)


def sdpa(q, k, v, *extra, causal=False, params=(0, 1, 2)):
    return run_op(OP, [q, k, v, *extra], {"causal": str(causal).lower()}, "opset13", params=params)[0]


Q = np.array([[[1.0, 0.0], [0.0, 2.0]]], np.float32)        # [N=1, L=2, E=2]
K = np.array([[[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]], np.float32)   # S = 3
V = np.array([[[1.0, 10.0], [2.0, 20.0], [4.0, 40.0]]], np.float32)


def by_hand(scores_rows, values):
    """softmax over each row of scores, then the weighted sum of the value rows."""
    out = []
    for row in scores_rows:
        e = [math.exp(s) if s != -math.inf else 0.0 for s in row]
        t = sum(e)
        out.append([sum(w / t * val[j] for w, val in zip(e, values)) for j in range(len(values[0]))])
    return out


@pytest.mark.parametrize("params", [(0, 1, 2), ()], ids=["parameters", "constants-folded"])
def test_spec_pseudo_code(params):
    r = 1 / math.sqrt(2)     # scale = 1 / sqrt(E)
    want = by_hand([[r, 0, r], [0, 2 * r, 2 * r]], V[0].tolist())
    np.testing.assert_allclose(sdpa(Q, K, V, params=params)[0], want, rtol=1e-6)


def test_causal_masks_above_the_diagonal():
    r = 1 / math.sqrt(2)
    want = by_hand([[r, -math.inf, -math.inf], [0, 2 * r, -math.inf]], V[0].tolist())
    np.testing.assert_allclose(sdpa(Q, K, V, causal=True)[0], want, rtol=1e-6)
    # a mask input is ignored when causal
    np.testing.assert_allclose(sdpa(Q, K, V, np.full((2, 3), 5.0, np.float32), causal=True)[0], want, rtol=1e-6)


def test_scale_input_and_float_mask():
    m = np.array([[0.5, -1.0, 0.0], [1.0, 0.0, -2.0]], np.float32)
    want = by_hand([[0.3 + 0.5, -1, 0.3], [1, 0.6, 0.6 - 2]], V[0].tolist())
    np.testing.assert_allclose(sdpa(Q, K, V, m, np.float32(0.3))[0], want, rtol=1e-6)
    np.testing.assert_allclose(sdpa(Q, K, V, m, np.array([0.3], np.float32), params=(0, 1, 2, 3, 4))[0],
                               want, rtol=1e-6)


def test_boolean_mask_keeps_true():
    m = np.array([[True, False, True], [False, False, True]])
    r = 1 / math.sqrt(2)
    want = by_hand([[r, -math.inf, r], [-math.inf, -math.inf, 2 * r]], V[0].tolist())
    np.testing.assert_allclose(sdpa(Q, K, V, m)[0], want, rtol=1e-6)


def test_fully_masked_rows_are_nan():
    out = sdpa(Q, K, V, np.array([[True, True, True], [False, False, False]]))
    assert not np.isnan(out[0, 0]).any() and np.isnan(out[0, 1]).all()
    assert np.isnan(sdpa(Q, K, V, np.array(False))).all()          # a scalar false masks everything


def test_scalar_zero_mask_changes_nothing():
    np.testing.assert_allclose(sdpa(Q, K, V, np.float32(0)), sdpa(Q, K, V), rtol=1e-7)


def test_mask_broadcasts_the_query_length():
    # L = 1 in the query, 2 in the mask: the output takes L = 2 (measured shape rule)
    q = Q[:, :1]
    m = np.array([[0.0, 0.0, 0.0], [0.0, -math.inf, 0.0]], np.float32)
    r = 1 / math.sqrt(2)
    want = by_hand([[r, 0, r], [r, -math.inf, r]], V[0].tolist())
    np.testing.assert_allclose(sdpa(q, K, V, m)[0], want, rtol=1e-6)


def test_batch_dims_broadcast():
    q = np.stack([Q[0], 2 * Q[0]])[:, None]           # [2, 1, L, E]
    k = K[None]                                       # [1, 1, S, E]
    v = np.stack([V[0], -V[0], V[0]])[None]           # [1, 3, S, Ev]
    out = sdpa(q, k, v)
    assert out.shape == (2, 3, 2, 2)
    np.testing.assert_allclose(out[1, 1], -sdpa(2 * Q, K, V)[0], rtol=1e-6)


def test_empty_source_gives_zeros():
    out = sdpa(np.ones((1, 2, 4), np.float32), np.ones((1, 0, 4), np.float32), np.ones((1, 0, 3), np.float32))
    np.testing.assert_array_equal(out, np.zeros((1, 2, 3), np.float32))
    assert inputs_of("ScaledDotProductAttention-empty-S")[0][1].shape == (1, 0, 8)


@pytest.mark.parametrize("dtype, tol", [(np.float64, 1e-12), (np.float16, 2e-3), (BF16, 1e-2)], ids=["f64", "f16", "bf16"])
def test_other_float_types(dtype, tol):
    out = sdpa(*(a.astype(dtype) for a in (Q, K, V)))
    assert out.dtype == np.dtype(dtype)
    r = 1 / math.sqrt(2)
    np.testing.assert_allclose(out[0].astype(np.float64), by_hand([[r, 0, r], [0, 2 * r, 2 * r]], V[0].tolist()),
                               rtol=tol)


@pytest.mark.parametrize("shapes, want", [
    (["1,-1,80", "1,-1,80", "1,-1,80", "1,-1,-1"], "[1,?,80]"),                   # spec example 1
    (["1,2,3,-1,80", "1,2,3,-1,80", "1,2,3,-1,80", "1,2,3,-1,-1"], "[1,2,3,?,80]"),   # spec example 2
    (["1,6,?,80", "4,1,?,80", "4,6,?,16"], "[4,6,?,16]"),
    (["2..4,8,1..10,16", "?,8,5..20,16", "3,1,?,8"], "[3,8,1..10,8]"),
    (["...", "2,8,10,16", "2,8,10,8"], "[...]"),
    (["2,8,4,16", "2,8,10,16", "..."], "[2,8,4,?]"),
    (["2,1,16", "2,10,16", "2,10,8", "2,4,10"], "[2,4,8]"),                      # the mask grows L
    (["1,4,16", "1,10,16", "1,10,8", "3,4,10"], "[3,4,8]"),                      # ...and the batch
])
def test_partial_shapes(shapes, want):
    (info,) = infer_op(OP, [Param("f32", s) for s in shapes], {"causal": "false"}, "opset13", params=())
    assert shape_str(info) == want


def test_spec_example_3_is_rejected_as_by_openvino():
    rejects(ShapeError, "Key input shape not compatible with other inputs.", infer_op, OP,
            [Param("f32", s) for s in ("1,6,5,-1,80", "2,2,2,-1,80", "4,3,10,-1,80", "1,2,1,-1,-1")],
            {"causal": "false"}, "opset13", params=())


@pytest.mark.parametrize("shapes, msg", [
    (["4,16", "10,16", "10,8"], "Query input rank length must be at least 3 or more."),
    (["2,4,16", "3,10,16", "3,10,8"], "Key input shape not compatible with other inputs."),
    (["2,4,16", "2,10,1", "2,10,8"], "Key input shape not compatible with other inputs."),
    (["2,4,16", "2,10,16", "2,7,8"], "Value input shape not compatible with other inputs."),
    (["2,4,16", "2,10,16", "2,10,8", "2,3,10"], "Attention mask input shape not compatible with other inputs."),
    (["2,4,16", "2,10,16", "2,10,8", "10"], "Attention mask input shape not compatible with other inputs."),
    (["2,4,16", "2,10,16", "2,10,8", "4,10", "2"], "Scale input must be scalar or have 1 element."),
])
def test_shape_errors(shapes, msg):
    rejects(ShapeError, msg, infer_op, OP, [Param("f32", s) for s in shapes], {"causal": "false"}, "opset13",
            params=())


def test_type_errors():
    q = np.ones((1, 2, 4), np.float32)
    rejects(ShapeError, "Mixed input types are not supported.", sdpa, q, q.astype(np.float16), q)
    rejects(ShapeError, "Mixed input types are not supported.", sdpa, q, q, q, np.zeros((2, 2), np.float16))
    rejects(ShapeError, "The element type of attention_mask must be either floating-point or boolean.",
            sdpa, q, q, q, np.zeros((2, 2), np.int32))
    rejects(ShapeError, "The element type of the input tensor must be a floating-point.",
            sdpa, *(q.astype(np.int32),) * 3)
    rejects(UnsupportedError, "irrun does not support ScaledDotProductAttention on f8e4m3", infer_op, OP,
            [Param("f8e4m3", "1,2,4")] * 3, {"causal": "false"}, "opset13", params=())


def test_key_embedding_must_equal_the_query_one():
    rejects(ShapeError, "Key input shape not compatible", sdpa, np.ones((1, 2, 4), np.float32),
            np.ones((1, 3, 5), np.float32), np.ones((1, 3, 2), np.float32))


def test_sink_takes_probability_mass():
    # a sink of log(S) next to S equal scores: the softmax over S+1 entries gives every key
    # 1/(2S) of the mass, so the output is half the mean of the values
    q, k = np.zeros((1, 1, 2, 4), np.float32), np.zeros((1, 1, 3, 4), np.float32)
    v = np.arange(12, dtype=np.float32).reshape(1, 1, 3, 4)
    sink = np.full((1, 1, 1, 1), math.log(3), np.float32)
    out = sdpa(q, k, v, np.zeros((2, 3), np.float32), np.float32(1), sink)
    np.testing.assert_allclose(out, np.broadcast_to(v.mean(axis=2, keepdims=True) / 2, (1, 1, 2, 4)), rtol=1e-6)
    rejects(ShapeError, "The rank of sink input shape must be equal to the query input rank.",
            sdpa, q, k, v, np.zeros((2, 3), np.float32), np.float32(1), np.zeros((1, 1, 1), np.float32))
