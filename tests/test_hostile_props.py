"""Property tests: mutate the valid fixture IRs (bytes and structure) and push them through the
whole pipeline (read, check, infer, run under a 64 MiB budget). Whatever the mutation, only
irrun's own errors may come out — and never InternalError, which is irrun admitting a bug.
tools/fuzz/fuzz_reader.py is the long-running (atheris) version of the same property."""
from __future__ import annotations

import os
import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lxml import etree

import irrun
from irrun.errors import InternalError, IrrunError, ModelFileError

FIXTURES = sorted(p.parent for p in (Path(__file__).parent / "fixtures").glob("**/model.xml"))
SOURCES = {p: ((p / "model.xml").read_bytes(), (p / "model.bin").read_bytes()
               if (p / "model.bin").exists() else b"") for p in FIXTURES}
#: IRRUN_PROPS_EXAMPLES=5000 for a longer hunt
SETTINGS = settings(max_examples=int(os.environ.get("IRRUN_PROPS_EXAMPLES", 120)), deadline=None,
                    database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
_DIR = tempfile.TemporaryDirectory(prefix="irrun-props-")

INTERESTING_INTS = ["-2", "-1", "0", "1", "3", "7", "255", "65536", str(2**31), str(2**63 - 1),
                    str(2**63), str(2**64), str(10**30), "1.5", "", "x", " 4 ", "1e3"]


def exercise(xml: bytes, weights: bytes) -> IrrunError | None:
    """read -> check -> infer -> run on zeros; returns the irrun error (or None), lets any other
    exception (and InternalError) through."""
    d = Path(tempfile.mkdtemp(dir=_DIR.name))
    (d / "model.xml").write_bytes(xml)
    (d / "model.bin").write_bytes(weights)
    try:
        irrun.check(d / "model.xml")
        model = irrun.read_model(d / "model.xml")
        model.types()
        model.check_memory(64 << 20)     # as the CLI does before reading inputs
        feeds = {}
        for p in model.inputs:
            if not p.shape.is_static or p.etype.dtype is None:
                return None
            feeds[p.name] = np.zeros(p.shape.to_tuple(), p.etype.dtype)
        model.run(feeds, max_memory=64 << 20)
    except InternalError:
        raise
    except IrrunError as e:
        return e
    return None


@pytest.mark.parametrize("fixture", FIXTURES, ids=[p.name for p in FIXTURES])
def test_fixtures_pass_the_harness(fixture):
    """The unmutated fixtures are valid: the harness itself raises nothing."""
    assert exercise(*SOURCES[fixture]) is None


@SETTINGS
@given(st.sampled_from(FIXTURES), st.data())
def test_byte_mutations(fixture, data):
    xml, weights = SOURCES[fixture]
    target = data.draw(st.sampled_from(["xml", "bin"]), "file") if weights else "xml"
    buf = bytearray(xml if target == "xml" else weights)
    for _ in range(data.draw(st.integers(1, 4), "n")):
        op = data.draw(st.sampled_from(["flip", "set", "insert", "delete", "truncate"]), "op")
        i = data.draw(st.integers(0, max(len(buf) - 1, 0)), "pos")
        if op == "flip" and buf:
            buf[i] ^= 1 << data.draw(st.integers(0, 7))
        elif op == "set" and buf:
            buf[i] = data.draw(st.sampled_from(b"<>&\"'=/0123456789-,. \x00\xff"))
        elif op == "insert":
            buf[i:i] = data.draw(st.sampled_from([b"<", b"&x;", b"<!DOCTYPE a>", b"\xc3", b"-1",
                                                  b"99999999999999999999", b"</layer>", b"<dim>0</dim>"]))
        elif op == "delete":
            del buf[i:i + data.draw(st.integers(1, 64))]
        elif op == "truncate":
            del buf[i:]
    exercise(bytes(buf), weights) if target == "xml" else exercise(xml, bytes(buf))


def _layers(root):
    return root.findall(".//layer")


@SETTINGS
@given(st.sampled_from(FIXTURES), st.data())
def test_structure_mutations(fixture, data):
    """Edges dropped, duplicated or re-pointed; dims, element types, offsets, sizes, attributes,
    types and versions changed; layers removed."""
    xml, weights = SOURCES[fixture]
    root = etree.fromstring(xml)
    layers, edges = _layers(root), root.findall(".//edges/edge")
    kind = data.draw(st.sampled_from(["edge", "dim", "data", "layer_attr", "remove"]), "kind")
    if kind == "edge" and edges:
        e = data.draw(st.sampled_from(edges))
        how = data.draw(st.sampled_from(["drop", "dup", "repoint"]))
        if how == "drop":
            e.getparent().remove(e)
        elif how == "dup":
            e.getparent().append(etree.fromstring(etree.tostring(e)))
        else:
            key = data.draw(st.sampled_from(["from-layer", "from-port", "to-layer", "to-port"]))
            e.set(key, data.draw(st.sampled_from(INTERESTING_INTS + [str(n) for n in range(8)])))
    elif kind == "dim":
        dims = root.findall(".//dim")
        if dims:
            data.draw(st.sampled_from(dims)).text = data.draw(st.sampled_from(INTERESTING_INTS))
    elif kind == "data":
        with_data = [L for L in layers if L.find("data") is not None and L.find("data").attrib]
        if with_data:
            d = data.draw(st.sampled_from(with_data)).find("data")
            key = data.draw(st.sampled_from(sorted(d.attrib)))
            d.set(key, data.draw(st.sampled_from(INTERESTING_INTS + [
                "f32", "u4", "u1", "i4", "string", "dynamic", "f33", "numpy", "bidirectional",
                "edge", "reflect", "?", "...", "1..3", "-1,-1", "0,0", "2,3,4", "1,0,1", "true"])))
    elif kind == "layer_attr" and layers:
        L = data.draw(st.sampled_from(layers))
        key = data.draw(st.sampled_from(["id", "type", "version"]))
        L.set(key, data.draw(st.sampled_from(INTERESTING_INTS + [
            "opset1", "opset3", "opset8", "opset99", "Const", "Parameter", "Result", "Concat",
            "Broadcast", "Tile", "Pad", "Gather", "Frob"])))
    elif kind == "remove" and layers:
        L = data.draw(st.sampled_from(layers))
        L.getparent().remove(L)
    exercise(etree.tostring(root), weights)


@SETTINGS
@given(st.sampled_from(FIXTURES), st.data())
def test_const_mutations_are_blamed_on_the_const(fixture, data):
    """A broken Const attribute is reported by the reader naming that Const layer."""
    xml, weights = SOURCES[fixture]
    root = etree.fromstring(xml)
    consts = [L for L in _layers(root) if L.get("type", "").lower() == "const"]
    if not consts:
        return
    L = data.draw(st.sampled_from(consts))
    key = data.draw(st.sampled_from(["offset", "size", "shape", "element_type"]))
    L.find("data").set(key, data.draw(st.sampled_from(
        INTERESTING_INTS + ["u4", "f16", "i64", "boolean", "f33", "1,2", "0", "3,0,5"])))
    err = exercise(etree.tostring(root), weights)
    if isinstance(err, ModelFileError) and err.layer is not None:
        assert err.layer.id == L.get("id") and err.layer.type == L.get("type")


@settings(max_examples=60, deadline=None, database=None)
@given(st.binary(max_size=2000))
def test_random_bytes(blob):
    exercise(blob, b"")


FUZZ_FINDINGS = sorted((Path(__file__).parent / "hostile" / "fuzz").iterdir())


@pytest.mark.parametrize("path", FUZZ_FINDINGS, ids=[p.name for p in FUZZ_FINDINGS])
def test_fuzz_findings_stay_fixed(path):
    """Reproducers the atheris target found (``xml FUZZ_NEXT_FIELD bin``), kept as regressions."""
    xml, _, weights = path.read_bytes().partition(b"FUZZ_NEXT_FIELD")
    exercise(xml, weights)


def _npy_bytes(arr: np.ndarray) -> bytes:
    import io
    f = io.BytesIO()
    np.save(f, arr)
    return f.getvalue()


NPYS = [_npy_bytes(a) for a in (np.arange(12, dtype=np.float32).reshape(3, 4),
                                np.asfortranarray(np.arange(6, dtype=np.int64).reshape(2, 3)),
                                np.array(["ab", "c"]), np.zeros((2, 2), np.bool_))]


@SETTINGS
@given(st.sampled_from(NPYS), st.data())
def test_npy_mutations(blob, data):
    """Mutated .npy files (header and data) give the array or an InputError / budget error."""
    from irrun.io.npy import load_npy, load_npz
    buf = bytearray(blob)
    for _ in range(data.draw(st.integers(1, 3))):
        i = data.draw(st.integers(0, len(buf) - 1))
        buf[i:i + data.draw(st.integers(0, 3))] = data.draw(st.sampled_from(
            [b"", b"\x00", b"\xff", b"9", b"-", b"(", b")", b",", b"'", b"O", b"<U", b"|V0",
             b"True", b"99999999999", b"\x02\x00"]))
    d = Path(tempfile.mkdtemp(dir=_DIR.name))
    (d / "a.npy").write_bytes(bytes(buf))
    import zipfile
    with zipfile.ZipFile(d / "a.npz", "w") as zf:
        zf.writestr("x.npy", bytes(buf))
    for load, name in ((load_npy, "a.npy"), (load_npz, "a.npz")):
        try:
            load(str(d / name))
        except InternalError:
            raise
        except IrrunError as e:
            assert e.file and name in e.file
