"""Range-1/4: ``start, start + step, ...`` up to (excluding) ``stop``; three scalar inputs.

:func:`range_length` is OpenVINO's shape rule (``range_shape_inference.hpp``), used by ``infer``
when the inputs are constant and by ``run``: the values are read as f64; for an integer output
they are first truncated toward zero (so Range-4 0.5, 7.9, 2.6 -> i32 is 0, 2, 4, 6); the length
is ``ceil(|stop - start| / |step|)``, 0 when the step points away from ``stop``. A step that
truncates to 0 (0.5 -> i64) gives an empty output, as measured (OpenVINO divides by zero and casts
the infinity to 0). Floats compute ``start + i * step`` in f32 (f64 for f64) and round once.
"""
from __future__ import annotations

import math

import numpy as np

from ..errors import OpError
from ..limits.memory import check_alloc
from ..types.elements import ElementType
from ..types.shapes import PartialShape
from ._numerics import NUMERIC, unsupported, work_dtype
from .base import Attr, Op, TensorInfo, spec_url
from .registry import register

_NAMES = ("start", "stop", "step")


def _scalar(value: np.ndarray, i: int) -> float:
    if value.size == 0:
        raise OpError(f"'{_NAMES[i]}' input is empty", port=f"input {i}")
    v = float(np.asarray(value).reshape(-1)[0])
    if i < 2 and not math.isfinite(v):
        raise OpError(f"'{_NAMES[i]}' cannot be nan or infinite.", port=f"input {i}")
    if i == 2 and (v == 0 or not math.isfinite(v)):
        raise OpError("'step' cannot be zero, nan, or infinite.", port="input 2")
    return v


def range_length(start: float, stop: float, step: float, integral: bool) -> int:
    if integral:
        start, stop, step = math.trunc(start), math.trunc(stop), math.trunc(step)
    if step == 0:
        return 0
    if (step > 0 and start >= stop) or (step < 0 and start <= stop):
        return 0
    return math.ceil(abs(stop - start) / abs(step))


class _Range(Op):
    category = "shape"
    allocation = "checked"        # irrun/ops/base.py: Op.allocation
    num_inputs = (3, 3)
    restrictions = "no f8, 4-bit or string types"

    def out_type(self, inputs: list[TensorInfo]) -> ElementType:
        raise NotImplementedError

    def out_dtype(self, args: tuple[np.ndarray, ...]) -> np.dtype:
        raise NotImplementedError

    def infer(self, inputs):
        et = self.out_type(inputs)
        for i, t in enumerate(inputs):
            if t.shape.rank not in (None, 0):
                raise OpError(f"'{_NAMES[i]}' input is not a scalar", port=f"input {i}")
            if not (t.etype.is_dynamic or t.etype.name in NUMERIC):
                raise unsupported(self.type, t.etype, port=f"input {i}")
        vals = [None if t.value is None else _scalar(t.value, i) for i, t in enumerate(inputs)]
        if any(v is None for v in vals) or et.is_dynamic:
            return [TensorInfo(et, PartialShape.dynamic(1))]
        return [TensorInfo(et, PartialShape([range_length(*vals, et.is_integer)]))]

    def run(self, *args):
        start, stop, step = (_scalar(a, i) for i, a in enumerate(args))
        dt = self.out_dtype(args)
        n = range_length(start, stop, step, dt.kind in "iu")
        check_alloc((n,), dt)
        if dt.kind in "iu":
            first, step_i = math.trunc(start), (math.trunc(step) if n > 1 else 0)
            last = first + (n - 1) * step_i
            if n and not all(-2**63 <= v < 2**63 for v in (first, last, step_i)):
                raise OpError(f"Range values {first}..{last} (step {step_i}) do not fit in 64-bit "
                              f"integers (OpenVINO's cast to {dt} is undefined)", openvino_loads=True)
            i = np.arange(n, dtype=np.int64)
            return [(np.int64(first) + i * np.int64(step_i)).astype(dt)]
        w = work_dtype(dt)
        return [(w.type(start) + np.arange(n).astype(w) * w.type(step)).astype(dt)]


@register
class Range1(_Range):
    """Range-1: start, stop and step of one numeric type, which the output takes."""

    type, version = "Range", "opset1"
    spec = spec_url("generation/range-1")

    def out_type(self, inputs):
        known = {t.etype for t in inputs if not t.etype.is_dynamic}
        if len(known) > 1:
            raise OpError("Element types for start, stop, and step do not match.")
        return known.pop() if known else inputs[0].etype

    def out_dtype(self, args):
        return args[0].dtype


@register
class Range4(_Range):
    """Range-4: inputs of any numeric types; ``output_type`` gives the output's."""

    type, version = "Range", "opset4"
    spec = spec_url("generation/range-4")
    attrs = {"output_type": Attr("etype", required=True)}

    def out_type(self, inputs):
        et = self.output_type
        if et.name == "boolean" or et.name not in NUMERIC:
            if et.name in ("boolean", "string") or et.is_dynamic:     # (dynamic: not numeric)
                raise OpError(f"output tensor type should be a numeric type. Got: {et}")
            raise unsupported(self.type, et)
        return et

    def out_dtype(self, args):
        return self.output_type.dtype
