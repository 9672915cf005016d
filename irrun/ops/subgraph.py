"""TensorIterator-1, Loop-5 and If-8: the ops that run sub-graph bodies.

(loop-5.html, if-8.html); the IR form is ir-format.md §8. A body is an ordinary irrun graph
(:class:`irrun.subgraph.Body`): it is shape-inferred with the op's input infos, planned once per
Parameter signature and run by the same executor as the model. Port maps name body Parameters and
Results by layer id; outputs are the port-map entries with ``external_port_id >= 0`` sorted by it.

Shape inference through a body: the body is inferred with the inputs' infos (a sliced input
gives its part: the axis dim becomes ``part_size``); a back edge whose Result does not fit its
Parameter widens that Parameter (a changing dim first keeps its lower bound, then becomes
dynamic; a changing rank becomes dynamic) and the body is inferred again, until it settles.
A concatenated output's axis dim is ``|stride|`` x the number of iterations, an interval when the
count is not known (Loop: trip count, execution condition and the body's condition, when those
are constant); a last-iteration output is the Result's type, widened to the initial value of its
back edge when the loop may run zero times. An If with a constant condition takes the chosen
body's outputs (values included); otherwise the hull of both bodies' shapes.

Measured on OpenVINO 2026.4.1's CPU plugin (tools/make_subgraph_fixtures.py), and held to here:

* Sliced inputs: the plugin iterates over chunks of ``|stride|`` and always starts at the first
  chunk (stride > 0) or the last one (stride < 0), whatever ``start`` says; its iteration count
  (negative index ``i`` means ``dim + 1 + i``, half-open range) agrees with ``read_model``'s only
  when exactly one of start/end is negative. irrun therefore runs ``start=0, end<0`` (forward)
  and ``start=-1, end>=0`` (backward) slicing with ``part_size == |stride|`` and refuses the rest
  as graphs OpenVINO loads but runs wrongly (e.g. ``start=1`` reads from element 0).
* Concatenated outputs: every iteration's chunk must have ``|stride|`` elements on the axis
  (``1 is expected, but actual: 2`` otherwise) and the same other dims (the plugin returns
  uninitialised memory when they change); with zero iterations the output is empty on the axis.
* Loop: the trip count bounds the iterations (``-1``: none), not the sliced inputs — running past
  a sliced input's chunks fails (``iter < iter_count``). With zero iterations a last-iteration
  output with a back edge is the initial value, one without is zeros.
* If: a branch output's element type must equal the other branch's.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from .. import budget, elements, iterations
from ..errors import IrrunError, OpError
from ..shapes import DYN, Dim, PartialShape
from .base import Op, Role, TensorInfo, as_int64, normalize_axis, spec_url
from .registry import register

_RUN_CACHE = 8
_MAX_ROUNDS = 64


# ---------------------------------------------------------------------------------------------
# Port maps

@dataclass(frozen=True)
class Slicing:
    """A port-map entry's iteration attributes (defaults as in the spec)."""

    axis: int
    start: int = 0
    end: int = -1
    stride: int = 1
    part_size: int = 1

    @property
    def step(self) -> int:
        return abs(self.stride)

    def check(self, where: str, output: bool) -> None:
        """Refuse what OpenVINO's CPU plugin cannot run as the spec says (module docstring)."""
        if self.stride == 0:
            raise OpError(f'{where}: invalid "stride" value 0 (an infinite loop)', openvino_loads=True)
        if self.part_size != self.step:
            raise OpError(f"{where}: part_size={self.part_size} differs from |stride|="
                          f"{self.step}; OpenVINO's CPU plugin iterates in chunks of |stride| "
                          "while read_model sizes the body for part_size", openvino_loads=True)
        if output:
            full = (self.start, self.end) == ((0, -1) if self.stride > 0 else (-1, 0))
            if not full:
                raise OpError(f"{where}: a concatenated output over part of the axis (start="
                              f"{self.start}, end={self.end}) is not supported; irrun supports "
                              "start=0 end=-1 (stride > 0) and start=-1 end=0 (stride < 0)",
                              unsupported=True)
        elif not ((self.stride > 0 and self.start == 0 and self.end < 0)
                  or (self.stride < 0 and self.start == -1 and self.end >= 0)):
            raise OpError(f"{where}: start={self.start}, end={self.end}, stride={self.stride}: "
                          "OpenVINO's CPU plugin reads a different range than the spec says (it "
                          "always starts at the first chunk, or the last for stride < 0, and "
                          "counts iterations unlike read_model unless exactly one of start/end "
                          "is negative); irrun runs start=0 with end<0, or start=-1 with end>=0",
                          openvino_loads=True)

    def length(self, dim: int) -> int:
        """Elements of the axis the iterations cover."""
        return dim + 1 + self.end if self.stride > 0 else dim - self.end

    def count(self, dim: int) -> int:
        """Iterations over an axis of ``dim`` elements (the CPU plugin's checks and messages)."""
        n = self.length(dim)
        if n < self.step:
            raise OpError(f'Invalid "start","stride","end" values in an iteration component '
                          f"(axis of {dim} elements, start={self.start}, end={self.end}, "
                          f"stride={self.stride})", openvino_loads=True)
        if n % self.step:
            raise OpError(f"Each iteration must be the same size: length ({n}) is not divisible "
                          f"by step ({self.step})", openvino_loads=True)
        return n // self.step

    def count_dim(self, dim: Dim) -> Dim:
        if dim.is_static:
            return Dim.of(self.count(dim.lo))
        lo = max(self.length(dim.lo), 0) // self.step
        return Dim(lo, None if dim.hi is None else max(self.length(dim.hi), 0) // self.step)

    def chunk(self, x: np.ndarray, axis: int, i: int) -> np.ndarray:
        """Iteration ``i``'s part of ``x`` (a view)."""
        s = self.step
        at = i * s if self.stride > 0 else x.shape[axis] - s - i * s
        return x[(slice(None),) * axis + (slice(at, at + s),)]


@dataclass(frozen=True)
class InputMap:
    index: int                    # the op's input index
    param: int                    # body Parameter (layer id = node)
    slicing: Slicing | None = None
    back: int | None = None       # body Result feeding the Parameter from the 2nd iteration on


@dataclass(frozen=True)
class OutputMap:
    result: int                   # body Result
    concat: Slicing | None = None


def _int(entry: dict, name: str, where: str, default: int | None = None) -> int:
    text = entry.get(name)
    if text is None:
        if default is None:
            raise OpError(f"{where} has no {name}")
        return default
    try:
        return int(text.strip())
    except ValueError:
        raise OpError(f'{where}: {name}="{text}" is not an integer') from None


def _where(tag: str, e: dict) -> str:
    attrs = " ".join(f'{k}="{v}"' for k, v in e.items() if k != "kind")
    return f"<{tag}> <{e['kind']} {attrs}>"


def _slicing(e: dict, where: str, output: bool) -> Slicing | None:
    if "axis" not in e:
        return None
    s = Slicing(*(_int(e, k, where, d) for k, d in
                  (("axis", None), ("start", 0), ("end", -1), ("stride", 1), ("part_size", 1))))
    s.check(where, output)
    return s


def _outputs(layer, tag: str, body) -> list[tuple[OutputMap, dict]]:
    """Output entries with ``external_port_id >= 0``, sorted by it (first of duplicates wins)."""
    seen: dict[int, tuple[OutputMap, dict]] = {}
    for e in layer.port_maps.get(tag, ()):
        if e["kind"] != "output":
            continue
        where = _where(tag, e)
        ext, rid = _int(e, "external_port_id", where), _int(e, "internal_layer_id", where)
        if ext < 0 or ext in seen:
            continue
        if rid not in body.results:
            raise OpError(f"{where}: internal_layer_id {rid} is not a Result of the body")
        seen[ext] = (OutputMap(rid, _slicing(e, where, True)), e)
    return [seen[k] for k in sorted(seen)]


def _special(layer, tag: str, body, kind: str, purpose: str) -> int | None:
    for e in layer.port_maps.get(tag, ()):
        if e["kind"] == kind and e.get("purpose") == purpose:
            where = _where(tag, e)
            lid = _int(e, "internal_layer_id", where)
            if lid not in (body.params if kind == "input" else body.results):
                raise OpError(f"{where}: internal_layer_id {lid} is not a "
                              f"{'Parameter' if kind == 'input' else 'Result'} of the body")
            return lid
    return None


def hull(a: PartialShape, b: PartialShape) -> PartialShape:
    """The smallest partial shape holding both (dynamic rank when the ranks differ)."""
    if a.rank is None or b.rank is None or a.rank != b.rank:
        return PartialShape(None)
    return PartialShape(Dim(min(x.lo, y.lo), None if x.hi is None or y.hi is None else max(x.hi, y.hi))
                        for x, y in zip(a, b))


def _widen(cur: PartialShape, res: PartialShape, again: bool) -> PartialShape:
    """The back-edge Parameter's shape after seeing Result shape ``res`` (see module doc)."""
    if cur.rank is None:
        return cur
    if res.rank != cur.rank:
        return PartialShape(None)
    dims = []
    for c, r in zip(cur, res):
        fits = c.lo <= r.lo and (c.hi is None or (r.hi is not None and r.hi <= c.hi))
        dims.append(c if fits else DYN if again else Dim(min(c.lo, r.lo), None))
    return PartialShape(dims)


def _one(info: TensorInfo, what: str, port: str | None) -> None:
    """A condition / trip count / iteration number: a scalar or one element."""
    if info.shape.rank not in (None, 0, 1):
        raise OpError(f"Rank of {what} must be equal to 0 or 1", port=port)
    if info.value is not None and info.value.size != 1:
        raise OpError(f"The number of values in the {what} constant is greater than 1", port=port)


def _scalar(a: np.ndarray, what: str, port: str | None = None):
    if a.size != 1:
        raise OpError(f"{what} has {a.size} values, not 1", port=port)
    return a.reshape(())[()]


def _param_info(body, param: int, x: TensorInfo, shape: PartialShape | None = None,
                keep_value: bool = True) -> TensorInfo:
    """What a body Parameter gets from the op's input ``x``: its type and shape replace the
    declared ones, as OpenVINO does (the checker reports a stale declaration)."""
    etype = body.declared(param).etype if x.etype.is_dynamic else x.etype
    return TensorInfo(etype, x.shape if shape is None else shape, x.value if keep_value else None)


def _dyn_info(a: np.ndarray) -> TensorInfo:
    return TensorInfo(elements.from_dtype(a.dtype), PartialShape(a.shape))


# ---------------------------------------------------------------------------------------------

class _SubgraphOp(Op):
    """Bodies by tag; a body with ReadValue/Assign makes the op use the run's context."""
    role = Role.SUBGRAPH

    body_tags: ClassVar[tuple[str, ...]] = ("body",)

    @classmethod
    def from_ir(cls, layer, build) -> "_SubgraphOp":
        op = cls.from_layer(layer.data)
        op.bodies = {}
        for tag in cls.body_tags:
            if tag not in layer.bodies:
                raise OpError(f"the layer has no <{tag}>")
            op.bodies[tag] = build.body(layer.bodies[tag], layer, tag)
        op.uses_context = any(b.uses_context for b in op.bodies.values())
        op.parse(layer)
        op._runs = {}
        return op

    def parse(self, layer) -> None:
        raise NotImplementedError

    def body_inputs(self, inputs: list[TensorInfo]) -> list[tuple[object, dict[int, TensorInfo]]]:
        """(body, Parameter infos) for each body, for the checker to check the body with."""
        raise NotImplementedError

    def _cached(self, key, make):
        got = self._runs.get(key)
        if got is None:
            if len(self._runs) >= _RUN_CACHE:
                self._runs.pop(next(iter(self._runs)))
            got = self._runs[key] = make()
        return got


@dataclass
class _Analysis:
    params: dict[int, TensorInfo]     # body Parameter infos (back edges settled)
    types: dict                       # the body's inferred ports with them


class _Iterating(_SubgraphOp):
    """TensorIterator and Loop: port map, back edges, iterations."""

    first_input: ClassVar[int] = 0
    attrs = {}

    def parse(self, layer) -> None:
        body = self.body = self.bodies["body"]
        back: dict[int, int] = {}
        for e in layer.back_edges:
            where = "<back_edges> <edge " + " ".join(f'{k}="{v}"' for k, v in e.items()) + ">"
            src, dst = _int(e, "from-layer", where), _int(e, "to-layer", where)
            if src not in body.results:
                raise OpError(f"{where}: from-layer {src} is not a Result of the body")
            if dst not in body.params:
                raise OpError(f"{where}: to-layer {dst} is not a Parameter of the body")
            back.setdefault(dst, src)
        self.current = _special(layer, "port_map", body, "input", "current_iteration")
        self.condition = _special(layer, "port_map", body, "output", "execution_condition")
        self.inputs: list[InputMap] = []
        seen: set[int] = set()
        for e in layer.port_maps.get("port_map", ()):
            if e["kind"] != "input" or e.get("purpose") == "current_iteration":
                continue
            where = _where("port_map", e)
            ext, pid = _int(e, "external_port_id", where), _int(e, "internal_layer_id", where)
            if pid not in body.params:
                raise OpError(f"{where}: internal_layer_id {pid} is not a Parameter of the body")
            if ext < 0:
                raise OpError(f"{where}: the body Parameter is fed by no input of the layer")
            if ext in seen:          # OpenVINO keeps the first entry of an input
                continue
            seen.add(ext)
            sl = _slicing(e, where, False)
            self.inputs.append(InputMap(ext, pid, sl, back.get(pid) if sl is None else None))
        fed = {m.param for m in self.inputs} | {self.current}
        for p in body.params:
            if p not in fed:
                raise OpError(f'body Parameter {p} "{body.layer(p).name}" is fed by no port_map input')
        self.outputs = [m for m, _ in _outputs(layer, "port_map", body)]

    # -- inference ------------------------------------------------------------------------------
    def check_inputs(self, n: int) -> None:
        mapped = {m.index for m in self.inputs}
        bad = sorted(i for i in mapped if i >= n)
        if bad:
            raise OpError(f"the port_map names input {bad[0]}, but the layer has {n} inputs")
        missing = sorted(set(range(self.first_input, n)) - mapped)
        if missing:
            raise OpError(f"Number of inputs must be the same as number of input descriptions "
                          f"(input {missing[0]} is in no port_map entry)", port=f"input {missing[0]}")

    def first(self, ins: list[TensorInfo]) -> dict[int, TensorInfo]:
        """Body Parameter infos before the back edges are seen."""
        params = {}
        for m in self.inputs:
            x = ins[m.index]
            if m.slicing is None:
                params[m.param] = _param_info(self.body, m.param, x)
                continue
            shape = x.shape
            if shape.rank is not None:
                ax = normalize_axis(m.slicing.axis, shape.rank)
                shape = PartialShape(Dim.of(m.slicing.part_size) if i == ax else d
                                     for i, d in enumerate(shape))
            params[m.param] = _param_info(self.body, m.param, x, shape, keep_value=False)
        return params

    def analyse(self, ins: list[TensorInfo]) -> _Analysis:
        """Infer the body, widening back-edge Parameters until their Results fit them."""
        self.body.check_declared()
        params = self.first(ins)
        widened: set[int] = set()
        for _ in range(_MAX_ROUNDS):
            types = self.body.infer(params)
            changed = False
            for m in self.inputs:
                if m.back is None:
                    continue
                res, cur = self.body.result(types, m.back), params[m.param]
                if not (res.etype.is_dynamic or cur.etype.is_dynamic or res.etype == cur.etype):
                    raise OpError(f"the back edge from body Result {m.back} carries {res.etype} "
                                  f"into body Parameter {m.param}, which holds {cur.etype}")
                keep = (cur.value is not None and res.value is not None
                        and cur.value.dtype == res.value.dtype and np.array_equal(cur.value, res.value))
                shape = _widen(cur.shape, res.shape, m.param in widened)
                if shape != cur.shape or (cur.value is not None and not keep):
                    widened.add(m.param)
                    params[m.param] = TensorInfo(cur.etype, shape, cur.value if keep else None)
                    changed = True
            if not changed:
                return _Analysis(params, types)
        raise OpError("shape inference through the back edges does not settle")

    def body_inputs(self, inputs):
        try:
            self.body.check_declared()     # else the body is checked as declared
            params = self.analyse(inputs).params
        except (OpError, IrrunError):
            try:
                params = self.first(inputs)
            except OpError:
                params = {}
        return [(self.body, params)]

    def iterations(self, ins: list[TensorInfo], a: _Analysis) -> Dim:
        raise NotImplementedError

    def slice_counts(self, ins: list[TensorInfo]) -> list[tuple[InputMap, Dim]]:
        out = []
        for m in self.inputs:
            if m.slicing is not None:
                shape = ins[m.index].shape
                if shape.rank is None:
                    out.append((m, DYN))
                else:
                    ax = normalize_axis(m.slicing.axis, shape.rank)
                    try:
                        out.append((m, m.slicing.count_dim(shape[ax])))
                    except OpError as e:
                        e.port = f"input {m.index}"
                        raise
        return out

    def infer(self, inputs):
        ins = list(inputs)
        self.check_inputs(len(ins))
        self.slice_counts(ins)              # the slicing's own errors before the body's
        a = self.analyse(ins)
        n = self.iterations(ins, a)
        outs = []
        for om in self.outputs:
            res = self.body.result(a.types, om.result)
            if om.concat is not None:
                outs.append(TensorInfo(res.etype, self._concat_shape(res.shape, om.concat, n)))
                continue
            shape = res.shape
            if n.lo == 0:                    # zero iterations: the initial value, or zeros
                init = [m for m in self.inputs if m.back == om.result]
                if init:
                    shape = hull(shape, ins[init[0].index].shape)
            outs.append(TensorInfo(res.etype, shape))
        return outs

    @staticmethod
    def _concat_shape(shape: PartialShape, c: Slicing, n: Dim) -> PartialShape:
        if shape.rank is None:
            return shape
        dims = list(shape) if shape.rank else [Dim.of(1)]
        ax = normalize_axis(c.axis, len(dims))
        if not dims[ax].contains(c.step):
            raise OpError(f"TensorIterator (Loop) has incorrect output shape[axis] after iteration "
                          f"for concatenation. {c.step} is expected, but actual: {dims[ax]}",
                          openvino_loads=True)
        dims[ax] = n * c.step
        return PartialShape(dims)

    # -- running ----------------------------------------------------------------------------------
    def prepare(self, xs: tuple[np.ndarray, ...]):
        def make():
            a = self.analyse([_dyn_info(x) for x in xs])
            return a, self.body.plan(a.params)
        return self._cached(tuple((x.dtype.str, x.shape) for x in xs), make)

    def iterate(self, xs, ctx, more, least: int = 0) -> list[np.ndarray]:
        """Run the body while ``more(i, results of the previous iteration or None)``; ``least``:
        the iterations it must run, refused at once when over the iteration budget."""
        with iterations.counting():
            iterations.refuse_static(least)
            return self._iterate(xs, ctx, more)

    def _iterate(self, xs, ctx, more) -> list[np.ndarray]:
        a, steps = self.prepare(xs)
        body = self.body
        sliced = [(m, normalize_axis(m.slicing.axis, xs[m.index].ndim)) for m in self.inputs if m.slicing is not None]
        counts = {m.param: m.slicing.count(xs[m.index].shape[ax]) for m, ax in sliced}
        if self.current is not None:
            decl = body.declared(self.current)
            shape, ctype = () if decl.shape.rank == 0 else (1,), decl.etype.dtype or np.int64
        state = {m.param: xs[m.index] for m in self.inputs if m.slicing is None}
        parts: dict[int, list[np.ndarray]] = {k: [] for k, om in enumerate(self.outputs) if om.concat}
        held = 0
        res = None
        i = 0
        while more(i, res):
            iterations.spend()
            feeds = dict(state)
            for m, ax in sliced:
                if i >= counts[m.param]:
                    raise OpError(f"iteration {i} needs a part of input {m.index}, which has "
                                  f"{counts[m.param]} along axis {m.slicing.axis}",
                                  port=f"input {m.index}", openvino_loads=True)
                feeds[m.param] = m.slicing.chunk(xs[m.index], ax, i)
            if self.current is not None:
                feeds[self.current] = np.full(shape, i, ctype)
            res = body.execute(steps, a.params, feeds, _iteration_context(ctx))
            for m in self.inputs:
                if m.back is not None:
                    state[m.param] = res[m.back]
            for k, chunks in parts.items():
                chunks.append(res[self.outputs[k].result])
                held += chunks[-1].nbytes
            live = budget.live()
            if held + (live.total if live else 0) > budget.current():
                raise budget.OverBudget(budget.over_message(
                    f"the concatenated outputs after {i + 1} iterations, with the run's other "
                    "live tensors,", held + (live.total if live else 0), budget.current()))
            i += 1
        return self._assemble(a, xs, res, parts, i)

    def _assemble(self, a: _Analysis, xs, res, parts, n: int) -> list[np.ndarray]:
        outs = []
        for k, om in enumerate(self.outputs):
            info = self.body.result(a.types, om.result)
            if om.concat is not None:
                outs.append(self._concat(parts[k], om.concat, info))
            elif n:
                outs.append(res[om.result])
            else:
                init = [m for m in self.inputs if m.back == om.result]
                outs.append(xs[init[0].index] if init else _zeros(info, "a last-iteration output"))
        return outs

    @staticmethod
    def _concat(chunks: list[np.ndarray], c: Slicing, info: TensorInfo) -> np.ndarray:
        if not chunks:
            z = _zeros(info, "a concatenated output")
            z = z.reshape(1) if z.ndim == 0 else z
            ax = normalize_axis(c.axis, z.ndim)
            return np.zeros(z.shape[:ax] + (0,) + z.shape[ax + 1:], z.dtype)
        chunks = [x.reshape(1) if x.ndim == 0 else x for x in chunks]
        ax = normalize_axis(c.axis, chunks[0].ndim)
        first = chunks[0].shape
        for j, x in enumerate(chunks):
            if x.shape[ax] != c.step:
                raise OpError("TensorIterator (Loop) has incorrect output shape[axis] after "
                              f"iteration for concatenation. {c.step} is expected, but actual: "
                              f"{x.shape[ax]} (iteration {j})", openvino_loads=True)
            if x.shape[:ax] + x.shape[ax + 1:] != first[:ax] + first[ax + 1:]:
                raise OpError(f"iteration {j} gives shape {list(x.shape)} to a concatenated "
                              f"output, iteration 0 gave {list(first)}: only the axis may differ "
                              "(OpenVINO returns uninitialised memory here)", openvino_loads=True)
        return np.concatenate(chunks[::-1] if c.stride < 0 else chunks, axis=ax)


def _iteration_context(ctx):
    """What one body execution sees of the variables: the values before the run with the writes
    of the iterations before it (measured: 3 iterations of ``v += x`` read 0, x, 2x), while its
    own writes stay invisible to itself like a run's (:class:`irrun.executor.RunContext`)."""
    if ctx is None or not ctx.writes:
        return ctx
    return type(ctx)({**ctx.values, **ctx.writes}, ctx.writes)


def _zeros(info: TensorInfo, what: str) -> np.ndarray:
    if info.shape.rank is None or info.etype.dtype is None:
        raise OpError(f"the loop ran no iteration and {what} has no known rank and type to give")
    return np.zeros(tuple(d.lo for d in info.shape), info.etype.dtype)


@register
class TensorIterator1(_Iterating):
    """Runs the body once per chunk of its sliced inputs (once when none is sliced); back edges
    carry Results to Parameters; outputs are the last iteration's or all concatenated."""

    type, version = "TensorIterator", "opset1"
    spec = spec_url("infrastructure/tensor-iterator-1")
    num_inputs = (0, None)
    restrictions = ("sliced inputs: start=0 with end<0, or start=-1 with end>=0, and "
                    "part_size=|stride| (what OpenVINO's CPU plugin runs as specified); "
                    "concatenated outputs over the whole axis")

    def iterations(self, ins, a) -> Dim:
        n: Dim | None = None
        for m, cnt in self.slice_counts(ins):
            if n is None:
                n = cnt
                continue
            both = n.intersect(cnt)
            if both is None:
                raise OpError(f"There are at least two different iterations numbers: {n} and {cnt}",
                              port=f"input {m.index}", openvino_loads=True)
            n = both
        return Dim.of(1) if n is None else n

    def run(self, *xs, ctx=None):
        counts = {self.slice_counts_run(xs, m) for m in self.inputs if m.slicing is not None}
        if len(counts) > 1:
            a, b = sorted(counts)[:2]
            raise OpError(f"There are at least two different iterations numbers: {a} and {b}",
                          openvino_loads=True)
        n = counts.pop() if counts else 1
        return self.iterate(xs, ctx, lambda i, res: i < n, least=n)

    @staticmethod
    def slice_counts_run(xs, m: InputMap) -> int:
        x = xs[m.index]
        try:
            return m.slicing.count(x.shape[normalize_axis(m.slicing.axis, x.ndim)])
        except OpError as e:
            e.port = f"input {m.index}"
            raise


@register
class Loop5(_Iterating):
    """Runs the body while the trip count (``-1``: unbounded) and the execution condition allow:
    input 0 is the trip count, input 1 the first condition, the body's ``execution_condition``
    Result the next one; a ``current_iteration`` Parameter gets 0, 1, 2..."""

    type, version = "Loop", "opset5"
    spec = spec_url("infrastructure/loop-5")
    num_inputs = (2, None)
    first_input = 2
    restrictions = TensorIterator1.restrictions + "; a never-ending Loop is refused only when that " \
        "is certain from constants"

    def parse(self, layer) -> None:
        super().parse(layer)
        if self.condition is None:
            raise OpError('the port_map has no output with purpose="execution_condition"',
                          openvino_loads=True)

    def analyse(self, ins):
        a = super().analyse(ins)
        if self.current is not None:
            cur = self.body.declared(self.current)
            _one(cur, "CurrentIteration input", None)
            if not (cur.etype.is_integer or cur.etype.is_dynamic):
                raise OpError(f"the current_iteration body Parameter is {cur.etype}, not an integer")
        return a

    def iterations(self, ins, a) -> Dim:
        trip, cond = ins[0], ins[1]
        _one(trip, "TripCount", "input 0")
        _one(cond, "ExecutionCondition", "input 1")
        if not (trip.etype.is_integer or trip.etype.is_dynamic):
            raise OpError(f"the trip count is {trip.etype}, not an integer", port="input 0")
        body_cond = self.body.result(a.types, self.condition)
        _one(body_cond, "BodyExecutionCondition", None)
        again = None if body_cond.value is None else bool(body_cond.value.reshape(-1)[0])
        t = None if trip.value is None else int(as_int64(trip.value).reshape(-1)[0])
        first = None if cond.value is None else bool(cond.value.reshape(-1)[0])
        if first is False or t == 0:
            return Dim(0, 0)
        hi = t if t is not None and t >= 0 else None
        if again is False:
            hi = 1 if hi is None else min(hi, 1)
        if first and again and hi is None and t is not None:
            raise OpError("the Loop never ends: its trip count is -1 and its execution condition "
                          "is always true", openvino_loads=True)
        if not first:
            lo = 0
        elif again:                      # runs the trip count (unknown: maybe 0 times)
            lo = hi if t is not None else 0
        else:
            lo = min(1, 1 if hi is None else hi)
        if first and again:
            iterations.refuse_static(lo)
        n = Dim(lo, hi)
        for m, cnt in self.slice_counts(ins):
            if cnt.hi is not None and lo > cnt.hi:
                raise OpError(f"the Loop runs at least {lo} iterations but input {m.index} has "
                              f"{cnt} parts along axis {m.slicing.axis}", port=f"input {m.index}",
                              openvino_loads=True)
        return n

    def unbounded(self, ins: list[TensorInfo]) -> str | None:
        """Why irrun cannot bound the iterations with these inputs (``irrun check`` warns), or
        None when a constant bounds them or the layer rejects its inputs (reported elsewhere)."""
        try:
            n = self.iterations(ins, self.analyse(ins))
        except (OpError, IrrunError):
            return None
        if n.hi is not None:
            return None
        return ("irrun cannot bound this loop: its trip count is not a constant (or is -1) and "
                "its execution condition is not constant false, so it may never end (OpenVINO "
                "would run it forever); irrun run stops it after the iteration budget "
                f"(--max-iterations, default {iterations.DEFAULT_MAX_ITERATIONS} body executions)")

    def run(self, trip, cond, *rest, ctx=None):
        t = int(as_int64(np.asarray(_scalar(trip, "the trip count", "input 0"))))
        go = bool(_scalar(cond, "the execution condition", "input 1"))

        def more(i, res):
            if res is not None:
                return bool(_scalar(res[self.condition], "the body's execution condition")) and \
                    (t < 0 or i < t)
            return go and (t < 0 or i < t)
        xs = (trip, cond) + rest
        least = 0
        if go and self.always_again(xs):
            if t < 0:
                raise OpError("the Loop never ends: its trip count is -1 and its body's execution "
                              "condition is always true", openvino_loads=True)
            least = t
        return self.iterate(xs, ctx, more, least)

    def always_again(self, xs) -> bool:
        """Is the body's execution condition a constant true?"""
        a, _ = self.prepare(xs)
        v = self.body.result(a.types, self.condition).value
        return v is not None and v.size == 1 and bool(v.reshape(-1)[0])


@register
class If8(_SubgraphOp):
    """Runs ``then_body`` when input 0 is true, else ``else_body``; each body's port map feeds
    some of inputs 1.. to its Parameters."""

    type, version = "If", "opset8"
    spec = spec_url("infrastructure/if-8")
    num_inputs = (1, None)
    body_tags = ("then_body", "else_body")
    attrs = {}

    def parse(self, layer) -> None:
        self.feeds: dict[str, list[tuple[int, int]]] = {}
        self.results: dict[str, list[int]] = {}
        counts = {}
        for tag, pm in (("then_body", "then_port_map"), ("else_body", "else_port_map")):
            body, feeds, seen = self.bodies[tag], [], set()
            for e in layer.port_maps.get(pm, ()):
                if e["kind"] != "input":
                    continue
                where = _where(pm, e)
                ext, pid = _int(e, "external_port_id", where), _int(e, "internal_layer_id", where)
                if pid not in body.params:
                    raise OpError(f"{where}: internal_layer_id {pid} is not a Parameter of the body")
                if ext < 1:
                    raise OpError(f"{where}: external_port_id must name an input after the condition")
                if pid not in seen:
                    seen.add(pid)
                    feeds.append((ext, pid))
            for p in body.params:
                if p not in seen:
                    raise OpError(f'<{tag}> Parameter {p} "{body.layer(p).name}" is fed by no '
                                  f"<{pm}> input")
            self.feeds[tag] = feeds
            self.results[tag] = [m.result for m, _ in _outputs(layer, pm, body)]
            counts[tag] = len(self.results[tag])
        if counts["then_body"] != counts["else_body"]:
            short = min(counts, key=counts.get)
            raise OpError(f"Incorrect associating in {short}! Output {counts[short]} is not "
                          f"associated with results in {short}!")

    def params(self, tag: str, ins, dynamic: bool = False) -> dict[int, TensorInfo]:
        if dynamic:
            return {p: _dyn_info(ins[i]) for i, p in self.feeds[tag]}
        for i, _ in self.feeds[tag]:
            if i >= len(ins):
                raise OpError(f"<{tag[:4]}_port_map> names input {i}, but the layer has {len(ins)} inputs")
        return {p: _param_info(self.bodies[tag], p, ins[i]) for i, p in self.feeds[tag]}

    def body_inputs(self, inputs):
        out = []
        for tag, body in self.bodies.items():
            try:
                body.check_declared()
                out.append((body, self.params(tag, inputs)))
            except (OpError, IrrunError):
                out.append((body, {}))
        return out

    def infer(self, inputs):
        cond = inputs[0]
        _one(cond, "If condition input", "input 0")
        for b in self.bodies.values():
            b.check_declared()
        types = {tag: b.infer(self.params(tag, inputs)) for tag, b in self.bodies.items()}
        res = {tag: [self.bodies[tag].result(types[tag], r) for r in self.results[tag]]
               for tag in self.bodies}
        if cond.value is not None:
            return res["then_body" if bool(cond.value.reshape(-1)[0]) else "else_body"]
        outs = []
        for k, (t, e) in enumerate(zip(res["then_body"], res["else_body"])):
            if not (t.etype.is_dynamic or e.etype.is_dynamic or t.etype == e.etype):
                raise OpError(f"type of then_body output is not equal type of else_body output "
                              f"(output {k}: {t.etype} and {e.etype})")
            outs.append(TensorInfo(e.etype if t.etype.is_dynamic else t.etype, hull(t.shape, e.shape)))
        return outs

    def run(self, cond, *xs, ctx=None):
        tag = "then_body" if bool(_scalar(cond, "the If condition", "input 0")) else "else_body"
        body = self.bodies[tag]
        ins = (cond,) + xs
        params = self.params(tag, ins, dynamic=True)
        res = body.execute(body.plan(params), params, {p: ins[i] for i, p in self.feeds[tag]}, ctx)
        return [res[r] for r in self.results[tag]]
