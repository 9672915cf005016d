"""Error metrics between a candidate tensor and a reference one, accumulated over runs.

One :class:`ErrorStats` per (layer, port) sums what the metrics need — squared error, squared
norms, the dot product, the largest absolute error — so that a stateful LLM's prefill and decode
steps (different shapes) add up to one number per layer without keeping their arrays:

* relative L2 error ``||c - r|| / ||r||`` (0 when both are 0, inf when only r is 0 or a value
  is not finite where the other is);
* SNR in dB, ``-20 log10(relative L2)``;
* cosine similarity ``<c, r> / (||c|| ||r||)``;
* max absolute error.

Values are compared in float64. NaN against NaN and an infinity against the same infinity agree
(they are counted in ``nonfinite`` only when the two sides differ).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


@dataclass
class ErrorStats:
    err2: float = 0.0          # sum of (c - r)^2 over finite pairs
    ref2: float = 0.0          # sum of r^2
    cand2: float = 0.0         # sum of c^2
    dot: float = 0.0           # sum of c * r
    max_abs: float = 0.0
    size: int = 0
    nonfinite: int = 0         # positions where one side is NaN/Inf and the other is not the same

    def add(self, cand: np.ndarray, ref: np.ndarray) -> None:
        """Accumulate one pair of same-shaped arrays (any numeric dtype)."""
        c = np.asarray(cand, dtype=np.float64).reshape(-1)
        r = np.asarray(ref, dtype=np.float64).reshape(-1)
        self.size += c.size
        fin = np.isfinite(c) & np.isfinite(r)
        if not fin.all():
            same = (c == r) | (np.isnan(c) & np.isnan(r))
            self.nonfinite += int(np.count_nonzero(~fin & ~same))
            c, r = c[fin], r[fin]
        if c.size == 0:
            return
        d = c - r
        self.err2 += float(d @ d)
        self.ref2 += float(r @ r)
        self.cand2 += float(c @ c)
        self.dot += float(c @ r)
        self.max_abs = max(self.max_abs, float(np.abs(d).max()))

    def merge(self, other: ErrorStats) -> None:
        for f in ("err2", "ref2", "cand2", "dot", "size", "nonfinite"):
            setattr(self, f, getattr(self, f) + getattr(other, f))
        self.max_abs = max(self.max_abs, other.max_abs)

    @property
    def rel_l2(self) -> float:
        if self.nonfinite:
            return math.inf
        if self.err2 == 0.0:
            return 0.0
        return math.sqrt(self.err2 / self.ref2) if self.ref2 > 0 else math.inf

    @property
    def snr_db(self) -> float:
        rel = self.rel_l2
        return math.inf if rel == 0 else -math.inf if math.isinf(rel) else -20.0 * math.log10(rel)

    @property
    def cosine(self) -> float:
        if self.nonfinite:
            return math.nan
        if self.ref2 == 0.0 and self.cand2 == 0.0:
            return 1.0
        if self.ref2 == 0.0 or self.cand2 == 0.0:
            return 0.0
        return max(-1.0, min(1.0, self.dot / math.sqrt(self.ref2 * self.cand2)))

    @property
    def max_error(self) -> float:
        """Max absolute error; inf when a value is non-finite on one side only."""
        return math.inf if self.nonfinite else self.max_abs

    def as_dict(self) -> dict:
        """JSON-ready: infinities and NaN as strings (JSON has neither)."""
        return {"rel_l2": _num(self.rel_l2), "snr_db": _num(self.snr_db), "cosine": _num(self.cosine),
                "max_abs": _num(self.max_error), "nonfinite": self.nonfinite, "values": self.size}


def worst(stats: list[ErrorStats]) -> ErrorStats:
    """The port with the largest relative error (a layer's figure is its worst output's)."""
    return max(stats, key=lambda s: (s.rel_l2, s.max_abs)) if stats else ErrorStats()


def comparable(a: np.ndarray, b: np.ndarray) -> bool:
    """Same shape and both numeric (floats, ints, bools, ml_dtypes floats)."""
    return a.shape == b.shape and _numeric(a) and _numeric(b)


def _numeric(a: np.ndarray) -> bool:
    return a.dtype.kind in "fiub" or (a.dtype.kind == "V" and a.dtype.itemsize <= 2) \
        or a.dtype.name.startswith(("bfloat", "float"))


def _num(x: float):
    return x if math.isfinite(x) else str(x)


def fmt_rel(x: float) -> str:
    return "0" if x == 0 else "inf" if math.isinf(x) else f"{x:.2e}"


def fmt_db(x: float) -> str:
    return "inf" if x == math.inf else "-inf" if x == -math.inf else f"{x:.1f}"
