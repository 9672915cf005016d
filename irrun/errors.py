"""The one exception hierarchy of irrun.

Every failure caused by a model, an input file or an unsupported feature is an :class:`IrrunError`
carrying where it happened — the file, the layer (id, name, type, version) and the port — so that
the CLI can print one clear paragraph and exit with the documented code, and a library user can
catch one type. Op code raises the context-free :class:`OpError`; the framework (shape inference,
executor) adds the layer it was working on.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

#: Exit codes of the CLI (also documented in README.md).
EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_ERROR = 2
EXIT_UNSUPPORTED = 3
EXIT_INTERNAL = 4


#: What must not reach a terminal raw: C0/C1 control characters (newline, carriage return, the
#: ESC of ANSI sequences...), DEL, Unicode line/paragraph separators and bidi overrides.
_UNPRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(m: re.Match) -> str:
    c = m.group()
    return _ESCAPES.get(c) or (f"\\x{ord(c):02x}" if ord(c) < 0x100 else f"\\u{ord(c):04x}")


def printable(text: object) -> str:
    """``text`` safe to print on one line: names from a model or a file (layer, tensor, port and
    file names) may hold newlines or ANSI escapes that would forge other lines of a report or
    repaint the terminal; they are shown as ``\\n``, ``\\x1b``... The one helper every message
    that shows such a name uses."""
    s = str(text)
    return _UNPRINTABLE.sub(_escape, s) if _UNPRINTABLE.search(s) else s


@dataclass(frozen=True)
class LayerRef:
    """Identifies a layer in messages: id, friendly name, type and IR version string."""

    id: str
    name: str
    type: str
    version: str = ""
    path: tuple[str, ...] = ()  # ids of enclosing TensorIterator/Loop/If layers, outermost first

    def __str__(self) -> str:
        where = "".join(f"{p}/" for p in self.path)
        ver = f"-{self.version}" if self.version else ""
        return printable(f'layer {where}{self.id} "{self.name}" ({self.type}{ver})')


class IrrunError(Exception):
    """Base class: a problem with the model, the inputs, or a feature irrun does not support."""

    exit_code = EXIT_ERROR
    kind = "error"

    def __init__(self, message: str, *, file: str | None = None, layer: LayerRef | None = None,
                 port: str | None = None, openvino_loads: bool = False):
        super().__init__(message)
        self.message = message
        self.file = file
        self.layer = layer
        self.port = port
        self.openvino_loads = openvino_loads   # OpenVINO reads this file but cannot run it

    def where(self) -> str:
        parts = [p for p in (self.file, str(self.layer) if self.layer else None, self.port) if p]
        return printable(": ".join(map(str, parts)))

    def __str__(self) -> str:
        """One line: where (file, layer, port) and the message, names escaped (:func:`printable`)."""
        where = self.where()
        return printable(f"{where}: {self.message}" if where else self.message)


class ModelFileError(IrrunError):
    """The .xml or .bin cannot be read: not XML, wrong root, bad attribute syntax, bad weights."""

    kind = "unreadable model"
    weights_missing = False   # set when the .bin is absent: the checker reports that once


class GraphError(IrrunError):
    """The layers and edges do not form a valid graph (missing ports, cycles, no Result...)."""

    kind = "invalid graph"


class ShapeError(IrrunError):
    """An op's shape rule rejects its inputs or attributes (the graph cannot run)."""

    kind = "invalid layer"


class ExecutionError(IrrunError):
    """A kernel rejected values only known at run time (e.g. run-time split lengths)."""

    kind = "run-time error"


class InputError(IrrunError):
    """An input array or file given by the user does not fit the model."""

    kind = "bad input"


class OutputError(IrrunError):
    """A file irrun was asked to write cannot or must not be written there (irrun.io.writers)."""

    kind = "cannot write"


class UnsupportedError(IrrunError):
    """The model uses an op type, version or element type that irrun does not implement."""

    exit_code = EXIT_UNSUPPORTED
    kind = "unsupported"


class InternalError(IrrunError):
    """A kernel disagreed with its own shape rule: a bug in irrun, please report it."""

    exit_code = EXIT_INTERNAL
    kind = "internal error (a bug in irrun)"


class OpError(Exception):
    """Raised inside op code; the framework turns it into a ShapeError/ExecutionError with context.

    ``port`` names the offending port when there is one, e.g. ``"input 2"``. ``openvino_loads``
    marks graphs OpenVINO accepts when reading but cannot evaluate (the checker says so);
    ``unsupported`` marks what irrun does not implement (reported as :class:`UnsupportedError`).
    """

    def __init__(self, message: str, port: str | None = None, openvino_loads: bool = False,
                 unsupported: bool = False):
        super().__init__(message)
        self.message = message
        self.port = port
        self.openvino_loads = openvino_loads
        self.unsupported = unsupported   # irrun's limitation, not a bad model (-> UnsupportedError)
