"""Dimensions and partial shapes: static, dynamic (``?``), intervals (``a..b``) and dynamic rank.

OpenVINO's PartialShape in a few lines. A :class:`Dim` is an interval ``[lo, hi]`` of possible
sizes (``hi=None``: unbounded); it is static when ``lo == hi``. A :class:`PartialShape` is a tuple
of Dims, or ``rank=None`` for a dynamic rank. The string forms are those of the IR's Parameter
``shape`` attribute: ``1,3,224,224``, ``?``/``-1``, ``1..10``, ``..7``, ``2..``, ``...``.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

#: An integer as OpenVINO's reader takes it: ASCII digits, a sign, ASCII blanks around.
_INT = re.compile(r"[ \t\r\n]*[+-]?[0-9]+[ \t\r\n]*")


def xml_int(text: str | None) -> int:
    """An integer of the XML (layer, port and edge ids, dims, Const offsets, attributes) as
    OpenVINO reads it; raises ValueError (TypeError for None). ``int()`` alone would also take
    ``1_000`` and other scripts' digits (Arabic-Indic ``١``, fullwidth ``１``), which OpenVINO
    refuses (measured on 2026.4: ``stoll``, "Cannot parse '١' to number"), so a file irrun ran
    would be one OpenVINO does not load."""
    if text is None:
        raise TypeError("no integer")
    if text.isascii() and text.isdigit():       # the common case, without the expression
        return int(text)
    if not _INT.fullmatch(text):
        raise ValueError(f"{text!r} is not an integer in ASCII digits")
    return int(text)


@dataclass(frozen=True, slots=True)
class Dim:
    """An interval of possible sizes of one dimension; static when ``lo == hi``."""

    lo: int = 0
    hi: int | None = None

    @staticmethod
    def of(value: "int | Dim") -> "Dim":
        if isinstance(value, Dim):
            return value
        value = int(value)
        return DYN if value < 0 else Dim(value, value)

    @staticmethod
    def parse(text: str) -> "Dim":
        """Parse one dim of a PartialShape string; raises ValueError on bad syntax."""
        t = text.strip()
        if t in ("?", "-1"):
            return DYN
        try:
            if ".." in t:
                a, b = t.split("..", 1)
                lo = xml_int(a) if a.strip() else 0
                hi = xml_int(b) if b.strip() else None
                if lo < 0 or (hi is not None and hi < lo):
                    raise ValueError(f"bad interval {text!r}")
                return Dim(lo, hi)
            v = xml_int(t)
        except ValueError as e:
            if "interval" in str(e):
                raise
            raise ValueError(f"dimension {text.strip()!r} is not a number, ?, or an interval "
                             "like 1..8, ..8 or 2..") from None
        if v < -1:
            raise ValueError(f"dimension {text!r} must be >= -1")
        return Dim.of(v)

    @property
    def is_static(self) -> bool:
        return self.lo == self.hi

    @property
    def value(self) -> int:
        if not self.is_static:
            raise ValueError(f"dimension {self} is not static")
        return self.lo

    def contains(self, n: int) -> bool:
        return self.lo <= n and (self.hi is None or n <= self.hi)

    def intersect(self, other: "Dim") -> "Dim | None":
        lo = max(self.lo, other.lo)
        hi = self.hi if other.hi is None else other.hi if self.hi is None else min(self.hi, other.hi)
        return None if hi is not None and hi < lo else Dim(lo, hi)

    def __add__(self, other: "Dim | int") -> "Dim":
        o = Dim.of(other)
        return Dim(self.lo + o.lo, None if self.hi is None or o.hi is None else self.hi + o.hi)

    __radd__ = __add__

    def __mul__(self, other: "Dim | int") -> "Dim":
        o = Dim.of(other)
        if self == Dim(0, 0) or o == Dim(0, 0):
            return Dim(0, 0)
        return Dim(self.lo * o.lo, None if self.hi is None or o.hi is None else self.hi * o.hi)

    __rmul__ = __mul__

    def __floordiv__(self, n: int) -> "Dim":
        return Dim(self.lo // n, None if self.hi is None else self.hi // n)

    def minus(self, n: int) -> "Dim":
        """``self - n`` clamped at zero (for the ``-1`` of a split)."""
        return Dim(max(self.lo - n, 0), None if self.hi is None else self.hi - n)

    def __str__(self) -> str:
        if self.is_static:
            return str(self.lo)
        if self.hi is None:
            return "?" if self.lo == 0 else f"{self.lo}.."
        return f"{self.lo}..{self.hi}"

    __repr__ = __str__


DYN = Dim(0, None)


def broadcast_merge(a: Dim, b: Dim) -> Dim | None:
    """OpenVINO's ``Dimension::broadcast_merge``: a dim that may be 1 yields to the other; two
    dims that may both be 1 give the hull; otherwise the intersection (None when empty)."""
    a1, b1 = a.contains(1), b.contains(1)
    if a1 and b1:
        return Dim(min(a.lo, b.lo), None if a.hi is None or b.hi is None else max(a.hi, b.hi))
    if a1:
        return b
    if b1:
        return a
    return a.intersect(b)


class PartialShape:
    """A shape whose rank and dims may be unknown. ``PartialShape(None)`` has a dynamic rank."""

    __slots__ = ("dims",)

    def __init__(self, dims: Iterable["Dim | int"] | None):
        self.dims: tuple[Dim, ...] | None = None if dims is None else tuple(Dim.of(d) for d in dims)

    @staticmethod
    def dynamic(rank: int | None = None) -> "PartialShape":
        return PartialShape(None if rank is None else [DYN] * rank)

    @staticmethod
    def parse(text: str) -> "PartialShape":
        """Parse the Parameter ``shape`` grammar; raises ValueError on bad syntax."""
        t = text.strip()
        if t.startswith("[") and t.endswith("]"):
            t = t[1:-1].strip()
        if t == "...":
            return PartialShape(None)
        if not t:
            return PartialShape(())
        return PartialShape(Dim.parse(p) for p in t.split(","))

    @property
    def rank(self) -> int | None:
        return None if self.dims is None else len(self.dims)

    @property
    def is_static(self) -> bool:
        return self.dims is not None and all(d.is_static for d in self.dims)

    def to_tuple(self) -> tuple[int, ...]:
        """The static shape; raises ValueError if any dim (or the rank) is dynamic."""
        if not self.is_static:
            raise ValueError(f"shape {self} is not static")
        return tuple(d.lo for d in self.dims)  # type: ignore[union-attr]

    def max_numel(self) -> int | None:
        """Upper bound on the element count (None when unbounded)."""
        if self.dims is None:
            return None
        n = 1
        for d in self.dims:
            if d.hi is None:
                return 0 if any(e.hi == 0 for e in self.dims) else None
            n *= d.hi
        return n

    def compatible(self, other: "PartialShape") -> bool:
        """OpenVINO's ``PartialShape::compatible``: some static shape fits both (a dynamic rank
        fits anything; otherwise equal ranks and every pair of dims overlapping)."""
        if self.rank is None or other.rank is None:
            return True
        return self.rank == other.rank and all(x.intersect(y) is not None for x, y in zip(self, other))

    def accepts(self, shape: Sequence[int]) -> bool:
        """True if the concrete ``shape`` is one of the shapes this partial shape allows."""
        if self.dims is None:
            return True
        return len(shape) == len(self.dims) and all(d.contains(n) for d, n in zip(self.dims, shape))

    def __iter__(self) -> Iterator[Dim]:
        if self.dims is None:
            raise TypeError("cannot iterate over the dims of a dynamic-rank shape")
        return iter(self.dims)

    def __len__(self) -> int:
        if self.dims is None:
            raise TypeError("dynamic-rank shape has no length")
        return len(self.dims)

    def __getitem__(self, i):
        return self.dims[i]  # type: ignore[index]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (tuple, list)):
            other = PartialShape(other)
        return isinstance(other, PartialShape) and self.dims == other.dims

    def __hash__(self) -> int:
        return hash(self.dims)

    def __str__(self) -> str:
        if self.dims is None:
            return "[...]"
        return "[" + ",".join(str(d) for d in self.dims) + "]"

    __repr__ = __str__
