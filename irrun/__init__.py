"""irrun: read, shape-check and run OpenVINO IR models with NumPy, without OpenVINO.

    model = irrun.read_model("model.xml"); outputs = model.run(x); findings = irrun.check("model.xml")

The model machinery (NumPy, lxml, the graph) is imported when first used, so ``import irrun``,
``irrun --version`` and ``irrun --help`` stay quick; the error classes are here at once.
"""
from __future__ import annotations

import os
from typing import TYPE_CHECKING

from .errors import (
    ExecutionError,
    GraphError,
    InputError,
    InternalError,
    IrrunError,
    ModelFileError,
    ShapeError,
    UnsupportedError,
)

if TYPE_CHECKING:
    from collections.abc import Mapping

    from .analysis.check import Finding
    from .limits.memory import MemoryBudgetError
    from .model import Model, PortSpec, read_model
    from .results import Results
    from .types.shapes import Dim, PartialShape

__version__ = "0.1.0"

__all__ = ["read_model", "check", "set_threads", "export_onnx", "Model", "PortSpec", "Results", "Dim", "PartialShape",
           "IrrunError", "ModelFileError", "GraphError", "ShapeError", "ExecutionError", "InputError",
           "UnsupportedError", "InternalError", "MemoryBudgetError", "__version__"]

#: names imported from their module on first use (PEP 562)
_LAZY = {"read_model": "model", "Model": "model", "PortSpec": "model", "Results": "results", "Dim": "types.shapes",
         "PartialShape": "types.shapes", "MemoryBudgetError": "limits.memory",
         "export_onnx": "export.onnx",
         # modules that moved into the pipeline packages, still reachable as before
         "iterations": None, "budget": None, "threads": None}
_MOVED = {"iterations": "limits.iterations", "budget": "limits.memory", "threads": "limits.threads"}


def __getattr__(name: str):
    if name in _LAZY:
        from importlib import import_module
        if name in _MOVED:
            value = import_module(f".{_MOVED[name]}", __name__)
        else:
            value = getattr(import_module(f".{_LAZY[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'irrun' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


def set_threads(n: int) -> None:
    """Use ``n`` threads from now on: BLAS's (MatMul, convolutions) and irrun's own pool (big
    element-wise and FakeQuantize work, bit-identical at any count): see
    :mod:`irrun.limits.threads`."""
    from .limits.threads import set_threads as _set
    _set(n)


def check(path: str | os.PathLike, shapes: Mapping[str, object] | None = None) -> list[Finding]:
    """Check an IR file; returns a list of :class:`irrun.analysis.check.Finding` (empty when clean).
    ``shapes`` (input name -> dims, e.g. ``{"x": "1,3,?,?"}``) checks it for new input shapes."""
    from .analysis.check import check_model
    from .model import Model
    return check_model(path, shapes, build=lambda ir: Model(ir, strict=False, declared_types=True))
