"""Time a stateful decoder LLM IR (optimum-intel export) in irrun and OpenVINO, each in its own
process: import + read_model, ready to run (OpenVINO: + compile_model), prefill of P tokens,
median decode ms/token, greedy tokens, last logits. (``tools/bench/bench_read.py`` compares import +
read_model alone, over several fresh processes.)

    python -m tools.bench.profile_llm MODEL_DIR [--prefill 16] [--decode 8] [--threads 1]
        [--engine both|irrun|ov] [--max-memory 1G] [--profile out.prof]

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


def worker(engine: str, xml: str, prefill: int, decode: int, out: str, max_memory: str | None,
           profile: str | None, threads: int) -> None:
    t0 = time.perf_counter()
    if engine == "irrun":
        import irrun
        from irrun.limits.memory import parse_size
        model = irrun.read_model(xml)
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
        for k in range(decode):
            tokens.append(tok)
            t = time.perf_counter()
            logits = run(_feeds(names, np.array([[tok]]), prefill + k, prefill + k + 1))
            dec.append(time.perf_counter() - t)
            tok = int(np.argmax(logits[0, -1]))
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
    ap.add_argument("--worker", nargs=2, help=argparse.SUPPRESS)
    a = ap.parse_args()
    xml = str(Path(a.model) / "openvino_model.xml") if Path(a.model).is_dir() else a.model
    if a.worker:
        worker(a.worker[0], xml, a.prefill, a.decode, a.worker[1], a.max_memory, a.profile, a.threads)
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
            subprocess.run(cmd, check=True, env=env, cwd=tmp)
            res[engine] = json.load(open(out + ".json"))
            res[engine]["logits"] = np.load(out + ".npy")
    for engine, r in res.items():
        dec = "-" if r["decode"] is None else f"{r['decode'] * 1e3:.2f} (best {r['best'] * 1e3:.2f})"
        print(f"{engine:6s} import + read_model {r['read']:.2f} s  ready {r['ready']:.2f} s  "
              f"prefill({a.prefill}) {r['prefill'] * 1e3:.1f} ms  "
              f"decode {dec} ms/token  peak RSS {r['rss_mb']:.0f} MB")
    if len(res) == 2:
        i, o = res["irrun"], res["ov"]
        rel = float(np.max(np.abs(i["logits"] - o["logits"])) / (np.max(np.abs(o["logits"])) or 1))
        print(f"ratio  prefill {i['prefill'] / o['prefill']:.1f}x  decode "
              f"{(i['decode'] or 0) / (o['decode'] or 1):.1f}x  same greedy tokens: "
              f"{i['tokens'] == o['tokens']}  max rel logits diff {rel:.2e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
