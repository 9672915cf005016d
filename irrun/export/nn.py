"""ONNX forms of the neural-network ops: MatMul, convolutions, pooling, normalisations,
Softmax, attention, reductions, Interpolate, TopK, NonMaxSuppression."""
from __future__ import annotations

import ml_dtypes
import numpy as np

from ..ops.base import normalize_axis
from ..types import elements
from ..types.elements import ElementType
from .emitter import Call, Emitter, Unexpressible, onnx_type
from .quantize import fake_quantize_qdq, integer_convolution, integer_matmul
from .table import converts, not_exported

_AUTO_PAD = {"explicit": "NOTSET", "notset": "NOTSET", "same_upper": "SAME_UPPER",
             "same_lower": "SAME_LOWER", "valid": "VALID"}


def _last_two(e: Emitter, x: str, rank: int) -> str:
    perm = list(range(rank))
    perm[-2:] = perm[-2:][::-1]
    return e.one("Transpose", [x], perm=perm)


@converts("MatMul")
def matmul(e: Emitter, c: Call) -> None:
    """transpose_a/b swap the last two axes first (a 1-D input is never transposed, as in the IR);
    with ``--int8-qdq``, on dequantized 8-bit inputs, MatMulInteger
    (:func:`irrun.export.quantize.integer_matmul`)."""
    if e.int8_qdq and integer_matmul(e, c, bool(c.op.transpose_a), bool(c.op.transpose_b)):
        return
    a, b = c.inputs
    if c.op.transpose_a and c.rank(0) > 1:
        a = _last_two(e, a, c.rank(0))
    if c.op.transpose_b and c.rank(1) > 1:
        b = _last_two(e, b, c.rank(1))
    e.one("MatMul", [a, b], c.outputs[0])


def _window(c: Call, kernel_rank: int) -> dict:
    auto = _AUTO_PAD[c.op.auto_pad]
    attrs = {"strides": list(c.op.strides), "auto_pad": auto}
    if auto == "NOTSET":
        attrs["pads"] = list(c.op.pads_begin) + list(c.op.pads_end)
    dil = list(getattr(c.op, "dilations", []) or [])
    if dil:
        attrs["dilations"] = dil
    return attrs


def _conv_window(c: Call, kernel: list[int] | None) -> dict:
    """:func:`_window` of a convolution whose ``kernel`` sizes are known: same_* with dilations
    as explicit pads (OpenVINO's rule, irrun.ops._window), which onnxruntime's Conv refuses
    as auto_pad ("Dilation not supported for AutoPadType::SAME_UPPER"); it needs a static input."""
    attrs = _window(c, len(kernel) if kernel else 0)
    dil = attrs.get("dilations") or []
    data = c.in_info[0].shape
    if attrs["auto_pad"] in ("SAME_UPPER", "SAME_LOWER") and any(d != 1 for d in dil) and kernel and data.is_static:
        from ..ops._window import resolve_pads
        from ..types.shapes import Dim
        ext = [(k - 1) * d + 1 for k, d in zip(kernel, dil)]
        begin, end = resolve_pads(c.op.auto_pad, [Dim(v, v) for v in data.to_tuple()[2:]], ext, c.op.strides, [], [])
        attrs["auto_pad"], attrs["pads"] = "NOTSET", begin + end
    return attrs


def _kernel(c: Call, lead: int) -> list[int] | None:
    """The weights' spatial sizes (after ``lead`` leading dims), when static."""
    shape = c.in_info[1].shape
    return list(shape.to_tuple()[lead:]) if shape.is_static else None


@converts("Convolution")
def convolution(e: Emitter, c: Call) -> None:
    """ONNX Conv (pads begin ++ end, auto_pad, strides, dilations; same_* with dilations as
    explicit pads); with ``--int8-qdq``, on dequantized 8-bit inputs, ConvInteger
    (:func:`irrun.export.quantize.integer_convolution`)."""
    window = _conv_window(c, _kernel(c, 2))
    if e.int8_qdq and integer_convolution(e, c, window):
        return
    e.one("Conv", c.inputs, c.outputs[0], **window)


@converts("GroupConvolution")
def group_convolution(e: Emitter, c: Call) -> None:
    """The IR's weights [G, O/G, I/G, k...] are ONNX's [O, I/G, k...] with group=G."""
    shape = c.in_info[1].shape
    if not shape.is_static:
        raise Unexpressible("weights of dynamic shape")
    g, og, *rest = shape.to_tuple()
    window = _conv_window(c, rest[1:])
    if e.int8_qdq and integer_convolution(e, c, window, group=g):
        return
    w = e.one("Reshape", [c.inputs[1], e.ints([g * og, *rest])])
    e.one("Conv", [c.inputs[0], w], c.outputs[0], group=g, **window)


def _backprop(e: Emitter, c: Call, w: str, group: int, kernel: list[int]) -> None:
    """ONNX ConvTranspose with explicit pads: ONNX's auto_pad rules are not OpenVINO's (same_*
    without output_shape means no padding in the IR; with one, the IR puts the larger half of the
    crop at the begin for same_upper, onnxruntime at the end). With ``output_shape`` the IR's
    begin pads come from the op's own rule (irrun.ops.convolution_backprop) and the end is cropped
    or, when the output is larger than the full result, extended by output_padding (zeros)."""
    op = c.op
    n = len(op.strides)
    dilations = list(getattr(op, "dilations", []) or []) or [1] * n
    attrs: dict = {"strides": list(op.strides), "dilations": dilations}
    pads_given = op.auto_pad == "explicit"
    output_padding = list(getattr(op, "output_padding", []) or []) or [0] * n
    if len(c.inputs) <= 2:
        begin = list(op.pads_begin) if pads_given else [0] * n
        end = list(op.pads_end) if pads_given else [0] * n
    else:
        data, out = c.in_info[0].shape, c.out_info[0].shape
        if not (data.is_static and out.is_static):
            raise Unexpressible("output_shape with a dynamic input or output (the crop depends on both)")
        from ..types.shapes import Dim
        sizes = out.to_tuple()[2:]
        begin, _, _ = op.pads_and_sizes([Dim(v, v) for v in data.to_tuple()[2:]], [Dim(v, v) for v in kernel],
                                        [Dim(v, v) for v in sizes])
        full = [(i - 1) * s + (k - 1) * d + 1 for i, s, k, d in zip(data.to_tuple()[2:], op.strides, kernel, dilations)]
        end = [max(f - b - o, 0) for f, b, o in zip(full, begin, sizes)]
        output_padding = [o - (f - b - pe) for o, f, b, pe in zip(sizes, full, begin, end)]
        if any(p < 0 or p >= s for p, s in zip(output_padding, op.strides)):
            raise Unexpressible(f"output_shape {list(sizes)} is larger than the full result by a stride or more "
                                "(ONNX's output_padding must stay below the stride)")
    attrs["pads"] = list(begin) + list(end)
    if any(output_padding):
        attrs["output_padding"] = output_padding
    e.one("ConvTranspose", [c.inputs[0], w], c.outputs[0], group=group, **attrs)


@converts("ConvolutionBackpropData")
def deconvolution(e: Emitter, c: Call) -> None:
    """Weights [C_in, C_out, k...]: ONNX ConvTranspose's layout."""
    shape = c.in_info[1].shape
    if not shape.is_static:
        raise Unexpressible("weights of dynamic shape")
    _backprop(e, c, c.inputs[1], 1, list(shape.to_tuple()[2:]))


@converts("GroupConvolutionBackpropData")
def group_deconvolution(e: Emitter, c: Call) -> None:
    """ONNX ConvTranspose with group; weights [G, I/G, O/G, k...] reshaped to [I, O/G, k...]."""
    shape = c.in_info[1].shape
    if not shape.is_static:
        raise Unexpressible("weights of dynamic shape")
    g, ig, og, *rest = shape.to_tuple()
    _backprop(e, c, e.one("Reshape", [c.inputs[1], e.ints([g * ig, og, *rest])]), g, list(rest))


def _pool(c: Call, include_pad: bool = False) -> dict:
    """A pooling layer's ONNX attributes. The IR's ceil rounding is not ONNX's ceil_mode (OpenVINO
    lets the last window start in the padding): with explicit pads and a static output the end
    pads are instead grown to give exactly the IR's output size in floor mode (padding never
    wins a max, and is not counted in an average that excludes it)."""
    attrs = _window(c, len(c.op.kernel))
    attrs["kernel_shape"] = kernel = list(c.op.kernel)
    ceil = c.op.rounding_type in ("ceil", "ceil_torch")
    attrs["ceil_mode"] = int(ceil)
    ins, outs = c.in_info[0].shape, c.out_info[0].shape
    if not ceil or attrs["auto_pad"] != "NOTSET" or not (ins.is_static and outs.is_static):
        return attrs
    dil = attrs.get("dilations") or [1] * len(kernel)
    n = len(kernel)
    begin, end = list(c.op.pads_begin), list(c.op.pads_end)
    spatial = list(zip(ins.to_tuple()[2:], outs.to_tuple()[2:], c.op.strides, kernel, dil, begin, end))
    if all(_onnx_ceil(i, s, k, d, b, pe) == o for i, o, s, k, d, b, pe in spatial):
        return attrs                                         # ONNX's ceil_mode gives the same windows
    grown = [(o - 1) * s + (k - 1) * d + 1 - i - b for i, o, s, k, d, b, _ in spatial]
    if any(g < 0 or g >= k for g, k in zip(grown, kernel)) or any(b >= k for b, k in zip(begin, kernel)):
        raise Unexpressible("ceil rounding with windows onnxruntime cannot pad to (a pad as large as the kernel)")
    if include_pad and grown != end[:n]:
        raise Unexpressible("ceil rounding of an average that counts the padding (OpenVINO does not count "
                            "the part of the last window past the pads)")
    attrs["pads"], attrs["ceil_mode"] = begin + grown, 0
    return attrs


def _onnx_ceil(size: int, stride: int, kernel: int, dilation: int, begin: int, end: int,
               drop_last: bool = True) -> int:
    """The output size of ONNX pooling with ceil_mode as onnxruntime computes it (a last window
    that would start in the end padding is dropped, as in PyTorch), or, ``drop_last`` false, as
    ONNX's own shape inference computes it (never dropped)."""
    span = (kernel - 1) * dilation + 1
    out = -(-(size + begin + end - span) // stride) + 1
    if drop_last and (out - 1) * stride >= size + begin:
        out -= 1
    return out


def _pool_node(e: Emitter, c: Call, op_type: str, outputs: list[str], attrs: dict) -> None:
    """The pooling node; when onnxruntime's ceil_mode drops a last window that ONNX's shape
    inference keeps, its outputs go through a Slice to the IR's (static) size, which changes no
    value in onnxruntime but lets ONNX's checker infer the true shape (else it refuses the graph)."""
    outs = c.out_info[0].shape
    if not attrs.get("ceil_mode") or attrs["auto_pad"] != "NOTSET" or not (outs.is_static and c.in_info[0].shape.is_static):
        e.node(op_type, c.inputs, outputs, **attrs)
        return
    ins = c.in_info[0].shape.to_tuple()[2:]
    kernel = attrs["kernel_shape"]
    n = len(kernel)
    dil = attrs.get("dilations") or [1] * n
    pads = attrs.get("pads") or [0] * (2 * n)
    spatial = list(zip(ins, c.op.strides, kernel, dil, pads[:n], pads[n:]))
    want = list(outs.to_tuple()[2:])
    if [_onnx_ceil(i, s, k, d, b, pe, drop_last=False) for i, s, k, d, b, pe in spatial] == want:
        e.node(op_type, c.inputs, outputs, **attrs)
        return
    raw = [e.fresh(f"{name}_ceil") for name in outputs]
    e.node(op_type, c.inputs, raw, **attrs)
    axes = list(range(2, 2 + n))
    for name, out in zip(raw, outputs):
        e.one("Slice", [name, e.ints([0] * n), e.ints(want), e.ints(axes)], out)


def _native_pool(c: Call) -> bool:
    """Whether ONNX's own pads and rounding give the IR's windows: floor rounding, explicit or
    valid pads each smaller than the kernel (onnxruntime refuses others)."""
    pads = list(c.op.pads_begin) + list(c.op.pads_end) if c.op.auto_pad in ("explicit", "notset") else []
    return c.op.rounding_type == "floor" and c.op.auto_pad in ("explicit", "notset", "valid") and \
        all(p < k for p, k in zip(pads, list(c.op.kernel) * 2))


def _padded_pool(e: Emitter, c: Call, op_type: str, n_out: int) -> list[str] | None:
    """The pool over the input padded as far as the IR's windows reach (a Pad node: the lowest
    value for MaxPool, as padding never wins there, zeros for AvgPool), without ONNX pads or
    ceil_mode, sliced to the IR's output size: the IR's windows exactly, whatever its rounding
    (ceil keeps a last window starting in the padding, ceil_torch drops it), auto_pad (same_*
    with dilations) or pad sizes. Needs a static input; returns the pool's outputs (values and,
    ``n_out`` 2, indices over the padded tensor), or None on a dynamic input."""
    data = c.in_info[0].shape
    if not data.is_static:
        return None
    shape = data.to_tuple()
    lay = c.op.layout(shape)
    n = len(lay.out)
    x, et = c.inputs[0], c.in_info[0].etype
    if any(lay.pads_begin) or any(lay.pads_end_used):
        fill = _lowest(et) if op_type == "MaxPool" else 0
        x = e.one("Pad", [x, e.ints([0, 0, *lay.pads_begin, 0, 0, *lay.pads_end_used]), e.scalar(fill, et)])
    attrs: dict = {"kernel_shape": list(c.op.kernel), "strides": list(c.op.strides)}
    if any(d != 1 for d in c.op.dils):
        attrs["dilations"] = list(c.op.dils)
    outs = e.node(op_type, [x], n_out, **attrs)
    padded = [v + b + pe for v, b, pe in zip(shape[2:], lay.pads_begin, lay.pads_end_used)]
    ext = [(k - 1) * d + 1 for k, d in zip(c.op.kernel, c.op.dils)]
    if [(p - k) // s + 1 for p, k, s in zip(padded, ext, c.op.strides)] != lay.out:
        axes = e.ints(range(2, 2 + n))
        outs = [e.one("Slice", [o, e.ints([0] * n), e.ints(lay.out), axes]) for o in outs]
    return outs


def _lowest(et: ElementType) -> float | int:
    """The type's lowest value (-FLT_MAX for f32, not -inf: OpenVINO's MaxPool and ReduceMax start there)."""
    return float(ml_dtypes.finfo(et.dtype).min) if et.is_float else int(np.iinfo(et.dtype).min)


def _unpadded_indices(e: Emitter, c: Call, idx: str, out: str) -> None:
    """MaxPool's indices over the padded input (onnxruntime's, flattened over the whole tensor)
    as the IR counts them: in the input flattened from ``axis`` on, the spatial origin for a
    window whose maximum is not an input element (irrun.ops.pooling)."""
    shape = c.in_info[0].shape.to_tuple()
    lay = c.op.layout(shape)
    padded = [v + b + pe for v, b, pe in zip(shape[2:], lay.pads_begin, lay.pads_end_used)]
    i64 = elements.TYPES["i64"]
    rest, coords = idx, []
    for size in reversed(padded):
        coords.append(e.one("Mod", [rest, e.scalar(size, i64)]))
        rest = e.one("Div", [rest, e.scalar(size, i64)])
    coords.reverse()
    coords = [e.one("Sub", [v, e.scalar(b, i64)]) for v, b in zip(coords, lay.pads_begin)]
    oks = [e.one("And", [e.one("GreaterOrEqual", [v, e.scalar(0, i64)]), e.one("Less", [v, e.scalar(size, i64)])])
           for v, size in zip(coords, shape[2:])]
    inside = oks[0]
    for ok in oks[1:]:
        inside = e.one("And", [inside, ok])
    coords = [e.one("Where", [inside, v, e.scalar(0, i64)]) for v in coords]
    channels = shape[1]
    full = [e.one("Div", [rest, e.scalar(channels, i64)]), e.one("Mod", [rest, e.scalar(channels, i64)]), *coords]
    axis = normalize_axis(int(c.op.axis), len(shape))
    terms, step = [], 1
    for dim in range(len(shape) - 1, axis - 1, -1):
        terms.append(full[dim] if step == 1 else e.one("Mul", [full[dim], e.scalar(step, i64)]))
        step *= shape[dim]
    index = terms[0]
    for term in terms[1:]:
        index = e.one("Add", [index, term])
    et = c.out_info[1].etype
    e.one("Identity" if et.name == "i64" else "Cast", [index], out, **({} if et.name == "i64" else {"to": onnx_type(et)}))


@converts("MaxPool")
def max_pool(e: Emitter, c: Call) -> None:
    """ONNX MaxPool where ONNX's pads and floor rounding are the IR's (``_native_pool``), else
    over the input padded explicitly (``_padded_pool``: ceil rounding, same_*, large pads); its
    Indices output counts over the whole (padded) tensor, the IR's over the input from
    ``axis``: ONNX's as they are for axis 0 without padding, else recomputed (``_unpadded_indices``)."""
    outs = list(c.outputs)
    indices = 1 in c.used
    native = _native_pool(c) and (not indices or (int(c.op.axis) == 0 and not any(c.op.pads_begin)
                                                  and not any(c.op.pads_end)))
    if not native:
        got = _padded_pool(e, c, "MaxPool", 2 if indices else 1)
        if got is not None:
            e.one("Identity", [got[0]], outs[0])
            if indices:
                _unpadded_indices(e, c, got[1], outs[1])
            return
    attrs = _pool(c)
    if indices:
        if int(c.op.axis) != 0:
            raise Unexpressible("indices counted from axis != 0 on a dynamic input (ONNX counts over the whole tensor)")
        idx = e.fresh("indices")
        _pool_node(e, c, "MaxPool", [outs[0], idx], attrs)
        et = c.out_info[1].etype
        e.one("Identity" if et.name == "i64" else "Cast", [idx], outs[1],
              **({} if et.name == "i64" else {"to": onnx_type(et)}))
        return
    _pool_node(e, c, "MaxPool", outs[:1], attrs)


@converts("AvgPool")
def avg_pool(e: Emitter, c: Call) -> None:
    """ONNX AveragePool (exclude-pad = not count_include_pad) where ONNX's pads and floor rounding
    are the IR's; else the window sums over the input padded explicitly (``_padded_pool``)
    divided as OpenVINO divides them (irrun.ops.pooling ``divisors``: the kernel size, or the
    elements inside the input)."""
    include = not getattr(c.op, "exclude-pad")
    if not _native_pool(c):
        got = _padded_pool(e, c, "AveragePool", 1)
        if got is not None:
            shape = c.in_info[0].shape.to_tuple()
            lay = c.op.layout(shape)
            kernel = float(np.prod(c.op.kernel))
            div = np.asarray(c.op.divisors(shape[2:], lay.pads_begin, lay.pads_end, lay.out), dtype=np.float64)
            if np.all(div == kernel):
                e.one("Identity", got, c.outputs[0])
                return
            et = c.out_info[0].etype
            with np.errstate(divide="ignore", invalid="ignore"):
                scale = (kernel / div).astype(et.dtype)
            e.one("Mul", [got[0], e.const(scale, "divisor")], c.outputs[0])
            return
    attrs = _pool(c, include)
    attrs["count_include_pad"] = int(include)
    _pool_node(e, c, "AveragePool", [c.outputs[0]], attrs)


@converts("Softmax")
def softmax(e: Emitter, c: Call) -> None:
    """ONNX Softmax over the same axis."""
    e.one("Softmax", c.inputs, c.outputs[0], axis=int(c.op.axis))


@converts("LogSoftmax")
def log_softmax(e: Emitter, c: Call) -> None:
    """ONNX LogSoftmax over the same axis."""
    e.one("LogSoftmax", c.inputs, c.outputs[0], axis=int(c.op.axis))


def _mvn(e: Emitter, c: Call, x: str, axes: str, out: str) -> None:
    mean = e.one("ReduceMean", [x, axes], keepdims=1)
    d = e.one("Sub", [x, mean])
    if not c.op.normalize_variance:
        e.one("Identity", [d], out)
        return
    var = e.one("ReduceMean", [e.one("Mul", [d, d]), axes], keepdims=1)
    eps = e.scalar(float(c.op.eps), c.in_info[0].etype)
    if getattr(c.op, "eps_mode", "inside_sqrt") == "inside_sqrt":
        std = e.one("Sqrt", [e.one("Add", [var, eps])])
    else:
        std = e.one("Add", [e.one("Sqrt", [var]), eps])
    e.one("Div", [d, std], out)


@converts("MVN", versions=("opset6",))
def mvn6(e: Emitter, c: Call) -> None:
    """(x - mean) / sqrt(var + eps) (or sqrt(var) + eps) over the axes input."""
    _mvn(e, c, c.inputs[0], e.as_int64(c.inputs[1], c.in_info[1]), c.outputs[0])


@converts("MVN", versions=("opset2",))
def mvn2(e: Emitter, c: Call) -> None:
    """MVN-1 (IR opset2): eps inside the square root, over axes 1.. (across_channels) or 2..;
    reduction_axes is ignored, as by OpenVINO's CPU plugin (see irrun.ops.normalization)."""
    axes = list(c.op.axes(c.rank(0)))
    _mvn(e, c, c.inputs[0], e.ints(axes, "axes"), c.outputs[0])


@converts("BatchNormInference")
def batch_norm(e: Emitter, c: Call) -> None:
    """Inputs: opset1 (gamma, beta, data, mean, var), opset5 (data, gamma, beta, mean, var)."""
    ins = c.inputs
    if c.op.version == "opset1":
        ins = [ins[2], ins[0], ins[1], ins[3], ins[4]]
    e.one("BatchNormalization", ins, c.outputs[0], epsilon=float(c.op.epsilon))


@converts("NormalizeL2")
def normalize_l2(e: Emitter, c: Call) -> None:
    """x / sqrt(max(sum(x^2), eps)) (eps_mode max) or sqrt(sum + eps) (add); over no axes every
    non-zero element is 1 and zeros stay 0, as OpenVINO (ONNX would reduce every axis)."""
    x, et = c.inputs[0], c.in_info[0].etype
    count = axes_count(c, 1)
    if count == 0:
        e.one("Cast", [_not_zero(e, x, et)], c.outputs[0], to=onnx_type(et))
        return
    axes = e.one("Reshape", [e.as_int64(c.inputs[1], c.in_info[1]), e.ints([-1])])     # a scalar axis too
    s = e.one("ReduceSumSquare", [x, axes], keepdims=1, noop_with_empty_axes=1)
    eps = e.scalar(float(c.op.eps), et)
    s = e.one("Max" if c.op.eps_mode == "max" else "Add", [s, eps])
    y = e.one("Div", [x, e.one("Sqrt", [s])], None if count is None else c.outputs[0])
    if count is None:       # axes known at run time only: none may come
        no_axes = e.one("Equal", [e.one("Size", [axes]), e.scalar(0, elements.TYPES["i64"])])
        e.where(no_axes, e.cast(_not_zero(e, x, et), et), y, et, c.outputs[0])


def _not_zero(e: Emitter, x: str, et: ElementType) -> str:
    """x != 0 (NaN included): NormalizeL2 over no axes, each element divided by itself as
    OpenVINO computes it (irrun.ops.normalization), ONNX's empty axes would reduce them all."""
    return e.one("Not", [e.one("Equal", [x, e.scalar(0, et)])])


def axes_count(c: Call, i: int) -> int | None:
    """How many axes input ``i`` (a scalar or 1-D tensor) holds, when its shape says."""
    shape = c.in_info[i].shape
    if shape.rank == 0:
        return 1
    if shape.rank == 1 and shape[0].is_static:
        return shape[0].lo
    return None


@converts("GroupNormalization")
def group_norm(e: Emitter, c: Call) -> None:
    """Written out: (x - mean) / sqrt(var + eps) per group of channels (x as [N, G, -1]), var
    the mean of the squared differences, then the per-channel scale and bias. Not ONNX's
    GroupNormalization-21: onnxruntime's loses digits where a group's values are close (measured,
    OpenVINO's GroupNormalization-2d: 4.8e-4 off on [3, 6] with 2 values a group)."""
    x, scale, bias = c.inputs
    rank = c.rank(0)
    grouped = e.one("Reshape", [x, e.ints([0, int(c.op.num_groups), -1])])
    mean = e.one("ReduceMean", [grouped, e.ints([2])], keepdims=1)
    d = e.one("Sub", [grouped, mean])
    var = e.one("ReduceMean", [e.one("Mul", [d, d]), e.ints([2])], keepdims=1)
    eps = e.scalar(float(c.op.epsilon), c.in_info[0].etype)
    y = e.one("Reshape", [e.one("Div", [d, e.one("Sqrt", [e.one("Add", [var, eps])])]), e.one("Shape", [x])])
    per_channel = e.ints([-1] + [1] * (rank - 2))
    y = e.one("Mul", [y, e.one("Reshape", [scale, per_channel])])
    e.one("Add", [y, e.one("Reshape", [bias, per_channel])], c.outputs[0])


@converts("LRN")
def lrn(e: Emitter, c: Call) -> None:
    """ONNX LRN (across channels: axes [1] only); onnxruntime's takes 4-D data only, so other
    ranks go through [N, C, -1, 1] (the window only spans channels)."""
    axes = [int(a) for a in np.ravel(c.const(1))]
    if axes != [1]:
        raise Unexpressible("LRN over axes other than [1] (ONNX LRN normalizes across channels)")
    x = c.inputs[0]
    four_d = c.rank(0) == 4
    if not four_d:
        x = e.one("Reshape", [x, e.ints([0, 0, -1, 1])])
    y = e.one("LRN", [x], c.outputs[0] if four_d else None, alpha=float(c.op.alpha), beta=float(c.op.beta),
              bias=float(c.op.bias), size=int(c.op.size))
    if not four_d:
        e.one("Reshape", [y, e.one("Shape", [c.inputs[0]])], c.outputs[0])


_REDUCE = {"ReduceMean": "ReduceMean", "ReduceSum": "ReduceSum", "ReduceMax": "ReduceMax",
           "ReduceMin": "ReduceMin", "ReduceProd": "ReduceProd", "ReduceL1": "ReduceL1",
           "ReduceL2": "ReduceL2", "ReduceLogicalAnd": "ReduceMin", "ReduceLogicalOr": "ReduceMax"}


@converts(*_REDUCE)
def reduce(e: Emitter, c: Call) -> None:
    """Axes as an int64 input (opset 18+); logical and/or as min/max over booleans (cast to u8).
    No axes reduce over nothing, as in the IR (ONNX's default would reduce every axis):
    ``noop_with_empty_axes``, with ReduceL1/L2 fed |x| so that it gives OpenVINO's |x| there.
    Float ReduceMax/ReduceMin skip NaN and ReduceMax starts from the type's lowest value
    (-FLT_MAX, also for an empty or all -inf slice), as OpenVINO computes (irrun.ops.reduce);
    ONNX's propagate NaN and start from -inf."""
    axes = e.one("Reshape", [e.as_int64(c.inputs[1], c.in_info[1]), e.ints([-1])])
    x, et = c.inputs[0], c.in_info[0].etype
    kind = _REDUCE[c.op.type]
    logical = c.op.type.startswith("ReduceLogical")
    if logical:
        x = e.cast(x, elements.TYPES["u8"])
    if kind in ("ReduceL1", "ReduceL2") and not axes_count(c, 1):      # none, or maybe none
        x = e.one("Abs", [x])
    lowest = None
    if et.is_float and kind in ("ReduceMax", "ReduceMin"):
        skip = -np.inf if kind == "ReduceMax" else np.inf
        x = e.where(e.one("IsNaN", [x]), e.scalar(skip, et), x, et)
        lowest = e.scalar(_lowest(et), et) if kind == "ReduceMax" else None
    direct = not logical and lowest is None
    y = e.one(kind, [x, axes], c.outputs[0] if direct else None,
              keepdims=int(c.op.keep_dims), noop_with_empty_axes=1)
    if logical:
        e.one("Cast", [y], c.outputs[0], to=onnx_type(elements.TYPES["boolean"]))
    elif lowest is not None:
        e.one("Max", [y, lowest], c.outputs[0])


@converts("ScaledDotProductAttention")
def sdpa(e: Emitter, c: Call) -> None:
    """softmax(Q K^T * scale + mask) V, written out: a boolean mask adds -inf where false, a
    causal one is a lower-triangular boolean mask of the scores' last two dims. A sink (6th input,
    gpt-oss) is one more logit per row: expanded to the scores' ``[*batch, L, 1]``, joined as
    column S before the Softmax and sliced off after it, so it only takes probability mass
    (irrun/ops/attention.py)."""
    q, k, v = c.inputs[:3]
    et = c.in_info[0].etype
    rank = c.rank(1)
    kt = _last_two(e, k, rank)
    if len(c.inputs) > 4:
        scale = c.inputs[4]
    else:       # 1/sqrt(E), E = Q's last dim
        last = e.one("Slice", [e.one("Shape", [q]), e.ints([-1]), e.ints([np.iinfo(np.int64).max])])
        scale = e.one("Reciprocal", [e.one("Sqrt", [e.cast(last, et)])])
    scores = e.one("Mul", [e.one("MatMul", [q, kt]), scale])
    if c.op.causal:
        shape = e.one("Shape", [scores])
        rows_cols = e.one("Slice", [shape, e.ints([-2]), e.ints([np.iinfo(np.int64).max])])
        ones = e.one("ConstantOfShape", [rows_cols], value=_tensor(np.ones(1, np.bool_)))
        keep = e.one("Trilu", [ones], upper=0)
        scores = e.one("Where", [keep, scores, e.scalar(-np.inf, et)])
    elif len(c.inputs) > 3:
        mask, minfo = c.inputs[3], c.in_info[3]
        if minfo.etype.name == "boolean":
            scores = e.one("Where", [mask, scores, e.scalar(-np.inf, et)])
        else:
            scores = e.one("Add", [scores, mask])
    if len(c.inputs) > 5 and c.inputs[5]:
        probs = _softmax_with_sink(e, scores, c.inputs[5])
    else:
        probs = e.one("Softmax", [scores], axis=-1)
    e.one("MatMul", [probs, v], c.outputs[0])


def _softmax_with_sink(e: Emitter, scores: str, sink: str) -> str:
    """Softmax over the scores with the sink as an extra last column that is dropped afterwards."""
    shape = e.one("Shape", [scores])
    rows = e.one("Slice", [shape, e.ints([0]), e.ints([-1])])
    column = e.one("Expand", [sink, e.one("Concat", [rows, e.ints([1])], axis=0)])
    probs = e.one("Softmax", [e.one("Concat", [scores, column], axis=-1)], axis=-1)
    keys = e.one("Slice", [shape, e.ints([-1]), e.ints([np.iinfo(np.int64).max])])
    return e.one("Slice", [probs, e.ints([0]), keys, e.ints([-1])])


def _tensor(arr: np.ndarray):
    from onnx import numpy_helper
    return numpy_helper.from_array(arr)


@converts("Interpolate", versions=("opset4", "opset11"))
def interpolate(e: Emitter, c: Call) -> None:
    """ONNX Resize-19 has the same modes, coordinate transformations, nearest rounding, cubic
    coefficient, antialias and axes. OpenVINO's output size in scales mode, floor(dim * (scale +
    1e-6)), is ONNX's floor(dim * scale) of the scales raised by 1e-6 where that changes the size
    (:func:`openvino_scales`); nearest "simple" is a ceil and a floor Resize
    (``irrun.export.image.nearest_simple``); integer data is resized in f32, then rounded half
    to even and saturated, as OpenVINO's CPU plugin. Pads, the Pillow modes and antialiased
    "linear" (onnxruntime's filter differs from OpenVINO's, measured) have no ONNX form here."""
    from .image import nearest_simple
    if any(c.op.pads_begin) or any(c.op.pads_end):
        raise Unexpressible("pads_begin/pads_end (not written yet)")
    mode = {"nearest": "nearest", "linear": "linear", "linear_onnx": "linear", "cubic": "cubic"}.get(c.op.mode)
    if mode is None:
        raise Unexpressible(f'mode="{c.op.mode}" has no ONNX Resize form')
    if c.op.mode == "linear" and c.op.antialias:
        raise Unexpressible('mode="linear" with antialias: onnxruntime\'s antialiased filter differs from '
                            "OpenVINO's (measured)")
    if c.op.mode == "linear" and c.rank(0) > 4:
        raise Unexpressible('mode="linear" over more than 2 spatial axes')
    by_sizes = c.op.shape_calculation_mode == "sizes"
    if c.op.version == "opset4":
        target_i, axes_i = (1 if by_sizes else 2), 3
    else:
        target_i, axes_i = 1, 2
    target, tinfo = c.inputs[target_i], c.in_info[target_i]
    rank = c.rank(0)
    axes = [int(a) % rank for a in np.ravel(c.const(axes_i))] if len(c.inputs) > axes_i else None
    if axes is not None:      # OpenVINO reads one size or scale per axis and ignores the rest
        target = e.one("Slice", [target, e.ints([0]), e.ints([len(axes)])])
    et = c.in_info[0].etype
    f32 = elements.TYPES["f32"]
    integer = mode != "nearest" and et.is_integer
    x = e.cast(c.inputs[0], f32) if integer else c.inputs[0]
    out = e.fresh("resized") if integer else c.outputs[0]
    attrs = {"mode": mode, "coordinate_transformation_mode": c.op.coordinate_transformation_mode,
             "cubic_coeff_a": float(c.op.cube_coeff), "antialias": int(c.op.antialias)}
    if mode == "nearest" and c.op.nearest_mode == "simple":
        values = [float(v) for v in np.ravel(c.const(target_i))]
        dims = list(c.in_info[0].shape)
        resized = axes if axes is not None else list(range(rank))
        if by_sizes and not all(dims[a].is_static for a in resized):
            raise Unexpressible('nearest "simple" rounding depends on the resized axes\' sizes, which are dynamic')
        targets = [(a, int(v), v < dims[a].lo) if by_sizes else (a, v if v == round(v) else v + 1e-6, v < 1)
                   for a, v in zip(resized, values)]
        nearest_simple(e, x, out, targets, by_sizes, attrs)
    elif by_sizes:
        sizes = e.as_int64(target, tinfo)
        if tinfo.value is None:     # give run-time sizes a length ONNX's inference can read (dinov2, beit:
            # computed sizes reach it without one, and the checker then refuses "0 sizes for 2 axes")
            sizes = e.one("Reshape", [sizes, e.ints([len(axes) if axes is not None else rank])])
        e.one("Resize", [x, "", "", sizes], out, axes=axes, nearest_mode=c.op.nearest_mode,
              **attrs)
    else:
        e.one("Resize", [x, "", openvino_scales(e, c, target, axes)], out, axes=axes,
              nearest_mode=c.op.nearest_mode, **attrs)
    if integer:
        info = np.iinfo(et.dtype)
        rounded = e.one("Clip", [e.one("Round", [out]), e.scalar(info.min, f32), e.scalar(info.max, f32)])
        e.one("Cast", [rounded], c.outputs[0], to=onnx_type(et))


def openvino_scales(e: Emitter, c: Call, target: str, axes: list[int] | None) -> str:
    """Resize's scales for Interpolate's scales mode. OpenVINO's output size is floor(dim * (scale
    + 1e-6)), ONNX's floor(dim * scale); both map coordinates by the scale itself. Constant
    scales are written as they are where the two sizes agree (whole scales, or static sizes: a 2x
    nearest upsampling must read source pixel x / 2 exactly: x / 2.000001 floors to the pixel
    before at every even x; YOLOv8's INT8 outputs were 0.02-0.05 relative L2 off from it) and
    raised by 1e-6 only where OpenVINO's size is the larger; scales computed at run time are all
    raised (the source coordinates then move by about 1e-6 of a pixel)."""
    f32 = elements.TYPES["f32"]
    target_i = 2 if c.op.version == "opset4" else 1
    value, shape, out = c.in_info[target_i].value, c.in_info[0].shape, c.out_info[0].shape
    if value is not None and shape.rank is not None:
        axes_of = axes if axes is not None else list(range(shape.rank))
        scales = np.ravel(np.asarray(value, np.float32))[:len(axes_of)]
        static = shape.is_static and out.is_static
        ins, outs = (shape.to_tuple(), out.to_tuple()) if static else ((), ())

        def same_size(axis: int, v: np.float32) -> bool:
            """Whole scales give the same size for any dim below 1e6; others when both are known
            (in f32 as onnxruntime computes the size, and in f64 as ONNX's shape inference does)."""
            if v == np.rint(v):
                return True
            return static and int(np.floor(v * np.float32(ins[axis]))) == outs[axis] == \
                int(np.floor(np.float64(v) * ins[axis]))
        raised = [v if same_size(a, v) else v + np.float32(1e-6) for a, v in zip(axes_of, scales)]
        return e.const(np.asarray(raised, np.float32), "scales")
    as_f32 = target if c.in_info[target_i].etype.name == "f32" else e.cast(target, f32)
    return e.one("Add", [as_f32, e.scalar(1e-6, f32)])


@converts("TopK")
def topk(e: Emitter, c: Call) -> None:
    """ONNX TopK sorts by value; sort="index" re-sorts the winners by index, "none" is by value.
    Equal values come out lower index first, as OpenVINO's reference evaluator orders them
    (measured: tests/fixtures' TopK tie cases); its CPU plugin's order of ties is its own."""
    k = e.one("Reshape", [e.as_int64(c.inputs[1], c.in_info[1]), e.ints([1])])
    axis = int(c.op.axis)
    values, idx = e.node("TopK", [c.inputs[0], k], 2, axis=axis, largest=int(c.op.mode == "max"), sorted=1)
    if c.op.sort == "index":
        order = e.node("TopK", [idx, k], 2, axis=axis, largest=0, sorted=1)[1]
        values = e.one("GatherElements", [values, order], axis=axis)
        idx = e.one("GatherElements", [idx, order], axis=axis)
    e.one("Identity", [values], c.outputs[0])
    et = c.out_info[1].etype
    e.one("Identity" if et.name == "i64" else "Cast", [idx], c.outputs[1],
          **({} if et.name == "i64" else {"to": onnx_type(et)}))


@converts("GRN")
def grn(e: Emitter, c: Call) -> None:
    """x / sqrt(sum over channels of x^2 + bias)."""
    x = c.inputs[0]
    s = e.one("ReduceSumSquare", [x, e.ints([1])], keepdims=1)
    e.one("Div", [x, e.one("Sqrt", [e.one("Add", [s, e.scalar(float(c.op.bias), c.in_info[0].etype)])])],
          c.outputs[0])


@converts("Bucketize")
def bucketize(e: Emitter, c: Call) -> None:
    """The bucket of x is how many boundaries lie below it (with_right_bound: strictly below)."""
    x = e.one("Unsqueeze", [c.inputs[0], e.ints([-1])])
    b = c.inputs[1]
    if c.in_info[0].etype != c.in_info[1].etype:
        x, b = e.cast(x, elements.TYPES["f64"]), e.cast(b, elements.TYPES["f64"])
    below = e.one("Greater" if c.op.with_right_bound else "GreaterOrEqual", [x, b])
    count = e.one("ReduceSum", [e.cast(below, elements.TYPES["i64"]), e.ints([-1])], keepdims=0)
    if c.in_info[0].etype.is_float and not c.op.with_right_bound:   # NaN: the last bucket (measured)
        n = e.one("Shape", [c.inputs[1]])
        count = e.one("Where", [e.one("IsNaN", [c.inputs[0]]), e.one("Reshape", [n, e.ints([], "scalar_shape")]), count])
    e.one("Cast", [count], c.outputs[0], to=onnx_type(c.out_info[0].etype))


@converts("SearchSorted")
def search_sorted(e: Emitter, c: Call) -> None:
    """The insertion index of each value in its sorted row: how many entries lie below it
    (right_mode: at or below), counted by one broadcast comparison."""
    rows, values = c.inputs[0], c.inputs[1]
    if c.rank(0) != c.rank(1):
        if c.rank(0) != 1:
            raise Unexpressible("sorted and values of different ranks")
    v = e.one("Unsqueeze", [values, e.ints([-1])])                          # [..., M, 1]
    r = e.one("Unsqueeze", [rows, e.ints([-2])]) if c.rank(0) > 1 else rows    # [..., 1, N]
    below = e.one("LessOrEqual" if c.op.right_mode else "Less", [r, v])
    count = e.one("ReduceSum", [e.cast(below, elements.TYPES["i64"]), e.ints([-1])], keepdims=0)
    e.one("Cast", [count], c.outputs[0], to=onnx_type(c.out_info[0].etype))


@converts("GridSample")
def grid_sample(e: Emitter, c: Call) -> None:
    """ONNX GridSample-20: the same modes, padding modes and align_corners. Bilinear and bicubic
    give NaN at a non-finite grid point, as OpenVINO (its weights are NaN: irrun.ops.grid_sample);
    onnxruntime samples somewhere instead."""
    mode = {"bilinear": "linear", "bicubic": "cubic", "nearest": "nearest"}[c.op.mode]
    et, grid = c.out_info[0].etype, c.in_info[1]
    nan_points = mode != "nearest" and et.is_float and \
        (grid.value is None or not np.isfinite(np.asarray(grid.value, dtype=np.float64)).all())
    out = e.one("GridSample", c.inputs, None if nan_points else c.outputs[0], mode=mode,
                padding_mode=c.op.padding_mode, align_corners=int(c.op.align_corners))
    if nan_points:
        g = c.inputs[1]
        bad = e.cast(e.one("Or", [e.one("IsNaN", [g]), e.one("IsInf", [g])]), elements.TYPES["u8"])
        bad = e.one("ReduceMax", [bad, e.ints([-1])], keepdims=0)                 # [N, H_out, W_out]
        bad = e.cast(e.one("Unsqueeze", [bad, e.ints([1])]), elements.TYPES["boolean"])
        e.where(bad, e.scalar(np.nan, et), out, et, c.outputs[0])


@converts("Col2Im")
def col2im(e: Emitter, c: Call) -> None:
    """ONNX Col2Im-18 (pads begin ++ end)."""
    e.one("Col2Im", [c.inputs[0], e.as_int64(c.inputs[1], c.in_info[1]), e.as_int64(c.inputs[2], c.in_info[2])],
          c.outputs[0], strides=list(c.op.strides), dilations=list(c.op.dilations),
          pads=list(c.op.pads_begin) + list(c.op.pads_end))


@converts("AdaptiveAvgPool", "AdaptiveMaxPool")
def adaptive_pool(e: Emitter, c: Call) -> None:
    """Written when every spatial dim is a multiple of its output size: the windows are then
    equal, an AveragePool/MaxPool with kernel = stride = in/out. (Max's indices: not written.)"""
    shape, out = c.in_info[0].shape, c.out_info[0].shape
    if not (shape.is_static and out.is_static):
        raise Unexpressible("dynamic shapes")
    ins, outs = shape.to_tuple()[2:], out.to_tuple()[2:]
    if any(o == 0 or i % o for i, o in zip(ins, outs)):
        raise Unexpressible("uneven windows (a spatial dim that is no multiple of its output size)")
    if len(c.outputs) > 1 and 1 in c.used:
        raise Unexpressible("AdaptiveMaxPool's indices")
    k = [i // o for i, o in zip(ins, outs)]
    e.one("AveragePool" if c.op.type == "AdaptiveAvgPool" else "MaxPool", c.inputs[:1], c.outputs[0],
          kernel_shape=k, strides=k)


@converts("ROIAlign")
def roi_align(e: Emitter, c: Call) -> None:
    """ROIAlign-3 in avg mode is ONNX RoiAlign with output_half_pixel (onnxruntime's max mode is
    not OpenVINO's; ROIAlign-9 was measured to differ)."""
    if c.op.mode != "avg":
        raise Unexpressible("max mode (onnxruntime's RoiAlign max differs from OpenVINO's)")
    if c.op.version != "opset3":
        raise Unexpressible("ROIAlign-9's sampling differs from ONNX RoiAlign in onnxruntime (measured); not written yet")
    ctm = {"asymmetric": "output_half_pixel", "half_pixel": "half_pixel"}.get(getattr(c.op, "aligned_mode", "asymmetric"))
    if ctm is None:
        raise Unexpressible(f'aligned_mode="{c.op.aligned_mode}" has no ONNX form')
    e.one("RoiAlign", [c.inputs[0], c.inputs[1], e.as_int64(c.inputs[2], c.in_info[2])], c.outputs[0],
          mode="avg", output_height=int(c.op.pooled_h), output_width=int(c.op.pooled_w),
          sampling_ratio=int(c.op.sampling_ratio), spatial_scale=float(c.op.spatial_scale),
          coordinate_transformation_mode=ctm)


@converts("FakeQuantize")
def fake_quantize(e: Emitter, c: Call) -> None:
    """The spec's formula, written out (OpenVINO's reference, rounding half to even):
    x <= min(il, ih) ? ol : x > max(il, ih) ? oh : round((x - il) / (ih - il) * (levels-1)) / (levels-1) * (oh - ol) + ol.
    With ``--int8-qdq``, QuantizeLinear + DequantizeLinear where they are the same function up to
    last-place rounding (:func:`irrun.export.quantize.fake_quantize_qdq`)."""
    if getattr(c.op, "auto_broadcast", "numpy") not in ("numpy", "none"):
        raise Unexpressible(f'auto_broadcast="{c.op.auto_broadcast}" has no ONNX form')
    if e.int8_qdq and fake_quantize_qdq(e, c):
        return
    x, il, ih, ol, oh = c.inputs
    steps = e.scalar(int(c.op.levels) - 1, c.in_info[0].etype)
    q = e.one("Round", [e.one("Mul", [e.one("Div", [e.one("Sub", [x, il]), e.one("Sub", [ih, il])]), steps])])
    y = e.one("Add", [e.one("Mul", [e.one("Div", [q, steps]), e.one("Sub", [oh, ol])]), ol])
    y = e.one("Where", [e.one("Greater", [x, e.one("Max", [il, ih])]), oh, y])
    e.one("Where", [e.one("LessOrEqual", [x, e.one("Min", [il, ih])]), ol, y], c.outputs[0])


@converts("NonMaxSuppression")
def nms(e: Emitter, c: Call) -> None:
    """ONNX NonMaxSuppression selects the same boxes (one difference: OpenVINO suppresses at
    IoU >= threshold, ONNX at >, so only an IoU exactly at the threshold tells them apart). The
    IR's selected_scores are gathered back from the scores; sort_result_descending re-sorts all
    rows by score (TopK keeps equal scores in ONNX's batch, class order). v1/v3/v4's static row
    count is kept: rows cut or filled with -1."""
    if len(c.inputs) > 5:
        sigma = np.ravel(c.const(5))
        if sigma.size and float(sigma[0]) != 0:
            raise Unexpressible("Soft-NMS (soft_nms_sigma > 0) has no ONNX form")
    f32, i64 = elements.TYPES["f32"], elements.TYPES["i64"]
    args = [c.inputs[0], c.inputs[1]]
    if len(c.inputs) > 2:
        args.append(e.one("Reshape", [e.as_int64(c.inputs[2], c.in_info[2]), e.ints([1])]))
    for i in (3, 4):
        if len(c.inputs) > i:
            t = c.inputs[i] if c.in_info[i].etype.name == "f32" else e.cast(c.inputs[i], f32)
            args.append(e.one("Reshape", [t, e.ints([1])]))
    idx = e.one("NonMaxSuppression", args, center_point_box=int(c.op.box_encoding == "center"))
    scores = e.one("GatherND", [c.inputs[1], idx])
    if c.op.sort_result_descending:
        count = e.one("Slice", [e.one("Shape", [idx]), e.ints([0]), e.ints([1])])
        order = e.node("TopK", [scores, count], 2, axis=0, largest=1, sorted=1)[1]
        idx, scores = e.one("Gather", [idx, order], axis=0), e.one("Gather", [scores, order], axis=0)
    if c.op.version in ("opset1", "opset3", "opset4"):
        rows = c.out_info[0].shape
        if not rows.is_static:
            raise Unexpressible("the IR's row count is not static")
        n = rows.to_tuple()[0]
        fill = e.one("ConstantOfShape", [e.ints([n, 3])], value=_tensor(np.full(1, -1, np.int64)))
        idx = e.one("Slice", [e.one("Concat", [idx, fill], axis=0), e.ints([0]), e.ints([n])])
    out_type = c.out_info[0].etype
    e.one("Identity" if out_type == i64 else "Cast", [idx], c.outputs[0],
          **({} if out_type == i64 else {"to": onnx_type(out_type)}))
    if len(c.outputs) > 1:
        batch_class = e.cast(e.one("Slice", [idx, e.ints([0]), e.ints([2]), e.ints([1])]), f32)
        score_col = e.one("Unsqueeze", [e.cast(scores, f32) if c.in_info[1].etype != f32 else scores, e.ints([1])])
        e.one("Concat", [batch_class, score_col], c.outputs[1], axis=1)
    if len(c.outputs) > 2:
        valid = e.one("Slice", [e.one("Shape", [idx]), e.ints([0]), e.ints([1])])
        e.one("Cast", [valid], c.outputs[2], to=onnx_type(c.out_info[2].etype))


not_exported("the overlap of rotated boxes (a polygon intersection) has no ONNX op; a decomposition is not "
             "written yet", "NMSRotated")
