"""MatMul-1: the matmul-1.rst rules (transposes, 1-D operands, batch broadcasting) with hand-computed
values, and the OpenVINO measurements of tools/expectations/make_nn_expectations.py (nn_cases)."""
from functools import partial

import numpy as np
import pytest

from helpers import ALL_DTYPES, Param, infer_op, raises_for, run_op, shape_str
from irrun.types import elements
from irrun.errors import ShapeError, UnsupportedError
from nn_cases import case_ids, replay

rejects = partial(raises_for, "MatMul")
NUMERIC = [d for d in ALL_DTYPES if np.dtype(d) not in (np.dtype(np.bool_), elements.STRING_DTYPE)]
A = np.array([[1, 2, 3], [4, 5, 6]])               # 2x3
B = np.array([[1, 0], [0, 1], [2, 1]])              # 3x2
AB = np.array([[7, 5], [16, 11]])                   # A @ B, by hand


def matmul(a, b, ta=False, tb=False, params=(0, 1)):
    return run_op("MatMul", [a, b], {"transpose_a": ta, "transpose_b": tb}, params=params)[0]


@pytest.mark.parametrize("case", case_ids("MatMul"))
def test_openvino_case(case):
    replay(case)


@pytest.mark.parametrize("dtype", NUMERIC)
@pytest.mark.parametrize("params", [(0, 1), (1,), ()])
def test_every_numeric_type(dtype, params):
    out = matmul(A.astype(dtype), B.astype(dtype), params=params)
    assert out.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(out.astype(np.int64), AB)


@pytest.mark.parametrize("ta, tb, a, b", [(True, False, A.T, B), (False, True, A, B.T), (True, True, A.T, B.T)])
def test_transposes_swap_the_two_innermost_dims(ta, tb, a, b):
    np.testing.assert_array_equal(matmul(a.astype(np.float32), b.astype(np.float32), ta, tb), AB)


def test_one_dimensional_operands():
    v = np.array([1, 2, 3], np.float32)
    out = matmul(v, np.array([4, 5, 6], np.float32))
    assert out.shape == () and out == 32                             # 4 + 10 + 18
    np.testing.assert_array_equal(matmul(v, B.astype(np.float32)), [7, 5])              # row vector
    np.testing.assert_array_equal(matmul(A.astype(np.float32), v), [14, 32])            # column vector
    np.testing.assert_array_equal(matmul(v, v, True, True), 14)                         # transposes ignored


def test_batch_broadcasting():
    a = np.stack([A, 2 * A]).astype(np.float32)[:, None]             # [2, 1, 2, 3]
    b = np.stack([B, -B, B]).astype(np.float32)                      # [3, 3, 2]
    out = matmul(a, b)
    assert out.shape == (2, 3, 2, 2)
    np.testing.assert_array_equal(out[1, 1], -2 * AB)
    np.testing.assert_array_equal(out[0, 2], AB)


def test_f16_and_int_wrap():
    big = np.full((1, 64), 255, np.uint8)
    np.testing.assert_array_equal(matmul(big, np.ones((64, 1), np.uint8)), [[(255 * 64) % 256]])
    h = matmul(np.full((1, 3000), 1.0, np.float16), np.full((3000, 1), 1.0, np.float16))
    assert h.dtype == np.float16 and h[0, 0] == 3000                 # accumulated in f32


@pytest.mark.parametrize("a, b, ta, tb, want", [
    ("?,2..5,3", "3,4", False, False, "[?,2..5,4]"),
    ("4,1,2,3", "5,3,?", False, False, "[4,5,2,?]"),
    ("1..3,2,3", "4,3,5", False, False, "[4,2,5]"),
    ("3,2", "3", True, False, "[2]"),
    ("...", "3,4", False, False, "[...]"),
])
def test_partial_shapes(a, b, ta, tb, want):
    info = infer_op("MatMul", [Param("f32", a), Param("f32", b)], {"transpose_a": ta, "transpose_b": tb})[0]
    assert shape_str(info) == want


@pytest.mark.parametrize("etype", ["boolean", "string"])
def test_non_numeric_types_are_refused(etype):
    rejects(UnsupportedError, f"irrun does not run MatMul on {etype} data", infer_op, "MatMul",
            [Param(etype, "2,3"), Param(etype, "3,2")])


def test_scalar_operand_is_refused():
    rejects(ShapeError, "Scalars are not supported as MatMul inputs.", infer_op, "MatMul",
            [Param("f32", ""), Param("f32", "3")])


@pytest.mark.parametrize("lead", [(1,), (3,), (1, 1), (2, 5), (1, 40), (3, 100)])
@pytest.mark.parametrize("n", [7, 2100])           # 2100: more output columns than matmul.COLS
def test_linear_layer_fast_path(lead, n):
    """transpose_b with a 2-D weight [N, K] (an LLM's linear layer, one token or several) takes
    its own path in the kernel: A @ B^T by the spec, summed in f64 as the expected value. A few
    rows go weight first, (W @ A.T).T; 40 and 300 rows of 6 go as one product on the transposed
    view (matmul._weight_first): both paths here."""
    rng = np.random.default_rng(0)
    a = rng.standard_normal((*lead, 6)).astype(np.float32)
    w = rng.standard_normal((n, 6)).astype(np.float32)
    got = matmul(a, w, tb=True)
    want = np.einsum("...k,nk->...n", a.astype(np.float64), w.astype(np.float64))
    assert got.shape == (*lead, n) and got.dtype == np.float32
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_linear_layer_with_another_inner_dim_is_refused():
    """The fast path only takes matching inner dims; a mismatch gets OpenVINO's message."""
    with pytest.raises(ShapeError, match="Incompatible MatMul matrix dimension"):
        matmul(np.ones((1, 1, 6), np.float32), np.ones((4, 5), np.float32), tb=True)


@pytest.mark.parametrize("cols, rows", [(2048, 8), (1024, 128), (1000, 127), (77, 600), (500, 1000), (33, 16)])
def test_a_product_by_a_transposed_weight_is_copied_out_whole(cols, rows):
    """irrun/ops/matmul.py ``_copy_transposed`` (the [columns, rows] product of W @ A.T written
    as MatMul's [rows, columns] output, tile by tile): every element where ``.T`` puts it."""
    from irrun.ops.matmul import _copy_transposed
    src = np.arange(cols * rows, dtype=np.float32).reshape(cols, rows)
    dst = np.full((rows, cols + 3), -1.0, np.float32)          # a strided view, as MatMul's COLS chunks
    _copy_transposed(src, dst[:, :cols])
    np.testing.assert_array_equal(dst[:, :cols], src.T)
    assert (dst[:, cols:] == -1).all()
