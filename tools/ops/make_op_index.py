"""Rewrite irrun/ops/index.json (op type -> the modules that register it) from the registry.

    python tools/make_op_index.py

``irrun`` imports an op module only when a model needs one of its types and finds the module
through this index; a type missing from it still works (every module is then imported), only
slower. tests/test_lazy_ops.py fails until the index is current.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from irrun.ops import registry  # noqa: E402

if __name__ == "__main__":
    print(f"wrote {registry.write_index()}")
