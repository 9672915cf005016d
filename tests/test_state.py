"""ReadValue/Assign (3 and 6): variables that persist across ``Model.run`` calls, against OpenVINO.

The fixtures (tools/fixtures/make_subgraph_fixtures.py) record what several successive inferences on ONE
OpenVINO infer request return, and what the next one returns after ``reset_state()``; replaying
them on one irrun Model object must give the same. ``Model.state`` mirrors ``query_state``.
"""
from __future__ import annotations

import numpy as np
import pytest
from lxml import etree
from subgraph_cases import CASES, copy_case, load, replay

import irrun
from irrun.analysis.check import LOADS_BUT_FAILS
from irrun import check as check_model
from irrun.errors import InputError, ShapeError
from irrun.runtime.step import StepKind

STATE_CASES = [c for c in CASES if c.startswith("state_")]


@pytest.mark.parametrize("case", STATE_CASES)
def test_successive_runs_and_reset_match_openvino(case):
    replay(case)


@pytest.mark.parametrize("case", STATE_CASES)
def test_state_after_the_runs_has_openvinos_shapes(case):
    c = load(case)
    model = replay(case)
    assert {k: list(v.shape) for k, v in model.state.items()} == c.meta["state"]


def test_assign_is_kept_although_nothing_reads_it():
    model = irrun.read_model(load("state_zeros").xml)
    assert "Assign" in [model.graph.nodes[n]["layer"].type for n in model.order]


def test_the_state_mapping():
    c = load("state_kv_cache")
    model = irrun.read_model(c.xml)
    state = model.state
    assert list(state) == ["kv"] and len(state) == 1 and not state.is_set("kv")
    v = state["kv"]                                  # as query_state shows it before any run
    assert v.dtype == np.float32 and v.shape == (0, 4)
    x = np.ones((2, 4), np.float32)
    model.run({"x": x})
    model.run({"x": 2 * x})
    assert state.is_set("kv")
    np.testing.assert_array_equal(state["kv"], [[1] * 4] * 2 + [[2] * 4] * 2)
    state["kv"] = np.full((1, 4), 7, np.float32)     # set a value: the next run starts from it
    cat, total = model.run({"x": x}).values()
    np.testing.assert_array_equal(cat, [[7] * 4, [1] * 4, [1] * 4])
    np.testing.assert_array_equal(total, [9] * 4)
    del state["kv"]                                  # reset one variable
    assert not state.is_set("kv")
    cat, _ = model.run({"x": x}).values()
    assert cat.shape == (2, 4)                       # zeros [0,4] + x again
    model.reset_state()
    assert not state.is_set("kv")


def test_the_state_has_the_whole_mapping_api():
    """``values()`` and ``items()`` read like ``state[id]`` (a ``values`` attribute once hid the
    Mapping method: ``state.values()`` raised TypeError)."""
    model = irrun.read_model(load("state_kv_cache").xml)
    x = np.ones((2, 4), np.float32)
    model.run({"x": x})
    vals = list(model.state.values())
    assert len(vals) == 1 and vals[0].shape == (2, 4)
    np.testing.assert_array_equal(vals[0], model.state["kv"])
    assert [k for k, _ in model.state.items()] == ["kv"]


def test_setting_a_variable_is_checked():
    model = irrun.read_model(load("state_kv_cache").xml)
    with pytest.raises(InputError, match='variable "kv" holds f32'):
        model.state["kv"] = np.zeros((1, 4), np.float64)
    with pytest.raises(InputError, match=r'variable "kv" has shape \[\?,4\]'):
        model.state["kv"] = np.zeros((1, 3), np.float32)
    with pytest.raises(KeyError, match='no variable "nope"'):
        model.state["nope"]
    v3 = irrun.read_model(load("state_v3").xml)      # ReadValue-3: the init's type and shape
    with pytest.raises(InputError, match=r"has shape \[2,4\]"):
        v3.state["v3"] = np.zeros((3, 4), np.float32)
    v3.state["v3"] = a = np.ones((2, 4), np.float32)
    a[:] = 5                                         # the model keeps its own copy
    y, = v3.run({"x": np.zeros((2, 4), np.float32)}).values()
    np.testing.assert_array_equal(y, np.ones((2, 4)))


def test_a_failed_run_leaves_the_state_alone():
    model = irrun.read_model(load("state_zeros").xml)
    x = np.ones((2, 4), np.float32)
    model.run({"x": x})
    before = model.state["v"].copy()

    def fail(step, args, outs, seconds):
        if step.kind is StepKind.RESULT:
            raise RuntimeError("stop")
    with pytest.raises(RuntimeError):
        model.run({"x": x}, observe=fail)
    np.testing.assert_array_equal(model.state["v"], before)
    model.run({"x": x}, stop_at=3)                  # a debugging run up to the Assign: no commit
    np.testing.assert_array_equal(model.state["v"], before)


def test_a_readvalue_without_assign_is_refused(tmp_path):
    """OpenVINO reads it, its CPU plugin refuses to compile it (generator docstring)."""
    xml = copy_case("state_zeros", tmp_path)
    root = etree.parse(str(xml)).getroot()
    layers, edges = root.find("layers"), root.find("edges")
    layers.remove(layers.find("layer[@id='3']"))                  # the Assign
    edges.remove(edges.find("edge[@to-layer='3']"))
    xml.write_bytes(etree.tostring(root))
    fs = [f for f in check_model(xml) if f.severity == "error"]
    assert [(f.code, f.layer_id) for f in fs] == [("loads-but-fails", "1")]
    assert fs[0].message.startswith(LOADS_BUT_FAILS)
    assert 'variable "v" is read by 1 ReadValue and written by 0 Assign layers' in fs[0].message
    with pytest.raises(ShapeError, match="doesn't have sibling output") as e:
        irrun.read_model(xml).run({"x": np.ones((2, 4), np.float32)})
    assert e.value.openvino_loads


@pytest.mark.parametrize("vtype, vshape, want", [
    ("dynamic", "...", "f32[2,?]"),   # a fully dynamic variable: the init's type and shape
    ("dynamic", "?,?", "dynamic[?,?]"),
    ("f32", "...", "f32[...]"),
])
def test_readvalue6_output_type_as_openvino_infers_it(tmp_path, vtype, vshape, want):
    """Measured with openvino 2026.4 (opset6.read_value on a Parameter f32[2,?]): only a variable
    whose type AND shape are fully dynamic takes its init's; any declared part is kept as is."""
    from irrun.ir.builder import IRWriter
    b = IRWriter("rv6")
    x = b.parameter("x", "f32", [2, -1])
    rv = b.layer("ReadValue", [x], {"variable_id": "v", "variable_type": vtype, "variable_shape": vshape},
                 version="opset6")
    b.layer("Assign", [rv], {"variable_id": "v"}, version="opset6")
    b.result(rv, "y")
    b.save(tmp_path / "m.xml")
    m = irrun.read_model(tmp_path / "m.xml")
    (n,) = [n for n in m.order if m.graph.nodes[n]["layer"].type == "ReadValue"]
    assert str(m.types()[(n, 0)]) == want


def test_layers_computing_only_an_initial_value_are_skipped_once_it_is_set(tmp_path, monkeypatch):
    """ReadValue-6 reads its ``init`` only while the variable is unset (the spec): the layers that
    compute nothing else (an LLM's zeros of the KV cache's shape, every decode step) are skipped
    by a run whose variables are set, and run again after ``reset_state``. A layer that also
    feeds something else (ShapeOf here, also a model output) runs always. Expected values: the
    spec's ReadValue/Assign semantics written in NumPy."""
    from irrun.ir.builder import IRWriter
    from irrun.ops import broadcast

    b = IRWriter("lazy_init")
    x = b.parameter("x", "f32", [1, -1])
    shape = b.layer("ShapeOf", [x], {"output_type": "i64"}, version="opset3")
    init = b.layer("Broadcast", [b.const(np.array(0.5, np.float32)), shape], {"mode": "numpy"}, version="opset3")
    rv = b.layer("ReadValue", [init], {"variable_id": "v", "variable_type": "f32", "variable_shape": "1,?"},
                 version="opset6")
    y = b.layer("Concat", [rv, x], {"axis": 1})
    b.layer("Assign", [y], {"variable_id": "v"}, version="opset6")
    b.result(y, "y")
    b.result(shape, "shape")
    model = irrun.read_model(b.save(tmp_path / "m.xml"))
    calls = []
    run = broadcast.Broadcast3.run
    monkeypatch.setattr(broadcast.Broadcast3, "run", lambda op, *a, **k: calls.append(1) or run(op, *a, **k))
    xs = [np.arange(n, dtype=np.float32)[None] + 10 * n for n in (2, 3, 1)]
    want = np.full((1, 2), 0.5, np.float32)
    for i, x1 in enumerate(xs):                     # unset, then set twice
        want = np.concatenate([want, x1], axis=1) if i else np.concatenate([np.full((1, 2), 0.5, np.float32), x1], axis=1)
        got = model.run({"x": x1})
        np.testing.assert_array_equal(got["y"], want)
        np.testing.assert_array_equal(got["shape"], [1, x1.shape[1]])
        assert len(calls) == 1, i                   # the zeros: at the first run only
    model.reset_state()
    got = model.run({"x": xs[1]})
    np.testing.assert_array_equal(got["y"], np.concatenate([np.full((1, 3), 0.5, np.float32), xs[1]], axis=1))
    assert len(calls) == 2
