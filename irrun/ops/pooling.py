"""MaxPool-1/8/14, AvgPool-1/14/16 (the adaptive pools are in adaptive_pool.py).

Vectorised as one pass per kernel offset: the element at that offset of every window is a strided
slice of the padded input, combined element-wise (running maximum and its offset, running sum).
Measured on OpenVINO 2026.4.1 (CPU plugin and reference evaluator agree for MaxPool; AvgPool has
no reference kernel, so the CPU plugin is the oracle):

* output size: ``floor``/``ceil`` of ``(in + pads - dilated kernel) / stride`` + 1, and ``ceil``
  keeps a last window that starts in the end padding; ``ceil_torch`` (v14) drops it, PyTorch's
  rule ``(out-1)*stride >= in + pads_begin``. Interval dims map bound by bound, lower bounds
  never below 1; same_upper/same_lower over a non-static dim give ``?``.
* MaxPool: padding never wins; a window entirely in the padding yields the type's lowest value
  (-FLT_MAX, not -inf) and the index of its (n, c) spatial origin. NaN never wins either, and
  -inf counts as the lowest value (a window of NaN and -inf gives -FLT_MAX): OpenVINO's loop is
  ``if (v > max) max = v`` from the lowest value (measured, CPU and reference alike). Indices count in the input
  flattened from ``axis`` on; ties give the first position in the window (row-major).
* AvgPool: exclude-pad divides by the window's elements inside the input; include-pad divides by
  the whole kernel (kernel product, not its dilated extent) as soon as any pad is non-zero —
  even for windows that run past the end padding in ceil mode — and, with no padding at all, by
  the elements inside the input. A ceil-mode window beyond the input and its padding, with
  exclude-pad, gives NaN or -0.0 as on the CPU plugin (it divides 0 by ``min(end, n) -
  max(start, 0)``); integers are averaged in f64 and rounded to nearest, ties to even.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import OpError
from ..types.elements import TYPES
from ..types.shapes import DYN, Dim, PartialShape
from ._numerics import compute_dtype, require_numeric
from ._window import AUTO_PAD, check_kernel_fits, pad_spatial, resolve_pads, window_dim, windows
from .base import Attr, Op, TensorInfo, normalize_axis, spec_url
from .registry import register

_ROUNDING = ("floor", "ceil")
_ROUNDING_14 = ("floor", "ceil", "ceil_torch")


class _Pool(Op):
    """Shape rule and window geometry shared by MaxPool and AvgPool."""
    category = "spatial"

    num_inputs = (1, 1)

    @property
    def exclude_pad(self) -> bool:
        """Are pads left out of an average (AvgPool's ``exclude-pad``)?"""
        return False

    @property
    def dils(self) -> list[int]:
        return list(getattr(self, "dilations", None) or [1] * len(self.kernel))

    def check_attrs(self, data: PartialShape) -> int:
        n = len(self.kernel)
        for name, v in (("pads_begin", self.pads_begin), ("pads_end", self.pads_end)):
            if v and len(v) != n:
                raise OpError(f"Expected {name} size to be equal to input size - 2. Got: {len(v)}")
        if data.rank is not None and data.rank not in (3, 4, 5):
            raise OpError(f"Expected a 3D, 4D or 5D tensor for the input. Got: {data}", port="input 0")
        if len(self.strides) != n:
            raise OpError(f"Expected strides size to be equal to input size - 2. Got: {len(self.strides)}")
        if len(self.dils) != n:
            raise OpError(f"Expected dilations size to be equal to kernel size. Got: {len(self.dils)}")
        if data.rank is not None and n != data.rank - 2:
            raise OpError(f"Expected kernel size to be equal to input size - 2. Got: {n}")
        if 0 in self.strides:
            raise OpError(f"Strides has zero dimension(s). Strides{{{', '.join(map(str, self.strides))}}}")
        if 0 in self.dils:
            raise OpError(f"Kernel dilations has zero dimension(s). Strides{{{', '.join(map(str, self.dils))}}}")
        if any(v < 0 for v in (*self.strides, *self.dils, *self.kernel, *self.pads_begin, *self.pads_end)):
            raise OpError("kernel, strides, dilations and pads must not be negative")
        return n

    def geometry(self, shape: PartialShape) -> tuple[list[int], list[int], list[Dim]]:
        """(pads_begin, pads_end, output spatial dims) for a data shape of known rank."""
        dims = list(shape)[2:]
        ext = [(k - 1) * d + 1 for k, d in zip(self.kernel, self.dils)]
        pb, pe = resolve_pads(self.auto_pad, dims, ext, self.strides, self.pads_begin, self.pads_end)
        auto = self.auto_pad in ("same_upper", "same_lower")
        out = []
        for i, (d, k, s) in enumerate(zip(dims, ext, self.strides)):
            if auto and not d.is_static:
                out.append(DYN)
                continue
            if d.is_static:
                check_kernel_fits(d.lo, pb[i] + pe[i], k, i)
                if self.exclude_pad and (pb[i] >= k or pe[i] >= k):
                    raise OpError(f"Kernel after dilation is sometimes entirely in the padding area for axis "
                                  f"{i} (dilated kernel dimension: {k}, padding below dimension: {pb[i]}, "
                                  f"padding above dimension: {pe[i]}) and this is not allowed.")
            out.append(window_dim(d, pb[i] + pe[i], Dim(k, k), s, self.rounding_type, pb[i]))
        return pb, pe, out

    def out_shape(self, info: TensorInfo) -> PartialShape:
        require_numeric(info, self.type)
        data = info.shape
        n = self.check_attrs(data)
        if data.rank is None:
            return PartialShape.dynamic(n + 2)
        for d, what in ((data[0], "Batch size"), (data[1], "Channel count")):
            if d == Dim(0, 0):
                raise OpError(f"{what} is zero.", port="input 0")
        return PartialShape([data[0], data[1], *self.geometry(data)[2]])

    def layout(self, shape: tuple[int, ...]) -> _Layout:
        """The window geometry for one input shape, worked out once per shape: a small layer
        (landmarks-regression's [1, 64, 12, 12] MaxPool) spent ~40 us per call in this
        arithmetic (PartialShape, pads, output dims, slices) against ~10 us of NumPy work."""
        memo = self.__dict__.setdefault("_layouts", {})
        found = memo.get(shape)
        if found is not None:
            return found
        pb, pe, dims = self.geometry(PartialShape(shape))
        out = [o.lo for o in dims]
        ext = [(k - 1) * d + 1 for k, d in zip(self.kernel, self.dils)]
        end = [max((o - 1) * s + e - n - b, 0) for o, s, e, n, b in zip(out, self.strides, ext, shape[2:], pb)]
        offsets = [(slice(None), slice(None)) + tuple(slice(k * d, k * d + (o - 1) * s + 1, s)
                                                      for k, d, o, s in zip(kk, self.dils, out, self.strides))
                   for kk in np.ndindex(*self.kernel)]
        taps, windows_count = math.prod(self.kernel), math.prod(out)
        by_axis = None
        if len(self.kernel) > 1 and taps > sum(self.kernel) + 1:
            by_axis = [[(slice(None),) * (2 + i) + (slice(k * d, k * d + (o - 1) * s + 1, s),)
                        for k in range(kernel)]
                       for i, (kernel, d, o, s) in enumerate(zip(self.kernel, self.dils, out, self.strides))]
        if len(memo) >= 16:             # (a model whose shapes change every run)
            memo.clear()
        found = memo[shape] = _Layout(pb, pe, out, end, offsets, windows_count > 0 and taps >= 8 * windows_count,
                                      by_axis)
        return found

    def padded(self, x: np.ndarray, fill) -> tuple[np.ndarray, list[int], list[int], list[int]]:
        """(``x`` padded with ``fill`` as far as the windows reach, pads_begin, pads_end, output sizes)."""
        lay = self.layout(x.shape)
        if any(lay.pads_begin) or any(lay.pads_end_used):
            x = pad_spatial(x, lay.pads_begin, lay.pads_end_used, fill)
        return x, lay.pads_begin, lay.pads_end, lay.out

    def window_view(self, shape: tuple[int, ...], xp: np.ndarray) -> np.ndarray | None:
        """A view ``[N, C, *out, *kernel]`` of ``xp``, the input of ``shape`` padded, when the windows are few and wide
        (global pooling: face-reidentification-retail-0095's 32x32 AvgPool over a 32x32 map), else
        None. One reduction over the kernel axes then replaces one pass per kernel offset: 1024
        ufunc calls over [1, 64, 1, 1] slabs took ~3 ms, the reduction ~15 us. For many small
        windows (2x2, 3x3 over a big map) the per-offset passes stay faster — NumPy's reduction
        runs an inner loop per window — hence the ratio below (measured, kernel 4x4 over 16x16
        windows: reduction 10x slower; 7x7 over one window: 3x faster): taps >= 8 x windows."""
        lay = self.layout(shape)
        return windows(xp, self.kernel, self.strides, self.dils, lay.out) if lay.wide else None

    def taps(self, x: np.ndarray, fill, masks: bool = True,
             padded: tuple | None = None) -> tuple[list, list[int], list[int], list[int]]:
        """The window geometry over ``x`` padded with ``fill``: a list of ``(slab, valid)`` per
        kernel offset (row-major) — ``slab`` [N, C, *out] is the strided view of the element at
        that offset of every window, ``valid`` [*out] says which of them lie inside the input
        (None without ``masks``) — plus pads_begin, pads_end and the output sizes. ``padded``:
        :meth:`padded`'s result when the caller has it already."""
        xp, pb, pe, out = self.padded(x, fill) if padded is None else padded
        valid_masks = self.valid_masks(x.shape[2:], pb, out) if masks else None
        nsp = len(out)
        result = []
        for kk, sl in zip(np.ndindex(*self.kernel), self.layout(x.shape).offsets):
            valid = None
            if valid_masks is not None:
                valid = np.array(True)
                for i, (m, k) in enumerate(zip(valid_masks, kk)):
                    valid = valid & m[:, k].reshape([-1 if j == i else 1 for j in range(nsp)])
            result.append((xp[sl], valid))
        return result, pb, pe, out

    def valid_masks(self, shape: Sequence[int], pb: Sequence[int], out: Sequence[int]) -> list[np.ndarray]:
        """Per axis: ``[out_i, kernel_i]`` booleans, window element inside the input."""
        masks = []
        for n, b, o, s, k, d in zip(shape, pb, out, self.strides, self.kernel, self.dils):
            c = np.arange(o)[:, None] * s - b + np.arange(k)[None, :] * d
            masks.append((c >= 0) & (c < n))
        return masks


@dataclass(frozen=True)
class _Layout:
    """:meth:`_Pool.layout`: pads (``pads_end_used``: what the last window needs), output sizes,
    the index of every kernel offset's slab in the padded input (row-major), whether the
    windows are few and wide enough for one reduction (:meth:`_Pool.window_view`), and for a
    kernel with more offsets than the sum of its sizes (3x3, 5x5) the slabs of one spatial axis
    at a time (``by_axis``: a maximum taken axis by axis, ``sum(kernel)`` passes, not
    ``prod(kernel)``)."""
    pads_begin: list[int]
    pads_end: list[int]
    out: list[int]
    pads_end_used: list[int]
    offsets: list[tuple]
    wide: bool
    by_axis: list[list[tuple]] | None


def _lowest(dtype: np.dtype):
    if dtype == np.bool_:
        return False
    if dtype.kind in "iu":
        return np.iinfo(dtype).min
    return np.finfo(dtype).min if dtype.kind == "f" else -np.inf


def lift_lowest(best: np.ndarray, lowest) -> np.ndarray:
    """``np.fmax(best, lowest)`` in place: NaN and -inf become the type's lowest value, as
    OpenVINO's ``max = lowest; if (v > max) max = v`` gives them. Done once on the window
    maxima, not on the first kernel offset: a running np.fmax ignores NaN (unless both are
    NaN) and never turns a value above ``lowest`` into another one, so lifting first or last
    gives the same bits (zeros' signs included: every tie of two zeros meets the same
    ``np.fmax(part, slab, out=part)`` call as before — NumPy's choice between them depends on
    the loop it takes; tests/ops/test_pooling.py checks it bit for bit). np.fmax with a scalar runs NumPy's
    unvectorised loop (~0.5 ns an element, 3x an array-array pass), so when the minimum (NaN
    if any) is above ``lowest`` — nothing to lift, the usual case — one reduction replaces it."""
    if best.dtype.kind != "f" or best.size == 0:
        return best                 # integers and booleans: nothing lies below the lowest value
    if not best.min() > lowest:
        np.fmax(best, lowest, out=best)
    return best


_POOL_ATTRS = {
    "strides": Attr("ints", required=True),
    "pads_begin": Attr("ints", required=True),
    "pads_end": Attr("ints", required=True),
    "kernel": Attr("ints", required=True),
    "auto_pad": Attr("enum", "explicit", choices=AUTO_PAD),
}


@register
class MaxPool1(_Pool):
    """The window maximum; one output. Padding never contributes (see the module notes)."""

    type, version = "MaxPool", "opset1"
    spec = spec_url("pooling/max-pool-1")
    attrs = dict(_POOL_ATTRS, rounding_type=Attr("enum", "floor", choices=_ROUNDING))

    def infer(self, inputs):
        (x,) = inputs
        return [TensorInfo(x.etype, self.out_shape(x))]

    fresh_outputs = True

    def maxima(self, x: np.ndarray) -> np.ndarray | None:
        """The window maxima as OpenVINO computes them (``max = lowest; if (v > max) max = v``
        over the window): NaN never wins and -inf gives the lowest finite value. A running
        np.fmax from the lowest value, one in-place pass per kernel offset; None for types
        np.fmax does not take (bf16, f8), which :meth:`pool` handles."""
        if x.dtype.kind not in "fiub":
            return None
        lowest = x.dtype.type(_lowest(x.dtype))
        padded = self.padded(x, lowest)
        win = self.window_view(x.shape, padded[0])
        if win is not None:
            return lift_lowest(np.fmax.reduce(win, axis=tuple(range(-len(self.kernel), 0))), lowest)
        lay = self.layout(x.shape)
        best = padded[0]
        # a maximum is exact, so one axis at a time (YOLO's SPPF 5x5: 10 passes, not 25) gives
        # the same bits; NaN and -inf are lifted to the lowest value once, at the end (lift_lowest)
        for axis_offsets in lay.by_axis or [lay.offsets]:
            part = best[axis_offsets[0]].copy()
            for offset in axis_offsets[1:]:
                np.fmax(part, best[offset], out=part)
            best = part
        return lift_lowest(best, lowest)

    def offsets(self, x: np.ndarray, best: np.ndarray) -> tuple[np.ndarray, list[int], list[int]]:
        """(kernel offset (row-major) of each window's maximum, pads_begin, output sizes) given
        the maxima ``best`` from :meth:`maxima`: the first input element equal to the maximum.
        That is OpenVINO's ``if (v > max)`` loop from the lowest value: it stops moving at the
        first occurrence of the final maximum; a window with nothing above the lowest value
        (NaN, -inf, padding) keeps offset 0 (as :meth:`pool`). One comparison and one masked
        store per kernel offset, last offset first so that the first occurrence is written
        last; few wide windows take one comparison over ``[N, C, *out, *kernel]`` and argmax."""
        lowest = x.dtype.type(_lowest(x.dtype))
        padded = self.padded(x, lowest)
        xp, pb, pe, out = padded
        nsp = len(out)
        no_padding = xp.shape == x.shape
        win = self.window_view(x.shape, xp) if no_padding else None
        if win is not None:
            hits = (win == best.reshape(best.shape + (1,) * nsp)).reshape(best.shape + (-1,))
            return np.argmax(hits, axis=-1), pb, out
        arg = np.zeros(best.shape, np.int64)
        taps = self.taps(x, lowest, masks=not no_padding, padded=padded)[0]
        for k in range(len(taps) - 1, -1, -1):
            slab, valid = taps[k]
            hit = slab == best
            if valid is not None:
                hit &= valid
            np.copyto(arg, k, where=hit)
        return arg, pb, out

    def pool(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray, list[int], list[int]]:
        """(maxima, kernel offset of each maximum (row-major), pads_begin, output sizes): one pass
        of element-wise updates per kernel offset. The first maximum in the window wins; padding
        (the type's lowest value) never wins a tie against an input element."""
        taps, pb, _, out = self.taps(x, _lowest(x.dtype))
        best, best_valid = taps[0][0].copy(), np.broadcast_to(taps[0][1], taps[0][0].shape)
        arg = np.zeros(best.shape, np.int64)
        for k, (slab, valid) in enumerate(taps[1:], start=1):
            take = (slab > best) | ((slab == best) & valid & ~best_valid)
            best = np.where(take, slab, best)
            best_valid = take & valid | ~take & best_valid
            arg = np.where(take, k, arg)
        return best, arg, pb, out

    def run(self, x):
        best = self.maxima(x)
        return [self.pool(x)[0] if best is None else best]


@register
class MaxPool8(MaxPool1):
    """Adds ``dilations`` and a second output: the index of each maximum in the input flattened
    from dimension ``axis`` on (``index_element_type`` i32 or i64)."""

    version = "opset8"
    spec = spec_url("pooling/max-pool-8")
    attrs = dict(_POOL_ATTRS, dilations=Attr("ints", []), rounding_type=Attr("enum", "floor", choices=_ROUNDING),
                 axis=Attr("int", 0), index_element_type=Attr("etype", TYPES["i64"]))

    def infer(self, inputs):
        (x,) = inputs
        if self.index_element_type.name not in ("i32", "i64"):
            raise OpError(f"index_element_type must be i32 or i64, got {self.index_element_type}")
        shape = self.out_shape(x)
        if x.shape.rank is not None:
            normalize_axis(self.axis, x.shape.rank)
        return [TensorInfo(x.etype, shape), TensorInfo(self.index_element_type, shape)]

    lazy_outputs = (1,)

    def run(self, x, skip=frozenset()):
        best = self.maxima(x)
        if 1 in skip:           # nobody reads the indices: the maxima alone, and a placeholder
            best = self.pool(x)[0] if best is None else best
            return [best, np.broadcast_to(np.zeros((), self.index_element_type.dtype), best.shape)]
        if best is None:
            vals, arg, pb, out = self.pool(x)
        else:
            vals = best
            arg, pb, out = self.offsets(x, best)
        base, table, found = self.index_parts(x.shape, pb, out)
        step = table[arg]
        if found is not None:           # a window with no input element points at spatial origin
            step *= found
        step += base
        return [vals, step.astype(self.index_element_type.dtype, copy=False)]

    def index_parts(self, shape: tuple[int, ...], pb: Sequence[int], out: Sequence[int]
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        """What an index is made of, once per input shape: ``base`` [N|1, C|1, *out], the
        index (flattened from ``axis`` on) of each window's origin (spatial origin for a window
        with no input element); ``table[k]``, how far kernel offset ``k`` (row-major) moves
        the index; ``found``, which windows hold an input element (None: all of them). The
        index is then ``base + found * table[offset]``: two passes over the output instead of
        one ``where`` and a multiply-add per dimension."""
        memo = self.__dict__.setdefault("_index_parts", {})
        parts = memo.get(shape)
        if parts is not None:
            return parts
        axis = normalize_axis(self.axis, len(shape))
        nsp = len(out)
        found = np.array(True)
        for i, m in enumerate(self.valid_masks(shape[2:], pb, out)):
            found = found & m.any(axis=1).reshape([-1 if j == i else 1 for j in range(nsp)])
        per_dim = np.cumprod((1,) + shape[:0:-1])[::-1]              # elements per step of each dim
        base = np.zeros((1,) * (2 + nsp), np.int64)
        table = np.zeros(self.kernel, np.int64)
        for dim in range(axis, len(shape)):
            along = [-1 if j == dim else 1 for j in range(2 + nsp)]
            if dim < 2:
                base = base + np.arange(shape[dim]).reshape(along) * int(per_dim[dim])
                continue
            i = dim - 2
            origin = np.arange(out[i]) * self.strides[i] - pb[i]
            base = base + np.where(found, origin.reshape(along[2:]), 0) * int(per_dim[dim])
            table = table + (np.arange(self.kernel[i]) * self.dils[i] * int(per_dim[dim])).reshape(
                [-1 if j == i else 1 for j in range(nsp)])
        if len(memo) >= 16:
            memo.clear()
        parts = memo[shape] = (base, table.reshape(-1), None if found.all() else found)
        return parts


@register
class MaxPool14(MaxPool8):
    """Adds ``rounding_type="ceil_torch"``."""

    version = "opset14"
    spec = spec_url("pooling/max-pool-14")
    attrs = dict(MaxPool8.attrs, rounding_type=Attr("enum", "floor", choices=_ROUNDING_14))


@register
class AvgPool1(_Pool):
    """The window mean; divisor rules in the module notes. f16/bf16 are averaged in f32."""

    type, version = "AvgPool", "opset1"
    spec = spec_url("pooling/avg-pool-1")
    attrs = dict(_POOL_ATTRS, rounding_type=Attr("enum", "floor", choices=_ROUNDING),
                 **{"exclude-pad": Attr("bool", False, required=True)})

    @property
    def exclude_pad(self) -> bool:
        return getattr(self, "exclude-pad")

    def infer(self, inputs):
        (x,) = inputs
        return [TensorInfo(x.etype, self.out_shape(x))]

    def divisors(self, spatial: Sequence[int], pb: Sequence[int], pe: Sequence[int], out: Sequence[int]) -> np.ndarray:
        """What each window's sum is divided by (broadcasting over the output's spatial dims; the
        module doc's rules). Also the ONNX export's (irrun.export.nn), so both divide alike."""
        nsp = len(out)
        if not self.exclude_pad and (any(pb) or any(pe)):
            return np.asarray(float(math.prod(self.kernel)))
        div = np.array(1.0)
        for i, m in enumerate(self.valid_masks(spatial, pb, out)):
            count = m.sum(axis=1)
            # no input element on this axis: OpenVINO's CPU divides by min(end, n) - max(start, 0)
            # (<= 0), so such windows give NaN (0/0) or -0.0, as it does
            start = np.arange(out[i]) * self.strides[i] - pb[i]
            end = start + (self.kernel[i] - 1) * self.dils[i] + 1
            count = np.where(count > 0, count, np.minimum(end, spatial[i]) - np.maximum(start, 0))
            div = div * count.reshape([-1 if j == i else 1 for j in range(nsp)])
        return div

    def run(self, x):
        acc = np.dtype(np.float64) if x.dtype.kind in "iub" else compute_dtype(x.dtype)
        padded = self.padded(x.astype(acc, copy=False), 0)
        _, pb, pe, out = padded
        nsp = len(out)
        win = self.window_view(x.shape, padded[0])
        if win is not None:         # (summed in another order than the passes: fine for a mean)
            sums = np.add.reduce(win, axis=tuple(range(-nsp, 0)))
        else:
            xp, offsets = padded[0], self.layout(x.shape).offsets
            sums = xp[offsets[0]].copy()
            for offset in offsets[1:]:
                sums += xp[offset]
        div = self.divisors(x.shape[2:], pb, pe, out)
        if x.dtype.kind in "iub":
            res = np.rint(np.where(div > 0, sums / np.where(div > 0, div, 1), 0))
        else:
            with np.errstate(invalid="ignore", divide="ignore"):
                res = sums / div
        return [res.astype(x.dtype)]


@register
class AvgPool14(AvgPool1):
    """Adds ``rounding_type="ceil_torch"``."""

    version = "opset14"
    spec = spec_url("pooling/avg-pool-14")
    attrs = dict(AvgPool1.attrs, rounding_type=Attr("enum", "floor", choices=_ROUNDING_14))


@register
class AvgPool16(AvgPool14):
    """Adds ``dilations``."""

    version = "opset16"
    spec = spec_url("pooling/avg-pool-16")
    attrs = dict(AvgPool14.attrs, dilations=Attr("ints", []))
