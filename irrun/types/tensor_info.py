"""The types the core and the ops share: what inference knows of a port, and an op's role.

They live here, outside :mod:`irrun.ops`, so that the core (inference, bounds, the executor, the
checker) imports nothing from the ops package to talk about tensors, and every op imports them
from the core (``irrun.ops.base`` re-exports them for older imports).
"""
from __future__ import annotations

import enum
from dataclasses import dataclass

import numpy as np

from .elements import ElementType
from .shapes import PartialShape


class Role(enum.Enum):
    """What a layer is to the framework, declared by its op class (``Op.role``), so that the
    core asks "is this a model input?" instead of comparing type names."""

    COMPUTE = enum.auto()              #: an ordinary op: inputs in, outputs out
    PARAMETER = enum.auto()            #: a model (or body) input
    RESULT = enum.auto()               #: a model (or body) output
    CONSTANT = enum.auto()             #: a value stored in the weights
    VARIABLE_READ = enum.auto()        #: reads a state variable (ReadValue)
    VARIABLE_WRITE = enum.auto()       #: writes a state variable (Assign); a graph sink
    SUBGRAPH = enum.auto()             #: runs bodies of its own (TensorIterator, Loop, If)


class Precision(enum.Flag):
    """How OpenVINO's CPU plugin treats an op under a low inference precision (f16/bf16), declared
    by its op class (``Op.precision``) for :mod:`irrun.debug.accuracy.precision`, which simulates the
    plugin's passes (and :mod:`irrun.debug.accuracy.match`, which skips what conversion tools insert)."""

    NONE = 0
    SIGNIFICANT = enum.auto()      #: computes at low precision; ends the f32 graph tail (MatMul, convolutions, RNNs)
    NORMALIZATION = enum.auto()    #: kept in f32 under f16 (MarkNormalizationOps: MVN, NormalizeL2)
    EXP = enum.auto()              #: starts MarkExpReduceOpPath (Exp)
    SUM_REDUCTION = enum.auto()    #: ends it, starts MarkDivWithEps (ReduceSum, ReduceMean)
    EPSILON = enum.auto()          #: may stand between a reduction and its divisor (Add, Maximum, Sqrt, Power)
    SQUARE = enum.auto()           #: squares before a reduction (Power, Multiply, SquaredDifference)
    DIVIDE = enum.auto()           #: a division (Divide)
    POWER = enum.auto()            #: a power (Power: x ** -0.5 divides too)
    CONVERT = enum.auto()          #: a type conversion the graph asks for (Convert)
    INSERTED = enum.auto()         #: inserted by conversion/quantization tools (Convert, FakeQuantize)


@dataclass(frozen=True)
class TensorInfo:
    """What shape inference knows about one port: element type, partial shape, maybe the value.

    A small integer tensor whose value is unknown may carry per-element bounds instead (what
    OpenVINO's ``evaluate_lower``/``evaluate_upper`` compute, see :mod:`irrun.ops.bounds`):
    ``lower``/``upper`` are int64 arrays of its static shape, ``bounds.UNBOUNDED`` (int64 max)
    where nothing bounds an element from above, ``bounds.NEG_UNBOUNDED`` (int64 min) from below."""

    etype: ElementType
    shape: PartialShape
    value: np.ndarray | None = None
    lower: np.ndarray | None = None
    upper: np.ndarray | None = None

    @staticmethod
    def of(value: np.ndarray, etype: ElementType) -> "TensorInfo":
        return TensorInfo(etype, PartialShape(value.shape), value)

    def __str__(self) -> str:
        return f"{self.etype}{self.shape}"
