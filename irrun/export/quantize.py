"""ONNX forms of the ops that emulate low-precision arithmetic: FakeConvert-13 (f8 rounding)."""
from __future__ import annotations

import numpy as np

from ..types import elements
from .emitter import Call, Emitter, onnx_type, onnx_type_named
from .table import converts

F32 = elements.TYPES["f32"]
F16 = elements.TYPES["f16"]
#: FakeConvert's destination type -> (ONNX float8 type, largest finite value)
_F8 = {"f8e4m3": ("FLOAT8E4M3FN", 448.0), "f8e5m2": ("FLOAT8E5M2", 57344.0)}


@converts("FakeConvert")
def fake_convert(e: Emitter, c: Call) -> None:
    """OpenVINO's CPU arithmetic in f32 (irrun.ops.fake_convert): y = x * scale - shift, rounded
    to the data type once, clamped to +-max (NaN to -max), Cast to f16 then to ONNX's float8
    type (round to nearest even) and back, + shift, * (1 / scale rounded to the data type). A
    constant all-zero shift is left out (so -0.0 stays -0.0)."""
    et = c.in_info[0].etype
    f8, top = _F8[c.op.destination_type.strip()]

    def f32(i: int) -> str:
        return c.inputs[i] if c.in_info[i].etype.name == "f32" else e.cast(c.inputs[i], F32)

    def in_data_type(x: str) -> str:
        return x if et.name == "f32" else e.one("Cast", [e.cast(x, et)], to=onnx_type(F32))

    scale = f32(1)
    shift = None
    if len(c.inputs) > 2:
        value = c.in_info[2].value
        shift = None if value is not None and not np.any(value) else f32(2)
    y = e.one("Mul", [f32(0), scale])
    if shift is not None:
        y = e.one("Sub", [y, shift])
    y = e.one("Clip", [in_data_type(y), e.scalar(-top, F32), e.scalar(top, F32)])
    y = e.where(e.one("IsNaN", [y]), e.scalar(-top, F32), y, F32)
    y = e.one("Cast", [e.one("Cast", [e.cast(y, F16)], to=onnx_type_named(f8))], to=onnx_type(F32))
    if shift is not None:
        y = e.one("Add", [y, shift])
    inverse = in_data_type(e.one("Div", [e.scalar(1, F32), scale]))
    y = e.one("Mul", [y, inverse])
    if et.name == "f32":
        e.one("Identity", [y], c.outputs[0])
    else:
        e.one("Cast", [y], c.outputs[0], to=onnx_type(et))


#: the export's note when some FakeQuantize took the ``--int8-qdq`` form
QDQ_NOTE = ("--int8-qdq: FakeQuantize layers are their u8 levels (computed by FakeQuantize's formula; constant "
            "weights stored as u8) + DequantizeLinear, convolutions and MatMuls on them ConvInteger/MatMulInteger")

#: how far from an integer (in quantization steps) a zero point may be and still be taken as one
#: (``-input_low / step`` of NNCF's ranges comes out of f32 arithmetic, a few 1e-6 steps off)
ZERO_POINT_SLACK = 1e-4


def _per_axis(limits: list[np.ndarray], rank: int) -> tuple[list[np.ndarray], int | None] | None:
    """The limits as 1-D arrays along their one non-1 axis (None: per tensor), or None when they
    vary along more than one axis (QuantizeLinear has per-tensor or per-axis parameters)."""
    shaped = []
    for v in limits:
        v = np.asarray(v, np.float32)
        while v.ndim > rank and v.shape[0] == 1:
            v = v[0]
        shaped.append(v.reshape((1,) * (rank - v.ndim) + v.shape))
    axes = {i for v in shaped for i in range(v.ndim) if v.shape[i] > 1}
    if len(axes) > 1:
        return None
    axis = next(iter(axes), None)
    if axis is None:
        return [v.reshape(()) for v in shaped], None
    size = max(int(v.shape[axis]) for v in shaped)
    return [np.broadcast_to(v.reshape(-1), (size,)).copy() for v in shaped], axis


def _zero_point(low: np.ndarray, step: np.ndarray) -> np.ndarray | None:
    """``-low / step`` as integers when every one is within :data:`ZERO_POINT_SLACK` of an integer
    in [0, 255] (so that zero is a level), else None."""
    zp = -low.astype(np.float64) / step.astype(np.float64)
    whole = np.rint(zp)
    if not (np.all(np.abs(zp - whole) <= ZERO_POINT_SLACK) and np.all((whole >= 0) & (whole <= 255))):
        return None
    return whole.astype(np.uint8)


def _parameters(e: Emitter, scale: np.ndarray, zero_point: np.ndarray, axis: int | None) -> tuple[list[str], dict]:
    """QuantizeLinear's/DequantizeLinear's scale and zero point inputs and axis attribute: per
    tensor when both are the same along the axis (onnxruntime fuses QLinearConv/MatMulInteger
    only with per-tensor activations), else per axis."""
    if scale.ndim and np.all(scale == scale[0]) and np.all(zero_point == zero_point[0]):
        scale, zero_point = scale[0], zero_point[0]
    return [e.const(scale, "scale"), e.const(zero_point, "zero_point")], {"axis": axis} if scale.ndim else {}


def fake_quantize_qdq(e: Emitter, c: Call) -> bool:
    """``--int8-qdq``: FakeQuantize-1 as its u8 levels + ONNX DequantizeLinear (per tensor or per
    axis), or False when it has no such form (the caller writes the formula).

    The level ``q = rint((x - il) / (ih - il) * (levels-1))``, clamped to [0, levels-1], is
    computed by the formula's own ops and Cast to u8 (:func:`exact_levels`: the same level as
    irrun and OpenVINO's reference for every value); ONNX QuantizeLinear's ``round(x / s) + zp``
    is not written because it picks another level where x lies within an ulp of a half step
    (20 of the 1.2 million inputs of yolov8n-int8's first FakeQuantize). The output
    ``q / (levels-1) * (oh - ol) + ol`` is DequantizeLinear's ``(q - zp) * s`` with ``s = (oh -
    ol) / (levels-1)``, ``zp = -ol / s`` (equal up to the last place). Taken for f32 data, levels
    256 or 255, constant limits varying along at most one axis, increasing ranges, and an output
    range with zero on a level (``-ol / s`` an integer in [0, 255]). A constant input (an IR's weights
    behind FakeQuantize) is quantized here by irrun's own FakeQuantize and stored as its u8
    levels: an initializer 4x smaller than f32 weights. The consumers then compute on the levels:
    :func:`integer_convolution`, :func:`integer_matmul`."""
    from ..ops.fake_quantize import fake_quantize
    levels = int(c.op.levels)
    if levels not in (255, 256) or c.in_info[0].etype.name != "f32" or c.in_info[0].shape.rank is None:
        return False
    given = [c.in_info[i].value for i in range(1, 5)]
    if any(v is None for v in given) or getattr(c.op, "auto_broadcast", "numpy") not in ("numpy", "none"):
        return False
    limits = [np.asarray(v) for v in given]
    flat = _per_axis(limits, c.in_info[0].shape.rank)
    if flat is None:
        return False
    (il, ih, ol, oh), axis = flat
    steps = np.float32(levels - 1)
    step_out = (oh - ol) / steps
    if not (np.all(ih > il) and np.all(step_out > 0)):
        return False
    zp_out = _zero_point(ol, step_out)
    if zp_out is None:
        return False
    x = c.in_info[0].value
    if x is None:
        x = _constant_f32(e, c.inputs[0])
    if x is not None:     # its levels: irrun's FakeQuantize onto [0, levels-1]
        il_given, ih_given = np.asarray(limits[0], np.float32), np.asarray(limits[1], np.float32)
        q = fake_quantize(np.asarray(x, np.float32), il_given, ih_given, np.zeros((), np.float32),
                          np.asarray(steps), levels)
        quantized = e.const(np.rint(q).astype(np.uint8), "levels")
    else:
        quantized = exact_levels(e, c, levels)
    params, attrs = _parameters(e, step_out, zp_out, axis)
    e.one("DequantizeLinear", [quantized] + params, c.outputs[0], **attrs)
    e.notes.append(QDQ_NOTE)
    return True


def _initializer(e: Emitter, name: str) -> np.ndarray | None:
    """The value of the initializer ``name`` written so far, or None (a computed tensor)."""
    from onnx import numpy_helper
    for t in reversed(e.initializers):
        if t.name == name:
            return numpy_helper.to_array(t)
    return None


def _constant_f32(e: Emitter, name: str) -> np.ndarray | None:
    """The value of ``name`` when it is an initializer or a Cast of one to f32 (an IR's f16 or
    8-bit weights behind a Convert: irrun's shape inference keeps no value of large constants)."""
    value = _initializer(e, name)
    if value is not None:
        return value
    node = next((n for n in reversed(e.nodes) if name in n.output), None)
    if node is None or node.op_type != "Cast" or node.attribute[0].i != onnx_type(F32):
        return None
    value = _initializer(e, node.input[0])
    return None if value is None or value.dtype.kind not in "fiu" else value.astype(np.float32)


def _dequantized(e: Emitter, name: str) -> tuple[str, np.ndarray, np.ndarray, int] | None:
    """(the quantized tensor, scale, zero point, axis) when ``name`` is written by a
    DequantizeLinear with constant parameters, per tensor or per axis (a blocked one whose block
    is a whole axis is per axis along the other), else None."""
    node = next((n for n in reversed(e.nodes) if name in n.output), None)
    if node is None or node.op_type != "DequantizeLinear" or len(node.input) < 2:
        return None
    attrs = {a.name: a.i for a in node.attribute}
    scale = _initializer(e, node.input[1])
    zp = _initializer(e, node.input[2]) if len(node.input) > 2 and node.input[2] else np.zeros((), np.uint8)
    if scale is None or zp is None or scale.dtype != np.float32:
        return None
    axis = int(attrs.get("axis", 1))
    if attrs.get("block_size", 0):      # one block over the whole axis: per axis along the other one
        levels = _initializer(e, node.input[0])
        if levels is None or levels.ndim != scale.ndim or levels.shape[axis] != attrs["block_size"]:
            return None
        varying = [d for d in range(scale.ndim) if scale.shape[d] > 1]
        if len(varying) > 1:
            return None
        axis = varying[0] if varying else axis
        scale, zp = scale.reshape(-1), (zp.reshape(-1) if zp.size > 1 else zp.reshape(()))
    return node.input[0], scale, zp, axis


def integer_convolution(e: Emitter, c: Call, attrs: dict, group: int = 1) -> bool:
    """``--int8-qdq``: a Convolution of a DequantizeLinear'd u8 activation (per tensor) by
    DequantizeLinear'd constant 8-bit weights (per tensor or per output channel, one zero point)
    as ONNX ConvInteger — exact int32 sums, as OpenVINO's int8 kernels compute them — then Cast
    to f32 and one Mul by ``scale_x * scale_w``; False when the inputs are not of that form (the
    caller writes Conv). Written here because onnxruntime fuses DequantizeLinear -> Conv into
    QLinearConv only when a QuantizeLinear follows the Conv, and in OpenVINO's INT8 IRs a bias
    Add and an activation come first: its f32 sums of the dequantized values cross a rounding
    step of the next FakeQuantize now and then, and the flips multiply layer after layer."""
    x, w = _dequantized(e, c.inputs[0]), _dequantized(e, c.inputs[1])
    if x is None or w is None or x[1].size != 1 or x[2].size != 1:
        return False
    xq, xs, xzp, _ = x
    wq_name, ws, wzp, axis = w
    wq = _initializer(e, wq_name)
    if wq is None or wq.dtype not in (np.int8, np.uint8) or not np.all(wzp == wzp.reshape(-1)[0]):
        return False
    out_channels = wq.shape[0] * (wq.shape[1] if group > 1 else 1)
    if ws.size != 1 and not (axis == 0 and (ws.size == out_channels if group == 1 else wq.shape[1] == 1)):
        return False
    if group > 1:
        wq = wq.reshape((out_channels,) + wq.shape[2:])
    wq, w_zero = _as_u8(wq, wzp.reshape(-1)[0])
    inputs = [xq, e.const(wq, "weights"), e.const(xzp.reshape(()), "zero_point"), e.const(w_zero, "zero_point")]
    sums = e.one("ConvInteger", inputs, group=group if group > 1 else None, **attrs)
    rank = len(wq.shape)
    scale = (xs.reshape(()) * ws.astype(np.float32)).reshape((1, -1) + (1,) * (rank - 2)) if ws.size > 1 \
        else xs.reshape(()) * ws.reshape(())
    e.one("Mul", [e.one("Cast", [sums], to=onnx_type(F32)), e.const(np.asarray(scale, np.float32), "scale")],
          c.outputs[0])
    return True


def exact_levels(e: Emitter, c: Call, levels: int) -> str:
    """The FakeQuantize's levels as u8, by its own formula (the same bits as irrun's and
    OpenVINO's reference): ``clip(rint((x - il) / (ih - il) * (levels-1)), 0, levels-1)``."""
    x, il, ih = c.inputs[:3]
    et = c.in_info[0].etype
    q = e.one("Round", [e.one("Mul", [e.one("Div", [e.one("Sub", [x, il]), e.one("Sub", [ih, il])]),
                                      e.scalar(levels - 1, et)])])
    q = e.one("Clip", [q, e.scalar(0, et), e.scalar(levels - 1, et)])
    return e.one("Cast", [q], to=onnx_type_named("UINT8"))


def integer_matmul(e: Emitter, c: Call, transpose_a: bool, transpose_b: bool) -> bool:
    """``--int8-qdq``: a MatMul of a DequantizeLinear'd u8 activation (per tensor) by
    DequantizeLinear'd constant 2-D 8-bit weights (per tensor or per output column, one zero
    point) as ONNX MatMulInteger (exact int32 sums) + Cast + one Mul by ``scale_a * scale_b``,
    as :func:`integer_convolution`; False when the inputs are not of that form."""
    a, b = _dequantized(e, c.inputs[0]), _dequantized(e, c.inputs[1])
    if transpose_a or a is None or b is None or a[1].size != 1 or a[2].size != 1:
        return False
    aq, a_scale, a_zero, _ = a
    wq_name, w_scale, w_zero, axis = b
    wq = _initializer(e, wq_name)
    if wq is None or wq.ndim != 2 or wq.dtype not in (np.int8, np.uint8) or \
            not np.all(w_zero == w_zero.reshape(-1)[0]):
        return False
    columns_axis = 0 if transpose_b else 1
    if w_scale.size != 1 and axis != columns_axis:
        return False
    if transpose_b:
        wq = np.ascontiguousarray(wq.T)
    wq, w_zero_point = _as_u8(wq, w_zero.reshape(-1)[0])
    sums = e.one("MatMulInteger", [aq, e.const(wq, "weights"), e.const(a_zero.reshape(()), "zero_point"),
                                   e.const(w_zero_point, "zero_point")])
    scale = (a_scale.reshape(()) * w_scale.astype(np.float32)).reshape(-1 if w_scale.size > 1 else ())
    e.one("Mul", [e.one("Cast", [sums], to=onnx_type(F32)), e.const(np.asarray(scale, np.float32), "scale")],
          c.outputs[0])
    return True


def _as_u8(levels: np.ndarray, zero_point: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """8-bit weights and their zero point as u8: i8 shifted by +128, because onnxruntime's u8 x
    s8 kernels add pairs of products in int16 and saturate (u8 x u8 widens first: exact)."""
    if levels.dtype == np.int8:
        return (levels.astype(np.int16) + 128).astype(np.uint8), np.asarray(int(zero_point) + 128, np.uint8)
    return levels, np.asarray(int(zero_point), np.uint8)
