"""A constant MatMul weight kept K-major (irrun/ops/matmul.py ``_k_major``, kept by
irrun/runtime/program.py ``Program._prepare``): one copy, counted in the memory budget, and the very
bits of the product on the weight as the file holds it — the per-run reference is a debug run
(``observe=``), which plans every layer anew and multiplies by the transposed view of the Const.

The bit identity is a property of the BLAS (the same packed panels, the same order of the sums),
so it is checked here on the BLAS in use, at one and two threads; the values are also checked
against a float64 product, the spec's formula."""
from __future__ import annotations

import numpy as np
import pytest
import threadpoolctl

import irrun
from irrun.ir.builder import IRWriter
from irrun.ops.matmul import MatMul1, _k_major
from irrun.runtime.step import StepKind
from irrun.types.elements import TYPES
from irrun.types.shapes import PartialShape
from irrun.types.tensor_info import TensorInfo

SHAPES = [(128, 256, 768), (128, 256, 256), (128, 1024, 256), (64, 512, 128), (300, 128, 128)]


def _info(shape) -> TensorInfo:
    return TensorInfo(TYPES["f32"], PartialShape(shape))


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("m,k,n", SHAPES)
def test_the_k_major_product_gives_the_bits_of_the_transposed_weight(m, k, n, threads):
    rng = np.random.default_rng(m * n + k)
    a = rng.standard_normal((1, m, k), dtype=np.float32)
    w = rng.standard_normal((n, k), dtype=np.float32)
    op = MatMul1(transpose_a=False, transpose_b=True)
    chosen = _k_major(op, [_info(a.shape), _info(w.shape)], [_info((1, m, n))])
    assert chosen is not None
    index, prepared_op, make = chosen
    assert index == 1
    with threadpoolctl.threadpool_limits(threads, user_api="blas"):
        want, = op.run(a, w)
        got, = prepared_op.run(a, make(w))
    np.testing.assert_array_equal(got, want)
    exact = a.astype(np.float64) @ w.T.astype(np.float64)
    np.testing.assert_allclose(got, exact, rtol=1e-4, atol=1e-4 * np.sqrt(k))


@pytest.mark.parametrize("a_shape,w_shape", [
    ((1, 16, 256), (1024, 256)),        # a prompt's few rows: slower K-major (measured), and the
    ((1, 1, 256), (256, 256)),          # one-row product is a matrix-vector one, other bits
    ((1, 128, 256), (1024, 256)),       # wider than 3 columns per inner element: no gain
    ((1, 128, 16), (64, 16)),           # under the BLAS's small-matrix sizes: other bits there
])
def test_products_outside_the_rule_keep_the_weight_as_it_is(a_shape, w_shape):
    op = MatMul1(transpose_a=False, transpose_b=True)
    assert _k_major(op, [_info(a_shape), _info(w_shape)], [None]) is None


def _model(tmp_path, rows: int, readers: int = 1, k: int = 256):
    rng = np.random.default_rng(1)
    w = IRWriter()
    x = w.parameter("x", "f32", [1, rows, k])
    weight = w.const(rng.standard_normal((k, k), dtype=np.float32))
    for r in range(readers):
        w.result(w.layer("MatMul", [x, weight], {"transpose_a": False, "transpose_b": True}), f"y{r}")
    return irrun.read_model(w.save(tmp_path / "m.xml"))


def test_the_model_keeps_one_k_major_copy_in_its_budget_with_the_same_outputs(tmp_path):
    model = _model(tmp_path, 128)
    feeds = {"x": np.random.default_rng(2).standard_normal((1, 128, 256), dtype=np.float32)}
    got = model.run(feeds)
    want = model.run(feeds, observe=lambda *a: None)
    np.testing.assert_array_equal(got["y0"], want["y0"])
    assert model.program.constant_bytes == 256 * 256 * 4
    (copy,) = model.program.constants.values()
    assert copy.flags.c_contiguous and not copy.flags.writeable and copy.shape == (256, 256)
    (steps,) = [v for k, v in model._plans.items() if k[0] == "declared shapes"]
    consts = [s for s in steps if s.kind is StepKind.CONST and s.infos[0].value is copy]
    assert len(consts) == 1
    np.testing.assert_array_equal(model.run(feeds)["y0"], want["y0"])     # the kept copy reused


def test_a_weight_read_twice_or_over_the_budget_stays_as_it_is(tmp_path):
    feeds = {"x": np.random.default_rng(3).standard_normal((1, 128, 256), dtype=np.float32)}
    shared = _model(tmp_path, 128, readers=2)
    got = shared.run(feeds)
    assert shared.program.constant_bytes == 0          # two readers: no second copy
    want = shared.run(feeds, observe=lambda *a: None)
    for name in want:
        np.testing.assert_array_equal(got[name], want[name])
    small = _model(tmp_path, 64, k=512)
    feeds = {"x": np.random.default_rng(4).standard_normal((1, 64, 512), dtype=np.float32)}
    got = small.run(feeds, max_memory=600_000)          # the 1 MB copy does not fit, the run does
    assert small.program.constant_bytes == 0
    np.testing.assert_array_equal(got["y0"], small.run(feeds, observe=lambda *a: None)["y0"])
