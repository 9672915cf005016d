"""irrun's developer tools, grouped by purpose; each runs as ``python -m tools.<group>.<name>`` from
the checkout's root (never by path: the tools import one another as ``from tools.x import y``).

- ``tools.ovoracle``: OpenVINO as the test oracle, in an isolated worker process (used by all groups).
- ``tools.conformance``: the one conformance run (``conformance``), its result rows, ONNX's node tests.
- ``tools.zoo``: the model-zoo suites (real converted models, LLM, encoder, seq2seq, tokenizer zoos)
  and the builders of their random-weight models.
- ``tools.expectations``: OpenVINO's measured answers per op family, written as ONE fixture each.
- ``tools.fixtures``: the IR fixtures of tests/fixtures/ built and run by OpenVINO.
- ``tools.fuzz``: the hostile-input corpus, its case families, single-point IR mutations, the fuzzer.
- ``tools.bench``: speed and memory next to OpenVINO (``bench`` is the one to quote).
- ``tools.ops``: starting a new op, the op index.
- ``tools.docs``: docs/api.md and the README's samples.
"""
from pathlib import Path

#: The checkout the tools belong to: tests/fixtures/, docs/, samples/ and irrun/ are written below it.
ROOT = Path(__file__).resolve().parent.parent
