"""Numerics many ops share: which element types irrun computes on, the dtype float math runs in,
blockwise float math, rounding helpers and erf; the refusal message for the other types; the
floating-point error state a run holds once for all its kernels (:func:`quiet_run`).

Measured on OpenVINO 2026.4.1's reference evaluator (see the op modules that use them): f16/bf16
compute in f32 and round once; kernels accumulate in f32 (or the input's wider float type).
"""
from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from contextvars import ContextVar
from functools import cache

import ml_dtypes
import numpy as np

from ..errors import OpError
from ..limits.parallel import run_all
from ..types.elements import ElementType
from ..types.tensor_info import TensorInfo

_BF16 = np.dtype(ml_dtypes.bfloat16)


#: Element types irrun computes math on (the others are refused with "irrun does not support").
NUMERIC = frozenset({"f64", "f32", "f16", "bf16", "i64", "i32", "i16", "i8", "u64", "u32", "u16", "u8"})


COMPUTES = "f64/f32/f16/bf16, i64..i8, u64..u8 and boolean"


#: The ``restrictions`` of every math op in irrun's support matrix.
RESTRICTION = "no f8, 4-bit or string inputs"


def unsupported(op: str, et: ElementType, port: str | None = "input 0") -> OpError:
    """The refusal of an element type OpenVINO may accept but irrun does not compute on."""
    return OpError(f"irrun does not support {op} on {et} (it computes on {COMPUTES})", port=port,
                   unsupported=True)


def check_float(op: str, et: ElementType, message: str) -> None:
    """A floating-point input irrun computes on: ``message`` (formatted with the type) for any
    other, the refusal of :func:`unsupported` for a float type irrun does not compute on."""
    if not et.is_dynamic and not et.is_float:
        raise OpError(message.format(et), port="input 0")
    if not et.is_dynamic and et.name not in NUMERIC:
        raise unsupported(op, et)


_QUIET: ContextVar[bool] = ContextVar("irrun_fp_quiet", default=False)
_NO_CHANGE = nullcontext()


def quiet() -> "np.errstate | nullcontext":
    """``np.errstate(all="ignore")`` for a kernel's float math (OpenVINO's silent IEEE results),
    or nothing where :func:`quiet_run` holds one already: entering an errstate costs a few
    microseconds, about what a small element-wise kernel costs, at every call."""
    return _NO_CHANGE if _QUIET.get() else np.errstate(all="ignore")


@contextmanager
def quiet_run() -> Iterator[None]:
    """One ``np.errstate(all="ignore")`` around a whole run (irrun.runtime.loop), which the kernels'
    :func:`quiet` then reuse."""
    with np.errstate(all="ignore"):
        token = _QUIET.set(True)
        try:
            yield
        finally:
            _QUIET.reset(token)


def work_dtype(dtype: np.dtype) -> np.dtype:
    """The dtype float math runs in: f32 for f16/bf16, else the input's own."""
    if dtype.kind in "iub" or dtype.kind == "f" and dtype.itemsize > 2:     # (the common case, early)
        return dtype
    return np.dtype(np.float32) if dtype.kind == "V" or dtype == np.float16 or dtype.name == "bfloat16" \
        else dtype


#: Elements per block of :func:`float_math`: blocks stay in the CPU cache across the many NumPy
#: passes of a composite function (erf, Gelu: ~40 passes), 3-6x faster than whole-array passes.
#: 128K elements (512 KiB of f32, within a core's L2): each pass costs about a microsecond per
#: block beside its work, and on irrun's pool every pass hands the GIL over. Measured on
#: [1, 96, 112, 112] f32 (median ms, 1 thread / 2 threads), 32K blocks -> 128K: HSwish 1.00/1.60
#: -> 0.75/0.67, Sigmoid 1.26/1.30 -> 1.13/0.77, Swish 1.32/1.80 -> 1.10/0.78, PRelu 0.58/0.93
#: -> 0.44/0.45, Gelu 5.1/5.4 -> 4.6/2.8 (32K blocks ran slower on 2 threads than on 1).
BLOCK = 1 << 17


def float_math(fn: Callable[..., np.ndarray], x: np.ndarray, *others: np.ndarray,
               blocks: bool = True, out: np.ndarray | None = None, into: bool = False) -> np.ndarray:
    """``fn(x, *others)`` computed in :func:`work_dtype`, the result in ``x``'s dtype (one
    rounding for f16/bf16). With ``blocks`` (``fn`` is element-wise) and ``others`` that
    broadcast to ``x``'s shape (scalars, per-channel limits, a PRelu slope), it runs block by
    block, each ``other`` cut to the block's part, spread over irrun's threads
    (:mod:`irrun.limits.parallel`; bit-identical at any thread count), writing into ``out`` when
    that is given (an array of ``x``'s shape and dtype, possibly ``x`` itself: each block is read
    before it is written). With ``into``, ``fn`` takes ``out=`` and writes its result there; where
    ``x`` is already in the work dtype (f32, f64) each block then goes straight into the result,
    with no copy of it (a composite like Gelu's ~30 passes keeps its temporaries in the cache and
    writes once). Floating-point warnings are OpenVINO's silent IEEE results (inf, NaN), as in
    OpenVINO."""
    dt, wd = x.dtype, work_dtype(x.dtype)
    extra = [np.asarray(a).astype(wd, copy=False) for a in others]

    direct = into and wd == dt

    def apply(v: np.ndarray, *rest: np.ndarray, dst: np.ndarray | None = None) -> np.ndarray:
        if direct:
            return fn(v, *rest, out=dst)
        res = np.asarray(fn(v.astype(wd, copy=False), *rest)).astype(dt, copy=False)
        if dst is None:
            return res
        dst[...] = res
        return dst

    with quiet():
        if not blocks or x.size <= BLOCK or not all(broadcasts_to(a.shape, x.shape) for a in extra):
            return apply(x, *extra, dst=out if direct and fits(out, x) else None)
        if not fits(out, x):
            out = np.empty(x.shape, dt)
        assert out is not None

        aligned = [a.reshape((1,) * (x.ndim - a.ndim) + a.shape) for a in extra]

        def one(where: tuple[slice, ...]) -> None:
            apply(x[where], *(part(a, where) for a in aligned), dst=out[where])
        run_all(one, block_slices(x.shape, BLOCK), x.size)
        return out


def broadcasts_to(shape: tuple[int, ...], target: tuple[int, ...]) -> bool:
    """Does an array of ``shape`` broadcast to ``target`` without growing it (NumPy rules)?"""
    return len(shape) <= len(target) and all(
        s in (1, t) for s, t in zip(shape[::-1], target[::-1]))


def block_slices(shape: tuple[int, ...], target: int) -> list[tuple[slice, ...]]:
    """Index tuples cutting an array of ``shape`` into blocks of about ``target`` elements (at
    least one row of the innermost axis), in memory order, along the outer axes: the leading
    axes are walked one index at a time while what lies below them is bigger than ``target``."""
    if not shape:
        return [()]
    inner = math.prod(shape[1:])
    if inner > target and len(shape) > 1:
        return [(slice(i, i + 1),) + rest for i in range(shape[0])
                for rest in block_slices(shape[1:], target)]
    step = max(1, target // max(inner, 1))
    return [(slice(i, i + step),) for i in range(0, shape[0], step)]


def part(a: np.ndarray, where: tuple[slice, ...]) -> np.ndarray:
    """The part of ``a`` (of the data's rank, broadcasting to it) that meets the block ``where``
    of the data: sliced along the axes it has in full, whole along its axes of length 1."""
    return a[tuple(w if n != 1 else slice(None) for w, n in zip(where, a.shape))]


def fits(out: np.ndarray | None, like: np.ndarray) -> bool:
    """Can a kernel write its result for ``like`` into ``out`` (the buffer the planner offers for
    in-place execution, :attr:`irrun.ops.base.Op.inplace`)?"""
    return out is not None and out.shape == like.shape and out.dtype == like.dtype and out.flags.writeable


#: NumPy's clip ufunc itself, for the hot element-wise kernels (ReLU, Clamp, FakeQuantize): np.clip
#: is a Python wrapper around it (argument checks, ndarray.clip, numpy's _methods._clip) costing
#: ~2-3 us a call, as much as the pass itself on the small activations of tiny models (measured
#: 7.7 vs 9.7 us on 64K f32). The same ufunc, so the same bits (:func:`clip_is_clamp` probes it).
CLIP: Callable[..., np.ndarray] = getattr(getattr(getattr(np, "_core", None), "umath", None), "clip", None) \
    or np.clip

#: Float types the fast kernels compute in directly (others go through :func:`float_math`).
DIRECT = (np.dtype(np.float32), np.dtype(np.float64))


@cache
def ties_keep_second(dtype: np.dtype) -> bool:
    """Do np.maximum and np.minimum return their second operand for a tie of 0.0 and -0.0 on
    this NumPy build (checked once per dtype over SIMD widths, loop tails, strides and in-place
    use)? Then ``np.maximum(lo, x)`` is exactly OpenVINO's ``x < lo ? lo : x``, -0.0 kept, with
    no extra pass (:func:`zero_signs` otherwise)."""
    ok = True
    for zero in (0.0, -0.0):
        s = np.asarray(zero, dtype)
        for n in (1, 3, 7, 8, 15, 16, 17, 31, 33, 64, 100, 1000):
            x = np.full(2 * n, -zero, dtype)
            for v in (x[:n], x[::2]):
                for f in (np.maximum, np.minimum):
                    ok &= bool((np.signbit(f(s, v)) == np.signbit(v)).all())
                    w = v.copy()
                    ok &= bool((np.signbit(f(s, w, out=w)) == np.signbit(v)).all())
    return ok


#: Values :func:`clip_is_clamp` clips: NaNs of both signs and a payload, zeros of both signs,
#: infinities, the bounds themselves and values just inside and outside them.
_CLAMP_EDGES = (np.nan, -np.nan, 0.0, -0.0, np.inf, -np.inf, 1.0, -1.0, 6.0, -6.0, 5.99, 6.01, 1e-40,
                -1e-40, 3.0e38, -3.0e38)
_CLAMP_BOUNDS = ((0.0, 6.0), (-0.0, 6.0), (-6.0, 0.0), (-6.0, -0.0), (0.0, 0.0), (-0.0, -0.0),
                 (-0.0, 0.0), (0.0, np.inf), (-np.inf, 0.0), (-np.inf, np.inf), (1.0, 1.0))


@cache
def clip_is_clamp(dtype: np.dtype) -> bool:
    """Does ``np.clip(x, lo, hi)`` (:data:`CLIP`) give exactly OpenVINO's Clamp ``x < lo ? lo : x > hi ? hi : x``
    (NaN passed with its bits, a tie of 0.0 and -0.0 keeping ``x``'s sign) on this NumPy build?
    Checked once per dtype, bit for bit, over SIMD widths, loop tails, strides and in-place use.
    NumPy's clip is one vectorised pass (0.13 ms on 1.2M f32 where np.maximum with a scalar
    bound takes 0.44 ms), so Clamp and ReLU use it on f32/f64 wherever this holds (bf16 fails
    it: NumPy's clip returns f32 there; f16's clip holds but runs a slow scalar loop)."""
    dtype = np.dtype(dtype)
    edges = np.array(_CLAMP_EDGES, np.float64)
    with np.errstate(all="ignore"):
        edges = edges.astype(dtype)
        edges = np.concatenate([edges, np.array([0x7FC1], np.uint16).view(np.float16).astype(dtype)])
        bits = f"u{dtype.itemsize}"
        for lo, hi in _CLAMP_BOUNDS:
            lo_, hi_ = np.asarray(lo, dtype), np.asarray(hi, dtype)
            for n in (1, 3, 7, 8, 15, 16, 17, 31, 33, 64, 100):
                x = np.resize(edges, 2 * n)
                np.random.default_rng(n).shuffle(x)
                for v in (x[:n], x[1::2]):
                    want = np.where(v < lo_, lo_, np.where(v > hi_, hi_, v))
                    w = v.copy()
                    for got in (CLIP(v, lo_, hi_), CLIP(w, lo_, hi_, out=w)):
                        if got.dtype != dtype or not np.array_equal(got.view(bits), want.view(bits)):
                            return False
    return True


def zero_signs(x: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """(where ``x`` is -0.0, where it is +0.0), or None when ``x`` holds no zero. NumPy's
    maximum/minimum may return either zero for a tie of 0.0 and -0.0, where OpenVINO's
    ``x < lo ? lo : x`` keeps ``x``'s; kernels built on them put these back with
    :func:`put_zero_signs`. (Masked copies are only cheap for sparse masks, so this costs one
    comparison pass when ``x`` has no zeros.)"""
    m = x == 0
    if not m.any():
        return None
    neg = np.signbit(x) & m
    return neg, m ^ neg


def put_zero_signs(y: np.ndarray, signs: tuple[np.ndarray, np.ndarray] | None) -> np.ndarray:
    if signs is not None:
        np.copyto(y, y.dtype.type(-0.0), where=signs[0])
        np.copyto(y, y.dtype.type(0.0), where=signs[1])
    return y


def round_half_away(x: np.ndarray) -> np.ndarray:
    """C's ``std::round``: halves away from zero (``np.round`` rounds them to even)."""
    t = np.trunc(x)
    return t + np.where(np.abs(x - t) >= 0.5, np.sign(x), 0).astype(x.dtype)


_ERF_A = (3.16112374387056560e00, 1.13864154151050156e02, 3.77485237685302021e02,
          3.20937758913846947e03, 1.85777706184603153e-01)


_ERF_B = (2.36012909523441209e01, 2.44024637934444173e02, 1.28261652607737228e03,
          2.84423683343917062e03)


_ERF_C = (5.64188496988670089e-01, 8.88314979438837594e00, 6.61191906371416295e01,
          2.98635138197400131e02, 8.81952221241769090e02, 1.71204761263407058e03,
          2.05107837782607147e03, 1.23033935479799725e03, 2.15311535474403846e-08)


_ERF_D = (1.57449261107098347e01, 1.17693950891312499e02, 5.37181101862009858e02,
          1.62138957456669019e03, 3.29079923573345963e03, 4.36261909014324716e03,
          3.43936767414372164e03, 1.23033935480374942e03)


_ERF_P = (3.05326634961232344e-01, 3.60344899949804439e-01, 1.25781726111229246e-01,
          1.60837851487422766e-02, 6.58749161529837803e-04, 1.63153871373020978e-02)


_ERF_Q = (2.56852019228982242e00, 1.87295284992346047e00, 5.27905102951428412e-01,
          6.05183413124413191e-02, 2.33520497626869185e-03)


def erf(x: np.ndarray) -> np.ndarray:
    """The error function, vectorised: W. J. Cody's rational Chebyshev approximations (Math.
    Comp. 23, 1969; netlib specfun ``calerf``) in f64, about 1e-16 relative; returns f64."""
    x = np.asarray(x, dtype=np.float64)
    y = np.abs(x)
    with quiet():
        z = y * y                                        # |x| <= 0.46875: erf = x * A(z)/B(z)
        num, den = _ERF_A[4] * z, z
        for i in range(3):
            num, den = (num + _ERF_A[i]) * z, (den + _ERF_B[i]) * z
        small = x * (num + _ERF_A[3]) / (den + _ERF_B[3])
        num, den = _ERF_C[8] * y, y                      # 0.46875 < |x| <= 4: erfc*exp(x^2) = C/D
        for i in range(7):
            num, den = (num + _ERF_C[i]) * y, (den + _ERF_D[i]) * y
        mid = (num + _ERF_C[7]) / (den + _ERF_D[7])
        r = 1.0 / z                                      # |x| > 4: asymptotic P/Q in 1/x^2
        num, den = _ERF_P[5] * r, r
        for i in range(4):
            num, den = (num + _ERF_P[i]) * r, (den + _ERF_Q[i]) * r
        big = (0.5641895835477563 - r * (num + _ERF_P[4]) / (den + _ERF_Q[4])) / y
        erfc = np.where(y <= 4.0, mid, big) * np.exp(-z)
        out = np.where(y <= 0.46875, small, np.copysign(1.0 - erfc, x))
    return np.where(np.isnan(x), x, out)


@cache
def compute_dtype(dtype: np.dtype) -> np.dtype:
    """The type a kernel accumulates in: f32 for f16/bf16/f8 (as OpenVINO's CPU plugin does at f32
    inference precision), f64 for f64, int64 for integers, the type itself otherwise (cached:
    comparing with ml_dtypes' types is slow, and every MatMul asks)."""
    dtype = np.dtype(dtype)
    if dtype == np.float64:
        return dtype
    if dtype.kind == "f" or dtype == _BF16 or dtype.kind == "V" or "float" in dtype.name:
        return np.dtype(np.float32)
    if dtype.kind in "iu":
        return np.dtype(np.int64)
    return dtype


def require_numeric(info: TensorInfo, op: str, port: str = "input 0") -> None:
    """These ops compute; strings and booleans have nothing to compute with."""
    if info.etype.name in ("string", "boolean"):
        raise OpError(f"irrun does not run {op} on {info.etype} data", port=port, unsupported=True)


def same_etype(a: TensorInfo, b: TensorInfo, message: str, port: str = "input 1") -> None:
    """OpenVINO's element-type merge of two inputs (a dynamic type matches anything)."""
    if not (a.etype.is_dynamic or b.etype.is_dynamic) and a.etype != b.etype:
        raise OpError(message, port=port)
