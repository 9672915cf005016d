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

irrun does the same by retyping its ops once, when a model is read for running (the checker
keeps the declared types): :func:`compute_f16_in_f32` asks each op to widen its f16 element-type
attributes (:meth:`irrun.ops.base.Op.widen_f16`). ``irrun MODEL --precision f16`` then shows what
an f16 device would do (:mod:`irrun.debug.accuracy.precision`).
"""
from __future__ import annotations

from ..ops.base import Op
from ..ops.registry import role_of
from ..types.tensor_info import Role
from .graph import Graph, inputs_of, live_order

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


def compute_f16_in_f32(g: Graph, ops: dict[int, Op]) -> None:
    """Retype the ops of ``g`` (one graph or body) so that f16 is computed in f32."""
    constant = constant_layers(g)
    for n, op in ops.items():
        op.widen_f16(n in constant)
