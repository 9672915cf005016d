"""irrun.types.elements: the packing examples of ir-format.md §6 / §6.1 / §6.2 taken literally, the
Const decoding of every element type compared with OpenVINO (tests/fixtures/consts, written by
tools/fixtures/make_const_fixtures.py), and the reader's .bin bounds checks."""
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

import irrun
from irrun.types import elements
from irrun.types.elements import NF4_TABLE, TYPES, decode, storage_bytes
from irrun.errors import ModelFileError
from irrun.ir.builder import IRWriter

FIXTURES = Path(__file__).parent / "fixtures" / "consts"


def dec(hex_bytes: str, etype: str, shape) -> np.ndarray:
    return decode(np.frombuffer(bytes.fromhex(hex_bytes), np.uint8), TYPES[etype], tuple(shape))


def read_const(tmp_path, etype: str, raw: bytes, shape) -> np.ndarray:
    """The same bytes through the whole reader: IRWriter Const -> .xml/.bin -> read_model."""
    b = IRWriter("c")
    b.result(b.const(None, etype=etype, raw=raw, shape=list(shape)), "out")
    model = irrun.read_model(b.save(tmp_path / f"{etype}.xml"))
    (value,) = [d["layer"].const_value for _, d in model.graph.nodes(data=True) if d["layer"].type == "Const"]
    return value


# --- §6.1 sub-byte packing, literally ------------------------------------------------------------

@pytest.mark.parametrize("etype, hex_bytes, shape, values", [
    ("u1", "b0 80", [9], [1, 0, 1, 1, 0, 0, 0, 0, 1]),           # MSB first
    ("u2", "03", [4], [3, 0, 0, 0]),                              # LSB first
    ("u2", "c0", [4], [0, 0, 0, 3]),
    ("u4", "21 43 05", [5], [1, 2, 3, 4, 5]),                     # low nibble first
    ("i4", "21 43 05", [5], [1, 2, 3, 4, 5]),
    ("nf4", "21 43 05", [5], [1, 2, 3, 4, 5]),                    # nf4 arrays hold the codes
    ("f4e2m1", "21 43 05", [5], [0.5, 1.0, 1.5, 2.0, 3.0]),       # codes 1..5 = .5, 1, 1.5, 2, 3
    ("u3", "1b 1b 0f", [8], [0, 1, 2, 3, 4, 5, 6, 7]),
    ("u3", "c0 00 80", [8], [7, 0, 0, 0, 0, 0, 0, 0]),
    ("u6", "a5 0c 9c", [4], [42, 21, 48, 12]),
])
def test_packing_examples(tmp_path, etype, hex_bytes, shape, values):
    for out in (dec(hex_bytes, etype, shape), read_const(tmp_path, etype, bytes.fromhex(hex_bytes), shape)):
        assert out.shape == tuple(shape) and out.dtype == TYPES[etype].dtype
        assert out.astype(np.float64).tolist() == values


def test_packed_dtypes():
    assert dec("21", "u4", [2]).dtype == ml_dtypes.uint4
    assert dec("21", "i4", [2]).dtype == ml_dtypes.int4
    assert dec("21", "f4e2m1", [2]).dtype == ml_dtypes.float4_e2m1fn
    for et in ("u1", "u2", "u3", "u6", "nf4"):
        assert TYPES[et].dtype == np.uint8


def test_i4_sign_extends():
    assert dec("f8 7f", "i4", [4]).astype(int).tolist() == [-8, -1, -1, 7]


def test_nf4_table_lookup():
    codes = dec("21 43 05", "nf4", [5])
    np.testing.assert_array_equal(NF4_TABLE[codes], np.array(
        [-0.6961928009986877, -0.5250730514526367, -0.39491748809814453, -0.28444138169288635,
         -0.18477343022823334], np.float32))
    assert NF4_TABLE[0] == -1.0 and NF4_TABLE[7] == 0.0 and NF4_TABLE[15] == 1.0


def test_f4e2m1_all_codes():
    # §6: codes 0..7 = 0, .5, 1, 1.5, 2, 3, 4, 6; bit 3 = sign (8 = -0)
    v = dec("10 32 54 76 98 ba dc fe", "f4e2m1", [16]).astype(np.float32)
    assert v.tolist() == [0, .5, 1, 1.5, 2, 3, 4, 6, -0.0, -.5, -1, -1.5, -2, -3, -4, -6]
    assert np.signbit(v[8]) and not np.signbit(v[0])


def test_tail_and_shapes():
    # Tail elements of the last byte/block are ignored (written as zero); element 0 is first in
    # C order, so a [2,3] u4 tensor reads the nibbles row by row.
    assert dec("21 43 65 f0", "u4", [2, 3]).astype(int).tolist() == [[1, 2, 3], [4, 5, 6]]
    assert dec("b0 80", "u1", [3, 3]).tolist() == [[1, 0, 1], [1, 0, 0], [0, 0, 1]]
    assert dec("1b 1b 0f 00 00 00", "u3", [9]).tolist() == [0, 1, 2, 3, 4, 5, 6, 7, 0]


@pytest.mark.parametrize("etype, numel, size", [
    ("u1", 9, 2), ("u1", 8, 1), ("u2", 5, 2), ("u4", 5, 3), ("i4", 1, 1), ("nf4", 17, 9),
    ("f4e2m1", 4, 2), ("u3", 8, 3), ("u3", 9, 6), ("u3", 1, 3), ("u6", 4, 3), ("u6", 5, 6),
    ("u6", 1, 3), ("f32", 3, 12), ("bf16", 3, 6), ("f8e4m3", 3, 3), ("boolean", 3, 3), ("u8", 0, 0),
])
def test_storage_bytes(etype, numel, size):
    # ceil(numel*bits/8), whole 3-byte blocks for u3 (8 elements) and u6 (4 elements)
    assert storage_bytes(TYPES[etype], numel) == size


# --- §6 byte-aligned exotic floats, literally ---------------------------------------------------

@pytest.mark.parametrize("etype, byte, value", [
    ("f8e4m3", "01", 2.0 ** -9), ("f8e4m3", "08", 2.0 ** -6), ("f8e4m3", "38", 1.0),
    ("f8e4m3", "7e", 448.0), ("f8e4m3", "7f", "nan"), ("f8e4m3", "80", "-0"),
    ("f8e5m2", "3c", 1.0), ("f8e5m2", "7b", 57344.0), ("f8e5m2", "7c", float("inf")),
    ("f8e5m2", "7d", "nan"),
    ("f8e8m0", "7f", 1.0), ("f8e8m0", "80", 2.0), ("f8e8m0", "00", 2.0 ** -127), ("f8e8m0", "ff", "nan"),
    ("bf16", "80 3f", 1.0), ("bf16", "00 c0", -2.0), ("bf16", "49 40", 3.140625),
])
def test_float_bytes(tmp_path, etype, byte, value):
    for out in (dec(byte, etype, []), read_const(tmp_path, etype, bytes.fromhex(byte), [])):
        assert out.dtype == TYPES[etype].dtype and out.shape == ()
        v = float(out.astype(np.float64))
        if value == "nan":
            assert np.isnan(v)
        elif value == "-0":
            assert v == 0 and np.signbit(v)
        else:
            assert v == value


def test_byte_aligned_types_are_views():
    buf = np.frombuffer(bytes.fromhex("0000803f 000000c0"), np.uint8)
    out = decode(buf, TYPES["f32"], (2,))
    assert out.tolist() == [1.0, -2.0] and np.shares_memory(out, buf)


# --- §6.2 strings ---------------------------------------------------------------------------------

STRING_BYTES = bytes.fromhex("03000000 00000000 02000000 02000000 05000000") + b"abxyz"


def test_string_example(tmp_path):
    assert len(STRING_BYTES) == 25
    for out in (dec(STRING_BYTES.hex(), "string", [3]), read_const(tmp_path, "string", STRING_BYTES, [3])):
        assert out.dtype == elements.STRING_DTYPE and out.tolist() == ["ab", "", "xyz"]


@pytest.mark.parametrize("raw, fragment", [
    (bytes.fromhex("0200000000000000020000000200000005000000") + b"abxyz", "holds 2 strings, shape needs 3"),
    (bytes.fromhex("030000000000000002000000"), "header needs 20 bytes"),
    (bytes.fromhex("03000000 01000000 02000000 02000000 05000000") + b"abxyz", "not increasing"),
    (bytes.fromhex("03000000 00000000 02000000 02000000 09000000") + b"abxyz", "not increasing"),
    (bytes.fromhex("03000000 00000000 02000000 02000000 05000000") + b"ab\xffyz", "invalid UTF-8"),
])
def test_bad_strings(raw, fragment):
    with pytest.raises(ValueError, match=fragment):
        decode(np.frombuffer(raw, np.uint8), TYPES["string"], (3,))


# --- every element type against OpenVINO ----------------------------------------------------------

ALL_TYPES = [t.name for t in TYPES.values() if t.name != "dynamic"]
TO_F32 = {"bf16", "f8e4m3", "f8e5m2", "f8e8m0", "f4e2m1", "nf4"}
TO_I64 = {"u1", "u2", "u3", "u4", "u6", "i4"}


def as_openvino_exposes(value: np.ndarray, etype: str) -> np.ndarray:
    """Convert irrun's array the way tools/fixtures/make_const_fixtures.py converts OpenVINO's."""
    if etype == "nf4":
        return NF4_TABLE[value]
    if etype in TO_F32:
        return value.astype(np.float32)
    if etype in TO_I64:
        return value.astype(np.int64)
    if etype == "string":
        return np.array(value.tolist(), dtype=str)
    return value


def test_fixture_set_is_complete():
    assert sorted(p.name for p in FIXTURES.iterdir() if p.is_dir()) == sorted(ALL_TYPES)


@pytest.mark.parametrize("etype", ALL_TYPES)
def test_const_matches_openvino(etype):
    model = irrun.read_model(FIXTURES / etype / "model.xml")
    (layer,) = [d["layer"] for _, d in model.graph.nodes(data=True) if d["layer"].type == "Const"]
    assert layer.data["element_type"] == etype
    value = layer.const_value
    assert value.dtype == TYPES[etype].dtype
    expected = np.load(FIXTURES / etype / "expected.npz")["value"]
    got = as_openvino_exposes(value, etype)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    np.testing.assert_array_equal(got, expected)               # NaN matches NaN, exactly otherwise
    if got.dtype.kind == "f":                                   # and the zeros keep their sign
        np.testing.assert_array_equal(np.signbit(got), np.signbit(expected))
    out = model.run({})["out"]                                  # the same through the executor
    np.testing.assert_array_equal(as_openvino_exposes(out, etype), expected)


# --- the reader's bounds checks (ir-format.md §7) --------------------------------------------------

def _const_ir(tmp_path, value=np.arange(6, dtype=np.float32).reshape(2, 3)) -> Path:
    b = IRWriter("c")
    b.const(np.zeros(3, np.int64))            # something before: the tested Const has offset 24
    c = b.const(value)
    b.layers[c[0]]["name"] = "weights"
    b.result(c, "out")
    return b.save(tmp_path / "m.xml")


def _raises_for_layer(path, fragment):
    with pytest.raises(ModelFileError) as e:
        irrun.read_model(path)
    assert fragment in e.value.message
    assert e.value.layer is not None and e.value.layer.name == "weights" and e.value.layer.type == "Const"
    return e.value


def test_bin_shorter_than_offset_plus_size(tmp_path):
    path = _const_ir(tmp_path)
    irrun.read_model(path)                                    # intact: fine
    binp = path.with_suffix(".bin")
    binp.write_bytes(binp.read_bytes()[:-1])                  # one byte short
    e = _raises_for_layer(path, "Const bytes [24, 48) lie outside the weights file (47 bytes)")
    assert e.file == str(binp)


def test_size_smaller_than_shape_times_element_size(tmp_path):
    path = _const_ir(tmp_path)
    xml = path.read_text().replace('offset="24" size="24"', 'offset="24" size="20"')
    assert 'size="20"' in xml
    path.write_text(xml)
    _raises_for_layer(path, "needs 24 bytes but size=20")


def test_packed_size_too_small(tmp_path):
    b = IRWriter("c")
    c = b.const(None, etype="u3", raw=bytes(3), shape=[9])   # 9 u3 elements need two blocks
    b.layers[c[0]]["name"] = "weights"
    b.result(c, "out")
    _raises_for_layer(b.save(tmp_path / "m.xml"), "needs 6 bytes but size=3")


def test_larger_size_is_accepted(tmp_path):
    # OpenVINO accepts a size larger than needed and ignores the extra bytes (ir-format.md §7)
    b = IRWriter("c")
    b.result(b.const(None, etype="f32", raw=np.array([1.0, 2.0], np.float32).tobytes(), shape=[1]), "out")
    assert irrun.read_model(b.save(tmp_path / "m.xml")).run({})["out"].tolist() == [1.0]


def _empty_const_ir(tmp_path, offset=None) -> Path:
    b = IRWriter("c")
    b.result(b.const(np.arange(3, dtype=np.float32)), "a")   # 12 bytes first
    e = b.const(np.zeros(0, np.int64))                        # then an empty Const at offset 12
    b.layers[e[0]]["name"] = "weights"
    if offset is not None:
        b.layers[e[0]]["attrs"]["offset"] = str(offset)
    b.result(e, "e")
    return b.save(tmp_path / "m.xml")


def test_empty_const_after_other_bytes(tmp_path):
    assert irrun.read_model(_empty_const_ir(tmp_path)).run({})["e"].shape == (0,)


def test_empty_const_beyond_the_bin(tmp_path):
    # measured: OpenVINO checks offset + size <= len(bin) even for size 0 ("Incorrect weights in bin file!")
    _raises_for_layer(_empty_const_ir(tmp_path, offset=100), "lie outside the weights file")
