"""TopK-1/3/11: the ``k`` largest or smallest elements of every slice along ``axis``, and their indices.

Order (measured on OpenVINO 2026.4.1, tools/expectations/make_select_expectations.py): the reference evaluator
ranks by value and breaks ties by the lower index, whatever ``stable`` says, and the spec's
``stable=true`` rule is the same; irrun always does this (the CPU plugin does it only for
sort=value with stable=true; elsewhere it picks tied elements arbitrarily). ``sort=index`` returns
that selection in ascending index order; ``sort=none`` (unspecified order; both evaluators return
an arbitrary one) returns the value order. NaN: OpenVINO's order depends on where the NaNs sit
(its comparator is not a strict weak order; its docs call NaN ordering implementation-defined);
irrun follows the v3 spec's text, "NaN is smaller than any valid number": last in max mode, first
in min mode.

``k`` must be in ``[1, dim]``: OpenVINO's shape inference accepts ``k = 0`` (a 0-size axis) and
``k > dim`` (an axis of k), but its reference evaluator returns the whole axis for 0 and corrupts
the heap beyond the axis, and the CPU plugin refuses both — irrun refuses them as the CPU does.
"""
from __future__ import annotations

import numpy as np

from ..errors import OpError
from ..types.elements import TYPES
from ..types.shapes import Dim, PartialShape
from .base import Attr, Op, TensorInfo, as_int64, check_index_input, normalize_axis, spec_url
from .registry import register


def check_k(k: int, dim: int | None) -> int:
    """The rules on a known ``k`` (from a Const or at run time) against the axis length ``dim``
    (``None``: not known yet)."""
    if k < 0:
        raise OpError(f"The value of 'K' must be greater or equal to zero. (got {k}).", port="input 1")
    if k == 0:
        raise OpError("K (0) must be greater or equal to 1 (OpenVINO's shape inference gives an empty "
                      "axis, its evaluators return the whole axis or refuse)", port="input 1",
                      openvino_loads=True)
    if dim is not None and k > dim:
        raise OpError(f"K ({k}) exceeds the axis dimension ({dim}) (OpenVINO loads this, its CPU plugin "
                      "refuses it and its reference evaluator corrupts memory)", port="input 1",
                      openvino_loads=True)
    return k


def _k_value(value: np.ndarray) -> int:
    if value.size == 0:
        raise OpError("the 'K' input is empty", port="input 1")
    return int(as_int64(value).reshape(-1)[0])


def topk(x: np.ndarray, k: int, axis: int, largest: bool, by_index: bool,
         index_dtype: np.dtype) -> tuple[np.ndarray, np.ndarray]:
    """Values and indices of the top ``k`` along ``axis`` (ties: lower index first). The axis
    is moved last and back, except where it is last already (an MoE router's scores: the same
    views without NumPy's Python-level moveaxis)."""
    last = axis == x.ndim - 1
    xl = x if last else np.moveaxis(x, axis, -1)
    v = xl
    if v.dtype.kind == "V":
        v = v.astype(np.float32)                         # ml_dtypes (bf16...): exact in f32
    n = v.shape[-1]
    # a stable ascending sort of the reversed axis, reversed, is descending with ties in
    # ascending index order (no negation: unsigned, boolean and INT_MIN keys stay right)
    key = v[..., ::-1] if largest else v
    nan = np.isnan(key) if key.dtype.kind == "f" else None
    if nan is not None and nan.any():
        order = np.lexsort((key, ~nan), axis=-1)         # NaN below every number, still stable
    else:
        order = np.argsort(key, axis=-1, kind="stable")
    if largest:
        order = (n - 1) - order[..., ::-1]
    order = order[..., :k]
    if by_index:
        order = np.sort(order, axis=-1)
    values = np.take_along_axis(xl, order, axis=-1)
    if last:
        return values, order.astype(index_dtype)
    return np.moveaxis(values, -1, axis), np.moveaxis(order.astype(index_dtype), -1, axis)


@register
class TopK1(Op):
    """TopK-1: ``k`` must be i8, i32 or i64."""
    category = "detection"

    allocation = "inputs"          # k <= the axis length (check_k)
    type, version = "TopK", "opset1"
    spec = spec_url("sort/top-k-1")
    attrs = {"axis": Attr("int", required=True),
             "mode": Attr("enum", required=True, choices=("max", "min")),
             "sort": Attr("enum", required=True, choices=("value", "index", "none")),
             "index_element_type": Attr("etype", TYPES["i32"])}
    num_inputs = (2, 2)
    restrictions = "no string data"
    stable = False

    def _check_k_type(self, k: TensorInfo) -> None:
        if not (k.etype.is_dynamic or k.etype.name in ("i8", "i32", "i64")):
            raise OpError(f"K input element type must be i8, i32 or i64 (got {k.etype}).", port="input 1")

    def infer(self, inputs):
        x, k = inputs
        self._check_k_type(k)
        if self.index_element_type.name not in ("i32", "i64"):
            raise OpError("Index element type attribute should be either 'i32' or 'i64'. Got: "
                          f"{self.index_element_type}")
        if x.etype.name == "string":
            raise OpError("irrun does not support TopK on strings (OpenVINO's spec: numeric data)",
                          port="input 0", unsupported=True)
        if x.shape.rank == 0:
            raise OpError("Input rank must be greater than 0.", port="input 0")
        if k.shape.rank not in (None, 0):
            raise OpError("The 'K' input must be a scalar.", port="input 1")
        shape = x.shape
        if shape.rank is not None:
            axis = normalize_axis(self.axis, shape.rank)
            dim = shape[axis]
            if k.value is not None:
                new = Dim.of(check_k(_k_value(k.value), dim.hi))
            else:
                new = Dim(0, dim.hi)
            shape = PartialShape(shape.dims[:axis] + (new,) + shape.dims[axis + 1:])
        return [TensorInfo(x.etype, shape), TensorInfo(self.index_element_type, shape)]

    def run(self, x, k):
        axis = normalize_axis(self.axis, x.ndim)
        kv = check_k(_k_value(k), x.shape[axis])
        return topk(x, kv, axis, self.mode == "max", self.sort == "index", self.index_element_type.dtype)


@register
class TopK3(TopK1):
    """TopK-3: ``k`` of any integer type."""

    version = "opset3"
    spec = spec_url("sort/top-k-3")

    def _check_k_type(self, k: TensorInfo) -> None:
        check_index_input(k, "input 1", f"K input has to be an integer type, which does match the provided one:{k.etype}")


@register
class TopK11(TopK3):
    """TopK-11 adds ``stable``, which needs sort=value or sort=index (irrun's order is always the
    stable one)."""

    version = "opset11"
    spec = spec_url("sort/top-k-11")
    attrs = {**TopK1.attrs, "stable": Attr("bool", False)}

    def infer(self, inputs):
        if self.stable and self.sort == "none":
            raise OpError("Stable sort can only be used when TopK's sorting mode is set to 'VALUE' or "
                          "'INDEX' (sort is none).")
        return super().infer(inputs)
