"""TensorIterator-1: a body run once per chunk of its sliced inputs (see :mod:`irrun.ops._subgraph_op`)."""
from __future__ import annotations

from ..errors import OpError
from ..types.shapes import Dim
from ._port_maps import InputMap, Slicing
from ._subgraph_op import SLICING_RESTRICTIONS, IteratingOp
from .base import normalize_axis, spec_url
from .registry import register


@register
class TensorIterator1(IteratingOp):
    """Runs the body once per chunk of its sliced inputs (once when none is sliced); back edges
    carry Results to Parameters; outputs are the last iteration's or all concatenated."""

    type, version = "TensorIterator", "opset1"
    spec = spec_url("infrastructure/tensor-iterator-1")
    num_inputs = (0, None)
    restrictions = SLICING_RESTRICTIONS

    def iterations(self, ins, a) -> Dim:
        n: Dim | None = None
        for m, cnt in self.slice_counts(ins):
            if n is None:
                n = cnt
                continue
            both = n.intersect(cnt)
            if both is None:
                raise OpError(f"There are at least two different iterations numbers: {n} and {cnt}",
                              port=f"input {m.index}", openvino_loads=True)
            n = both
        return Dim.of(1) if n is None else n

    def run(self, *xs, ctx=None):
        counts = {self.slice_counts_run(xs, m, m.slicing) for m in self.inputs if m.slicing is not None}
        if len(counts) > 1:
            a, b = sorted(counts)[:2]
            raise OpError(f"There are at least two different iterations numbers: {a} and {b}",
                          openvino_loads=True)
        n = counts.pop() if counts else 1
        return self.iterate(xs, ctx, lambda i, res: i < n, least=n)

    @staticmethod
    def slice_counts_run(xs, m: InputMap, s: Slicing) -> int:
        """The parts input ``m`` is sliced into (``s``: its slicing)."""
        x = xs[m.index]
        try:
            return s.count(x.shape[normalize_axis(s.axis, x.ndim)])
        except OpError as e:
            e.port = f"input {m.index}"
            raise


