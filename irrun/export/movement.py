"""ONNX forms of the ops that move, select or reshape data (and Constant): Reshape, Squeeze,
Unsqueeze, Transpose, Concat, Split, VariadicSplit, Gather*, Scatter*, Slice, StridedSlice, Tile,
Broadcast, ShapeOf, Range, Pad, ... Shape, axes and index inputs are int64 in ONNX; the IR's
may be i32, so they are cast first."""
from __future__ import annotations

import numpy as np

from ..types import elements
from .emitter import Call, Emitter, Unexpressible, onnx_type
from .table import converts, not_exported

I64 = elements.TYPES["i64"]


def _i64(e: Emitter, c: Call, i: int) -> str:
    return e.as_int64(c.inputs[i], c.in_info[i])


@converts("Constant")
def constant(e: Emitter, c: Call) -> None:
    """An initializer in the Const's own element type (compressed weights stay compressed)."""
    value = c.layer.const_value
    if value is None:
        raise Unexpressible("the Const's bytes could not be read")
    if value.dtype == np.float16 and c.out_info[0].etype.name == "f32":
        value = value.astype(np.float32)    # an f16 graph computed in f32 (irrun.analysis.execution_types)
    if c.out_info[0].etype.name in ("f8e8m0", "f4e2m1"):
        value = np.asarray(value, dtype=np.float32)
        e.notes.append(f"{c.out_info[0].etype.name} constants are written decompressed to f32")
    elif c.out_info[0].etype.name == "f32" and np.asarray(value).dtype == np.float16:
        value = np.asarray(value, dtype=np.float32)     # IR v10's f16 computed in f32 (analysis.execution_types)
    e.const(value, name=c.outputs[0])


@converts("Reshape")
def reshape(e: Emitter, c: Call) -> None:
    """special_zero=true: a 0 copies the input dim (ONNX allowzero=0); false: a 0 is a 0 (allowzero=1)."""
    e.one("Reshape", [c.inputs[0], _i64(e, c, 1)], c.outputs[0], allowzero=0 if c.op.special_zero else 1)


@converts("Squeeze")
def squeeze(e: Emitter, c: Call) -> None:
    """ONNX Squeeze; axes whose dim is not 1 are dropped, as OpenVINO skips them."""
    if len(c.inputs) == 1:
        e.one("Squeeze", c.inputs, c.outputs[0])
        return
    axes = np.ravel(c.const(1)).astype(np.int64) if c.in_info[1].value is not None else None
    if axes is not None:
        shape = c.in_info[0].shape
        if shape.rank is not None:     # the IR skips axes whose dim is not 1 (ONNX refuses them)
            axes = np.asarray([a for a in axes if list(shape)[a].is_static and list(shape)[a].lo == 1 or
                               not list(shape)[a].is_static], dtype=np.int64)
        if axes.size:
            e.one("Squeeze", [c.inputs[0], e.ints(axes, "axes")], c.outputs[0])
        else:                          # no axis left: ONNX would read empty axes as "every 1"
            e.one("Identity", [c.inputs[0]], c.outputs[0])
        return
    e.one("Squeeze", [c.inputs[0], e.one("Reshape", [_i64(e, c, 1), e.ints([-1])])], c.outputs[0])


@converts("Unsqueeze")
def unsqueeze(e: Emitter, c: Call) -> None:
    """ONNX Unsqueeze (axes as a 1-D int64 input)."""
    e.one("Unsqueeze", [c.inputs[0], e.one("Reshape", [_i64(e, c, 1), e.ints([-1])])], c.outputs[0])


@converts("Transpose")
def transpose(e: Emitter, c: Call) -> None:
    """ONNX Transpose; the order must be a constant (an attribute in ONNX)."""
    perm = [int(p) for p in np.ravel(c.const(1))]
    rank = c.rank(0)
    if not perm:
        perm = list(range(rank))[::-1]
    e.one("Transpose", c.inputs[:1], c.outputs[0], perm=[p % rank for p in perm])


@converts("Concat")
def concat(e: Emitter, c: Call) -> None:
    """ONNX Concat."""
    e.one("Concat", c.inputs, c.outputs[0], axis=int(c.op.axis))


@converts("Split")
def split(e: Emitter, c: Call) -> None:
    """ONNX Split with num_outputs (opset 18+)."""
    axis = int(np.ravel(c.const(1))[0])
    e.node("Split", c.inputs[:1], c.outputs, axis=axis, num_outputs=int(c.op.num_splits))


@converts("VariadicSplit")
def variadic_split(e: Emitter, c: Call) -> None:
    """Split with lengths; a -1 length resolved from the output's static dim, or (lengths known
    only at run time) in the graph: the axis' size less the other lengths."""
    axis = int(np.ravel(c.const(1))[0])
    if c.in_info[2].value is None:
        given = e.as_int64(c.inputs[2], c.in_info[2])
        negative = e.one("Less", [given, e.ints([0])])
        size = e.one("Shape", [c.inputs[0]], start=axis, end=(axis + 1) or None)
        rest = e.one("Sub", [size, e.one("ReduceSum", [e.one("Where", [negative, e.ints([0]), given])], keepdims=1)])
        e.node("Split", [c.inputs[0], e.one("Where", [negative, rest, given])], c.outputs, axis=axis)
        return
    lengths = [int(x) for x in np.ravel(c.const(2))]
    if -1 in lengths:
        i = lengths.index(-1)
        dims = list(c.out_info[i].shape)
        rank = c.rank(0)
        d = dims[axis % rank]
        if not d.is_static:
            raise Unexpressible("a -1 split length on a dynamic dim")
        lengths[i] = d.lo
    e.node("Split", [c.inputs[0], e.ints(lengths, "split")], c.outputs, axis=axis)


@converts("Gather")
def gather(e: Emitter, c: Call) -> None:
    """batch_dims=0 is ONNX Gather (indices of other integer types, e.g. nncf's u8 codebook
    indices, cast to int64); other batch_dims have no one-node form (not written yet)."""
    axis = int(np.ravel(c.const(2))[0])
    if int(getattr(c.op, "batch_dims", 0)) != 0:
        raise Unexpressible("Gather with batch_dims != 0 (not written yet)")
    indices = c.inputs[1] if c.in_info[1].etype.name in ("i32", "i64") else e.as_int64(c.inputs[1], c.in_info[1])
    e.one("Gather", [c.inputs[0], indices], c.outputs[0], axis=axis)


@converts("GatherElements")
def gather_elements(e: Emitter, c: Call) -> None:
    """ONNX GatherElements."""
    e.one("GatherElements", c.inputs, c.outputs[0], axis=int(c.op.axis))


@converts("GatherND")
def gather_nd(e: Emitter, c: Call) -> None:
    """ONNX GatherND keeps the batch dims like GatherND-8; GatherND-5 flattens them (not written)."""
    if int(c.op.batch_dims) and c.op.version == "opset5":
        raise Unexpressible("GatherND-5 with batch_dims flattens the batch dims (not written yet)")
    e.one("GatherND", [c.inputs[0], _i64(e, c, 1)], c.outputs[0], batch_dims=int(c.op.batch_dims))


@converts("ScatterElementsUpdate")
def scatter_elements(e: Emitter, c: Call) -> None:
    """ONNX ScatterElements (reduction sum/prod/min/max as add/mul/min/max)."""
    reduction = getattr(c.op, "reduction", "none")
    if reduction not in ("none", "sum", "prod", "max", "min") or not getattr(c.op, "use_init_val", True):
        raise Unexpressible(f"reduction={reduction} / use_init_val=false has no ONNX form")
    axis = int(np.ravel(c.const(3))[0])
    _scatter_node(e, c, "ScatterElements", [c.inputs[0], _i64(e, c, 1), c.inputs[2]], c.outputs[0], axis=axis,
                  reduction={"sum": "add", "prod": "mul"}.get(reduction, reduction))


def _one_update_spread(e: Emitter, c: Call, updates: str) -> str:
    """ScatterNDUpdate's updates when they are one value of another rank than indices.shape[:-1] +
    data.shape[k:] (OpenVINO takes it for every position, irrun too): expanded to that shape,
    which ONNX ScatterND requires."""
    data, indices, given = (info.shape for info in c.in_info[:3])
    if not (given.is_static and int(np.prod(given.to_tuple())) == 1 and indices.rank and data.rank is not None
            and indices[-1].is_static):
        return updates
    k = indices[-1].lo
    if given.rank == indices.rank - 1 + data.rank - k:
        return updates
    target = e.one("Concat", [e.one("Shape", [c.inputs[1]], end=-1), e.one("Shape", [c.inputs[0]], start=k)], axis=0)
    return e.one("Expand", [e.one("Reshape", [updates, e.ints([])]), target])


def _scatter_node(e: Emitter, c: Call, op_type: str, inputs: list[str], output: str | None, **attrs) -> str:
    """The scatter node, reducing in a type onnxruntime has a kernel for where it has none for
    the data's: f16/bf16 in f32 (as OpenVINO accumulates them, rounded once at the end) and
    boolean min/max as u8 (and/or, OpenVINO's boolean min/max)."""
    et, reduction = c.in_info[0].etype, attrs.get("reduction", "none")
    carrier = None
    if et.name in ("f16", "bf16") and reduction != "none":
        carrier = elements.TYPES["f32"]
    elif et.name == "boolean" and reduction in ("min", "max"):
        carrier = elements.TYPES["u8"]
    if carrier is None:
        return e.one(op_type, inputs, output, **attrs)
    data, indices, updates = inputs
    reduced = e.one(op_type, [e.cast(data, carrier), indices, e.cast(updates, carrier)], **attrs)
    return e.one("Cast", [reduced], output, to=onnx_type(et))


@converts("ScatterNDUpdate")
def scatter_nd(e: Emitter, c: Call) -> None:
    """ONNX ScatterND (reduction sum/prod/min/max as add/mul/min/max; sub has no ONNX form);
    float min/max keep OpenVINO's NaN rule."""
    reduction = getattr(c.op, "reduction", "none")
    if reduction == "sub":
        raise Unexpressible("reduction=sub has no ONNX form")
    data, updates, et = c.inputs[0], c.inputs[2], c.in_info[0].etype
    updates = _one_update_spread(e, c, updates)
    nan_rule = reduction in ("min", "max") and et.is_float
    if nan_rule:
        # OpenVINO's std::min/std::max: a NaN in data stays, NaN updates are ignored
        # (irrun.ops.scatter); onnxruntime's replace a NaN by the next update instead
        data_nan = e.one("IsNaN", [data])
        data = e.where(data_nan, e.scalar(0, et), data, et)
        ignored = e.scalar(np.inf if reduction == "min" else -np.inf, et)
        updates = e.where(e.one("IsNaN", [updates]), ignored, updates, et)
    out = _scatter_node(e, c, "ScatterND", [data, _i64(e, c, 1), updates], None if nan_rule else c.outputs[0],
                        reduction={"sum": "add", "prod": "mul"}.get(reduction, reduction))
    if nan_rule:
        e.where(data_nan, c.inputs[0], out, et, c.outputs[0])


@converts("ShapeOf")
def shape_of(e: Emitter, c: Call) -> None:
    """ONNX Shape (Cast to i32 when the IR asks for it)."""
    dst = c.out_info[0].etype
    if dst.name == "i64":
        e.one("Shape", c.inputs, c.outputs[0])
    else:
        e.one("Cast", [e.one("Shape", c.inputs)], c.outputs[0], to=onnx_type(dst))


@converts("Range")
def range_(e: Emitter, c: Call) -> None:
    """ONNX Range takes three scalars of the output type."""
    dst = out = c.out_info[0].etype
    if dst.name not in ("f32", "f64", "i16", "i32", "i64"):      # ONNX Range's types
        dst = elements.TYPES["f32" if dst.is_float else "i64"]
    args = [x if info.etype == dst else e.cast(x, dst) for x, info in zip(c.inputs, c.in_info)]
    args = [e.one("Reshape", [x, e.ints([], "scalar_shape")]) if info.shape.rank != 0 else x
            for x, info in zip(args, c.in_info)]
    if dst == out:
        e.one("Range", args, c.outputs[0])
    else:
        e.one("Cast", [e.one("Range", args)], c.outputs[0], to=onnx_type(out))


@converts("Broadcast")
def broadcast(e: Emitter, c: Call) -> None:
    """numpy / bidirectional: ONNX Expand (numpy's target is the result when it is valid)."""
    if c.op.mode not in ("numpy", "bidirectional"):
        raise Unexpressible(f'Broadcast mode="{c.op.mode}" (not written yet)')
    e.one("Expand", [c.inputs[0], _i64(e, c, 1)], c.outputs[0])


@converts("Tile")
def tile(e: Emitter, c: Call) -> None:
    """The IR pads repeats and data rank to each other; ONNX Tile wants them equal."""
    rank, reps = c.rank(0), c.in_info[1].shape
    if reps.rank != 1 or not list(reps)[0].is_static:
        raise Unexpressible("repeats of unknown length")
    n = list(reps)[0].lo
    x, r = c.inputs[0], _i64(e, c, 1)
    if n > rank:
        x = e.one("Unsqueeze", [x, e.ints(list(range(n - rank)))])       # leading 1s, as the IR pads
    elif n < rank:
        r = e.one("Concat", [e.ints([1] * (rank - n)), r], axis=0)
    e.one("Tile", [x, r], c.outputs[0])


@converts("Slice")
def slice_(e: Emitter, c: Call) -> None:
    """The IR's inputs are (data, start, stop, step[, axes]), ONNX's (data, starts, ends[, axes[, steps]])."""
    axes = _i64(e, c, 4) if len(c.inputs) > 4 else ""
    e.one("Slice", [c.inputs[0], _i64(e, c, 1), _i64(e, c, 2), axes, _i64(e, c, 3)], c.outputs[0])


@converts("StridedSlice")
def strided_slice(e: Emitter, c: Call) -> None:
    """Written for constant begin/end/strides: masks resolved here into one ONNX Slice over the
    sliced axes, an Unsqueeze for new_axis_mask and a Squeeze for shrink_axis_mask."""
    begin, end = [int(x) for x in np.ravel(c.const(1))], [int(x) for x in np.ravel(c.const(2))]
    strides = [int(x) for x in np.ravel(c.const(3))] if len(c.inputs) > 3 else [1] * len(begin)
    rank = c.rank(0)

    def mask(name: str) -> list[int]:
        m = list(getattr(c.op, name, []) or [])
        return m + [0] * (len(begin) - len(m))
    bm, em, nm, sm, elm = (mask(n) for n in ("begin_mask", "end_mask", "new_axis_mask",
                                             "shrink_axis_mask", "ellipsis_mask"))
    starts, ends, axes, steps, new_axes, shrink = [], [], [], [], [], []
    out_axis, in_axis = 0, 0
    for i in range(len(begin)):
        if elm[i]:
            rest = sum(1 for j in range(i + 1, len(begin)) if not nm[j])
            skip = rank - in_axis - rest
            in_axis += skip
            out_axis += skip
            continue
        if nm[i]:
            new_axes.append(out_axis)
            out_axis += 1
            continue
        big = np.iinfo(np.int64).max
        step = strides[i]
        if sm[i]:
            b = begin[i]
            starts.append(b)
            ends.append(b + 1 if b != -1 else big)
            steps.append(1)
            axes.append(in_axis)
            shrink.append(out_axis)
        else:
            starts.append(begin[i] if not bm[i] else (0 if step > 0 else big))
            ends.append(end[i] if not em[i] else (big if step > 0 else -big))
            steps.append(step)
            axes.append(in_axis)
        in_axis += 1
        out_axis += 1
    y = c.inputs[0]
    if axes:
        y = e.one("Slice", [y, e.ints(starts), e.ints(ends), e.ints(axes), e.ints(steps)])
    if shrink:
        # shrunk axes are numbered in the sliced tensor (before the new axes are inserted)
        pre = [a - sum(1 for n in new_axes if n < a) for a in shrink]
        y = e.one("Squeeze", [y, e.ints(pre)])
    if new_axes:
        after = [a - sum(1 for s in shrink if s < a) for a in new_axes]
        y = e.one("Unsqueeze", [y, e.ints(after)])
    e.one("Identity", [y], c.outputs[0])


@converts("Pad")
def pad(e: Emitter, c: Call) -> None:
    """ONNX Pad with pads = begin ++ end; the IR's negative pads (Pad-12) crop, as ONNX's do."""
    mode = {"constant": "constant", "edge": "edge", "reflect": "reflect", "symmetric": None}[c.op.pad_mode]
    if mode is None:
        raise Unexpressible('pad_mode="symmetric" has no ONNX form')
    pads = e.one("Concat", [_i64(e, c, 1), _i64(e, c, 2)], axis=0)
    args = [c.inputs[0], pads] + ([c.inputs[3]] if len(c.inputs) > 3 and mode == "constant" else [])
    e.one("Pad", args, c.outputs[0], mode=mode)


@converts("DepthToSpace")
def depth_to_space(e: Emitter, c: Call) -> None:
    """ONNX DepthToSpace (blocks_first = DCR, depth_first = CRD), 4-D."""
    mode = "DCR" if c.op.mode == "blocks_first" else "CRD"
    if c.rank(0) != 4:
        raise Unexpressible("ONNX DepthToSpace takes 4-D tensors")
    e.one("DepthToSpace", c.inputs, c.outputs[0], blocksize=int(c.op.block_size), mode=mode)


@converts("NonZero")
def non_zero(e: Emitter, c: Call) -> None:
    """ONNX NonZero (same [rank, count] layout)."""
    dst = c.out_info[0].etype
    y = e.one("NonZero", c.inputs)
    e.one("Identity" if dst.name == "i64" else "Cast", [y], c.outputs[0],
          **({} if dst.name == "i64" else {"to": onnx_type(dst)}))


@converts("Einsum")
def einsum(e: Emitter, c: Call) -> None:
    """ONNX Einsum with the same equation. A label of size 1 in one input and larger in another
    (OpenVINO broadcasts it, so does onnxruntime) is first Expanded to the larger size: ONNX's
    shape inference takes the first input's size, and its checker refuses the true output shape."""
    equation = c.op.equation.replace(" ", "")
    terms = equation.split("->")[0].split(",")
    shapes = [info.shape for info in c.in_info]
    inputs = list(c.inputs)
    if "." not in equation and len(terms) == len(shapes) and all(s.is_static for s in shapes):
        dims = [dict(zip(term, s.to_tuple())) for term, s in zip(terms, shapes)]
        size = {label: max(d[label] for d in dims if label in d) for label in set("".join(terms))}
        for i, (term, shape) in enumerate(zip(terms, shapes)):
            want = [size[label] for label in term]
            if want != list(shape.to_tuple()):
                inputs[i] = e.one("Expand", [inputs[i], e.ints(want)])
    e.one("Einsum", inputs, c.outputs[0], equation=c.op.equation)


@converts("CumSum")
def cumsum(e: Emitter, c: Call) -> None:
    """ONNX CumSum with the same exclusive/reverse."""
    axis = c.inputs[1] if len(c.inputs) > 1 else e.const(np.asarray(0, np.int64))
    e.one("CumSum", [c.inputs[0], axis], c.outputs[0], exclusive=int(c.op.exclusive), reverse=int(c.op.reverse))


@converts("OneHot")
def one_hot(e: Emitter, c: Call) -> None:
    """on_value where the index equals the position along the new axis, else off_value: an Equal
    against a Range and a Where (ONNX OneHot wraps negative indices, which the IR ignores — a row
    of off_value — unless OneHot-16 normalizes them; onnxruntime's OneHot has few types)."""
    rank = c.rank(0) + 1
    axis = int(c.op.axis) % rank
    idx = _i64(e, c, 0)
    depth = e.one("Reshape", [_i64(e, c, 1), e.ints([], "scalar_shape")])
    if getattr(c.op, "negative_indices_mode", "ignore_negative") == "normalize":
        idx = e.one("Where", [e.one("Less", [idx, e.ints([0])]), e.one("Add", [idx, depth]), idx])
    positions = e.one("Range", [e.const(np.asarray(0, np.int64)), depth, e.const(np.asarray(1, np.int64))])
    positions = e.one("Reshape", [positions, e.ints([1] * axis + [-1] + [1] * (rank - 1 - axis))])
    hit = e.one("Equal", [e.one("Unsqueeze", [idx, e.ints([axis])]), positions])
    on = e.one("Reshape", [c.inputs[2], e.ints([], "scalar_shape")])
    off = e.one("Reshape", [c.inputs[3], e.ints([], "scalar_shape")])
    e.where(hit, on, off, c.out_info[0].etype, c.outputs[0])


@converts("SpaceToDepth")
def space_to_depth(e: Emitter, c: Call) -> None:
    """ONNX SpaceToDepth is the IR's blocks_first mode on 4-D tensors."""
    if c.op.mode != "blocks_first" or c.rank(0) != 4:
        raise Unexpressible("ONNX SpaceToDepth is blocks_first on 4-D tensors only")
    e.one("SpaceToDepth", c.inputs, c.outputs[0], blocksize=int(c.op.block_size))


@converts("ShuffleChannels")
def shuffle_channels(e: Emitter, c: Call) -> None:
    """[.., g*k, ..] -> [.., g, k, ..] -> swap g and k -> back (static shape)."""
    if not c.in_info[0].shape.is_static:
        raise Unexpressible("a dynamic input shape")
    shape = list(c.in_info[0].shape.to_tuple())
    axis, g = int(c.op.axis) % len(shape), int(c.op.group)
    split = shape[:axis] + [g, shape[axis] // g] + shape[axis + 1:]
    perm = list(range(len(split)))
    perm[axis], perm[axis + 1] = axis + 1, axis
    y = e.one("Transpose", [e.one("Reshape", [c.inputs[0], e.ints(split)])], perm=perm)
    e.one("Reshape", [y, e.ints(shape)], c.outputs[0])


def _axes(c: Call, i: int) -> list[int]:
    rank = c.rank(0)
    return [int(a) % rank for a in np.ravel(c.const(i))]


@converts("Reverse")
def reverse(e: Emitter, c: Call) -> None:
    """A Slice with step -1 over the reversed axes (given as indices or as a boolean mask)."""
    if c.op.mode == "mask":
        axes = [i for i, m in enumerate(np.ravel(c.const(1))) if m]
    else:
        axes = _axes(c, 1)
    if not axes:
        e.one("Identity", c.inputs[:1], c.outputs[0])
        return
    big = np.iinfo(np.int64).max
    e.one("Slice", [c.inputs[0], e.ints([-1] * len(axes)), e.ints([-big] * len(axes)), e.ints(axes),
                    e.ints([-1] * len(axes))], c.outputs[0])


@converts("ReverseSequence")
def reverse_sequence(e: Emitter, c: Call) -> None:
    """ONNX ReverseSequence."""
    rank = c.rank(0)
    e.one("ReverseSequence", [c.inputs[0], _i64(e, c, 1)], c.outputs[0],
          batch_axis=int(c.op.batch_axis) % rank, time_axis=int(c.op.seq_axis) % rank)


@converts("Roll")
def roll(e: Emitter, c: Call) -> None:
    """Per axis: the last ``shift`` entries moved to the front (Slice + Concat; the rolled axes'
    dims static, the others may be dynamic: Mamba/LFM2 roll a [?, C, K] conv state along K)."""
    dims = list(c.in_info[0].shape)
    axes = _axes(c, 2)
    shifts = [int(s) for s in np.ravel(c.const(1))]
    if len(shifts) == 1:
        shifts *= len(axes)
    y = c.inputs[0]
    for axis, shift in zip(axes, shifts):
        if not dims[axis].is_static:
            raise Unexpressible("a dynamic dim on a rolled axis")
        n = dims[axis].lo
        k = shift % n if n else 0
        if k == 0:
            continue
        tail = e.one("Slice", [y, e.ints([n - k]), e.ints([n]), e.ints([axis])])
        head = e.one("Slice", [y, e.ints([0]), e.ints([n - k]), e.ints([axis])])
        y = e.one("Concat", [tail, head], axis=axis)
    e.one("Identity", [y], c.outputs[0])


@converts("ScatterUpdate")
def scatter_update(e: Emitter, c: Call) -> None:
    """data[..., indices, ...] = updates along a constant axis: ScatterND on data with that axis
    moved to the front (updates moved the same way), then moved back."""
    rank = c.rank(0)
    axis = int(np.ravel(c.const(3))[0]) % rank
    idx_rank = c.rank(1)
    data, upd = c.inputs[0], c.inputs[2]
    if axis:
        perm = [axis] + [i for i in range(rank) if i != axis]
        data = e.one("Transpose", [data], perm=perm)
        # updates: data.shape[:axis] + indices.shape + data.shape[axis+1:] -> indices dims first
        u_perm = list(range(axis, axis + idx_rank)) + list(range(axis)) + \
            list(range(axis + idx_rank, rank - 1 + idx_rank))
        upd = e.one("Transpose", [upd], perm=u_perm)
    idx = e.one("Unsqueeze", [_i64(e, c, 1), e.ints([-1])])
    y = e.one("ScatterND", [data, idx, upd])
    if axis:
        back = [0] * rank
        for i, p in enumerate(perm):
            back[p] = i
        y = e.one("Transpose", [y], perm=back)
    e.one("Identity", [y], c.outputs[0])


@converts("Eye")
def eye(e: Emitter, c: Call) -> None:
    """ones where column == row + diagonal: a Range comparison, broadcast to the batch shape."""
    rows = e.one("Reshape", [_i64(e, c, 0), e.ints([], "scalar_shape")])
    cols = e.one("Reshape", [_i64(e, c, 1), e.ints([], "scalar_shape")])
    diag = e.one("Reshape", [_i64(e, c, 2), e.ints([], "scalar_shape")])
    zero, one = e.const(np.asarray(0, np.int64)), e.const(np.asarray(1, np.int64))
    r = e.one("Unsqueeze", [e.one("Range", [zero, rows, one]), e.ints([1])])
    k = e.one("Range", [zero, cols, one])
    y = e.one("Cast", [e.one("Equal", [e.one("Add", [r, diag]), k])], to=onnx_type(c.out_info[0].etype))
    if len(c.inputs) > 3:
        shape = e.one("Concat", [_i64(e, c, 3), e.one("Shape", [y])], axis=0)
        y = e.one("Expand", [y, shape])
    e.one("Identity", [y], c.outputs[0])


@converts("EmbeddingBagPackedSum", "EmbeddingBagPacked")
def embedding_bag_packed(e: Emitter, c: Call) -> None:
    """Gather the bags' rows [B, K, D], weight them, sum (or average) over K."""
    rows = e.one("Gather", [c.inputs[0], _i64(e, c, 1)], axis=0)
    if len(c.inputs) > 2:
        rows = e.one("Mul", [rows, e.one("Unsqueeze", [c.inputs[2], e.ints([-1])])])
    op = "ReduceMean" if getattr(c.op, "reduction", "sum") == "mean" else "ReduceSum"
    e.one(op, [rows, e.ints([1])], c.outputs[0], keepdims=0)


@converts("ConvertPromoteTypes")
def convert_promote_types(e: Emitter, c: Call) -> None:
    """A Cast of each input to the promoted type shape inference found."""
    for x, out, info in zip(c.inputs, c.outputs, c.out_info):
        e.one("Cast", [x], out, to=onnx_type(info.etype))


not_exported("string tensors of the openvino-tokenizers layout (begins/ends/chars) have no ONNX form",
             "StringTensorPack", "StringTensorUnpack")
