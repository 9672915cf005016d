"""A run's outputs: a dict keyed by output name that also answers OpenVINO's ways of asking.

OpenVINO's ``compiled_model(x)`` returns an ``OVDict``: ``res[0]``, ``res["logits"]`` (any of the
output's tensor names) and ``res[compiled_model.output(0)]`` all give the array. Code written for
it — and the habit of its users — indexes results by position; irrun's plain dict answered
``res[0]`` with a KeyError. :class:`Results` is still the dict it was (keys, iteration, ``==``,
``np.savez(**res)`` and pickling see output names only), and ``[]``/``get`` also take:

* an ``int``: the output at that position, in model order (negative counts from the end);
* any tensor name of the output, not only its key;
* a :class:`~irrun.ports.PortSpec` of ``model.outputs``.

``to_tuple()`` gives the arrays in model order (``OVDict.to_tuple``), ``to_dict()`` a plain dict.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from .errors import printable
from .ports import PortSpec


class Results(dict):
    """{output name: array}, also indexed by position, alias name and PortSpec (module doc)."""

    def __init__(self, values: Mapping[str, np.ndarray], ports: Callable[[], Sequence[PortSpec]] | None = None):
        super().__init__(values)
        self._ports = ports               # model.outputs, asked only when a key is not a name
        self._aliases: dict[str, str] | None = None

    def __getitem__(self, key: Any) -> np.ndarray:
        return dict.__getitem__(self, self.key_of(key))

    def get(self, key: Any, default: Any = None) -> Any:
        try:
            return self[key]
        except KeyError:
            return default

    def key_of(self, key: Any) -> str:
        """The output name ``key`` stands for (KeyError naming the outputs when none)."""
        if isinstance(key, str):
            if dict.__contains__(self, key):
                return key
            alias = self._alias_table().get(key)
            if alias is not None:
                return alias
        elif isinstance(key, (int, np.integer)) and not isinstance(key, (bool, np.bool_)):
            names = list(self)
            if -len(names) <= key < len(names):
                return names[int(key)]
            raise KeyError(f"output index {key} is out of range: the model has {len(names)} "
                           f"output{'s' * (len(names) != 1)} ({self._listing()})")
        elif isinstance(key, PortSpec):
            for p in self._port_list():
                if p.node == key.node and p.name in self:
                    return p.name
        raise KeyError(f"{printable(key)} is no output of this run (outputs: {self._listing()}; "
                       "also by position 0..n-1, any tensor name, or a PortSpec of model.outputs)")

    def to_tuple(self) -> tuple[np.ndarray, ...]:
        """The arrays in model order."""
        return tuple(self.values())

    def to_dict(self) -> dict[str, np.ndarray]:
        return dict(self)

    def __reduce__(self):                  # pickled (Dask, multiprocessing) as the plain mapping
        return (Results, (dict(self),))

    def _port_list(self) -> Sequence[PortSpec]:
        return self._ports() if self._ports is not None else ()

    def _alias_table(self) -> dict[str, str]:
        if self._aliases is None:
            self._aliases = {n: p.name for p in self._port_list() if p.name in self for n in p.names}
        return self._aliases

    def _listing(self) -> str:
        return ", ".join(map(printable, self)) or "none"
