"""Rewrite irrun/ops/index.json (op type -> the modules that register it) from the registry.

    python -m tools.ops.make_op_index

``irrun`` imports an op module only when a model needs one of its types and finds the module
through this index; a type missing from it still works (every module is then imported), only
slower. tests/test_lazy_ops.py fails until the index is current.
"""

from irrun.ops import registry

if __name__ == "__main__":
    print(f"wrote {registry.write_index()}")
