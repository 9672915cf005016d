"""GatherTree-1: the full beams of a beam search, traced back from the last step's parents.

Inputs step_ids and parent_ids ``[T, B, W]``, max_seq_len ``[B]``, end_token (scalar); all of one
type. For each batch and beam: steps at or past ``min(max_seq_len, T)`` are ``end_token``; the
others are gathered walking the parents back from the last valid step; after the first
``end_token`` every later step is ``end_token`` too. A parent outside ``[0, W)`` is refused
(OpenVINO's reference kernel throws, too).
"""
from __future__ import annotations

import numpy as np

from ..errors import OpError
from ..types.shapes import PartialShape
from .base import Op, TensorInfo, spec_url
from .registry import register


@register
class GatherTree1(Op):
    """GatherTree-1; see the module docstring."""
    category = "movement"

    type, version = "GatherTree", "opset1"
    spec = spec_url("movement/gather-tree-1")
    num_inputs = (4, 4)

    def infer(self, inputs):
        steps, parents, lens, end = inputs
        known = [t.etype for t in inputs if not t.etype.is_dynamic]
        if any(e != known[0] for e in known):
            raise OpError("All inputs must have the same element type.")
        if known and not (known[0].is_float or known[0].is_integer):
            raise OpError(f"Element type of inputs must be numeric. Got: {known[0]}")
        for i, (t, r, what) in enumerate([(steps, 3, "step_ids"), (parents, 3, "parent_idx"),
                                          (lens, 1, "max_seq_len"), (end, 0, "end_token")]):
            if t.shape.rank not in (None, r):
                raise OpError(f"{what} input must have rank {r} (got: {t.shape.rank})", port=f"input {i}")
        shape = steps.shape
        if shape.rank is None:
            shape = parents.shape
        elif parents.shape.rank is not None:
            dims = [a.intersect(b) for a, b in zip(shape, parents.shape)]
            if None in dims:
                raise OpError("step_ids and parent_idx inputs must have the same shape.", port="input 1")
            shape = PartialShape(dims)
        if shape.rank is not None and lens.shape.rank == 1 and shape[1].intersect(lens.shape[0]) is None:
            raise OpError("Number of elements of max_seq_len input must match BATCH_SIZE dimension of "
                          "step_ids/parent_idx inputs.", port="input 2")
        return [TensorInfo(known[0] if known else steps.etype, shape)]

    def run(self, steps, parents, lens, end):
        T, B, W = steps.shape
        out = np.empty_like(steps)
        end = end.reshape(()) if end.ndim else end
        par = parents.astype(np.float64) if parents.dtype.kind == "f" else parents
        for b in range(B):
            n = int(min(T, max(0, lens[b])))
            out[n:, b, :] = end
            for w in range(W):
                if n == 0:
                    continue
                out[n - 1, b, w] = steps[n - 1, b, w]
                parent = par[n - 1, b, w]
                for t in range(n - 2, -1, -1):
                    if not 0 <= parent < W:
                        raise OpError(f"parent index {parent} is out of range [0, {W})", port="input 1")
                    parent = int(parent)
                    out[t, b, w] = steps[t, b, parent]
                    parent = par[t, b, parent]
                hit = np.flatnonzero(out[:n, b, w] == end)
                if hit.size:
                    out[hit[0] + 1:n, b, w] = end
        return [out]
