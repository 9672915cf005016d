"""ReadValue-3/6 and Assign-3/6: read and write a model variable (the state of stateful models).

(and read-value-3, assign-3, assign-6). The values live in the model's
:class:`irrun.runtime.state.State`; these ops reach them through the run's
:class:`irrun.runtime.loop.RunContext` (``uses_context``), so they are never folded. What a run's
Assign layers write is kept only when the run succeeds, and a ReadValue reads the value of the
previous run (OpenVINO's CPU plugin double-buffers the state the same way). Measured semantics:
:mod:`irrun.runtime.state`.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..errors import InputError, OpError
from ..types.elements import DYNAMIC
from ..types.shapes import PartialShape
from .base import Attr, Op, Role, TensorInfo, spec_url
from .registry import register

if TYPE_CHECKING:
    from ..types.variable import Variable


class _VariableOp(Op):
    """Shared: the variable (from :class:`irrun.runtime.subgraph.Build`) and the pairing check."""
    category = "control"
    allocation = "inputs"        # irrun/ops/base.py: Op.allocation

    uses_context = True
    attrs = {"variable_id": Attr("str", required=True)}
    reads = True
    variable: Variable                  # (from_ir)

    @classmethod
    def from_ir(cls, layer, build) -> "_VariableOp":
        op = cls.from_layer(layer.data)
        op.variable = build.variable(op.variable_id)
        (op.variable.readers if cls.reads else op.variable.writers).append(layer.ref)
        op.declare()
        return op

    def declare(self) -> None:
        """ReadValue-6 states the variable's type and shape."""

    def check_pair(self) -> None:
        why = self.variable.pairing_problem()
        if why:
            raise OpError(why, openvino_loads=True)


class _ReadValue(_VariableOp):
    role = Role.VARIABLE_READ

    def value(self, ctx) -> np.ndarray | None:
        return ctx.read(self.variable_id) if ctx is not None else None


@register
class ReadValue3(_ReadValue):
    """The variable's value, or the ``init`` input while the variable is unset. The variable takes
    the init's type and shape, so a stored value of another shape is refused."""

    type, version = "ReadValue", "opset3"
    spec = spec_url("infrastructure/read-value-3")

    def infer(self, inputs):
        self.check_pair()
        (x,) = inputs
        return [TensorInfo(x.etype, x.shape)]

    def run(self, init, ctx=None):
        v = self.value(ctx)
        if v is None:
            return [init]
        if v.dtype != init.dtype or v.shape != init.shape:
            raise OpError(f'variable "{self.variable_id}" holds {v.dtype}{list(v.shape)}, but '
                          f"ReadValue-3 gives its initial value's {init.dtype}{list(init.shape)}")
        return [v]


@register
class ReadValue6(_ReadValue):
    """The variable's value (``variable_type``/``variable_shape``); while it is unset, the
    optional ``init`` input, else zeros of the variable's shape with dynamic dims 0 (measured)."""

    type, version = "ReadValue", "opset6"
    spec = spec_url("infrastructure/read-value-6")
    unset_only_inputs = (0,)     # run() returns the value without reading ``init`` once it is set
    attrs = {"variable_id": Attr("str", required=True),
             "variable_type": Attr("etype", DYNAMIC),
             "variable_shape": Attr("pshape", PartialShape(None))}
    num_inputs = (0, 1)

    def declare(self) -> None:
        self.variable.etype, self.variable.shape = self.variable_type, self.variable_shape

    def infer(self, inputs):
        self.check_pair()
        vt, vs = self.variable_type, self.variable_shape
        if inputs:
            (x,) = inputs
            if not (vt.is_dynamic or x.etype.is_dynamic or x.etype == vt):
                raise OpError("The type specified in the Variable have to extend (relax) the type "
                              f"inferred from the initializing subgraph. ({vt} vs {x.etype})",
                              port="input 0")
            if vs.rank is not None and x.shape.rank is not None:
                if vs.rank != x.shape.rank:
                    raise OpError("Ranks of initial_shape and variable_shape do not match.",
                                  port="input 0")
                if not all(_relaxes(v, d) for v, d in zip(vs, x.shape)):
                    raise OpError("The shape specified in the Variable have to extend (relax) the "
                                  f"shape inferred from the initializing subgraph. ({vs} vs "
                                  f"{x.shape})", port="input 0")
        if inputs and vt.is_dynamic and vs.rank is None:     # a fully dynamic variable takes
            return [TensorInfo(inputs[0].etype, inputs[0].shape)]   # its init's type (measured)
        return [TensorInfo(vt, vs)]

    def run(self, *init, ctx=None):
        v = self.value(ctx)
        if v is not None:
            return [v]
        if init:
            return [init[0]]
        try:
            return [self.variable.zeros(self.variable_type, self.variable_shape)]
        except InputError as e:
            raise OpError(e.message) from None


def _relaxes(v, d) -> bool:
    """Does variable dim ``v`` include every size dim ``d`` may take?"""
    return v.lo <= d.lo and (v.hi is None or (d.hi is not None and d.hi <= v.hi))


class _Assign(_VariableOp):
    role = Role.VARIABLE_WRITE
    reads = False

    def run(self, x, ctx=None):
        self.check_value(x)
        if ctx is not None:
            ctx.write(self.variable_id, np.array(x))    # a copy: x may be a view of anything
        return [x]

    def check_value(self, x: np.ndarray) -> None:
        """Assign-6 checks a run-time value against the variable's declared type and shape."""


@register
class Assign3(_Assign):
    """Writes its input into the variable; a sink (kept although nothing reads its output)."""

    type, version = "Assign", "opset3"
    spec = spec_url("infrastructure/assign-3")

    def infer(self, inputs):
        self.check_pair()
        (x,) = inputs
        return [TensorInfo(x.etype, x.shape)]


@register
class Assign6(_Assign):
    """Writes its input into the variable, which must fit the type and shape ReadValue-6
    declares; a sink (kept although nothing reads its output)."""

    type, version = "Assign", "opset6"
    spec = spec_url("infrastructure/assign-6")

    def infer(self, inputs):
        self.check_pair()
        (x,) = inputs
        vt, vs = self.variable.etype, self.variable.shape
        if not (vt.is_dynamic or x.etype.is_dynamic or x.etype == vt):
            raise OpError("The type specified in the Variable is not compatible with the input "
                          f"type. Input type: {x.etype} Variable type: {vt}", port="input 0")
        if not vs.compatible(x.shape):
            raise OpError("The shape specified in the Variable is not compatible with the shape "
                          f"of the input. Input shape: {x.shape} Variable shape: {vs}",
                          port="input 0")
        return [TensorInfo(x.etype, x.shape)]

    def check_value(self, x):
        vt, vs = self.variable.etype, self.variable.shape
        if (vt.dtype is not None and x.dtype != vt.dtype) or not vs.accepts(x.shape):
            raise OpError(f'the value {x.dtype}{list(x.shape)} does not fit variable '
                          f'"{self.variable_id}" ({vt}{vs})')
