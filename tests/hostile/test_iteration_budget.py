"""The iteration budget (irrun/limits/iterations.py) and the run's live-memory bound (budget.Live) on the
Loop fixtures (tools/fixtures/make_subgraph_fixtures.py); string inputs converted within the budget."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import irrun
from irrun.limits import memory as budget, iterations
from irrun.limits.memory import MemoryBudgetError
from irrun.cli.main import main
from irrun.errors import ExecutionError, ShapeError
from irrun.io.npy import as_strings

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
    assert s.dtype == irrun.types.elements.STRING_DTYPE and s[1] == "x" * 100_000
    with budget.limit(a.nbytes + 1000):
        with pytest.raises(MemoryBudgetError, match=r"as strings \(string\[2\]\)"):
            as_strings(a, 'input "x"')


# -- issue 27, class 14: loops that stop fast -------------------------------------------------

HOSTILE = Path(__file__).parent
LOOP27 = ("loop27_never_ends", "loop27_nested_1e9", "loop27_nested_30", "loop27_doubling_1g")


@pytest.mark.parametrize("name", LOOP27)
def test_hostile_loops_are_refused_fast_and_within_their_memory_budget(name):
    """Before issue 27 these ran past 20 s, 10 s and 18 s, or peaked at 1.1-1.6 GB under
    --max-memory 1G. The timeout bounds the whole process (start-up included); the peak is the
    child's own maximum resident set (wait4), which must stay under the 1 GB budget."""
    import json
    import os
    import subprocess
    import sys
    case = next(c for c in json.loads((HOSTILE / "cases.json").read_text()) if c["name"] == name)
    d = HOSTILE / "corpus" / name
    p = subprocess.Popen([sys.executable, "-m", "irrun", *(a.replace("{dir}", str(d)) for a in case["argv"])],
                         cwd=HOSTILE.parent.parent, stderr=subprocess.PIPE, text=True,
                         env={**os.environ, "CI": "true"})
    try:
        _, err = p.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
        raise AssertionError(f"{name} still ran after 10 s") from None
    assert p.returncode == 2, err
    for frag in case["fragments"]:
        assert frag.replace("{dir}", str(d)) in err, err


def test_doubling_state_stays_under_its_memory_budget(tmp_path):
    """The Loop doubling its state under --max-memory 1G: refused before the allocation that would
    pass 1 GB (the kernel checks its output beside the live tensors, the loop's state included)."""
    import os
    import resource
    import subprocess
    import sys
    d = HOSTILE / "corpus" / "loop27_doubling_1g"
    p = subprocess.Popen([sys.executable, "-m", "irrun", str(d / "model.xml"), "--input", f"A={d}/A.npy",
                          "--input", f"T={d}/T.npy", "--max-memory", "1G"], cwd=HOSTILE.parent.parent,
                         stderr=subprocess.DEVNULL, env={**os.environ, "CI": "true"})
    try:
        _, status, usage = os.wait4(p.pid, 0)
    finally:
        p.returncode = 0                        # reaped above
    assert os.waitstatus_to_exitcode(status) == 2
    assert usage.ru_maxrss * 1024 < 10**9, f"peak {usage.ru_maxrss / 1024:.0f} MB"
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 < 10**9


def test_the_work_budget_counts_layers_and_an_explicit_budget_lifts_it():
    """loop_nested: the outer body runs 1 layer (the inner Loop), the inner 2 (Multiply, Add); one
    body execution costs its layers + ITERATION_COST. With T1 = 1 the outer body spent 1 + 8 = 9
    units, and 25000 inner iterations need 25000 x 10 = 250000: more than the 249991 left of the
    default 250000 — refused before the first inner iteration. An explicit --max-iterations lifts
    the work budget (the user chose to run long): the same run then goes through."""
    assert (iterations.DEFAULT_MAX_WORK, iterations.ITERATION_COST) == (250_000, 8)
    m = model("loop_nested")
    feeds = {"X": np.ones(2, np.float32), "T1": np.int64(1), "T2": np.int64(25_000)}
    with pytest.raises(ExecutionError, match=r'layer 4/4 "Loop_13" .*at least 25000 iterations of '
                                             r"2 layers \(250000 units\) and the run has spent 9 "
                                             "already, more than the default loop work budget of 250000"):
        m.run(feeds)
    feeds["T2"] = np.int64(2_000)          # 9 + 20000 units: within the default
    assert m.run(feeds)
    feeds["T1"] = np.int64(13)             # 13 x (9 + 20000) = 260117 units: the 13th inner
    with pytest.raises(ExecutionError, match=r"at least 2000 iterations of 2 layers \(20000 units\) "
                                             "and the run has spent 240117 already"):   # 12 x 20009 + 9
        m.run(feeds)
    with pytest.raises(ExecutionError, match=r'layer 4 "Loop_49231" .*reached 250005 work units '
                                             r"\(16667 body executions\)"):       # 7 layers + 8 each
        model("loop_while").run({"X": X, "L": np.int64(10**9)})
    y, = m.run(feeds, max_iterations=10**6).values()
    assert y.shape == (2,)
    with iterations.limit(30_000):         # a block of library calls: explicit too
        assert m.run(feeds)


def test_loop_state_and_chunks_leave_the_live_account_when_the_loop_ends():
    """The account of a run's live bytes is back to nothing once a Loop holding state and
    concatenated chunks has run (nothing leaks into the next run's account)."""
    m = model("loop_runtime_trip_scan")
    with budget.live_scope() as acc:
        m.run({"X": X, "T": np.int64(30)})
        assert acc.total == 0
