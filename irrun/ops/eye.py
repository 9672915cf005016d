"""Eye-9: a matrix (or a batch of them) with ones on one diagonal, zeros elsewhere.

``output[..., i, i + diagonal_index] = 1``; a diagonal outside the matrix gives zeros. The shape is
``batch_shape + [num_rows, num_columns]``. Measured on OpenVINO 2026.4.1: the inputs are i32 or
i64 scalars / one-element vectors (batch_shape a vector); a negative row or column count is
refused ("Value -1 not in range ...") whether it is a Const or arrives at run time; a negative
``batch_shape`` entry gives an empty dimension (-2 -> 0, as OpenVINO's shape inference makes it);
``output_type`` is any numeric type or boolean (OpenVINO's evaluators refuse string and dynamic).
"""
from __future__ import annotations

import numpy as np

from ..errors import OpError
from ..limits.memory import check_alloc
from ..types.shapes import DYN, Dim, PartialShape
from .base import Attr, Op, TensorInfo, as_int64, spec_url
from .registry import register

_NAMES = ("num_rows", "num_columns", "diagonal_index", "batch_shape")
_OUTPUT_TYPES = frozenset({"f64", "f32", "f16", "bf16", "i64", "i32", "i16", "i8", "u64", "u32", "u16", "u8",
                           "boolean"})
_MAX = 2 ** 63 - 1


def size_value(value: np.ndarray, name: str) -> int:
    """A row/column count, checked as OpenVINO checks it (Const or run time)."""
    v = int(as_int64(value).reshape(-1)[0])
    if v < 0:
        raise OpError(f"Value {v} not in range [0:{_MAX}]", port=f"input {_NAMES.index(name)}")
    return v


def batch_dims(value: np.ndarray) -> list[int]:
    return [max(int(v), 0) for v in as_int64(value).reshape(-1)]


@register
class Eye9(Op):
    """Inputs num_rows, num_columns, diagonal_index (i32/i64) and an optional batch_shape."""
    category = "shape"

    type, version = "Eye", "opset9"
    spec = spec_url("generation/eye-9")
    attrs = {"output_type": Attr("etype", required=True)}
    num_inputs = (3, 4)
    restrictions = "output_type numeric or boolean"

    def infer(self, inputs):
        for i, info in enumerate(inputs):
            if not (info.etype.is_dynamic or info.etype.name in ("i32", "i64")):
                raise OpError(f"Type of the '{_NAMES[i]}' should be int32 or int64. Got: {info.etype}", port=f"input {i}")
        for i, info in enumerate(inputs[:3]):
            if info.shape.rank not in (None, 0, 1):
                raise OpError(f"'{_NAMES[i]}' value must be a scalar or 1D tensor.", port=f"input {i}")
            if info.shape.rank == 1 and info.shape[0].is_static and info.shape[0].lo != 1:
                raise OpError(f"'{_NAMES[i]}' value input should have 1 element.", port=f"input {i}")
        if len(inputs) == 4 and inputs[3].shape.rank not in (None, 1):
            raise OpError("'batch_shape' input must be a 1D tensor.", port="input 3")
        et = self.output_type
        if et.name not in _OUTPUT_TYPES:
            raise OpError(f"irrun does not run Eye with output_type {et} (OpenVINO's evaluators refuse it)",
                          unsupported=True)
        rows, cols = (DYN if v.value is None else Dim.of(size_value(v.value, n))
                      for v, n in zip(inputs[:2], _NAMES))
        if len(inputs) < 4:
            batch: list | None = []
        elif inputs[3].value is not None:
            batch = batch_dims(inputs[3].value)
        elif inputs[3].shape.rank == 1 and inputs[3].shape[0].is_static:
            batch = [DYN] * inputs[3].shape[0].lo
        else:
            batch = None
        return [TensorInfo(et, PartialShape(None if batch is None else batch + [rows, cols]))]

    def run(self, rows, cols, diagonal, batch=None):
        r, c = size_value(rows, "num_rows"), size_value(cols, "num_columns")
        k = int(as_int64(diagonal).reshape(-1)[0])
        shape = tuple((batch_dims(batch) if batch is not None else []) + [r, c])
        dtype = self.output_type.dtype
        check_alloc(shape, dtype)
        matrix = np.eye(r, c, k if abs(k) < max(r, c, 1) else max(r, c, 1)).astype(dtype)
        return [np.broadcast_to(matrix, shape)]
