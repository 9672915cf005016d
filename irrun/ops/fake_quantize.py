"""FakeQuantize-1: element-wise quantization of floats onto ``levels`` steps, kept in floating point.


Measured on OpenVINO 2026.4.1 (tests/fixtures/attention_quantize_movement_expectations,
tools/expectations/make_attention_quantize_movement_expectations.py):

* The reference kernel (``Node.evaluate``; ConstantFolding never folds FakeQuantize) computes the
  spec formula literally in f32, rounding half to even (``std::nearbyint``):
  ``x <= min(il, ih) ? ol : x > max(il, ih) ? oh :
  rint((x - il) / (ih - il) * (levels-1)) / (levels-1) * (oh - ol) + ol``.
  f16 and bf16 give exactly that f32 result rounded once (checked on every f16 in [-5, 5]).
  irrun computes exactly this (f64 data in f64: OpenVINO has no f64 reference kernel).
* The CPU plugin computes ``rint(clamp(x) * scale + shift) * scale' + shift'``: within an ulp of
  the reference in f32, a whole step apart now and then in f16 (ties after rounding), and it
  differs where the formula has no step: NaN data gives ``output_low`` (the reference: NaN),
  ``input_low == input_high`` gives NaN everywhere (the reference: ``ol`` at or below, ``oh``
  above), and bf16 data comes back unchanged. irrun follows the reference there.
* Shape rule: each limit is broadcast-merged (numpy/pdpd) or merged (none) into the data shape in
  turn ("Argument shapes are inconsistent."); the output has the data's shape. OpenVINO accepts
  limits *larger* than the data (the reference reads part of them, the CPU plugin corrupts its
  heap), ``levels`` below 2 (division by zero) and limits of another element type than the data
  (read as the data's type), and integer data: irrun refuses all four.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..errors import OpError
from ..limits.parallel import run_all, splits
from ..types.shapes import PartialShape
from ._broadcast import AUTO_BROADCAST, broadcast_shapes
from ._numerics import CLIP, NUMERIC, block_slices, float_math, part, quiet, unsupported, work_dtype
from .base import Attr, Op, Precision, TensorInfo, spec_url
from .registry import register

_LIMITS = ("input_low", "input_high", "output_low", "output_high")


def limit_shape(data: PartialShape, limit: PartialShape, mode: str, port: str) -> tuple[int, ...] | None:
    """The shape a limit is viewed with to broadcast against the data (NumPy rules), checking
    that it broadcasts *to* the data's shape (leading 1s beyond the data's rank allowed);
    None until both shapes are static. With pdpd only limits of one element or of the data's
    own shape (OpenVINO's evaluators disagree on the others)."""
    if not (data.is_static and limit.is_static):
        return None
    d, s = data.to_tuple(), limit.to_tuple()
    if mode == "pdpd" and int(np.prod(s)) != 1 and s != d:
        raise OpError(f"irrun does not support FakeQuantize with auto_broadcast pdpd and a limit of "
                      f"shape {limit} for data of shape {data}", port=port, unsupported=True)
    extra = len(s) - len(d)
    if extra > 0 and all(v == 1 for v in s[:extra]):
        s = s[extra:]
    if len(s) > len(d) or any(b not in (1, a) for a, b in zip(d[len(d) - len(s):], s)):
        raise OpError(f"the limit's shape {limit} does not broadcast to the data shape {data} "
                      "(OpenVINO keeps the data's shape and reads part of the limit)", port=port,
                      openvino_loads=True)
    return s


def fake_quantize(x: np.ndarray, il: np.ndarray, ih: np.ndarray, ol: np.ndarray, oh: np.ndarray,
                  levels: int, out: np.ndarray | None = None) -> np.ndarray:
    """The reference formula, in f32 (f64 for f64 data), rounded once to the data's type (see
    :func:`quantize_prepared`)."""
    return quantize_prepared(x, prepare_limits(il, ih, ol, oh, levels, work_dtype(x.dtype)), out)


def quantize_prepared(x: np.ndarray, prepared: tuple, out: np.ndarray | None = None) -> np.ndarray:
    """:func:`fake_quantize` with the limits' :func:`prepare_limits` given.

    INT8 models run one of these before almost every convolution, on the biggest activations:
    it is one pass per cache-sized block (spread over irrun's threads), the formula computed in
    place in the output's block (f32/f64 data, :func:`_in_place`) or in one block-sized
    temporary (f16/bf16, :func:`float_math`), with ``ih - il`` and ``oh - ol`` computed once on
    the small limit arrays. The formula's operations run in the formula's order,
    so the result is the same to the bit. The two clamps (``x <= min(il, ih)``, ``x > max(il,
    ih)``) are masked selects, 5-10x slower than an arithmetic pass unless few values are
    selected; where :func:`_clip_plan` proves it gives the same bits, the rounded step is clipped
    to ``[0, levels-1]`` instead."""
    il, ol, oh, width, span, lo, hi, steps, plan = prepared
    wd = work_dtype(x.dtype)
    if x.ndim > 0 and x.dtype == wd:     # f32/f64: every INT8 activation
        return _in_place(x, il, width, ol, span, oh, lo, hi, steps, plan, out)

    def step(v: np.ndarray, a: np.ndarray, w: np.ndarray) -> np.ndarray:
        q = np.asarray(np.subtract(v, a))   # the one temporary (0-d data: not a scalar); the rest in place
        q /= w
        q *= steps
        return np.rint(q, out=q)

    def value(q: np.ndarray, c: np.ndarray, s: np.ndarray) -> np.ndarray:
        q /= steps
        q *= s
        q += c
        return q

    def clipped(v, a, w, c, s):
        q = step(v, a, w)
        CLIP(q, wd.type(0), steps, out=q)
        return value(q, c, s)

    def clipped_top_masked(v, a, w, c, s, d, high):
        q = clipped(v, a, w, c, s)
        np.copyto(q, np.broadcast_to(d, q.shape), where=v > high)   # few: cheap
        return q

    def masked(v, a, w, c, s, d, low, high):
        q = value(step(v, a, w), c, s)
        np.copyto(q, np.broadcast_to(c, q.shape), where=v <= low)
        np.copyto(q, np.broadcast_to(d, q.shape), where=v > high)
        return q
    if plan == "clip":
        return float_math(clipped, x, il, width, ol, span, out=out)
    if plan == "clip, mask the top":
        return float_math(clipped_top_masked, x, il, width, ol, span, oh, hi, out=out)
    return float_math(masked, x, il, width, ol, span, oh, lo, hi, out=out)


#: Elements per block of :func:`_in_place` (256 KiB of f32: in the L2 cache through the formula's
#: eight passes). Each pass costs about a microsecond per call beside its work; 1 << 15 ran 15%
#: slower on a [1, 64, 80, 80] activation, 1 << 12 4x slower.
FQ_BLOCK = 1 << 16
#: Elements per block when the blocks are shared over irrun's pool (big data): 1 MiB of f32, still
#: in a core's L2 cache. Each pass releases and takes back the GIL, and two threads taking it in
#: turn wait for each other between passes: in 64K blocks a [1, 96, 128, 128] activation ran no
#: faster on 2 threads than on 1 (1.49 vs 1.38 ms, fastest of 60), in 256K blocks 1.6x faster (0.82 ms).
FQ_SPLIT_BLOCK = 1 << 18


def _in_place(x: np.ndarray, il: np.ndarray, width: np.ndarray, ol: np.ndarray, span: np.ndarray,
              oh: np.ndarray, lo: np.ndarray, hi: np.ndarray, steps: np.floating, plan: str,
              out: np.ndarray | None) -> np.ndarray:
    """:func:`fake_quantize` for f32/f64 data (the work dtype itself: every FakeQuantize of an
    INT8 model): the formula's passes run in ``out``'s block itself (``out`` may be ``x``), with
    no temporary and no copy of the result -- a third faster than :func:`float_math`'s blocks,
    which compute into a fresh array and copy it out. The clamps' masks are taken from the
    data before the block is overwritten. Same operations in the same order: the same bits."""
    if out is None or out.shape != x.shape or out.dtype != x.dtype or not out.flags.writeable:
        out = np.empty(x.shape, x.dtype)        # (fits(), inlined: ~1 us a call on small activations)
    split = splits(x.size)
    with quiet():
        if not split and x.size <= FQ_BLOCK:        # one block (most activations): no slicing at all
            _block(x, out, il, width, ol, span, oh, lo, hi, steps, plan)
            return out
        limits = [a if a.ndim == 0 else a.reshape((1,) * (x.ndim - a.ndim) + a.shape)
                  for a in (il, width, ol, span, oh, lo, hi)]

        def one(where: tuple[slice, ...]) -> None:
            b_il, b_width, b_ol, b_span, b_oh, b_lo, b_hi = (a if a.ndim == 0 else part(a, where) for a in limits)
            _block(x[where], out[where], b_il, b_width, b_ol, b_span, b_oh, b_lo, b_hi, steps, plan)
        run_all(one, block_slices(x.shape, FQ_SPLIT_BLOCK if split else FQ_BLOCK), x.size)
    return out


def _block(v: np.ndarray, q: np.ndarray, il, width, ol, span, oh, lo, hi, steps, plan) -> None:
    """:func:`_in_place` on one block: the formula's passes in ``q`` (may be ``v``), the masks of
    the clamps taken from ``v`` first."""
    below = v <= lo if plan == "mask" else None
    above = None if plan == "clip" else v > hi
    np.subtract(v, il, out=q)
    q /= width
    q *= steps
    np.rint(q, out=q)
    if plan != "mask":
        CLIP(q, q.dtype.type(0), steps, out=q)
    q /= steps
    q *= span
    q += ol
    if below is not None:
        np.copyto(q, np.broadcast_to(ol, q.shape), where=below)
    if above is not None:
        np.copyto(q, np.broadcast_to(oh, q.shape), where=above)


def prepare_limits(il: np.ndarray, ih: np.ndarray, ol: np.ndarray, oh: np.ndarray, levels: int,
                   wd: np.dtype) -> tuple:
    """What :func:`fake_quantize` derives from the limits alone (in the work dtype ``wd``): the
    limits, ``ih - il``, ``oh - ol``, the clamp bounds, the step count and the clamp plan. A
    layer's limits are the same constants run after run: :class:`FakeQuantize1` keeps this
    (tens of microseconds, as much as the kernel itself on a small tensor)."""
    il, ih, ol, oh = (np.asarray(a).astype(wd, copy=False) for a in (il, ih, ol, oh))
    steps = wd.type(levels - 1)
    with quiet():
        width, span = ih - il, oh - ol
        plan = _clip_plan(il, ih, ol, oh, width, span, steps)
        lo, hi = np.minimum(il, ih), np.maximum(il, ih)
    il, ol, oh, width, span, lo, hi = (a.reshape(())[()] if a.size == 1 else a    # one element: a
                                       for a in (il, ol, oh, width, span, lo, hi))  # NumPy scalar, faster
    return il, ol, oh, width, span, lo, hi, steps, plan


def _clip_plan(il: np.ndarray, ih: np.ndarray, ol: np.ndarray, oh: np.ndarray,
               width: np.ndarray, span: np.ndarray, steps: np.floating) -> str:
    """How the reference's clamps can be computed bit for bit: ``"clip"`` — clipping the rounded
    step ``rint((x - il) / width * steps)`` to ``[0, steps]`` gives both; ``"clip, mask the
    top"`` — it gives ``ol`` below, but the top step gives ``(oh - ol) + ol``, an ulp away from
    ``oh``, so ``x > ih`` (few values: a cheap select) is masked; ``"mask"`` — both are masked.

    With ``il < ih`` and a finite ``width``, IEEE rounding is monotonic: ``x <= il`` gives a step
    <= 0 (clipped to +-0), ``x > ih`` a step >= ``steps``, and every ``x`` between a step already
    in range. So the clip is exact where the formula gives ``ol`` from a step of +0 or -0 (not
    for ``ol == -0.0``) and ``oh`` from ``steps`` — checked here on the limits themselves. NaN
    data stays NaN either way (``np.clip`` keeps NaN)."""
    if not (np.all(il < ih) and np.all(np.isfinite(width))):
        return "mask"

    def same(q: np.ndarray, want: np.ndarray) -> bool:
        got = (q / steps * span + ol).astype(ol.dtype, copy=False)
        shape = np.broadcast_shapes(got.shape, want.shape)
        got, want = (np.ascontiguousarray(np.broadcast_to(a, shape)) for a in (got, want))
        return np.array_equal(got.view(f"u{got.dtype.itemsize}"), want.view(f"u{want.dtype.itemsize}"))
    if not all(same(np.asarray(z, ol.dtype), ol) for z in (0.0, -0.0)):
        return "mask"
    return "clip" if same(np.asarray(steps, ol.dtype), oh) else "clip, mask the top"


@register
class FakeQuantize1(Op):
    """FakeQuantize-1; see the module docstring for the rounding and what irrun refuses."""
    category = "elementwise"
    precision = Precision.INSERTED
    allocation = "inputs"        # irrun/ops/base.py: Op.allocation
    inplace = (0,)
    fresh_outputs = True

    type, version = "FakeQuantize", "opset1"
    spec = spec_url("quantization/fake-quantize-1")
    attrs = {"levels": Attr("int", required=True), "auto_broadcast": AUTO_BROADCAST}
    num_inputs = (5, 5)
    restrictions = ("floating-point data only (no f8); auto_broadcast pdpd only with limits of one "
                    "element or of the data's shape")

    def _mode(self) -> str:
        return "none" if self.auto_broadcast == "explicit" else self.auto_broadcast

    def infer(self, inputs: Sequence[TensorInfo]) -> list[TensorInfo]:
        x = inputs[0]
        if not x.etype.is_dynamic and (not x.etype.is_float or x.etype.name not in NUMERIC):
            raise unsupported(self.type, x.etype)
        if self.levels < 2:
            raise OpError(f"levels must be at least 2, got {self.levels} (OpenVINO divides by "
                          "levels - 1)", openvino_loads=True)
        merged = x.shape
        for i, lim in enumerate(inputs[1:], 1):
            if not (lim.etype.is_dynamic or x.etype.is_dynamic) and lim.etype != x.etype:
                raise OpError(f"{_LIMITS[i - 1]} is {lim.etype}, the data {x.etype} (OpenVINO accepts "
                              "it and reads the limit's bytes as the data's type)", port=f"input {i}",
                              openvino_loads=True)
            try:
                merged = broadcast_shapes(merged, lim.shape, self._mode())
            except OpError as e:
                raise OpError(e.message, port=f"input {i}") from None
            limit_shape(x.shape, lim.shape, self._mode(), f"input {i}")
        etype = next((t.etype for t in inputs if not t.etype.is_dynamic), x.etype)
        return [TensorInfo(etype, x.shape)]

    def run(self, x, *limits, out=None):
        # the limits are read-only constants, the same arrays every run: what is derived from them
        # (and the check of their shapes against this data shape) kept, ~100 us a call otherwise
        # (written out: the generic tuple/any/all form cost ~2 us a call, a tenth of a small FakeQuantize)
        kept = self.__dict__.get("_prepared")
        if kept is not None and kept[0] == x.shape and kept[1] == x.dtype:
            il, ih, ol, oh = limits
            k_il, k_ih, k_ol, k_oh = kept[2]
            if il is k_il and ih is k_ih and ol is k_ol and oh is k_oh and not (
                    il.flags.writeable or ih.flags.writeable or ol.flags.writeable or oh.flags.writeable):
                return [quantize_prepared(x, kept[3], out)]
        data = PartialShape(x.shape)
        views = [lim.reshape(limit_shape(data, PartialShape(lim.shape), self._mode(), f"input {i}"))
                 for i, lim in enumerate(limits, 1)]
        prepared = prepare_limits(*views, self.levels, work_dtype(x.dtype))
        if not any(a.flags.writeable for a in limits):
            self.__dict__["_prepared"] = (x.shape, x.dtype, limits, prepared)
        return [quantize_prepared(x, prepared, out)]
