"""Batch inference on a real local Dask cluster (issue 17): separate worker processes, outputs equal
to the single-process run bit for bit, bad inputs reported by name and skipped, nothing partial
written, the model read once per worker, and workers that never import from the working directory.

One cluster (2 worker processes) serves the module; the CLI test starts its own, as users do."""
from __future__ import annotations

import os
import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import irrun
from irrun.distributed import Job, run_many
from irrun.distributed.cluster import local_cluster

from helpers import needs_dask

pytestmark = needs_dask

ZOO = Path(__file__).parent / "fixtures" / "zoo"
CNN = ZOO / "mobilenet_v2_fp32" / "model.xml"      # convolutions through BLAS: a real check of "identical"
BERT = ZOO / "bert_fp32" / "model.xml"             # three int64 inputs per run


@pytest.fixture(scope="module")
def client():
    with local_cluster(2) as c:
        yield c


def _cnn_inputs(d: Path, n: int = 5) -> list[Path]:
    d.mkdir()
    rng = np.random.default_rng(17)
    files = []
    for k in range(n):
        files.append(d / f"img{k}.npy")
        np.save(files[-1], rng.standard_normal((1, 3, 32, 32)).astype(np.float32))
    np.save(d / "wrong_shape.npy", np.zeros((1, 3, 31, 32), np.float32))
    (d / "garbage.npy").write_bytes(b"not an array")
    return files


def _single_process(model_path: Path, files: list[Path]) -> dict[str, dict[str, np.ndarray]]:
    """The single-process run at the workers' BLAS thread count (1): what README "Many inputs"
    promises the same bytes as. (At another count BLAS splits the sums differently: float
    outputs then differ in the last bits — 40 of 40 ResNet outputs at 4x3x224x224, max 5e-6.)"""
    from threadpoolctl import threadpool_limits
    model = irrun.read_model(model_path)
    with threadpool_limits(limits=1):
        return {f.stem: model.run(np.load(f)) for f in files}


def test_workers_are_separate_processes_with_a_clean_path(client):
    info = client.run(lambda: (os.getpid(), sys.path[:], os.environ.get("PYTHONSAFEPATH")))
    pids = {pid for pid, _, _ in info.values()}
    assert len(pids) == 2 and os.getpid() not in pids
    cwd = os.path.realpath(os.getcwd())
    for _, path, _ in info.values():
        assert "" not in path and cwd not in {os.path.realpath(p) for p in path}


def test_safe_spawn_cleans_then_restores_this_process():
    from irrun.distributed.cluster import safe_spawn
    saved_path, saved_env = sys.path[:], os.environ.get("PYTHONSAFEPATH")
    sys.path[:0] = ["", os.getcwd()]
    try:
        with safe_spawn():
            assert "" not in sys.path and os.getcwd() not in sys.path
            assert os.environ["PYTHONSAFEPATH"] == "1"
        assert sys.path[:2] == ["", os.getcwd()] and os.environ.get("PYTHONSAFEPATH") == saved_env
    finally:
        sys.path[:] = saved_path


def test_outputs_equal_single_process_bad_inputs_skipped(client, tmp_path):
    good = _cnn_inputs(tmp_path / "in")
    files = sorted((tmp_path / "in").iterdir())
    out = tmp_path / "out"
    seen = []
    # batches of 3: garbage.npy shares a task with img0/img1, wrong_shape.npy comes last
    result = run_many(CNN, files, out, client=client, batch_size=3,
                      on_result=lambda name, f: seen.append((name, f)))
    assert sorted(Path(f.input).name for f in result.failed) == ["garbage.npy", "wrong_shape.npy"]
    by_name = {Path(f.input).name: f for f in result.failed}
    assert "31" in by_name["wrong_shape.npy"].message and by_name["wrong_shape.npy"].exit_code == 2
    assert "garbage.npy" in str(by_name["garbage.npy"])
    assert len(seen) == len(files) and sorted(result.done) == sorted(str(f) for f in good)
    assert result.workers == 2
    # exactly one .npz per good input, nothing for the bad ones, no temporary files left
    assert sorted(p.name for p in out.iterdir()) == sorted(f"{f.stem}.npz" for f in good)
    want = _single_process(CNN, good)
    for stem, outputs in want.items():
        with np.load(out / f"{stem}.npz") as got:
            assert list(got.files) == list(outputs)
            for k, v in outputs.items():
                assert got[k].dtype == v.dtype and np.array_equal(got[k], v), f"{stem}:{k}"


def test_in_memory_feeds_read_only_and_model_read_once(client):
    model = irrun.read_model(BERT)
    with np.load(ZOO / "bert_fp32" / "inputs.npz") as f:
        base = {k: f[k] for k in f.files}
    feeds = {f"seq{k}": {n: (v + k) % 50 if n == "input_ids" else v for n, v in base.items()} for k in range(4)}
    copies = {k: {n: v.copy() for n, v in fd.items()} for k, fd in feeds.items()}
    result = run_many(BERT, feeds, client=client)
    assert not result.failed and sorted(result.outputs) == sorted(feeds)
    for name, fd in feeds.items():
        want = model.run(fd)
        for k, v in want.items():
            assert np.array_equal(result.outputs[name][k], v)
        assert all(np.array_equal(fd[n], copies[name][n]) for n in fd)
    # the second batch reuses each worker's model: same object, read once per process
    from irrun.distributed import worker

    def cached():
        return sorted(id(m) for (p, _), (m, _) in worker._models.items() if p == str(BERT))
    before = client.run(cached)
    assert all(len(v) == 1 for v in before.values())
    run_many(BERT, feeds, client=client)
    assert client.run(cached) == before
    # a task carries paths and numbers, never the model
    job = Job(str(BERT), "0" * 64, ("/data/x.npz",) * 8, None, 1)
    assert len(pickle.dumps(job)) < 400


def test_memory_budget_applies_per_worker(client, tmp_path):
    good = _cnn_inputs(tmp_path / "in", n=2)
    out = tmp_path / "out"
    result = run_many(CNN, good, out, client=client, max_memory=4096)
    assert len(result.failed) == 2 and not result.done
    assert all("budget" in f.message or "memory" in f.message for f in result.failed)
    assert not out.exists() or not any(out.iterdir())


def test_output_checked_before_the_run(client, tmp_path):
    good = _cnn_inputs(tmp_path / "in", n=2)
    out = tmp_path / "out"
    out.mkdir()
    (out / "img1.npz").symlink_to(tmp_path / "elsewhere.npz")
    with pytest.raises(irrun.IrrunError, match="symbolic link"):
        run_many(CNN, good, out, client=client)
    assert sorted(p.name for p in out.iterdir()) == ["img1.npz"] and not (tmp_path / "elsewhere.npz").exists()


def test_cli_workers_from_a_hostile_working_directory(tmp_path):
    """``irrun ... --workers 1`` run from a directory holding a module the spawn bootstrap imports:
    the workers must not import it (a marker file would appear), the run reports the bad inputs
    by name, writes the good ones identical to the single-process run, and exits 1."""
    good = _cnn_inputs(tmp_path / "in", n=3)
    marker = tmp_path / "IMPORTED_FROM_CWD"
    (tmp_path / "selectors.py").write_text(
        f"open({str(marker)!r}, 'w').close()\n"
        "import sys\ndel sys.modules['selectors']\nsys.path[:] = [p for p in sys.path if p]\nimport selectors\n")
    irrun_exe = Path(sys.executable).parent / "irrun"
    cmd = [str(irrun_exe)] if irrun_exe.exists() else [sys.executable, "-P", "-m", "irrun"]
    r = subprocess.run(cmd + [str(CNN), "-i", "in", "-o", "out", "--workers", "1"], cwd=tmp_path,
                       capture_output=True, text=True, timeout=300, env={**os.environ, "CI": "true"})
    assert r.returncode == 1, r.stderr
    assert "wrong_shape.npy" in r.stderr and "garbage.npy" in r.stderr and "skipped" in r.stderr
    assert "Traceback" not in r.stderr
    assert "3 written" in r.stdout and "2 failed" in r.stdout
    assert not marker.exists(), "a worker imported selectors.py from the working directory"
    want = _single_process(CNN, good)
    for stem, outputs in want.items():
        with np.load(tmp_path / "out" / f"{stem}.npz") as got:
            assert all(np.array_equal(got[k], v) for k, v in outputs.items())


def test_without_dask_the_flag_says_how_to_install(tmp_path, monkeypatch, capsys):
    from irrun.cli.main import main
    _cnn_inputs(tmp_path / "in", n=1)
    monkeypatch.setitem(sys.modules, "distributed", None)       # import distributed -> ImportError
    assert main([str(CNN), "-i", str(tmp_path / "in"), "-o", str(tmp_path / "out"), "--workers", "2"]) == 3
    assert "pip install 'irrun[dask]'" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_a_worker_with_another_copy_of_the_model_is_refused_once(client):
    """The pre-flight: every worker reads the model and compares the .xml's SHA-256 with the
    client's, so a stale copy on a worker machine is one clear error before any input runs."""
    from irrun.distributed import _preflight
    with pytest.raises(irrun.IrrunError, match="differs from the client's"):
        _preflight(client, str(CNN), "0" * 64)


def test_cli_checks_destinations_before_starting_a_cluster(tmp_path, monkeypatch, capsys):
    import irrun.distributed.cluster as cluster
    from irrun.cli.main import main
    monkeypatch.setattr(cluster, "local_cluster", lambda *a, **k: pytest.fail("a cluster was started"))
    _cnn_inputs(tmp_path / "in", n=2)
    out = tmp_path / "out"
    out.mkdir()
    (out / "img1.npz").symlink_to(tmp_path / "victim.npz")
    assert main([str(CNN), "-i", str(tmp_path / "in"), "-o", str(out), "--workers", "2"]) == 2
    assert "symbolic link" in capsys.readouterr().err
    assert not (tmp_path / "victim.npz").exists()


def test_progress_bar_and_failure_lines():
    import io

    from irrun.distributed import Failure
    from irrun.cli.distributed import Progress
    s = io.StringIO()
    p = Progress(3, s, show=True)
    p.update("a.npy", None)
    p.update("b\x1b[2J.npy", Failure("b\x1b[2J.npy", "bad input", "wrong shape", 2))
    text = s.getvalue()
    assert "[##########....................] 1/3" in text and "2/3" in text and "1 failed" in text
    assert "irrun: bad input: wrong shape (input b\\x1b[2J.npy); skipped\n" in text
    quiet = io.StringIO()
    q = Progress(2, quiet, show=False)
    q.update("a.npy", Failure("a.npy", "bad input", "a.npy: wrong shape", 2))
    assert quiet.getvalue() == "irrun: bad input: a.npy: wrong shape; skipped\n"
    # a name with a newline: the error's message shows it escaped, so it is not named twice
    err = irrun.errors.InputError("not a .npy file", file="in/b\nforged.npy")
    assert str(Failure("in/b\nforged.npy", err.kind, str(err), err.exit_code)) == \
        "bad input: in/b\\nforged.npy: not a .npy file"


def test_iteration_budget_applies_in_the_workers(client, tmp_path):
    """``--max-iterations`` reaches each run on the workers: a TensorIterator of 5 steps passes
    with a budget of 5 and fails, reported and skipped, with 4 — as in the single-process run."""
    from irrun.limits import iterations
    model_path = Path(__file__).parent / "fixtures" / "subgraphs" / "ti_forward" / "model.xml"
    model = irrun.read_model(model_path)
    feeds = {"in": {"X": np.ones((2, 5, 3), np.float32), "H": np.zeros((2, 3), np.float32),
                    "W": np.eye(3, dtype=np.float32)}}
    with iterations.limit(4), pytest.raises(irrun.IrrunError, match="iteration"):
        model.run(feeds["in"])
    short = run_many(model_path, feeds, client=client, max_iterations=4)
    assert [f.input for f in short.failed] == ["in"] and "iteration" in short.failed[0].message
    ok = run_many(model_path, feeds, client=client, max_iterations=5)
    assert not ok.failed
    with iterations.limit(5):
        want = model.run(feeds["in"])
    assert all(np.array_equal(ok.outputs["in"][k], v) for k, v in want.items())
