"""The plan of a run: for each live layer in topological order, the ports it reads, its op, and
which of its inputs it is the last reader of — built once per (graph, inferred types) and run by
the one loop of :mod:`irrun.runtime.loop`.

A plan also decides what the loop then does in O(1): the checks of each output against the
inferred port (:mod:`irrun.analysis.contract`), the values already folded by shape inference, each
intermediate dropped after its last reader, and two savings the ops opt into
(:class:`irrun.ops.base.Op`): outputs nobody reads (``skip``, for ops with ``lazy_outputs``) and
the input buffer a layer may write its result into (``inplace``, see
:func:`irrun.runtime.inplace.choose_inplace`). Every port a run keeps gets a slot in a list
(:func:`number`), so reading, keeping and freeing an array is a list index, not a tuple hash.
"""
from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from operator import itemgetter
from types import MappingProxyType

import numpy as np

from ..analysis.contract import output_specs
from ..analysis.graph import Graph, inputs_of, role
from ..errors import UnsupportedError
from ..limits import memory as budget
from ..limits import threads
from ..ops.base import Op
from ..types.tensor_info import Role, TensorInfo
from .inplace import choose_inplace
from .step import CONST, OP, PARAM, RESULT, Step

#: ``Step.hi`` of an output whose size shape inference cannot bound.
UNBOUNDED = 1 << 80


@dataclass(frozen=True, eq=False)
class Plan:
    """The steps (iterating a plan gives them), what the loop runs, and what a run checks in
    O(1): ``need``, the bytes the largest tensor needs at least; ``unguarded``, the most bytes a
    layer whose op cannot check its own allocation (``Op.allocation == ""``) may ask for;
    ``layers``, the op steps (a loop body's cost per iteration, irrun.limits.iterations).

    ``every_layer`` is the plan's one setting, fixed when it is made: a plan for an observer
    (:mod:`irrun.runtime.observation`) shows every layer — its ``loop`` is every step, the folded
    ones (CONST) too, and no output is skipped; any other plan sets the folded layers' values
    before the loop starts (``preset``, port -> value: read-only, they count nothing in the live
    account) and its loop runs the other steps only. ``initial``: the slots' values when a run
    starts."""

    steps: tuple[Step, ...]
    loop: tuple[Step, ...]
    preset: Mapping[tuple, np.ndarray]
    initial: tuple
    every_layer: bool
    need: int
    unguarded: int
    layers: int
    strings: bool = True    # may a port hold strings (counted by their bytes, not ``nbytes``)?

    def __iter__(self) -> Iterator[Step]:
        return iter(self.steps)

    def __len__(self) -> int:
        return len(self.steps)

    def __getitem__(self, i: int) -> Step:
        return self.steps[i]


def plan(g: Graph, order: list, ops: dict[int, Op], types: dict,
         rewrite: Callable[[list[Step]], list[Step]] | None = None, every_layer: bool = False) -> Plan:
    """The steps for the layers in ``order`` with these inferred ``types`` (every layer in
    ``order`` has its op: inference needed them). ``rewrite`` may replace steps before they are
    linked (the program's constant cache: irrun/runtime/program.py); ``every_layer``: see
    :class:`Plan`."""
    steps = []
    for n in order:
        layer = g.nodes[n]["layer"]
        infos = [types.get((n, i)) for i in range(len(layer.outputs))]
        r = role(layer.type)
        kind = (PARAM if r is Role.PARAMETER else RESULT if r is Role.RESULT else
                CONST if infos and all(i is not None and i.value is not None for i in infos) else OP)
        steps.append(Step(n, kind, ops[n], inputs_of(g, n), infos, [], layer.ref))
    if rewrite is not None:
        steps = rewrite(steps)
    return link(steps, types, every_layer)


def link(steps: list[Step], types: dict, every_layer: bool = False) -> Plan:
    """Fill in what depends on the other steps: kept and freed ports, lazy outputs, O(1)
    output checks, constant flags and in-place buffers; then the plan (:class:`Plan`)."""
    readers = {r for s in steps for r in s.reads}
    constant: set = set()                  # ports holding constant-derived arrays
    # (ports a rewrite added — irrun/runtime/program.py, Program._prepare — have no inferred type)
    produced = {(s.node, i): info for s in steps for i, info in enumerate(s.infos) if (s.node, i) not in types}
    for step in steps:
        step.frees = []
        step.need = _least_shape(step.infos) if step.kind is not CONST else (0, 0, ())
        keep = [i for i in range(len(step.infos)) if (step.node, i) in readers]
        step.puts = tuple((i, (step.node, i)) for i in keep)   # (others: dropped)
        if step.kind is CONST or (step.kind is OP and not step.op.uses_context
                                  and all(r in constant for r in step.reads)):   # (a packed Const
                                  # has no reads: irrun/ops/constant.py)
            step.constant = step.kind is OP
            constant.update(p for _, p in step.puts)
        if step.kind is OP:
            step.hi = _most_bytes(step.infos)
            step.guard = max((budget.itemsize(i.etype.dtype) for i in step.infos if i is not None),
                             default=1) if step.op.allocation == "inputs" else 0
            # (an observer sees every output: a plan for one skips none)
            step.skip = frozenset(() if every_layer else (i for i in step.op.lazy_outputs if i not in keep))
            step.call, step.kw = step.op.run, {"skip": step.skip} if step.skip else {}
            step.slow = step.constant or step.op.uses_context
            if step.op.category == "linear" and not step.constant:
                ins = [types.get(r) or produced.get(r) for r in step.reads]
                step.blas = threads.blas_threads_for(step.op.multiply_adds(ins, step.infos), _largest(ins))
            step.specs = output_specs(step.infos)
            known = [i for i in step.infos if i is not None]
            if len(known) == len(step.infos) and all(i.etype.dtype is not None and i.shape.is_static
                                                     for i in known):
                step.expect = tuple((i.etype.dtype, i.shape.to_tuple()) for i in known)
        elif step.kind is CONST:        # (every info known: plan(), Program._bake)
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
    if not every_layer:
        _skipped_while_set(steps)
    choose_inplace(steps, types)
    preset, loop = ({}, list(steps)) if every_layer else _without_constants(steps)
    return Plan(tuple(steps), tuple(loop), MappingProxyType(preset), tuple(number(preset, loop)),
                every_layer, need=max((s.need[0] for s in steps), default=0),
                unguarded=max((s.hi for s in steps if s.kind is OP and not s.op.allocation), default=0),
                layers=sum(s.kind is OP for s in steps),
                strings=any(i is None or i.etype.dtype is None or i.etype.dtype.kind == "T"
                            for s in steps for i in s.infos))


def _skipped_while_set(steps: list[Step]) -> None:
    """Mark the layers that only compute a variable's initial value (``Op.unset_only_inputs``:
    an LLM's ReadValue ``init``, ShapeOf -> Gather -> Concat -> Broadcast of zeros per KV cache):
    ``Step.unless`` is the set of variables they serve, and a run in which all of them are set
    skips them (the reader gets None there and does not read it). A layer any other layer, a
    model output or a variable write reads is computed as always."""
    readers: dict[tuple, list[tuple[Step, int]]] = {}
    for s in steps:
        s.unless, s.nones = None, ()
        for k, r in enumerate(s.reads):
            readers.setdefault(r, []).append((s, k))
    for s in reversed(steps):           # readers before the layers they read
        if s.kind is OP and not s.op.uses_context and s.puts:
            serves = _init_only(s, readers)
            if serves is not None:
                s.unless, s.nones = serves, (None,) * len(s.infos)


def _init_only(s: Step, readers: dict) -> frozenset | None:
    """The variables whose initial value is all that step ``s``'s outputs feed, or None when any
    reader needs them otherwise (its readers are marked already: the steps run in reverse)."""
    serves: set = set()
    for _, port in s.puts:
        for reader, k in readers.get(port, ()):
            if reader.kind is OP and k in reader.op.unset_only_inputs:
                serves.add(reader.op.variable_id)
            elif reader.unless is not None:
                serves |= reader.unless
            else:
                return None
    return frozenset(serves)


def _without_constants(steps: list[Step]) -> tuple[dict, list[Step]]:
    """What a run sets at its start (every CONST step's outputs: a plan's values, read-only,
    count nothing) and the steps its loop runs. A folded layer that is the last to read some
    ports (a ShapeOf's input) hands them to the step before it, whose copy frees them after its
    own peak: every peak the account checks is the same (the folded layer's own one, adding
    nothing, cannot be higher than the one before it)."""
    preset: dict = {}
    loop: list[Step] = []
    for s in steps:
        if s.kind is not CONST:
            loop.append(s)
            continue
        preset.update((p, s.values[i]) for i, p in s.puts)
        if s.frees and loop:
            loop[-1] = replace(loop[-1], frees=loop[-1].frees + s.frees)
    return preset, loop


#: Plans kept per model or body (one per input signature), oldest dropped first.
PLAN_CACHE = 8


def number(preset: dict, loop: list[Step]) -> list:
    """Give every port a run keeps a slot: set each loop step's ``ins`` (its inputs' slots),
    ``slots`` ((output index, slot) per kept output), ``drop`` (the slots it is the last to
    read) and ``into`` (its in-place input's slot). Returns the slots' initial values: the
    plan's values (``preset``), None elsewhere."""
    slot = {p: k for k, p in enumerate(preset)}
    for s in loop:
        for _, p in s.puts:
            slot.setdefault(p, len(slot))
    for s in loop:
        s.ins = tuple(slot[r] for r in s.reads)
        s.fetch = _getter(s.ins)
        s.slots = tuple((i, slot[p]) for i, p in s.puts)
        s.drop = tuple(slot[r] for r in s.frees)
        s.into = None if s.inplace is None else slot[s.inplace]
    return list(preset.values()) + [None] * (len(slot) - len(preset))


def _getter(ins: tuple) -> Callable[[list], Sequence]:
    """The inputs at slots ``ins`` of a run's list, in one C call: an ``itemgetter`` (a slice
    for one input or none, so that it always gives a sequence). ~0.07 us where the list
    comprehension took ~0.25, at every step of the loop."""
    if len(ins) > 1:
        return itemgetter(*ins)
    return itemgetter(slice(ins[0], ins[0] + 1) if ins else slice(0, 0))


def cached_plan(cache: dict, key: tuple, make: Callable[[], Plan]) -> Plan:
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


def _largest(infos: list[TensorInfo | None]) -> int | None:
    """Elements of the largest of these tensors, None when one's size is not known."""
    sizes = [None if i is None or not i.shape.is_static else i.shape.max_numel() for i in infos]
    return None if None in sizes else max((n for n in sizes if n is not None), default=0)


def _most_bytes(infos: list[TensorInfo | None]) -> int:
    """Bytes the largest output may take, by its partial shape (UNBOUNDED when unknown)."""
    most = 0
    for info in infos:
        n = None if info is None else info.shape.max_numel()
        if info is None or n is None:
            return UNBOUNDED
        most = max(most, n * budget.itemsize(info.etype.dtype))
    return most


def check_memory(steps: Plan | list[Step], limit: int, file: str | None = None) -> None:
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
