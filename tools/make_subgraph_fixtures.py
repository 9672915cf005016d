"""Measure OpenVINO on TensorIterator / Loop / If and ReadValue / Assign models into fixtures.

    python tools/make_subgraph_fixtures.py [--out tests/fixtures/subgraphs] [-k substring] [--probe]

Each case is a small model built with OpenVINO's Python API (``openvino.opset8.loop``,
``tensor_iterator``, ``if_op``, ``read_value``/``assign`` with ``ov.op.util.Variable``; one is a
TorchScript module converted with ``openvino.convert_model``), saved with ``ov.save_model`` into
``tests/fixtures/subgraphs/<case>/model.xml`` (+ .bin; ``--out`` names another directory) and run
in a worker process (tools/ovoracle.py, CI=true) on the CPU plugin with INFERENCE_PRECISION_HINT
f32: every run of a case uses ONE infer request, so a stateful case records what several
successive inferences give (``reset_before`` = the run before which ``reset_state()`` is called).
Written per case:

* ``inputs.npz``: ``"<run>.<input name>"`` -> array (seeded values);
* ``expected.npz``: ``"<run>.<output index>"`` -> what OpenVINO returned;
* ``meta.json``: ``doc``, ``outputs`` (names), ``runs``, ``reset_before``, ``ov_shapes`` (the
  output partial shapes OpenVINO's ``read_model`` infers: ``[[lo, hi], ...]``, hi null =
  unbounded, null = dynamic rank) and ``state`` (query_state after the last run).

tests/test_subgraphs.py and tests/test_state.py replay them through irrun. Cases that irrun refuses
on purpose (OpenVINO runs them differently from the spec) are built there by editing these
fixtures; what OpenVINO does on them was measured with this file's ``probe`` (``--probe``):

* TensorIterator, ``start=1 end=-1`` on an axis of 5: read_model gives 4 iterations; the CPU
  plugin runs 4 but reads elements 0..3, not 1..4. ``start=0 end=3``: read_model 4 iterations,
  CPU 3 -> "There are at least two different iterations numbers: 3 and 4". ``stride=2
  part_size=1`` -> "Each iteration must be the same size: length (5) is not divisible by step (2)".
* Loop scan output whose per-iteration size on the axis is 2: "Shape mismatch for tensor
  iterator port" (static shapes) or, when it is dynamic, "TensorIterator (Loop) has incorrect
  output shape[axis] after iteration for concatenation. 1 is expected, but actual: 2"; a
  per-iteration size changing on another axis: the output holds uninitialised memory.
* A Loop that runs zero iterations on an infer request that ran some before returns the previous
  run's scan output (a fresh request gives the correct empty one) — so zero-iteration runs come
  first in loop_runtime_trip_and_condition.
* Loop trip count 10 over a sliced input of 5: "Check 'iter >= 0 && iter < iter_count' failed".
* A ReadValue without an Assign (or two ReadValues of one variable): read_model accepts it,
  compile_model fails ("ReadValue node ... doesn't have sibling output").

Two CPU-plugin bugs the cases steer around (irrun follows the spec there; ``--probe`` shows them):

* A static TensorIterator whose body computes ``Add(x_t, MatMul(h, W))`` (sliced part first, the
  back-edge state second) gives wrong values from the second iteration on — it adds ``x_t`` where
  ``h`` belongs; ``Add(MatMul(h, W), x_t)`` is right, and so is the dynamic-shape case. The TI
  cases use the second form.
* An Assign that does not depend on its variable's ReadValue: the first run returns
  uninitialised memory, the second reads zeros instead of the first run's value. The state cases
  assign values computed from the ReadValue (as stateful LLM exports do).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

os.environ["CI"] = "true"

import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "tests" / "fixtures" / "subgraphs"
sys.path.insert(0, str(Path(__file__).resolve().parent))


# ---------------------------------------------------------------------------------------------
# Builders (run in the OpenVINO worker): each returns (model, [feeds per run], extra meta)

def _rng(seed: int):
    return np.random.default_rng(seed)


def _f32(rng, *shape):
    return rng.uniform(-1, 1, shape).astype(np.float32)


def _ti(start, stride, end, ostart, ostride, oend, dyn=False, cpu_bug=False):
    """h = tanh(h @ W + x_t) over axis 1 of X (``cpu_bug``: ``x_t + h @ W``, see --probe)."""
    import openvino as ov
    import openvino.opset8 as ops
    X = ops.parameter([-1, -1, 3] if dyn else [2, 5, 3], np.float32, name="X")
    H = ops.parameter([-1, 3] if dyn else [2, 3], np.float32, name="H")
    W = ops.parameter([3, 3], np.float32, name="W")
    bx = ops.parameter([2, 1, 3], np.float32, name="bx")
    bh = ops.parameter([2, 3], np.float32, name="bh")
    bw = ops.parameter([3, 3], np.float32, name="bw")
    x = ops.squeeze(bx, ops.constant(np.array([1], np.int64)))
    hw = ops.matmul(bh, bw, False, False)
    h = ops.tanh(ops.add(x, hw) if cpu_bug else ops.add(hw, x))
    rh, ry = ops.result(h), ops.result(ops.unsqueeze(h, ops.constant(np.array([1], np.int64))))
    ti = ops.tensor_iterator()
    ti.set_body(ov.Model([rh, ry], [bx, bh, bw], "body"))
    ti.set_sliced_input(bx, X.output(0), start, stride, 1, end, 1)
    ti.set_merged_input(bh, H.output(0), rh.output(0))
    ti.set_invariant_input(bw, W.output(0))
    outs = [ti.get_iter_value(rh.output(0), -1), ti.get_concatenated_slices(ry.output(0), ostart, ostride, 1, oend, 1)]
    return ov.Model(outs, [X, H, W], "ti")


def ti_forward():
    r = _rng(1)
    return _ti(0, 1, -1, 0, 1, -1), [dict(X=_f32(r, 2, 5, 3), H=_f32(r, 2, 3), W=_f32(r, 3, 3))], {
        "doc": "TensorIterator: a tanh RNN cell over axis 1 (forward), hidden state by back edge, "
               "weights invariant; last-iteration and concatenated outputs"}


def ti_reverse():
    r = _rng(2)
    return _ti(-1, -1, 0, -1, -1, 0), [dict(X=_f32(r, 2, 5, 3), H=_f32(r, 2, 3), W=_f32(r, 3, 3))], {
        "doc": "TensorIterator slicing backwards (start=-1 end=0 stride=-1), output concatenated "
               "in reverse order"}


def ti_forward_in_reverse_out():
    r = _rng(3)
    return _ti(0, 1, -1, -1, -1, 0), [dict(X=_f32(r, 2, 5, 3), H=_f32(r, 2, 3), W=_f32(r, 3, 3))], {
        "doc": "TensorIterator slicing forwards, concatenating backwards"}


def ti_partial_end():
    r = _rng(4)
    return _ti(0, 1, -2, 0, 1, -1), [dict(X=_f32(r, 2, 5, 3), H=_f32(r, 2, 3), W=_f32(r, 3, 3))], {
        "doc": "TensorIterator over the first 4 of 5 elements (end=-2)"}


def ti_dynamic():
    r = _rng(5)
    return _ti(0, 1, -1, 0, 1, -1, dyn=True), [
        dict(X=_f32(r, 2, 4, 3), H=_f32(r, 2, 3), W=_f32(r, 3, 3)),
        dict(X=_f32(r, 1, 6, 3), H=_f32(r, 1, 3), W=_f32(r, 3, 3))], {
        "doc": "TensorIterator with dynamic batch and sequence length, run with two shapes"}


def _loop(trip, cond, body_cond, *, current=None, trip_param=False, cond_param=False, dyn=False):
    """A model around :func:`_loop_node`."""
    import openvino as ov
    import openvino.opset8 as ops
    X = ops.parameter([-1, 3] if dyn else [2, 3], np.float32, name="X")
    params = [X]
    T = ops.parameter([], np.int64, name="T") if trip_param else ops.constant(np.int64(trip))
    C = ops.parameter([], np.bool_, name="C") if cond_param else ops.constant(np.bool_(cond))
    params += [p for p, f in ((T, trip_param), (C, cond_param)) if f]
    L = ops.parameter([], np.int64, name="L") if body_cond == "iter<limit" else None
    lp = _loop_node(X.output(0), T, C, body_cond, current, L)
    return ov.Model([lp.output(0), lp.output(1)], params + ([L] if L is not None else []), "loop")


def _loop_node(x, T, C, body_cond, current=None, L=None):
    """acc = acc + (x + 1) * (i + 1 with a current-iteration input, else 1) starting from x;
    outputs: the last acc and the scan of all accs ([n,2,3])."""
    import openvino as ov
    import openvino.opset8 as ops
    bx = ops.parameter([2, 3], np.float32, name="bx")
    ba = ops.parameter([2, 3], np.float32, name="ba")
    bparams = [bx, ba]
    step = ops.add(bx, ops.constant(np.float32(1)))
    if current is not None:
        bi = ops.parameter(current, np.int64, name="iter")
        bparams.insert(1, bi)
        step = ops.multiply(step, ops.convert(ops.add(bi, ops.constant(np.int64(1))), "f32"))
    acc = ops.add(ba, step)
    if body_cond == "true":
        c = ops.constant(np.bool_(True))
    elif body_cond == "sum<20":
        c = ops.less(ops.reduce_sum(acc, ops.constant(np.array([0, 1], np.int64)), False), ops.constant(np.float32(20)))
    elif body_cond == "iter<limit":
        bl = ops.parameter([], np.int64, name="blim")
        c = ops.less(bi, bl)
        bparams.append(bl)
    r_acc, r_c = ops.result(acc), ops.result(c)
    r_scan = ops.result(ops.unsqueeze(acc, ops.constant(np.array([0], np.int64))))
    body = ov.Model([r_acc, r_c, r_scan], bparams, "body")
    lp = ops.loop(T, C)
    lp.set_function(body)
    lp.set_special_body_ports([bparams.index(bi) if current is not None else -1, 1])
    lp.set_invariant_input(bx, x)
    lp.set_merged_input(ba, x, r_acc.output(0))
    if L is not None:
        lp.set_invariant_input(bl, L.output(0))
    lp.get_iter_value(r_acc.output(0), -1)
    lp.get_concatenated_slices(r_scan.output(0), 0, 1, 1, -1, 0)
    return lp


def loop_fixed():
    return _loop(4, True, "true"), [dict(X=_f32(_rng(10), 2, 3))], {
        "doc": "Loop: constant trip count 4, conditions always true: static scan output [4,2,3]"}


def loop_early_stop():
    return _loop(10, True, "sum<20"), [dict(X=_f32(_rng(11), 2, 3))], {
        "doc": "Loop: trip count 10, the body's condition (sum < 20) stops it early"}


def loop_current_iteration():
    return _loop(3, True, "true", current=[1]), [dict(X=_f32(_rng(12), 2, 3))], {
        "doc": "Loop: the body's current-iteration input ([1] i64) scales each step"}


def loop_current_iteration_scalar():
    return _loop(3, True, "true", current=[]), [dict(X=_f32(_rng(13), 2, 3))], {
        "doc": "Loop: a scalar current-iteration input"}


def loop_while():
    return _loop(-1, True, "iter<limit", current=[]), [
        dict(X=_f32(_rng(14), 2, 3), L=np.int64(4)), dict(X=_f32(_rng(15), 2, 3), L=np.int64(0))], {
        "doc": "Loop: trip count -1, stopped by iter < L (a model input); L=0 still runs once "
               "(the condition decides whether the NEXT iteration runs)"}


def loop_runtime_trip_and_condition():
    r = _rng(16)
    return _loop(0, True, "true", trip_param=True, cond_param=True), [
        dict(X=_f32(r, 2, 3), T=np.int64(0), C=np.bool_(True)),
        dict(X=_f32(r, 2, 3), T=np.int64(5), C=np.bool_(False)),
        dict(X=_f32(r, 2, 3), T=np.int64(3), C=np.bool_(True))], {
        "doc": "Loop: trip count and first condition are model inputs; runs of 0 (trip 0), 0 "
               "(condition false) and 3 iterations: with none, the last value is the initial one "
               "and the scan output is empty (the zero-iteration runs come first: on a request "
               "that already ran iterations, the CPU plugin returns the previous scan output)"}


def loop_runtime_trip_scan():
    r = _rng(19)
    return _loop(0, True, "true", trip_param=True), [
        dict(X=_f32(r, 2, 3), T=np.int64(0)), dict(X=_f32(r, 2, 3), T=np.int64(3)),
        dict(X=_f32(r, 2, 3), T=np.int64(1))], {
        "doc": "Loop: the common PyTorch for-loop: trip count from a model input, both conditions "
               "constant true, a scan output (its axis is the run-time iteration count)"}


def loop_state_accumulate():
    import openvino as ov
    import openvino.opset8 as ops
    X = ops.parameter([1], np.float32, name="X")
    bx = ops.parameter([1], np.float32, name="bx")
    v = _variable([1], ov.Type.f32, "acc")
    rv = ops.read_value(v)
    s = ops.add(rv, bx)
    r_s, r_c = ops.result(s), ops.result(ops.constant(np.bool_(True)))
    r_scan = ops.result(ops.add(rv, ops.constant(np.float32(0))))
    body = ov.Model([r_s, r_c, r_scan], [ops.assign(s, v)], [bx], "body")
    lp = ops.loop(ops.constant(np.int64(3)), ops.constant(np.bool_(True)))
    lp.set_function(body)
    lp.set_special_body_ports([-1, 1])
    lp.set_invariant_input(bx, X.output(0))
    outs = [lp.get_iter_value(r_s.output(0), -1), lp.get_concatenated_slices(r_scan.output(0), 0, 1, 1, -1, 0)]
    return ov.Model(outs, [X], "loop_state"), [dict(X=np.array([1], np.float32)),
                                              dict(X=np.array([2], np.float32))], {
        "doc": "ReadValue/Assign inside a Loop body: each iteration reads what the previous one "
               "assigned (3 iterations of acc += x give 3x), and the next run goes on from there"}


def loop_doubling():
    import openvino as ov
    import openvino.opset8 as ops
    A = ops.parameter([1], np.float32, name="A")
    T = ops.parameter([], np.int64, name="T")
    ba = ops.parameter([-1], np.float32, name="ba")
    twice = ops.concat([ba, ops.add(ba, ops.constant(np.float32(1)))], 0)
    r_a, r_c = ops.result(twice), ops.result(ops.constant(np.bool_(True)))
    lp = ops.loop(T, ops.constant(np.bool_(True)))
    lp.set_function(ov.Model([r_a, r_c], [ba], "body"))
    lp.set_special_body_ports([-1, 1])
    lp.set_merged_input(ba, A.output(0), r_a.output(0))
    return ov.Model([lp.get_iter_value(r_a.output(0), -1)], [A, T], "doubling"), [
        dict(A=np.array([0.5], np.float32), T=np.int64(3))], {
        "doc": "Loop whose state doubles each iteration (x ++ x + 1): 3 iterations give 8 "
               "elements (tests/hostile runs it 40 times under a small memory budget)"}


def loop_nested():
    import openvino as ov
    import openvino.opset8 as ops
    X = ops.parameter([2], np.float32, name="X")
    T1 = ops.parameter([], np.int64, name="T1")
    T2 = ops.parameter([], np.int64, name="T2")
    ox, ot = ops.parameter([2], np.float32, name="ox"), ops.parameter([], np.int64, name="ot")
    ix = ops.parameter([2], np.float32, name="ix")
    r_ix = ops.result(ops.add(ops.multiply(ix, ops.constant(np.float32(0.5))), ops.constant(np.float32(1))))
    inner = ops.loop(ot, ops.constant(np.bool_(True)))
    inner.set_function(ov.Model([r_ix, ops.result(ops.constant(np.bool_(True)))], [ix], "inner"))
    inner.set_special_body_ports([-1, 1])
    inner.set_merged_input(ix, ox.output(0), r_ix.output(0))
    r_ox = ops.result(inner.get_iter_value(r_ix.output(0), -1))
    outer = ops.loop(T1, ops.constant(np.bool_(True)))
    outer.set_function(ov.Model([r_ox, ops.result(ops.constant(np.bool_(True)))], [ox, ot], "outer"))
    outer.set_special_body_ports([-1, 1])
    outer.set_merged_input(ox, X.output(0), r_ox.output(0))
    outer.set_invariant_input(ot, T2.output(0))
    r = _rng(20)
    return ov.Model([outer.get_iter_value(r_ox.output(0), -1)], [X, T1, T2], "nested"), [
        dict(X=_f32(r, 2), T1=np.int64(3), T2=np.int64(4)), dict(X=_f32(r, 2), T1=np.int64(2), T2=np.int64(0))], {
        "doc": "A Loop in a Loop, both trip counts model inputs: x = x / 2 + 1, T1 x T2 times "
               "(tests/hostile runs 10**3 x 10**3 under --max-iterations)"}


def loop_dynamic_batch():
    r = _rng(17)
    return _loop(2, True, "true", dyn=True), [dict(X=_f32(r, 2, 3)), dict(X=_f32(r, 5, 3))], {
        "doc": "Loop over a dynamic batch, run with two batch sizes"}


def loop_growing():
    import openvino as ov
    import openvino.opset8 as ops
    A = ops.parameter([1], np.float32, name="A")
    bi = ops.parameter([], np.int64, name="iter")
    ba = ops.parameter([1], np.float32, name="acc")
    fi = ops.convert(bi, "f32")
    acc = ops.concat([ba, ops.unsqueeze(ops.multiply(fi, ops.constant(np.float32(2))), ops.constant(np.array([0], np.int64)))], 0)
    total = ops.reduce_sum(acc, ops.constant(np.array([0], np.int64)), True)
    r_acc, r_c, r_tot = ops.result(acc), ops.result(ops.constant(np.bool_(True))), ops.result(total)
    body = ov.Model([r_acc, r_c, r_tot], [bi, ba], "body")
    lp = ops.loop(ops.constant(np.int64(4)), ops.constant(np.bool_(True)))
    lp.set_function(body)
    lp.set_special_body_ports([0, 1])
    lp.set_merged_input(ba, A.output(0), r_acc.output(0))
    outs = [lp.get_iter_value(r_acc.output(0), -1), lp.get_concatenated_slices(r_tot.output(0), 0, 1, 1, -1, 0)]
    return ov.Model(outs, [A], "grow"), [dict(A=np.array([0.5], np.float32))], {
        "doc": "Loop whose back edge grows a tensor by one element per iteration (its shape "
               "changes across iterations), with a scan of the running sums"}


def loop_sliced():
    import openvino as ov
    import openvino.opset8 as ops
    X = ops.parameter([5, 2], np.float32, name="X")
    A = ops.parameter([1, 2], np.float32, name="A")
    bx = ops.parameter([1, 2], np.float32, name="bx")
    ba = ops.parameter([1, 2], np.float32, name="ba")
    s = ops.add(ba, bx)
    r_s, r_c = ops.result(s), ops.result(ops.constant(np.bool_(True)))
    body = ov.Model([r_s, r_c], [bx, ba], "body")
    lp = ops.loop(ops.constant(np.int64(3)), ops.constant(np.bool_(True)))
    lp.set_function(body)
    lp.set_special_body_ports([-1, 1])
    lp.set_sliced_input(bx, X.output(0), 0, 1, 1, -1, 0)
    lp.set_merged_input(ba, A.output(0), r_s.output(0))
    outs = [lp.get_iter_value(r_s.output(0), -1), lp.get_concatenated_slices(r_s.output(0), 0, 1, 1, -1, 0)]
    r = _rng(18)
    return ov.Model(outs, [X, A], "sliced"), [dict(X=_f32(r, 5, 2), A=_f32(r, 1, 2))], {
        "doc": "Loop with a sliced input (axis 0) and trip count 3: a running sum over the first 3 rows"}


def _if(cond=None, else_concat=False, dyn=False):
    import openvino as ov
    import openvino.opset8 as ops
    X = ops.parameter([-1, 3] if dyn else [2, 3], np.float32, name="X")
    Y = ops.parameter([-1, 3] if dyn else [2, 3], np.float32, name="Y")
    params = [X, Y]
    if cond is None:
        C = ops.parameter([], np.bool_, name="C")
        params.append(C)
    else:
        C = ops.constant(np.bool_(cond))
    tx = ops.parameter([2, 3], np.float32, name="tx")
    then = ov.Model([ops.result(ops.multiply(tx, ops.constant(np.float32(2))))], [tx], "then")
    ex = ops.parameter([2, 3], np.float32, name="ex")
    ey = ops.parameter([2, 3], np.float32, name="ey")
    eo = ops.subtract(ex, ops.sin(ey))
    if else_concat:
        eo = ops.concat([eo, eo], 0)
    els = ov.Model([ops.result(eo)], [ex, ey], "else")
    return ov.Model(_if_node(C, then, els, [(X.output(0), tx, ex), (Y.output(0), None, ey)]), params, "if")


def _if_node(cond, then, els, inputs) -> list:
    """An If on ``cond`` with bodies ``then``/``els``; ``inputs``: (outer output, then-body
    Parameter or None, else-body Parameter or None) each; an output per pair of body Results."""
    import openvino.opset8 as ops
    iff = ops.if_op(cond)
    iff.set_then_body(then)
    iff.set_else_body(els)
    for outer, tp, ep in inputs:
        iff.set_input(outer, tp, ep)
    return [iff.set_output(t, e) for t, e in zip(then.get_results(), els.get_results())]


def if_runtime():
    r = _rng(20)
    x, y = _f32(r, 2, 3), _f32(r, 2, 3)
    return _if(), [dict(X=x, Y=y, C=np.bool_(True)), dict(X=x, Y=y, C=np.bool_(False))], {
        "doc": "If with a run-time condition, run true then false; the then-body omits input Y"}


def if_const_true():
    r = _rng(21)
    return _if(True), [dict(X=_f32(r, 2, 3), Y=_f32(r, 2, 3))], {"doc": "If with a constant true condition"}


def if_const_false():
    r = _rng(22)
    return _if(False), [dict(X=_f32(r, 2, 3), Y=_f32(r, 2, 3))], {"doc": "If with a constant false condition"}


def if_branch_shapes():
    r = _rng(23)
    x, y = _f32(r, 2, 3), _f32(r, 2, 3)
    return _if(None, else_concat=True), [dict(X=x, Y=y, C=np.bool_(True)), dict(X=x, Y=y, C=np.bool_(False))], {
        "doc": "If whose branches give [2,3] and [4,3]: read_model says [2..4,3]"}


def if_dynamic():
    r = _rng(24)
    return _if(None, dyn=True), [dict(X=_f32(r, 4, 3), Y=_f32(r, 4, 3), C=np.bool_(False))], {
        "doc": "If over inputs with a dynamic batch"}


def loop_in_if():
    import openvino as ov
    import openvino.opset8 as ops
    X = ops.parameter([2, 3], np.float32, name="X")
    C = ops.parameter([], np.bool_, name="C")
    tx = ops.parameter([2, 3], np.float32, name="tx")
    lp = _loop_node(tx.output(0), ops.constant(np.int64(3)), ops.constant(np.bool_(True)), "true")
    then = ov.Model([ops.result(lp.output(0)), ops.result(ops.reduce_sum(lp.output(1), ops.constant(np.array([0], np.int64)), False))], [tx], "then")
    ex = ops.parameter([2, 3], np.float32, name="ex")
    els = ov.Model([ops.result(ops.negative(ex)), ops.result(ops.abs(ex))], [ex], "else")
    x = _f32(_rng(30), 2, 3)
    return ov.Model(_if_node(C, then, els, [(X.output(0), tx, ex)]), [X, C], "nested"), [dict(X=x, C=np.bool_(True)), dict(X=x, C=np.bool_(False))], {
        "doc": "A Loop inside an If's then-body"}


def if_in_ti():
    import openvino as ov
    import openvino.opset8 as ops
    X = ops.parameter([4, 2], np.float32, name="X")
    S = ops.parameter([2], np.float32, name="S")
    bx = ops.parameter([1, 2], np.float32, name="bx")
    bs = ops.parameter([2], np.float32, name="bs")
    row = ops.squeeze(bx, ops.constant(np.array([0], np.int64)))
    cond = ops.greater(ops.reduce_sum(row, ops.constant(np.array([0], np.int64)), False),
                       ops.constant(np.float32(0))).output(0)   # if_op(node) would drop it
    tr = ops.parameter([2], np.float32, name="tr")
    ta = ops.parameter([2], np.float32, name="ta")
    then = ov.Model([ops.result(ops.add(ta, tr))], [tr, ta], "then")
    er = ops.parameter([2], np.float32, name="er")
    ea = ops.parameter([2], np.float32, name="ea")
    els = ov.Model([ops.result(ops.subtract(ea, ops.multiply(er, er)))], [er, ea], "else")
    r_s = ops.result(_if_node(cond, then, els, [(row.output(0), tr, er), (bs.output(0), ta, ea)])[0])
    ti = ops.tensor_iterator()
    ti.set_body(ov.Model([r_s], [bx, bs], "body"))
    ti.set_sliced_input(bx, X.output(0), 0, 1, 1, -1, 0)
    ti.set_merged_input(bs, S.output(0), r_s.output(0))
    out = ti.get_iter_value(r_s.output(0), -1)
    r = _rng(31)
    return ov.Model([out], [X, S], "nested"), [dict(X=_f32(r, 4, 2), S=_f32(r, 2))], {
        "doc": "An If inside a TensorIterator body: each row adds itself or subtracts its square"}


def torch_loop_if():
    import openvino as ov
    import torch

    class M(torch.nn.Module):
        def forward(self, x, n: int):
            y = x
            for _ in range(n):
                y = y * 0.5 + torch.sin(y)
            if y.sum() > 0:
                y = y + 1
            else:
                y = y - 1
            return y

    torch.manual_seed(0)
    m = ov.convert_model(torch.jit.script(M()), example_input=(torch.randn(2, 3), torch.tensor(3)))
    r = _rng(40)
    return m, [{"x.1": _f32(r, 2, 3), "n.1": np.int64(3)},
               {"x.1": _f32(r, 3, 4) - 2, "n.1": np.int64(1)}], {
        "doc": "A TorchScript module (for loop, if on data) converted by openvino.convert_model: "
               "a Loop and an If, dynamic shapes"}


# -- state ------------------------------------------------------------------------------------

def _variable(shape, etype, vid="v"):
    import openvino as ov
    from openvino.op.util import Variable, VariableInfo
    vi = VariableInfo()
    vi.data_shape, vi.data_type, vi.variable_id = ov.PartialShape(shape), etype, vid
    return Variable(vi)


def _state_runs(seed, shape, n=4):
    r = _rng(seed)
    return [dict(x=_f32(r, *shape)) for _ in range(n)]


def state_init():
    import openvino as ov
    import openvino.opset8 as ops
    x = ops.parameter([2, 4], np.float32, name="x")
    v = _variable([2, 4], ov.Type.f32)
    rv = ops.read_value(ops.multiply(x, ops.constant(np.float32(10))), v)
    s = ops.add(rv, x)
    return ov.Model([ops.result(s)], [ops.assign(s, v)], [x], "state"), _state_runs(50, (2, 4)), {
        "reset_before": 3, "doc": "ReadValue-6 with an initializing sub-graph (10 x): runs accumulate "
                                  "x; after reset_state the init value is used again"}


def state_zeros():
    import openvino as ov
    import openvino.opset8 as ops
    x = ops.parameter([2, 4], np.float32, name="x")
    v = _variable([2, 4], ov.Type.f32)
    rv = ops.read_value(v)
    s = ops.add(rv, x)
    return ov.Model([ops.result(s), ops.result(rv)], [ops.assign(s, v)], [x], "state"), _state_runs(51, (2, 4)), {
        "reset_before": 3, "doc": "ReadValue-6 without an initial value: zeros first"}


def state_v3():
    import openvino.opset3 as o3
    import openvino.opset8 as ops
    import openvino as ov
    x = ops.parameter([2, 4], np.float32, name="x")
    rv = o3.read_value(ops.multiply(x, ops.constant(np.float32(10))), "v3")
    s = ops.add(rv, x)
    return ov.Model([ops.result(s)], [o3.assign(s, "v3")], [x], "state"), _state_runs(52, (2, 4)), {
        "reset_before": 3, "doc": "ReadValue-3 / Assign-3 (variable_id only)"}


def state_kv_cache():
    import openvino as ov
    import openvino.opset8 as ops
    x = ops.parameter([-1, 4], np.float32, name="x")
    v = _variable([-1, 4], ov.Type.f32, "kv")
    rv = ops.read_value(v)
    c = ops.concat([rv, x], 0)
    att = ops.reduce_sum(c, ops.constant(np.array([0], np.int64)), False)
    r = _rng(53)
    runs = [dict(x=_f32(r, 2, 4)), dict(x=_f32(r, 1, 4)), dict(x=_f32(r, 3, 4)), dict(x=_f32(r, 1, 4))]
    return ov.Model([ops.result(c), ops.result(att)], [ops.assign(c, v)], [x], "kv"), runs, {
        "reset_before": 3, "doc": "A KV-cache-like state: variable [?,4] (zeros [0,4] at first) "
                                  "grows by the rows of each run's input"}


def state_two_variables():
    import openvino as ov
    import openvino.opset8 as ops
    x = ops.parameter([3], np.int32, name="x")
    va, vb = _variable([3], ov.Type.i32, "count"), _variable([3], ov.Type.i32, "max")
    ra, rb = ops.read_value(va), ops.read_value(ops.multiply(x, ops.constant(np.int32(2))), vb)
    na, nb = ops.add(ra, ops.constant(np.int32(1))), ops.maximum(rb, x)
    out = ops.add(ops.multiply(na, x), nb)
    r = _rng(54)
    runs = [dict(x=r.integers(-5, 5, 3).astype(np.int32)) for _ in range(4)]
    return ov.Model([ops.result(out)], [ops.assign(na, va), ops.assign(nb, vb)], [x], "two"), runs, {
        "reset_before": 3, "doc": "Two i32 variables: a counter (zeros init) and a running maximum "
                                  "(init 2x)"}


CASES = {f.__name__: f for f in [
    ti_forward, ti_reverse, ti_forward_in_reverse_out, ti_partial_end, ti_dynamic,
    loop_fixed, loop_early_stop, loop_current_iteration, loop_current_iteration_scalar, loop_while,
    loop_runtime_trip_and_condition, loop_runtime_trip_scan, loop_state_accumulate, loop_doubling,
    loop_nested,
    loop_dynamic_batch, loop_growing, loop_sliced,
    if_runtime, if_const_true, if_const_false, if_branch_shapes, if_dynamic,
    loop_in_if, if_in_ti, torch_loop_if,
    state_init, state_zeros, state_v3, state_kv_cache, state_two_variables]}


# -- probes: what OpenVINO does on what irrun refuses (``--probe``; see the module docstring) --

def _probe_loop_chunk2():
    import openvino as ov
    import openvino.opset8 as ops
    A = ops.parameter([1], np.float32, name="A")
    ba = ops.parameter([1], np.float32, name="ba")
    two = ops.concat([ba, ba], 0)
    r_a, r_c, r_s = ops.result(ba), ops.result(ops.constant(np.bool_(True))), ops.result(two)
    lp = ops.loop(ops.constant(np.int64(3)), ops.constant(np.bool_(True)))
    lp.set_function(ov.Model([r_a, r_c, r_s], [ba], "body"))
    lp.set_special_body_ports([-1, 1])
    lp.set_merged_input(ba, A.output(0), r_a.output(0))
    return ov.Model([lp.get_concatenated_slices(r_s.output(0), 0, 1, 1, -1, 0)], [A], "p"), dict(A=np.ones(1, np.float32))


def _probe_trip10_over_5():
    import openvino as ov
    m, runs, _ = loop_sliced()
    for n in m.get_ordered_ops():
        if n.get_type_name() == "Loop":
            n.input(0).replace_source_output(ov.opset8.constant(np.int64(10)).output(0))
    m.validate_nodes_and_infer_types()
    return m, runs[0]


def _probe_unpaired():
    import openvino as ov
    import openvino.opset8 as ops
    x = ops.parameter([2, 4], np.float32, name="x")
    rv = ops.read_value(_variable([2, 4], ov.Type.f32))
    return ov.Model([ops.result(ops.add(rv, x))], [], [x], "p"), dict(x=np.ones((2, 4), np.float32))


def _probe_ti(*args, **kw):
    r = _rng(1)
    return _ti(*args, **kw), dict(X=np.arange(30, dtype=np.float32).reshape(2, 5, 3) / 30,
                                  H=_f32(r, 2, 3), W=np.eye(3, dtype=np.float32))


def _probe_assign_first():
    import openvino as ov
    import openvino.opset8 as ops
    x = ops.parameter([3], np.float32, name="x")
    v = _variable([3], ov.Type.f32)
    rv = ops.read_value(v)
    m = ov.Model([ops.result(ops.add(x, rv))], [ops.assign(ops.add(x, ops.constant(np.float32(0))), v)], [x], "p")
    return m, [dict(x=np.array([1, 2, 3], np.float32)), dict(x=np.array([10, 20, 30], np.float32)),
               dict(x=np.array([100, 200, 300], np.float32))]


PROBES = {
    "TI start=1 end=-1 (reads rows 1..4 by the spec)": lambda: _probe_ti(1, 1, -1, 0, 1, -1),
    "TI start=0 end=3": lambda: _probe_ti(0, 1, 3, 0, 1, -1),
    "TI stride=2 part_size=1": lambda: _probe_ti(0, 2, -1, 0, 1, -1),
    "Loop scan of 2 elements per iteration": _probe_loop_chunk2,
    "Loop trip count 10 over a sliced input of 5": _probe_trip10_over_5,
    "ReadValue without Assign": _probe_unpaired,
    "TI h = tanh(x_t + h @ W), W = I, X = arange/30 (h @ W + x_t is right)":
        lambda: _probe_ti(0, 1, -1, 0, 1, -1, cpu_bug=True),
    "Assign(x + 0) not fed by its ReadValue, 3 runs (the spec: x1 + x0 = [11,22,33] in run 2)":
        _probe_assign_first,
}


def probe(name: str) -> str:
    import openvino as ov
    model, feeds = PROBES[name]()
    core = ov.Core()
    shapes = [str(o.get_partial_shape()) for o in model.outputs]
    try:
        req = core.compile_model(model, "CPU", {"INFERENCE_PRECISION_HINT": "f32"}).create_infer_request()
        outs = [np.array(v) for f in (feeds if isinstance(feeds, list) else [feeds])
                for v in req.infer(f).values()]
    except Exception as e:
        return f"read_model shapes {shapes}; CPU fails: {str(e).strip().splitlines()[-1][:200]}"
    return f"read_model shapes {shapes}; CPU gives " + "; ".join(
        f"{list(a.shape)} {a.reshape(-1)[:6].round(3).tolist()}" for a in outs)


def measure(case: str, out_dir: str) -> dict:
    """Build, save, read back and run one case on one CPU infer request (in the worker)."""
    import openvino as ov
    from ovoracle import _shape
    model, runs, extra = CASES[case]()
    xml = os.path.join(out_dir, "model.xml")
    ov.save_model(model, xml, compress_to_fp16=False)
    core = ov.Core()
    m = core.read_model(xml)
    compiled = core.compile_model(m, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    req = compiled.create_infer_request()
    outputs = []
    for i, feeds in enumerate(runs):
        if i == extra.get("reset_before"):
            req.reset_state()
        res = req.infer(feeds)
        outputs.append([np.array(res[o], copy=True) for o in compiled.outputs])
    return dict(runs=runs, outputs=outputs, extra=extra,
                names=[sorted(o.get_names())[0] for o in m.outputs],
                ov_shapes=[_shape(o.get_partial_shape()) for o in m.outputs],
                state={s.name: list(s.state.shape) for s in req.query_state()})


def main(argv=None) -> int:
    from ovoracle import Oracle
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=OUT, help="where the case directories go")
    ap.add_argument("-k", default="", help="only the cases whose name contains this")
    ap.add_argument("--probe", action="store_true", help="print what OpenVINO does on the "
                    "graphs irrun refuses (writes nothing)")
    args = ap.parse_args(argv)
    with Oracle(timeout=300) as oracle:
        if args.probe:
            for name in PROBES:
                r = oracle.call(probe, name)
                print(f"{name}: {r.value if r.ok else r.status + ' ' + r.message}")
            return 0
        for case in CASES:
            if args.k not in case:
                continue
            d = args.out / case
            d.mkdir(parents=True, exist_ok=True)
            r = oracle.call(measure, case, str(d))
            if not r.ok:
                print(f"{case}: {r.status} {r.message}")
                continue
            v = r.value
            np.savez(d / "inputs.npz", **{f"{i}.{k}": np.asarray(a) for i, feeds in enumerate(v["runs"])
                                          for k, a in feeds.items()})
            np.savez(d / "expected.npz", **{f"{i}.{j}": a for i, outs in enumerate(v["outputs"])
                                            for j, a in enumerate(outs)})
            meta = dict(doc=v["extra"]["doc"], outputs=v["names"], runs=len(v["runs"]),
                        reset_before=v["extra"].get("reset_before"), ov_shapes=v["ov_shapes"],
                        state=v["state"])
            (d / "meta.json").write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")
            shapes = [[list(a.shape) for a in outs] for outs in v["outputs"]]
            print(f"{case}: ok, output shapes per run {shapes}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
