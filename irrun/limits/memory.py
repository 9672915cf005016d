"""The memory budget: no tensor bigger than a share of the machine's memory is ever allocated.

A model or an input file can ask for any size (a Broadcast to 100000x100000x100000, a .npy
header promising petabytes); NumPy would try, and fail late with a bare MemoryError or get the
process killed. irrun compares every size against a budget *before* allocating:

* plan time (:func:`irrun.runtime.plan.check_memory`): every tensor whose size shape inference knows
  — the smallest size its partial shape allows;
* run time (:func:`check_alloc`, called by the kernels whose output size comes from values: Broadcast,
  Tile, Pad, Concat, Gather) — the exact output beside the run's live total, just before NumPy
  allocates it (so a Loop doubling its state is refused before the allocation that would pass
  the budget, not after it);
* inputs (:mod:`irrun.io.npy`): the bytes a .npy header promises, before reading them;
* the run's live total (:class:`Live`): after every layer, the bytes held by all the tensors the
  run keeps — the model's and, nested, its Loop bodies', and what a Loop holds between body
  executions (its state, the outputs it accumulates before concatenating them): a Loop whose state
  doubles each iteration passes the budget in its sum long before any one tensor does.

Sizes are logical (elements x item size), so a Broadcast view counts at its full size: whatever
consumes it may materialise it. Const tensors that are views of the memory-mapped .bin cost no
memory and are not counted; unpacked sub-byte Consts are.

The default budget is half the machine's memory (the least of physical RAM, the cgroup limit
and RLIMIT_AS). ``irrun run --max-memory 2G`` or ``Model.run(..., max_memory=...)`` change it;
:func:`limit` sets it for a block of library calls.
"""
from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import cache

import numpy as np

from ..errors import ExecutionError, InputError, OpError

#: Share of the machine's memory one run may use by default.
DEFAULT_SHARE = 0.5
#: Bytes per element assumed for NumPy StringDType (its in-array size; the text lives elsewhere).
STRING_ITEMSIZE = 16
#: NumPy's limit on an array's nominal byte size (``np.intp`` max).
NUMPY_MAX = 2**63 - 1
#: NumPy's limit on an array's rank (``np.zeros((1,) * 65)`` raises).
NUMPY_MAXDIMS = 64


class MemoryBudgetError(ExecutionError):
    """A tensor would exceed the memory budget; refused before anything was allocated."""

    kind = "over the memory budget"


class OverBudget(OpError):
    """Raised by kernels (:func:`check_alloc`); the framework adds the layer and raises
    :class:`MemoryBudgetError`."""


def machine_memory() -> int:
    """Bytes of memory this process can use: physical RAM, bounded by a cgroup limit and
    RLIMIT_AS when those are set (a container's limit is what the OOM killer enforces)."""
    sizes = []
    try:
        sizes.append(os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
    except (ValueError, OSError, AttributeError):
        pass
    for path in ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"):
        try:
            with open(path) as f:
                text = f.read().strip()
            if text.isdigit() and int(text) < 1 << 60:
                sizes.append(int(text))
        except OSError:
            pass
    try:
        import resource
        soft = resource.getrlimit(resource.RLIMIT_AS)[0]
        if soft > 0:
            sizes.append(soft)
    except (ImportError, ValueError, OSError):
        pass
    return min(sizes) if sizes else 8 << 30


@cache
def default_budget() -> int:
    return int(machine_memory() * DEFAULT_SHARE)


_current: ContextVar[int | None] = ContextVar("irrun_memory_budget", default=None)


def current() -> int:
    """The budget in force (bytes): set by :func:`limit`, else the default."""
    b = _current.get()
    return default_budget() if b is None else b


@contextmanager
def limit(max_bytes: int | None) -> Iterator[int]:
    """Run a block under a budget of ``max_bytes`` (``None``: the default)."""
    b = default_budget() if max_bytes is None else int(max_bytes)
    if b <= 0:
        raise InputError(f"the memory budget must be positive, got {b}")
    token = _current.set(b)
    try:
        yield b
    finally:
        _current.reset(token)


_UNITS = {"": 1, "b": 1, "k": 10**3, "m": 10**6, "g": 10**9, "t": 10**12,
          "ki": 1 << 10, "mi": 1 << 20, "gi": 1 << 30, "ti": 1 << 40}


def parse_size(text: str) -> int:
    """``"2G"``, ``"512MiB"``, ``"1.5gb"``, ``"1000000"`` -> bytes (k/M/G/T decimal, Ki/Mi/Gi/Ti
    binary); raises ValueError (argparse reports it)."""
    m = re.fullmatch(r"\s*(\d+(?:\.\d*)?)\s*([kmgt]i?)?b?\s*", text, re.IGNORECASE)
    if not m:
        raise ValueError(f"not a size: {text!r} (examples: 2G, 512MiB, 1000000)")
    n = int(float(m.group(1)) * _UNITS[(m.group(2) or "").lower()])
    if n <= 0:
        raise ValueError(f"memory budget must be positive: {text!r}")
    return n


def itemsize(dtype: np.dtype | None) -> int:
    """In-memory bytes per element (1 for an unknown element type: the least it can be)."""
    if dtype is None:
        return 1
    return STRING_ITEMSIZE if dtype.kind == "T" else dtype.itemsize


def nbytes(shape: Iterable[int], dtype: np.dtype | None) -> int:
    """Bytes of a tensor, in Python ints (never overflows)."""
    n = itemsize(dtype)
    for d in shape:
        n *= int(d)
    return n


def too_big_for_numpy(shape: Iterable[int], dtype: np.dtype | None) -> bool:
    """NumPy refuses any shape whose non-zero dims times the item size pass 2**63 - 1 bytes,
    even an empty one (``np.empty((0, 2**62))``: "array is too big")."""
    n = itemsize(dtype)
    for d in shape:
        n *= int(d) or 1
    return n > NUMPY_MAX


def human(n: int) -> str:
    """``4000000000`` -> ``"4.0 GB (4000000000 bytes)"``."""
    for unit, size in (("PB", 10**15), ("TB", 10**12), ("GB", 10**9), ("MB", 10**6), ("kB", 10**3)):
        if n >= size:
            return f"{n / size:.1f} {unit} ({n} bytes)"
    return f"{n} bytes"


def over_message(what: str, need: int, budget: int) -> str:
    return (f"{what} would need {human(need)}, more than the memory budget of {human(budget)} "
            "(see --max-memory)")


def refusal(shape: tuple[int, ...], dtype: np.dtype | None, what: str, limit: int) -> str | None:
    """Why a tensor of ``shape`` must not be allocated under ``limit`` bytes, or None."""
    need = nbytes(shape, dtype)
    if need <= limit and (need or not too_big_for_numpy(shape, dtype)):
        return None
    desc = f"{what} ({'?' if dtype is None else dtype}[{','.join(map(str, shape))}])"
    if need > limit:
        return over_message(desc, need, limit)
    return f"{desc} has dims whose product passes NumPy's 2**63-byte limit (even though it is empty)"


def string_bytes(a: np.ndarray) -> int:
    """Bytes a string array really holds: NumPy's 16 per element plus its text (characters;
    at least its UTF-8 bytes' share for ASCII text). Fixed-width unicode (``<U``) arrays are
    what their ``nbytes`` say."""
    if a.dtype.kind != "T":
        return a.nbytes
    return STRING_ITEMSIZE * a.size + int(np.strings.str_len(a).sum(dtype=np.int64))


def per_element(dtype: np.dtype, like: np.ndarray | Iterable[np.ndarray] | None) -> int:
    """Bytes per element of an output of ``dtype`` made from the arrays ``like``: for strings the
    average of their real bytes (a Tile of long strings costs its text, not 16 bytes each)."""
    if dtype.kind != "T" or like is None:
        return itemsize(dtype)
    arrays = [like] if isinstance(like, np.ndarray) else list(like)
    size = sum(a.size for a in arrays)
    total = sum(string_bytes(a) for a in arrays if a.dtype.kind == "T")
    return max(STRING_ITEMSIZE, -(-total // size) if size else STRING_ITEMSIZE)


def check_alloc(shape: Iterable[int], dtype: np.dtype, what: str = "the output",
                like: np.ndarray | Iterable[np.ndarray] | None = None) -> None:
    """Kernels call this with an output's shape before NumPy allocates it; raises
    :class:`OverBudget` (the framework names the layer). ``like``: the input(s) whose elements
    the output repeats, which give a string output's bytes per element."""
    shape = tuple(shape)
    n = per_element(dtype, like) if dtype.kind == "T" else dtype.itemsize
    for d in shape:
        n *= d
    acc = _live.get()
    held = acc.total if acc is not None else 0
    if n and n + held <= current():     # the normal path: a few multiplications
        return
    if 0 < n <= current():              # fits alone, not beside what the run holds (its inputs)
        desc = (f"{what} ({dtype}[{','.join(map(str, shape))}], {human(n)}) beside the run's live "
                f"tensors ({human(held)})")
        raise OverBudget(over_message(desc, n + held, current()))
    if dtype.kind == "T" and n > current():
        desc = f"{what} (string[{','.join(map(str, shape))}], {n // max(1, _count(shape))} bytes each)"
        raise OverBudget(over_message(desc, n, current()))
    msg = refusal(shape, dtype, what, current())
    if msg is not None:
        raise OverBudget(msg)


def _count(shape: tuple[int, ...]) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


class Live:
    """The bytes a run's tensors hold (arrays that own their data; views cost nothing), shared
    by the model's executor and its sub-graph bodies through :func:`live_scope`."""

    __slots__ = ("total",)

    def __init__(self) -> None:
        self.total = 0


_live: ContextVar[Live | None] = ContextVar("irrun_live_memory", default=None)


def live() -> Live | None:
    """The running run's live-memory account (None outside :func:`live_scope`)."""
    return _live.get()


@contextmanager
def live_scope() -> Iterator[Live]:
    """One account for a run; nested calls (sub-graph bodies) share the outer one."""
    acc = _live.get()
    if acc is not None:
        yield acc
        return
    acc = Live()
    token = _live.set(acc)
    try:
        yield acc
    finally:
        _live.reset(token)
