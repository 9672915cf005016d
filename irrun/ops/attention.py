"""ScaledDotProductAttention-13: ``softmax(Q @ K^T * scale + bias) @ V`` over batch dims that broadcast.


OpenVINO 2026.4.1 has no reference kernel for this op (ConstantFolding and ``Node.evaluate`` do
not compute it); its reference plugin runs ``ScaledDotProductAttentionDecomposition``, which
irrun follows: the default scale ``1 / sqrt(E)`` is computed in the query's type and multiplied
into the query before the MatMul with the transposed key; ``causal`` adds ``-inf`` above the
diagonal of the ``[L, S]`` scores (``triu(k=1)``, top-left aligned also when L != S) and ignores
the mask; a boolean mask adds 0 where true and ``-inf`` where false, a float mask is added (a
scalar mask too — a constant shift, which the softmax cancels; a scalar ``false`` masks
everything); a row masked entirely is NaN. f16/bf16 compute in f32 and round once. The CPU plugin
(the fixture's oracle) agrees within 3e-7 at f32.

Shape rule, measured (tests/fixtures/attention_quantize_movement_expectations): query, key and value have rank >= 3;
their batch dims (all but the last two) broadcast NumPy-style; E (query/key) and S (key/value)
must merge exactly; the mask (rank 0, or >= 2) broadcasts into L, S and the batch dims — so a
mask may *grow* the output's L and batch dims; the scale has one element. The spec's example 3
(batch dims 1/2/4) is rejected by OpenVINO itself.

Attention sinks (the 6th input, gpt-oss; OpenVINO 2025.3+): one extra logit per row, joined to
the scores as column S before the softmax and dropped after it, so it only takes probability
mass. Measured on the CPU plugin: the sink has the query's rank, its last dim is 1 and its other
dims broadcast NumPy-style with the query's (``[1,H,1,1]``, ``[1,H,L,1]``...); it never changes
the output shape. It is broadcast to the scores' ``[*batch, L, 1]`` (irrun refuses a sink that
does not fit there, which OpenVINO's shape rule lets through).
"""
from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ..errors import OpError
from ..limits.memory import check_alloc
from ..types.shapes import DYN, Dim, PartialShape, broadcast_merge
from ._broadcast import broadcast_shapes, numpy_shape
from ._numerics import quiet, work_dtype
from .base import Attr, Op, TensorInfo, spec_url
from .registry import register

_WHO = ("Query", "Key", "Value")


def attention_shape(shapes: Sequence[PartialShape], causal: bool) -> PartialShape:
    """The output shape ``[*batch, L, Ev]`` with OpenVINO's checks and messages (shared by
    ``infer`` and ``run``)."""
    q = shapes[0]
    for who, s in zip(_WHO, shapes[:3]):
        if s.rank is not None and s.rank < 3:
            raise OpError(f"{who} input rank length must be at least 3 or more.",
                          port=f"input {_WHO.index(who)}")
    if q.rank is None:
        batch, L, E = PartialShape(None), None, None
    else:
        batch, L, E = PartialShape(list(q)[:-2]), q[-2], q[-1]
    S = Ev = None

    def merge_batch(s: PartialShape, who: str, port: str) -> PartialShape:
        try:
            return broadcast_shapes(batch, PartialShape(list(s)[:-2]), "numpy")
        except OpError:
            raise OpError(f"{who} input shape not compatible with other inputs.", port=port) from None

    def merged(a, b):
        return b if a is None else a.intersect(b)

    k = shapes[1]
    if k.rank is not None:
        batch = merge_batch(k, "Key", "input 1")
        E = merged(E, k[-1])
        if E is None:
            raise OpError("Key input shape not compatible with other inputs.", port="input 1")
        S = k[-2]
    v = shapes[2]
    if v.rank is not None:
        batch = merge_batch(v, "Value", "input 2")
        S = merged(S, v[-2])
        if S is None:
            raise OpError("Value input shape not compatible with other inputs.", port="input 2")
        Ev = v[-1]
    if len(shapes) > 3 and not causal and shapes[3].rank not in (None, 0):
        m = shapes[3]
        m_rank = m.rank or 0                # (known and not 0 here)
        bad = OpError("Attention mask input shape not compatible with other inputs.", port="input 3")
        if m_rank < 2:
            raise bad
        L = m[-2] if L is None else broadcast_merge(L, m[-2])
        S = m[-1] if S is None else broadcast_merge(S, m[-1])
        if L is None or S is None:
            raise bad
        if m_rank >= 3:
            try:
                batch = broadcast_shapes(batch, PartialShape(list(m)[:-2]), "numpy")
            except OpError:
                raise bad from None
    if len(shapes) > 4:
        s = shapes[4]
        if s.is_static and not (s.rank == 0 or (s.rank == 1 and s[0].lo == 1)):
            raise OpError("Scale input must be scalar or have 1 element.", port="input 4")
    if len(shapes) > 5:
        check_sink(shapes[5], q)
    if batch.rank is None:
        return PartialShape(None)
    return PartialShape([*batch, L if L is not None else DYN, Ev if Ev is not None else DYN])


def _merged(a: int, b: int) -> int | None:
    """:func:`broadcast_merge` of two concrete dims."""
    return a if a == b or b == 1 else b if a == 1 else None


def concrete_shape(shapes: Sequence[tuple[int, ...]], causal: bool) -> tuple[int, ...] | None:
    """:func:`attention_shape` for concrete shapes, on plain ints (the kernel's common case,
    a sink too: gpt-oss decoders); None where the general rule must decide (its errors)."""
    if len(shapes) > 6 or any(len(s) < 3 for s in shapes[:3]):
        return None
    q, k, v = shapes[:3]
    if len(shapes) == 6:        # check_sink: the query's rank, last dim 1, the rest broadcasting
        sink = shapes[5]
        if len(sink) != len(q) or sink[-1] != 1 or numpy_shape(sink[:-1], q[:-1]) is None:
            return None
    if q[-1] != k[-1] or k[-2] != v[-2]:
        return None
    batch = numpy_shape(q[:-2], k[:-2], v[:-2])
    L: int | None = q[-2]
    S: int | None = k[-2]
    if len(shapes) > 3 and not causal and len(shapes[3]):
        m = shapes[3]
        L = None if len(m) < 2 or L is None else _merged(L, m[-2])
        S = None if len(m) < 2 or S is None else _merged(S, m[-1])
        if len(m) >= 3 and batch is not None:
            batch = numpy_shape(batch, m[:-2])
    if len(shapes) > 4 and not (len(shapes[4]) == 0 or shapes[4] == (1,)):
        return None
    if batch is None or L is None or S is None:
        return None
    return batch + (L, v[-1])


def check_sink(sink: PartialShape, q: PartialShape) -> None:
    """OpenVINO's rule for the sink input (measured): the query's rank, last dim 1, the other dims
    broadcast with the query's."""
    if sink.rank is None or q.rank is None:
        return
    if sink.rank != q.rank:
        raise OpError("The rank of sink input shape must be equal to the query input rank.", port="input 5")
    bad = OpError("Sink input has not compatible shape.", port="input 5")
    if sink[-1].intersect(Dim(1, 1)) is None:
        raise bad
    try:
        broadcast_shapes(PartialShape(list(sink)[:-1]), PartialShape(list(q)[:-1]), "numpy")
    except OpError:
        raise bad from None


def check_types(inputs: Sequence[TensorInfo]) -> TensorInfo:
    """OpenVINO's element-type checks; returns the info whose type the output takes."""
    known = [t for i, t in enumerate(inputs) if i != 3 and not t.etype.is_dynamic]
    for i, t in enumerate(inputs):
        if i == 3 or t.etype.is_dynamic:
            continue
        if not t.etype.is_float:
            raise OpError("The element type of the input tensor must be a floating-point.", port=f"input {i}")
        if t.etype != known[0].etype:
            raise OpError("Mixed input types are not supported.", port=f"input {i}")
    if len(inputs) > 3:
        m = inputs[3].etype
        if not (m.is_dynamic or m.is_float or m.name == "boolean"):
            raise OpError("The element type of attention_mask must be either floating-point or boolean.",
                          port="input 3")
        if m.is_float and known and m != known[0].etype:
            raise OpError("Mixed input types are not supported.", port="input 3")
    if any(t.etype.name not in ("f64", "f32", "f16", "bf16") for t in known):
        raise OpError(f"irrun does not support ScaledDotProductAttention on {known[0].etype}",
                      unsupported=True)
    return known[0] if known else inputs[0]


def attention(q: np.ndarray, k: np.ndarray, v: np.ndarray, mask: np.ndarray | None,
              scale: np.ndarray | None, causal: bool, sink: np.ndarray | None = None) -> np.ndarray:
    """The decomposition's arithmetic in f32 (f64 for f64), the result in the query's type."""
    dt = q.dtype
    wd = work_dtype(dt)
    if scale is None:
        e = np.asarray(q.shape[-1], dt)
        scale = (np.asarray(1, dt) / np.sqrt(e).astype(dt)).astype(dt)   # in the query's type
    with quiet():
        qs = q.astype(wd, copy=False) * np.asarray(scale).reshape(()).astype(wd)
        w = np.matmul(qs, np.swapaxes(k.astype(wd, copy=False), -1, -2))
        L, S = q.shape[-2], k.shape[-2]
        bias = np.triu(np.full((L, S), -np.inf, wd), 1) if causal else None if mask is None else \
            np.where(mask, wd.type(0), wd.type(-np.inf)) if mask.dtype == np.bool_ else mask.astype(wd, copy=False)
        if bias is not None:
            w = _add_into(w, bias)
        if sink is not None:
            col = (*w.shape[:-1], 1)
            try:
                sk = np.broadcast_to(sink.astype(wd), col)
            except ValueError:
                raise OpError(f"the sink's shape {list(sink.shape)} does not broadcast to the scores' "
                              f"{list(col)}", port="input 5") from None
            w = np.concatenate([w, sk], axis=-1)
        if w.shape[-1]:     # the softmax in place on the fresh scores: the same operations, one buffer
            w -= np.maximum.reduce(w, axis=-1, keepdims=True)     # (np.max and np.sum, minus their wrappers)
            np.exp(w, out=w)
            w /= np.add.reduce(w, axis=-1, keepdims=True)
        if sink is not None:
            w = w[..., :S]
        return np.matmul(w, v.astype(wd, copy=False)).astype(dt)


def _add_into(w: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``w + b``, written into ``w`` (a fresh array of the scores) when the sum has its shape."""
    if b.ndim > w.ndim or any(d != 1 and d != e for d, e in zip(b.shape[::-1], w.shape[::-1])):
        return w + b
    w += b
    return w


@register
class ScaledDotProductAttention13(Op):
    """ScaledDotProductAttention-13: inputs query, key, value, optional attention_mask (float
    added, boolean selecting; ignored when ``causal``), optional scale, optional sink; see the
    module docstring."""
    category = "linear"
    allocation = "checked"        # irrun/ops/base.py: Op.allocation

    type, version = "ScaledDotProductAttention", "opset13"
    spec = spec_url("sequence/scaled-dot-product-attention")
    attrs = {"causal": Attr("bool", False, required=True)}
    num_inputs = (3, 6)
    restrictions = "f64/f32/f16/bf16 only"

    def infer(self, inputs):
        like = check_types(inputs)
        return [TensorInfo(like.etype, attention_shape([t.shape for t in inputs], self.causal))]

    def multiply_adds(self, inputs, outputs):
        """Two products: scores (L x E x S per head) and the weighted sum (L x S x Ev)."""
        q, k, v = inputs[:3]
        if any(t is None or not t.shape.is_static or t.shape.rank < 2 for t in (q, k, v)):
            return None
        qd, kd, vd = (t.shape.to_tuple() for t in (q, k, v))
        heads = math.prod(qd[:-2])
        return heads * qd[-2] * kd[-2] * (qd[-1] + vd[-1])

    def run(self, q, k, v, mask=None, scale=None, sink=None):
        given = [a.shape for a in (q, k, v, mask, scale, sink) if a is not None]
        shape = concrete_shape(given, self.causal)
        if shape is None:
            shape = attention_shape([PartialShape(s) for s in given], self.causal).to_tuple()
        check_alloc(shape, q.dtype)
        check_alloc(shape[:-1] + k.shape[-2:-1], np.dtype(work_dtype(q.dtype)), "the attention scores")
        return [attention(q, k, v, None if self.causal else mask, scale, self.causal, sink)]
