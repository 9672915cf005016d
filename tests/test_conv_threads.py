"""Convolutions split over irrun's pool (irrun/ops/_conv.py ``split_over_pool``): the spec's
formula at every thread count, bit-identical to one thread (every block or channel chunk is
computed as one thread computes it), and BLAS on one thread while the pool multiplies."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from irrun.limits import parallel, threads
from irrun.ops import _conv


def spec_convolution(x: np.ndarray, w: np.ndarray, stride: int, dilation: int, pad_begin: int,
                     pad_end: int) -> np.ndarray:
    """GroupConvolution-1 as its spec writes it, in f64: ``x`` [N, C, H, W], ``w`` [G, O/G, C/G, kh, kw]."""
    n, c, h, wd = x.shape
    g, og, cg, kh, kw = w.shape
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (pad_begin, pad_end), (pad_begin, pad_end)))
    oh = (h + pad_begin + pad_end - (kh - 1) * dilation - 1) // stride + 1
    ow = (wd + pad_begin + pad_end - (kw - 1) * dilation - 1) // stride + 1
    out = np.zeros((n, g, og, oh, ow))
    for i, j in itertools.product(range(kh), range(kw)):
        tap = xp[:, :, i * dilation:i * dilation + (oh - 1) * stride + 1:stride,
                 j * dilation:j * dilation + (ow - 1) * stride + 1:stride].reshape(n, g, cg, oh, ow)
        out += np.einsum("goc,ngchw->ngohw", w[:, :, :, i, j].astype(np.float64), tap)
    return out.reshape(n, g * og, oh, ow)


@pytest.fixture(params=[2, 3], ids=["2threads", "3threads"])
def split_everything(request, monkeypatch):
    """``request.param`` threads, test-sized work split, the dense kernel in blocks of one row."""
    monkeypatch.setattr(threads, "_chosen", request.param)
    monkeypatch.setattr(parallel, "WORTH", 0)
    monkeypatch.setattr(_conv, "IM2COL_BLOCK", 1)
    monkeypatch.setattr(_conv, "IM2COL_COLUMNS", 1)
    monkeypatch.setattr(_conv, "DEPTHWISE_BLOCK", 1)
    return request.param


CASES = [  # (N, C, H, W, O, k, stride, dilation, groups, pad_begin, pad_end)
    (1, 6, 9, 12, 4, 3, 1, 1, 1, 1, 1),      # dense 3x3
    (2, 4, 15, 7, 6, 3, 2, 2, 2, 2, 0),      # grouped, strided, dilated
    (1, 3, 13, 13, 5, 7, 2, 1, 1, 3, 3),     # a 7x7 stem
    (1, 8, 12, 10, 8, 3, 1, 1, 8, 1, 1),     # depthwise
    (2, 6, 9, 12, 12, 3, 2, 1, 6, 1, 2),     # depthwise, channel multiplier 2, strided
    (1, 5, 8, 8, 5, 2, 2, 2, 5, 0, 1),       # depthwise, stride 2 dilation 2
]


@pytest.mark.parametrize("case", CASES, ids=[f"g{c[8]}k{c[5]}s{c[6]}d{c[7]}" for c in CASES])
def test_a_split_convolution_is_the_spec_and_one_threads_bits(case, split_everything, monkeypatch):
    n, c, h, wd, o, k, s, d, g, pb, pe = case
    rng = np.random.default_rng(sum(case))
    x = rng.standard_normal((n, c, h, wd)).astype(np.float32)
    w = rng.standard_normal((g, o // g, c // g, k, k)).astype(np.float32)
    args = (x, w, [s, s], [d, d], [pb, pb], [pe, pe])
    shared = []
    real = parallel.run_all

    def counted(task, pieces, size):
        shared.append((len(pieces), threads.blas_now()))
        return real(task, pieces, size)

    monkeypatch.setattr(parallel, "run_all", counted)
    got = _conv.conv_kernel(*args)
    assert shared and shared[0][0] >= 2 and shared[0][1] == threads.ONE    # split, BLAS on one thread
    assert threads.blas_now() == threads.ALL                               # ... and back after
    np.testing.assert_allclose(got, spec_convolution(*args[:2], s, d, pb, pe), rtol=1e-4, atol=1e-4)
    monkeypatch.setattr(threads, "_chosen", 1)
    one = _conv.conv_kernel(*args)
    np.testing.assert_array_equal(got.view(np.uint32), one.view(np.uint32))


def test_few_dense_blocks_are_left_to_blas(monkeypatch):
    """Fewer than SHARED_BLOCKS blocks a thread: BLAS splits each product, the pool is not used."""
    monkeypatch.setattr(threads, "_chosen", 2)
    monkeypatch.setattr(parallel, "WORTH", 0)
    monkeypatch.setattr(_conv, "IM2COL_BLOCK", 1)
    monkeypatch.setattr(_conv, "IM2COL_COLUMNS", 1)
    used = []
    monkeypatch.setattr(parallel, "run_all", lambda *a: used.append(a))
    x = np.ones((1, 2, 3, 5), np.float32)                 # 3 output rows: 3 blocks < 2 x 2 threads
    out = _conv.conv_kernel(x, np.ones((1, 2, 2, 3, 3), np.float32), [1, 1], [1, 1], [1, 1], [1, 1])
    assert not used
    assert out[0, 0, 1, 2] == 18.0                        # 2 channels x 9 taps of ones
