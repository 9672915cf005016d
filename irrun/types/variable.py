"""What the IR declares about one model variable (a ``variable_id`` of ReadValue/Assign,
ir-format.md §8.3): its element type and shape, and which layers read and write it. A record every
stage shares: ReadValue's shape rule reads it (:mod:`irrun.ops.variables`), the runtime's
:class:`~irrun.runtime.state.State` holds the values."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..errors import InputError, LayerRef
from .elements import DYNAMIC, ElementType
from .shapes import PartialShape


@dataclass(eq=False)
class Variable:
    """One ``variable_id``: its declared element type and shape (dynamic when the IR does not say,
    e.g. ReadValue-3, whose variable takes its initial value's type and shape), and its layers."""

    id: str
    etype: ElementType = DYNAMIC
    shape: PartialShape = field(default_factory=lambda: PartialShape(None))
    readers: list[LayerRef] = field(default_factory=list)
    writers: list[LayerRef] = field(default_factory=list)

    def pairing_problem(self) -> str | None:
        """Why OpenVINO cannot compile this variable's layers, or None: it needs exactly one
        ReadValue and one Assign per variable."""
        r, w = len(self.readers), len(self.writers)
        if r == 1 and w == 1:
            return None
        return (f'variable "{self.id}" is read by {r} ReadValue and written by {w} Assign layers; '
                "OpenVINO needs exactly one of each (its CPU plugin refuses the model: "
                + ("ReadValue ... doesn't have sibling output)" if r else "Assign has no ReadValue)"))

    def zeros(self, etype: ElementType, shape: PartialShape) -> np.ndarray:
        """The value of an unset variable without an initial value: zeros, dynamic dims 0."""
        if etype.dtype is None or shape.rank is None:
            raise InputError(f'variable "{self.id}" has no value and no initial value, and its '
                             f"{'element type' if etype.dtype is None else 'rank'} is unknown")
        return np.zeros(tuple(d.lo for d in shape), etype.dtype)
