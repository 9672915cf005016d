"""tools/bench/bench_llm.py's closing summary: the tiny decoders' median ratio to OpenVINO per
thread count (one row per thread count; a 2-thread row must not replace the 1-thread one)."""
from __future__ import annotations

from tools.bench.bench_llm import tiny_summary


def _row(model: str, runtime: str, threads: int, decode: float, cpu: float) -> dict:
    return {"model": model, "runtime": runtime, "threads": threads, "decode": decode, "decode_cpu": cpu}


def test_the_tiny_median_is_per_thread_count():
    rows = []
    for model, one, two in (("tiny_a-int8", 5.0, 3.0), ("tiny_b-int8", 7.0, 4.0), ("tiny_c-int8", 6.0, 2.0)):
        rows += [_row(model, "openvino", 1, 1.0, 1.0), _row(model, "irrun", 1, one, one),
                 _row(model, "openvino", 2, 1.0, 2.0), _row(model, "irrun", 2, two, two)]
    lines = tiny_summary(rows).splitlines()
    assert lines == ["tiny LLM decode at 1 thread(s), median irrun/OpenVINO over 3 models (all): 6.0x wall, 6.0x CPU time",
                     "tiny LLM decode at 2 thread(s), median irrun/OpenVINO over 3 models (all): 3.0x wall, 1.5x CPU time"]
