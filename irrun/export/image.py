"""ONNX forms of the image-layout ops ONNX has no single op for: SpaceToBatch, BatchToSpace,
ExtractImagePatches (Reshape / Transpose / Pad / Slice decompositions, the specs' own formulas),
the NV12/I420 colour conversions, Interpolate-1 (ONNX Resize) and BinaryConvolution (its 1-bit
weights unpacked to a +-1 constant at export time).

Block sizes, pads and strides must be constants (they decide the Transpose and Slice
attributes); the batch and, where the op allows, the spatial dims stay dynamic (Shape arithmetic
in the graph).
"""
from __future__ import annotations

import numpy as np

from ..types import elements
from ..types.shapes import Dim
from .emitter import Call, Emitter, Unexpressible, onnx_type
from .table import converts

F32 = elements.TYPES["f32"]
#: Slice's "to the end"
_END = np.iinfo(np.int64).max


def _ints(c: Call, i: int) -> list[int]:
    return [int(v) for v in np.ravel(c.const(i))]


def _interleave(e: Emitter, quotients: str, blocks: list[int]) -> str:
    """[q1, b1, q2, b2, ...] from the 1-D tensor ``quotients`` and the constant ``blocks``."""
    pairs = e.one("Concat", [e.one("Unsqueeze", [quotients, e.ints([1])]),
                             e.one("Unsqueeze", [e.ints(blocks), e.ints([1])])], axis=1)
    return e.one("Reshape", [pairs, e.ints([-1])])


@converts("SpaceToBatch")
def space_to_batch(e: Emitter, c: Call) -> None:
    """The spec's Pad -> Reshape [N, D1/b1, b1, ...] -> Transpose (blocks outermost) ->
    Reshape [N * prod(b), D1/b1, ...]; the quotients come from the padded input's Shape."""
    blocks, begin, end = _ints(c, 1), _ints(c, 2), _ints(c, 3)
    k = c.rank(0) - 1
    x = c.inputs[0]
    if any(begin + end):
        x = e.one("Pad", [x, e.ints(begin + end)])
    shape = e.one("Shape", [x])
    quotients = e.one("Div", [e.one("Slice", [shape, e.ints([1]), e.ints([_END])]), e.ints(blocks[1:])])
    batch = e.one("Slice", [shape, e.ints([0]), e.ints([1])])
    split = e.one("Reshape", [x, e.one("Concat", [batch, _interleave(e, quotients, blocks[1:])], axis=0)])
    perm = [2 * i for i in range(1, k + 1)] + [0] + [2 * i - 1 for i in range(1, k + 1)]
    moved = e.one("Transpose", [split], perm=perm)
    new_batch = e.one("Mul", [batch, e.ints([int(np.prod(blocks))])])
    e.one("Reshape", [moved, e.one("Concat", [new_batch, quotients], axis=0)], c.outputs[0])


@converts("BatchToSpace")
def batch_to_space(e: Emitter, c: Call) -> None:
    """The spec's Reshape [b1, ..., bk, N / prod(b), D1, ...] -> Transpose [N', D1, b1, D2, b2,
    ...] -> Reshape [N', D1 * b1, ...] -> Slice (the crops)."""
    blocks, begin, end = _ints(c, 1), _ints(c, 2), _ints(c, 3)
    k = c.rank(0) - 1
    shape = e.one("Shape", [c.inputs[0]])
    spatial = e.one("Slice", [shape, e.ints([1]), e.ints([_END])])
    batch = e.one("Div", [e.one("Slice", [shape, e.ints([0]), e.ints([1])]), e.ints([int(np.prod(blocks))])])
    split = e.one("Reshape", [c.inputs[0], e.one("Concat", [e.ints(blocks[1:]), batch, spatial], axis=0)])
    perm = [k] + [v for i in range(k) for v in (k + 1 + i, i)]
    moved = e.one("Transpose", [split], perm=perm)
    joined = e.one("Reshape", [moved, e.one("Concat", [batch, e.one("Mul", [spatial, e.ints(blocks[1:])])],
                                            axis=0)])
    if not any(begin + end):
        e.one("Identity", [joined], c.outputs[0])
        return
    ends = [-v if v else _END for v in end]
    e.one("Slice", [joined, e.ints(begin), e.ints(ends)], c.outputs[0])


@converts("ExtractImagePatches")
def extract_image_patches(e: Emitter, c: Call) -> None:
    """Pad (auto_pad's zeros, the odd pixel where the mode puts it), then one strided Slice per
    patch position (row, col), stacked before the channels: [N, kh * kw * C, out_h, out_w]."""
    op = c.op
    hw = [list(c.in_info[0].shape)[2 + d] for d in range(2)]
    if c.rank(0) != 4 or not all(d.is_static for d in hw):
        raise Unexpressible("the image's height and width must be static")
    out_hw = [op.patch_count(n.lo, d) for d, n in enumerate(hw)]
    (kh, kw), (sh, sw), (rh, rw) = op.sizes, op.strides, op.rates
    begin, end = [], []
    for d, n in enumerate(hw):
        span = op.rates[d] * (op.sizes[d] - 1) + 1
        need = (out_hw[d] - 1) * op.strides[d] + span
        total = max(0, need - n.lo) if op.auto_pad != "valid" else 0
        b = total // 2 if op.auto_pad == "same_upper" else total - total // 2
        begin.append(b)
        end.append(max(0, need - b - n.lo))
    x = c.inputs[0]
    if any(begin + end):
        x = e.one("Pad", [x, e.ints([0, 0, *begin, 0, 0, *end])])
    patches = []
    for i in range(kh):
        for j in range(kw):
            r0, c0 = i * rh, j * rw
            cut = e.one("Slice", [x, e.ints([r0, c0]), e.ints([r0 + sh * (out_hw[0] - 1) + 1,
                                                                c0 + sw * (out_hw[1] - 1) + 1]),
                                  e.ints([2, 3]), e.ints([sh, sw])])
            patches.append(e.one("Unsqueeze", [cut, e.ints([1])]))
    stacked = e.one("Concat", patches, axis=1) if len(patches) > 1 else patches[0]
    e.one("Reshape", [stacked, e.ints([0, -1, out_hw[0], out_hw[1]])], c.outputs[0])


def _upsample(e: Emitter, plane: str) -> str:
    """A [N, h, w, 1] f32 chroma plane repeated 2x2: [N, 2h, 2w, 1]."""
    return e.one("Resize", [plane, "", e.const(np.asarray([1, 2, 2, 1], np.float32), "scales")], mode="nearest",
                 coordinate_transformation_mode="asymmetric", nearest_mode="floor")


def _yuv_planes(e: Emitter, c: Call) -> tuple[str, str, str]:
    """(Y [N, H, W, 1], U, V [N, H/2, W/2, 1]) of a one-input or plane-by-plane layer, f32."""
    ins = [e.cast(x, F32) if info.etype.name != "f32" else x for x, info in zip(c.inputs, c.in_info)]
    nv12 = c.op.planes == "nv12"
    if len(ins) > 1:
        if nv12:
            u = e.one("Slice", [ins[1], e.ints([0]), e.ints([1]), e.ints([3])])
            v = e.one("Slice", [ins[1], e.ints([1]), e.ints([2]), e.ints([3])])
            return ins[0], u, v
        return ins[0], ins[1], ins[2]
    shape = e.one("Shape", [ins[0]])
    rows = e.one("Slice", [shape, e.ints([1]), e.ints([2])])
    h = e.one("Div", [e.one("Mul", [rows, e.ints([2])]), e.ints([3])])
    y = e.one("Slice", [ins[0], e.ints([0]), h, e.ints([1])])
    rest = e.one("Slice", [ins[0], h, e.ints([_END]), e.ints([1])])            # [N, H/2, W, 1]
    if nv12:
        uv = e.one("Reshape", [rest, e.ints([0, 0, -1, 2])])                    # [N, H/2, W/2, 2]
        return (y, e.one("Slice", [uv, e.ints([0]), e.ints([1]), e.ints([3])]),
                e.one("Slice", [uv, e.ints([1]), e.ints([2]), e.ints([3])]))
    halves = e.one("Reshape", [rest, e.ints([0, 2, -1])])                       # [N, 2, H/2 * W/2]
    target = e.one("Concat", [e.ints([0]), e.one("Div", [rows, e.ints([3])]), e.ints([-1, 1])], axis=0)
    u = e.one("Reshape", [e.one("Slice", [halves, e.ints([0]), e.ints([1]), e.ints([1])]), target])
    v = e.one("Reshape", [e.one("Slice", [halves, e.ints([1]), e.ints([2]), e.ints([1])]), target])
    return y, u, v


@converts("NV12toRGB", "NV12toBGR", "I420toRGB", "I420toBGR")
def yuv_to_rgb(e: Emitter, c: Call) -> None:
    """Per pixel in f32, as OpenVINO's CPU plugin: c = Y - 16, d = U - 128, e = V - 128 (chroma
    repeated 2x2), R = 1.164c + 1.596e, G = 1.164c - 0.391d - 0.813e, B = 1.164c + 2.018d,
    clipped to [0, 255] and, for u8, rounded half to even; one input (planes stacked) or one per
    plane."""
    y, u, v = _yuv_planes(e, c)

    def k(value: float) -> str:
        return e.scalar(value, F32, "yuv_coefficient")

    cy = e.one("Mul", [k(1.164), e.one("Sub", [y, k(16)])])
    d = e.one("Sub", [_upsample(e, u), k(128)])
    ev = e.one("Sub", [_upsample(e, v), k(128)])
    r = e.one("Add", [cy, e.one("Mul", [k(1.596), ev])])
    g = e.one("Sub", [e.one("Sub", [cy, e.one("Mul", [k(0.391), d])]), e.one("Mul", [k(0.813), ev])])
    b = e.one("Add", [cy, e.one("Mul", [k(2.018), d])])
    rgb = e.one("Concat", [b, g, r] if c.op.bgr else [r, g, b], axis=3)
    et = c.out_info[0].etype
    if et.name == "u8":
        rgb = e.one("Round", [rgb])
    clipped = e.one("Clip", [rgb, k(0), k(255)])
    if et.name == "f32":
        e.one("Identity", [clipped], c.outputs[0])
    else:
        e.one("Cast", [clipped], c.outputs[0], to=onnx_type(et))


@converts("Interpolate", versions=("opset1",))
def interpolate1(e: Emitter, c: Call) -> None:
    """ONNX Resize-19 (versions 4 and 11 with their own modes and rounding; version 1 as
    OpenVINO converts it to Interpolate-4, below).

    Version 1: ``sizes`` on the listed axes (irrun.ops.interpolate): align_corners, else half_pixel for linear (not for
    the [2, 3] axes of a 4-D input: asymmetric), else asymmetric; cubic's coefficient -0.75.
    Nearest's "simple" rounding (ceil when shrinking an axis, floor when growing it) is one
    Resize with ONNX's ceil over the shrinking axes and one with floor over the growing ones
    (nearest is separable), which needs static sizes. Pads have no ONNX Resize form."""
    op = c.op
    if any(op.pads_begin) or any(op.pads_end):
        raise Unexpressible("pads_begin/pads_end (ONNX Resize has no pads)")
    rank = c.rank(0)
    if op.mode == "area":
        raise Unexpressible('mode="area" (OpenVINO cannot run it either)')
    if op.mode == "linear" and rank > 4:
        raise Unexpressible('mode="linear" over more than 2 spatial axes')
    resize = op.resize_for(rank)
    axes = [int(a) % rank for a in op.axes]
    target = e.one("Slice", [e.as_int64(c.inputs[1], c.in_info[1]), e.ints([0]), e.ints([len(axes)])])
    mode = {"nearest": "nearest", "linear_onnx": "linear", "cubic": "cubic"}[resize.mode]
    attrs = {"mode": mode, "coordinate_transformation_mode": resize.ctm, "cubic_coeff_a": -0.75}
    if op.mode != "nearest":
        x, axes_now = c.inputs[0], axes
        if mode == "cubic" and rank == 3:       # onnxruntime's cubic Resize takes 2-D or 4-D inputs
            x, axes_now = e.one("Unsqueeze", [x, e.ints([0])]), [a + 1 for a in axes]
        y = e.one("Resize", [x, "", "", target], None if x != c.inputs[0] else c.outputs[0], axes=axes_now,
                  **attrs)
        if x != c.inputs[0]:
            e.one("Squeeze", [y, e.ints([0])], c.outputs[0])
        return
    sizes = _ints(c, 1)[:len(axes)]
    dims = list(c.in_info[0].shape)
    if not all(dims[a].is_static for a in axes):
        raise Unexpressible("nearest's rounding depends on the resized axes' sizes, which are dynamic")
    nearest_simple(e, c.inputs[0], c.outputs[0], [(a, n, n < dims[a].lo) for a, n in zip(axes, sizes)],
                   True, attrs)


def nearest_simple(e: Emitter, x: str, output: str, targets: list[tuple[int, float, bool]], by_sizes: bool,
                   attrs: dict) -> None:
    """OpenVINO's nearest "simple" rounding (ceil on an axis that shrinks, floor on one that
    grows), which ONNX has not: one Resize with ceil over the shrinking axes and one with floor
    over the others (nearest is separable). ``targets``: (axis, size or scale, shrinks)."""
    groups = [(rounding, [(a, v) for a, v, down in targets if down == (rounding == "ceil")])
              for rounding in ("ceil", "floor")]
    groups = [(r, g) for r, g in groups if g]
    for i, (rounding, group) in enumerate(groups):
        values = [v for _, v in group]
        target = ["", "", e.ints(values)] if by_sizes else ["", e.const(np.asarray(values, np.float32), "scales")]
        x = e.one("Resize", [x, *target], output if i == len(groups) - 1 else None, axes=[a for a, _ in group],
                  nearest_mode=rounding, **attrs)


@converts("BinaryConvolution")
def binary_convolution(e: Emitter, c: Call) -> None:
    """ONNX Conv of the +-1 values: the data binarised (x > 0: +1, else -1), padded with the
    binarised pad_value, and the u1 kernel unpacked to a +-1 constant at export time —
    2 * popcount(XNOR) - bits is that convolution (irrun.ops.binary_convolution)."""
    bits = np.asarray(c.const(1))
    data_dims = list(c.in_info[0].shape)[2:] if c.rank(0) == 4 else []
    if c.op.auto_pad in ("same_upper", "same_lower") and not all(d.is_static for d in data_dims):
        raise Unexpressible(f'auto_pad="{c.op.auto_pad}" on dynamic spatial dims')
    begin, end, _ = c.op.geometry(data_dims, [Dim.of(n) for n in bits.shape[2:]])
    et = c.in_info[0].etype
    work = et if et.name in ("f32", "f64", "f16") else F32
    x = c.inputs[0] if work == et else e.cast(c.inputs[0], work)
    signs = e.where(e.one("Greater", [x, e.scalar(0, work)]), e.scalar(1, work), e.scalar(-1, work), work)
    pad = e.scalar(1 if c.op.pad_value > 0 else -1, work)
    if any(begin) or any(end):
        signs = e.one("Pad", [signs, e.ints([0, 0, *begin, 0, 0, *end]), pad])
    weights = e.const(np.where(bits > 0, 1, -1).astype(work.dtype), "binary_weights")
    y = e.one("Conv", [signs, weights], None if work != et else c.outputs[0],
              strides=list(c.op.strides), dilations=list(c.op.dilations))
    if work != et:
        e.one("Cast", [y], c.outputs[0], to=onnx_type(et))
