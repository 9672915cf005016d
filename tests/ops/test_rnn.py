"""LSTMCell-1/4, GRUCell-3, RNNCell, LSTMSequence-5, GRUSequence-5, RNNSequence-5: the spec's
layer examples (shapes), hand-computed gate-order and sequence-length cases, the OpenVINO
measurements (tools/expectations/make_rnn_expectations.py) and two models converted from torch nn.LSTM /
nn.GRU with openvino.convert_model (tools/fixtures/make_rnn_models.py)."""
from __future__ import annotations

import functools
import json
import math
from pathlib import Path

import numpy as np
import pytest

import irrun
from helpers import ALL_DTYPES, Param, infer_op, raises_for, run_op, shape_str
from irrun.types import elements
from irrun.errors import ExecutionError, IrrunError, ShapeError, UnsupportedError
from nn_cases import TOL, case_ids, entry, inputs_of, replay

TYPES = ("LSTMCell", "GRUCell", "RNNCell", "LSTMSequence", "GRUSequence", "RNNSequence")
HIDDEN_3 = "the inputs have hidden size {} but hidden_size=3"
#: OpenVINO loads (and infers) these; irrun refuses them: its CPU plugin cannot run them, or its
#: two evaluators disagree (LSTMCell-1's peepholes and input_forget), or irrun has no kernel
REFUSE = {
    "LSTMSequence-shape-c-only": HIDDEN_3.format(6), "LSTMCell4-shape-c-only": HIDDEN_3.format(7),
    **{f"{op}-shape-hidden-attr-differs": HIDDEN_3.format(5) for op in ("LSTMSequence", "LSTMCell4", "RNNCell")},
    **{f"{op}-shape-input-size-mismatch": "X has input size 4 but W has 5"
       for op in ("LSTMSequence", "LSTMCell4", "LSTMCell1")},
    "LSTMSequence-shape-types-i32-data": "on f64/f32/f16/bf16 data, not i32",
    "LSTMCell1-peepholes": "irrun does not run LSTMCell-1 with non-zero peepholes P",
    "LSTMCell1-input-forget": "irrun does not run LSTMCell-1 with input_forget=\"true\"",
}
#: both refuse, in their own words
MESSAGES = {"GRUCell-act-missing": "GRUCell needs 2 activation functions, the layer has 1"}
#: OpenVINO reads these but its CPU plugin fails (or crashes) and its reference evaluator has no
#: kernel: irrun refuses them with these messages
CANNOT_RUN = {
    **{f"{op}-{tag}": msg for op in ("LSTMSequence", "GRUSequence", "RNNSequence") for tag, msg in [
        ("reverse-seq-lengths-too-long", "sequence_lengths [2, 5] must lie in [0, 3] for a reverse direction"),
        ("reverse-seq-lengths-negative", "sequence_lengths [3, -1] must lie in [0, 3] for a reverse direction"),
        ("empty-time", "the sequence is empty"),
        ("hidden-attr-differs", HIDDEN_3.format(4)),
        ("input-size-mismatch", "X has input size 5 but W has 4")]},
    "LSTMSequence-act-missing": "LSTMSequence needs 3 activation functions, the layer has 2",
    "GRUSequence-act-missing": "GRUSequence needs 2 activation functions, the layer has 1",
    "RNNSequence-act-missing": "RNNSequence needs 1 activation functions, the layer has 0",
    "LSTMSequence-act-unknown": "Unknown activation function: softsign",
    "LSTMSequence-act-hardsigmoid": "activation function hardsigmoid is not supported",
}
N_OUT = {"LSTMCell": 2, "GRUCell": 1, "RNNCell": 1, "LSTMSequence": 3, "GRUSequence": 2, "RNNSequence": 2}
FLOATS = [np.float64, np.float32, np.float16, elements.TYPES["bf16"].dtype]
MODELS = Path(__file__).resolve().parents[1] / "fixtures" / "rnn_models"


@pytest.mark.parametrize("case", case_ids(*TYPES))
def test_openvino_case(case):
    replay(case, REFUSE, MESSAGES)


def run_unanswered(case: str) -> list[np.ndarray]:
    """A measured case without OpenVINO outputs (so without their count)."""
    e = entry(case)
    ins, params = inputs_of(case)
    return run_op(e["type"], ins, e["attrs"], e["version"], n_out=N_OUT[e["type"]], params=params)


@pytest.mark.parametrize("case", sorted(CANNOT_RUN))
def test_openvino_cannot_run(case):
    e = entry(case)
    assert e["status"] == "unfolded" and "cpu" in e     # OpenVINO gave no answer: CPU failed, no reference
    err = raises_for(e["type"], IrrunError, CANNOT_RUN[case], run_unanswered, case)
    assert err.openvino_loads


@pytest.mark.parametrize("op", ["LSTMSequence", "GRUSequence", "RNNSequence"])
def test_empty_batch_gives_empty_outputs(op):
    """OpenVINO's CPU plugin dies (SIGFPE) on a zero batch; the answer is empty all the same."""
    e = entry(f"{op}-empty-batch")
    assert e["cpu"].startswith("crash")
    got = run_unanswered(f"{op}-empty-batch")
    assert [g.shape for g in got] == [(0, 1, 3, 3)] + [(0, 1, 3)] * (N_OUT[op] - 1)


# ---------------------------------------------------------------------------------------------
# The spec's layer examples (lstm-sequence-5, gru-sequence-5, lstm-cell-1, gru-cell-3 .rst)

def dims(*shapes):
    return [Param("f32", ",".join(map(str, s))) for s in shapes]


def test_spec_example_lstm_sequence():
    out = infer_op("LSTMSequence", dims((1, 4, 16), (1, 1, 128), (1, 1, 128)) + [Param("i32", "1")] +
                   dims((1, 512, 16), (1, 512, 128), (1, 512)),
                   {"hidden_size": 128, "direction": "forward", "activations": "sigmoid,tanh,tanh"}, "opset5", n_out=3)
    assert [shape_str(o) for o in out] == ["[1,1,4,128]", "[1,1,128]", "[1,1,128]"]


def test_spec_example_gru_sequence():
    out = infer_op("GRUSequence", dims((1, 4, 16), (1, 1, 128)) + [Param("i32", "1")] +
                   dims((1, 384, 16), (1, 384, 128), (1, 384)),
                   {"hidden_size": 128, "direction": "forward", "activations": "sigmoid,tanh"}, "opset5", n_out=2)
    assert [shape_str(o) for o in out] == ["[1,1,4,128]", "[1,1,128]"]


def test_spec_example_lstm_cell():
    ins = dims((1, 16), (1, 128), (1, 128), (512, 16), (512, 128), (512,))
    for version in ("opset1", "opset4"):
        out = infer_op("LSTMCell", ins, {"hidden_size": 128}, version, n_out=2)
        assert [shape_str(o) for o in out] == ["[1,128]", "[1,128]"]


def test_spec_example_gru_cell_has_a_wrong_bias_size():
    """gru-cell-3.rst's example has linear_before_reset="1" with B [768]; that needs 4 * 128."""
    ins = dims((1, 16), (1, 128), (384, 16), (384, 128))
    assert shape_str(infer_op("GRUCell", ins + dims((512,)), {"hidden_size": 128, "linear_before_reset": "1"},
                              "opset3")[0]) == "[1,128]"
    raises_for("GRUCell", ShapeError, "First dimension of B input shape is required to be compatible with 512. "
               "Got shape: 768.", infer_op, "GRUCell", ins + dims((768,)),
               {"hidden_size": 128, "linear_before_reset": "1"}, "opset3")


# ---------------------------------------------------------------------------------------------
# Hand-computed values: gate order and the formulas of the specs

def sig(v):
    return 1 / (1 + math.exp(-v))


@pytest.mark.parametrize("version", ["opset1", "opset4"])
def test_lstm_gate_order_is_f_i_c_o(version):
    """hidden 1, W = R = 0: the gates are sigmoid/tanh of the bias B = [b_f, b_i, b_c, b_o]."""
    x, h0, c0 = np.array([[0.7]], np.float32), np.array([[0.2]], np.float32), np.array([[0.3]], np.float32)
    w, r = np.zeros((4, 1), np.float32), np.zeros((4, 1), np.float32)
    b = np.array([0.5, -1.0, 2.0, 0.25], np.float32)
    ho, co = run_op("LSTMCell", [x, h0, c0, w, r, b], {"hidden_size": 1}, version, n_out=2, params=(0, 1, 2))
    c = sig(0.5) * 0.3 + sig(-1.0) * math.tanh(2.0)
    np.testing.assert_allclose(co, [[c]], rtol=1e-6)
    np.testing.assert_allclose(ho, [[sig(0.25) * math.tanh(c)]], rtol=1e-6)


def test_lstm_clip_applies_to_gates_not_to_the_cell():
    x, h0, c0 = np.array([[0.0]], np.float32), np.array([[0.0]], np.float32), np.array([[5.0]], np.float32)
    zero = np.zeros((4, 1), np.float32)
    b = np.array([3.0, -3.0, 3.0, 0.0], np.float32)
    ho, co = run_op("LSTMCell", [x, h0, c0, zero, zero, b], {"hidden_size": 1, "clip": 1.0}, "opset4", n_out=2)
    c = sig(1.0) * 5.0 + sig(-1.0) * math.tanh(1.0)          # the gates clipped to [-1, 1], C not
    np.testing.assert_allclose(co, [[c]], rtol=1e-6)
    np.testing.assert_allclose(ho, [[0.5 * math.tanh(c)]], rtol=1e-6)


@pytest.mark.parametrize("lbr", [False, True])
def test_gru_gate_order_and_linear_before_reset(lbr):
    """hidden 1: z, r, h = gates of W x + R h + B; linear_before_reset puts Rb_h inside r * (...)."""
    x, h0 = np.array([[1.0]], np.float32), np.array([[0.5]], np.float32)
    w = np.array([[0.2], [0.4], [0.6]], np.float32)
    r = np.array([[0.3], [-0.5], [0.7]], np.float32)
    b = np.array([0.1, 0.2, 0.3] + ([0.9] if lbr else []), np.float32)
    (ho,) = run_op("GRUCell", [x, h0, w, r, b], {"hidden_size": 1, "linear_before_reset": lbr}, "opset3",
                   params=(0, 1))
    z, rg = sig(0.2 + 0.3 * 0.5 + 0.1), sig(0.4 - 0.5 * 0.5 + 0.2)
    hh = math.tanh(0.6 + rg * (0.7 * 0.5 + 0.9) + 0.3) if lbr else math.tanh(0.6 + 0.7 * (rg * 0.5) + 0.3)
    np.testing.assert_allclose(ho, [[(1 - z) * hh + z * 0.5]], rtol=1e-6)


def test_rnn_cell_formula_and_activation():
    x, h0 = np.array([[1.0, -2.0]], np.float32), np.array([[0.5]], np.float32)
    w, r, b = np.array([[0.25, 0.5]], np.float32), np.array([[2.0]], np.float32), np.array([0.1], np.float32)
    pre = 0.25 - 1.0 + 1.0 + 0.1
    for act, want in [("tanh", math.tanh(pre)), ("relu", pre), ("sigmoid", sig(pre)), ("Relu", pre)]:
        (ho,) = run_op("RNNCell", [x, h0, w, r, b], {"hidden_size": 1, "activations": act}, params=(0, 1))
        np.testing.assert_allclose(ho, [[want]], rtol=1e-6)


def rnn_sequence(x, lengths, direction, h0=0.0, params=(0, 1, 2), length_type=np.int32):
    """RNNSequence with hidden 1, W = R = 1, B = 0, relu: h_t = relu(x_t + h_{t-1}), a running sum."""
    d = 2 if direction == "bidirectional" else 1
    x = np.array(x, np.float32)[:, :, None]
    ins = [x, np.full((x.shape[0], d, 1), h0, np.float32), np.array(lengths, length_type),
           np.ones((d, 1, 1), np.float32), np.ones((d, 1, 1), np.float32), np.zeros((d, 1), np.float32)]
    y, ho = run_op("RNNSequence", ins, {"hidden_size": 1, "direction": direction, "activations": "relu"}, "opset5",
                   n_out=2, params=params)
    return y[..., 0], ho[..., 0]


@pytest.mark.parametrize("params", [(0, 1, 2), ()], ids=["runtime-lengths", "folded"])
def test_sequence_lengths(params):
    x = [[1, 2, 3], [4, 5, 6]]
    y, ho = rnn_sequence(x, [2, 3], "forward", params=params)
    np.testing.assert_array_equal(y, [[[1, 3, 0]], [[4, 9, 15]]])     # zero past a row's length
    np.testing.assert_array_equal(ho, [[3], [15]])                     # the state at its length
    y, ho = rnn_sequence(x, [2, 3], "reverse", params=params)          # backwards from the length
    np.testing.assert_array_equal(y, [[[3, 2, 0]], [[15, 11, 6]]])
    np.testing.assert_array_equal(ho, [[3], [15]])
    y, ho = rnn_sequence(x, [2, 3], "bidirectional", params=params)
    np.testing.assert_array_equal(y, [[[1, 3, 0], [3, 2, 0]], [[4, 9, 15], [15, 11, 6]]])
    np.testing.assert_array_equal(ho, [[3, 3], [15, 15]])


def test_sequence_length_zero_and_fractional():
    """As measured (OpenVINO compares lengths in their type, takes Ho at ``step == length``)."""
    y, ho = rnn_sequence([[1, 2, 3], [4, 5, 6]], [0, 3], "forward", h0=7.0)
    np.testing.assert_array_equal(y, [[[0, 0, 0]], [[11, 16, 22]]])
    np.testing.assert_array_equal(ho, [[0], [22]])                     # not the initial state
    y, ho = rnn_sequence([[1, 2, 3]], [2.5], "forward", length_type=np.float32)
    np.testing.assert_array_equal(y, [[[1, 3, 0]]])
    np.testing.assert_array_equal(ho, [[0]])


def test_reverse_needs_lengths_within_the_sequence():
    raises_for("RNNSequence", ExecutionError, "sequence_lengths [4] must lie in [0, 3] for a reverse direction",
               rnn_sequence, [[1, 2, 3]], [4], "reverse")
    y, ho = rnn_sequence([[1, 2, 3]], [4], "forward")                 # forward: zero final state
    np.testing.assert_array_equal(y, [[[1, 3, 6]]])
    np.testing.assert_array_equal(ho, [[0]])


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_element_types(dtype):
    x = np.array([[[1], [2], [3]]])
    ins = [x, np.zeros((1, 1, 1)), np.array([3], np.int64), np.ones((1, 1, 1)), np.ones((1, 1, 1)), np.zeros((1, 1))]
    attrs = {"hidden_size": 1, "direction": "forward", "activations": "relu"}
    if np.dtype(dtype) not in map(np.dtype, FLOATS):
        cast = [a.astype(dtype) if i != 2 else a for i, a in enumerate(ins)]
        raises_for("RNNSequence", UnsupportedError, "irrun runs RNNSequence on f64/f32/f16/bf16 data", run_op,
                   "RNNSequence", cast, attrs, "opset5", n_out=2)
        return
    y, ho = run_op("RNNSequence", [a.astype(dtype) if i != 2 else a for i, a in enumerate(ins)], attrs, "opset5",
                   n_out=2, params=(0, 1, 2))
    assert y.dtype == ho.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(y.astype(np.float64).ravel(), [1, 3, 6])


# ---------------------------------------------------------------------------------------------
# Shapes and errors

def test_lstm_cell_takes_hidden_size_when_the_inputs_do_not_say():
    """Only LSTMCell's shape rule reads the attribute (measured: fixture LSTMCell4-shape-rank-dyn)."""
    ins = dims((2, 4)) + [Param("f32", "...")] * 5
    assert [shape_str(o) for o in infer_op("LSTMCell", ins, {"hidden_size": 7}, "opset4", n_out=2)] == ["[2,7]"] * 2
    assert shape_str(infer_op("GRUCell", ins[:5], {"hidden_size": 7}, "opset3")[0]) == "[2,?]"


rejects_seq = functools.partial(raises_for, "LSTMSequence")


def test_sequence_without_activations_cannot_run():
    """OpenVINO reads a sequence layer without ``activations`` as having none (compile fails);
    cells default to sigmoid/tanh."""
    ins = [np.zeros((1, 2, 3), np.float32), np.zeros((1, 1, 2), np.float32), np.zeros((1, 1, 2), np.float32),
           np.array([2], np.int32), np.zeros((1, 8, 3), np.float32), np.zeros((1, 8, 2), np.float32),
           np.zeros((1, 8), np.float32)]
    err = rejects_seq(ShapeError, "LSTMSequence needs 3 activation functions, the layer has 0", run_op,
                      "LSTMSequence", ins, {"hidden_size": 2, "direction": "forward"}, "opset5", n_out=3)
    assert err.openvino_loads
    ho, co = run_op("LSTMCell", [ins[0][:, 0], ins[1][:, 0], ins[2][:, 0], ins[4][0], ins[5][0], ins[6][0]],
                    {"hidden_size": 2}, "opset4", n_out=2)
    np.testing.assert_allclose(co, 0)                                  # sigmoid(0) * 0 + sigmoid(0) * tanh(0)


def test_runtime_shapes_are_checked_like_inferred_ones():
    """With dynamic dims the mismatch only shows at run time; the same rule refuses it."""
    x = np.zeros((1, 2, 3), np.float32)
    ins = [x, np.zeros((1, 1, 4), np.float32), np.zeros((1, 1, 4), np.float32), np.array([2], np.int32),
           np.zeros((1, 16, 3), np.float32), np.zeros((1, 16, 4), np.float32), np.zeros((1, 16), np.float32)]
    attrs = {"hidden_size": 3, "direction": "forward", "activations": "sigmoid,tanh,tanh"}
    rejects_seq(ShapeError, HIDDEN_3.format(4), run_op, "LSTMSequence", ins, attrs, "opset5", n_out=3,
                params=(0, 1, 2, 3, 4, 5, 6))


def test_optional_inputs():
    """LSTMCell-1 takes 5 to 7 inputs (B and P default to zeros); GRUCell/RNNCell/LSTMCell-4 need
    their B (OpenVINO cannot read them without: "index '4' out of range")."""
    x, h, c = np.ones((1, 2), np.float32), np.ones((1, 1), np.float32), np.ones((1, 1), np.float32)
    w, r = np.full((4, 2), 0.5, np.float32), np.full((4, 1), -0.5, np.float32)
    full = run_op("LSTMCell", [x, h, c, w, r, np.zeros(4, np.float32), np.zeros(3, np.float32)],
                  {"hidden_size": 1}, "opset1", n_out=2)
    for n in (5, 6):
        got = run_op("LSTMCell", [x, h, c, w, r, np.zeros(4, np.float32)][:n], {"hidden_size": 1}, "opset1", n_out=2)
        np.testing.assert_array_equal(got, full)
    raises_for("GRUCell", ShapeError, "GRUCell takes 5 inputs, the layer has 4", run_op, "GRUCell",
               [x, h, np.zeros((3, 2), np.float32), np.zeros((3, 1), np.float32)], {"hidden_size": 1}, "opset3")


def test_lstm_cell_1_runtime_peepholes_are_refused():
    x, h, c = np.ones((1, 2), np.float32), np.ones((1, 1), np.float32), np.ones((1, 1), np.float32)
    ins = [x, h, c, np.ones((4, 2), np.float32), np.ones((4, 1), np.float32), np.zeros(4, np.float32)]
    raises_for("LSTMCell", UnsupportedError, "non-zero peepholes P", run_op, "LSTMCell",
               ins + [np.array([0, 0.5, 0], np.float32)], {"hidden_size": 1}, "opset1", n_out=2, params=(0, 6))
    run_op("LSTMCell", ins + [np.zeros(3, np.float32)], {"hidden_size": 1}, "opset1", n_out=2, params=(0, 6))


# ---------------------------------------------------------------------------------------------
# torch nn.LSTM / nn.GRU converted by openvino.convert_model (PyTorch front end)

@pytest.mark.parametrize("name", ["lstm", "gru"])
def test_torch_converted_model(name):
    d = MODELS / name
    meta = json.loads((d / "meta.json").read_text(encoding="utf-8"))
    assert {"lstm": "LSTMSequence-opset5", "gru": "GRUSequence-opset5"}[name] in meta["ops"]
    model = irrun.read_model(d / "model.xml")
    assert [str(o.shape) for o in model.outputs] == meta["output_shapes"]       # as OpenVINO infers them
    rtol, atol = TOL["f32"]
    with np.load(d / "runs.npz") as f:
        for i in range(meta["runs"]):
            got = list(model.run({k: f[f"{i}:in:{k}"] for k in meta["inputs"]}).values())
            assert len(got) == len(model.outputs)
            for k, g in enumerate(got):
                np.testing.assert_allclose(g, f[f"{i}:out:{k}"], rtol=rtol, atol=atol, err_msg=f"{name} run {i} out {k}")
