"""irrun: read, shape-check and run OpenVINO IR models with NumPy, without OpenVINO."""
from . import ops  # noqa: F401  (registers every op)
from .errors import IrrunError
from .model import Model, PortSpec, read_model
from .shapes import Dim, PartialShape

__all__ = ["read_model", "Model", "PortSpec", "IrrunError", "Dim", "PartialShape", "check", "set_threads"]
__version__ = "0.1.0"


def set_threads(n: int) -> None:
    """Use ``n`` BLAS threads (MatMul, convolutions) from now on: see :mod:`irrun.threads`."""
    from .threads import set_threads as _set
    _set(n)


def check(path, shapes=None):
    """Check an IR file; returns a list of :class:`irrun.checker.Finding` (empty when clean)."""
    from .checker import check_model
    return check_model(path, shapes)
