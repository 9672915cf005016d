"""Recurrent cells and sequences: LSTMCell-1/4, GRUCell-3, RNNCell (IR "opset1"), LSTMSequence-5,
GRUSequence-5, RNNSequence-5 — one gate kernel for all of them.

(lstm-cell-1, lstm-sequence-5, gru-cell-3, gru-sequence-5, rnn-cell-3, rnn-sequence-5).

Semantics (measured on OpenVINO 2026.4.1, CPU plugin at f32 — its reference evaluator has no kernel
for these ops; tests/fixtures/rnn_expectations):

* Gate order: LSTM W/R/B rows are ``f, i, c, o`` (the ONNX and PyTorch front ends reorder
  ONNX's ``i, o, f, c`` / torch's ``i, f, g, o``); GRU ``z, r, h``. B is the sum of the input and
  recurrence biases; GRU with ``linear_before_reset`` (what torch's GRU converts to) has a 4th
  block, the recurrence bias of ``h``, applied inside ``r * (H R_h^T + Rb_h)``.
* ``clip`` (> 0) clamps every gate's pre-activation to [-clip, clip], never the cell state.
  Activations: sigmoid, tanh, relu (case-insensitive; extra ones are ignored);
  ``activations_alpha/beta`` are ignored. A sequence layer without ``activations`` has none
  (OpenVINO reads it so and cannot compile it); a cell uses the defaults.
* Sequences run each direction of ``direction``; ``reverse`` reads each batch row backwards from
  its own length. With ``sequence_lengths`` below the sequence length the outputs past a row's
  length are zero and Ho/Co are the state at that length — zero for a length of 0 (or negative,
  or above the sequence length: forward only; OpenVINO rejects those in a reverse direction).
  Lengths compare in their own type (f32 2.5 runs 2 steps and leaves Ho/Co zero), as
  OpenVINO's conversion to a TensorIterator does.
* ``hidden_size`` must match the tensors (OpenVINO's shape rule ignores it, except LSTMCell's
  when the hidden size is unknown; its CPU plugin refuses a mismatch), as must X's and W's input
  sizes; irrun refuses both, and an empty sequence.
* LSTMCell-1 runs as LSTMCell-4 (the CPU plugin ignores its ``weights_format``, peepholes and
  ``input_forget``; see :class:`LSTMCell1`).

Kernel: one batched matmul projects the input of every time step and direction at once; then a
Python loop over time steps (directions and batch rows vectorised) applies the recurrence.
f16/bf16 compute in f32, f64 in f64.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import ClassVar

import numpy as np

from ..errors import OpError
from ..types.elements import ElementType
from ..types.shapes import DYN, Dim, PartialShape
from ._numerics import compute_dtype
from ._recurrence import (
    ACTIVATIONS,
    FLOAT_TYPES,
    GRU,
    LSTM,
    RNN,
    Family,
    cell_shape,
    dim_or_dynamic,
    merge_types,
    recurrence,
    sequence_lengths,
    sequence_shape,
)
from .base import Attr, Op, Precision, TensorInfo, spec_url
from .registry import register

# ---------------------------------------------------------------------------------------------
# Ops

class _Recurrent(Op):
    category = "linear"
    precision = Precision.SIGNIFICANT
    family: ClassVar[Family]
    attrs = {"hidden_size": Attr("int", 0, required=True), "activations": Attr("str", None),
             "activations_alpha": Attr("floats", []), "activations_beta": Attr("floats", []),
             "clip": Attr("float", 0.0)}
    restrictions = "f64/f32/f16/bf16 data; activations sigmoid, tanh, relu (no hardsigmoid: OpenVINO's CPU plugin has none)"
    sequence: ClassVar[bool] = False

    @property
    def lbr(self) -> bool:
        return bool(getattr(self, "linear_before_reset", False))

    def activation_functions(self) -> list[Callable]:
        """The activations, validated (the IR's list; a cell without the attribute uses the
        defaults, a sequence none: OpenVINO reads it so and then cannot compile it)."""
        text = self.activations
        names = list(self.family.activations if text is None and not self.sequence else
                     [a.strip().lower() for a in (text or "").split(",") if a.strip()])
        need = len(self.family.activations)
        if len(names) < need:
            raise OpError(f"{self.type} needs {need} activation functions, the layer has {len(names)} "
                          f"(activations=\"{text or ''}\"); OpenVINO cannot compile it", openvino_loads=True)
        for n in names[:need]:
            if n == "hardsigmoid":
                raise OpError("activation function hardsigmoid is not supported (OpenVINO's CPU plugin: "
                              "\"Unsupported activation function\")", openvino_loads=True, unsupported=True)
            if n not in ACTIVATIONS:
                raise OpError(f"Unknown activation function: {n}", openvino_loads=True)
        return [ACTIVATIONS[n] for n in names[:need]]

    def data_type(self, infos: Sequence[TensorInfo]) -> ElementType:
        fam = self.family
        extra = "" if self.type == "LSTMCell" else " inputs"
        et = merge_types(infos, f"Element types for X, {fam.state_names}, W, R and B{extra} do not match.")
        if not et.is_dynamic and et.name not in FLOAT_TYPES:
            raise OpError(f"irrun runs {self.type} on f64/f32/f16/bf16 data, not {et}", unsupported=True)
        return et

    def check_runnable(self, hidden: Dim, x_size: Dim, w_size: Dim, seq_len: Dim = Dim(1, 1)) -> None:
        """What OpenVINO's shape rule lets through but its CPU plugin refuses ("incorrect
        input/output shapes"): a hidden size other than ``hidden_size``, an input size other than
        W's, an empty sequence."""
        if hidden.is_static and hidden.value != self.hidden_size:
            raise OpError(f"the inputs have hidden size {hidden.value} but hidden_size={self.hidden_size} "
                          "(OpenVINO's CPU plugin refuses it: incorrect input/output shapes)", openvino_loads=True)
        if x_size.is_static and w_size.is_static and x_size != w_size:
            raise OpError(f"X has input size {x_size} but W has {w_size} (OpenVINO's CPU plugin refuses it: "
                          "incorrect input/output shapes)", port="input 0", openvino_loads=True)
        if seq_len == Dim(0, 0):
            raise OpError("the sequence is empty (X dim 1 is 0); OpenVINO's CPU plugin cannot run it",
                          port="input 0", openvino_loads=True)


class _Cell(_Recurrent):
    """A cell: one step of the recurrence; outputs H (and C)."""

    def shape(self, shapes: Sequence[PartialShape]) -> tuple[Dim, Dim]:
        """(batch, hidden) — the one rule of ``infer`` and ``run`` (with the arrays' shapes)."""
        batch, hidden = cell_shape(self.family, shapes, self.lbr)
        hidden = self.hidden_of(shapes, hidden)
        self.check_runnable(hidden, dim_or_dynamic(shapes[0], 1), dim_or_dynamic(shapes[1 + self.family.states], 1))
        return batch, hidden

    def hidden_of(self, shapes: Sequence[PartialShape], hidden: Dim) -> Dim:
        return hidden

    def infer(self, inputs):
        et = self.data_type(inputs[:4 + self.family.states])
        batch, hidden = self.shape([t.shape for t in inputs])
        self.activation_functions()
        return [TensorInfo(et, PartialShape([batch, hidden]))] * self.family.states

    def run(self, *args):
        s = self.family.states
        self.shape([PartialShape(a.shape) for a in args])
        dt, cd = args[0].dtype, compute_dtype(args[0].dtype)
        x, *states, w, r, b = (a.astype(cd, copy=False)[None] for a in args[:4 + s])   # one direction
        _, finals = recurrence(self.family, self.activation_functions(), self.clip, np.swapaxes(x, 0, 1), states,
                               np.ones(x.shape[1]), w, r, b, reverse=[False], lbr=self.lbr)
        return [f[0].astype(dt) for f in finals]


@register
class LSTMCell4(_Cell):
    """LSTMCell-4: X, H, C, W, R, B -> H, C. Gate order f, i, c, o; without a known hidden size
    OpenVINO's shape rule takes the ``hidden_size`` attribute."""

    type, version, family = "LSTMCell", "opset4", LSTM
    spec = spec_url("sequence/lstm-cell-1")
    num_inputs = (6, 6)

    def hidden_of(self, shapes, hidden):
        return hidden if hidden.is_static else Dim(self.hidden_size, self.hidden_size)


@register
class LSTMCell1(LSTMCell4):
    """LSTMCell-1 (v0): X, H, C, W, R[, B[, P]] -> H, C, computed as LSTMCell-4 — what OpenVINO's CPU
    plugin does (measured): it ignores ``weights_format`` (the gate order is f, i, c, o whatever the
    attribute says; ``ifco`` is what OpenVINO reads when it is missing), the peepholes P and
    ``input_forget``. Its reference implementation applies P and ``input_forget`` instead, so irrun
    refuses a non-zero P and ``input_forget="true"`` rather than pick one answer. B and P default to
    zeros; OpenVINO's shape rule checks P's first dim against ``3 * hidden``."""

    version = "opset1"
    attrs = {**_Recurrent.attrs, "weights_format": Attr("enum", "ifco", choices=("fico", "icof", "ifco", "ifoc", "iofc")),
             "input_forget": Attr("bool", False)}
    num_inputs = (5, 7)
    restrictions = "LSTMCell-1: no non-zero peepholes P, no input_forget"

    def hidden_of(self, shapes, hidden):
        hidden = super().hidden_of(shapes, hidden)
        if len(shapes) == 7:
            p = shapes[6]
            if p.rank in (None, 0):
                raise OpError("Accessing out-of-range dimension", port="input 6")
            if p[0].is_static and not p[0].contains(3 * hidden.value):
                raise OpError(f"Parameter hidden_size mismatched in P input. Current value is: {p[0]}, "
                              f"expected: {3 * hidden.value}.", port="input 6")
        if self.input_forget:
            raise OpError(_DISAGREE.format("input_forget=\"true\""), openvino_loads=True, unsupported=True)
        return hidden

    @staticmethod
    def check_peepholes(p: np.ndarray | None) -> None:
        if p is not None and np.any(p != 0):
            raise OpError(_DISAGREE.format("non-zero peepholes P"), port="input 6", openvino_loads=True,
                          unsupported=True)

    def infer(self, inputs):
        self.check_peepholes(inputs[6].value if len(inputs) > 6 else None)
        if len(inputs) < 6:                     # B (zeros) is an input of OpenVINO's op all the same
            inputs = list(inputs) + [TensorInfo(inputs[0].etype, PartialShape([DYN]))]
        return super().infer(inputs)

    def run(self, *args):
        self.check_peepholes(args[6] if len(args) > 6 else None)
        if len(args) < 6:
            args = (*args, np.zeros(4 * args[2].shape[-1], args[0].dtype))
        return super().run(*args)


_DISAGREE = ("irrun does not run LSTMCell-1 with {}: OpenVINO's CPU plugin ignores it, its reference "
             "implementation applies it")


@register
class GRUCell3(_Cell):
    """GRUCell-3: X, H, W, R, B -> H. Gate order z, r, h; ``linear_before_reset`` applies the reset
    gate after the recurrence matmul and takes B = [b_z, b_r, Wb_h, Rb_h]."""

    type, version, family = "GRUCell", "opset3", GRU
    spec = spec_url("sequence/gru-cell-3")
    attrs = {**_Recurrent.attrs, "linear_before_reset": Attr("bool", False)}
    num_inputs = (5, 5)


@register
class RNNCell1(_Cell):
    """RNNCell (spec RNNCell-3, IR "opset1"): X, H, W, R, B -> H = f(X W^T + H R^T + B)."""

    type, version, family = "RNNCell", "opset1", RNN
    spec = spec_url("sequence/rnn-cell-3")
    num_inputs = (5, 5)


class _Sequence(_Recurrent):
    """A sequence: X [batch, T, input], H (C), sequence_lengths, W, R, B -> Y [batch, D, T, hidden],
    Ho (Co) [batch, D, hidden]."""

    sequence = True
    attrs = {**_Recurrent.attrs, "direction": Attr("enum", "forward", required=True,
                                                  choices=("forward", "reverse", "bidirectional"))}

    @property
    def ndir(self) -> int:
        return 2 if self.direction == "bidirectional" else 1

    def shape(self, shapes: Sequence[PartialShape]) -> tuple[Dim, Dim, Dim, Dim]:
        s = self.family.states
        dims = sequence_shape(self.family, shapes, self.ndir, self.lbr)
        self.check_runnable(dims[3], dim_or_dynamic(shapes[0], 2), dim_or_dynamic(shapes[2 + s], 2), dims[2])
        return dims

    def infer(self, inputs):
        s = self.family.states
        et = self.data_type([*inputs[:1 + s], *inputs[2 + s:]])
        batch, d, t, hidden = self.shape([i.shape for i in inputs])
        self.activation_functions()
        return [TensorInfo(et, PartialShape([batch, d, t, hidden]))] + \
            [TensorInfo(et, PartialShape([batch, d, hidden]))] * s

    def run(self, *args):
        fam, s = self.family, self.family.states
        self.shape([PartialShape(a.shape) for a in args])
        acts = self.activation_functions()
        x, states, lengths, (w, r, b) = args[0], args[1:1 + s], args[1 + s], args[2 + s:]
        dt, cd = x.dtype, compute_dtype(x.dtype)
        reverse = {"forward": [False], "reverse": [True], "bidirectional": [False, True]}[self.direction]
        y, finals = recurrence(fam, acts, self.clip, x.astype(cd, copy=False),
                               [np.swapaxes(a.astype(cd), 0, 1) for a in states],
                               sequence_lengths(lengths, x.shape[1], any(reverse), f"input {1 + s}"),
                               w.astype(cd, copy=False), r.astype(cd, copy=False), b.astype(cd, copy=False),
                               reverse, lbr=self.lbr)
        return [np.swapaxes(y, 0, 1).astype(dt)] + [np.swapaxes(f, 0, 1).astype(dt) for f in finals]


@register
class LSTMSequence5(_Sequence):
    """LSTMSequence-5 (the spec's LSTMSequence-1, IR "opset5"): LSTM cells of LSTMCell-4 over time."""

    type, version, family = "LSTMSequence", "opset5", LSTM
    spec = spec_url("sequence/lstm-sequence-5")
    num_inputs = (7, 7)


@register
class GRUSequence5(_Sequence):
    """GRUSequence-5: GRU cells of GRUCell-3 over time (``linear_before_reset`` as there)."""

    type, version, family = "GRUSequence", "opset5", GRU
    spec = spec_url("sequence/gru-sequence-5")
    attrs = {**_Sequence.attrs, "linear_before_reset": Attr("bool", False)}
    num_inputs = (6, 6)


@register
class RNNSequence5(_Sequence):
    """RNNSequence-5: RNN cells over time."""

    type, version, family = "RNNSequence", "opset5", RNN
    spec = spec_url("sequence/rnn-sequence-5")
    num_inputs = (6, 6)
