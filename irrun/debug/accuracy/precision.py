"""Simulate OpenVINO's reduced inference precision (``INFERENCE_PRECISION_HINT`` f16 / bf16).

OpenVINO does not run every layer at the hint's precision. What its CPU plugin does (openvino
``src/plugins/intel_cpu/src/transformations/.../mark_inference_precision.cpp`` and
``Graph::EnforceInferencePrecision``; ``ConvertPrecision`` with
``keep_precision_sensitive_in_fp32`` for f16), and what this module follows:

* every f32 activation a layer produces is stored at the low precision (round to nearest even;
  f16 values beyond ±65504 become ±inf), and the next layer computes from that — kernels
  accumulate in f32, as OpenVINO's do;
* **the graph tail stays f32**: layers between the last "significant" layer (MatMul,
  Convolution and its group/backprop forms, RNN/LSTM/GRU cells and sequences, ROIPooling,
  Interpolate) and a Result — e.g. the Softmax or Add after a model's last MatMul;
* Parameters, ReadValue/Assign (state), Results and Consts keep their type; so do Converts fed
  by a Parameter or feeding only a Result; integer and boolean tensors are untouched;
* **weights stay as the file says**: constant-derived layers (f16/int4/int8 decompression
  chains, folded sub-graphs) are not rounded. (OpenVINO also stores plain f32 weights of a
  significant layer at the low precision; irrun does not, so the result isolates what the
  activations lose.)
* f16 only, the precision-sensitive islands OpenVINO keeps in f32 (``MarkExpReduceOpPath``,
  ``MarkDivWithEps``, ``MarkNormalizationOps``): an Exp whose value reaches a ReduceSum or
  ReduceMean (a decomposed Softmax) and that path; a reduction feeding, through
  Add/Maximum/Sqrt/Power, a Divide or Power (RMS/L2 normalisation with an epsilon), with the
  squaring layer before it; MVN and NormalizeL2.

Parameters are rounded too (OpenVINO inserts a Convert to the low precision before their first
low-precision reader). Known differences: OpenVINO's fused kernels (e.g. MatMul+Add, SDPA) may
round once where irrun rounds after each original layer, and its KV cache has its own precision
(``KV_CACHE_PRECISION``), which irrun does not model.
"""
from __future__ import annotations

from collections.abc import Callable

import ml_dtypes
import numpy as np

from ...analysis.graph import Graph, inputs_of
from ...ops.registry import precision_of, role_of
from ...types.tensor_info import Precision, Role

PRECISIONS = {"f16": np.dtype(np.float16), "bf16": np.dtype(ml_dtypes.bfloat16)}

KEEP_ROLES = frozenset({Role.RESULT, Role.CONSTANT, Role.VARIABLE_READ, Role.VARIABLE_WRITE})


def _is(g: Graph, n, flags: Precision) -> bool:
    """Does the layer's op declare one of ``flags`` (``Op.precision``)?"""
    return bool(precision_of(g.nodes[n]["layer"].type) & flags)


def _role(g: Graph, n) -> Role:
    return role_of(g.nodes[n]["layer"].type)


def graph_tail(g: Graph) -> set:
    """Layers reached from a Result going up without passing a significant layer (excluded)."""
    tail: set = set()
    todo = [n for n in g if _role(g, n) is Role.RESULT]
    while todo:
        for u, _ in inputs_of(g, todo.pop()):
            if not _is(g, u, Precision.SIGNIFICANT) and u not in tail:
                tail.add(u)
                todo.append(u)
    return tail


def sensitive_f16(g: Graph) -> set:
    """OpenVINO's f16 islands kept in f32 (see the module docstring); bounded walks."""
    keep: set = set()
    for n in g:
        if _is(g, n, Precision.NORMALIZATION):
            keep.add(n)
        elif _is(g, n, Precision.EXP):               # Exp -> ... -> ReduceSum: softmax by hand
            path = _path_down(g, n, lambda m: _is(g, m, Precision.SUM_REDUCTION), 3)
            if path:
                keep.update(path)
                keep.update(m for m in g.successors(path[-1]) if _is(g, m, Precision.DIVIDE))
        elif _is(g, n, Precision.SUM_REDUCTION):     # x^2 -> Reduce -> (+eps, sqrt) -> Divide
            path = _path_down(g, n, lambda m: _is(g, m, Precision.DIVIDE | Precision.POWER), 4,
                              through=lambda m: _is(g, m, Precision.EPSILON))
            if path:
                keep.update(path)
                keep.update(u for u, _ in inputs_of(g, n)[:1] if _is(g, u, Precision.SQUARE))
    return keep


def _path_down(g, start, goal, depth: int, through: Callable[[object], bool] | None = None) -> list | None:
    """The first path start -> ... -> a node satisfying ``goal`` within ``depth`` edges, whose
    inner nodes satisfy ``through`` (any node when None)."""
    todo = [[start]]
    while todo:
        path = todo.pop()
        for m in set(g.successors(path[-1])):
            if goal(m) and (through is None or len(path) > 1):     # an epsilon layer between
                return path + [m]
            if len(path) < depth and (through is None or through(m)) and m not in path:
                todo.append(path + [m])
    return None


class Policy:
    """Which layers round their f32 outputs, and the rounding itself (:meth:`apply`, used as the
    executor's observer replacing outputs: :data:`irrun.runtime.observation.Observer`)."""

    def __init__(self, model, precision: str):
        if precision not in PRECISIONS:
            raise ValueError(f"precision must be one of {', '.join(PRECISIONS)}")
        self.name = precision
        self.dtype = PRECISIONS[precision]
        g = model.dag
        self.kept: dict = {n: "graph tail (after the last MatMul/Convolution)" for n in graph_tail(g)}
        if precision == "f16":
            self.kept.update((n, "precision-sensitive (kept in f32 under f16)") for n in sensitive_f16(g)
                             if n not in self.kept)
        for n in g:
            if _role(g, n) in KEEP_ROLES:
                self.kept.setdefault(n, "keeps its type")
            elif _is(g, n, Precision.CONVERT) and (any(_role(g, u) is Role.PARAMETER for u, _ in inputs_of(g, n))
                                     or (g.out_degree(n) and all(_role(g, m) is Role.RESULT for m in g.successors(n)))):
                self.kept.setdefault(n, "Convert at an input or output")

    def apply(self, step, outs: list, live: bool) -> list | None:
        """The outputs rounded to the precision (same dtype as before), or None when unchanged.
        ``live``: the layer computes from activations (not only from weights)."""
        if not live or step.node in self.kept or not any(_is_f32(a) for a in outs):
            return None
        with np.errstate(over="ignore", invalid="ignore"):
            return [a.astype(self.dtype).astype(a.dtype) if _is_f32(a) else a for a in outs]


def _is_f32(a) -> bool:
    return isinstance(a, np.ndarray) and a.dtype == np.float32
