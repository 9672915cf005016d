"""ONNX forms of the ops that gather, group or scatter by index: EmbeddingBagOffsets(Sum),
EmbeddingSegmentsSum, SegmentMax, SliceScatter, the CTC greedy decoders.

The grouping ops are one pattern: each element's group id (computed from the offsets, or given
as segment ids), then ScatterND with ``reduction`` add / max into a tensor of one row per group,
and a count per group that decides the empty groups' rows. Everything stays dynamic: the row
counts come from the inputs' Shape or values.
"""
from __future__ import annotations

import numpy as np

from ..types import elements
from .emitter import Call, Emitter, Unexpressible, onnx_type
from .table import converts

I64 = elements.TYPES["i64"]
F32 = elements.TYPES["f32"]
BOOL = elements.TYPES["boolean"]
_END = np.iinfo(np.int64).max


def _i64(e: Emitter, c: Call, i: int) -> str:
    return e.as_int64(c.inputs[i], c.in_info[i])


def _rows_shape(e: Emitter, groups: str, table: str) -> str:
    """[groups, *table.shape[1:]] as a 1-D int64 tensor (``groups``: a [1] tensor)."""
    return e.one("Concat", [groups, e.one("Slice", [e.one("Shape", [table]), e.ints([1]), e.ints([_END])])],
                 axis=0)


def _filled(e: Emitter, value: float, etype, shape: str) -> str:
    """A tensor of ``shape`` filled with ``value`` of element type ``etype``."""
    return e.one("Expand", [e.scalar(value, etype), shape])


def _group_reduce(e: Emitter, data: str, groups: str, n_groups: str, etype, reduction: str,
                  start: float = 0.0) -> tuple[str, str]:
    """(per-group reduction of ``data``'s rows by the 1-D int64 ``groups``, per-group row count
    as f32) over ``n_groups`` ([1] int64) groups; rows start at ``start``."""
    index = e.one("Unsqueeze", [groups, e.ints([1])])
    shape = _rows_shape(e, n_groups, data)
    reduced = e.one("ScatterND", [_filled(e, start, etype, shape), index, data], reduction=reduction)
    ones = e.one("Expand", [e.scalar(1, F32), e.one("Shape", [groups])])
    counts = e.one("ScatterND", [_filled(e, 0, F32, n_groups), index, ones], reduction="add")
    return reduced, counts


def _bags(e: Emitter, c: Call, groups: str, n_groups: str, default_i: int, weights_i: int,
          mean: bool) -> None:
    """The embedding bags: rows gathered, weighted, summed per group (averaged with ``mean``);
    an empty group gets the default_index row (zeros when it is absent or -1)."""
    table, et = c.inputs[0], c.in_info[0].etype
    rows = e.one("Gather", [table, _i64(e, c, 1)], axis=0)
    rank = c.rank(0)
    if len(c.inputs) > weights_i:
        w = e.one("Reshape", [c.inputs[weights_i], e.ints([-1] + [1] * (rank - 1))])
        rows = e.one("Mul", [rows, w])
    sums, counts = _group_reduce(e, rows, groups, n_groups, et, "add")
    wide = e.one("Reshape", [counts, e.ints([-1] + [1] * (rank - 1))])
    if mean:
        sums = e.one("Div", [sums, e.one("CastLike", [e.one("Max", [wide, e.scalar(1, F32)]), table])])
    empty = e.one("Equal", [wide, e.scalar(0, F32)])
    if len(c.inputs) > default_i:
        d = e.one("Reshape", [_i64(e, c, default_i), e.ints([1])])
        safe = e.one("Max", [d, e.ints([0])])
        row = e.one("Gather", [table, safe], axis=0)
        default = e.where(e.one("Less", [d, e.ints([0])]), e.one("Mul", [row, e.scalar(0, et)]), row, et)
    else:
        default = e.scalar(0, et)
    e.where(empty, default, sums, et, output=c.outputs[0])


@converts("EmbeddingBagOffsetsSum", "EmbeddingBagOffsets")
def embedding_bag_offsets(e: Emitter, c: Call) -> None:
    """Index p belongs to the last bag whose offset is <= p (an empty bag's rows go to the next
    one): ReduceSum(offsets <= p) - 1; then the rows ScatterND-added per bag, weighted, averaged
    for ``reduction="mean"``, the empty bags' rows the default_index row or zeros."""
    indices = _i64(e, c, 1)
    offsets = _i64(e, c, 2)
    n = e.one("Shape", [indices])
    positions = e.one("Range", [e.scalar(0, I64), e.one("Squeeze", [n, e.ints([0])]), e.scalar(1, I64)])
    below = e.one("LessOrEqual", [e.one("Unsqueeze", [offsets, e.ints([0])]),
                                  e.one("Unsqueeze", [positions, e.ints([1])])])
    groups = e.one("Sub", [e.one("ReduceSum", [e.cast(below, I64), e.ints([1])], keepdims=0), e.ints([1])])
    mean = getattr(c.op, "reduction", "sum") == "mean"
    _bags(e, c, groups, e.one("Shape", [offsets]), 3, 4, mean)


@converts("EmbeddingSegmentsSum")
def embedding_segments_sum(e: Emitter, c: Call) -> None:
    """The rows ScatterND-added by segment id into num_segments rows, weighted; the empty
    segments' rows the default_index row or zeros."""
    n_groups = e.one("Reshape", [_i64(e, c, 3), e.ints([1])])
    _bags(e, c, _i64(e, c, 2), n_groups, 4, 5, False)


@converts("SegmentMax")
def segment_max(e: Emitter, c: Call) -> None:
    """ScatterND max of the rows by segment id into num_segments (or max id + 1) rows that
    start at the type's lowest value; ``fill_mode="zero"`` zeroes the segments without rows.
    Ids past num_segments are dropped first (Where to a spare row, sliced off)."""
    et = c.in_info[0].etype
    ids = _i64(e, c, 1)
    if len(c.inputs) > 2:
        n_groups = e.one("Reshape", [_i64(e, c, 2), e.ints([1])])
    else:
        n_groups = e.one("Add", [e.one("ReduceMax", [ids], keepdims=1), e.ints([1])])
    kept = e.one("Where", [e.one("Less", [ids, n_groups]), ids, n_groups])
    spare = e.one("Add", [n_groups, e.ints([1])])
    lowest = np.finfo(et.dtype).min if et.is_float else np.iinfo(et.dtype).min
    data = c.inputs[0]
    if et.is_float:     # NaN loses to any number (std::max, as OpenVINO's CPU plugin)
        data = e.where(e.one("IsNaN", [data]), e.scalar(lowest, et), data, et)
    maxima, counts = _group_reduce(e, data, kept, spare, et, "max", start=float(lowest))
    maxima = e.one("Slice", [maxima, e.ints([0]), n_groups, e.ints([0])])
    if c.op.fill_mode == "zero":
        counts = e.one("Slice", [counts, e.ints([0]), n_groups, e.ints([0])])
        empty = e.one("Reshape", [e.one("Equal", [counts, e.scalar(0, F32)]),
                                  e.ints([-1] + [1] * (c.rank(0) - 1))])
        e.where(empty, e.scalar(0, et), maxima, et, output=c.outputs[0])
    else:
        e.one("Identity", [maxima], c.outputs[0])


@converts("SliceScatter")
def slice_scatter(e: Emitter, c: Call) -> None:
    """The element positions of ``data`` sliced as Slice-8 (ONNX Slice has its semantics), then
    ScatterElements of the updates at those positions in the flat data."""
    shape = e.one("Shape", [c.inputs[0]])
    count = e.one("ReduceProd", [shape], keepdims=0)
    positions = e.one("Reshape", [e.one("Range", [e.scalar(0, I64), count, e.scalar(1, I64)]), shape])
    args = [positions, _i64(e, c, 2), _i64(e, c, 3)]
    args += [_i64(e, c, 5) if len(c.inputs) > 5 else "", _i64(e, c, 4)]
    picked = e.one("Reshape", [e.one("Slice", args), e.ints([-1])])
    flat = e.one("Reshape", [c.inputs[0], e.ints([-1])])
    scattered = e.one("ScatterElements", [flat, picked, e.one("Reshape", [c.inputs[1], e.ints([-1])])], axis=0)
    e.one("Reshape", [scattered, shape], c.outputs[0])


def _previous(e: Emitter, x: str) -> str:
    """``x`` [N, T] shifted right by one along axis 1, -1 in the first column."""
    first = e.one("Slice", [x, e.ints([0]), e.ints([1]), e.ints([1])])
    return e.one("Concat", [e.one("Sub", [e.one("Mul", [first, e.ints([0])]), e.ints([1])]),
                            e.one("Slice", [x, e.ints([0]), e.ints([-1]), e.ints([1])])], axis=1)


def _compact(e: Emitter, values: str, keep: str) -> tuple[str, str]:
    """(the kept entries of ``values`` [N, T] (int64) moved left, -1 padded; their count [N]):
    each kept entry goes to its CumSum position by ScatterElements, the others to a spare
    column T, sliced off."""
    kept = e.cast(keep, I64)
    position = e.one("Sub", [e.one("CumSum", [kept, e.scalar(1, I64)]), e.ints([1])])
    shape = e.one("Shape", [values])
    frames = e.one("Slice", [shape, e.ints([1]), e.ints([2])])
    target = e.one("Where", [keep, position, frames])
    wide = e.one("Concat", [e.one("Slice", [shape, e.ints([0]), e.ints([1])]), e.one("Add", [frames, e.ints([1])])],
                 axis=0)
    out = e.one("ScatterElements", [e.one("Expand", [e.scalar(-1, I64), wide]), target, values], axis=1)
    return e.one("Slice", [out, e.ints([0]), frames, e.ints([1])]), e.one("ReduceSum", [kept, e.ints([1])], keepdims=0)


def _greedy(e: Emitter, classes: str, valid: str, blank: str, merge: bool) -> tuple[str, str]:
    """(decoded [N, T] int64, -1 padded; counts [N] int64) of the arg-max ``classes`` [N, T]
    within the ``valid`` frames: repeats merged (the previous frame's class, blank or not),
    blanks dropped, the rest compacted."""
    keep = e.one("And", [valid, e.one("Not", [e.one("Equal", [classes, blank])])])
    if merge:
        keep = e.one("And", [keep, e.one("Not", [e.one("Equal", [classes, _previous(e, classes)])])])
    return _compact(e, classes, keep)


def _classes(e: Emitter, data: str, axis: int) -> str:
    """The arg-max class (the first on ties) along ``axis``."""
    return e.one("ArgMax", [data], axis=axis, keepdims=0, select_last_index=0)


@converts("CTCGreedyDecoder")
def ctc_greedy_decoder(e: Emitter, c: Call) -> None:
    """data [T, N, C] -> the arg-max classes [N, T] within the frames before the mask's first
    zero, decoded (blank C-1), as [N, T, 1, 1] in the data's type."""
    classes = e.one("Transpose", [_classes(e, c.inputs[0], 2)], perm=[1, 0])
    zero = e.one("Equal", [c.inputs[1], e.scalar(0, c.in_info[1].etype)])
    seen = e.one("CumSum", [e.cast(zero, I64), e.scalar(0, I64)])
    valid = e.one("Transpose", [e.one("Equal", [seen, e.scalar(0, I64)])], perm=[1, 0])
    c_count = e.one("Slice", [e.one("Shape", [c.inputs[0]]), e.ints([2]), e.ints([3])])
    blank = e.one("Sub", [c_count, e.ints([1])])
    decoded, _ = _greedy(e, classes, valid, blank, bool(c.op.ctc_merge_repeated))
    e.one("Cast", [e.one("Unsqueeze", [decoded, e.ints([2, 3])])], c.outputs[0],
          to=onnx_type(c.out_info[0].etype))


@converts("CTCGreedyDecoderSeqLen")
def ctc_greedy_decoder_seq_len(e: Emitter, c: Call) -> None:
    """data [N, T, C] -> the arg-max classes within each sequence's length, decoded (blank:
    blank_index, default C-1); the decoded classes [N, T] and their counts [N]."""
    classes = _classes(e, c.inputs[0], 2)
    frames = e.one("Slice", [e.one("Shape", [c.inputs[0]]), e.ints([1]), e.ints([2])])
    steps = e.one("Range", [e.scalar(0, I64), e.one("Squeeze", [frames, e.ints([0])]), e.scalar(1, I64)])
    lengths = e.one("Unsqueeze", [_i64(e, c, 1), e.ints([1])])
    valid = e.one("Less", [e.one("Unsqueeze", [steps, e.ints([0])]), lengths])
    if len(c.inputs) > 2:
        blank = e.one("Reshape", [_i64(e, c, 2), e.ints([1])])
    else:
        blank = e.one("Sub", [e.one("Slice", [e.one("Shape", [c.inputs[0]]), e.ints([2]), e.ints([3])]),
                              e.ints([1])])
    decoded, counts = _greedy(e, classes, valid, blank, bool(c.op.merge_repeated))
    e.one("Cast", [decoded], c.outputs[0], to=onnx_type(c.out_info[0].etype))
    e.one("Cast", [counts], c.outputs[1], to=onnx_type(c.out_info[1].etype))



#: element type -> the type onnxruntime's Unique (f16/f32/f64/i8/i64/string) runs it in, exactly
_UNIQUE_CARRIER = {"boolean": "i8", "u8": "i64", "i16": "i64", "u16": "i64", "i32": "i64", "u32": "i64",
                   "u64": "i64", "bf16": "f32"}


@converts("Unique")
def unique(e: Emitter, c: Call) -> None:
    """ONNX Unique-11: the same four outputs (values, first indices, inverse indices, counts),
    ascending or in order of first occurrence, element-wise or by slices along the axis (a
    constant); ONNX's int64 indices and counts are cast to the layer's index and count types.
    Types onnxruntime's Unique lacks go through an order-keeping carrier (integers as i64, u64
    with its top bit flipped, booleans as i8, bf16 as f32)."""
    attrs = {"sorted": int(bool(c.op.sorted))}
    if len(c.inputs) > 1:
        attrs["axis"] = int(np.ravel(c.const(1))[0])
    et = c.in_info[0].etype
    x, values = c.inputs[0], c.outputs[0]
    carrier = _UNIQUE_CARRIER.get(et.name)
    flip = e.const(np.asarray(1 << 63, dtype=np.uint64), "sign_bit") if et.name == "u64" else None
    if carrier is not None:
        if flip is not None:      # u64 order = i64 order of the values with the top bit flipped
            x = e.one("BitwiseXor", [x, flip])
        x, values = e.cast(x, elements.TYPES[carrier]), e.fresh("unique_values")
    outs = e.node("Unique", [x], [values, e.fresh("unique_first"), e.fresh("unique_inverse"),
                                  e.fresh("unique_counts")], **attrs)
    if carrier is not None:
        if flip is not None:
            e.one("BitwiseXor", [e.cast(values, et), flip], c.outputs[0])
        else:
            e.one("Cast", [values], c.outputs[0], to=onnx_type(et))
    for port in (1, 2, 3):
        et = c.out_info[port].etype
        if et.name == "i64":
            e.one("Identity", [outs[port]], c.outputs[port])
        else:
            e.one("Cast", [outs[port]], c.outputs[port], to=onnx_type(et))


@converts("SparseFillEmptyRows")
def sparse_fill_empty_rows(e: Emitter, c: Call) -> None:
    """The rows no index names (a ScatterND count per row equal to 0, output 2), their [row, 0]
    entries (NonZero) appended with the default value, then every entry ordered by row, stably:
    TopK (smallest first) of the unique key row * M + position."""
    values = c.inputs[0]
    indices = _i64(e, c, 2)
    rows = e.one("Slice", [_i64(e, c, 1), e.ints([0]), e.ints([1])])
    row_of = e.one("Slice", [indices, e.ints([0]), e.ints([1]), e.ints([1])])           # [N, 1]
    ones = e.one("Expand", [e.scalar(1, I64), e.one("Slice", [e.one("Shape", [indices]), e.ints([0]),
                                                                   e.ints([1])])])
    counts = e.one("ScatterND", [e.one("Expand", [e.scalar(0, I64), rows]), row_of, ones], reduction="add")
    empty = e.one("Equal", [counts, e.scalar(0, I64)], c.outputs[2])
    new_rows = e.one("Transpose", [e.one("NonZero", [empty])], perm=[1, 0])                # [K, 1]
    new_idx = e.one("Concat", [new_rows, e.one("Mul", [new_rows, e.ints([0])])], axis=1)
    all_idx = e.one("Concat", [indices, new_idx], axis=0)
    default = e.one("Expand", [e.one("Reshape", [c.inputs[3], e.ints([1])]),
                               e.one("Slice", [e.one("Shape", [new_rows]), e.ints([0]), e.ints([1])])])
    all_val = e.one("Concat", [values, default], axis=0)
    m = e.one("Slice", [e.one("Shape", [all_idx]), e.ints([0]), e.ints([1])])
    position = e.one("Range", [e.scalar(0, I64), e.one("Squeeze", [m, e.ints([0])]), e.scalar(1, I64)])
    row = e.one("Squeeze", [e.one("Slice", [all_idx, e.ints([0]), e.ints([1]), e.ints([1])]), e.ints([1])])
    key = e.one("Add", [e.one("Mul", [row, m]), position])
    _, order = e.node("TopK", [key, m], 2, axis=0, largest=0, sorted=1)
    e.one("Cast", [e.one("Gather", [all_idx, order], axis=0)], c.outputs[0], to=onnx_type(c.out_info[0].etype))
    e.one("Gather", [all_val, order], c.outputs[1], axis=0)


@converts("GatherTree")
def gather_tree(e: Emitter, c: Call) -> None:
    """The walk back through the parents unrolled over the (static) steps, last to first: at
    step t a beam reads its own index when t is its batch's last valid step
    (min(max_seq_len, T) - 1) and later, else the parent found at step t + 1 (GatherElements);
    steps at or past the length are end_token, and so is every step after the first end_token
    (an exclusive CumSum of the hits)."""
    dims = list(c.in_info[0].shape)
    if c.rank(0) != 3 or not dims[0].is_static or not dims[2].is_static:
        raise Unexpressible("the step count and the beam width must be static (the walk is unrolled)")
    steps_n, width = dims[0].lo, dims[2].lo
    et = c.in_info[0].etype
    lengths = e.one("Unsqueeze", [e.one("Max", [e.cast(c.inputs[2], I64), e.scalar(0, I64)]), e.ints([1])])
    end = e.one("Reshape", [c.inputs[3], e.ints([])])
    own = e.const(np.arange(width, dtype=np.int64)[None, :], "beams")
    parent = own
    rows: list[str] = [""] * steps_n
    for t in range(steps_n - 1, -1, -1):
        step = e.one("Squeeze", [e.one("Slice", [c.inputs[0], e.ints([t]), e.ints([t + 1])]), e.ints([0])])
        parents = e.one("Squeeze", [e.one("Slice", [c.inputs[1], e.ints([t]), e.ints([t + 1])]), e.ints([0])])
        beam = e.one("Where", [e.one("Less", [e.scalar(t, I64), e.one("Sub", [lengths, e.ints([1])])]),
                               e.one("Expand", [parent, e.one("Shape", [step])]),
                               e.one("Expand", [own, e.one("Shape", [step])])])
        value = e.one("GatherElements", [step, beam], axis=1)
        rows[t] = e.where(e.one("Less", [e.scalar(t, I64), lengths]), value, end, et)
        parent = e.cast(e.one("GatherElements", [parents, beam], axis=1), I64)
    walked = e.one("Concat", [e.one("Unsqueeze", [r, e.ints([0])]) for r in rows], axis=0)
    hits = e.one("CumSum", [e.cast(e.one("Equal", [walked, end]), I64), e.scalar(0, I64)], exclusive=1)
    e.where(e.one("Greater", [hits, e.scalar(0, I64)]), end, walked, et, output=c.outputs[0])


def _log_add(e: Emitter, terms: list[str]) -> str:
    """log(sum(exp(terms))), -inf where every term is -inf (the largest term factored out)."""
    top = terms[0]
    for t in terms[1:]:
        top = e.one("Max", [top, t])
    f64 = elements.TYPES["f64"]
    safe = e.where(e.one("IsInf", [top], detect_positive=0), e.scalar(0, f64), top, f64)
    total = e.one("Exp", [e.one("Sub", [terms[0], safe])])
    for t in terms[1:]:
        total = e.one("Add", [total, e.one("Exp", [e.one("Sub", [t, safe])])])
    return e.one("Add", [safe, e.one("Log", [total])])


@converts("CTCLoss")
def ctc_loss(e: Emitter, c: Call) -> None:
    """The CTC forward recursion in log space (f64, as irrun.ops.ctc), unrolled over the static
    frame count and vectorised over the batch: the labels collapsed (preprocess_collapse_repeated)
    and made unique as the attributes say and compacted; the extended sequence blank, l1, blank,
    l2, ..., blank; alpha_t(s) = logsumexp(alpha(s) [blank or ctc_merge_repeated], alpha(s-1),
    alpha(s-2) [a label that differs from s-2's, or no merging]) + log_softmax(logits)[t, ext(s)],
    frozen past each sequence's logit_length; the loss -logsumexp of the last two states."""
    dims = list(c.in_info[0].shape)
    ldims = list(c.in_info[2].shape)
    if c.rank(0) != 3 or not dims[1].is_static or c.rank(2) != 2 or not ldims[1].is_static:
        raise Unexpressible("the frame count and the labels' length must be static (the recursion is unrolled)")
    frames, width = dims[1].lo, ldims[1].lo
    f64 = elements.TYPES["f64"]
    merge = bool(c.op.ctc_merge_repeated)
    labels = _i64(e, c, 2)
    if len(c.inputs) > 4:
        blank = e.one("Reshape", [_i64(e, c, 4), e.ints([1, 1])])
    else:
        blank = e.one("Sub", [e.one("Slice", [e.one("Shape", [c.inputs[0]]), e.ints([2]), e.ints([3])]), e.ints([1])])
        blank = e.one("Reshape", [blank, e.ints([1, 1])])
    place = e.const(np.arange(width, dtype=np.int64)[None, :], "label_positions")
    keep = e.one("Less", [place, e.one("Unsqueeze", [_i64(e, c, 3), e.ints([1])])])
    valid = keep
    if c.op.preprocess_collapse_repeated:
        keep = e.one("And", [keep, e.one("Not", [e.one("Equal", [labels, _previous(e, labels)])])])
    if c.op.unique:     # a label seen at an earlier valid place is dropped
        same = e.one("Equal", [e.one("Unsqueeze", [labels, e.ints([2])]), e.one("Unsqueeze", [labels, e.ints([1])])])
        earlier = e.const(np.tril(np.ones((width, width), bool), -1)[None], "earlier")
        seen = e.one("And", [e.one("And", [same, earlier]), e.one("Unsqueeze", [valid, e.ints([1])])])
        keep = e.one("And", [keep, e.one("Not", [e.cast(e.one("ReduceMax", [e.cast(seen, elements.TYPES["u8"]),
                                                                            e.ints([2])], keepdims=0), BOOL)])])
    seq, count = _compact(e, labels, keep)
    seq = e.one("Where", [e.one("Less", [seq, e.ints([0])]), e.one("Expand", [blank, e.one("Shape", [seq])]), seq])
    blanks = e.one("Expand", [blank, e.one("Shape", [seq])])
    pairs = e.one("Concat", [e.one("Unsqueeze", [blanks, e.ints([2])]), e.one("Unsqueeze", [seq, e.ints([2])])], axis=2)
    ext = e.one("Concat", [e.one("Reshape", [pairs, e.ints([0, -1])]),
                           e.one("Slice", [blanks, e.ints([0]), e.ints([1]), e.ints([1])])], axis=1)   # [N, S]
    states = 2 * width + 1
    logp = e.one("LogSoftmax", [e.cast(c.inputs[0], f64)], axis=2)                      # [N, T, C]
    picked = e.one("GatherElements", [logp, e.one("Expand", [e.one("Unsqueeze", [ext, e.ints([1])]),
                                                             e.ints([1, frames, 1])])], axis=2)   # [N, T, S]
    is_blank = e.one("Equal", [ext, blank])
    s_index = np.arange(states)[None, :]
    stay = is_blank if not merge else e.const(np.ones((1, states), bool), "all_states")
    skip = e.one("And", [e.const(s_index >= 2, "from_two"), e.one("Not", [is_blank])])
    if merge:
        before = e.one("Concat", [e.one("Slice", [ext, e.ints([0]), e.ints([2]), e.ints([1])]),
                                  e.one("Slice", [ext, e.ints([0]), e.ints([-2]), e.ints([1])])], axis=1)
        skip = e.one("And", [skip, e.one("Not", [e.one("Equal", [ext, before])])])
    none = e.scalar(-np.inf, f64)
    lengths = e.one("Unsqueeze", [_i64(e, c, 1), e.ints([1])])

    def at(t: int) -> str:
        return e.one("Squeeze", [e.one("Slice", [picked, e.ints([t]), e.ints([t + 1]), e.ints([1])]), e.ints([1])])

    def shifted(x: str, k: int) -> str:
        pad = e.one("Expand", [none, e.one("Concat", [e.one("Slice", [e.one("Shape", [x]), e.ints([0]), e.ints([1])]),
                                                      e.ints([k])], axis=0)])
        return e.one("Concat", [pad, e.one("Slice", [x, e.ints([0]), e.ints([states - k]), e.ints([1])])], axis=1)

    alpha = e.where(e.const(s_index < 2, "first_states"), at(0), none, f64)
    for t in range(1, frames):
        terms = [e.where(stay, alpha, none, f64), shifted(alpha, 1)]
        if states > 2:
            terms.append(e.where(skip, shifted(alpha, 2), none, f64))
        step = e.one("Add", [_log_add(e, terms), at(t)])
        alpha = e.where(e.one("Less", [e.scalar(t, I64), lengths]), step, alpha, f64)
    last = e.one("Unsqueeze", [e.one("Mul", [count, e.scalar(2, I64)]), e.ints([1])])          # S_n - 1
    end = e.one("GatherElements", [alpha, last], axis=1)
    before_end = e.one("GatherElements", [alpha, e.one("Max", [e.one("Sub", [last, e.ints([1])]), e.ints([0])])],
                       axis=1)
    before_end = e.where(e.one("Greater", [last, e.ints([0])]), before_end, none, f64)
    loss = e.one("Neg", [e.one("Squeeze", [_log_add(e, [end, before_end]), e.ints([1])])])
    no_frames = e.one("Equal", [_i64(e, c, 1), e.scalar(0, I64)])
    empty_loss = e.where(e.one("Equal", [count, e.scalar(0, I64)]), e.scalar(0, f64), e.scalar(np.inf, f64), f64)
    loss = e.where(no_frames, empty_loss, loss, f64)
    e.one("Cast", [loss], c.outputs[0], to=onnx_type(c.out_info[0].etype))
