"""Select-1: ``cond ? then : else`` element-wise, with numpy (default), none or pdpd broadcasting.

The output shape merges ``else``, ``then`` and ``cond`` with the shared element-wise rule
(:func:`irrun.ops.elementwise.broadcast_shapes`); pdpd broadcasts ``else`` and then ``cond`` into
``then`` (axis 0) with OpenVINO's own messages. ``cond`` must be boolean; ``then`` and ``else``
of one element type, which may be any (Select moves data, it computes nothing).
"""
from __future__ import annotations

import numpy as np

from ..errors import OpError
from ..limits.memory import check_alloc
from ..types.shapes import PartialShape
from ._broadcast import AUTO_BROADCAST, align_pdpd, broadcast_shapes, numpy_shape
from .base import Op, TensorInfo, spec_url
from .registry import register


def select_shape(cond: PartialShape, then: PartialShape, else_: PartialShape, mode: str) -> PartialShape:
    """OpenVINO's Select shape rule, for ``infer`` (partial shapes) and ``run`` (concrete ones)."""
    if mode == "pdpd":
        out = broadcast_shapes(then, else_, mode, "'Else' tensor shape is not broadcastable.")
        return broadcast_shapes(out, cond, mode, "'Cond' tensor shape is not broadcastable.")
    return broadcast_shapes(broadcast_shapes(else_, then, mode), cond, mode)


@register
class Select1(Op):
    """Select-1; every element type for ``then``/``else`` (strings too)."""
    category = "elementwise"
    allocation = "checked"        # irrun/ops/base.py: Op.allocation

    type, version = "Select", "opset1"
    spec = spec_url("condition/select-1")
    attrs = {"auto_broadcast": AUTO_BROADCAST}
    num_inputs = (3, 3)
    moves_values = (1, 2)          # value bounds pass through (irrun/ops/bounds.py)

    def infer(self, inputs):
        cond, then, else_ = inputs
        if not (cond.etype.is_dynamic or cond.etype.name == "boolean"):
            raise OpError(f"Argument 0 must have boolean element type (element type: {cond.etype}).",
                          port="input 0")
        if not (then.etype.is_dynamic or else_.etype.is_dynamic) and then.etype != else_.etype:
            raise OpError("Argument 1 and 2 element types must match.", port="input 2")
        et = else_.etype if then.etype.is_dynamic else then.etype
        return [TensorInfo(et, select_shape(cond.shape, then.shape, else_.shape, self.auto_broadcast))]

    def run(self, cond, then, else_):
        shape = None
        if self.auto_broadcast == "numpy":  # the same rule on plain ints (None: it decides)
            shape = numpy_shape(else_.shape, then.shape, cond.shape)
        if shape is None:
            shape = select_shape(*(PartialShape(a.shape) for a in (cond, then, else_)),
                                 self.auto_broadcast).to_tuple()
        check_alloc(shape, then.dtype, like=(then, else_))
        if self.auto_broadcast == "pdpd":
            cond, else_ = align_pdpd(cond, then.ndim), align_pdpd(else_, then.ndim)
        return [np.asarray(np.where(cond, then, else_))]
