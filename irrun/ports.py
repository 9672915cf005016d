"""What :meth:`irrun.Model.run`, :meth:`~irrun.Model.infer_shapes` and :meth:`~irrun.Model.reshape`
accept, the way OpenVINO's ``CompiledModel.__call__`` and ``Model.reshape`` accept it.

An input is named by its tensor or layer name, its index in ``model.inputs``, or its
:class:`~irrun.PortSpec`. ``run`` takes a dict keyed by any of these, a list/tuple of arrays in
input order, or one array (a one-input model); ``reshape`` a dict keyed likewise, or, for a
one-input model, one shape (a string ``"1,3,?,224"``, a list/tuple of dims, a PartialShape).
Anything else is an :class:`~irrun.errors.InputError` naming what was given, never an
AttributeError from deep inside.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from .errors import InputError
from .types.elements import ElementType
from .types.shapes import Dim, PartialShape


@dataclass(frozen=True)
class PortSpec:
    """A model input or output: its main name, all its tensor names, element type and shape."""

    name: str
    names: tuple[str, ...]
    etype: ElementType
    shape: PartialShape
    node: int

    def __str__(self) -> str:
        return f"{self.name}: {self.etype}{self.shape}"


def model_repr(model) -> str:
    """``<irrun.Model "name" (path): N layers; inputs x: f32[1,3,?,?]; outputs y>`` (no inference)."""
    ins = ", ".join(str(p) for p in model.inputs) if not model.op_errors else \
        ", ".join(model.input_names(n)[0] for n in model.parameter_nodes)
    outs = ", ".join(model.output_names(n)[0] for n in model.result_nodes)
    return (f'<irrun.Model "{model.ir.name}" ({model.path}): {model.dag.number_of_nodes()} layers; '
            f"inputs {ins or 'none'}; outputs {outs or 'none'}>")


def input_node(model, key) -> int:
    """The Parameter node an input key names (name, index or PortSpec)."""
    params = model.parameter_nodes
    if isinstance(key, str):
        return model.find_input(key)
    if isinstance(key, PortSpec):
        if key.node in params and key.name in model.input_names(key.node):
            return key.node
        raise InputError(f'{key} is not an input of this model (its inputs: {_names(model)})', file=model.path)
    if isinstance(key, (int, np.integer)) and not isinstance(key, bool):
        if 0 <= key < len(params):
            return params[int(key)]
        raise InputError(f"input index {key} is out of range: the model has {len(params)} input"
                         f"{'s' * (len(params) != 1)} ({_names(model)})", file=model.path)
    raise InputError(f"an input is named by its name, index or PortSpec, not by {type(key).__name__} "
                     f"{key!r}", file=model.path)


def _names(model) -> str:
    return ", ".join(model.input_names(n)[0] for n in model.parameter_nodes) or "none"


def _array(model, key, value) -> np.ndarray:
    if isinstance(value, np.ndarray):
        return value
    if isinstance(value, (str, bytes, Mapping)) or value is None:
        raise InputError(f'input "{key}": expected an array (numpy.ndarray, or a number or list '
                         f"NumPy can turn into one), got {type(value).__name__}", file=model.path)
    arr = np.asarray(value)
    if arr.dtype == object:
        raise InputError(f'input "{key}": {type(value).__name__} does not make a numeric array',
                         file=model.path)
    return arr


def feeds(model, inputs) -> dict[int, np.ndarray]:
    """``inputs`` as {Parameter node: array}; every input given exactly once."""
    params = model.parameter_nodes
    if isinstance(inputs, Mapping):
        pairs = [(input_node(model, k), k, v) for k, v in inputs.items()]
    elif isinstance(inputs, (list, tuple)):
        if len(inputs) != len(params):
            raise InputError(f"{len(inputs)} array{'s' * (len(inputs) != 1)} given in a "
                             f"{type(inputs).__name__}, the model has {len(params)} "
                             f"input{'s' * (len(params) != 1)} "
                             f"({_names(model)}), taken in this order", file=model.path)
        pairs = [(n, model.input_names(n)[0], v) for n, v in zip(params, inputs, strict=True)]
    elif isinstance(inputs, (np.ndarray, np.generic)):
        if len(params) != 1:
            raise InputError(f"the model has {len(params)} inputs ({_names(model)}); pass a dict "
                             "keyed by name or index, or a list in input order", file=model.path)
        pairs = [(params[0], model.input_names(params[0])[0], inputs)]
    else:
        raise InputError(f"inputs must be a dict (keyed by input name, index or PortSpec), a list "
                         f"or tuple of arrays in input order, or one array; got {type(inputs).__name__}",
                         file=model.path)
    out: dict[int, np.ndarray] = {}
    for n, key, value in pairs:
        if n in out:
            raise InputError(f'input "{model.input_names(n)[0]}" is given twice', file=model.path)
        out[n] = _array(model, model.input_names(n)[0] if not isinstance(key, str) else key, value)
    missing = [model.input_names(n)[0] for n in params if n not in out]
    if missing:
        raise InputError(f"missing input(s): {', '.join(missing)}", file=model.path)
    return out


def _is_one_shape(value) -> bool:
    """A string, a PartialShape, or a flat sequence of dims (ints, Dims, dim strings)."""
    if isinstance(value, (str, PartialShape)):
        return True
    return isinstance(value, Sequence) and all(
        isinstance(d, (int, np.integer, Dim, str)) and not isinstance(d, bool) for d in value)


def as_shape(value, name: str) -> PartialShape:
    """One input's new shape as a PartialShape; InputError when it is none."""
    try:
        if isinstance(value, PartialShape):
            return value
        if isinstance(value, str):
            return PartialShape.parse(value)
        if _is_one_shape(value):
            return PartialShape([d if isinstance(d, Dim) else Dim.parse(d) if isinstance(d, str) else int(d)
                                 for d in value])
    except ValueError as e:
        raise InputError(f'bad shape for input "{name}": {e}') from None
    raise InputError(f'bad shape for input "{name}": expected a string like "1,3,?,224", a list of '
                     f"dims or a PartialShape, got {type(value).__name__} {value!r}")


def shapes(model, value) -> dict[str, PartialShape]:
    """New input shapes as {input name: PartialShape}: a dict keyed by name, index or PortSpec,
    one shape for a one-input model, or a list of shapes in input order."""
    params = model.parameter_nodes
    if isinstance(value, Mapping):
        pairs = [(input_node(model, k), v) for k, v in value.items()]
    elif _is_one_shape(value):
        if len(params) != 1:
            raise InputError(f"one shape given, the model has {len(params)} inputs ({_names(model)}); "
                             "pass a dict keyed by input name or index", file=model.path)
        pairs = [(params[0], value)]
    elif isinstance(value, Sequence) and len(value) == len(params):
        pairs = list(zip(params, value, strict=True))
    else:
        raise InputError(f"shapes must be a dict (keyed by input name, index or PortSpec), one shape "
                         f"(a string, a list of dims, a PartialShape) for a one-input model, or a list "
                         f"of {len(params)} shapes in input order; got {type(value).__name__}",
                         file=model.path)
    out: dict[str, PartialShape] = {}
    for n, v in pairs:
        name = model.input_names(n)[0]
        if name in out:
            raise InputError(f'input "{name}" is given twice', file=model.path)
        out[name] = as_shape(v, name)
    return out
