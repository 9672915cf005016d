"""Keep freed memory in the process between layers and runs (glibc's malloc).

Every intermediate is a new NumPy array. With glibc's defaults, memory freed at the top of the
heap goes back to the OS as soon as a few hundred KiB are free, and arrays above a (dynamic)
threshold are mmap-ed and unmapped one by one, so each run faults its memory back in page by
page: measured 20-40% of a MobileNetV2 run on a loaded 2-core VM (the CPU runtimes keep their own
arenas). :func:`keep` raises the trim threshold to 1 GiB and fixes the mmap threshold at glibc's
dynamic maximum, 32 MiB (setting one disables the dynamic adjustment), once per process, at the
first run. Peak memory is unchanged; what a run frees stays with the process for the next one.
``IRRUN_MALLOC=default`` leaves malloc alone; other C libraries are left alone anyway.
"""
from __future__ import annotations

import gc
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager

_M_TRIM_THRESHOLD, _M_TOP_PAD, _M_MMAP_THRESHOLD = -1, -2, -3
_done = False
_kept = False


def keep() -> bool:
    """Tune glibc's malloc as described above (once); False where that does not apply."""
    global _done, _kept
    if not _done:
        _done = True
        _kept = _tune()
    return _kept


def _tune() -> bool:
    if not sys.platform.startswith("linux") or os.environ.get("IRRUN_MALLOC") == "default":
        return False
    # imported here, not with the module: ctypes.util loads subprocess (~5 ms of every read)
    import ctypes
    import ctypes.util
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):       # musl and others: no mallopt
        return False
    return bool(mallopt(_M_MMAP_THRESHOLD, 32 << 20) and mallopt(_M_TRIM_THRESHOLD, 1 << 30)
                and mallopt(_M_TOP_PAD, 16 << 20))


@contextmanager
def gc_paused() -> Iterator[None]:
    """Reading makes ~15 objects per layer and none is garbage, but Python's cyclic collector
    would walk all of them again at every collection (~15% of reading an LLM's XML): it is
    paused while reading (and left as it was)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()
