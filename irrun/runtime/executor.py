"""Run a graph on NumPy arrays: a loop over a precomputed plan, readable at a glance.

The plan is built once per (graph, inferred types): for each live layer in topological order, the
ports it reads, its op, and which of its inputs it is the last reader of. A run then only moves
arrays between an environment and the kernels, checks each result against the inferred port
(:mod:`irrun.analysis.contract`), uses values already folded by shape inference, and drops every
intermediate after its last consumer: :func:`execute` shows every step to an observer (debug
tools), :func:`irrun.runtime.fast_loop.run` is the loop of every other run.

The plan also decides two savings the ops opt into (:class:`irrun.ops.base.Op`): which outputs
nobody reads (``skip``, for ops with ``lazy_outputs``) and which input buffer a layer may write its
result into (``inplace``, see :func:`irrun.runtime.inplace.choose_inplace`).
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from time import perf_counter

import numpy as np

from ..analysis.contract import output_specs, run_checked
from ..analysis.graph import Graph, inputs_of, role
from ..errors import LayerRef, UnsupportedError
from ..limits import memory as budget
from ..ops._numerics import quiet_run
from ..ops.base import Op
from ..types.tensor_info import Role, TensorInfo
from . import fast_loop as fastloop
from . import heap
from .fast_loop import guard
from .inplace import choose_inplace


@dataclass
class Step:
    node: object
    kind: str                      # "param" | "result" | "const" (value known) | "op"
    op: Op                         # the layer's op (a "param", "result" or "const" one too)
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
    call: Callable | None = None   # op.run, bound once
    kw: dict = field(default_factory=dict)   # its prepared keyword arguments (``skip``)
    slow: bool = False             # run through irrun.analysis.contract.run_checked (constants, context)
    specs: tuple | None = ()       # (dtype, ((lo, hi), ...)) per output: irrun.analysis.contract.outputs_fit
    values: tuple = ()             # a "const" step's outputs
    guard: int = 0                 # item size to check (input elements x it) against the budget
    puts: tuple = ()               # (output index, port) per output somebody reads
    ins: tuple = ()                # the slots of ``reads``, ``puts``, ``frees`` and ``inplace``
    slots: tuple = ()              # in a run of the plan's loop (irrun/runtime/fast_loop.py)
    drop: tuple = ()
    into: int | None = None


#: ``Step.hi`` of an output whose size shape inference cannot bound.
UNBOUNDED = 1 << 80


class Plan(list):
    """The steps, with what a run checks in O(1): ``need``, the bytes the largest tensor needs
    at least; ``unguarded``, the most bytes a layer whose op cannot check its own allocation
    (``Op.allocation == ""``) may ask for."""

    need: int = 0
    unguarded: int = 0
    #: the layers a run executes (op steps): a loop body's cost per iteration (irrun.limits.iterations)
    layers: int = 0
    #: the outputs of the "const" steps enter a run's arrays at its start, which changes nothing
    #: in the live account (a plan's values are read-only: they count nothing) ...
    preset: dict = {}
    #: ... the loop runs the other steps only (irrun/runtime/fast_loop.py), the ports numbered: ``initial``
    #: holds the values of the slots when a run starts
    loop: list = []
    initial: list = []


@dataclass
class RunContext:
    """What one run shares beyond the arrays, handed to the ops with ``uses_context``: the
    values the model's variables hold (ReadValue reads them) and this run's writes (Assign), which
    the model keeps only when the whole run succeeds — like OpenVINO, a ReadValue sees the value
    of the previous run even when an Assign of the same variable ran before it."""

    values: dict[str, np.ndarray] = field(default_factory=dict)
    writes: dict[str, np.ndarray] = field(default_factory=dict)

    def read(self, variable_id: str) -> np.ndarray | None:
        """The variable's value, or None when it is unset (never written, or reset)."""
        return self.values.get(variable_id)

    def write(self, variable_id: str, value: np.ndarray) -> None:
        self.writes[variable_id] = value


def plan(g: Graph, order: list, ops: dict[int, Op], types: dict,
         rewrite: Callable[[list[Step]], list[Step]] | None = None) -> list[Step]:
    """The steps for the layers in ``order`` with these inferred ``types`` (every layer in
    ``order`` has its op: inference needed them). ``rewrite`` may replace steps before they are
    linked (the program's constant cache: irrun/runtime/program.py)."""
    steps = []
    for n in order:
        layer = g.nodes[n]["layer"]
        infos = [types.get((n, i)) for i in range(len(layer.outputs))]
        r = role(layer.type)
        kind = ("param" if r is Role.PARAMETER else "result" if r is Role.RESULT else
                "const" if infos and all(i is not None and i.value is not None for i in infos) else "op")
        steps.append(Step(n, kind, ops[n], inputs_of(g, n), infos, [], layer.ref))
    if rewrite is not None:
        steps = rewrite(steps)
    return link(steps, types)


def link(steps: list[Step], types: dict) -> list[Step]:
    """Fill in what depends on the other steps: kept and freed ports, lazy outputs, O(1)
    output checks, constant flags and in-place buffers."""
    readers = {r for s in steps for r in s.reads}
    constant: set = set()                  # ports holding constant-derived arrays
    for step in steps:
        step.frees = []
        step.need = _least_shape(step.infos) if step.kind != "const" else (0, 0, ())
        keep = [i for i in range(len(step.infos)) if (step.node, i) in readers]
        step.puts = tuple((i, (step.node, i)) for i in keep)   # (others: dropped)
        if step.kind == "const" or (step.kind == "op" and not step.op.uses_context
                                    and all(r in constant for r in step.reads)):   # (a packed Const
                                    # has no reads: irrun/ops/constant.py)
            step.constant = step.kind == "op"
            constant.update(p for _, p in step.puts)
        if step.kind == "op":
            step.hi = _most_bytes(step.infos)
            step.guard = max((budget.itemsize(i.etype.dtype) for i in step.infos if i is not None),
                             default=1) if step.op.allocation == "inputs" else 0
            step.skip = frozenset(i for i in step.op.lazy_outputs if i not in keep)
            step.call, step.kw = step.op.run, {"skip": step.skip} if step.skip else {}
            step.slow = step.constant or step.op.uses_context
            step.specs = output_specs(step.infos)
            known = [i for i in step.infos if i is not None]
            if len(known) == len(step.infos) and all(i.etype.dtype is not None and i.shape.is_static
                                                     for i in known):
                step.expect = tuple((i.etype.dtype, i.shape.to_tuple()) for i in known)
        elif step.kind == "const":      # (every info known: plan(), Program._bake)
            step.values = tuple(None if i is None else i.value for i in step.infos)
            for v in step.values:           # shared by every run: never written, counted as
                if type(v) is np.ndarray and v.base is None:   # nothing (like cached constants)
                    v.flags.writeable = False
    seen: set = set()
    for step in reversed(steps):           # the last reader of a port frees it
        for r in step.reads:
            if r not in seen:
                seen.add(r)
                step.frees.append(r)
    choose_inplace(steps, types)
    out = Plan(steps)
    out.preset, out.loop = _without_constants(steps)
    out.initial = fastloop.number(out.preset, out.loop)
    out.need = max((s.need[0] for s in steps), default=0)
    out.unguarded = max((s.hi for s in steps if s.kind == "op" and not s.op.allocation), default=0)
    out.layers = sum(s.kind == "op" for s in steps)
    return out


def _without_constants(steps: list[Step]) -> tuple[dict, list[Step]]:
    """What a run sets at its start (every "const" step's outputs: a plan's values, read-only,
    count nothing) and the steps its loop runs. A folded layer that is the last to read some
    ports (a ShapeOf's input) hands them to the step before it, whose copy frees them after its
    own peak: every peak the account checks is the same (the folded layer's own one, adding
    nothing, cannot be higher than the one before it)."""
    preset: dict = {}
    loop: list[Step] = []
    for s in steps:
        if s.kind != "const":
            loop.append(s)
            continue
        preset.update((p, s.values[i]) for i, p in s.puts)
        if s.frees and loop:
            loop[-1] = replace(loop[-1], frees=loop[-1].frees + s.frees)
    return preset, loop


#: Plans kept per model or body (one per input signature), oldest dropped first.
PLAN_CACHE = 8


def cached_plan(cache: dict, key: tuple, make: Callable[[], list[Step]]) -> list[Step]:
    """``cache[key]``, made with ``make()`` on a miss (the oldest of ``PLAN_CACHE`` dropped)."""
    steps = cache.get(key)
    if steps is None:
        steps = make()
        if len(cache) >= PLAN_CACHE:
            cache.pop(next(iter(cache)))
        cache[key] = steps
    return steps


def _least_shape(infos: list[TensorInfo | None]) -> tuple[int, int, tuple[int, ...]]:
    """(bytes, port, dims) of the output whose smallest possible shape is largest; Consts are
    views of the mapped .bin and folded values are small, so those are not counted."""
    best: tuple[int, int, tuple[int, ...]] = (0, 0, ())
    for i, info in enumerate(infos):
        if info is not None and info.value is None and info.shape.rank is not None:
            lo = tuple(d.lo for d in info.shape)
            n = budget.nbytes(lo, info.etype.dtype)
            if len(lo) > budget.NUMPY_MAXDIMS or budget.too_big_for_numpy(lo, info.etype.dtype):
                n = budget.NUMPY_MAX + 1
            best = max(best, (n, i, lo))
    return best


def _most_bytes(infos: list[TensorInfo | None]) -> int:
    """Bytes the largest output may take, by its partial shape (UNBOUNDED when unknown)."""
    most = 0
    for info in infos:
        n = None if info is None else info.shape.max_numel()
        if info is None or n is None:
            return UNBOUNDED
        most = max(most, n * budget.itemsize(info.etype.dtype))
    return most


def check_memory(steps: list[Step], limit: int, file: str | None = None) -> None:
    """Before anything runs: refuse a plan in which some tensor must exceed ``limit`` bytes,
    naming the layer, the port and the bytes. Allocates nothing, so ``check`` works on any model."""
    if isinstance(steps, Plan) and steps.need <= limit:
        return
    for s in steps:
        if s.need[0] > limit:
            _, i, lo = s.need
            info = s.infos[i]
            if len(lo) > budget.NUMPY_MAXDIMS:
                raise UnsupportedError(f"the output has rank {len(lo)}; NumPy arrays have at most "
                                       f"{budget.NUMPY_MAXDIMS} dims", file=file, layer=s.ref,
                                       port=f"output {i}")
            what = "the output" + ("" if info.shape.is_static else f" (shape {info.shape}, at least)")
            why = budget.refusal(lo, info.etype.dtype, what, limit) \
                or budget.over_message(what, s.need[0], limit)      # (refusal: never None here)
            raise budget.MemoryBudgetError(why, file=file, layer=s.ref, port=f"output {i}")


#: ``observe(step, inputs, outputs, seconds)``: called after every step (debug tools: dump,
#: profile, compare, stop-at). A Result step has no outputs; a "const" step took no time.
#: An observer that returns a list replaces the step's outputs with it for the rest of the run
#: (irrun.debug.accuracy.precision rounds activations to f16/bf16 this way); None keeps them.
Observer = Callable[[Step, list, list, float], "list | None"]


def execute(steps: list[Step], feeds: dict, file: str | None = None,
            observe: Observer | None = None, ctx: RunContext | None = None) -> dict:
    """Run the plan; ``feeds`` maps Parameter node -> array. Returns Result node -> array.
    ``ctx`` reaches the ops that use it (variables; sub-graph bodies run with the same one).
    Layers write in place (``Step.inplace``) unless an observer keeps the arrays it is shown
    (its ``keeps_arrays`` attribute, true when absent): a kept array must not change later."""
    heap.keep()
    env: dict[tuple, np.ndarray] = {}
    results = {}
    live = budget.live()                   # the run's live bytes, bodies included (budget.Live)
    inplace = observe is None or not getattr(observe, "keeps_arrays", True)
    limit = budget.current()
    if observe is None and isinstance(steps, Plan):
        with quiet_run():                   # one errstate for every kernel (ops/_numerics.py)
            return fastloop.run(steps, feeds, file, ctx, limit, live)
    counted: dict[tuple, int] = {}
    for s in steps:
        t0 = perf_counter()
        args = [env[r] for r in s.reads]
        if s.kind == "param":
            outs = [feeds[s.node]]
        elif s.kind == "result":
            results[s.node] = args[0]
            outs = []
        elif s.kind == "const":
            outs = list(s.values)
        else:
            if s.hi > limit and s.guard:
                guard(s, args, limit, file)
            kw = {}                         # observers see every output: no ``skip``
            if s.inplace is not None and inplace:
                kw["out"] = env[s.inplace]
            outs = run_checked(s.op, args, s.infos, s.ref, file, ctx=ctx, kwargs=kw, expect=s.expect,
                               constant=s.constant)
        replaced = None if observe is None else observe(s, args, outs, perf_counter() - t0)
        if replaced is not None:
            outs = replaced
        if live is not None:
            _account(live, counted, s, outs, env, limit, file)
            continue
        for i, p in s.puts:
            env[p] = outs[i]
        for r in s.frees:
            env.pop(r, None)
    return results


def _account(live: budget.Live, counted: dict, s: Step, outs, env: dict, limit: int,
             file: str | None) -> None:
    """Keep step ``s``'s outputs in ``env``, drop the ports it was the last to read, and keep the
    run's live account (:class:`irrun.limits.memory.Live`): the bytes of the arrays this run holds that
    own their data (views, and read-only arrays such as a plan's values, count nothing;
    ``counted`` holds each port's share). Its peak, a layer's outputs beside the inputs it was
    the last to read, must fit ``limit``."""
    total = live.total
    for i, p in s.puts:
        a = env[p] = outs[i]
        if type(a) is np.ndarray and a.base is None and a.flags.writeable:   # it owns its bytes
            n = counted[p] = a.nbytes if a.dtype.kind != "T" else budget.string_bytes(a)
            total += n
    peak = total
    if s.inplace is not None and s.inplace in counted and outs and env.get(s.inplace) is outs[0]:
        peak -= counted[s.inplace]          # the output took that input's buffer: counted twice
    for r in s.frees:
        env.pop(r, None)
        total -= counted.pop(r, 0)
    live.total = total
    if peak > limit:
        raise budget.MemoryBudgetError(budget.over_message("the run's live tensors", peak, limit),
                                       file=file, layer=s.ref)
