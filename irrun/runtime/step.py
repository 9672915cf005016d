"""One step of a plan (:mod:`irrun.runtime.plan`): a layer, what the loop does there
(:class:`StepKind`), what it reads and frees, and what the plan prepared for it."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum

from ..errors import LayerRef
from ..ops.base import Op
from ..types.tensor_info import TensorInfo


class StepKind(str, Enum):
    """What the loop does at a step (the layer's :class:`Role` decides the first two)."""

    PARAM = "param"         # a model's (or body's) input: the run's array
    RESULT = "result"       # a model's (or body's) output: the array it reads is returned
    CONST = "const"         # a layer whose value is known before the run (Const, folded, cached)
    OP = "op"               # the layer's kernel runs


PARAM, RESULT, CONST, OP = StepKind.PARAM, StepKind.RESULT, StepKind.CONST, StepKind.OP


def _unlinked(*args: object, **kw: object) -> list:
    raise AssertionError("a step runs before link() bound its kernel")


@dataclass(slots=True)
class Step:
    node: object
    kind: StepKind
    op: Op                         # the layer's op (a PARAM, RESULT or CONST step's too)
    reads: list[tuple]             # (producer, port) per input, in input order
    infos: list[TensorInfo | None]
    frees: list[tuple]             # ports whose last reader is this step
    ref: LayerRef
    need: tuple = (0, 0, ())       # (bytes, output port, dims) of its largest output's least size
    skip: frozenset = frozenset()  # lazy output ports nobody reads (``run(..., skip=)``)
    inplace: tuple | None = None   # the input port whose buffer the output may take (``out=``)
    expect: tuple | None = None    # ((dtype, shape), ...) when every output is static: O(1) checks
    constant: bool = False         # an op whose inputs are all constant-derived (irrun/analysis/constant_precision.py)
    hi: int = 0                    # bytes its largest output may take (UNBOUNDED: no bound known)
    call: Callable = _unlinked     # op.run, bound once (link())
    kw: dict = field(default_factory=dict)   # its prepared keyword arguments (``skip``)
    slow: bool = False             # run through irrun.analysis.contract.run_checked (constants, context)
    specs: tuple | None = ()       # (dtype, ((lo, hi), ...)) per output: irrun.analysis.contract.outputs_fit
    values: tuple = ()             # a CONST step's outputs
    guard: int = 0                 # item size to check (input elements x it) against the budget
    puts: tuple = ()               # (output index, port) per output somebody reads
    ins: tuple = ()                # the slots of ``reads``, ``puts``, ``frees`` and ``inplace``
    fetch: Callable = _unlinked    # env -> its inputs (``[env[i] for i in ins]`` in C: number())
    slots: tuple = ()              # in a run of the plan's loop (irrun.runtime.plan.number)
    drop: tuple = ()
    into: int | None = None
    blas: int | None = None        # BLAS threads for its products (irrun.limits.threads.blas_threads_for); None: none
    unless: frozenset | None = None   # variables whose being set makes it skipped (Op.unset_only_inputs)
    nones: tuple = ()              # its outputs when skipped (one None each)
