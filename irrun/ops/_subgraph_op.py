"""What TensorIterator-1, Loop-5 and If-8 share: bodies, their inference and iteration
(the ops are in tensor_iterator.py, loop.py and conditional.py).

(loop-5.html, if-8.html); the IR form is ir-format.md §8. A body is an ordinary irrun graph
(:class:`irrun.runtime.subgraph.Body`): it is shape-inferred with the op's input infos, planned once per
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

Measured on OpenVINO 2026.4.1's CPU plugin (tools/fixtures/make_subgraph_fixtures.py), and held to here:

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
from typing import TYPE_CHECKING, ClassVar

import numpy as np

from ..errors import IrrunError, LayerRef, OpError, ShapeError
from ..limits import iterations
from ..limits import memory as budget
from ..types.shapes import DYN, Dim, PartialShape
from ._port_maps import (
    InputMap,
    Slicing,
    body_param_info,
    entry_int,
    entry_slicing,
    entry_where,
    hull,
    info_of,
    output_maps,
    special_port,
    widen_back_edge,
)
from .base import Op, Role, TensorInfo, normalize_axis

if TYPE_CHECKING:
    from ..ir.records import Layer

_RUN_CACHE = 8
#: what irrun does not run of sliced inputs and concatenated outputs (TensorIterator and Loop)
SLICING_RESTRICTIONS = ("sliced inputs: start=0 with end<0, or start=-1 with end>=0, and "
                        "part_size=|stride| (what OpenVINO's CPU plugin runs as specified); "
                        "concatenated outputs over the whole axis")
_MAX_ROUNDS = 64


# ---------------------------------------------------------------------------------------------

class SubgraphOp(Op):
    """Bodies by tag; a body with ReadValue/Assign makes the op use the run's context."""
    category = "control"
    role = Role.SUBGRAPH

    body_tags: ClassVar[tuple[str, ...]] = ("body",)
    bodies: dict                        # tag -> irrun.runtime.subgraph.Body (from_ir)
    owner: LayerRef                     # the layer itself, for messages about its bodies
    _runs: dict | None = None           # input signature -> what ``_cached`` made for it

    @classmethod
    def from_ir(cls, layer, build) -> "SubgraphOp":
        op = cls.from_layer(layer.data)
        op.bodies = {}
        op.owner = layer.ref
        for tag in cls.body_tags:
            if tag not in layer.bodies:
                raise OpError(f"the layer has no <{tag}>")
            op.bodies[tag] = build.body(layer.bodies[tag], layer, tag)
        op.uses_context = any(b.uses_context for b in op.bodies.values())
        op.parse(layer)
        return op

    def parse(self, layer) -> None:
        raise NotImplementedError

    def body_inputs(self, inputs: list[TensorInfo]) -> list[tuple[object, dict[int, TensorInfo]]]:
        """(body, Parameter infos) for each body, for the checker to check the body with."""
        raise NotImplementedError

    def lies(self, ins: list[TensorInfo]) -> list[tuple["Layer", str, bool]]:
        """Body Parameters declared unlike what the layer feeds them (see IteratingOp)."""
        return []

    def declared_error(self, body, ins: list[TensorInfo] | None) -> ShapeError | None:
        """The error of ``body`` with its Parameters as declared (``Body.check_declared``, as
        OpenVINO validates it), naming each body Parameter that lies about what the layer feeds
        it when the layer's inputs ``ins`` are known; None when the body is fine as written."""
        try:
            body.check_declared()
        except ShapeError as e:
            why = "".join(f"; body Parameter {p.ref} {w}" for p, w, _ in self.lies(ins)) if ins else ""
            return ShapeError(e.message.rstrip(".") + why, file=e.file, layer=e.layer, port=e.port)
        return None

    def _cached(self, key, make):
        if self._runs is None:
            self._runs = {}
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


class IteratingOp(SubgraphOp):
    """TensorIterator and Loop: port map, back edges, iterations."""

    first_input: ClassVar[int] = 0
    attrs = {}

    def parse(self, layer) -> None:
        body = self.body = self.bodies["body"]
        back: dict[int, int] = {}
        for e in layer.back_edges:
            where = "<back_edges> <edge " + " ".join(f'{k}="{v}"' for k, v in e.items()) + ">"
            src, dst = entry_int(e, "from-layer", where), entry_int(e, "to-layer", where)
            if src not in body.results:
                raise OpError(f"{where}: from-layer {src} is not a Result of the body")
            if dst not in body.params:
                raise OpError(f"{where}: to-layer {dst} is not a Parameter of the body")
            back.setdefault(dst, src)
        self.current = special_port(layer, "port_map", body, "input", "current_iteration")
        self.condition = special_port(layer, "port_map", body, "output", "execution_condition")
        self.inputs: list[InputMap] = []
        seen: set[int] = set()
        for e in layer.port_maps.get("port_map", ()):
            if e["kind"] != "input" or e.get("purpose") == "current_iteration":
                continue
            where = entry_where("port_map", e)
            ext, pid = entry_int(e, "external_port_id", where), entry_int(e, "internal_layer_id", where)
            if pid not in body.params:
                raise OpError(f"{where}: internal_layer_id {pid} is not a Parameter of the body")
            if ext < 0:
                raise OpError(f"{where}: the body Parameter is fed by no input of the layer")
            if ext in seen:          # OpenVINO keeps the first entry of an input
                continue
            seen.add(ext)
            sl = entry_slicing(e, where, False)
            self.inputs.append(InputMap(ext, pid, sl, back.get(pid) if sl is None else None))
        fed = {m.param for m in self.inputs} | {self.current}
        for p in body.params:
            if p not in fed:
                raise OpError(f'body Parameter {p} "{body.layer(p).name}" is fed by no port_map input')
        self.outputs = [m for m, _ in output_maps(layer, "port_map", body)]

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
                params[m.param] = body_param_info(self.body, m.param, x)
                continue
            shape = x.shape
            if shape.rank is not None:
                ax = normalize_axis(m.slicing.axis, shape.rank)
                shape = PartialShape(Dim.of(m.slicing.part_size) if i == ax else d
                                     for i, d in enumerate(shape))
            params[m.param] = body_param_info(self.body, m.param, x, shape, keep_value=False)
        return params

    def lies(self, ins: list[TensorInfo]) -> list[tuple[Layer, str, bool]]:
        """The body Parameters whose declared element type or shape does not fit what the
        layer feeds them (a sliced input's part; a back edge's initial value): (the Parameter,
        what is wrong, whether the element type differs). Measured on OpenVINO 2026.4.1 with a
        TensorIterator body ``Parameter -> Relu -> Result``: a lying shape is ignored (the input's
        is used); a lying element type is kept — the body runs in it and the output comes out
        i32 for an f32 input — which irrun does not do, so that one is refused."""
        out = []
        fed = self.first(ins)
        for m in self.inputs:
            try:
                decl = self.body.declared(m.param)
            except IrrunError:                  # the Parameter's own error is reported anyway
                continue
            got = fed[m.param]
            etype = not (decl.etype.is_dynamic or got.etype.is_dynamic or decl.etype == got.etype)
            if etype or not decl.shape.compatible(got.shape):
                what = "a part of " if m.slicing is not None else "the initial value of " if m.back is not None else ""
                out.append((self.body.layer(m.param),
                            f"is declared {decl.etype.name}{decl.shape} but {self.owner} feeds it "
                            f"{got.etype.name}{got.shape} ({what}input {m.index})", etype))
        return out

    def analyse(self, ins: list[TensorInfo]) -> _Analysis:
        """Infer the body, widening back-edge Parameters until their Results fit them."""
        err = self.declared_error(self.body, ins)
        if err is not None:
            raise err
        for p, why, etype in self.lies(ins):
            if etype:
                raise OpError(f"body Parameter {p.ref} {why}: OpenVINO runs the body in the declared "
                              "element type (measured on 2026.4.1), which irrun does not do")
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
                shape = widen_back_edge(cur.shape, res.shape, m.param in widened)
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
            a = self.analyse([info_of(x) for x in xs])
            return a, self.body.plan(a.params)
        return self._cached(tuple((x.dtype.str, x.shape) for x in xs), make)

    def iterate(self, xs, ctx, more, least: int = 0) -> list[np.ndarray]:
        """Run the body while ``more(i, results of the previous iteration or None)``; ``least``:
        the iterations it must run, refused at once when over the iteration budget."""
        with iterations.counting():
            return self._iterate(xs, ctx, more, least)

    def _iterate(self, xs, ctx, more, least: int) -> list[np.ndarray]:
        a, steps = self.prepare(xs)
        layers = getattr(steps, "layers", None)
        if layers is None:
            layers = sum(s.kind == "op" for s in steps)
        iterations.refuse_static(least, layers=layers)
        body = self.body
        sliced = [(m, s, normalize_axis(s.axis, xs[m.index].ndim)) for m in self.inputs if (s := m.slicing) is not None]
        counts = {m.param: s.count(xs[m.index].shape[ax]) for m, s, ax in sliced}
        if self.current is not None:
            decl = body.declared(self.current)
            shape, ctype = () if decl.shape.rank == 0 else (1,), decl.etype.dtype or np.int64
        state = {m.param: xs[m.index] for m in self.inputs if m.slicing is None}
        parts: dict[int, list[np.ndarray]] = {k: [] for k, om in enumerate(self.outputs) if om.concat}
        live = budget.live()
        acc = live if live is not None else budget.Live()
        held = 0              # the accumulated chunks, in the live account for the whole loop
        carried = 0           # the state carried to the next iteration, in it between iterations
        res = None
        i = 0
        try:
            while more(i, res):
                iterations.spend(1, layers)
                feeds = dict(state)
                for m, s, ax in sliced:
                    if i >= counts[m.param]:
                        raise OpError(f"iteration {i} needs a part of input {m.index}, which has "
                                      f"{counts[m.param]} along axis {s.axis}",
                                      port=f"input {m.index}", openvino_loads=True)
                    feeds[m.param] = s.chunk(xs[m.index], ax, i)
                if self.current is not None:
                    feeds[self.current] = np.full(shape, i, ctype)
                acc.total -= carried            # the body counts its Parameters itself
                carried = 0
                res = body.execute(steps, a.params, feeds, _iteration_context(ctx))
                kept: set[int] = set()
                for k, chunks in parts.items():
                    chunks.append(res[self.outputs[k].result])
                    if id(chunks[-1]) not in kept:
                        kept.add(id(chunks[-1]))
                        held += chunks[-1].nbytes
                        acc.total += chunks[-1].nbytes
                for m in self.inputs:
                    if m.back is not None:
                        state[m.param] = res[m.back]
                        if id(res[m.back]) not in kept:
                            kept.add(id(res[m.back]))
                            carried += res[m.back].nbytes
                acc.total += carried
                if acc.total + held > budget.current():      # and the concatenation to come
                    raise budget.OverBudget(budget.over_message(
                        f"the loop's state and concatenated outputs after {i + 1} iterations, with "
                        "the run's other live tensors and the concatenation,", acc.total + held,
                        budget.current()))
                i += 1
        finally:
            acc.total -= held + carried
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
    own writes stay invisible to itself like a run's (:class:`irrun.runtime.executor.RunContext`)."""
    if ctx is None or not ctx.writes:
        return ctx
    return type(ctx)({**ctx.values, **ctx.writes}, ctx.writes)


def _zeros(info: TensorInfo, what: str) -> np.ndarray:
    if info.shape.rank is None or info.etype.dtype is None:
        raise OpError(f"the loop ran no iteration and {what} has no known rank and type to give")
    return np.zeros(tuple(d.lo for d in info.shape), info.etype.dtype)


