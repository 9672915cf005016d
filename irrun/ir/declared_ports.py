"""A layer's ``<port>`` as the IR declares it, with its ``<dim>`` list parsed on first use.

Reading and running a model never looks at the dims a port declares (OpenVINO ignores them too;
irrun infers every shape), but ``irrun check``, ``info``, ``Model.save`` and a few messages do.
Parsing them is ~15% of reading an LLM's XML, so the reader only *validates* them, with one
regular-expression scan of the file's bytes (:func:`all_plain`: every ``<dim>`` holds a plain
integer >= -1), and keeps the bytes; the first ``PortDecl.dims`` of a model reads the file's
bytes again (:class:`LazyDims`) and gives every port its dims. A file with any other ``<dim>``
(a bad one, but also ``+3``, a comment or a character reference inside, a non-ASCII encoding) is
read eagerly, as before: the reader reports a bad dim with file, layer and port when the model is
read, whatever the command, so laziness changes no error and no result.
"""
from __future__ import annotations

import re
from collections.abc import Callable

from ..errors import InternalError
from ..types import elements

#: A ``<dim`` element whose content is not a plain integer >= -1 (what the fast path accepts).
_OTHER_DIM = re.compile(rb"<dim(?!>[ \t\r\n]*(?:-1|[0-9]+)[ \t\r\n]*</dim>)[ \t\r\n/>]")
#: Encodings in which every ``<dim`` element start is those very bytes.
_ASCII_BASED = frozenset({"utf-8", "utf8", "us-ascii", "ascii", "iso-8859-1", "latin-1", "latin1"})


def all_plain(data: bytes, encoding: str | None) -> bool:
    """Does every ``<dim>`` element of the XML ``data`` hold a plain integer >= -1 (so that
    parsing it later cannot fail)? False when unsure: the reader then parses dims eagerly."""
    return ((encoding or "utf-8").lower() in _ASCII_BASED and data[:2] not in (b"\xff\xfe", b"\xfe\xff")
            and _OTHER_DIM.search(data) is None)


def split_names(text: str) -> list[str]:
    """Split a ``names`` attribute on commas, honouring the ``\\,`` escape."""
    if "\\" not in text:
        return [p.strip() for p in text.split(",") if p.strip()]
    return [p.replace("\\,", ",").strip() for p in re.split(r"(?<!\\),", text) if p.strip()]


class LazyDims:
    """The dims of one model's ports, read on first use: ``reread()`` reads the same XML bytes
    again with dims (and without weights) and returns every port's, in the order the first
    read met them (a port's ``k``). No reference back to the ports: no cycle keeps a model
    (and its mapped .bin) alive."""

    def __init__(self, reread: Callable[[], list]):
        self.reread: Callable[[], list] | None = reread
        self.count = 0                           # ports of the first read (set by the reader)
        self.dims: list[tuple[int, ...]] = []

    def get(self, k: int) -> tuple[int, ...]:
        if self.reread is not None:
            dims = self.reread()
            if len(dims) != self.count:          # same bytes, same reader: cannot happen
                raise InternalError(f"reading the port dims again gave {len(dims)} ports, "
                                    f"not {self.count}")
            self.dims, self.reread = dims, None  # (drops the bytes)
        return self.dims[k]


class PortDecl:
    """A ``<port>`` as declared in the file: its id, position, precision, dims and tensor names
    (a tuple: none is the shared empty tuple, not a new list per port)."""

    __slots__ = ("id", "index", "precision", "etype", "names", "_dims", "_lazy", "_k")

    def __init__(self, id: int, index: int, precision: str | None, etype: elements.ElementType | None,
                 dims: tuple[int, ...] | None, names: tuple[str, ...] = (),
                 lazy: LazyDims | None = None, k: int = 0):
        self.id, self.index, self.precision, self.etype = id, index, precision, etype
        self.names = names
        self._dims, self._lazy, self._k = dims, lazy, k

    @property
    def dims(self) -> tuple[int, ...]:
        """Declared dims, -1 = dynamic (parsed on first use, for every port of the model)."""
        if self._dims is None:
            self._dims = self._lazy.get(self._k) if self._lazy is not None else ()
            self._lazy = None
        return self._dims

    def __reduce__(self):
        """Pickled and copied with its dims (a lazy port's are read first)."""
        return PortDecl, (self.id, self.index, self.precision, self.etype, self.dims, self.names)

    def with_dims(self, dims: tuple[int, ...]) -> "PortDecl":
        """The same port declaring ``dims``."""
        return PortDecl(self.id, self.index, self.precision, self.etype, tuple(dims), self.names)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PortDecl) and (self.id, self.index, self.precision, self.etype, self.dims,
                                                self.names) == (other.id, other.index, other.precision,
                                                                other.etype, other.dims, other.names)

    __hash__ = None     # type: ignore[assignment]   # mutable, like the dataclass it replaced

    def __repr__(self) -> str:
        return (f"PortDecl(id={self.id}, index={self.index}, precision={self.precision!r}, "
                f"etype={self.etype}, dims={self.dims}, names={self.names})")
