"""What a Program keeps across runs (irrun/runtime/program.py), each proven equal to computing it anew:
constants computed once per model (bit for bit the per-run values), compressed tables gathered
row-wise (bit for bit the unfused Gather), one plan reused across input shapes (the outputs of a
plan made for the very shapes), and the memory budget honoured on all three paths.

The per-run / per-shape reference is ``model.run(..., observe=...)``: debug runs plan for the
concrete shapes and run every layer, constants included (the behaviour before this cache)."""
from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest
from subgraph_cases import CASES as SUBGRAPH_CASES
from subgraph_cases import load as load_subgraph

import irrun
import irrun.analysis.inference
from irrun.ir.builder import IRWriter
from irrun.limits import memory as budget
from irrun.limits.memory import MemoryBudgetError
from irrun.runtime.loop import execute
from irrun.runtime.program import RowGather
from irrun.runtime.step import StepKind

FIXTURES = Path(__file__).parent / "fixtures"
COMPRESSED = sorted(p.name for p in (FIXTURES / "compressed").iterdir() if (p / "meta.json").exists())
ZOO = sorted(p.name for p in (FIXTURES / "zoo").iterdir() if (p / "model.xml").exists())


def _dynamic(case: str) -> bool:
    """Does the zoo model declare an input with a dynamic dim (so one plan serves several shapes)?"""
    return any(not p.shape.is_static for p in irrun.read_model(FIXTURES / "zoo" / case / "model.xml").inputs)


DYNAMIC_ZOO = [c for c in ZOO if _dynamic(c)]


@pytest.fixture
def unfolded(monkeypatch):
    """Small test tables would be folded by shape inference (irrun.analysis.inference.FOLD_LIMIT) and never
    reach the executor; with folding off they take the path of real-size weights."""
    monkeypatch.setattr(irrun.analysis.inference, "FOLD_LIMIT", 0)


def per_run(model: irrun.Model, inputs: dict) -> dict:
    """The outputs computed without the program's constants or shared plan."""
    return model.run(inputs, observe=lambda *a: None)


def assert_same(a: dict, b: dict) -> None:
    assert list(a) == list(b) and a
    for k in a:
        assert a[k].dtype == b[k].dtype and a[k].shape == b[k].shape, k
        np.testing.assert_array_equal(a[k], b[k], err_msg=k)     # bit for bit (NaN == NaN)


def steps_of(model: irrun.Model) -> list:
    (steps,) = [v for k, v in model._plans.items() if k[0] == "declared shapes"]
    return steps


@pytest.mark.parametrize("case", COMPRESSED)
def test_cached_constants_equal_per_run_ones_bit_for_bit(case, unfolded):
    d = FIXTURES / "compressed" / case
    model = irrun.read_model(d / "model.xml")
    with np.load(d / "inputs.npz") as f:
        inputs = {k: f[k] for k in f.files}
    first = model.run(inputs)
    assert model.program.constants or any(isinstance(s.op, RowGather) for s in steps_of(model))
    # no constant layer runs any more: the decompression chain is gone from the plan
    assert not [s for s in steps_of(model) if s.kind is StepKind.OP and s.constant]
    assert all(not a.flags.writeable for a in model.program.constants.values())
    assert_same(first, per_run(model, inputs))
    assert_same(model.run(inputs), first)                  # and again, from the cache


def _u4(codes: np.ndarray) -> bytes:
    flat = codes.reshape(-1).astype(np.uint8)
    flat = np.concatenate([flat, np.zeros(len(flat) % 2, np.uint8)])
    return (flat[0::2] | (flat[1::2] << 4)).tobytes()


def embedding_model(tmp_path: Path, kind: str) -> Path:
    """An LLM embedding: a compressed table decompressed (int4 grouped [N, G, gs] -> Reshape
    [N, G*gs], u4 zero point; or int8 per row, no zero point), f16 scales, then Gather."""
    rng = np.random.default_rng(1)
    n, g, gs = 10, 3, 4
    w = IRWriter()
    ids = w.parameter("ids", "i64", [1, -1])
    scale = w.const((rng.random((n, g, 1) if kind == "int4" else (n, 1)) * 0.1 + 0.01).astype(np.float16))
    if kind == "int4":
        codes = w.const(None, "u4", _u4(rng.integers(0, 16, (n, g, gs))), (n, g, gs))
        zp = w.const(None, "u4", _u4(rng.integers(0, 16, (n, g, 1))), (n, g, 1))
        x = w.layer("Subtract", [w.layer("Convert", [codes], {"destination_type": "f16"}),
                                 w.layer("Convert", [zp], {"destination_type": "f16"})])
        x = w.layer("Multiply", [x, scale])
        x = w.layer("Reshape", [x, w.const(np.array([n, g * gs], np.int64))], {"special_zero": False})
    else:
        codes = w.const(rng.integers(-128, 128, (n, g * gs)).astype(np.int8))
        x = w.layer("Multiply", [w.layer("Convert", [codes], {"destination_type": "f16"}), scale])
    table = w.layer("Convert", [x], {"destination_type": "f32"})
    y = w.layer("Gather", [table, ids, w.const(np.int64(0))], version="opset8", attrs={"batch_dims": 0})
    w.result(y, "y")
    return w.save(tmp_path / f"{kind}.xml")


@pytest.mark.parametrize("kind", ["int4", "int8"])
def test_a_compressed_embedding_is_gathered_row_wise(tmp_path, kind, unfolded):
    model = irrun.read_model(embedding_model(tmp_path, kind))
    for ids in ([[3]], [[0, 9, 4, 4]], [[-1, 10, -11, 2]], np.zeros((1, 0), np.int64)):
        feeds = {"ids": np.array(ids, np.int64)}
        got = model.run(feeds)
        assert_same(got, per_run(model, feeds))
        if np.size(ids) == 4 and min(np.ravel(ids)) < 0:       # out of range gives 0 rows
            assert not got["y"][0, 1].any() and not got["y"][0, 2].any() and got["y"][0, 0].any()
    (fused,) = [s for s in steps_of(model) if isinstance(s.op, RowGather)]
    # nothing of the table's size is kept: only the compressed Consts (views of the .bin)
    assert not model.program.constants
    assert [s.op.type for s, _, _ in fused.op.rows.chain][-1] == "Convert"


def two_weights_model(tmp_path: Path) -> Path:
    """x @ W1 and x @ W2, each W a u8 -> f16 -> (w - zp) * scale -> f32 chain of 96 bytes."""
    rng = np.random.default_rng(2)
    w = IRWriter()
    x = w.parameter("x", "f32", [-1, 8])
    for name in ("a", "b"):
        q = w.layer("Convert", [w.const(rng.integers(0, 256, (3, 8)).astype(np.uint8))],
                    {"destination_type": "f16"})
        q = w.layer("Subtract", [q, w.const(np.full((3, 1), 128, np.float16))])
        q = w.layer("Multiply", [q, w.const((rng.random((3, 1)) * 0.01).astype(np.float16))])
        q = w.layer("Convert", [q], {"destination_type": "f32"})
        w.result(w.layer("MatMul", [x, q], {"transpose_a": False, "transpose_b": True}), name)
    return w.save(tmp_path / "m.xml")


def test_constants_over_the_budget_are_recomputed_per_run_and_said_once(tmp_path, unfolded):
    model = irrun.read_model(two_weights_model(tmp_path))
    feeds = {"x": np.random.default_rng(0).random((1, 8), np.float32)}
    want = per_run(model, feeds)
    with pytest.warns(RuntimeWarning, match="1 constant tensor.* do not fit the memory budget"):
        got = model.run(feeds, max_memory=180)
    assert_same(got, want)
    assert model.program.constant_bytes == 96 and len(model.program.constants) == 1
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert_same(model.run(feeds, max_memory=180), want)      # no second warning
        assert_same(model.run(feeds), want)
    with pytest.raises(MemoryBudgetError, match="budget of 95 bytes"):   # each W is over it
        model.run(feeds, max_memory=95)
    assert model.program.constant_bytes == 0                     # what was kept is dropped


def _zoo_sets(d: Path):
    i = 1
    while (d / f"inputs{'' if i == 1 else f'_{i}'}.npz").exists():
        with np.load(d / f"inputs{'' if i == 1 else f'_{i}'}.npz") as f:
            yield {k: f[k] for k in f.files}
        i += 1


@pytest.mark.parametrize("case", DYNAMIC_ZOO)
def test_one_plan_serves_every_shape_like_a_fresh_plan(case):
    d = FIXTURES / "zoo" / case
    model = irrun.read_model(d / "model.xml")
    sets = list(_zoo_sets(d))
    for inputs in sets:
        assert_same(model.run(inputs), per_run(model, inputs))
    shared = model._plans[("declared shapes", True)]
    unguarded = [s.op.type for s in shared if s.kind is StepKind.OP and s.hi > budget.current()
                 and not s.op.allocation]
    # a layer that could pass the budget unchecked (Convolution, LSTMSequence...) makes each
    # shape get its own plan; otherwise the shared plan is all there is
    assert [k for k in model._plans if k[-1]] == [("declared shapes", True)] or unguarded
    assert unguarded or case.split("_")[0] not in ("dynamic", "lstm")


def test_a_growing_state_reuses_one_plan():
    case = load_subgraph("state_kv_cache")
    a, b = irrun.read_model(case.xml), irrun.read_model(case.xml)
    for r, feeds in enumerate(case.runs):
        if r == case.meta["reset_before"]:
            a.reset_state()
            b.reset_state()
        assert_same(a.run(feeds), per_run(b, feeds))
        assert {k: v.tolist() for k, v in a.state.items()} == {k: v.tolist() for k, v in b.state.items()}
    assert [k for k in a._plans if k[-1]] == [("declared shapes", True)]
    assert "state_kv_cache" in SUBGRAPH_CASES


def test_the_shared_plan_guards_the_budget_at_run_time(tmp_path):
    """[?] u8 -> f32: the output's size is unbounded at plan time, checked before the call."""
    w = IRWriter()
    x = w.parameter("x", "u8", [-1])
    w.result(w.layer("Convert", [x], {"destination_type": "f32"}), "y")
    model = irrun.read_model(w.save(tmp_path / "m.xml"))
    assert model.run({"x": np.arange(10, dtype=np.uint8)})["y"].dtype == np.float32
    steps = steps_of(model)
    with budget.limit(39), pytest.raises(MemoryBudgetError, match="Convert"):
        execute(steps, {model.program.params[0]: np.zeros(10, np.uint8)}, model.path)
    with pytest.raises(MemoryBudgetError, match="memory budget"):
        model.run({"x": np.zeros(10, np.uint8)}, max_memory=39)
    # 50: the run holds its input (10 bytes) beside the output (40): the live-tensor bound
    assert model.run({"x": np.zeros(10, np.uint8)}, max_memory=50)["y"].shape == (10,)


def test_index_and_scan_ops_of_decoder_llms_reuse_the_shared_plan(tmp_path):
    """CumSum, GatherElements, GatherND and Roll (bloom, gptj, glm/helium, lfm2 decoders) bound
    their outputs (``Op.allocation``), so inputs of a new length reuse the plan made from the
    declared shapes, as every decode step would, instead of a plan (shape inference and
    planning: ~25 ms for a 2-layer model) per step. Values: the spec formulas in NumPy."""
    w = IRWriter()
    x = w.parameter("x", "f32", [1, -1])
    gather_idx = w.parameter("ie", "i64", [1, -1])
    nd_idx = w.parameter("ind", "i64", [-1, 2])
    one = w.const(np.array(1, np.int64))
    w.result(w.layer("CumSum", [x, one], version="opset3"), "cumsum")
    w.result(w.layer("GatherElements", [x, gather_idx], {"axis": 1}, version="opset6"), "elements")
    w.result(w.layer("GatherND", [x, nd_idx], {"batch_dims": 0}, version="opset8"), "nd")
    w.result(w.layer("Roll", [x, one, one], version="opset7"), "roll")
    model = irrun.read_model(w.save(tmp_path / "m.xml"))
    rng = np.random.default_rng(0)
    for n in (5, 9, 12):
        xs = rng.standard_normal((1, n)).astype(np.float32)
        ie = rng.integers(0, n, (1, n + 2))
        ind = np.stack([np.zeros(3, np.int64), rng.integers(0, n, 3)], axis=1)
        got = model.run({"x": xs, "ie": ie, "ind": ind})
        np.testing.assert_array_equal(got["cumsum"], np.cumsum(xs, axis=1))
        np.testing.assert_array_equal(got["elements"], np.take_along_axis(xs, ie, axis=1))
        np.testing.assert_array_equal(got["nd"], xs[ind[:, 0], ind[:, 1]])
        np.testing.assert_array_equal(got["roll"], np.roll(xs, 1, axis=1))
    assert [k for k in model._plans if k[-1]] == [("declared shapes", True)]


def test_a_gather_nd_output_over_the_budget_is_refused_by_the_shared_plan(tmp_path):
    """GatherND's output can hold more elements than its inputs ([1000, 1] indices into a
    [1000, 1000] table row by row): its kernel checks the budget before allocating."""
    w = IRWriter()
    x = w.parameter("x", "f32", [-1, -1])
    ind = w.parameter("ind", "i64", [-1, 1])
    w.result(w.layer("GatherND", [x, ind], {"batch_dims": 0}, version="opset8"), "y")
    model = irrun.read_model(w.save(tmp_path / "m.xml"))
    x0 = np.ones((4, 1000), np.float32)
    assert model.run({"x": x0, "ind": np.zeros((2, 1), np.int64)})["y"].shape == (2, 1000)
    with pytest.raises(MemoryBudgetError, match="budget"):
        model.run({"x": x0, "ind": np.zeros((1000, 1), np.int64)}, max_memory=1 << 20)


def _causal_depthwise_conv1d(x: np.ndarray, w: np.ndarray, pad: int) -> np.ndarray:
    """GroupConvolution-1 of the spec written as loops: ``x`` [1, C, L], ``w`` [C, 1, 1, K],
    stride 1, ``pad`` zeros on both sides: out[c, i] = sum_k x_padded[c, i + k] * w[c, 0, 0, k]."""
    c, k = w.shape[0], w.shape[-1]
    xp = np.concatenate([np.zeros((1, c, pad), x.dtype), x, np.zeros((1, c, pad), x.dtype)], axis=2)
    out = np.zeros((1, c, xp.shape[2] - k + 1), np.float64)
    for ch in range(c):
        for i in range(out.shape[2]):
            out[0, ch, i] = sum(float(xp[0, ch, i + t]) * float(w[ch, 0, 0, t]) for t in range(k))
    return out


def test_a_group_convolution_of_a_decoder_reuses_the_shared_plan(tmp_path):
    """The causal depthwise conv1d of mamba/lfm2 decoders (GroupConvolution, pads K-1: the output
    is longer than its input) checks its output in the kernel (``Op.allocation = "checked"``), so
    a new sequence length reuses the declared-shape plan instead of a plan per decode step."""
    w = IRWriter()
    x = w.parameter("x", "f32", [1, 3, -1])
    filters = np.random.default_rng(1).standard_normal((3, 1, 1, 4)).astype(np.float32)
    conv = w.layer("GroupConvolution", [x, w.const(filters)],
                   {"strides": "1", "pads_begin": "3", "pads_end": "3", "dilations": "1"}, version="opset1")
    w.result(conv, "y")
    model = irrun.read_model(w.save(tmp_path / "m.xml"))
    rng = np.random.default_rng(0)
    for n in (1, 5, 9):
        xs = rng.standard_normal((1, 3, n)).astype(np.float32)
        got = model.run({"x": xs})["y"]
        np.testing.assert_allclose(got, _causal_depthwise_conv1d(xs, filters, 3), rtol=1e-5, atol=1e-6)
    assert [k for k in model._plans if k[-1]] == [("declared shapes", True)]
    with pytest.raises(MemoryBudgetError, match="budget"):     # [1, 3, 5000] -> [1, 3, 5006]
        model.run({"x": np.zeros((1, 3, 5000), np.float32)}, max_memory=100_000)
