"""Constant-1 (written ``Const`` in IR): a tensor stored in the .bin."""
from __future__ import annotations

import numpy as np

from ..limits.memory import check_alloc
from ..types.shapes import PartialShape
from . import fast_paths
from .base import Attr, Op, Role, TensorInfo, spec_url
from .registry import register


@register
class Constant1(Op):
    """The reader's bytes (:class:`irrun.ir.weights.ConstBytes`), decoded on first use (a view of the
    memory-mapped .bin where possible). A large packed Const has no value at inference: it is unpacked
    when it runs, like any layer, so that only what is computed from it is kept
    (irrun/runtime/program.py caches the decompressed weights, not the unpacked codes)."""
    role = Role.CONSTANT

    type, version = "Constant", "opset1"
    spec = spec_url("infrastructure/constant-1")
    attrs = {"element_type": Attr("etype", required=True), "shape": Attr("shape", required=True),
             "offset": Attr("int", 0), "size": Attr("int", 0)}
    num_inputs = (0, 0)
    data = None                  # the layer's ConstBytes, decoded on first use
    _value = None
    allocation = "checked"

    _widened = False             # f16 bytes held as f32 (widen_f16)

    @property
    def value(self) -> np.ndarray | None:
        """The value; None for a large packed Const, which ``run`` unpacks each time."""
        if self._value is None and self.data is not None and not self.data.unpack_on_use:
            self._value = self.data.value()
            if self._widened:
                self._value = self._value.astype(np.float32)
        return self._value

    @value.setter
    def value(self, v: np.ndarray | None) -> None:
        self._value = v

    @classmethod
    def from_layer(cls, data, const_value=None):
        op = super().from_layer(data)
        op.value = const_value
        return op

    @classmethod
    def from_ir(cls, layer, build):
        if isinstance(layer.const, np.ndarray) or layer.const is None:
            return cls.from_layer(layer.data, layer.const)
        d = layer.data
        if "shape" in d:       # the reader has parsed and checked these four attributes
            op = cls(element_type=layer.const.etype, shape=list(layer.const.shape),
                     offset=int(d["offset"]), size=int(d["size"]))
        else:                  # (OpenVINO refuses a Const without a shape: from_layer says so)
            op = cls.from_layer(d)
        op.data, op.fresh_outputs = layer.const, layer.const.unpack_on_use
        return op

    def widen_f16(self, constant: bool) -> None:
        """f16 values decompressed to f32 (exactly), as OpenVINO's CPU plugin holds them at f32
        inference precision (irrun/analysis/execution_types.py)."""
        if self.element_type.name != "f16":
            return
        super().widen_f16(constant)          # element_type f16 -> f32
        if self._value is not None:
            self._value = self._value.astype(np.float32)
        else:
            self._widened = True

    def infer(self, inputs):
        if self.value is None and self.data is not None:
            return [TensorInfo(self.element_type, PartialShape(self.data.shape))]
        return [TensorInfo.of(self.value, self.element_type)]

    def run(self):
        if self.value is None and self.data is not None:
            check_alloc(self.data.shape, self.element_type.dtype)
            return [self.data.value()]
        return [self.value]


#: A packed Const unpacks only the rows a row-wise table needs (irrun/runtime/program.py).
fast_paths.ROWS[Constant1] = fast_paths.Rows(
    rows_of=lambda op, inputs, outputs: () if op.value is None and op.data is not None else None,
    take_rows=lambda op, rows: op.data.rows(rows))
