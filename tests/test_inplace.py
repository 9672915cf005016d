"""In-place execution (Op.inplace / fresh_outputs, chosen by the executor's planner) never changes
what anybody can see: a tensor read by two layers, a view of a fresh tensor still to be read, the
caller's input array, a Const, a model output, a variable's stored value, an observer's kept
arrays. Expected values are plain NumPy formulas of the inputs; each case also checks what the
planner decided, so that the case exercises the rule it is named after."""
from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
import pytest

import irrun
from irrun.runtime.plan import plan
from irrun.ir.builder import IRWriter

X = np.array([[-2.0, -0.5, 0.0, 1.5], [3.0, -4.0, 0.25, -1.0]], np.float32)
C = np.array([[1.0, 2.0, -3.0, 0.5], [-1.0, 1.0, 1.0, 2.0]], np.float32)


def build(b: IRWriter) -> irrun.Model:
    return irrun.read_model(b.save(Path(tempfile.mkdtemp()) / "m.xml"))


def steps(model: irrun.Model) -> dict[str, object]:
    """The plan's steps keyed by layer name (the Results are named after their outputs)."""
    g = model.graph
    out = {g.nodes[s.node]["layer"].name: s for s in plan(g, model.order, model.ops, model.types())}
    assert len(out) == len(model.order), "layer names must be unique"
    return out


def test_a_chain_runs_in_place_and_right():
    b = IRWriter()
    x = b.parameter("x", "f32", [2, 4])
    t = b.layer("Add", [x, b.const(C)], name="t")
    r = b.layer("ReLU", [t], name="r")
    b.result(b.layer("Negative", [r], name="n"), "y")
    m = build(b)
    s = steps(m)
    assert s["t"].inplace is None                       # its inputs: the caller's x and a Const
    assert s["r"].inplace == (s["t"].node, 0)
    assert s["n"].inplace == (s["r"].node, 0)
    x = X.copy()
    np.testing.assert_array_equal(m.run({"x": x})["y"], -np.maximum(X + C, 0))
    np.testing.assert_array_equal(x, X)                  # the caller's array is untouched


def test_a_tensor_read_twice_is_overwritten_only_by_its_last_reader():
    b = IRWriter()
    t = b.layer("Add", [b.parameter("x", "f32", [2, 4]), b.const(C)], name="t")
    b.result(b.layer("ReLU", [t], name="first"), "a")
    b.result(b.layer("Negative", [t], name="second"), "b")
    m = build(b)
    s = steps(m)
    assert s["first"].inplace is None and s["second"].inplace == (s["t"].node, 0)
    for _ in range(2):
        out = m.run({"x": X})
        np.testing.assert_array_equal(out["a"], np.maximum(X + C, 0))
        np.testing.assert_array_equal(out["b"], -(X + C))


def test_a_view_read_later_protects_its_base():
    """t -> Reshape (a view of t) and t -> ReLU; the view is read after the ReLU."""
    b = IRWriter()
    t = b.layer("Add", [b.parameter("x", "f32", [2, 4]), b.const(C)], name="t")
    v = b.layer("Reshape", [t, b.const(np.array([4, 2]))], {"special_zero": False}, name="view")
    r = b.layer("ReLU", [t], name="r")
    back = b.layer("Reshape", [v, b.const(np.array([2, 4]))], {"special_zero": False}, name="back")
    b.result(b.layer("Add", [back, r], name="sum"), "y")
    m = build(b)
    s = steps(m)
    assert s["r"].inplace is None
    np.testing.assert_array_equal(m.run({"x": X})["y"], (X + C) + np.maximum(X + C, 0))


def test_views_of_the_input_and_consts_are_never_written():
    b = IRWriter()
    v = b.layer("Reshape", [b.parameter("x", "f32", [2, 4]), b.const(np.array([4, 2]))],
                {"special_zero": False}, name="view")
    cv = b.layer("Reshape", [b.const(C), b.const(np.array([4, 2]))], {"special_zero": False})
    b.result(b.layer("ReLU", [v], name="r"), "a")
    b.result(b.layer("Add", [cv, b.layer("Sigmoid", [v])], name="add"), "b")
    m = build(b)
    s = steps(m)
    assert s["r"].inplace is None and s["add"].inplace != (s["view"].node, 0)
    x = X.copy()
    for _ in range(2):
        out = m.run({"x": x})
        np.testing.assert_array_equal(out["a"], np.maximum(X, 0).reshape(4, 2))
        np.testing.assert_allclose(out["b"], C.reshape(4, 2) + 1 / (1 + np.exp(-X.reshape(4, 2))), rtol=1e-6)
    np.testing.assert_array_equal(x, X)


def test_a_model_output_is_not_overwritten_by_a_later_reader():
    b = IRWriter()
    t = b.layer("Add", [b.parameter("x", "f32", [2, 4]), b.const(C)], name="t")
    b.result(t, "out_t")
    b.result(b.layer("ReLU", [t], name="r"), "out_r")
    m = build(b)
    assert steps(m)["r"].inplace is None
    out = m.run({"x": X})
    np.testing.assert_array_equal(out["out_t"], X + C)
    np.testing.assert_array_equal(out["out_r"], np.maximum(X + C, 0))


def test_a_variable_keeps_what_assign_stored():
    b = IRWriter()
    rv = b.layer("ReadValue", [], {"variable_id": "v", "variable_type": "f32", "variable_shape": "2,4"},
                 version="opset6", name="read")
    t = b.layer("Add", [b.parameter("x", "f32", [2, 4]), b.const(C)], name="t")
    b.layer("Assign", [t], {"variable_id": "v"}, version="opset6", name="assign")
    b.result(b.layer("ReLU", [t], name="r"), "out_r")
    b.result(rv, "state")
    m = build(b)
    s = steps(m)
    assert s["r"].inplace is None
    assert list(s).index("assign") < list(s).index("r")     # ReLU is t's last reader
    np.testing.assert_array_equal(m.run({"x": X})["out_r"], np.maximum(X + C, 0))
    np.testing.assert_array_equal(m.run({"x": X})["state"], X + C)


def test_a_kept_array_of_an_observer_is_not_overwritten(tmp_path):
    b = IRWriter()
    t = b.layer("Add", [b.parameter("x", "f32", [2, 4]), b.const(C)], name="t")
    b.result(b.layer("ReLU", [t], name="r"), "y")
    m = build(b)
    from irrun.debug import trace
    tr = trace(m, {"x": X})
    kept = {r.name: r.arrays[0] for r in tr.layers if r.arrays}
    np.testing.assert_array_equal(kept["t"], X + C)
    np.testing.assert_array_equal(kept["r"], np.maximum(X + C, 0))


@pytest.mark.parametrize("op, want", [("ReLU", np.maximum(X + C, 0)), ("Sigmoid", 1 / (1 + np.exp(-(X + C))))])
def test_the_result_is_the_same_with_and_without_in_place(op, want):
    b = IRWriter()
    t = b.layer("Add", [b.parameter("x", "f32", [2, 4]), b.const(C)], name="t")
    b.result(b.layer(op, [t], name="op"), "y")
    m = build(b)
    assert steps(m)["op"].inplace is not None
    np.testing.assert_allclose(m.run({"x": X})["y"], want, rtol=1e-6)
    np.testing.assert_allclose(m.run({"x": X}, observe=lambda *a: None)["y"], want, rtol=1e-6)


def test_unread_maxpool_indices_are_skipped_and_read_ones_computed():
    x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
    attrs = {"strides": [2, 2], "pads_begin": [0, 0], "pads_end": [0, 0], "kernel": [2, 2]}
    for read_indices in (False, True):
        b = IRWriter()
        vals, idx = b.layer("MaxPool", [b.parameter("x", "f32", [1, 1, 4, 4])], attrs, version="opset8",
                            n_out=2, out_precision="FP32", name="pool")
        b.result(vals, "v")
        if read_indices:
            b.result(idx, "i")
        m = build(b)
        assert steps(m)["pool"].skip == (frozenset() if read_indices else frozenset({1}))
        out = m.run({"x": x})
        np.testing.assert_array_equal(out["v"], [[[[5, 7], [13, 15]]]])
        if read_indices:
            np.testing.assert_array_equal(out["i"], [[[[5, 7], [13, 15]]]])
