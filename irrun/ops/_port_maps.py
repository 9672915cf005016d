"""The port maps of TensorIterator-1 and Loop-5 (ir-format.md §8) and the shape helpers of the
sub-graph ops: sliced inputs (:class:`Slicing`), input/output maps, special body ports, and the
widening of a back edge's shape until inference through the body settles."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import OpError
from ..types import elements
from ..types.shapes import DYN, Dim, PartialShape, xml_int
from .base import TensorInfo


@dataclass(frozen=True)
class Slicing:
    """A port-map entry's iteration attributes (defaults as in the spec)."""

    axis: int
    start: int = 0
    end: int = -1
    stride: int = 1
    part_size: int = 1

    @property
    def step(self) -> int:
        return abs(self.stride)

    def check(self, where: str, output: bool) -> None:
        """Refuse what OpenVINO's CPU plugin cannot run as the spec says (module docstring)."""
        if self.stride == 0:
            raise OpError(f'{where}: invalid "stride" value 0 (an infinite loop)', openvino_loads=True)
        if self.part_size != self.step:
            raise OpError(f"{where}: part_size={self.part_size} differs from |stride|="
                          f"{self.step}; OpenVINO's CPU plugin iterates in chunks of |stride| "
                          "while read_model sizes the body for part_size", openvino_loads=True)
        if output:
            full = (self.start, self.end) == ((0, -1) if self.stride > 0 else (-1, 0))
            if not full:
                raise OpError(f"{where}: a concatenated output over part of the axis (start="
                              f"{self.start}, end={self.end}) is not supported; irrun supports "
                              "start=0 end=-1 (stride > 0) and start=-1 end=0 (stride < 0)",
                              unsupported=True)
        elif not ((self.stride > 0 and self.start == 0 and self.end < 0)
                  or (self.stride < 0 and self.start == -1 and self.end >= 0)):
            raise OpError(f"{where}: start={self.start}, end={self.end}, stride={self.stride}: "
                          "OpenVINO's CPU plugin reads a different range than the spec says (it "
                          "always starts at the first chunk, or the last for stride < 0, and "
                          "counts iterations unlike read_model unless exactly one of start/end "
                          "is negative); irrun runs start=0 with end<0, or start=-1 with end>=0",
                          openvino_loads=True)

    def length(self, dim: int) -> int:
        """Elements of the axis the iterations cover."""
        return dim + 1 + self.end if self.stride > 0 else dim - self.end

    def count(self, dim: int) -> int:
        """Iterations over an axis of ``dim`` elements (the CPU plugin's checks and messages)."""
        n = self.length(dim)
        if n < self.step:
            raise OpError(f'Invalid "start","stride","end" values in an iteration component '
                          f"(axis of {dim} elements, start={self.start}, end={self.end}, "
                          f"stride={self.stride})", openvino_loads=True)
        if n % self.step:
            raise OpError(f"Each iteration must be the same size: length ({n}) is not divisible "
                          f"by step ({self.step})", openvino_loads=True)
        return n // self.step

    def count_dim(self, dim: Dim) -> Dim:
        if dim.is_static:
            return Dim.of(self.count(dim.lo))
        lo = max(self.length(dim.lo), 0) // self.step
        return Dim(lo, None if dim.hi is None else max(self.length(dim.hi), 0) // self.step)

    def chunk(self, x: np.ndarray, axis: int, i: int) -> np.ndarray:
        """Iteration ``i``'s part of ``x`` (a view)."""
        s = self.step
        at = i * s if self.stride > 0 else x.shape[axis] - s - i * s
        return x[(slice(None),) * axis + (slice(at, at + s),)]


@dataclass(frozen=True)
class InputMap:
    index: int                    # the op's input index
    param: int                    # body Parameter (layer id = node)
    slicing: Slicing | None = None
    back: int | None = None       # body Result feeding the Parameter from the 2nd iteration on


@dataclass(frozen=True)
class OutputMap:
    result: int                   # body Result
    concat: Slicing | None = None


def entry_int(entry: dict, name: str, where: str, default: int | None = None) -> int:
    """Integer attribute ``name`` of a port-map or back-edge entry (``default`` when absent and
    given); OpError naming the entry (``where``) otherwise."""
    text = entry.get(name)
    if text is None:
        if default is None:
            raise OpError(f"{where} has no {name}")
        return default
    try:
        return xml_int(text)
    except ValueError:
        raise OpError(f'{where}: {name}="{text}" is not an integer') from None


def entry_where(tag: str, e: dict) -> str:
    """How messages name a port-map entry: ``<port_map> <input external_port_id="0" ...>``."""
    attrs = " ".join(f'{k}="{v}"' for k, v in e.items() if k != "kind")
    return f"<{tag}> <{e['kind']} {attrs}>"


def entry_slicing(e: dict, where: str, output: bool) -> Slicing | None:
    """The entry's slicing (``axis``, ``start``, ``end``, ``stride``, ``part_size``), checked; None
    when it has no ``axis`` (the whole tensor)."""
    if "axis" not in e:
        return None
    s = Slicing(*(entry_int(e, k, where, d) for k, d in
                  (("axis", None), ("start", 0), ("end", -1), ("stride", 1), ("part_size", 1))))
    s.check(where, output)
    return s


def output_maps(layer, tag: str, body) -> list[tuple[OutputMap, dict]]:
    """Output entries with ``external_port_id >= 0``, sorted by it (first of duplicates wins)."""
    seen: dict[int, tuple[OutputMap, dict]] = {}
    for e in layer.port_maps.get(tag, ()):
        if e["kind"] != "output":
            continue
        where = entry_where(tag, e)
        ext, rid = entry_int(e, "external_port_id", where), entry_int(e, "internal_layer_id", where)
        if ext < 0 or ext in seen:
            continue
        if rid not in body.results:
            raise OpError(f"{where}: internal_layer_id {rid} is not a Result of the body")
        seen[ext] = (OutputMap(rid, entry_slicing(e, where, True)), e)
    return [seen[k] for k in sorted(seen)]


def special_port(layer, tag: str, body, kind: str, purpose: str) -> int | None:
    """The body Parameter/Result (``kind`` input/output) a Loop port-map entry marks with
    ``purpose`` (``current_iteration``, ``execution_condition``), or None."""
    for e in layer.port_maps.get(tag, ()):
        if e["kind"] == kind and e.get("purpose") == purpose:
            where = entry_where(tag, e)
            lid = entry_int(e, "internal_layer_id", where)
            if lid not in (body.params if kind == "input" else body.results):
                raise OpError(f"{where}: internal_layer_id {lid} is not a "
                              f"{'Parameter' if kind == 'input' else 'Result'} of the body")
            return lid
    return None


def hull(a: PartialShape, b: PartialShape) -> PartialShape:
    """The smallest partial shape holding both (dynamic rank when the ranks differ)."""
    if a.rank is None or b.rank is None or a.rank != b.rank:
        return PartialShape(None)
    return PartialShape(Dim(min(x.lo, y.lo), None if x.hi is None or y.hi is None else max(x.hi, y.hi))
                        for x, y in zip(a, b))


def widen_back_edge(cur: PartialShape, res: PartialShape, again: bool) -> PartialShape:
    """The back-edge Parameter's shape after seeing Result shape ``res`` (see module doc)."""
    if cur.rank is None:
        return cur
    if res.rank != cur.rank:
        return PartialShape(None)
    dims = []
    for c, r in zip(cur, res):
        fits = c.lo <= r.lo and (c.hi is None or (r.hi is not None and r.hi <= c.hi))
        dims.append(c if fits else DYN if again else Dim(min(c.lo, r.lo), None))
    return PartialShape(dims)


def check_one_value(info: TensorInfo, what: str, port: str | None) -> None:
    """A condition / trip count / iteration number: a scalar or one element."""
    if info.shape.rank not in (None, 0, 1):
        raise OpError(f"Rank of {what} must be equal to 0 or 1", port=port)
    if info.value is not None and info.value.size != 1:
        raise OpError(f"The number of values in the {what} constant is greater than 1", port=port)


def scalar_value(a: np.ndarray, what: str, port: str | None = None):
    """The one value of a condition, trip count or iteration number; OpError unless it has one."""
    if a.size != 1:
        raise OpError(f"{what} has {a.size} values, not 1", port=port)
    return a.reshape(())[()]


def body_param_info(body, param: int, x: TensorInfo, shape: PartialShape | None = None,
                keep_value: bool = True) -> TensorInfo:
    """What a body Parameter gets from the op's input ``x``: its type and shape replace the
    declared ones, as OpenVINO does (the checker reports a stale declaration)."""
    etype = body.declared(param).etype if x.etype.is_dynamic else x.etype
    return TensorInfo(etype, x.shape if shape is None else shape, x.value if keep_value else None)


def info_of(a: np.ndarray) -> TensorInfo:
    """The TensorInfo of a concrete array (its type and static shape, no value kept)."""
    return TensorInfo(elements.from_dtype(a.dtype), PartialShape(a.shape))


