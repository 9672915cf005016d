"""Where irrun's time goes across the public IR corpus: per-op-type totals over every model.

    python -m tools.bench.profile_public [--corpus /work/corpus/public] [--bench /work/bench/final.json]
        [--threads 1] [--iterations 10] [--models a,b] [--top 25]

Why: a ratio to OpenVINO per model (tools/bench/bench.py) says *which* models are slow, not *what*
in them is; fixing the op type that costs most summed over the corpus moves the public median
most. Each model is profiled in its own process (``irrun run M.xml --random-inputs --profile
--json``, the per-layer medians of ``--iterations`` runs); note a profile computes every output
(MaxPool-8's indices too), which a plain run skips when nobody reads them. OpenVINO's time per
model comes from a bench JSON (``--bench``, rows ``runtime == "openvino"`` at the same thread
count), so the report shows how far each model is from it. Everything goes to stdout.
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import subprocess
import sys
from pathlib import Path


def profile_model(xml: Path, threads: int, iterations: int) -> dict | None:
    """One model's ``--profile --json`` output, or None when irrun cannot run it."""
    env = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")}
    proc = subprocess.run([sys.executable, "-m", "irrun", "run", str(xml), "--random-inputs", "--threads",
                           str(threads), "--profile", "--json", "-n", str(iterations)],
                          capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        return None
    return json.loads(proc.stdout[proc.stdout.index("{"):])


def openvino_times(bench: Path, threads: int) -> dict[str, float]:
    """OpenVINO CPU f32 median ms per model at ``threads``, from a bench.py JSON."""
    if not bench.is_file():
        return {}
    rows = json.loads(bench.read_text())["results"]
    return {r["model"]: r["median"] * 1e3 for r in rows if r["runtime"] == "openvino" and r["threads"] == threads}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", type=Path, default=Path(os.environ.get("IRRUN_PUBLIC_CORPUS", "/work/corpus/public")))
    ap.add_argument("--bench", type=Path, default=Path("/work/bench/final.json"))
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--iterations", type=int, default=10)
    ap.add_argument("--models", default="", help="comma-separated model folder names (default: all)")
    ap.add_argument("--top", type=int, default=25, help="op types shown in the corpus-wide table")
    args = ap.parse_args(argv)
    ov = openvino_times(args.bench, args.threads)
    names = args.models.split(",") if args.models else sorted(
        p.parent.name for p in args.corpus.glob("*/model.xml"))
    by_type: collections.Counter = collections.Counter()
    per_model_type: dict[str, collections.Counter] = {}
    print(f"{'model':58} {'irrun ms':>9} {'OV ms':>7} {'ratio':>6}  top op types (ms)")
    for name in names:
        prof = profile_model(args.corpus / name / "model.xml", args.threads, args.iterations)
        if prof is None:
            print(f"{name:58} {'(not runnable with random inputs)':>24}")
            continue
        kinds: collections.Counter = collections.Counter()
        for layer in prof["layers"]:
            kinds[layer["op"]] += layer["median_ms"]
        per_model_type[name] = kinds
        by_type.update(kinds)
        total = prof["total_ms"]["median"]
        ref = ov.get(name)
        ratio = f"{total / ref:6.2f}" if ref else "     -"
        top = ", ".join(f"{k} {v:.2f}" for k, v in kinds.most_common(3))
        print(f"{name:58} {total:9.3f} {ref if ref else float('nan'):7.3f} {ratio}  {top}", flush=True)
    grand = sum(by_type.values()) or 1.0
    print(f"\nper op type, summed over {len(per_model_type)} models (median ms per run):")
    for kind, ms in by_type.most_common(args.top):
        print(f"  {kind:32} {ms:9.3f}  {100 * ms / grand:5.1f}%")
    return 0


if __name__ == "__main__":
    sys.exit(main())
