"""LRN-1: the spec formula evaluated with explicit loops, the window of even sizes, axes other
than the CPU plugin's two (no OpenVINO oracle), the errors, and OpenVINO's measured answers
(attention_quantize_movement_expectations: the CPU plugin, axes {1} and {2, 3})."""

import itertools

import numpy as np
import pytest

from helpers import Param, infer_op, raises_for, run_op, shape_str
from irrun.types import elements
from irrun.errors import ExecutionError, ShapeError, UnsupportedError
from nn_cases import case_ids, replay

BF16 = elements.TYPES["bf16"].dtype
REFUSE = {"LRN-shape-size0": "size must be at least 1",
          "LRN-shape-i32": "irrun does not support LRN on i32"}
#: OpenVINO's message comes from its Constant API, before the op sees the axes
MESSAGES = {"LRN-shape-axes-float": "Axes input must be integral numbers, but are: f32"}
rejects = lambda *a, **k: raises_for("LRN", *a, **k)  # noqa: E731


@pytest.mark.parametrize("case", case_ids("LRN"))
def test_openvino_case(case):
    replay(case, REFUSE, MESSAGES)


def by_loops(x, axes, alpha, beta, bias, size):
    """y = x / (bias + alpha / size**len(axes) * sum of x**2 over [i - (size-1)//2, i + (size-1)//2])**beta"""
    x = x.astype(np.float64)
    h = (size - 1) // 2
    out = np.empty_like(x)
    for idx in itertools.product(*map(range, x.shape)):
        ranges = [range(max(0, i - h), min(n, i + h + 1)) if a in axes else [i]
                  for a, (i, n) in enumerate(zip(idx, x.shape))]
        s = sum(x[j] ** 2 for j in itertools.product(*ranges))
        out[idx] = x[idx] / (bias + alpha / size ** len(axes) * s) ** beta
    return out


X = np.linspace(-2, 2, 2 * 5 * 3 * 4).reshape(2, 5, 3, 4)


def lrn(x, axes, params=(0,), **a):
    return run_op("LRN", [x, np.array(axes, np.int64)], {k: str(v) for k, v in a.items()}, params=params)[0]


@pytest.mark.parametrize("axes", [[1], [2, 3], [3], [1, 2], [0, 1, 2, 3], [], [-1]], ids=str)
@pytest.mark.parametrize("size", [1, 3, 4, 5])
def test_formula(axes, size):
    a = dict(alpha=0.7, beta=0.75, bias=1.5, size=size)
    want = by_loops(X, {ax % 4 for ax in axes}, **a)
    np.testing.assert_allclose(lrn(X.astype(np.float32), axes, **a), want, rtol=1e-5)


@pytest.mark.parametrize("dtype, tol", [(np.float64, 1e-12), (np.float16, 2e-3), (BF16, 1e-2)], ids=["f64", "f16", "bf16"])
def test_float_types(dtype, tol):
    a = dict(alpha=0.5, beta=0.6, bias=2.0, size=3)
    out = lrn(X.astype(dtype), [1], **a)
    assert out.dtype == np.dtype(dtype)
    np.testing.assert_allclose(out.astype(np.float64), by_loops(X.astype(dtype), {1}, **a), rtol=tol)


@pytest.mark.parametrize("params", [(0,), (0, 1), ()], ids=["const-axes", "param-axes", "folded"])
def test_axes_input_paths(params):
    a = dict(alpha=1.0, beta=1.0, bias=1.0, size=3)
    x = np.array([[1.0, 2.0, 2.0]], np.float32)
    # channel windows {0,1}, {0,1,2}, {1,2}: sums 5, 9, 8; scale 1/3
    want = [[1 / (1 + 5 / 3), 2 / (1 + 3), 2 / (1 + 8 / 3)]]
    np.testing.assert_allclose(lrn(x, [1], params=params, **a), want, rtol=1e-6)


def test_duplicate_axes_count_once():
    a = dict(alpha=0.7, beta=0.75, bias=1.5, size=3)
    np.testing.assert_allclose(lrn(X, [1, 1], **a), lrn(X, [1], **a), rtol=1e-12)


def test_shapes_and_errors():
    a = {"alpha": "1", "beta": "1", "bias": "1", "size": "3"}
    assert shape_str(infer_op("LRN", [Param("f32", "?,3,?,?"), np.array([1])], a, params=())[0]) == "[?,3,?,?]"
    assert shape_str(infer_op("LRN", [Param("f32", "..."), np.array([1])], a, params=())[0]) == "[...]"
    rejects(ShapeError, "Reduction axis (4) is out of bounds (argument shape: [2,3,4,5], reduction axes: "
            "AxisSet{4})", infer_op, "LRN", [Param("f32", "2,3,4,5"), np.array([4])], a, params=())
    rejects(ShapeError, "Input axes must have rank equals 1 (axes_rank: 2).", infer_op, "LRN",
            [Param("f32", "2,3,4,5"), np.array([[1]])], a, params=())
    rejects(ShapeError, "Number of elements of axes must be >= 0 and <= argument rank (axes_shape[0]: 3).",
            infer_op, "LRN", [Param("f32", "2,3"), np.array([0, 1, 0])], a, params=())
    rejects(ShapeError, "size must be at least 1", lrn, X, [1], alpha=1, beta=1, bias=1, size=0)
    rejects(UnsupportedError, "irrun does not support LRN on i32", lrn, X.astype(np.int32), [1],
            alpha=1, beta=1, bias=1, size=3)
    rejects(ExecutionError, "Reduction axis (-5) is out of bounds", lrn, X, [-5], params=(0, 1),
            alpha=1, beta=1, bias=1, size=3)
