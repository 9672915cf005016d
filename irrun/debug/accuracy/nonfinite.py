"""The first layer that makes NaN or Inf out of finite inputs — where a NaN or an overflow is
born, not the hundreds of layers it spreads to afterwards.

A layer counts when at least one of its floating outputs has a NaN or an infinity and every
floating input (activations and weights alike) is finite. The finding holds the layer, the step
of a sequence it happened in, each input's range, and the first offending positions with their
values. ``reference`` (a :class:`~irrun.debug.accuracy.capture.Recording` of the same positions at a
higher precision) lets compare name the first *overflow*: a non-finite value whose reference is
finite.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ...errors import printable
from ...ops.registry import role_of
from ...types.tensor_info import Role
from ..tracing import type_version

MAX_POSITIONS = 5


@dataclass
class Finding:
    layer: int
    name: str
    op: str
    step: int
    port: int
    count: int                                   # non-finite values in that output
    size: int
    positions: list = field(default_factory=list)    # [(index tuple, value)]
    inputs: list = field(default_factory=list)       # [(input index, shape, min, max, 'Const'|'')]

    def text(self, what: str = "NaN/Inf") -> str:
        where = f" (step {self.step})" if self.step else ""
        lines = [f'first layer making {what} from finite inputs{where}: layer {self.layer} "{printable(self.name)}" '
                 f"({printable(self.op)})",
                 f"  output {self.port}: {self.count} of {self.size} values non-finite, first at "
                 + ", ".join(f"[{','.join(map(str, ix))}]={v}" for ix, v in self.positions)]
        for i, shape, lo, hi, kind in self.inputs:
            rng = "empty" if lo is None else f"range [{lo:.6g}, {hi:.6g}]"
            lines.append(f"  input {i}  {kind + ' ' if kind else ''}[{','.join(map(str, shape))}] {rng}")
        return "\n".join(lines)

    def as_dict(self) -> dict:
        return {"layer": self.layer, "name": self.name, "op": self.op, "step": self.step, "port": self.port,
                "count": self.count, "size": self.size,
                "positions": [{"index": list(ix), "value": str(v)} for ix, v in self.positions],
                "inputs": [{"input": i, "shape": list(s), "min": lo, "max": hi, "kind": k}
                           for i, s, lo, hi, k in self.inputs]}


def _floating(a) -> bool:
    return isinstance(a, np.ndarray) and (a.dtype.kind == "f" or a.dtype.name.startswith(("bfloat", "float")))


def _all_finite(a) -> bool:
    return not _floating(a) or a.size == 0 or bool(np.isfinite(a.astype(np.float32, copy=False)).all())


class Watch:
    """Observer part: keeps the first :class:`Finding`. ``reference(layer, port)`` may return the
    reference array of that port: then only positions where it is finite count (an overflow)."""

    def __init__(self, reference=None):
        self.first: Finding | None = None
        self.reference = reference

    def see(self, model, step, args: list, outs: list, step_index: int) -> None:
        if self.first is not None or not all(_all_finite(a) for a in args):
            return
        for port, a in enumerate(outs):
            if not _floating(a) or a.size == 0:
                continue
            bad = ~np.isfinite(a.astype(np.float32, copy=False))
            if self.reference is not None and bad.any():
                ref = self.reference(step.node, port)
                if ref is not None and ref.shape == a.shape:
                    bad &= np.isfinite(ref.astype(np.float32, copy=False))
            if bad.any():
                self.first = self._finding(model, step, args, port, a, bad, step_index)
                return

    @staticmethod
    def _finding(model, step, args, port, a, bad, step_index) -> Finding:
        layer = model.dag.nodes[step.node]["layer"]
        idx = np.argwhere(bad)[:MAX_POSITIONS]
        positions = [(tuple(int(i) for i in ix), a[tuple(ix)].item()) for ix in idx]
        inputs = []
        g = model.dag
        for i, ((u, _), x) in enumerate(zip(step.reads, args, strict=True)):
            kind = "Const" if role_of(g.nodes[u]["layer"].type) is Role.CONSTANT else ""
            lo = hi = None
            if _floating(x) or (isinstance(x, np.ndarray) and x.dtype.kind in "iub"):
                if x.size:
                    f = x.astype(np.float64)
                    lo, hi = float(f.min()), float(f.max())
            inputs.append((i, tuple(np.shape(x)), lo, hi, kind))
        return Finding(layer.id, layer.name, type_version(model, step.node), step_index, port,
                       int(bad.sum()), int(a.size), positions, inputs)
