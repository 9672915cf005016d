"""Measure OpenVINO on the ops of opsets 1-16 that irrun gained last (issue 13) and on the
ScaledDotProductAttention sink input, into ONE fixture.

    python tools/make_opsets_expectations.py [--out tests/fixtures/opsets_expectations] [-k substring]

Writes tests/fixtures/opsets_expectations.{json,npz} in the format of tools/make_nn_expectations.py
(its Case/Dyn, build_case and main are reused, and make_misc_expectations' measure, which asks the
reference kernel through ``Node.evaluate`` when ConstantFolding leaves the op alone);
tests/ops/nn_cases.py reads the pair. Cases per op live in the ``*_cases`` builders below.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import make_misc_expectations as misc  # noqa: E402
import make_nn_expectations as nn  # noqa: E402
from make_nn_expectations import F16, Case, Cases, Dyn, Rnd, f32, i64  # noqa: E402

CASES = Cases()
add = CASES.add
rnd = Rnd(20264)


def normal(*shape) -> np.ndarray:
    return rnd.rng.normal(size=shape).astype(np.float32)


# ---------------------------------------------------------------------------------------------
# ScaledDotProductAttention-13 with attention sinks (input 5)

def sink_cases() -> None:
    op, sd = "ScaledDotProductAttention", lambda causal=False: {"causal": causal}  # noqa: E731
    q, k, v = normal(1, 2, 3, 4), normal(1, 2, 5, 4), normal(1, 2, 5, 6)
    mask, scale = normal(3, 5), np.float32(0.4)
    for tag, sink, causal in [("per-head", normal(1, 2, 1, 1), False), ("per-head-causal", normal(1, 2, 1, 1), True),
                              ("per-row", normal(1, 2, 3, 1), False), ("one", normal(1, 1, 1, 1), False),
                              ("large", normal(1, 2, 1, 1) * 40, False)]:
        add(Case(f"{op}-sink-{tag}", op, "opset13", [q, k, v, mask, scale, sink], sd(causal), params=(0, 1, 2, 5)))
    add(Case(f"{op}-sink-f16", op, "opset13", [a.astype(F16) for a in (q, k, v, mask, scale, normal(1, 2, 1, 1))],
             sd(), params=(0, 1, 2)))
    add(Case(f"{op}-sink-bool-mask", op, "opset13", [q, k, v, rnd.rng.random((3, 5)) > 0.3, scale, normal(1, 2, 1, 1)],
             sd(), params=(0, 1, 2)))
    for tag, shapes in [("ok", ["1,2,3,5", "1,2,3,5", "1,2,3,5", "3,3", "", "1,2,1,1"]),
                        ("dyn", ["?,?,?,64", "?,?,?,64", "?,?,?,32", "?,1,?,?", "", "1,?,1,1"]),
                        ("rank-bad", ["1,2,3,5", "1,2,3,5", "1,2,3,5", "3,3", "", "2,1,1"]),
                        ("last-bad", ["1,2,3,5", "1,2,3,5", "1,2,3,5", "3,3", "", "1,2,3,2"]),
                        ("head-bad", ["1,2,3,5", "1,2,3,5", "1,2,3,5", "3,3", "", "1,3,3,1"]),
                        ("L-bad", ["1,2,3,5", "1,2,3,5", "1,2,3,5", "3,3", "", "1,2,2,1"]),
                        ("batch-bcast", ["1,2,3,5", "1,2,3,5", "1,2,3,5", "3,3", "", "5,1,1,1"]),
                        ("rank-dyn", ["1,2,3,5", "1,2,3,5", "1,2,3,5", "3,3", "", "..."])]:
        add(Case(f"{op}-sink-shape-{tag}", op, "opset13", [Dyn("f32", s) for s in shapes], sd(), params=()))


BUILDERS = [sink_cases]
all_cases = CASES.built_by(*BUILDERS)

if __name__ == "__main__":
    sys.exit(nn.main(cases_of=all_cases, out="opsets_expectations", doc=__doc__, measure_case=misc.measure))
