"""Loop-5: a body run while its condition holds, up to a trip count (see :mod:`irrun.ops._subgraph_op`)."""
from __future__ import annotations

import numpy as np

from ..errors import IrrunError, OpError
from ..limits import iterations
from ..types.shapes import Dim
from ._port_maps import check_one_value, scalar_value
from ._subgraph_op import SLICING_RESTRICTIONS, IteratingOp
from .base import TensorInfo, as_int64, spec_url
from .registry import register


@register
class Loop5(IteratingOp):
    """Runs the body while the trip count (``-1``: unbounded) and the execution condition allow:
    input 0 is the trip count, input 1 the first condition, the body's ``execution_condition``
    Result the next one; a ``current_iteration`` Parameter gets 0, 1, 2..."""

    type, version = "Loop", "opset5"
    spec = spec_url("infrastructure/loop-5")
    num_inputs = (2, None)
    first_input = 2
    restrictions = SLICING_RESTRICTIONS + "; a never-ending Loop is refused only when that " \
        "is certain from constants"

    def parse(self, layer) -> None:
        super().parse(layer)
        if self.condition is None:
            raise OpError('the port_map has no output with purpose="execution_condition"',
                          openvino_loads=True)

    def analyse(self, ins):
        a = super().analyse(ins)
        if self.current is not None:
            cur = self.body.declared(self.current)
            check_one_value(cur, "CurrentIteration input", None)
            if not (cur.etype.is_integer or cur.etype.is_dynamic):
                raise OpError(f"the current_iteration body Parameter is {cur.etype}, not an integer")
        return a

    def iterations(self, ins, a) -> Dim:
        trip, cond = ins[0], ins[1]
        check_one_value(trip, "TripCount", "input 0")
        check_one_value(cond, "ExecutionCondition", "input 1")
        if not (trip.etype.is_integer or trip.etype.is_dynamic):
            raise OpError(f"the trip count is {trip.etype}, not an integer", port="input 0")
        body_cond = self.body.result(a.types, self.condition)
        check_one_value(body_cond, "BodyExecutionCondition", None)
        again = None if body_cond.value is None else bool(body_cond.value.reshape(-1)[0])
        t = None if trip.value is None else int(as_int64(trip.value).reshape(-1)[0])
        first = None if cond.value is None else bool(cond.value.reshape(-1)[0])
        if first is False or t == 0:
            return Dim(0, 0)
        hi = t if t is not None and t >= 0 else None
        if again is False:
            hi = 1 if hi is None else min(hi, 1)
        if first and again and hi is None and t is not None:
            raise OpError("the Loop never ends: its trip count is -1 and its execution condition "
                          "is always true", openvino_loads=True)
        if not first:
            lo = 0
        elif again:                      # runs the trip count (unknown: maybe 0 times; -1 raised)
            lo = hi if hi is not None else 0
        else:
            lo = min(1, 1 if hi is None else hi)
        if first and again:
            iterations.refuse_static(lo)
        n = Dim(lo, hi)
        for m, cnt in self.slice_counts(ins):
            if cnt.hi is not None and lo > cnt.hi and m.slicing is not None:    # (it is sliced)
                raise OpError(f"the Loop runs at least {lo} iterations but input {m.index} has "
                              f"{cnt} parts along axis {m.slicing.axis}", port=f"input {m.index}",
                              openvino_loads=True)
        return n

    def unbounded(self, ins: list[TensorInfo]) -> str | None:
        """Why irrun cannot bound the iterations with these inputs (``irrun check`` warns), or
        None when a constant bounds them or the layer rejects its inputs (reported elsewhere)."""
        try:
            n = self.iterations(ins, self.analyse(ins))
        except (OpError, IrrunError):
            return None
        if n.hi is not None:
            return None
        return ("irrun cannot bound this loop: its trip count is not a constant (or is -1) and "
                "its execution condition is not constant false, so it may never end (OpenVINO "
                "would run it forever); irrun run stops it at the iteration budget "
                f"(--max-iterations, default {iterations.DEFAULT_MAX_ITERATIONS} body executions "
                f"and {iterations.DEFAULT_MAX_WORK} units of loop work)")

    def run(self, trip, cond, *rest, ctx=None):
        t = int(as_int64(np.asarray(scalar_value(trip, "the trip count", "input 0"))))
        go = bool(scalar_value(cond, "the execution condition", "input 1"))

        def more(i, res):
            if res is not None:
                return bool(scalar_value(res[self.condition], "the body's execution condition")) and \
                    (t < 0 or i < t)
            return go and (t < 0 or i < t)
        xs = (trip, cond) + rest
        least = 0
        if go and self.always_again(xs):
            if t < 0:
                raise OpError("the Loop never ends: its trip count is -1 and its body's execution "
                              "condition is always true", openvino_loads=True)
            least = t
        return self.iterate(xs, ctx, more, least)

    def always_again(self, xs) -> bool:
        """Is the body's execution condition a constant true?"""
        a, _ = self.prepare(xs)
        v = self.body.result(a.types, self.condition).value
        return v is not None and v.size == 1 and bool(v.reshape(-1)[0])


