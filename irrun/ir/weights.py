"""A model's weights: the .bin mapped read-only, each Const's bytes checked against its type and
shape (ir-format.md §7) and decoded on first use (:class:`ConstBytes`) — byte-aligned types as
views of the map, large packed types (u4, i4, nf4...) unpacked anew on each use, so a model holds
no unpacked copy of its weights beside what irrun computes from them (irrun/runtime/program.py)."""
from __future__ import annotations

import math
import mmap
import os
import re
from collections.abc import Callable
from typing import NoReturn

import numpy as np

from ..errors import ModelFileError
from ..io.files import open_regular
from ..limits import memory as budget
from ..types import elements
from ..types.shapes import xml_int as _int

_DIMS = re.compile(r"[0-9]+(?:,[0-9]+)*")      # a shape as OpenVINO writes it (not empty)

#: Packed Consts with more elements than this are unpacked on each use, and not kept.
UNPACK_ON_USE = 1 << 16


class ConstBytes:
    """A Const's bytes in the mapped .bin, checked against its type and shape, decoded on first
    use (:meth:`value`): byte-aligned types as a view of the map, kept; packed (sub-byte) types
    unpacked into new memory (one byte per element) — kept when small, unpacked anew on each use
    when large (``unpack_on_use``), so only what irrun computes from them is held."""

    __slots__ = ("blob", "etype", "shape", "unpack_on_use", "_value")

    def __init__(self, blob: np.ndarray, etype: elements.ElementType, shape: tuple[int, ...]):
        self.blob, self.etype, self.shape = blob, etype, shape     # blob: exactly its bytes
        self.unpack_on_use = etype.name in elements.PACKED and math.prod(shape) > UNPACK_ON_USE
        self._value: np.ndarray | None = None

    def value(self) -> np.ndarray:
        if self._value is not None:
            return self._value
        v = elements.decode(self.blob, self.etype, self.shape)    # sizes checked: decodes
        if not self.unpack_on_use:
            self._value = v
        return v

    def rows(self, rows: "np.ndarray | slice") -> np.ndarray:
        """``value()[rows]`` (dim-0 entries), unpacking only those rows when each row fills
        whole bytes (whole 3-byte blocks for u3/u6)."""
        n, per_row = (self.shape[0], math.prod(self.shape[1:])) if self.shape else (0, 0)
        block = {"u3": 8, "u6": 4}.get(self.etype.name, 1)
        if not self.shape or (per_row * self.etype.bits) % 8 or per_row % block:
            return self.value()[rows]
        size = elements.storage_bytes(self.etype, per_row)
        picked = self.blob[:n * size].reshape(n, size)[rows]
        return elements.decode(picked.reshape(-1), self.etype, (len(picked),) + self.shape[1:])


class WeightsFile:
    """The .bin of one model, mapped when a Const first needs it. ``fail(msg, layer, port=None,
    file=None)`` raises the reader's error (it names the XML and the layer)."""

    def __init__(self, path: str | None, fail: Callable[..., NoReturn], xml_path: str):
        self.bin_path, self.fail, self.xml_path = path, fail, xml_path
        self.map: mmap.mmap | None = None
        self._blob: np.ndarray | None = None

    def bytes(self, layer) -> np.ndarray:
        """The whole .bin as uint8, mapped on the first call (``layer``: who needs it)."""
        if self._blob is None:
            if not self.bin_path or not os.path.isfile(self.bin_path):
                what = "is not a regular file" if self.bin_path and os.path.exists(self.bin_path) \
                    else "is missing"
                err = ModelFileError(f"the weights file {self.bin_path} {what}, and this Const needs it",
                                     file=self.xml_path, layer=layer.ref)
                err.weights_missing = True       # the checker reports it once, not per Const
                raise err
            try:
                with open_regular(self.bin_path, ModelFileError) as f:
                    if os.fstat(f.fileno()).st_size:   # a plain ndarray over the map (np.memmap slices slowly)
                        self.map = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
                        self._blob = np.frombuffer(self.map, dtype=np.uint8)
                    else:
                        self._blob = np.zeros(0, np.uint8)
            except (OSError, ValueError) as e:
                self.fail(f"cannot map the weights file: {e}", layer, file=self.bin_path)
        return self._blob

    def const(self, layer) -> "np.ndarray | ConstBytes":
        """A Const layer's value (strings) or checked bytes (every other type)."""
        d = layer.data
        try:
            et = elements.from_attr(d["element_type"])
        except KeyError:
            self.fail(f"Const has no valid element_type (got {d.get('element_type')!r})", layer)
        if et.is_dynamic:
            self.fail("Const element_type must not be dynamic", layer)
        try:
            text = d.get("shape", "")
            shape = tuple(map(int, text.split(","))) if _DIMS.fullmatch(text) else \
                tuple(_int(p) for p in text.split(",") if p.strip())
            offset, size = _int(d["offset"]), _int(d["size"])
        except KeyError as e:
            self.fail(f"Const is missing attribute {e.args[0]}", layer)
        except ValueError:
            self.fail(f'Const has a non-integer shape, offset or size (shape="{d.get("shape")}", '
                      f'offset="{d.get("offset")}", size="{d.get("size")}")', layer)
        if (shape and min(shape) < 0) or offset < 0 or size < 0:
            self.fail(f"Const has a negative shape, offset or size (shape={list(shape)}, "
                      f"offset={offset}, size={size})", layer)
        numel = math.prod(shape)
        need = elements.storage_bytes(et, numel) if et.name != "string" else 4 * (numel + 2)
        if size < need:
            self.fail(f"Const of shape {list(shape)} {et} needs {need} bytes but size={size}", layer)
        blob = self.bytes(layer) if size or offset else np.zeros(0, np.uint8)
        if offset + size > len(blob):
            self.fail(f"Const bytes [{offset}, {offset + size}) lie outside the weights file "
                      f"({len(blob)} bytes)", layer, file=self.bin_path)
        if budget.too_big_for_numpy(shape, et.dtype):
            self.fail(f"Const shape {list(shape)} is too large for any array (NumPy's limit is "
                      "2**63 bytes, counting the non-zero dims even of an empty tensor)", layer)
        if et.name in elements.PACKED or et.name == "string":   # decoded into new memory
            why = budget.refusal(shape, et.dtype, f"unpacking the {et} Const", budget.current())
            if why:
                raise budget.MemoryBudgetError(why, file=self.xml_path, layer=layer.ref)
        if et.name != "string":                 # decoded on first use (sizes are checked)
            return ConstBytes(blob[offset:offset + size], et, shape)
        try:
            return elements.decode(blob[offset:offset + size], et, shape)
        except (ValueError, OverflowError) as e:
            self.fail(f"Const data is invalid: {e}", layer, file=self.bin_path)


def release_pages(mapped: "mmap.mmap | None") -> None:
    """Drop the pages of ``mapped`` from this process's RSS (the page cache keeps them)."""
    if mapped is not None and hasattr(mmap, "MADV_DONTNEED"):
        try:
            mapped.madvise(mmap.MADV_DONTNEED)
        except (OSError, ValueError):      # closed, or not supported here: only a saving
            pass
