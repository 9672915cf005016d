"""Time a stateful decoder LLM IR (optimum-intel export) in irrun and OpenVINO, each in its own
process: import + read_model, ready to run (OpenVINO: + compile_model), prefill of P tokens,
median decode ms/token, greedy tokens, last logits. (``tools/bench/bench_read.py`` compares import +
read_model alone, over several fresh processes.)

    python -m tools.bench.profile_llm MODEL_DIR [--prefill 16] [--decode 8] [--threads 1]
        [--engine both|irrun|ov] [--max-memory 1G] [--profile out.prof] [--by-op]

``--by-op`` (irrun): where a decode step's time goes, per op type — each op class's kernel
(``run``) timed around its call during the timed decode steps (process CPU time per step; the
rest of the step is the run loop and ``Model.run``). Not the observer of ``irrun --profile``: a
plan made for an observer recomputes the weight-decompression constants every run, which would
hide what a decode step spends.

OpenVINO runs on CPU with INFERENCE_PRECISION_HINT=f32, KV_CACHE_PRECISION=f32 and
DYNAMIC_QUANTIZATION_GROUP_SIZE=0. The report ends with whether both engines picked the same
greedy tokens and the largest relative logits difference.
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

import numpy as np


def _feeds(names: list[str], ids: np.ndarray, past: int, total: int) -> dict:
    n = ids.shape[1]
    feeds = {"input_ids": ids.astype(np.int64),
             "attention_mask": np.ones((1, total), np.int64),
             "position_ids": np.arange(past, past + n, dtype=np.int64)[None],
             "beam_idx": np.zeros(1, np.int32)}
    return {k: v for k, v in feeds.items() if k in names}


class _OpTimes:
    """CPU time and calls per op class, collected by wrapping every op class's own ``run`` once
    the model's op modules are loaded (before the first run: plans bind the kernels)."""

    def __init__(self) -> None:
        self.on = False
        self.calls: dict[str, list] = {}
        from irrun.ops.base import Op
        todo, seen = [Op], set()
        while todo:
            for sub in todo.pop().__subclasses__():
                if sub not in seen:
                    seen.add(sub)
                    todo.append(sub)
                    if "run" in vars(sub):
                        sub.run = self._wrap(sub.__name__, vars(sub)["run"])

    def _wrap(self, name: str, run):
        def timed(op, *args, **kw):
            if not self.on:
                return run(op, *args, **kw)
            t = time.process_time()
            try:
                return run(op, *args, **kw)
            finally:
                row = self.calls.setdefault(name, [0, 0.0])
                row[0] += 1
                row[1] += time.process_time() - t
        return timed

    def table(self, steps: int, step_cpu: float) -> list[list]:
        """[op class, calls per step, ms per step, us per call], slowest first, then the rest of
        the step (loop, Model.run; an op called inside another op counts in both)."""
        rows = [[name, n / steps, t / steps * 1e3, t / n * 1e6] for name, (n, t) in self.calls.items()]
        rows.sort(key=lambda r: -r[2])
        rows.append(["(rest of the step)", None, step_cpu * 1e3 - sum(r[2] for r in rows), None])
        return rows


def worker(engine: str, xml: str, prefill: int, decode: int, out: str, max_memory: str | None,
           profile: str | None, threads: int, by_op: bool = False) -> None:
    t0 = time.perf_counter()
    op_times = None
    if engine == "irrun":
        import irrun
        from irrun.limits.memory import parse_size
        model = irrun.read_model(xml)
        if by_op:
            model.inputs                       # (loads the op modules the model needs)
            op_times = _OpTimes()
        read = time.perf_counter() - t0
        names = [p.name for p in model.inputs]
        mm = parse_size(max_memory) if max_memory else None

        def run(feeds):
            return next(iter(model.run(feeds, max_memory=mm).values()))
        reset = model.reset_state
    else:
        import openvino as ov
        core = ov.Core()
        m = core.read_model(xml)
        read = time.perf_counter() - t0
        compiled = core.compile_model(m, "CPU", {"INFERENCE_PRECISION_HINT": "f32",
                                                 "KV_CACHE_PRECISION": "f32",
                                                 "DYNAMIC_QUANTIZATION_GROUP_SIZE": "0",
                                                 "INFERENCE_NUM_THREADS": threads})
        req = compiled.create_infer_request()
        names = [p.get_any_name() for p in m.inputs]

        def run(feeds):
            req.infer(feeds)
            return req.get_output_tensor(0).data.copy()
        reset = req.reset_state
    ready = time.perf_counter() - t0       # OpenVINO: + compile_model; irrun: + model.inputs
    rng = np.random.default_rng(0)
    vocab = None
    prompt = rng.integers(1, 100, size=(1, prefill))
    times = {"prefill": [], "decode": []}
    tokens: list[int] = []
    prof = None
    for rep in range(2):                           # the first pass warms up; the second is timed
        reset()
        tokens = []
        t = time.perf_counter()
        logits = run(_feeds(names, prompt, 0, prefill))
        times["prefill"].append(time.perf_counter() - t)
        vocab = logits.shape[-1]
        tok = int(np.argmax(logits[0, -1]))
        dec = []
        if rep == 1 and profile:
            import cProfile
            prof = cProfile.Profile()
            prof.enable()
        if op_times is not None:
            op_times.on = rep == 1
        cpu = time.process_time()
        for k in range(decode):
            tokens.append(tok)
            t = time.perf_counter()
            logits = run(_feeds(names, np.array([[tok]]), prefill + k, prefill + k + 1))
            dec.append(time.perf_counter() - t)
            tok = int(np.argmax(logits[0, -1]))
        cpu = time.process_time() - cpu
        if prof is not None:
            prof.disable()
            prof.dump_stats(profile)
        times["decode"].append(float(np.median(dec)) if dec else None)
        times["best"] = float(np.min(dec)) if dec else None
    tokens.append(tok)
    np.save(out + ".npy", logits)
    import resource
    with open(out + ".json", "w") as f:
        json.dump({"read": read, "ready": ready, "prefill": times["prefill"][-1], "decode": times["decode"][-1],
                   "best": times["best"],
                   "tokens": tokens, "vocab": vocab,
                   "by_op": op_times.table(decode, cpu / decode) if op_times is not None and decode else None,
                   "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}, f)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("model")
    ap.add_argument("--prefill", type=int, default=16)
    ap.add_argument("--decode", type=int, default=8)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--engine", default="both", choices=("both", "irrun", "ov"))
    ap.add_argument("--max-memory")
    ap.add_argument("--profile")
    ap.add_argument("--by-op", action="store_true", help="irrun: kernel CPU time per op type of a decode step")
    ap.add_argument("--worker", nargs=2, help=argparse.SUPPRESS)
    a = ap.parse_args()
    xml = str(Path(a.model) / "openvino_model.xml") if Path(a.model).is_dir() else a.model
    if a.worker:
        worker(a.worker[0], xml, a.prefill, a.decode, a.worker[1], a.max_memory, a.profile, a.threads, a.by_op)
        return 0
    env = dict(os.environ, CI="true", OMP_NUM_THREADS=str(a.threads),
               OPENBLAS_NUM_THREADS=str(a.threads), MKL_NUM_THREADS=str(a.threads))
    res = {}
    with tempfile.TemporaryDirectory() as tmp:
        for engine in ("irrun", "ov") if a.engine == "both" else (a.engine,):
            out = os.path.join(tmp, engine)
            cmd = [sys.executable, "-I", os.path.abspath(__file__), xml, "--prefill", str(a.prefill),
                   "--decode", str(a.decode), "--threads", str(a.threads), "--worker", engine, out]
            cmd += ["--max-memory", a.max_memory] if a.max_memory and engine == "irrun" else []
            cmd += ["--profile", os.path.abspath(a.profile)] if a.profile and engine == "irrun" else []
            cmd += ["--by-op"] if a.by_op and engine == "irrun" else []
            subprocess.run(cmd, check=True, env=env, cwd=tmp)
            res[engine] = json.load(open(out + ".json"))
            res[engine]["logits"] = np.load(out + ".npy")
    for engine, r in res.items():
        dec = "-" if r["decode"] is None else f"{r['decode'] * 1e3:.2f} (best {r['best'] * 1e3:.2f})"
        print(f"{engine:6s} import + read_model {r['read']:.2f} s  ready {r['ready']:.2f} s  "
              f"prefill({a.prefill}) {r['prefill'] * 1e3:.1f} ms  "
              f"decode {dec} ms/token  peak RSS {r['rss_mb']:.0f} MB")
        if r.get("by_op"):
            print(f"  a decode step by op type (kernel CPU time, {a.decode} steps):")
            for name, calls, ms, us in r["by_op"]:
                each = "" if us is None else f"{calls:6.1f} calls  {us:8.1f} us/call"
                print(f"    {name:32s} {ms:8.3f} ms  {each}")
    if len(res) == 2:
        i, o = res["irrun"], res["ov"]
        rel = float(np.max(np.abs(i["logits"] - o["logits"])) / (np.max(np.abs(o["logits"])) or 1))
        print(f"ratio  prefill {i['prefill'] / o['prefill']:.1f}x  decode "
              f"{(i['decode'] or 0) / (o['decode'] or 1):.1f}x  same greedy tokens: "
              f"{i['tokens'] == o['tokens']}  max rel logits diff {rel:.2e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
