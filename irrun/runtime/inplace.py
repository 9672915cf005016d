"""Which input buffer a layer may write its result into: the plan's ``Step.inplace``
(:func:`irrun.runtime.plan.link`), for the ops that list ``inplace`` inputs (:class:`irrun.ops.base.Op`).
A kernel given ``out=`` saves one allocation; the rule below makes sure nobody can see the write."""
from __future__ import annotations

from .step import OP, RESULT, Step


def choose_inplace(steps: list[Step], types: dict) -> None:
    """Choose, for each layer whose op lists ``inplace`` inputs, one input buffer its output may
    be written into. Input port T qualifies only if overwriting it cannot be seen:

    * T is a fresh kernel output (its op has ``fresh_outputs``): not a Parameter (the caller's
      array), a Const (the mapped .bin) or a folded value (shared by every run);
    * this layer reads T once and is its last reader, and no tensor that may be a view of T (an
      output of a non-fresh op downstream of T: Reshape, Transpose, slices...) is read later;
    * neither T nor such a view is kept beyond the run: read by a Result (a model output) or by
      an op with ``uses_context`` (an Assign stores its input as the variable's next value);
    * T has the output's element type and (partial) shape; kernels also check the concrete
      array (:func:`irrun.ops.elementwise.fits`) before writing.
    """
    last: dict[tuple, int] = {}
    kept: set = set()
    for k, s in enumerate(steps):
        for r in s.reads:
            last[r] = k
            if s.kind is RESULT or (s.kind is OP and s.op.uses_context):
                kept.add(r)
    fresh: set = set()
    views: dict[tuple, set] = {}           # fresh tensor -> tensors that may share its buffer
    roots: dict[tuple, frozenset] = {}     # tensor -> fresh tensors whose buffer it may share
    for s in steps:
        for i in range(len(s.infos)):
            t = (s.node, i)
            if s.kind is OP and s.op.fresh_outputs:
                fresh.add(t)
                roots[t] = frozenset((t,))
            elif s.kind is OP:
                roots[t] = frozenset().union(*(roots.get(r, ()) for r in s.reads))
            else:
                roots[t] = frozenset()
            for root in roots[t]:
                views.setdefault(root, set()).add(t)
    for k, s in enumerate(steps):
        if s.kind is not OP or not s.op.inplace or not s.infos or s.infos[0] is None:
            continue
        want = s.infos[0]
        for idx in s.op.inplace:
            if idx >= len(s.reads):
                continue
            t = s.reads[idx]
            info = types.get(t)
            if t in fresh and s.reads.count(t) == 1 and last.get(t) == k and info is not None \
                    and info.etype == want.etype and info.shape.dims == want.shape.dims \
                    and not any(v in kept or (v != t and last.get(v, -1) >= k) for v in views[t]):
                s.inplace = t
                break
