"""SparseFillEmptyRows-16: a 2-D sparse tensor (COO) with an entry ``[row, 0] = default_value``
added to every row that has none, as TensorFlow's ``sparse.fill_empty_rows``.

Inputs values ``[N]``, dense_shape ``[2]``, indices ``[N, 2]``, default_value (scalar of the
values' type). Outputs: the indices ``[M, 2]`` and values ``[M]`` ordered by row (entries of one
row keep their input order, the added ``[row, 0]`` entries sit in their row's place), and a
boolean ``[rows]`` marking the rows that were empty. ``M`` depends on values: ``?`` to the shape
rule (as OpenVINO's), checked against the memory budget at run time. An index outside the dense
shape is refused.
"""
from __future__ import annotations

import numpy as np

from ..errors import OpError
from ..limits.memory import check_alloc
from ..types.elements import TYPES
from ..types.shapes import DYN, Dim, PartialShape
from .base import Op, TensorInfo, as_int64, spec_url
from .registry import register


@register
class SparseFillEmptyRows16(Op):
    """SparseFillEmptyRows-16; see the module docstring."""
    category = "movement"

    type, version = "SparseFillEmptyRows", "opset16"
    spec = spec_url("sparse/fill-empty-rows-16")
    num_inputs = (4, 4)

    def infer(self, inputs):
        values, shape, indices, default = inputs
        for i, t in ((1, shape), (2, indices)):
            if not (t.etype.is_dynamic or t.etype.name in ("i32", "i64")):
                raise OpError(f"The element type of the {'dense_shape' if i == 1 else 'indices'} input must be "
                              f"i32 or i64. Got: {t.etype}", port=f"input {i}")
        for i, t, r in ((0, values, 1), (1, shape, 1), (2, indices, 2), (3, default, 0)):
            if t.shape.rank not in (None, r):
                raise OpError(f"The {('values', 'dense_shape', 'indices', 'default_value')[i]} input must be "
                              f"{'a scalar' if r == 0 else f'{r}D'}. Got: {t.shape}", port=f"input {i}")
        if not (values.etype.is_dynamic or default.etype.is_dynamic or values.etype == default.etype):
            raise OpError("The element type of default_value must match values.", port="input 3")
        if indices.shape.rank == 2 and indices.shape[1].intersect(Dim(2, 2)) is None:
            raise OpError(f"The indices input must have 2 columns. Got: {indices.shape}", port="input 2")
        n = values.shape[0] if values.shape.rank == 1 else DYN
        if indices.shape.rank == 2:
            n2 = n.intersect(indices.shape[0])
            if n2 is None:
                raise OpError("The number of values must match the number of indices.", port="input 2")
            n = n2
        rows = DYN
        if shape.value is not None:
            dims = as_int64(shape.value)
            if dims.size != 2 or np.any(dims < 0):
                raise OpError(f"dense_shape must hold two non-negative dims. Got: {dims.tolist()}", port="input 1")
            rows = Dim.of(int(dims[0]))
        m = DYN                  # as OpenVINO's shape rule (the count depends on the indices' values)
        return [TensorInfo(indices.etype, PartialShape([m, Dim(2, 2)])),
                TensorInfo(values.etype, PartialShape([m])),
                TensorInfo(TYPES["boolean"], PartialShape([rows]))]

    def run(self, values, shape, indices, default):
        dims = as_int64(shape)
        if dims.size != 2 or np.any(dims < 0):
            raise OpError(f"dense_shape must hold two non-negative dims. Got: {dims.tolist()}", port="input 1")
        idx = as_int64(indices)
        rows, cols = int(dims[0]), int(dims[1])
        if idx.size and (idx.min() < 0 or idx[:, 0].max() >= rows or idx[:, 1].max() >= cols):
            raise OpError(f"an index is outside the dense shape {dims.tolist()}", port="input 2")
        check_alloc((rows,), np.dtype(np.bool_))
        empty = np.ones(rows, bool)
        empty[idx[:, 0]] = False
        new_rows = np.flatnonzero(empty)
        m = idx.shape[0] + new_rows.size
        check_alloc((m, 2), indices.dtype)
        all_idx = np.concatenate([idx, np.stack([new_rows, np.zeros_like(new_rows)], axis=1)]).astype(indices.dtype)
        all_val = np.concatenate([values, np.full(new_rows.size, default.reshape(()), values.dtype)])
        order = np.argsort(all_idx[:, 0], kind="stable")
        return [all_idx[order], all_val[order], empty]
