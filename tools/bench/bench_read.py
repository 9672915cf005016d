"""Import + read_model, irrun next to OpenVINO: fresh processes, medians, ratios in one run.

    CI=true python -m tools.bench.bench_read [MODEL.xml] [--repeat 7] [--irrun-python PATH] [--markdown]
    CI=true python -m tools.bench.bench --llm read [--repeat 7] ...      (the same, on the real-size LLM)

Each measurement is its own fresh process, started isolated (``python -I``, an empty working
directory, bytecode cached in ``--workdir``/pycache and compiled once before measuring, 1 BLAS
thread), that does nothing but:

* irrun: ``import irrun``, then ``irrun.read_model(xml)``;
* OpenVINO: ``import openvino``, then ``openvino.Core().read_model(xml)``.

It reports the wall time (``time.perf_counter``) and the process CPU time (``resource.getrusage``,
user + system: a preempted process waits but does not gain CPU time, so on a shared machine this
moves less) of the import, of the read, and of both, and whether networkx was loaded. The runs
alternate between the engines (so both see the same load) and each figure is the median over
``--repeat`` processes; ratios are irrun/OpenVINO. Nothing runs the model: reading is all this
measures (issue 12: import + read_model of the real-size LLM must not take longer than OpenVINO's).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

DEFAULT_XML = Path("/work/llm-models/qwen2_0.5b-int4/model.xml")
ENGINES = ("openvino", "irrun")


def _clock() -> tuple[float, float]:
    import resource
    import time
    ru = resource.getrusage(resource.RUSAGE_SELF)
    return time.perf_counter(), ru.ru_utime + ru.ru_stime


def worker(engine: str, xml: str) -> dict:
    """Runs in the fresh process: time the import and the read, nothing else."""
    w0, c0 = _clock()
    if engine == "irrun":
        import irrun
        w1, c1 = _clock()
        irrun.read_model(xml)
    else:
        import openvino
        w1, c1 = _clock()
        openvino.Core().read_model(xml)
    w2, c2 = _clock()
    return {"import": w1 - w0, "read": w2 - w1, "total": w2 - w0,
            "import_cpu": c1 - c0, "read_cpu": c2 - c1, "total_cpu": c2 - c0,
            "networkx": "networkx" in sys.modules, "load_avg": os.getloadavg()[0]}


def measure(engine: str, xml: Path, python: str | Path, workdir: Path) -> dict:
    from tools.bench.bench import run_worker, worker_cmd
    cwd = tempfile.mkdtemp(prefix=f"read-{engine}-", dir=workdir)
    r = run_worker(worker_cmd(python, workdir, str(Path(__file__).resolve()), "--worker", engine, xml.resolve()),
                   cwd, timeout=600, env=ENV)
    if "error" in r:
        raise SystemExit(f"{engine} worker failed: {r['error']}")
    return r


#: 1 thread, as every other benchmark (BLAS pools are made when NumPy loads, in both engines).
ENV = dict(os.environ, CI="true", OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
KEYS = ("import", "read", "total", "import_cpu", "read_cpu", "total_cpu")


def run(xml: Path, repeat: int, irrun_python: str | Path, workdir: Path) -> dict[str, dict]:
    """{engine: {figure: median}} over ``repeat`` alternating fresh processes per engine."""
    from tools.bench.bench import worker_cmd
    workdir.mkdir(parents=True, exist_ok=True)
    pythons = {"irrun": irrun_python, "openvino": sys.executable}
    for engine in ENGINES:                   # compile the bytecode once, outside the measurements
        subprocess.run(worker_cmd(pythons[engine], workdir, "-c", f"import {engine}"), check=True, timeout=600,
                       env=ENV, capture_output=True)
    runs: dict[str, list[dict]] = {e: [] for e in ENGINES}
    for i in range(repeat):
        for engine in (ENGINES if i % 2 == 0 else ENGINES[::-1]):
            runs[engine].append(measure(engine, xml, pythons[engine], workdir))
    out = {}
    for engine, rs in runs.items():
        med = {k: statistics.median(r[k] for r in rs) for k in KEYS}
        med.update(networkx=any(r["networkx"] for r in rs), load_avg=statistics.median(r["load_avg"] for r in rs),
                   runs=len(rs), totals=[round(r["total"] * 1e3, 1) for r in rs])
        out[engine] = med
    return out


def table(res: dict[str, dict], markdown: bool) -> str:
    from tools.bench.bench import grid
    head = ["runtime", "import ms", "read_model ms", "import + read ms", "import CPU ms", "read_model CPU ms",
            "import + read CPU ms", "networkx loaded"]
    ov = res["openvino"]
    rows = []
    for engine in ENGINES:
        r = res[engine]
        cells = [f"{r[k] * 1e3:.0f}" + ("" if engine == "openvino" else f" ({r[k] / ov[k]:.2f}x)") for k in KEYS]
        rows.append([engine, *cells, "yes" if r["networkx"] else "no"])
    return grid(head, rows, markdown)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("xml", nargs="?", type=Path, default=DEFAULT_XML)
    ap.add_argument("--repeat", type=int, default=7, help="fresh processes per engine (figures: medians)")
    ap.add_argument("--irrun-python", type=Path, help="interpreter that imports the irrun to measure")
    ap.add_argument("--workdir", type=Path, default=Path(os.environ.get("TMPDIR", "/tmp")) / "irrun-bench-read")
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--json", type=Path, help="also write the raw results here")
    args = ap.parse_args(argv)
    res = run(args.xml, args.repeat, args.irrun_python or sys.executable, args.workdir)
    from tools.bench.bench import machine
    print(f"Machine: {machine()}; {args.xml}; median of {args.repeat} fresh processes per engine "
          f"(load average ~{res['irrun']['load_avg']:.1f}); ratios irrun/OpenVINO in the same run.\n")
    print(table(res, args.markdown))
    print(f"\nirrun import + read_model / OpenVINO's: {res['irrun']['total'] / res['openvino']['total']:.2f}x wall, "
          f"{res['irrun']['total_cpu'] / res['openvino']['total_cpu']:.2f}x CPU time "
          f"(irrun runs, ms: {res['irrun']['totals']}; OpenVINO: {res['openvino']['totals']})")
    if args.json:
        args.json.write_text(json.dumps(res, indent=1))
    return 0


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        print(json.dumps(worker(sys.argv[2], sys.argv[3])))
    else:
        sys.exit(main())
