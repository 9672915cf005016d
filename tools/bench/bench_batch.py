"""Batch throughput: the single-process loop against a local Dask cluster of 1 and 2 workers.

    CI=true python -m tools.bench.bench_batch [--models resnet18,bert_small] [--inputs 40] [--repeat 3]
                                        [--workdir DIR] [--markdown]

Builds the models with tools/bench/bench.py (``build``: torch -> ONNX -> OpenVINO IR, cached in
``--workdir``), writes ``--inputs`` input files per model (the model's inputs perturbed per file:
noise for floats, rolled token ids for integers), and runs each configuration in a fresh process:

* ``loop, T threads``: what ``irrun MODEL -i DIR/ -o OUT/`` does (read the model, then per file:
  read, run, write the .npz), BLAS at T threads;
* ``dask, W workers``: :func:`irrun.distributed.run_many` on :func:`local_cluster` (W worker
  processes, 1 BLAS thread each), outputs written by the client as in ``--workers W``.

Reported per configuration: start-up (process start to model ready; for Dask, the cluster start
and every worker reading the model), the run (first input to last output written), inputs/s over
the run, how busy Dask kept its workers (the tasks' time as the workers measured it, over
workers x run time: what the engine's own overhead leaves, whatever else loads the machine), and the 1-minute load average before and after (the machine may be shared: compare the
rows of one run, not runs of different days; ``--repeat`` interleaves rounds of all
configurations and reports medians with the range). Every configuration's outputs are compared with the
1-thread loop's, bit for bit. Nothing asserts on the numbers.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

os.environ.setdefault("CI", "true")
BLAS_ENV = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
CONFIGS = (("loop", 1), ("loop", 2), ("dask", 1), ("dask", 2))


def make_inputs(d: Path, n: int) -> Path:
    """d/batch/in<k>.npz: the model's inputs, perturbed per file (seeded)."""
    import numpy as np
    src = d / "batch"
    if src.is_dir() and len(list(src.glob("*.npz"))) == n:
        return src
    src.mkdir(exist_ok=True)
    for old in src.glob("*.npz"):
        old.unlink()
    rng = np.random.default_rng(0)
    with np.load(d / "inputs.npz") as f:
        base = {k: f[k] for k in f.files}
    for k in range(n):
        feeds = {name: (a + rng.standard_normal(a.shape).astype(a.dtype) * 0.1 if a.dtype.kind == "f"
                        else np.roll(a, k, axis=-1) if "mask" not in name else a)
                 for name, a in base.items()}
        np.savez(src / f"in{k:04d}.npz", **feeds)
    return src


def child(mode: str, model: str, src: str, out: str, n: int) -> dict:
    """One configuration, in this (fresh) process; BLAS threads were set by the parent."""
    t0 = time.perf_counter()
    files = sorted(Path(src).glob("*.npz"))
    if mode == "loop":
        import irrun
        from irrun.io.inputs import load_inputs
        from irrun.io.writers import npz, write_files
        m = irrun.read_model(model)
        t1 = time.perf_counter()
        for f in files:
            write_files([(Path(out) / f"{f.stem}.npz", npz(m.run(load_inputs(m, [str(f)]))))])
        t2 = time.perf_counter()
        return {"startup": t1 - t0, "run": t2 - t1, "failed": 0, "busy": None}
    from irrun.distributed import run_many
    from irrun.distributed.cluster import local_cluster
    from irrun.distributed.worker import file_digest, warm_up
    with local_cluster(n) as client:
        client.run(warm_up, os.path.abspath(model), file_digest(model))    # start-up: every worker's read
        t1 = time.perf_counter()
        r = run_many(model, files, out, client=client)
        t2 = time.perf_counter()
    return {"startup": t1 - t0, "run": t2 - t1, "failed": len(r.failed),
            "busy": r.worker_seconds / (r.seconds * r.workers)}


def measure(mode: str, count: int, model: Path, src: Path, out: Path) -> dict:
    env = dict(os.environ)
    for v in BLAS_ENV:
        env[v] = str(count if mode == "loop" else 1)
    out.mkdir(parents=True, exist_ok=True)
    load0 = os.getloadavg()[0]
    t0 = time.perf_counter()
    r = subprocess.run([sys.executable, __file__, "--child", mode, str(model), str(src), str(out), str(count)],
                       capture_output=True, text=True, env=env, check=False)
    wall = time.perf_counter() - t0
    if r.returncode:
        raise SystemExit(f"{mode} {count} failed:\n{r.stderr[-3000:]}")
    res = json.loads(r.stdout.strip().splitlines()[-1])
    res.update(mode=mode, count=count, wall=wall, load=(load0, os.getloadavg()[0]))
    return res


def same(a: Path, b: Path) -> bool:
    import numpy as np
    for f in sorted(a.glob("*.npz")):
        with np.load(f) as x, np.load(b / f.name) as y:
            if x.files != y.files or not all(x[k].dtype == y[k].dtype and np.array_equal(x[k], y[k])
                                             for k in x.files):
                return False
    return True


def _merge(runs: list[dict]) -> dict:
    """One row from the rounds of a configuration: median times, the rate's range, all loads."""
    import statistics
    r = dict(runs[0])
    for k in ("startup", "run", "wall"):
        r[k] = statistics.median(x[k] for x in runs)
    rates = [x["inputs"] / x["run"] for x in runs]
    r["range"] = (min(rates), max(rates))
    r["load"] = (min(x["load"][0] for x in runs), max(x["load"][1] for x in runs))
    r["identical"] = all(x["identical"] for x in runs)
    r["busy"] = None if runs[0]["busy"] is None else statistics.median(x["busy"] for x in runs)
    return r


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", default="resnet18,bert_small")
    ap.add_argument("--inputs", type=int, default=40)
    ap.add_argument("--workdir", type=Path, default=Path(os.environ.get("TMPDIR", "/tmp")) / "irrun-bench")
    ap.add_argument("--repeat", type=int, default=1, help="rounds; figures are medians, rates with their range")
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--child", nargs=5, metavar=("MODE", "MODEL", "SRC", "OUT", "N"), help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.child:
        mode, model, src, out, n = a.child
        print(json.dumps(child(mode, model, src, out, int(n))))
        return 0
    from tools.bench import bench
    rows = []
    for name in a.models.split(","):
        d = bench.build(name, a.workdir)
        src = make_inputs(d, a.inputs)
        for rnd in range(a.repeat):           # rounds interleave the configurations: load drifts
            for mode, count in CONFIGS:
                out = d / f"out_{mode}{count}"
                r = measure(mode, count, d / "model.xml", src, out)
                r.update(model=name, inputs=a.inputs, identical=same(d / "out_loop1", out))
                rows.append(r)
                print(f"{name} round {rnd + 1} {mode} {count}: {a.inputs / r['run']:.2f} inputs/s", file=sys.stderr)
    rows = [_merge([r for r in rows if (r["model"], r["mode"], r["count"]) == key])
            for key in dict.fromkeys((r["model"], r["mode"], r["count"]) for r in rows)]
    print(f"machine: {bench.machine()}")
    print(f"{a.repeat} round{'s' * (a.repeat > 1)}; times are medians, inputs/s = inputs / median run "
          "(range over the rounds); load avg: least and greatest 1-minute load average seen")
    base = {r["model"]: a.inputs / r["run"] for r in rows if (r["mode"], r["count"]) == ("loop", 1)}
    head = ["model", "configuration", "inputs", "start-up s", "run s", "inputs/s (range)", "vs loop 1 thread",
            "workers busy", "wall s", "load avg", "outputs = loop"]
    lines = []
    for r in rows:
        what = f"loop, {r['count']} BLAS thread{'s' * (r['count'] > 1)}" if r["mode"] == "loop" else \
            f"dask, {r['count']} worker{'s' * (r['count'] > 1)}"
        rate = r["inputs"] / r["run"]
        lines.append([r["model"], what, str(r["inputs"]), f"{r['startup']:.2f}", f"{r['run']:.2f}",
                      f"{rate:.2f} ({r['range'][0]:.1f}–{r['range'][1]:.1f})",
                      f"{rate / base[r['model']]:.2f}x", "-" if r["busy"] is None else f"{r['busy']:.0%}",
                      f"{r['wall']:.1f}", "%.1f–%.1f" % r["load"],
                      "yes" if r["identical"] else "NO" + (f" ({r['failed']} failed)" if r["failed"] else "")])
    if a.markdown:
        print("| " + " | ".join(head) + " |\n|" + "---|" * len(head))
        print("\n".join("| " + " | ".join(ln) + " |" for ln in lines))
    else:
        w = [max(len(x) for x in col) for col in zip(head, *lines)]
        print("\n".join("  ".join(c.ljust(k) for c, k in zip(ln, w)) for ln in [head, *lines]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
