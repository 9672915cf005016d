"""ONNX forms of the sub-graph ops: If-8 as ONNX If, Loop-5 and TensorIterator-1 as ONNX Loop.

A body is converted layer by layer with the same converter table as the model
(:func:`irrun.export.onnx.convert_layer`), nested bodies included, into an ONNX sub-graph whose
nodes read the enclosing graph's tensors by name: an If branch reads the layer's inputs
directly; a Loop body reads its invariant inputs directly and takes the back-edge Parameters
as loop-carried values.

The port maps' iteration semantics (:mod:`irrun.ops._subgraph_op`, measured on OpenVINO's CPU
plugin) are written out explicitly:

* a sliced input is a ``Slice`` of the outer tensor at the iteration number inside the body:
  chunk ``i`` starts at ``i*|stride|`` (stride > 0) or ``dim - |stride|*(i+1)`` (stride < 0);
  a TensorIterator runs ``(dim + 1 + end) / stride`` (or ``(dim - end) / |stride|``) times;
* a concatenated output is an ONNX scan output (stacked on a new axis 0), reversed for a
  negative stride, then merged into the port map's axis (Transpose + Reshape);
* a last-iteration output is the final value of a loop-carried variable (the back edge's, or
  one added for it, starting as zeros: what OpenVINO gives after zero iterations);
* Loop's trip count -1 (no limit) becomes INT64_MAX; ``current_iteration`` is the iteration
  number in the Parameter's declared element type and shape.
"""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import IrrunError, printable
from ..types import elements
from ..types.shapes import PartialShape
from ..types.tensor_info import Role, TensorInfo
from .emitter import Call, Emitter, Unexpressible, onnx_type, onnx_type_named
from .table import converts

if TYPE_CHECKING:
    from ..runtime.subgraph import Body

_INT64_MAX = np.iinfo(np.int64).max
_INT64_MIN = np.iinfo(np.int64).min


@contextmanager
def _nodes_of(e: Emitter) -> Iterator[list]:
    """Collect the nodes added inside the ``with`` into their own list (a sub-graph's)."""
    outer, e.nodes = e.nodes, []
    try:
        yield e.nodes
    finally:
        e.nodes = outer


def _body_value(name: str, info: TensorInfo | None, etype: str | None = None) -> Any:
    """A sub-graph input/output declaration: element type, rank where known (no fixed dims:
    a loop-carried value may change size from one iteration to the next)."""
    from onnx import helper
    if info is None:
        return helper.make_tensor_value_info(name, onnx_type_named(etype or "INT64"), [])
    rank = info.shape.rank
    return helper.make_tensor_value_info(name, onnx_type(info.etype), None if rank is None else [None] * rank)


def convert_body(e: Emitter, body: Body, types: dict, feeds: dict[int, str], owner: str) -> dict[int, str]:
    """Write the nodes of ``body`` (its Parameters read ``feeds``: Parameter node -> ONNX name)
    into the emitter's current node list; returns each body Result's source tensor name.
    Raises Unexpressible naming the first body layer that has no ONNX form."""
    from ..analysis.graph import inputs_of
    from .convert import convert_layer
    names: dict[tuple[int, int], str] = {(p, 0): name for p, name in feeds.items()}
    consumed: dict[int, set[int]] = {}
    for n in body.order:
        for u, p in inputs_of(body.g, n):
            consumed.setdefault(u, set()).add(p)
    results: dict[int, str] = {}
    for n in body.order:
        layer, op = body.layer(n), body.ops[n]
        srcs = inputs_of(body.g, n)
        where = f"body layer {layer.id} {printable(layer.name)} ({printable(layer.type)}-{printable(layer.version)})"
        if op.role == Role.PARAMETER:
            if (n, 0) not in names:
                raise Unexpressible(f"{where} is fed by no input")
            continue
        if op.role in (Role.VARIABLE_READ, Role.VARIABLE_WRITE):
            raise Unexpressible(f"{where}: a variable read or written inside a sub-graph body has no ONNX form")
        ins = [names[s] for s in srcs]
        if op.role == Role.RESULT:
            results[n] = ins[0]
            continue
        outs = []
        for port in range(len(layer.outputs)):
            names[(n, port)] = e.fresh(f"{owner}/{layer.name}" if len(layer.outputs) == 1
                                       else f"{owner}/{layer.name}:{port}")
            outs.append(names[(n, port)])
        in_info = [types[s] for s in srcs]
        out_info = [types.get((n, p)) or TensorInfo(elements.DYNAMIC, PartialShape(layer.outputs[p].dims))
                    for p in range(len(layer.outputs))]
        why = convert_layer(e, Call(layer, op, ins, outs, in_info, out_info, frozenset(consumed.get(n, ()))))
        if why:
            raise Unexpressible(f"{where}: {why}")
    return results


def _analysed(fn):
    """Shape inference of a body with the layer's inputs: its errors are Unexpressible here."""
    try:
        return fn()
    except IrrunError as x:
        raise Unexpressible(f"the body cannot be inferred with these inputs: {x.message}") from None


def _scalar(e: Emitter, name: str, to: str) -> str:
    """A one-element tensor as an ONNX scalar of type ``to`` (trip counts, conditions)."""
    cast = e.one("Cast", [name], to=onnx_type_named(to))
    return e.one("Reshape", [cast, e.ints([])])


@converts("If")
def if_(e: Emitter, c: Call) -> None:
    """ONNX If; each branch reads the layer's inputs its port map feeds to its Parameters."""
    from onnx import helper
    op = c.op
    branches = {}
    for tag in ("then_body", "else_body"):
        body = op.bodies[tag]
        types = _analysed(lambda: body.infer(op.params(tag, c.in_info)))
        feeds = {p: c.inputs[i] for i, p in op.feeds[tag]}
        with _nodes_of(e) as nodes:
            results = convert_body(e, body, types, feeds, f"{c.layer.name}/{tag}")
            outputs = []
            for r in op.results[tag]:
                out = e.one("Identity", [results[r]], e.fresh(f"{c.layer.name}/{tag}/out"))
                outputs.append(_body_value(out, body.result(types, r)))
        branches[tag] = helper.make_graph(nodes, e.fresh(f"{c.layer.name}_{tag}"), [], outputs)
    e.node("If", [_scalar(e, c.inputs[0], "BOOL")], c.outputs,
           then_branch=branches["then_body"], else_branch=branches["else_body"])


@converts("Loop", "TensorIterator")
def iterating(e: Emitter, c: Call) -> None:
    """ONNX Loop: back edges as loop-carried values, sliced inputs sliced in the body at the
    iteration number, concatenated outputs as scan outputs merged into their axis (reversed for
    a negative stride); Loop's trip count -1 as INT64_MAX."""
    from onnx import helper
    op, body, owner = c.op, c.op.body, c.layer.name
    ins = c.in_info
    a = _analysed(lambda: op.analyse(ins))
    n_iter = _analysed(lambda: op.iterations(ins, a))
    sliced = [m for m in op.inputs if m.slicing is not None]
    dims = {m.index: _axis_dim(e, c, m.index, m.slicing.axis) for m in sliced}
    if c.op.type == "Loop":
        trip = _scalar(e, c.inputs[0], "INT64")
        zero = e.const(np.asarray(0, np.int64))
        trip = e.one("Where", [e.one("Less", [trip, zero]), e.const(np.asarray(_INT64_MAX)), trip])
        cond = _scalar(e, c.inputs[1], "BOOL")
    else:
        trip = _trip_count(e, sliced[0], dims[sliced[0].index]) if sliced else e.const(np.asarray(1, np.int64))
        cond = e.const(np.asarray(True))
    carried = [m for m in op.inputs if m.back is not None]
    last_only = [om.result for om in op.outputs if om.concat is None and
                 not any(m.back == om.result for m in carried)]
    last_only = list(dict.fromkeys(last_only))
    scans = [om for om in op.outputs if om.concat is not None]

    iter_name, cond_in = e.fresh(f"{owner}/iteration"), e.fresh(f"{owner}/cond_in")
    carried_in = {m.param: e.fresh(f"{owner}/{body.layer(m.param).name}") for m in carried}
    extra_in = [e.fresh(f"{owner}/last_{r}") for r in last_only]
    with _nodes_of(e) as nodes:
        feeds = dict(carried_in)
        for m in op.inputs:
            if m.back is None and m.slicing is None:
                feeds[m.param] = c.inputs[m.index]
        for m in sliced:
            feeds[m.param] = _chunk(e, c.inputs[m.index], m.slicing, dims[m.index], iter_name, ins[m.index])
        if op.current is not None:
            decl = body.declared(op.current)
            cur = e.one("Cast", [iter_name], to=onnx_type(decl.etype if not decl.etype.is_dynamic
                                                           else elements.TYPES["i64"]))
            feeds[op.current] = cur if decl.shape.rank == 0 else e.one("Reshape", [cur, e.ints([1])])
        results = convert_body(e, body, a.types, feeds, owner)
        cond_out = _scalar(e, results[op.condition], "BOOL") if c.op.type == "Loop" else \
            e.one("Identity", [cond_in])
        body_outs = [_body_value(cond_out, None, "BOOL")]
        for m in carried:
            out = e.one("Identity", [results[m.back]], e.fresh(f"{owner}/next"))
            body_outs.append(_body_value(out, body.result(a.types, m.back)))
        for r in last_only:
            out = e.one("Identity", [results[r]], e.fresh(f"{owner}/last"))
            body_outs.append(_body_value(out, body.result(a.types, r)))
        for om in scans:
            info = body.result(a.types, om.result)
            src = results[om.result]
            if info.shape.rank == 0:
                src = e.one("Reshape", [src, e.ints([1])])
                info = TensorInfo(info.etype, PartialShape([1]))
            out = e.one("Identity", [src], e.fresh(f"{owner}/part"))
            body_outs.append(_body_value(out, info))
    body_ins = [_body_value(iter_name, None, "INT64"), _body_value(cond_in, None, "BOOL")]
    body_ins += [_body_value(carried_in[m.param], a.params[m.param]) for m in carried]
    body_ins += [_body_value(name, body.result(a.types, r)) for name, r in zip(extra_in, last_only)]
    graph = helper.make_graph(nodes, e.fresh(f"{owner}_body"), body_ins, body_outs)

    initial = [c.inputs[m.index] for m in carried]
    initial += [_zeros(e, body.result(a.types, r), n_iter, c.layer) for r in last_only]
    finals = [e.fresh(f"{owner}/final") for _ in carried + last_only]
    stacked = [e.fresh(f"{owner}/stacked") for _ in scans]
    e.node("Loop", [trip, cond, *initial], finals + stacked, body=graph)

    for k, om in enumerate(op.outputs):
        if om.concat is None:
            j = next((i for i, m in enumerate(carried) if m.back == om.result), None)
            final = finals[j] if j is not None else finals[len(carried) + last_only.index(om.result)]
            e.one("Identity", [final], c.outputs[k])
        else:
            rank = max(body.result(a.types, om.result).shape.rank or 0, 1)
            _merge(e, stacked[scans.index(om)], om.concat, rank, c.outputs[k])


def _axis_dim(e: Emitter, c: Call, index: int, axis: int) -> str:
    """The length of input ``index`` along ``axis`` (int64 scalar), a constant when known."""
    shape = c.in_info[index].shape
    rank = c.rank(index)
    ax = axis + rank if axis < 0 else axis
    if shape[ax].is_static:
        return e.const(np.asarray(shape[ax].lo, np.int64))
    dim = e.one("Gather", [e.one("Shape", [c.inputs[index]]), e.const(np.asarray(ax, np.int64))], axis=0)
    return dim


def _trip_count(e: Emitter, m, dim: str) -> str:
    """A TensorIterator's iterations: the parts of its first sliced input."""
    s = m.slicing
    extra = 1 + s.end if s.stride > 0 else -s.end
    length = e.one("Add", [dim, e.const(np.asarray(extra, np.int64))])
    return e.one("Div", [length, e.const(np.asarray(s.step, np.int64))])


def _chunk(e: Emitter, x: str, s, dim: str, iteration: str, info: TensorInfo) -> str:
    """Iteration ``iteration``'s part of the outer tensor ``x`` (written inside the body)."""
    rank = info.shape.rank
    if rank is None:
        raise Unexpressible("a sliced input of dynamic rank")
    ax = s.axis + rank if s.axis < 0 else s.axis
    step = e.const(np.asarray(s.step, np.int64))
    offset = e.one("Mul", [iteration, step])
    if s.stride < 0:
        offset = e.one("Sub", [e.one("Sub", [dim, step]), offset])
    begin = e.one("Reshape", [offset, e.ints([1])])
    end = e.one("Add", [begin, e.ints([s.step])])
    return e.one("Slice", [x, begin, end, e.ints([ax])])


def _zeros(e: Emitter, info: TensorInfo, n_iter, layer) -> str:
    """The initial value of a last-iteration output that no back edge carries: zeros, what
    OpenVINO gives when the loop runs zero times."""
    if info.shape.is_static and not info.etype.is_dynamic:
        return e.const(np.zeros(info.shape.to_tuple(), info.etype.dtype), "zeros")
    if n_iter.lo >= 1:                 # never read: any value of the element type will do
        return e.const(np.zeros([0] * (info.shape.rank or 0), info.etype.dtype), "unused")
    raise Unexpressible("a last-iteration output of dynamic shape that no back edge carries, in a loop "
                        "that may run zero times (OpenVINO then gives zeros of a shape ONNX cannot know)")


def _merge(e: Emitter, stacked: str, s, rank: int, output: str) -> None:
    """The scan output ``stacked`` ([iterations, *part]) concatenated along the port map's axis:
    reversed for a negative stride (the last iteration's part comes first)."""
    ax = s.axis + rank if s.axis < 0 else s.axis
    if s.stride < 0:
        stacked = e.one("Slice", [stacked, e.ints([-1]), e.ints([_INT64_MIN]), e.ints([0]), e.ints([-1])])
    if ax:
        stacked = e.one("Transpose", [stacked], perm=[*range(1, ax + 1), 0, *range(ax + 1, rank + 1)])
    shape = e.one("Shape", [stacked])
    merged = e.one("Mul", [e.one("Slice", [shape, e.ints([ax]), e.ints([ax + 1])]),
                           e.one("Slice", [shape, e.ints([ax + 1]), e.ints([ax + 2])])])
    parts = [merged]
    if ax:
        parts.insert(0, e.one("Slice", [shape, e.ints([0]), e.ints([ax])]))
    if ax + 2 <= rank:
        parts.append(e.one("Slice", [shape, e.ints([ax + 2]), e.ints([rank + 1])]))
    target = e.one("Concat", parts, axis=0) if len(parts) > 1 else parts[0]
    e.one("Reshape", [stacked, target], output)
