"""The one loop every run goes through (irrun/runtime/loop.py), with and without an observer:
an observer (irrun/runtime/observation.py) sees the steps but changes nothing of the run — the
same outputs bit for bit, and the same memory-budget decision (the same refusal, at the same
layer, with the same bytes) at every limit. A plan sets its values before the loop runs
(``Plan.preset``: they count nothing) unless it is made for an observer (``Plan.every_layer``),
and checks static outputs by their whole shape (``Step.expect``)."""
from __future__ import annotations

import dataclasses
import warnings
from pathlib import Path

import numpy as np
import pytest

import irrun
from irrun.analysis.contract import output_specs, outputs_fit, outputs_match
from irrun.limits import memory as budget
from irrun.runtime.loop import RunContext, execute
from irrun.runtime.plan import Plan
from irrun.runtime.step import StepKind
from irrun.types.elements import from_dtype
from irrun.types.shapes import Dim, PartialShape
from irrun.types.tensor_info import TensorInfo

ZOO = Path(__file__).parent / "fixtures" / "zoo"
CASES = ["gpt2_fp32", "gpt2_sdpa_fp16", "dynamic_cnn_fp32", "bert_fp32", "lstm_gru_fp32"]


def _model_and_feeds(case: str):
    model = irrun.read_model(ZOO / case / "model.xml")
    with np.load(ZOO / case / "inputs.npz") as f:
        inputs = {k: f[k] for k in f.files}
    model.run(inputs)                                     # makes the shared plan
    feeds = model._feeds(inputs)
    steps = [v for k, v in model.program.plans.items() if k[-1]][-1]     # the run's plan
    return model, steps, feeds, inputs


def _outcome(model, steps, feeds, limit: int, observe) -> tuple:
    """(error text or None, the outputs, the live bytes left) of one run at ``limit``."""
    with budget.limit(limit), budget.live_scope() as live:
        try:
            out = execute(steps, feeds, model.path, observe, RunContext(dict(model.state.held)))
        except budget.MemoryBudgetError as e:
            return str(e), None, None
    return None, out, live.total


class _Counting:
    """Counts the steps it is shown; keeps no array (so the same in-place writes happen)."""
    keeps_arrays = False

    def __init__(self):
        self.steps = []

    def __call__(self, step, inputs, outputs, seconds):
        assert seconds >= 0 and (len(outputs) == len(step.infos) or step.kind is not StepKind.OP)
        self.steps.append(step)
        return None


@pytest.mark.parametrize("case", CASES)
def test_an_observer_changes_nothing_of_the_run_or_its_account(case):
    model, steps, feeds, _ = _model_and_feeds(case)
    assert isinstance(steps, Plan) and steps.preset and len(steps.loop) < len(steps)
    seen = _Counting()
    _, ref, _ = _outcome(model, steps, feeds, budget.current(), seen)
    assert [s.node for s in seen.steps] == [s.node for s in steps.loop]     # every step it runs
    err, got, _ = _outcome(model, steps, feeds, budget.current(), None)
    assert err is None and list(got) == list(ref)
    for k in ref:
        assert got[k].dtype == ref[k].dtype and got[k].shape == ref[k].shape
        np.testing.assert_array_equal(got[k], ref[k])
    limits = sorted({1, 64, 1000, 1 << 14, 1 << 17, 1 << 20, 1 << 23}
                    | {int(v) for v in np.geomspace(16, 1 << 24, 24)})
    refused = 0
    for limit in limits:
        want = _outcome(model, steps, feeds, limit, _Counting())
        have = _outcome(model, steps, feeds, limit, None)
        assert have[0] == want[0], limit               # same refusal text: layer and bytes
        assert have[2] == want[2], limit               # same live bytes left after a whole run
        refused += want[0] is not None
    assert 0 < refused < len(limits)                   # the scan saw both answers


@pytest.mark.parametrize("case", ["gpt2_fp32", "lstm_gru_fp32"])
def test_a_plan_for_an_observer_shows_every_layer(case):
    """``Model.run(observe=)`` plans for the observer: its loop is every step, the folded layers
    (CONST, with their values) too, and no lazy output is skipped; the outputs are the same."""
    model, shared, _, inputs = _model_and_feeds(case)
    seen = _Counting()
    observed = model.run(inputs, observe=seen)
    plan = [v for k, v in model.program.plans.items() if not k[-1]][-1]
    assert plan.every_layer and not shared.every_layer and not plan.preset
    assert plan.loop == plan.steps and [s.node for s in seen.steps] == [s.node for s in plan]
    assert any(s.kind is StepKind.CONST for s in seen.steps) and not any(s.skip for s in plan)
    plain = model.run(inputs)
    assert list(observed) == list(plain)
    for k in plain:
        np.testing.assert_array_equal(observed[k], plain[k])


def test_the_plans_values_are_shared_read_only_and_count_nothing():
    """Values a plan holds (Consts, folded ShapeOf chains, cached constants) are shared by every
    run: read-only, so no run writes into them and the live account counts none of them; the
    loop finds them all set first (the plan's own immutable ``preset``), and the ports a folded
    layer was the last to read are freed by the step before it."""
    folded = 0
    for case in CASES:
        _, steps, _, _ = _model_and_feeds(case)
        assert [s.node for s in steps.loop] == [s.node for s in steps if s.kind is not StepKind.CONST]
        assert {p for s in steps if s.kind is StepKind.CONST for _, p in s.puts} == set(steps.preset)
        frees = sorted(r for s in steps for r in s.frees)
        assert sorted(r for s in steps.loop for r in s.frees) == frees      # each freed once
        for s in steps:
            if s.kind is StepKind.CONST:
                for v in s.values:
                    assert type(v) is not np.ndarray or not v.flags.writeable or v.base is not None
                folded += bool(s.reads)
        with pytest.raises(TypeError):
            steps.preset[next(iter(steps.preset))] = None          # type: ignore[index]
        with pytest.raises(dataclasses.FrozenInstanceError):
            steps.every_layer = True                               # type: ignore[misc]
    assert folded                                       # (folded layers are among them)


def _info(dtype, dims) -> TensorInfo:
    return TensorInfo(from_dtype(np.dtype(dtype)), PartialShape(dims))


@pytest.mark.parametrize("dims", [[2, 3], [1, Dim(0, None), 4], [Dim(2, 5)], [Dim(0, None)], [], [7]])
def test_the_cheap_output_check_agrees_with_the_partial_shape(dims):
    info = _info("float32", dims)
    specs = output_specs([info])
    for shape in [(2, 3), (1, 0, 4), (1, 9, 4), (1, 9, 5), (2,), (5,), (6,), (0,), (), (7,), (2, 3, 1)]:
        a = np.zeros(shape, np.float32)
        assert outputs_fit([a], specs) == info.shape.accepts(shape), (dims, shape)
        assert not outputs_fit([a.astype(np.float64)], specs)
        if info.shape.is_static:
            assert outputs_match([a], ((np.dtype(np.float32), info.shape.to_tuple()),)) == \
                info.shape.accepts(shape)
    assert not outputs_fit([np.float32(0)], specs) and not outputs_fit([], specs)


def test_a_run_holds_one_errstate_that_the_kernels_reuse(tmp_path):
    """Float math gives OpenVINO's silent IEEE results (inf, NaN) with no NumPy warning, inside a
    run (one errstate for all kernels) and outside it (each kernel enters its own)."""
    from irrun.ir.builder import IRWriter
    from irrun.ops._numerics import quiet, quiet_run
    w = IRWriter()
    x = w.parameter("x", "f32", [-1])
    y = w.layer("Divide", [w.layer("Multiply", [x, x]), w.const(np.zeros(1, np.float32))])
    w.result(w.layer("ReduceMean", [y, w.const(np.array([0], np.int64))], {"keep_dims": False}), "y")
    model = irrun.read_model(w.save(tmp_path / "m.xml"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = model.run({"x": np.array([1e30, -1e30, 0], np.float32)})["y"]
        assert np.isnan(got)                          # inf + inf + nan, averaged
        assert np.isnan(per_step := model.run({"x": np.array([1e30, 0], np.float32)},
                                              observe=lambda *a: None)["y"])
    assert type(quiet()) is np.errstate
    with quiet_run():
        assert np.geterr() == {"divide": "ignore", "over": "ignore", "under": "ignore", "invalid": "ignore"}
        assert type(quiet()) is not np.errstate
    assert np.geterr()["divide"] == "warn" and per_step.dtype == np.float32


def test_a_folded_output_cannot_be_changed_for_the_next_run(tmp_path):
    """A model output that shape inference folded is the plan's value, shared by every run:
    handed out read-only, so a caller writing into it cannot change what the next run returns."""
    from irrun.ir.builder import IRWriter
    w = IRWriter()
    x = w.parameter("x", "f32", [2, 3])
    w.result(w.layer("ShapeOf", [x], {"output_type": "i64"}, version="opset3"), "shape")
    model = irrun.read_model(w.save(tmp_path / "m.xml"))
    got = model.run({"x": np.zeros((2, 3), np.float32)})["shape"]
    assert got.tolist() == [2, 3] and not got.flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        got[0] = 7
    assert model.run({"x": np.ones((2, 3), np.float32)})["shape"].tolist() == [2, 3]
