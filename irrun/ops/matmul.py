"""MatMul-1: matrix product of the two innermost dims, batch dims broadcast NumPy-style.
"""
from __future__ import annotations

import math

import ml_dtypes
import numpy as np

from ..errors import OpError
from ..limits.memory import check_alloc
from ..types.shapes import DYN, Dim, PartialShape, broadcast_merge
from . import fast_paths
from ._broadcast import numpy_shape
from ._numerics import compute_dtype, require_numeric, same_etype
from .base import Attr, Op, Precision, TensorInfo, spec_url
from .registry import register

_BF16 = np.dtype(ml_dtypes.bfloat16)
#: A 2-D B with more columns than this is multiplied COLS output columns at a time (starting at
#: column 0): BLAS may sum in another order for another width, so a weight decompressed block by
#: block (irrun/runtime/program.py, :meth:`MatMul.run_blocks`) gives the very bits of the whole weight.
COLS = 2048
#: Bytes of a weight block decompressed at a time by :meth:`MatMul.run_blocks` (at least COLS rows).
BLOCK_BYTES = 16 << 20


def matmul_shape(a: PartialShape, b: PartialShape, ta: bool, tb: bool) -> PartialShape:
    """The output shape, with OpenVINO's checks (matmul_shape_inference.hpp): transposes are
    ignored for 1-D inputs, which are unsqueezed to a row (A) / column (B) and squeezed again;
    only two static, different inner dims are an error; an unmergeable dynamic batch dim gives
    ``?`` rather than an error."""
    if a.rank is None or b.rank is None:
        return PartialShape(None)
    if a.rank == 0 or b.rank == 0:
        raise OpError("Scalars are not supported as MatMul inputs.")
    x, y = list(a), list(b)
    if ta and len(x) > 1:
        x[-2], x[-1] = x[-1], x[-2]
    if tb and len(y) > 1:
        y[-2], y[-1] = y[-1], y[-2]
    if len(x) == 1:
        x.insert(0, Dim(1, 1))
    if len(y) == 1:
        y.append(Dim(1, 1))
    col, row = x[-1], y[-2]
    if col.is_static and row.is_static and col != row:
        raise OpError(f"Incompatible MatMul matrix dimension. First input dimension={col} at "
                      f"COL_INDEX_DIM={len(x) - 1} doesn't match the second input dimension={row} "
                      f"at ROW_INDEX_DIM={len(y) - 2}")
    n = max(len(x), len(y))
    x = [Dim(1, 1)] * (n - len(x)) + x
    y = [Dim(1, 1)] * (n - len(y)) + y
    out = []
    for i, (p, q) in enumerate(zip(x[:-2], y[:-2])):
        m = broadcast_merge(p, q)
        if m is None and p.is_static and q.is_static:
            raise OpError(f"Incompatible MatMul batch dimension. Can't merge first input dimension={p} "
                          f"with second input dimension={q} at index={i}")
        out.append(DYN if m is None else m)
    out += [x[-2], y[-1]]
    if a.rank == 1:
        del out[-2]
    if b.rank == 1:
        del out[-1]
    return PartialShape(out)


@register
class MatMul1(Op):
    """``np.matmul`` after the optional transposes of the two innermost dims. f16/bf16 inputs
    are multiplied in f32 and rounded back, integers in int64 (wrapping back)."""
    category = "linear"
    precision = Precision.SIGNIFICANT
    allocation = "checked"        # irrun/ops/base.py: Op.allocation

    type, version = "MatMul", "opset1"
    spec = spec_url("matrix/matmul-1")
    attrs = {"transpose_a": Attr("bool", False), "transpose_b": Attr("bool", False)}
    num_inputs = (2, 2)
    fresh_outputs = True

    def infer(self, inputs):
        a, b = inputs
        same_etype(a, b, f"Arguments do not have the same element type (arg0 element type: {a.etype}, "
                         f"arg1 element type: {b.etype}).")
        require_numeric(a, "MatMul")
        etype = b.etype if a.etype.is_dynamic else a.etype
        return [TensorInfo(etype, matmul_shape(a.shape, b.shape, self.transpose_a, self.transpose_b))]

    def multiply_adds(self, inputs, outputs):
        """Output elements times the inner dim of A."""
        a, out = inputs[0], outputs[0] if outputs else None
        if a is None or out is None or not (a.shape.is_static and out.shape.is_static) or a.shape.rank == 0:
            return None
        dims = a.shape.to_tuple()
        inner = dims[-2] if self.transpose_a and len(dims) > 1 else dims[-1]
        return math.prod(out.shape.to_tuple()) * inner

    def run(self, a, b):
        acc = compute_dtype(a.dtype)
        if self.transpose_b and not self.transpose_a and b.ndim == 2 and a.ndim > 1 \
                and a.dtype == acc and b.dtype == acc and a.shape[-1] == b.shape[1]:
            # an LLM's linear layer (a 2-D weight [N, K]): the general path below without its
            # batch-broadcast rule, ~2 us less per call (16 of them in a 2-layer decoder's token)
            check_alloc(a.shape[:-1] + b.shape[:1], acc)
            return [_product(a, b.T)]
        if a.ndim > 1 and b.ndim > 1 and a.dtype == acc and b.dtype == acc \
                and (batch := numpy_shape(a.shape[:-2], b.shape[:-2])) is not None:
            try:        # NumPy's result shape is OpenVINO's here; a mismatch gets its message below
                check_alloc(batch + (a.shape[-1 if self.transpose_a else -2],
                                     b.shape[-2 if self.transpose_b else -1]), acc)
                return [_product(np.swapaxes(a, -1, -2) if self.transpose_a else a,
                                 np.swapaxes(b, -1, -2) if self.transpose_b else b)]
            except ValueError:
                pass
        out_shape = matmul_shape(PartialShape(a.shape), PartialShape(b.shape),
                                 self.transpose_a, self.transpose_b).to_tuple()
        check_alloc(out_shape, acc)
        if self.transpose_a and a.ndim > 1:
            a = np.swapaxes(a, -1, -2)
        if self.transpose_b and b.ndim > 1:
            b = np.swapaxes(b, -1, -2)
        out = _product(a.astype(acc, copy=False), b.astype(acc, copy=False)).astype(a.dtype, copy=False)
        return [np.asarray(out).reshape(out_shape)]



def _weight_input(op: MatMul1, inputs) -> int | None:
    """With ``transpose_b`` and a 2-D B, row j of B gives output column j."""
    a, b = inputs
    return 1 if op.transpose_b and b.shape.rank == 2 and (a.shape.rank or 0) >= 2 else None


def _run_blocks(op: MatMul1, rows, n_rows: int, a: np.ndarray) -> list[np.ndarray]:
    """A times B given as ``rows(start, stop)``, a block of B's rows (output columns) at a time."""
    k = a.shape[-2 if op.transpose_a else -1]
    step = max(COLS, BLOCK_BYTES // max(1, 4 * k) // COLS * COLS)
    out = None
    for start in range(0, max(n_rows, 1), step):
        part, = op.run(a, rows(start, min(n_rows, start + step)))
        if out is None:
            check_alloc(part.shape[:-1] + (n_rows,), part.dtype)
            out = np.empty(part.shape[:-1] + (n_rows,), part.dtype)
        out[..., start:start + part.shape[-1]] = part
    assert out is not None                  # (one block at least, also for no rows)
    return [out]


fast_paths.WEIGHT_BLOCKS[MatMul1] = fast_paths.WeightBlocks(_weight_input, _run_blocks)

#: A constant weight is kept K-major (:func:`_k_major`) for products of at least this many rows,
#: ``KMAJOR_MIN_MADDS`` multiply-adds and at most ``KMAJOR_MAX_WIDTH`` output columns per inner
#: element; see there.
KMAJOR_MIN_ROWS, KMAJOR_MIN_MADDS, KMAJOR_MAX_WIDTH = 64, 4 << 20, 3


def _k_major(op: MatMul1, inputs, outputs):
    """``a @ W.T`` by a constant f32 weight W [N, K] as ``a @ Wt`` with ``Wt`` a K-major copy
    made once (``fast_paths.PREPARED``). OpenBLAS packs both forms into the same panels and sums
    each output in the same order, so the bits are those of :func:`_product` on ``W.T`` — except
    in its small-matrix kernels (SkylakeX: up to 1M multiply-adds) and for one row (a
    matrix-vector product), which the size rules here keep out; tests/ops/test_matmul_kmajor.py
    checks it on the BLAS in use. Measured (one thread, CPU time, BERT-small's [128, K] rows):
    [256 -> 768] 549 -> 489 us, [256 -> 256] 195 -> 169, [1024 -> 256] 726 -> 654; no gain for
    [256 -> 1024] at 128 rows (726 vs 728) and a loss at 16-64 rows, hence the width and row rules."""
    a, b = inputs
    if not op.transpose_b or op.transpose_a or a is None or b is None or b.shape.rank != 2 \
            or not a.shape.is_static or not b.shape.is_static or (a.shape.rank or 0) < 2 \
            or a.etype.dtype != np.float32 or b.etype.dtype != np.float32:
        return None
    n, k = b.shape.to_tuple()
    rows = math.prod(a.shape.to_tuple()[:-1])
    if rows < KMAJOR_MIN_ROWS or n > COLS or n > KMAJOR_MAX_WIDTH * k or rows * n * k < KMAJOR_MIN_MADDS:
        return None
    return 1, MatMul1(transpose_a=False, transpose_b=False), lambda w: np.ascontiguousarray(w.T)


fast_paths.PREPARED[MatMul1] = fast_paths.Prepared(_k_major)

def _product(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``np.matmul(a, b)``, a 2-D ``b`` of many columns COLS columns at a time (see COLS). A ``b``
    that is the transpose of a row-major weight ([N, K], MatMul's ``transpose_b``) is multiplied
    as ``(b.T @ a.T).T`` when ``a`` has a few rows (:func:`_weight_first`): BLAS then streams the
    weight as it lies (~25% faster for a prompt of 16 tokens; one row is a matrix-vector product
    either way)."""
    n = b.shape[-1]
    if b.ndim != 2 or a.ndim < 2:
        return np.matmul(a, b)
    if b.T.flags.c_contiguous and n and _weight_first(a.size // max(1, a.shape[-1]), a.shape[-1]):
        out = np.empty(a.shape[:-1] + (n,), np.result_type(a, b))
        rows, flat = a.reshape(-1, a.shape[-1]), out.reshape(-1, n)
        for start in range(0, n, COLS):
            _copy_transposed(np.matmul(b.T[start:start + COLS], rows.T), flat[:, start:start + COLS])
        return out
    if n <= COLS:
        return np.matmul(a, b)
    out = np.empty(a.shape[:-1] + (n,), np.result_type(a, b))
    for start in range(0, n, COLS):
        np.matmul(a, b[:, start:start + COLS], out=out[..., start:start + COLS])
    return out


def _weight_first(rows: int, k: int) -> bool:
    """Whether ``a @ W.T`` (``rows`` rows of ``k`` inner elements) runs faster as ``(W @ a.T).T``
    plus a tiled copy than as one product on the transposed view. Measured (f32, one thread,
    CPU time, weight-first / plain, N in 256-4864): 16-32 rows 0.55-0.96 (a prompt's few tokens);
    64-128 rows 0.82-0.93 when K >= 4 x rows, 0.95-1.30 below; 1024 rows 1.2-4.7 (K = 64: 1182 vs
    341 us) — the copy of a tall result costs more than streaming the weight saves."""
    return 1 < rows and (rows <= 32 or 4 * rows <= k)


#: Bytes of the [columns, rows] product :func:`_copy_transposed` reads per tile: about an L1 cache.
TILE_BYTES = 32 << 10


def _copy_transposed(src: np.ndarray, dst: np.ndarray) -> None:
    """``dst[...] = src.T`` for a C-ordered ``src`` of [columns, rows], a tile of ``src``'s rows
    at a time that stays in the L1 cache while ``dst``'s rows are written (the same values, so
    the same bits). Measured (f32, one thread): BERT's 128 rows x 1024 columns 102 -> 62 us, 256 x
    2048 974 -> 287 us, 512 x 1024 1261 -> 300 us; under 16 rows, or over ~680 where a tile would
    be under 12 columns, one whole copy is as fast or faster (1000 x 500: 217 vs 242 us)."""
    cols, rows = src.shape
    tile = TILE_BYTES // max(1, rows * src.itemsize)
    if rows < 16 or tile < 12 or tile >= cols:
        dst[...] = src.T
        return
    tile = max(tile, 16)
    for j in range(0, cols, tile):
        dst[:, j:j + tile] = src[j:j + tile].T
