"""ONNX form of Inverse-14 (ONNX's standard domain has no matrix inverse): OpenVINO's CPU
algorithm (irrun.ops.inverse.lu_inverse) unrolled over the static matrix size — LU with
partial pivoting, then forward and back substitution — so that singular and ill-conditioned
matrices give the same values (inf/NaN included) as OpenVINO's."""
from __future__ import annotations

import numpy as np

from ..types import elements
from .emitter import Call, Emitter, Unexpressible, onnx_type
from .table import converts

I64 = elements.TYPES["i64"]
F32 = elements.TYPES["f32"]


def _rows(e: Emitter, m: str, lo: int, hi: int) -> str:
    return e.one("Slice", [m, e.ints([lo]), e.ints([hi]), e.ints([1])])


def _cols(e: Emitter, m: str, lo: int, hi: int) -> str:
    return e.one("Slice", [m, e.ints([lo]), e.ints([hi]), e.ints([2])])


@converts("Inverse")
def inverse(e: Emitter, c: Call) -> None:
    """Per pivot column k: the first row of strictly largest magnitude at or below k (NaN never
    chosen) swapped with row k in U, L and the permutation (GatherElements), L's column k below
    the diagonal = U's / the pivot, U's rows below k minus L[i, k] * U's row k (masked Where);
    then L y = P e and U x = y row by row (MatMuls over the rows solved so far). f32 (f64 for
    f64), the matrices as [batch, n, n]; the size n must be static."""
    c.rank(0)
    n_dim = list(c.in_info[0].shape)[-1]
    if not n_dim.is_static:
        raise Unexpressible("the matrix size must be static (the LU steps are unrolled)")
    n = n_dim.lo
    et = c.in_info[0].etype
    work = et if et.name in ("f32", "f64") else F32
    x = c.inputs[0] if work == et else e.cast(c.inputs[0], work)
    a = e.one("Reshape", [x, e.ints([-1, n, n])])
    if c.op.adjoint:
        a = e.one("Transpose", [a], perm=[0, 2, 1])
    batch = e.one("Slice", [e.one("Shape", [a]), e.ints([0]), e.ints([1])])
    square = e.one("Concat", [batch, e.ints([n, n])], axis=0)
    count = e.one("Concat", [batch, e.ints([n])], axis=0)
    dtype = work.dtype
    u = a
    low = e.one("Expand", [e.const(np.eye(n, dtype=dtype)[None], "identity"), square])
    perm = e.one("Expand", [e.const(np.arange(n, dtype=np.int64)[None], "order"), count])
    index = e.const(np.arange(n, dtype=np.int64)[None], "positions")
    for k in range(n):
        col = e.one("Abs", [e.one("Squeeze", [_cols(e, _rows(e, u, k, n), k, k + 1), e.ints([2])])])   # [B, n-k]
        col = e.where(e.one("IsNaN", [col]), e.scalar(-np.inf, work), col, work)
        rel = e.one("ArgMax", [col], axis=1, keepdims=1, select_last_index=0)                       # [B, 1]
        first = _rows(e, col, 0, 1)                                      # (col is [B, n-k]: its axis 1)
        better = e.one("Greater", [e.one("GatherElements", [col, rel], axis=1), first])
        piv = e.one("Where", [better, e.one("Add", [rel, e.ints([k])]), e.ints([k])])             # [B, 1]
        swap = e.one("Where", [e.one("Equal", [index, e.ints([k])]), piv,
                               e.one("Where", [e.one("Equal", [index, piv]), e.ints([k]), index])])  # [B, n]
        rows = e.one("Expand", [e.one("Unsqueeze", [swap, e.ints([2])]), square])
        u = e.one("GatherElements", [u, rows], axis=1)
        low = e.one("GatherElements", [low, rows], axis=1)
        perm = e.one("GatherElements", [perm, swap], axis=1)
        pivot_row = _rows(e, u, k, k + 1)                                                     # [B, 1, n]
        factor = e.one("Div", [_cols(e, u, k, k + 1), _cols(e, pivot_row, k, k + 1)])         # [B, n, 1]
        below = np.arange(n)[:, None] > k
        low = e.one("Where", [e.const(below & (np.arange(n)[None, :] == k), "l_mask"), factor, low])
        l_col = _cols(e, low, k, k + 1)
        updated = e.one("Sub", [u, e.one("Mul", [l_col, pivot_row])])
        u = e.one("Where", [e.const(below & (np.arange(n)[None, :] >= k), "u_mask"), updated, u])
    unit = e.one("Expand", [e.const(np.arange(n, dtype=np.int64)[None, None, :], "columns"),
                            e.one("Concat", [batch, e.ints([1, n])], axis=0)])
    ys: list[str] = []
    for i in range(n):
        pick = e.one("Unsqueeze", [e.one("Slice", [perm, e.ints([i]), e.ints([i + 1]), e.ints([1])]), e.ints([2])])
        y = e.one("Cast", [e.one("Equal", [unit, pick])], to=onnx_type(work))                 # [B, 1, n]
        if i:
            done = e.one("Concat", ys, axis=1) if i > 1 else ys[0]
            y = e.one("Sub", [y, e.one("MatMul", [_cols(e, _rows(e, low, i, i + 1), 0, i), done])])
        ys.append(y)
    xs: list[str] = [""] * n
    for i in range(n - 1, -1, -1):
        row = _rows(e, u, i, i + 1)
        y = ys[i]
        if i < n - 1:
            done = e.one("Concat", xs[i + 1:], axis=1) if i < n - 2 else xs[n - 1]
            y = e.one("Sub", [y, e.one("MatMul", [_cols(e, row, i + 1, n), done])])
        xs[i] = e.one("Div", [y, _cols(e, row, i, i + 1)])
    inv = e.one("Concat", xs, axis=1) if n > 1 else xs[0]
    shape = e.one("Shape", [c.inputs[0]])
    if work == et:
        e.one("Reshape", [inv, shape], c.outputs[0])
    else:
        e.one("Cast", [e.one("Reshape", [inv, shape])], c.outputs[0], to=onnx_type(et))
