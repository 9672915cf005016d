"""The memory budget (irrun/limits/memory.py): its default, its parsing, and where it is enforced."""
from __future__ import annotations

import numpy as np
import pytest

import irrun
from irrun.limits import memory as budget
from irrun.limits.memory import MemoryBudgetError
from irrun.cli.main import main
from irrun.errors import InputError
from irrun.ir.builder import IRWriter


def test_default_is_half_the_machine():
    assert budget.default_budget() == int(budget.machine_memory() * 0.5)
    assert 1 << 28 < budget.machine_memory() < 1 << 50
    assert budget.current() == budget.default_budget()


@pytest.mark.parametrize("text, n", [("2G", 2 * 10**9), ("512MiB", 512 << 20), ("1.5gb", 1_500_000_000),
                                     ("1000000", 10**6), ("64k", 64_000), ("3 Ti", 3 << 40)])
def test_parse_size(text, n):
    assert budget.parse_size(text) == n


@pytest.mark.parametrize("text", ["", "-1G", "0", "2X", "G", "1e9"])
def test_parse_size_refuses(text):
    with pytest.raises(ValueError):
        budget.parse_size(text)


def test_limit_nests_and_restores():
    with budget.limit(1000):
        assert budget.current() == 1000
        with budget.limit(50):
            assert budget.current() == 50
        assert budget.current() == 1000
    assert budget.current() == budget.default_budget()
    with pytest.raises(InputError, match="positive"):
        with budget.limit(0):
            pass


def test_check_alloc_counts_logical_bytes_and_numpy_limit():
    with budget.limit(4000):
        budget.check_alloc((10, 10, 10), np.dtype(np.float32))            # exactly 4000 bytes
        with pytest.raises(budget.OverBudget,
                           match=r"the output \(float32\[10,10,11\]\) would need 4.4 kB \(4400 bytes\)"):
            budget.check_alloc((10, 10, 11), np.dtype(np.float32))
        with pytest.raises(budget.OverBudget, match="16000 bytes"):      # 16 bytes per string slot
            budget.check_alloc((1000,), np.dtypes.StringDType())
    with pytest.raises(budget.OverBudget, match="2\\*\\*63-byte limit"):
        budget.check_alloc((0, 2**62), np.dtype(np.float32))             # NumPy refuses it, empty or not


def test_cli_rejects_a_bad_max_memory(capsys):
    with pytest.raises(SystemExit) as e:
        main(["model.xml", "--max-memory", "lots"])
    assert e.value.code == 2 and "not a size" in capsys.readouterr().err


def _tile_model(tmp_path):
    b = IRWriter("tile")
    x = b.parameter("x", "f32", [2, 3])
    b.result(b.layer("Tile", [x, b.parameter("r", "i64", [2])], out_dims=[[-1, -1]], name="rep"), "y")
    return irrun.read_model(b.save(tmp_path / "tile.xml"))


def test_run_time_sizes_checked_by_the_kernel(tmp_path):
    m = _tile_model(tmp_path)
    x = np.ones((2, 3), np.float32)
    # the 96-byte output beside the run's inputs (x 24 bytes, r 16): 136 bytes live at once
    assert m.run({"x": x, "r": np.array([2, 2])}, max_memory=136)["y"].shape == (4, 6)
    with pytest.raises(MemoryBudgetError) as e:
        m.run({"x": x, "r": np.array([2, 3])}, max_memory=136)
    assert e.value.layer.name == "rep" and "144 bytes" in e.value.message
    with pytest.raises(MemoryBudgetError, match=r"float32\[4,6\], 96 bytes\) beside the run's live "
                       r"tensors \(40 bytes\) would need 136 bytes"):
        m.run({"x": x, "r": np.array([2, 2])}, max_memory=135)
    with budget.limit(96):                     # the context manager works for the library too
        with pytest.raises(MemoryBudgetError):
            m.run({"x": x, "r": np.array([3, 2])})


def test_plan_time_check_names_layer_and_port(tmp_path):
    b = IRWriter("b")
    x = b.parameter("x", "u8", [1])
    b.result(b.layer("Broadcast", [x, b.const(np.array([1000, 1000], np.int64))], version="opset3",
                     name="wide"), "y")
    m = irrun.read_model(b.save(tmp_path / "b.xml"))
    with pytest.raises(MemoryBudgetError) as e:
        m.check_memory(999_999)
    assert (e.value.layer.name, e.value.port) == ("wide", "output 0")
    assert "1.0 MB (1000000 bytes)" in e.value.message
    m.check_memory(1_000_000)
    # run time: the output beside the run's 1-byte input
    assert m.run(np.ones(1, np.uint8), max_memory=1_000_001)["y"].shape == (1000, 1000)
    with pytest.raises(MemoryBudgetError, match="would need 1.0 MB \\(1000001 bytes\\)"):
        m.run(np.ones(1, np.uint8), max_memory=1_000_000)


def test_npy_header_checked_before_reading(tmp_path):
    from irrun.io.npy import load_npy
    p = tmp_path / "a.npy"
    np.save(p, np.zeros((100, 100), np.float64))
    with budget.limit(79_999), pytest.raises(MemoryBudgetError, match="80000 bytes"):
        load_npy(str(p))
    seen = []
    with pytest.raises(InputError, match="no thanks"):
        load_npy(str(p), lambda key, dtype, shape: (seen.append((dtype, shape)),
                                                   (_ for _ in ()).throw(InputError("no thanks"))))
    assert seen == [(np.dtype(np.float64), (100, 100))]


def test_unpacking_a_packed_const_is_budgeted(tmp_path):
    b = IRWriter("u1")
    b.result(b.const(None, "u1", raw=bytes(1000), shape=[8000]), "c")
    path = b.save(tmp_path / "u1.xml")
    with budget.limit(7999), pytest.raises(MemoryBudgetError, match="unpacking the u1 Const"):
        irrun.read_model(path)
    assert irrun.read_model(path).run({})["c"].shape == (8000,)
