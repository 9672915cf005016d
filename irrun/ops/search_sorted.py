"""SearchSorted-15: for each value, the index where it would be inserted into a sorted sequence.

``right_mode`` false gives the first index whose element is >= the value (``std::lower_bound``,
NumPy's side "left"), true the first whose element is > the value. The sorted sequence is either
1-D (one sequence for every value) or has the values' rank with the same leading dims (one
sequence per row of values; the last dims may differ). Unsorted sequences give whatever the
binary search finds, as in OpenVINO (not refused: the result is still a valid index).
"""
from __future__ import annotations

import numpy as np

from ..errors import OpError
from ..types.elements import TYPES
from ..types.shapes import DYN, PartialShape
from .base import Attr, Op, TensorInfo, spec_url
from .registry import register


def check_shapes(seq: PartialShape, values: PartialShape) -> None:
    """OpenVINO's rule between the sequence's and the values' shapes."""
    if seq.rank is None or values.rank is None:
        return
    if seq.rank == 0:
        raise OpError("The sorted sequence input cannot be a scalar.", port="input 0")
    if seq.rank == 1:
        return
    if seq.rank != values.rank:
        raise OpError("If the shape of sorted sequence is not 1D, the ranks of the inputs have to be "
                      "compatible.", port="input 1")
    if not PartialShape(list(seq)[:-1]).compatible(PartialShape(list(values)[:-1])):
        raise OpError("All dimensions but the last one have to be compatible.", port="input 1")


@register
class SearchSorted15(Op):
    """SearchSorted-15; see the module docstring."""
    category = "shape"

    type, version = "SearchSorted", "opset15"
    spec = spec_url("sort/search-sorted-15")
    attrs = {"right_mode": Attr("bool", False), "output_type": Attr("etype", TYPES["i64"])}
    num_inputs = (2, 2)

    def infer(self, inputs):
        seq, values = inputs
        if self.output_type.name not in ("i32", "i64"):
            raise OpError(f"The output type must be i32 or i64. Got: {self.output_type}")
        if not (seq.etype.is_dynamic or values.etype.is_dynamic or seq.etype == values.etype):
            raise OpError("Sorted sequence and values must have the same element type.", port="input 1")
        if seq.etype.name in ("boolean", "string"):
            raise OpError(f"SearchSorted does not take {seq.etype} inputs.", port="input 0")
        check_shapes(seq.shape, values.shape)
        out = values.shape
        if seq.shape.rank not in (None, 1) and out.rank is not None:     # leading dims merge
            out = PartialShape([a.intersect(b) for a, b in zip(seq.shape, out)][:-1] + [out[-1]])
        elif seq.shape.rank not in (None, 1):
            out = PartialShape([*list(seq.shape)[:-1], DYN])
        return [TensorInfo(self.output_type, out)]

    def run(self, seq, values):
        check_shapes(PartialShape(seq.shape), PartialShape(values.shape))
        side = "right" if self.right_mode else "left"
        if seq.ndim == 1:
            out = np.searchsorted(seq, values, side=side)
        else:
            rows_s = seq.reshape(-1, seq.shape[-1])
            rows_v = values.reshape(-1, values.shape[-1])
            out = np.empty(rows_v.shape, np.int64)
            for r in range(rows_v.shape[0]):
                out[r] = np.searchsorted(rows_s[r], rows_v[r], side=side)
            out = out.reshape(values.shape)
        return [np.asarray(out).astype(self.output_type.dtype)]
