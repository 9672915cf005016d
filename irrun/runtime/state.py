"""A model's variables (ReadValue/Assign): what the IR declares, and the values they hold.

Stateful models (the KV cache of an LLM export) read a variable with ``ReadValue`` and write it
with ``Assign`` (ir-format.md §8.3). A :class:`~irrun.types.variable.Variable` collects what the
IR says about one ``variable_id``: the type and shape ReadValue-6 declares (``variable_type``, ``variable_shape``)
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

import numpy as np

from ..errors import InputError
from ..types.elements import ElementType
from ..types.shapes import PartialShape
from ..types.variable import Variable


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
