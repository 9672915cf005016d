"""ONNX external data: the export as ``model.onnx`` plus ``model.onnx.data``.

protobuf cannot serialize a message of 2 GB or more, so a larger ONNX model keeps its big tensors
in a second file, as ONNX's external data format describes (onnx/docs/ExternalData.md): each such
tensor's ``raw_data`` moves into the data file, and the tensor instead says where it is —
``data_location = EXTERNAL`` with the entries ``location`` (the data file's name, relative to the
.onnx), ``offset`` and ``length``. onnxruntime and ``onnx.load`` read it back from beside the .onnx.

irrun does this itself rather than through ``onnx.save_model(save_as_external_data=True)`` so
that both files go through :mod:`irrun.io.writers` (atomic, all or nothing, never through a link
or over a file the command reads) and so that the data is streamed from the tensors, not copied
into one more buffer of the model's size.
"""
from __future__ import annotations

from collections.abc import Iterator
from typing import Any, BinaryIO

#: tensors of at least this many bytes go to the data file (onnx's own default size_threshold)
SIZE_THRESHOLD = 1024
#: each tensor starts at a multiple of this offset in the data file (lets a reader map it)
ALIGNMENT = 4096


def tensors_of(graph: Any) -> Iterator[Any]:
    """Every TensorProto of ``graph``: its initializers, Constant values and the same in the
    sub-graphs of its nodes' attributes (If branches, Loop and Scan bodies)."""
    yield from graph.initializer
    for node in graph.node:
        for attr in node.attribute:
            if attr.HasField("t"):
                yield attr.t
            yield from attr.tensors
            if attr.HasField("g"):
                yield from tensors_of(attr.g)
            for g in attr.graphs:
                yield from tensors_of(g)


def detach(initializers: list[Any], threshold: int = SIZE_THRESHOLD) -> dict[str, bytes]:
    """Take the ``raw_data`` of every initializer of at least ``threshold`` bytes out of it (the
    tensor keeps its name, type and dims) and return them by name: protobuf cannot copy a message
    of 2 GB or more, and building the graph and model copies the tensors. :func:`attach` puts
    them back in the finished model, or :func:`externalize` writes them to the data file."""
    payloads: dict[str, bytes] = {}
    for tensor in initializers:
        if tensor.HasField("raw_data") and len(tensor.raw_data) >= threshold:
            payloads[tensor.name] = tensor.raw_data
            tensor.ClearField("raw_data")
    return payloads


def attach(proto: Any, payloads: dict[str, bytes]) -> None:
    """Put the bytes :func:`detach` took back into the model's initializers (in place, no copy
    of the message)."""
    for tensor in proto.graph.initializer:
        if tensor.name in payloads and not tensor.HasField("raw_data"):
            tensor.raw_data = payloads[tensor.name]


def externalize(proto: Any, location: str, payloads: dict[str, bytes] | None = None,
                threshold: int = SIZE_THRESHOLD) -> tuple[int, Any]:
    """Point every tensor of ``proto`` of at least ``threshold`` bytes at ``location`` instead
    of holding its bytes: the initializers whose bytes :func:`detach` took (``payloads``), and
    any other tensor's ``raw_data``, moved out. Returns the data file's size and the
    :mod:`irrun.io.writers` fill that writes it (the bytes are held by the fill, no longer by the model)."""
    from onnx import TensorProto
    payloads = payloads or {}
    chunks: list[tuple[int, bytes]] = []
    end = 0

    def point(tensor: Any, raw: bytes) -> None:
        nonlocal end
        offset = -(-end // ALIGNMENT) * ALIGNMENT
        chunks.append((offset, raw))
        end = offset + len(raw)
        tensor.ClearField("raw_data")
        tensor.data_location = TensorProto.EXTERNAL
        del tensor.external_data[:]
        for key, value in (("location", location), ("offset", str(offset)), ("length", str(len(raw)))):
            entry = tensor.external_data.add()
            entry.key, entry.value = key, value

    for tensor in proto.graph.initializer:
        if tensor.name in payloads and not tensor.HasField("raw_data"):
            point(tensor, payloads[tensor.name])
    for tensor in tensors_of(proto.graph):
        if tensor.HasField("raw_data") and len(tensor.raw_data) >= threshold:
            point(tensor, tensor.raw_data)

    def fill(f: BinaryIO) -> None:
        written = 0
        for offset, raw in chunks:
            f.write(b"\0" * (offset - written))
            f.write(raw)
            written = offset + len(raw)
    return end, fill


def check_externalized(proto: Any, location: str, size: int) -> None:
    """``onnx.checker.check_model`` (``full_check``: strict type and shape inference) of a model
    whose tensors are in ``location`` (not written yet):
    the checker wants each data file to exist as a regular file beside the model, so it reads a
    copy of the model beside an empty sparse stand-in of ``size`` bytes in a temporary folder."""
    import tempfile
    from pathlib import Path

    import onnx
    with tempfile.TemporaryDirectory(prefix="irrun-onnx-check-") as tmp:
        (Path(tmp) / "model.onnx").write_bytes(proto.SerializeToString())
        with open(Path(tmp) / location, "wb") as f:
            f.truncate(size)
        onnx.checker.check_model(str(Path(tmp) / "model.onnx"), full_check=True)
