"""Record one run of a model: every port's array and every executed step, through the
executor's public ``observe`` hook — optionally rounding activations to a reduced precision
(:class:`~irrun.debug.accuracy.precision.Policy`) and watching for the first NaN/Inf
(:class:`~irrun.debug.accuracy.nonfinite.Watch`) on the way.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from ...runtime.step import OP, PARAM
from ...types.tensor_info import Role
from .nonfinite import Watch
from .precision import Policy

if TYPE_CHECKING:
    from ...model import Model


@dataclass
class Recording:
    """One run: ``arrays[(layer id, output index)]``, ``steps[layer id]`` (the executor's
    :class:`~irrun.runtime.plan.Step`, with op, reads and inferred types) and the execution order.
    A port is an *activation* when it depends on a model input or the state (not a Const or a
    folded constant sub-graph)."""

    model: Model
    arrays: dict = field(default_factory=dict)
    steps: dict = field(default_factory=dict)
    order: list = field(default_factory=list)
    outputs: dict = field(default_factory=dict)
    live: set = field(default_factory=set)       # layers whose outputs are activations

    def is_activation(self, port: tuple) -> bool:
        return port[0] in self.live

    def note(self, step) -> None:
        """Execution order: producers are noted before their readers. (The plan's own
        ``constant`` flag also covers a ReadValue with a constant initialiser, whose value
        is the state's.)"""
        if step.kind is PARAM or (step.kind is OP and (
                step.op.uses_context or any(r[0] in self.live for r in step.reads))):
            self.live.add(step.node)


class Recorder:
    """The observer: records, rounds (``policy``) and watches (``watch``)."""

    keeps_arrays = True                 # the executor must not write into arrays we keep

    def __init__(self, model, policy: Policy | None = None, watch: Watch | None = None,
                 step_index: int = 0):
        self.rec = Recording(model)
        self.policy, self.watch, self.step_index = policy, watch, step_index

    def __call__(self, step, args: list, outs: list, seconds: float) -> list | None:
        if step.op is not None and step.op.role is Role.RESULT:
            return None
        self.rec.note(step)
        live = step.node in self.rec.live
        replaced = self.policy.apply(step, outs, live) if self.policy is not None else None
        final = outs if replaced is None else replaced
        if self.watch is not None and step.node in self.rec.live and step.kind is OP:
            self.watch.see(self.rec.model, step, args, final, self.step_index)
        self.rec.steps[step.node] = step
        self.rec.order.append(step.node)
        for i, a in enumerate(final):
            if isinstance(a, np.ndarray):
                self.rec.arrays[(step.node, i)] = a
        return replaced


def record(model, feeds: dict, policy: Policy | None = None, watch: Watch | None = None,
           step_index: int = 0) -> Recording:
    """Run ``model`` once on ``feeds`` (its state advances, as one infer request's would)."""
    r = Recorder(model, policy, watch, step_index)
    r.rec.outputs = model.run(feeds, observe=r)
    return r.rec
