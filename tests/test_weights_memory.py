"""What irrun holds of a compressed model's weights (irrun/ir/reader.py, irrun/runtime/program.py): packed
Consts stay bytes until they run and nothing but the program's cache keeps what is computed from
them; under a small budget, weights that do not fit are decompressed block by block. Every path
is proven bit for bit equal to running every layer anew (a debug run)."""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

import irrun
import irrun.ops.matmul
import irrun.ir.weights
from irrun.runtime.program import ChainRows, RowBlocks
from irrun.ir.weights import ConstBytes
from test_program import assert_same, embedding_model, per_run

FIXTURES = Path(__file__).parent / "fixtures"
PACKED_CASES = ["i4_sym_group", "nf4_group", "u4_asym_group", "u4_asym_group_f16_zp", "u4_odd"]


@pytest.fixture
def lazy(monkeypatch):
    """Small fixtures: unpack every packed Const on use (real-size weights are), and fold
    nothing at inference (real-size weights are too big to fold)."""
    monkeypatch.setattr(irrun.ir.weights, "UNPACK_ON_USE", 0)
    monkeypatch.setattr(irrun.analysis.inference, "FOLD_LIMIT", 0)


def load(case: str):
    d = FIXTURES / "compressed" / case
    with np.load(d / "inputs.npz") as f:
        return irrun.read_model(d / "model.xml"), {k: f[k] for k in f.files}


@pytest.mark.parametrize("case", PACKED_CASES)
def test_packed_weights_are_unpacked_on_use_and_not_kept(case, lazy):
    model, inputs = load(case)
    layers = [d["layer"] for _, d in model.graph.nodes(data=True)]
    packed = [L for L in layers if isinstance(L.const, ConstBytes) and L.const.unpack_on_use]
    assert packed                                           # read as bytes, not unpacked
    for L in packed:                                        # tools still see the values
        assert L.const_value.shape == L.const_shape == tuple(int(d) for d in L.data["shape"].split(","))
    got = model.run(inputs)
    assert_same(got, per_run(model, inputs))
    assert model.program.constants
    ops = [model.ops[L.id] for L in packed]
    assert all(op.value is None for op in ops)              # the ops hold bytes only
    consts = {L.id for L in packed}
    assert not [p for p in model.program.constants if p[0] in consts]   # no unpacked codes kept
    assert all(a.dtype == np.float32 for a in model.program.constants.values())
    assert_same(model.run(inputs), got)                     # pages released: still the same


def test_releasing_the_weight_pages_keeps_every_value(lazy):
    model, inputs = load("u8_asym_channel")
    first = model.run(inputs)
    model.ir.release_pages()
    assert_same(model.run(inputs), first)
    assert_same(per_run(model, inputs), first)


MATMUL_CASES = ["f16_weights", "i4_sym_f32", "i4_sym_group", "i8_sym_channel", "nf4_group",
                "u4_asym_group", "u4_asym_group_f16_zp", "u4_odd", "u8_asym_channel", "u8_asym_f32"]


@pytest.mark.parametrize("case", MATMUL_CASES)
def test_weights_over_the_budget_are_multiplied_block_by_block(case, lazy, monkeypatch):
    """Blocks of 2 rows (MatMul.COLS), each decompressed alone: the very bits of the whole weight."""
    monkeypatch.setattr(irrun.ops.matmul, "COLS", 2)
    monkeypatch.setattr(irrun.ops.matmul, "BLOCK_BYTES", 1)
    model, inputs = load(case)
    want = per_run(model, inputs)
    calls = []
    real = ChainRows.__call__
    monkeypatch.setattr(ChainRows, "__call__", lambda self, rows, k: calls.append(k) or real(self, rows, k))
    weight = 4 * max(math.prod(d["layer"].const_shape or ()) for _, d in model.graph.nodes(data=True))
    with pytest.warns(RuntimeWarning, match="do not fit the memory budget"):
        got = model.run(inputs, max_memory=weight - 1)
    assert_same(got, want)
    blocked = [s for s in plan_steps(model, inputs) if isinstance(s.op, RowBlocks)]
    assert len(blocked) == 1 and blocked[0].op.type == "MatMul"
    n_rows = blocked[0].op.rows.n_rows
    assert calls == [2] * (n_rows // 2) + [n_rows % 2] * (n_rows % 2)     # each row once, in blocks
    assert not [p for p, a in model.program.constants.items() if a.size * 4 >= weight]
    assert_same(model.run(inputs, max_memory=weight - 1), want)          # and again
    assert_same(model.run(inputs), want)                                 # the whole weight kept


def plan_steps(model: irrun.Model, inputs: dict) -> list:
    """The steps of the plan the last run of these inputs used."""
    return list(model._plans.values())[-1]


def test_a_packed_embedding_unpacks_only_the_picked_rows(tmp_path, lazy, monkeypatch):
    model = irrun.read_model(embedding_model(tmp_path, "int4"))
    unpacked = []
    real = ConstBytes.rows
    monkeypatch.setattr(ConstBytes, "rows", lambda self, rows: unpacked.append(len(real(self, rows))) or real(self, rows))
    for ids in ([[3]], [[0, 9, 4, 4]], [[-1, 10, -11, 2]]):
        feeds = {"ids": np.array(ids, np.int64)}
        assert_same(model.run(feeds), per_run(model, feeds))
    assert unpacked and max(unpacked) <= 4                   # never the whole 10-row table
    assert not model.program.constants
