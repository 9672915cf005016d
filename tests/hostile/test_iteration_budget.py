"""The iteration budget (irrun/iterations.py) and the run's live-memory bound (budget.Live) on the
Loop fixtures (tools/make_subgraph_fixtures.py); string inputs converted within the budget."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import irrun
from irrun import budget, iterations
from irrun.budget import MemoryBudgetError
from irrun.cli import main
from irrun.errors import ExecutionError, ShapeError
from irrun.npyio import as_strings

SUB = Path(__file__).parent.parent / "fixtures" / "subgraphs"
X = np.ones((2, 3), np.float32)


def model(name: str) -> irrun.Model:
    return irrun.read_model(SUB / name / "model.xml")


def test_default_and_parsing():
    assert iterations.current() == iterations.DEFAULT_MAX_ITERATIONS == 10**6
    assert iterations.parse("1e3") == 1000 and iterations.parse("42") == 42
    for bad in ("0", "-5", "lots"):
        with pytest.raises(ValueError):
            iterations.parse(bad)


def test_model_run_max_iterations():
    m = model("loop_runtime_trip_scan")
    last, scan = m.run({"X": X, "T": np.int64(50)}, max_iterations=50).values()
    assert scan.shape == (50, 2, 3)
    with pytest.raises(ExecutionError, match=r'layer 3 "Loop_15" .*at least 51 iterations, more than '
                                             "the iteration budget of 50 body executions"):
        m.run({"X": X, "T": np.int64(51)}, max_iterations=50)
    with iterations.limit(7):                 # a block of library calls
        with pytest.raises(ExecutionError, match="budget of 7 body"):
            m.run({"X": X, "T": np.int64(8)})
    assert m.run({"X": X, "T": np.int64(8)})   # the default again


def test_each_run_counts_afresh():
    m = model("loop_runtime_trip_scan")
    for _ in range(3):
        m.run({"X": X, "T": np.int64(40)}, max_iterations=40)


def test_a_computed_condition_is_stopped_at_the_budget():
    """loop_while: trip -1, the body stops when iter >= L; L = 10**9 never comes."""
    m = model("loop_while")
    with pytest.raises(ExecutionError, match="reached 101 body executions"):
        m.run({"X": X, "L": np.int64(10**9)}, max_iterations=100)


def test_a_constant_trip_count_over_the_budget_is_refused_by_shape_inference(tmp_path):
    d = tmp_path / "m"
    d.mkdir()
    (d / "model.xml").write_bytes((SUB / "loop_fixed" / "model.xml").read_bytes())
    (d / "model.bin").write_bytes((2**40).to_bytes(8, "little") + (SUB / "loop_fixed" / "model.bin").read_bytes()[8:])
    with pytest.raises(ShapeError, match=r"at least 1099511627776 iterations.*iteration budget"):
        irrun.read_model(d / "model.xml").types()


def test_cli_max_iterations(capsys, tmp_path):
    xml = SUB / "loop_while" / "model.xml"
    np.savez(tmp_path / "in.npz", X=X, L=np.int64(10**9))
    code = main([str(xml), "--input", str(tmp_path / "in.npz"), "--max-iterations", "5"])
    err = capsys.readouterr().err
    assert code == 2 and "iteration budget of 5 body executions" in err, err


def test_live_tensors_are_bounded_not_only_each_one():
    """loop_doubling: 20 iterations make 2**20 f32 (4 MiB) while each iteration holds the state,
    its doubled copy and the caller's arrays: refused at 6 MB in all, although no single tensor
    reaches it."""
    m = model("loop_doubling")
    y, = m.run({"A": np.ones(1, np.float32), "T": np.int64(20)}, max_memory=64 << 20).values()
    assert y.shape == (2**20,)
    with pytest.raises(MemoryBudgetError, match="the run's live tensors"):
        m.run({"A": np.ones(1, np.float32), "T": np.int64(20)}, max_memory=6 << 20)


def test_wide_unicode_inputs_convert_within_the_budget():
    a = np.full((2,), "x" * 100_000, dtype="<U100000")     # beyond NumPy's buffered astype width
    s = as_strings(a)
    assert s.dtype == irrun.elements.STRING_DTYPE and s[1] == "x" * 100_000
    with budget.limit(a.nbytes + 1000):
        with pytest.raises(MemoryBudgetError, match=r"as strings \(string\[2\]\)"):
            as_strings(a, 'input "x"')
