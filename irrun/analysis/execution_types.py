"""f16 graphs computed in f32, as OpenVINO's CPU plugin runs them at ``INFERENCE_PRECISION_HINT`` f32.

An IR whose activations are f16 (Model Optimizer's ``--data_type FP16`` v10 files, Open Model Zoo
FP16 models) is not computed in f16 by OpenVINO's CPU plugin at f32 inference precision: its
``ConvertPrecision`` pass (f16 -> f32) retypes the whole graph — f16 Constants decompressed to
f32 (exactly), every op and every ``Convert`` to f16 on a live path computed in f32 (a no-op).
Measured on OpenVINO 2026.4.1 CPU (tests/test_f16_compute.py):

* ``Parameter(f32) -> Convert(f16) -> Convert(f32)`` returns its input unrounded;
* ``Const(f32) -> Convert(f16) -> Convert(f32)`` — a *constant* sub-graph — is rounded to f16
  (constant Converts are folded as written: :mod:`irrun.analysis.constant_precision`);
* a v11 f16 Parameter takes f16 at the API, and an f16 Result is rounded to f16 once, at the
  end; IR v10's f16 Parameters and Results are f32 at the API, unrounded (the v10 reader's
  legacy element-type map, what ``Model.inputs``/``outputs`` report).

irrun does the same for IR v10 files (Model Optimizer's FP16 output; v11 f16 graphs, rare, keep
their declared types: OpenVINO validates a graph as written, which the retyping would hide) by
retyping its ops once, when a model is read for running (the checker and
``irrun extract`` keep the declared types): :func:`compute_f16_in_f32` asks each op to widen its
f16 element-type attributes (:meth:`irrun.ops.base.Op.widen_f16`). Not yet for a model whose
TensorIterator/Loop/If bodies name f16: it is computed as declared, in f16. ``irrun MODEL --precision f16`` then shows what
an f16 device would do (:mod:`irrun.debug.accuracy.precision`).
"""
from __future__ import annotations

import numpy as np

from ..ops.base import Op
from ..ops.registry import role_of
from ..types.elements import TYPES, ElementType, from_dtype
from ..types.tensor_info import Role
from .graph import Graph, inputs_of, live_order

_F16 = TYPES["f16"]

#: Roles whose outputs are never constant-derived.
_LIVE_ROLES = frozenset({Role.PARAMETER, Role.VARIABLE_READ})


def constant_layers(g: Graph) -> set:
    """Layers whose every input derives from Consts alone (Consts included)."""
    constant: set = set()
    for n in live_order(g) or list(g.nodes):
        r = role_of(g.nodes[n]["layer"].type)
        if r is Role.CONSTANT:
            constant.add(n)
        elif r not in _LIVE_ROLES:
            reads = inputs_of(g, n)
            if reads and all(u in constant for u, _ in reads):
                constant.add(n)
    return constant


def compute_f16_in_f32(g: Graph, ops: dict[int, Op]) -> bool:
    """Retype the ops of the model's graph ``g`` so that f16 is computed in f32; False (nothing
    done) when a TensorIterator/Loop/If body names f16: bodies keep their declared types, which
    OpenVINO validates as written, so such a model is computed as declared (in f16)."""
    if any(_names_f16(body) for n in g.nodes for body in g.nodes[n]["layer"].bodies.values()):
        return False
    constant = constant_layers(g)
    for n, op in ops.items():
        op.widen_f16(n in constant)
    return True


def _names_f16(irg) -> bool:
    """Does a layer of this body (or of a body inside it) have an attribute naming f16?"""
    return any(any(v.strip().lower() == "f16" for v in layer.data.values())
               or any(_names_f16(b) for b in layer.bodies.values()) for layer in irg.layers)


class ApiTypes:
    """The element types a model computed by :func:`compute_f16_in_f32` shows at the API, as
    OpenVINO's ``Model.inputs``/``outputs`` do (verified on every file of the public corpus):

    * IR v11: an f16 Parameter takes f16 (widened to f32 on entry); a Result declared FP16 gives
      f16 (rounded once, at the end);
    * IR v10 (its reader's legacy element-type map, docs/ir-format.md §10): f16 Parameters take
      f32; outputs i64/u64/u32 are given as i32, any other type but f32 and i32 (f16, boolean,
      u8...) as f32."""

    def __init__(self, g: Graph, params: list, results: list, ir_version: int):
        """``ir_version``: the file's, or -1 for a model computed in its declared types."""
        self.widened = ir_version >= 10        # f16 computed in f32 (compute_f16_in_f32 did it)
        self.v10 = ir_version == 10
        self.inputs: dict = {}                 # Parameter node -> its API type (not f32)
        self.outputs: dict = {}                # Result node -> f16 (v11)
        if ir_version >= 11:
            self.inputs = {n: _F16 for n in params
                           if g.nodes[n]["layer"].data.get("element_type", "").strip().lower() == "f16"}
            self.outputs = {n: _F16 for n in results
                            if g.nodes[n]["layer"].inputs and g.nodes[n]["layer"].inputs[0].etype == _F16}

    def input(self, n, etype: ElementType) -> ElementType:
        """Parameter ``n``'s API type, given the computed one."""
        return self.inputs.get(n, etype)

    def output(self, n, etype: ElementType) -> ElementType:
        """Result ``n``'s API type, given the computed one."""
        if n in self.outputs:
            return self.outputs[n] if etype.name == "f32" else etype
        if self.v10 and etype.dtype is not None and etype.name != "string":
            if etype.name in ("i64", "u64", "u32"):
                return TYPES["i32"]
            if etype.name not in ("f32", "i32"):
                return TYPES["f32"]
        return etype

    def feed(self, n, arr: np.ndarray) -> np.ndarray:
        """The array Parameter ``n`` computes with (an f16 input widened to f32)."""
        return arr.astype(np.float32) if n in self.inputs and arr.dtype == np.float16 else arr

    def result(self, n, arr: np.ndarray) -> np.ndarray:
        """Result ``n``'s computed array in its API type."""
        if arr.dtype.kind not in "biuf" or not (self.v10 or self.outputs):
            return arr
        api = self.output(n, from_dtype(arr.dtype)).dtype
        if api is None or api == arr.dtype:
            return arr
        with np.errstate(over="ignore", invalid="ignore"):   # beyond f16's range: inf, as OpenVINO's cast
            return arr.astype(api)
