"""Winograd minimal filtering F(2x2, 3x3) for 2-D 3x3 convolutions with stride 1 and dilation 1
(Lavin & Gray, "Fast Algorithms for Convolutional Neural Networks", 2015).

Why: a dense 3x3 convolution in irrun is an im2col and one GEMM, and at one thread ResNet-18 is
~90% OpenBLAS's own GEMM time (docs/speed.md, "Fourth round, convolutions"), so the remaining
lever is fewer multiplies. F(2x2, 3x3) computes each 2x2 block of outputs from a 4x4 tile of
input with 16 products per (output channel, input channel) pair instead of 36: the convolution
becomes 16 GEMMs ``M[xi] = U[xi] (K x C) @ V[xi] (C x tiles)``, 2.25x fewer multiply-adds, plus
transforms that are additions only (and a filter transform, done once per constant filter).

- filters: ``U = G g G^T`` per (K, C) pair, computed in f64 and rounded once to f32
  (:func:`filter_transform`); the caller keeps it with the layer (``_conv.ConvolutionOp``).
- input: ``V = B^T d B`` on every overlapping 4x4 tile. The padded input is split into its four
  (row, column) parity planes so that the tile element ``d[i, j]`` of every tile is one shifted
  slice of plane ``(i % 2, j % 2)``; along a plane row the slice shift crosses into the next row,
  which gives one junk tile column per tile row (a GEMM column nobody reads; 1/(tiles per row)
  more multiplies) and keeps every addition on long contiguous runs (on stride-2 views NumPy's
  loops ran ~2.5x slower).
- output: ``Y = A^T M A`` as one small GEMM ``[K*tiles, 16] @ [16, 4]`` per block (the 2x2
  outputs of a tile come out side by side), then one copy that interleaves them into the output
  rows, moving each output pair as one complex64. Measured 0.16 ms against 0.65 ms for the same
  transform as additions and a stride-2 scatter (ResNet-18's 64-channel 56x56 layer).
- the work goes a block of tile rows at a time so V and M stay in the L2 cache.

F(4x4, 3x3) (36 products per 16 outputs, 4x fewer multiplies) was measured and not used: on
ResNet-18's layers it ran slower than F(2x2, 3x3) (its transforms have 2-3x more work and its
products are narrower) and its error against an f64 sum was ~15x larger (3e-5 against 2e-6).

Rounding: the results differ from the im2col path's in the last bits only (the error against an
f64 sum is of the same size, see tests/ops/test_conv_winograd.py). Non-finite values: a transform
mixes the 16 values of a tile, so one inf in a tile can turn outputs the direct sum makes +-inf
into NaN. The caller therefore never gives this path non-finite filters and recomputes a layer
on the im2col path when its Winograd output holds any inf or NaN (:func:`finite`) -- results on
non-finite inputs are exactly the im2col path's.
"""
from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ..limits.memory import check_alloc

#: F(2x2, 3x3) transforms: ``V = B^T d B``, ``U = G g G^T``, ``Y = A^T M A`` (the paper's matrices;
#: the input and filter transforms below are these rows written out as slice arithmetic).
B_T = np.array([[1, 0, -1, 0], [0, 1, 1, 0], [0, -1, 1, 0], [0, 1, 0, -1]], np.float64)
G = np.array([[1, 0, 0], [0.5, 0.5, 0.5], [0.5, -0.5, 0.5], [0, 0, 1]], np.float64)
A_T = np.array([[1, 1, 1, 0], [0, 1, -1, -1]], np.float64)
#: The output transform of a flattened tile (row-major 4x4 -> row-major 2x2), for the GEMM:
#: ``Y[r*2 + s] = sum A_T[r, j] A_T[s, k] M[j*4 + k]``.
_OUTPUT = np.ascontiguousarray(np.kron(A_T, A_T).T.astype(np.float32))     # [16, 4]

#: Bytes of transformed input (or of products) per block of tile rows: V and M of a block stay in
#: the 2 MiB L2 cache. ResNet-18's layers, 1 thread, ms (512K / 1M / 2M / whole image):
#: 64ch 56x56 2.35 / 2.30 / 2.69 / 2.64, 128ch 28x28 1.93 / 2.08 / 1.89 / 2.06.
BLOCK = 1 << 20

#: ... and at least ``max(C, K) / 2`` tile columns: each block's 16 GEMMs read all of U again
#: (16 MiB for 512 channels). Speed-up over im2col by the least columns per block, 1 thread:
#: 512ch 28x28 0.96 (no least) / 1.45 (128) / 1.71 (256); 64ch 56x56 1.44 / 1.45 / 1.24.


def worth_it(c: int, k: int, out_hw: Sequence[int], threads: int = 1) -> bool:
    """Whether F(2x2, 3x3) beats im2col for ``c`` input and ``k`` output channels, this output
    size and ``threads`` BLAS threads, by a rule measured on this machine (kernels alone,
    [1, C, H, H] -> C, pads 1, im2col ms / Winograd ms). At 1 thread: below 32 channels the
    transforms cost what the products save (8ch 0.86-1.13, 16ch 0.92-1.12, 32ch 0.99-1.34); with
    fewer 2x2 tiles than ``max(C, K) / 16`` the 16 products are too narrow (512ch 7x7 0.77, 256ch
    7x7 1.03, 128ch 7x7 1.23, 512ch 14x14 1.36); elsewhere 1.2-1.7 (64ch 56x56 1.45, 128ch 28x28
    1.5, 256ch 14x14 1.5). With 2 BLAS threads the products take half the time but the
    transforms (serial: splitting them over irrun's pool beside BLAS's threads ran 1.1-1.6x
    slower; whole blocks on the pool with BLAS on one thread, 1.1-1.5x slower per layer in
    ResNet-18 and yolov8n, docs/speed.md "Convolutions at 2 threads") do not, so big images
    with few channels lose: 32ch 80x80 0.69, 64ch 56x56 0.95, 32ch 40x40 0.97-1.03, 64ch 40x40
    1.06, 128ch 28x28 1.08, 64ch 20x20 1.33, 256ch 14x14 1.5 -- there also at most ``8 * min(C, K)`` tiles."""
    tiles = -(-out_hw[0] // 2) * -(-out_hw[1] // 2)
    if min(c, k) < 32 or tiles * 16 <= max(c, k):
        return False
    return threads <= 1 or tiles <= 8 * min(c, k)


def filter_transform(w: np.ndarray) -> np.ndarray:
    """``U = G g G^T`` for filters ``w`` [K, C, 3, 3]: [16, K, C] f32 (the 16 tile positions
    first, each a [K, C] matrix for one of the 16 GEMMs), computed in f64 and rounded once. G's
    rows written out as slice arithmetic: 512x512 filters 23 ms CPU, ``np.einsum`` 43 ms (best
    of 5 each, malloc kept; the first run of a layer pays it once)."""
    k, c = w.shape[:2]
    check_alloc((4, 4, k, c), np.dtype(np.float64), "the Winograd filter transform")
    g = w.astype(np.float64).transpose(2, 3, 0, 1)              # [3, 3, K, C]
    rows = np.stack([g[0], (g[0] + g[1] + g[2]) * 0.5, (g[0] - g[1] + g[2]) * 0.5, g[2]])
    u = np.stack([rows[:, 0], (rows[:, 0] + rows[:, 1] + rows[:, 2]) * 0.5,
                  (rows[:, 0] - rows[:, 1] + rows[:, 2]) * 0.5, rows[:, 2]], axis=1)    # [4, 4, K, C]
    return np.ascontiguousarray(u.reshape(16, k, c), dtype=np.float32)


def conv3x3(x: np.ndarray, u: np.ndarray, pads_begin: Sequence[int],
            out_hw: Sequence[int]) -> np.ndarray:
    """A 3x3, stride-1, dilation-1 convolution of ``x`` [N, C, H, W] f32 (unpadded; zeros around
    it as ``pads_begin`` and the output size say) with transformed filters ``u`` [16, K, C] from
    :func:`filter_transform`: [N, K, *out_hw] f32."""
    n, c, h, w = x.shape
    k = u.shape[1]
    oh, ow = out_hw
    th, tw = -(-oh // 2), -(-ow // 2)          # 2x2 output tiles (the last ones may stick out)
    tw1 = tw + 1                               # + the junk column per tile row
    check_alloc((n, 2, 2, c, th + 1, tw1), x.dtype, "the Winograd input planes")
    check_alloc((n, k, th * 2, tw * 2), x.dtype, "the Winograd output")
    planes = _parity_planes(x, pads_begin, th, tw)
    rows = min(th, max(1, BLOCK // (16 * max(c, k) * tw1 * 4), -(-max(c, k) // (2 * tw1))))
    span = rows * tw1
    half = np.empty((4, 2, c, rows, tw1), np.float32)        # B^T applied along the rows
    v = np.empty((4, 4, c, span), np.float32)
    m = np.empty((16, k, span), np.float32)
    y = np.empty((k * span, 4), np.float32)
    res = np.empty((n, k, th * 2, tw * 2), np.float32)
    pairs = res.view(np.complex64).reshape(n, k, th, 2, tw)   # output pairs (columns 2q, 2q+1)
    for i in range(n):
        for t0 in range(0, th, rows):
            b = min(rows, th - t0)
            size = b * tw1
            # rows: half[j] = sum_i B_T[j, i] d[i, :] on both column-parity planes at once
            d = [planes[i, r % 2, :, :, t0 + r // 2:t0 + r // 2 + b] for r in range(4)]
            hb = half[:, :, :, :b]
            np.subtract(d[0], d[2], out=hb[0])
            np.add(d[1], d[2], out=hb[1])
            np.subtract(d[2], d[1], out=hb[2])
            np.subtract(d[1], d[3], out=hb[3])
            # columns: column j of every tile is a shifted slice of a parity plane's flat rows
            flat = half.reshape(4, 2, c, span)
            col = [flat[:, j % 2, :, j // 2:j // 2 + size - 1] for j in range(4)]
            vb = v[..., :size - 1]
            np.subtract(col[0], col[2], out=vb[:, 0])
            np.add(col[1], col[2], out=vb[:, 1])
            np.subtract(col[2], col[1], out=vb[:, 2])
            np.subtract(col[1], col[3], out=vb[:, 3])
            v[..., size - 1] = 0                   # the last junk column reads past the block
            if size == span:
                np.matmul(u, v.reshape(16, c, span), out=m)
                mb = m
            else:
                mb = np.matmul(u, v.reshape(16, c, span)[..., :size])
            yb = y[:k * size]
            np.matmul(mb.reshape(16, k * size).T, _OUTPUT, out=yb)
            # y [K, b, tw1, (r, s)] -> output rows 2t + r, the (s = 0, 1) pair as one complex64
            tiles = yb.view(np.complex64).reshape(k, b, tw1, 2)[:, :, :tw].transpose(0, 1, 3, 2)
            np.copyto(pairs[i, :, t0:t0 + b], tiles)
    if (th * 2, tw * 2) != (oh, ow):
        return np.ascontiguousarray(res[:, :, :oh, :ow])
    return res


def _parity_planes(x: np.ndarray, pads_begin: Sequence[int], th: int, tw: int) -> np.ndarray:
    """The zero-padded input split by row and column parity: ``[N, 2, 2, C, th + 1, tw + 1]``,
    ``planes[n, p, q, c, a, b] = padded[n, c, 2a + p, 2b + q]`` (zeros past the input)."""
    n, c, h, w = x.shape
    planes = np.zeros((n, 2, 2, c, th + 1, tw + 1), np.float32)
    for p in (0, 1):
        y0 = (p - pads_begin[0]) % 2                       # the first input row of this parity
        a0 = (y0 + pads_begin[0] - p) // 2
        rows = min(-(-(h - y0) // 2), th + 1 - a0)
        for q in (0, 1):
            x0 = (q - pads_begin[1]) % 2
            b0 = (x0 + pads_begin[1] - q) // 2
            cols = min(-(-(w - x0) // 2), tw + 1 - b0)
            if rows > 0 and cols > 0:
                planes[:, p, q, :, a0:a0 + rows, b0:b0 + cols] = \
                    x[:, :, y0:y0 + 2 * rows - 1:2, x0:x0 + 2 * cols - 1:2]
    return planes


def finite(y: np.ndarray) -> bool:
    """Whether ``y`` holds no inf or NaN: its sum is finite (one pass, no temporary; a sum that
    overflows reads as non-finite, which only sends the layer to the im2col path)."""
    with np.errstate(over="ignore", invalid="ignore"):
        return math.isfinite(float(np.add.reduce(y, axis=None)))
