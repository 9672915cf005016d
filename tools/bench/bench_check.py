"""How long ``irrun check`` takes on a ~250-layer IR, next to OpenVINO's ``read_model``.

    CI=true python -m tools.bench.bench_check [--blocks 15] [--repeat 20] [--keep DIR]

OpenVINO builds the model (blocks of VariadicSplit, ShuffleChannels, Transpose, Concat, ShapeOf ->
Gather -> Concat -> Reshape, Reshape on a ``?,32,8,8`` input) and saves it with ``save_model``;
then, each in its own process, irrun checks it and OpenVINO reads it, ``--repeat`` times each
after one warm-up run. Reported: the median in-process time of each step, and the wall time of
the whole command (``irrun check`` vs ``python -c "read_model"``, interpreter start included).
irrun is measured twice: as it is, and with the graph.py change proposed in the issue-4 report
(``nx.find_cycle`` only when ``nx.is_directed_acyclic_graph`` says there is a cycle; networkx's
find_cycle walks every edge of a MultiDiGraph slowly even when there is none).
This is a measurement, not a test: nothing asserts on the numbers.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BUILD = r"""
import sys, numpy as np, openvino as ov
from openvino import opset8 as ops
blocks, out = int(sys.argv[1]), sys.argv[2]
x = ops.parameter([-1, 32, 8, 8], np.float32, name="x")
h = x
for i in range(blocks):
    a, b = ops.variadic_split(h, ops.constant(np.int64(1)), ops.constant(np.array([16, 16]))).outputs()
    a = ops.shuffle_channels(a, 1, 4)
    b = ops.transpose(b, ops.constant(np.array([0, 1, 3, 2])))
    c = ops.concat([a, b], 1)
    batch = ops.gather(ops.shape_of(c), ops.constant(np.array([0])), ops.constant(np.int64(0)))
    flat = ops.reshape(c, ops.concat([batch, ops.constant(np.array([-1]))], 0), False)
    h = ops.reshape(flat, ops.constant(np.array([0, 32, 8, 8])), True)
m = ov.Model([ops.result(h)], [x], "bench")
ov.save_model(m, out)
print(len(m.get_ordered_ops()))
"""

OV_READ = r"""
import json, sys, time
t0 = time.perf_counter()
import openvino as ov
core = ov.Core()
t1 = time.perf_counter()
xml, n = sys.argv[1], int(sys.argv[2])
core.read_model(xml)                      # warm-up
times = []
for _ in range(n):
    t = time.perf_counter(); core.read_model(xml); times.append(time.perf_counter() - t)
print(json.dumps({"import": t1 - t0, "read_model": sorted(times)[n // 2]}))
"""

IRRUN = r"""
import json, sys, time
t0 = time.perf_counter()
import irrun
if sys.argv[3] == "1":        # the proposed graph.py change: look for a cycle only in a cyclic graph
    import networkx as nx
    _find_cycle = nx.find_cycle
    def find_cycle(g, *a, **k):
        if nx.is_directed_acyclic_graph(g):
            raise nx.NetworkXNoCycle
        return _find_cycle(g, *a, **k)
    nx.find_cycle = find_cycle
from irrun import check as check_model
from irrun.ir.reader import read_ir
from irrun.model import Model
t1 = time.perf_counter()
xml, n = sys.argv[1], int(sys.argv[2])
assert check_model(xml) == [], check_model(xml)
def median(fn):
    fn()
    ts = []
    for _ in range(n):
        t = time.perf_counter(); fn(); ts.append(time.perf_counter() - t)
    return sorted(ts)[n // 2]
from irrun.analysis.inference import infer_types
ir = read_ir(xml)
model = Model(ir)
print(json.dumps({"import": t1 - t0, "read_ir": median(lambda: read_ir(xml)),
                  "graph_ops_order": median(lambda: Model(ir)),
                  "infer": median(lambda: infer_types(model.graph, model.order, model.ops, xml)),
                  "check": median(lambda: check_model(xml))}))
"""


def run(code: str, *args: str) -> dict:
    env = dict(os.environ, CI="true")
    r = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, env=env)
    if r.returncode:
        sys.exit(f"failed:\n{r.stderr}")
    return json.loads(r.stdout.strip().splitlines()[-1]) if r.stdout.strip().startswith("{") \
        else r.stdout.strip()


def wall(cmd: list[str], n: int) -> float:
    env = dict(os.environ, CI="true")
    times = []
    for _ in range(n):
        t = time.perf_counter()
        subprocess.run(cmd, capture_output=True, env=env, check=False)
        times.append(time.perf_counter() - t)
    return sorted(times)[n // 2]


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--blocks", type=int, default=15, help="blocks of 16 layers (default 15)")
    p.add_argument("--repeat", type=int, default=20)
    p.add_argument("--keep", help="write the IR into this directory and keep it")
    a = p.parse_args()
    d = Path(a.keep or tempfile.mkdtemp(prefix="irrun-bench-"))
    d.mkdir(parents=True, exist_ok=True)
    xml = str(d / "bench.xml")
    n_ops = run(BUILD, str(a.blocks), xml)
    layers = Path(xml).read_text().count("<layer ")
    print(f"model: {xml}, {layers} layers ({n_ops} ops in OpenVINO), "
          f"{Path(xml).stat().st_size // 1024} KiB of XML")
    ov = run(OV_READ, xml, str(a.repeat))
    ms = lambda s: f"{s * 1000:8.2f} ms"       # noqa: E731
    print(f"{'OpenVINO read_model':34}{ms(ov['read_model'])}   (import openvino + Core(): {ms(ov['import']).strip()})")
    for patched in ("0", "1"):
        ir = run(IRRUN, xml, str(a.repeat), patched)
        what = "irrun check" + (" + is_dag before find_cycle" if patched == "1" else "")
        print(f"{what:34}{ms(ir['check'])}   ({ir['check'] / ov['read_model']:.1f} x read_model; "
              f"import irrun: {ms(ir['import']).strip()})")
        for k in ("read_ir", "graph_ops_order", "infer"):
            print(f"{'  ' + k:34}{ms(ir[k])}")
    n = max(3, a.repeat // 4)
    w_ir = wall([sys.executable, "-m", "irrun", "check", xml], n)
    w_ov = wall([sys.executable, "-c", "import sys, openvino as ov; ov.Core().read_model(sys.argv[1])", xml], n)
    print(f"{'wall: irrun check MODEL.xml':34}{ms(w_ir)}")
    print(f"{'wall: python -c read_model':34}{ms(w_ov)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
