"""A model's variables (ReadValue/Assign): what the IR declares, and the values they hold.

Stateful models (the KV cache of an LLM export) read a variable with ``ReadValue`` and write it
with ``Assign`` (ir-format.md §8.3). A :class:`Variable` collects what the IR says about one
``variable_id``: the type and shape ReadValue-6 declares (``variable_type``, ``variable_shape``)
and which layers read and write it. :class:`State` — ``Model.state`` — holds the values; they
persist across ``Model.run`` calls until reset, like the state of one OpenVINO infer request.

Measured on OpenVINO 2026.4.1 (CPU, one infer request, three inferences then ``reset_state``):
an unset variable reads as its ReadValue's initial value (the ``init`` input, computed in that
run) or, without one, as zeros of the variable's shape with every dynamic dim 0; ``query_state``
shows those zeros for an unset variable, also when it has an init input; a ReadValue with no
Assign of its variable (or two ReadValues of one variable) is read by ``read_model`` but refused
by the CPU plugin (``ReadValue node ... doesn't have sibling output``).
"""
from __future__ import annotations

from collections.abc import Callable, Iterator, MutableMapping
from dataclasses import dataclass, field

import numpy as np

from ..errors import InputError, LayerRef
from ..types.elements import DYNAMIC, ElementType
from ..types.shapes import PartialShape


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


class State(MutableMapping):
    """``Model.state``: variable id -> value, for every variable of the model (like OpenVINO's
    ``query_state``). An unset variable reads as zeros of its shape (dynamic dims 0), as OpenVINO
    shows it; a ReadValue with an initial value gives that value instead on its next run.
    Assigning checks the element type and shape against the variable; ``del state[id]`` resets one
    variable, :meth:`reset` (``Model.reset_state()``) all of them."""

    def __init__(self, variables: dict[str, Variable],
                 declared: Callable[[Variable], tuple[ElementType, PartialShape]]):
        self.variables = variables
        self._declared = declared       # the variable's type and shape as its ReadValue gives them
        self.held: dict[str, np.ndarray] = {}   # the set variables' values (not ``values``:
                                                # that is the Mapping method)

    def _variable(self, key: str) -> Variable:
        try:
            return self.variables[key]
        except KeyError:
            have = ", ".join(self.variables) or "none"
            raise KeyError(f'the model has no variable "{key}" (its variables: {have})') from None

    def __getitem__(self, key: str) -> np.ndarray:
        var = self._variable(key)
        if key in self.held:
            return self.held[key]
        return var.zeros(*self._declared(var))

    def __setitem__(self, key: str, value) -> None:
        var = self._variable(key)
        arr = np.array(value)               # a private copy: the caller may change theirs
        etype, shape = self._declared(var)
        if etype.dtype is not None and arr.dtype != etype.dtype:
            raise InputError(f'variable "{key}" holds {etype} ({etype.dtype}), not {arr.dtype}')
        if not shape.accepts(arr.shape):
            raise InputError(f'variable "{key}" has shape {shape}; {PartialShape(arr.shape)} '
                             "does not fit it")
        self.held[key] = arr

    def __delitem__(self, key: str) -> None:
        self._variable(key)
        self.held.pop(key, None)

    def __iter__(self) -> Iterator[str]:
        return iter(self.variables)

    def __len__(self) -> int:
        return len(self.variables)

    def is_set(self, key: str) -> bool:
        """Has the variable been written (by a run or by assignment) since it was last reset?"""
        self._variable(key)
        return key in self.held

    def reset(self) -> None:
        """Reset every variable: the next run reads initial values (or zeros) again."""
        self.held.clear()

    def commit(self, writes: dict[str, np.ndarray]) -> None:
        """Keep what a successful run's Assign layers wrote."""
        self.held.update(writes)

    def __repr__(self) -> str:
        return "State(" + ", ".join(
            f"{k}={'set ' + str(list(self.held[k].shape)) if k in self.held else 'unset'}"
            for k in self.variables) + ")"
