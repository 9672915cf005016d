"""Measure OpenVINO's recurrent ops (LSTM/GRU/RNN cells and sequences) into ONE fixture.

    python -m tools.expectations.make_rnn_expectations [--out tests/fixtures/rnn_expectations] [-k substring]

Same machinery and output format as tools/expectations/make_nn_expectations.py (read its docstring): each case
is one layer built with ``NodeFactory(opset).create``, run by the CPU plugin at f32 inference
precision and by the reference evaluator; shape cases record the partial shapes OpenVINO infers
or its error. Case ids start with the op type. The weights W, R, B (and P) are Constants, as in
converted models; X, the initial states and ``sequence_lengths`` are Parameters unless a case
says otherwise. OpenVINO's reference evaluator has no kernel for these ops (ConstantFolding leaves
them), so the CPU plugin is the only oracle; where it fails too the case is kept (status
``unfolded``, with the CPU's message) and tests/ops/test_rnn.py checks that irrun refuses it.
"""
from __future__ import annotations

import sys

import numpy as np

from tools.expectations.make_nn_expectations import BF16, F16, F64, Case, Cases, Dyn, Rnd, main

CASES = Cases()
add = CASES.add
_VALUES = Rnd(20263)
_POOL: dict[tuple, np.ndarray] = {}


def rnd(*shape, scale=1.0, dtype=np.float32, role: str = "") -> np.ndarray:
    """Seeded uniform values in [-scale, scale]; the same (role, shape, dtype) gets the same array,
    so cases of one geometry share their inputs (the .npz stores each array once)."""
    key = (role, shape, scale, np.dtype(dtype).str)
    if not role or key not in _POOL:
        _POOL[key] = _VALUES(*shape, dtype=dtype, lo=-scale, hi=scale)
    return _POOL[key]


def lens(*v, dtype=np.int32) -> np.ndarray:
    return np.array(v, dtype)


def seq_inputs(gates: int, states: int, batch: int, t: int, inp: int, hid: int, ndir: int, bias: int | None = None,
               seq=None, dtype=np.float32) -> list:
    """X, initial state(s), sequence_lengths, W, R, B of a sequence op."""
    x = rnd(batch, t, inp, scale=2.0, dtype=dtype, role="x")
    st = [rnd(batch, ndir, hid, dtype=dtype, role=f"s{i}") for i in range(states)]
    sl = lens(*([t] * batch)) if seq is None else seq
    w = rnd(ndir, gates * hid, inp, dtype=dtype, role="w")
    r = rnd(ndir, gates * hid, hid, dtype=dtype, role="r")
    b = rnd(ndir, (bias or gates) * hid, dtype=dtype, role="b")
    return [x, *st, sl, w, r, b]


def cell_inputs(gates: int, states: int, batch: int, inp: int, hid: int, bias: int | None = None,
                dtype=np.float32) -> list:
    """X, state(s), W, R, B of a cell op."""
    return [rnd(batch, inp, scale=2.0, dtype=dtype, role="x"),
            *[rnd(batch, hid, dtype=dtype, role=f"s{i}") for i in range(states)],
            rnd(gates * hid, inp, dtype=dtype, role="w"), rnd(gates * hid, hid, dtype=dtype, role="r"),
            rnd((bias or gates) * hid, dtype=dtype, role="b")]


DIRS = ("forward", "reverse", "bidirectional")
NDIR = {"forward": 1, "reverse": 1, "bidirectional": 2}


def sequence_cases(op: str, gates: int, states: int, acts: list[str]) -> None:
    """The run cases every sequence op shares; ``states`` = 2 for LSTM (H and C), else 1."""
    seq_port = 1 + states
    params = tuple(range(seq_port + 1))        # X, states, sequence_lengths
    base = lambda d, **k: dict(dict(hidden_size=3, direction=d, activations=acts), **k)  # noqa: E731
    for d in DIRS:
        nd = NDIR[d]
        add(Case(f"{op}-{d}", op, "opset5", seq_inputs(gates, states, 2, 5, 4, 3, nd), base(d), params=params))
        add(Case(f"{op}-{d}-seq-lengths", op, "opset5", seq_inputs(gates, states, 3, 5, 4, 3, nd, seq=lens(5, 2, 4)),
                 base(d), params=params))
        add(Case(f"{op}-{d}-clip", op, "opset5", seq_inputs(gates, states, 2, 4, 3, 3, nd), base(d, clip=0.7),
                 params=params))
    add(Case(f"{op}-seq-lengths-zero", op, "opset5", seq_inputs(gates, states, 3, 4, 3, 3, 2, seq=lens(0, 4, 1)),
             base("bidirectional"), params=params))
    add(Case(f"{op}-seq-lengths-i64-const", op, "opset5",
             seq_inputs(gates, states, 2, 4, 3, 3, 1, seq=lens(3, 1, dtype=np.int64)), base("reverse"),
             params=tuple(range(seq_port))))
    add(Case(f"{op}-seq-lengths-too-long", op, "opset5", seq_inputs(gates, states, 2, 3, 3, 3, 1, seq=lens(3, 7)),
             base("forward"), params=params))
    add(Case(f"{op}-reverse-seq-lengths-too-long", op, "opset5",
             seq_inputs(gates, states, 2, 3, 3, 3, 1, seq=lens(2, 5)), base("reverse"), params=params))
    add(Case(f"{op}-seq-lengths-negative", op, "opset5", seq_inputs(gates, states, 2, 3, 3, 3, 1, seq=lens(3, -1)),
             base("forward"), params=params))
    add(Case(f"{op}-reverse-seq-lengths-negative", op, "opset5",
             seq_inputs(gates, states, 2, 3, 3, 3, 1, seq=lens(3, -1)), base("reverse"), params=params))
    add(Case(f"{op}-reverse-seq-lengths-f32", op, "opset5",
             seq_inputs(gates, states, 2, 3, 3, 3, 1, seq=np.array([2.0, 1.5], np.float32)), base("reverse"),
             params=params))
    add(Case(f"{op}-seq-lengths-f32", op, "opset5",
             seq_inputs(gates, states, 2, 3, 3, 3, 1, seq=np.array([2.7, 3.0], np.float32)), base("forward"),
             params=params))
    add(Case(f"{op}-clip-negative", op, "opset5", seq_inputs(gates, states, 2, 4, 3, 3, 1),
             base("forward", clip=-0.5), params=params))
    add(Case(f"{op}-batch1-t1", op, "opset5", seq_inputs(gates, states, 1, 1, 2, 3, 1), base("forward"), params=params))
    add(Case(f"{op}-empty-batch", op, "opset5", seq_inputs(gates, states, 0, 3, 2, 3, 1), base("forward"), params=params))
    add(Case(f"{op}-empty-time", op, "opset5", seq_inputs(gates, states, 2, 0, 2, 3, 2), base("bidirectional"),
             params=params))
    add(Case(f"{op}-act-too-many", op, "opset5", seq_inputs(gates, states, 2, 3, 3, 3, 1),
             base("forward", activations=acts + ["relu"]), params=params))
    add(Case(f"{op}-act-missing", op, "opset5", seq_inputs(gates, states, 2, 3, 3, 3, 1),
             base("forward", activations=acts[:-1]), params=params))
    add(Case(f"{op}-hidden-attr-differs", op, "opset5", seq_inputs(gates, states, 2, 3, 3, 4, 1),
             base("forward"), params=params, note="hidden_size=3 but the tensors say 4"))
    add(Case(f"{op}-input-size-mismatch", op, "opset5",
             [rnd(2, 3, 5)] + seq_inputs(gates, states, 2, 3, 4, 3, 1)[1:], base("forward"), params=params,
             note="X has input_size 5, W 4: OpenVINO's shape inference does not check it"))
    add(Case(f"{op}-all-params", op, "opset5", seq_inputs(gates, states, 2, 4, 3, 3, 2, seq=lens(4, 2)),
             base("bidirectional"), params=tuple(range(seq_port + 4))))
    for dt, name in ((F16, "f16"), (BF16, "bf16"), (F64, "f64")):
        add(Case(f"{op}-{name}", op, "opset5", seq_inputs(gates, states, 2, 4, 3, 3, 2, seq=lens(4, 3), dtype=dt),
                 base("bidirectional"), params=params))


def lstm_sequence_cases() -> None:
    op, acts = "LSTMSequence", ["sigmoid", "tanh", "tanh"]
    sequence_cases(op, 4, 2, acts)
    for tag, a in [("relu-sigmoid-relu", ["relu", "sigmoid", "relu"]), ("tanh-relu-sigmoid", ["tanh", "relu", "sigmoid"])]:
        add(Case(f"{op}-act-{tag}", op, "opset5", seq_inputs(4, 2, 2, 4, 3, 3, 2, seq=lens(4, 2)),
                 dict(hidden_size=3, direction="bidirectional", activations=a, clip=1.5), params=(0, 1, 2, 3)))
    add(Case(f"{op}-act-alpha-beta-ignored", op, "opset5", seq_inputs(4, 2, 2, 3, 3, 3, 1),
             dict(hidden_size=3, direction="forward", activations=acts, activations_alpha=[0.5, 2.0, 1.0],
                  activations_beta=[0.1, 0.2, 0.3]), params=(0, 1, 2, 3)))
    add(Case(f"{op}-act-hardsigmoid", op, "opset5", seq_inputs(4, 2, 2, 3, 3, 3, 1),
             dict(hidden_size=3, direction="forward", activations=["hardsigmoid", "tanh", "tanh"],
                  activations_alpha=[0.3], activations_beta=[0.4]), params=(0, 1, 2, 3)))
    add(Case(f"{op}-act-unknown", op, "opset5", seq_inputs(4, 2, 2, 3, 3, 3, 1),
             dict(hidden_size=3, direction="forward", activations=["sigmoid", "tanh", "softsign"]), params=(0, 1, 2, 3)))
    add(Case(f"{op}-act-case", op, "opset5", seq_inputs(4, 2, 2, 3, 3, 3, 1),
             dict(hidden_size=3, direction="forward", activations=["Sigmoid", "TANH", "Relu"]), params=(0, 1, 2, 3)))


def gru_sequence_cases() -> None:
    op, acts = "GRUSequence", ["sigmoid", "tanh"]
    sequence_cases(op, 3, 1, acts)
    for d in DIRS:
        add(Case(f"{op}-{d}-linear-before-reset", op, "opset5",
                 seq_inputs(3, 1, 3, 5, 4, 3, NDIR[d], bias=4, seq=lens(5, 3, 1)),
                 dict(hidden_size=3, direction=d, activations=acts, linear_before_reset=True), params=(0, 1, 2)))
    add(Case(f"{op}-linear-before-reset-clip-f16", op, "opset5",
             seq_inputs(3, 1, 2, 4, 3, 3, 1, bias=4, dtype=F16),
             dict(hidden_size=3, direction="forward", activations=acts, linear_before_reset=True, clip=0.5),
             params=(0, 1, 2)))
    add(Case(f"{op}-act-relu-sigmoid", op, "opset5", seq_inputs(3, 1, 2, 4, 3, 3, 2, seq=lens(4, 2)),
             dict(hidden_size=3, direction="bidirectional", activations=["relu", "sigmoid"], clip=2.0), params=(0, 1, 2)))
    add(Case(f"{op}-act-tanh-relu-lbr", op, "opset5", seq_inputs(3, 1, 2, 4, 3, 3, 1, bias=4),
             dict(hidden_size=3, direction="reverse", activations=["tanh", "relu"], linear_before_reset=True),
             params=(0, 1, 2)))


def rnn_sequence_cases() -> None:
    op = "RNNSequence"
    sequence_cases(op, 1, 1, ["tanh"])
    for a in ("relu", "sigmoid"):
        add(Case(f"{op}-act-{a}", op, "opset5", seq_inputs(1, 1, 2, 4, 3, 3, 2, seq=lens(4, 3)),
                 dict(hidden_size=3, direction="bidirectional", activations=[a], clip=1.0), params=(0, 1, 2)))


def cell_cases() -> None:
    for opset in ("opset4", "opset1"):
        op, tag = "LSTMCell", f"LSTMCell{opset[5:]}"
        peep = [np.zeros(9, np.float32)] if opset == "opset1" else []
        acts = ["sigmoid", "tanh", "tanh"]
        add(Case(f"{tag}-basic", op, opset, cell_inputs(4, 2, 2, 4, 3) + peep, dict(hidden_size=3), params=(0, 1, 2)))
        add(Case(f"{tag}-clip-acts", op, opset, cell_inputs(4, 2, 3, 3, 3) + peep,
                 dict(hidden_size=3, clip=0.5, activations=["tanh", "relu", "sigmoid"]), params=(0, 1, 2)))
        add(Case(f"{tag}-f16", op, opset, [a.astype(F16) for a in cell_inputs(4, 2, 2, 3, 3) + peep],
                 dict(hidden_size=3, activations=acts), params=(0, 1, 2)))
        add(Case(f"{tag}-all-params", op, opset, cell_inputs(4, 2, 2, 3, 2) + ([np.zeros(6, np.float32)] if peep else []),
                 dict(hidden_size=2), params=tuple(range(6 + len(peep)))))
    add(Case("LSTMCell1-peepholes", "LSTMCell", "opset1", cell_inputs(4, 2, 2, 4, 3) + [rnd(9, role="p")],
             dict(hidden_size=3), params=(0, 1, 2), note="the CPU plugin ignores P"))
    add(Case("LSTMCell1-input-forget", "LSTMCell", "opset1", cell_inputs(4, 2, 2, 4, 3) + [np.zeros(9, np.float32)],
             dict(hidden_size=3, input_forget=True), params=(0, 1, 2)))
    for wf in ("fico", "ifco", "icof", "ifoc", "iofc"):
        add(Case(f"LSTMCell1-weights-format-{wf}", "LSTMCell", "opset1", cell_inputs(4, 2, 2, 3, 3) + [np.zeros(9, np.float32)],
                 dict(hidden_size=3, weights_format=wf), params=(0, 1, 2)))
    add(Case("LSTMCell1-no-peepholes", "LSTMCell", "opset1", cell_inputs(4, 2, 2, 4, 3),
             dict(hidden_size=3, weights_format="fico"), params=(0, 1, 2)))
    add(Case("LSTMCell1-no-bias", "LSTMCell", "opset1", cell_inputs(4, 2, 2, 4, 3)[:5],
             dict(hidden_size=3, weights_format="fico"), params=(0, 1, 2)))
    add(Case("LSTMCell4-act-too-many", "LSTMCell", "opset4", cell_inputs(4, 2, 2, 4, 3),
             dict(hidden_size=3, activations=["relu", "tanh", "sigmoid", "tanh"]), params=(0, 1, 2)))
    add(Case("GRUCell-act-missing", "GRUCell", "opset3", cell_inputs(3, 1, 2, 4, 3),
             dict(hidden_size=3, activations=["sigmoid"]), params=(0, 1)))
    add(Case("GRUCell-basic", "GRUCell", "opset3", cell_inputs(3, 1, 2, 4, 3), dict(hidden_size=3), params=(0, 1)))
    add(Case("GRUCell-linear-before-reset", "GRUCell", "opset3", cell_inputs(3, 1, 2, 4, 3, bias=4),
             dict(hidden_size=3, linear_before_reset=True), params=(0, 1)))
    add(Case("GRUCell-clip-acts", "GRUCell", "opset3", cell_inputs(3, 1, 3, 3, 3),
             dict(hidden_size=3, clip=0.6, activations=["relu", "sigmoid"]), params=(0, 1)))
    add(Case("GRUCell-f16", "GRUCell", "opset3", cell_inputs(3, 1, 2, 3, 3, bias=4, dtype=F16),
             dict(hidden_size=3, linear_before_reset=True), params=(0, 1)))
    add(Case("RNNCell-basic", "RNNCell", "opset1", cell_inputs(1, 1, 2, 4, 3), dict(hidden_size=3), params=(0, 1)))
    add(Case("RNNCell-relu-clip", "RNNCell", "opset1", cell_inputs(1, 1, 2, 4, 3),
             dict(hidden_size=3, clip=1.2, activations=["relu"]), params=(0, 1)))
    add(Case("RNNCell-f16", "RNNCell", "opset1", cell_inputs(1, 1, 2, 3, 3, dtype=F16), dict(hidden_size=3), params=(0, 1)))


# ---------------------------------------------------------------------------------------------
# shapes

def sequence_shape_cases() -> None:
    def shp(op, tag, shapes, gates, d="forward", types=None, **a):
        seq_port = 3 if op == "LSTMSequence" else 2
        ins = [Dyn((types or {}).get(i, "i32" if i == seq_port else "f32"), s) for i, s in enumerate(shapes)]
        acts = {"LSTMSequence": ["sigmoid", "tanh", "tanh"], "GRUSequence": ["sigmoid", "tanh"]}.get(op, ["tanh"])
        attrs = dict(hidden_size=3, direction=d, activations=acts, **a)
        add(Case(f"{op}-shape-{tag}", op, "opset5", ins, attrs, params=()))

    # LSTM: X, H, C, seq, W, R, B
    L = "LSTMSequence"
    for tag, s, d in [
            ("static", ["2,5,4", "2,1,3", "2,1,3", "2", "1,12,4", "1,12,3", "1,12"], "forward"),
            ("bidirectional", ["2,5,4", "2,2,3", "2,2,3", "2", "2,12,4", "2,12,3", "2,12"], "bidirectional"),
            ("all-dyn", ["?,?,?", "?,?,?", "?,?,?", "?", "?,?,?", "?,?,?", "?,?"], "forward"),
            ("rank-dyn", ["...", "...", "...", "...", "...", "...", "..."], "reverse"),
            ("rank-dyn-bidir", ["...", "...", "...", "...", "...", "...", "..."], "bidirectional"),
            ("x-only", ["2,5,4", "...", "...", "...", "...", "...", "..."], "forward"),
            ("h-only", ["...", "2,1,3", "...", "...", "...", "...", "..."], "forward"),
            ("c-only", ["...", "...", "4,1,6", "...", "...", "...", "..."], "forward"),
            ("seq-only", ["...", "...", "...", "7", "...", "...", "..."], "forward"),
            ("w-only", ["...", "...", "...", "...", "1,12,4", "...", "..."], "forward"),
            ("w-dyn-ndir", ["...", "...", "...", "...", "?,12,4", "...", "..."], "forward"),
            ("w-interval", ["...", "...", "...", "...", "1,8..12,4", "...", "..."], "forward"),
            ("w-interval-wide", ["...", "...", "...", "...", "1,8..14,4", "...", "..."], "forward"),
            ("w-not-divisible", ["...", "...", "...", "...", "1,13,4", "...", "..."], "forward"),
            ("w-r-disagree", ["...", "...", "...", "...", "1,12,4", "1,16,4", "..."], "forward"),
            ("r-only", ["...", "...", "...", "...", "...", "1,12,3", "..."], "forward"),
            ("b-only", ["...", "...", "...", "...", "...", "...", "1,12"], "forward"),
            ("intervals", ["1..4,2..9,4", "2..6,1,?", "?,?,3", "?", "?,12,4", "?,12,3", "?,12"], "forward"),
            ("ndir-interval", ["?,?,?", "?,1..2,?", "...", "...", "...", "...", "..."], "bidirectional"),
            ("bad-batch", ["2,5,4", "3,1,3", "2,1,3", "2", "1,12,4", "1,12,3", "1,12"], "forward"),
            ("bad-batch-seq", ["2,5,4", "2,1,3", "2,1,3", "3", "1,12,4", "1,12,3", "1,12"], "forward"),
            ("bad-hidden-c", ["2,5,4", "2,1,3", "2,1,4", "2", "1,12,4", "1,12,3", "1,12"], "forward"),
            ("bad-hidden-r", ["2,5,4", "2,1,3", "2,1,3", "2", "1,12,4", "1,12,5", "1,12"], "forward"),
            ("bad-w", ["2,5,4", "2,1,3", "2,1,3", "2", "1,16,4", "1,12,3", "1,12"], "forward"),
            ("bad-r-gates", ["2,5,4", "2,1,3", "2,1,3", "2", "1,12,4", "1,16,3", "1,12"], "forward"),
            ("bad-b", ["2,5,4", "2,1,3", "2,1,3", "2", "1,12,4", "1,12,3", "1,16"], "forward"),
            ("bad-ndir", ["2,5,4", "2,2,3", "2,2,3", "2", "2,12,4", "2,12,3", "2,12"], "forward"),
            ("bad-ndir-bidir", ["2,5,4", "2,1,3", "2,1,3", "2", "1,12,4", "1,12,3", "1,12"], "bidirectional"),
            ("bad-ndir-w", ["2,5,4", "2,1,3", "2,1,3", "2", "2,12,4", "1,12,3", "1,12"], "forward"),
            ("bad-rank-x", ["2,5", "2,1,3", "2,1,3", "2", "1,12,4", "1,12,3", "1,12"], "forward"),
            ("bad-rank-h", ["2,5,4", "2,3", "2,1,3", "2", "1,12,4", "1,12,3", "1,12"], "forward"),
            ("bad-rank-seq", ["2,5,4", "2,1,3", "2,1,3", "2,1", "1,12,4", "1,12,3", "1,12"], "forward"),
            ("bad-rank-b", ["2,5,4", "2,1,3", "2,1,3", "2", "1,12,4", "1,12,3", "12"], "forward"),
            ("input-size-mismatch", ["2,5,4", "2,1,3", "2,1,3", "2", "1,12,5", "1,12,3", "1,12"], "forward"),
            ("hidden-attr-differs", ["2,5,4", "2,1,5", "2,1,5", "2", "1,20,4", "1,20,5", "1,20"], "forward")]:
        shp(L, tag, s, 4, d)
    S = ["2,5,4", "2,1,3", "2,1,3", "2", "1,12,4", "1,12,3", "1,12"]
    shp(L, "types-mixed", S, 4, types={0: "f16"})
    shp(L, "types-f16", S, 4, types={i: "f16" for i in (0, 1, 2, 4, 5, 6)})
    shp(L, "types-dynamic-x", S, 4, types={0: "dynamic"})
    shp(L, "types-seq-f32", S, 4, types={3: "f32"})
    shp(L, "types-seq-i64", S, 4, types={3: "i64"})
    shp(L, "types-i32-data", S, 4, types={i: "i32" for i in (0, 1, 2, 4, 5, 6)})
    shp(L, "types-b", S, 4, types={6: "f16"})
    shp(L, "types-and-rank", ["2,5", "2,1,3", "2,1,3", "2", "1,12,4", "1,12,3", "1,12"], 4, types={1: "f16"})
    shp(L, "types-all-dynamic", S, 4, types={i: "dynamic" for i in (0, 1, 2, 4, 5, 6)})
    shp("GRUSequence", "types-mixed", ["2,5,4", "2,1,3", "2", "1,9,4", "1,9,3", "1,9"], 3, types={4: "f16"})
    shp("RNNSequence", "types-mixed", ["2,5,4", "2,1,3", "2", "1,3,4", "1,3,3", "1,3"], 1, types={1: "f16"})
    # GRU: X, H, seq, W, R, B
    G = "GRUSequence"
    for tag, s, d, a in [
            ("static", ["2,5,4", "2,1,3", "2", "1,9,4", "1,9,3", "1,9"], "forward", {}),
            ("lbr", ["2,5,4", "2,2,3", "2", "2,9,4", "2,9,3", "2,12"], "bidirectional", dict(linear_before_reset=True)),
            ("lbr-bad-b", ["2,5,4", "2,1,3", "2", "1,9,4", "1,9,3", "1,9"], "forward", dict(linear_before_reset=True)),
            ("bad-b", ["2,5,4", "2,1,3", "2", "1,9,4", "1,9,3", "1,12"], "forward", {}),
            ("rank-dyn", ["...", "...", "...", "...", "...", "..."], "bidirectional", {}),
            ("w-only", ["...", "...", "...", "1,9,4", "...", "..."], "forward", {}),
            ("b-only-lbr", ["...", "...", "...", "...", "...", "1,12"], "forward", dict(linear_before_reset=True)),
            ("intervals", ["1..3,?,4", "?,1,2..5", "2..8", "?,?,?", "?,?,?", "?,?"], "reverse", {}),
            ("bad-batch-seq", ["2,5,4", "2,1,3", "3", "1,9,4", "1,9,3", "1,9"], "forward", {}),
            ("bad-rank-seq", ["2,5,4", "2,1,3", "", "1,9,4", "1,9,3", "1,9"], "forward", {}),
            ("bad-w", ["2,5,4", "2,1,3", "2", "1,12,4", "1,9,3", "1,9"], "forward", {})]:
        shp(G, tag, s, 3, d, **a)
    # RNN: X, H, seq, W, R, B
    R = "RNNSequence"
    for tag, s, d in [
            ("static", ["2,5,4", "2,2,3", "2", "2,3,4", "2,3,3", "2,3"], "bidirectional"),
            ("rank-dyn", ["...", "...", "...", "...", "...", "..."], "forward"),
            ("w-only", ["...", "...", "...", "1,3,4", "...", "..."], "forward"),
            ("all-dyn", ["?,?,?", "?,?,?", "?", "?,?,?", "?,?,?", "?,?"], "reverse"),
            ("bad-w", ["2,5,4", "2,1,3", "2", "1,4,4", "1,3,3", "1,3"], "forward"),
            ("bad-ndir", ["2,5,4", "2,1,3", "2", "1,3,4", "1,3,3", "1,3"], "bidirectional")]:
        shp(R, tag, s, 1, d)


def cell_shape_cases() -> None:
    def shp(op, opset, tag, shapes, types=None, **a):
        ins = [Dyn((types or {}).get(i, "f32"), s) for i, s in enumerate(shapes)]
        add(Case(f"{op}{opset[5:] if op == 'LSTMCell' else ''}-shape-{tag}", op, opset, ins, dict(hidden_size=3, **a),
                 params=()))

    for opset, peep in (("opset4", []), ("opset1", ["9"])):
        for tag, s in [("static", ["2,4", "2,3", "2,3", "12,4", "12,3", "12"]),
                       ("rank-dyn", ["...", "...", "...", "...", "...", "..."]),
                       ("all-dyn", ["?,?", "?,?", "?,?", "?,?", "?,?", "?"]),
                       ("w-only", ["...", "...", "...", "12,?", "...", "..."]),
                       ("w-interval", ["?,?", "?,?", "?,?", "8..12,?", "?,?", "?"]),
                       ("r-only", ["...", "...", "...", "...", "12,5", "..."]),
                       ("b-only", ["...", "...", "...", "...", "...", "12"]),
                       ("c-only", ["...", "...", "2..5,7", "...", "...", "..."]),
                       ("hidden-attr-differs", ["2,4", "2,5", "2,5", "20,4", "20,5", "20"]),
                       ("input-size-mismatch", ["2,4", "2,3", "2,3", "12,5", "12,3", "12"]),
                       ("bad-batch", ["2,4", "3,3", "2,3", "12,4", "12,3", "12"]),
                       ("bad-hidden", ["2,4", "2,3", "2,4", "12,4", "12,3", "12"]),
                       ("bad-w", ["2,4", "2,3", "2,3", "16,4", "12,3", "12"]),
                       ("bad-b", ["2,4", "2,3", "2,3", "12,4", "12,3", "16"]),
                       ("bad-rank-x", ["2,4,1", "2,3", "2,3", "12,4", "12,3", "12"]),
                       ("bad-rank-b", ["2,4", "2,3", "2,3", "12,4", "12,3", "1,12"])]:
            p = peep if not (opset == "opset1" and tag == "rank-dyn") else ["..."]
            shp("LSTMCell", opset, tag, s + p)
        shp("LSTMCell", opset, "types-mixed", ["2,4", "2,3", "2,3", "12,4", "12,3", "12"] + peep, types={1: "f16"})
    shp("LSTMCell", "opset1", "bad-p", ["2,4", "2,3", "2,3", "12,4", "12,3", "12", "6"])
    shp("LSTMCell", "opset1", "p-vs-attr", ["?,?", "?,?", "?,?", "?,?", "?,?", "?", "6"])
    shp("LSTMCell", "opset1", "p-rank2", ["2,4", "2,3", "2,3", "12,4", "12,3", "12", "9,1"])
    shp("LSTMCell", "opset1", "p-scalar", ["2,4", "2,3", "2,3", "12,4", "12,3", "12", ""])
    shp("LSTMCell", "opset1", "types-p", ["2,4", "2,3", "2,3", "12,4", "12,3", "12", "9"], types={6: "f16"})
    for opset in ("opset1", "opset4"):
        p = ["9"] if opset == "opset1" else []
        shp("LSTMCell", opset, "hidden-interval", ["2,4", "2,2..5", "?,?", "?,?", "?,?", "?"] + p)
        shp("LSTMCell", opset, "hidden-interval-off-attr", ["2,4", "2,4..6", "?,?", "?,?", "?,?", "?"] + p)
    shp("GRUCell", "opset3", "types-mixed", ["2,4", "2,3", "9,4", "9,3", "9"], types={0: "f16"})
    shp("RNNCell", "opset1", "types-mixed", ["2,4", "2,3", "3,4", "3,3", "3"], types={4: "f16"})
    shp("LSTMCell", "opset1", "p-dyn", ["2,4", "2,3", "2,3", "12,4", "12,3", "12", "?"])
    for tag, s, a in [("static", ["2,4", "2,3", "9,4", "9,3", "9"], {}),
                      ("lbr", ["2,4", "2,3", "9,4", "9,3", "12"], dict(linear_before_reset=True)),
                      ("lbr-bad-b", ["2,4", "2,3", "9,4", "9,3", "9"], dict(linear_before_reset=True)),
                      ("rank-dyn", ["...", "...", "...", "...", "..."], {}),
                      ("w-only", ["...", "...", "9,?", "...", "..."], {}),
                      ("b-only", ["...", "...", "...", "...", "9"], {}),
                      ("intervals", ["1..3,4", "?,2..5", "?,?", "?,?", "?"], {}),
                      ("bad-batch", ["2,4", "3,3", "9,4", "9,3", "9"], {}),
                      ("bad-w", ["2,4", "2,3", "12,4", "9,3", "9"], {}),
                      ("bad-rank-h", ["2,4", "3", "9,4", "9,3", "9"], {})]:
        shp("GRUCell", "opset3", tag, s, **a)
    for tag, s in [("static", ["2,4", "2,3", "3,4", "3,3", "3"]),
                   ("rank-dyn", ["...", "...", "...", "...", "..."]),
                   ("w-only", ["...", "...", "3,?", "...", "..."]),
                   ("b-only", ["...", "...", "...", "...", "3"]),
                   ("hidden-attr-differs", ["2,4", "2,5", "5,4", "5,5", "5"]),
                   ("bad-w", ["2,4", "2,3", "4,4", "3,3", "3"]),
                   ("bad-rank-w", ["2,4", "2,3", "3", "3,3", "3"])]:
        shp("RNNCell", "opset1", tag, s)


all_cases = CASES.built_by(lstm_sequence_cases, gru_sequence_cases, rnn_sequence_cases, cell_cases,
                           sequence_shape_cases, cell_shape_cases)


if __name__ == "__main__":
    sys.exit(main(cases_of=all_cases, out="rnn_expectations", doc=__doc__))
