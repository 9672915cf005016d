"""Convert-1, expected values measured on OpenVINO 2026.4.1 (reference evaluator and CPU agree)."""
import ml_dtypes
import numpy as np
import pytest

import irrun
from helpers import Param, infer_op, raises_for, run_op
from irrun.ir.builder import IRWriter
from irrun.errors import UnsupportedError

X = np.array([1.5, -1.5, 2.5, -2.7, 300.2, -300.2], np.float32)


@pytest.mark.parametrize("params", [(0,), ()])
@pytest.mark.parametrize("dst,expect", [
    ("i32", [1, -1, 2, -2, 300, -300]),
    ("i64", [1, -1, 2, -2, 300, -300]),
    ("u8", [1, 255, 2, 254, 44, 212]),
    ("i8", [1, -1, 2, -2, 44, -44]),
    ("boolean", [True] * 6),
])
def test_float_to_integer_truncates_then_wraps(dst, expect, params):
    (out,) = run_op("Convert", [X], {"destination_type": dst}, params=params)
    np.testing.assert_array_equal(out, expect)


@pytest.mark.parametrize("dst,expect", [("u8", [255, 0, 44, 127]), ("i8", [-1, 0, 44, 127]),
                                        ("boolean", [True] * 4)])
def test_integer_wraps(dst, expect):
    (out,) = run_op("Convert", [np.array([-1, 256, 300, -129], np.int32)], {"destination_type": dst})
    np.testing.assert_array_equal(out, expect)


def test_to_float_types_and_bool_source():
    (out,) = run_op("Convert", [np.array([0.1, 1e5, -2.0], np.float32)], {"destination_type": "bf16"})
    assert out.dtype == ml_dtypes.bfloat16
    np.testing.assert_array_equal(out.astype(np.float32), np.array([0.1, 1e5, -2.0], np.float32).astype(ml_dtypes.bfloat16).astype(np.float32))
    (out,) = run_op("Convert", [np.array([True, False])], {"destination_type": "f16"})
    np.testing.assert_array_equal(out, np.array([1, 0], np.float16))


def test_unsupported_target_is_named():
    with pytest.raises(UnsupportedError, match=r'"Convert_1" \(Convert-opset1\).*Convert to nf4') as e:
        run_op("Convert", [X], {"destination_type": "nf4"})
    assert e.value.exit_code == 3


def test_nf4_and_u4_consts_decompress(tmp_path):
    """Const(nf4/u4, packed low nibble first) -> Convert(f32): the LLM weight pattern.
    Bytes 0x70 0xF0 0x00 hold codes [0, 7, 0, 15, 0]; NF4 table values from ir-format.md §6."""
    for et, expect in (("nf4", [-1.0, 0.0, -1.0, 1.0, -1.0]), ("u4", [0, 7, 0, 15, 0])):
        b = IRWriter()
        c = b.const(None, etype=et, raw=bytes([0x70, 0xF0, 0x00]), shape=[5])
        b.result(b.layer("Convert", [c], {"destination_type": "f32"}, out_dims=[[5]]), "w")
        p = b.save(tmp_path / f"{et}.xml")
        np.testing.assert_array_equal(irrun.read_model(p).run({})["w"], np.array(expect, np.float32))


@pytest.mark.parametrize("dst,x,expect", [
    # f32 -> f16 -> f8 (two roundings): 1.1251901 -> f16 1.125, a tie in f8e5m2 -> 1.0 (one rounding
    # gives 1.25); 61439 -> f16 61440, a tie -> inf (one rounding: 57344)
    ("f8e5m2", [1.1251901388168335, -208.0273895263672, 61439.0], [1.0, -192.0, np.inf]),
    ("f8e4m3", [272.0675048828125, -272.11865234375, 247.94308471679688], [256.0, -256.0, 256.0]),
])
def test_f32_to_f8_rounds_through_f16(dst, x, expect):
    """Measured on OpenVINO 2026.4.1 (CPU and reference agree): f32 goes to f16 first."""
    (out,) = run_op("Convert", [np.array(x, np.float32)], {"destination_type": dst})
    np.testing.assert_array_equal(out.astype(np.float32), np.array(expect, np.float32))


@pytest.mark.parametrize("src", [np.float32, np.float16])
def test_to_f4e2m1_saturates_nan(src):
    """Measured on OpenVINO 2026.4.1 (CPU and reference): NaN -> 6, -NaN -> -6 (f4e2m1 has no
    NaN); the rest rounds once to nearest even, as ONNX's Cast test expects."""
    x = np.array([np.nan, -np.nan, np.inf, -np.inf, 0.25, 0.75, -0.25, 2.5, 3.5, 5, 7, 100], src)
    (out,) = run_op("Convert", [x], {"destination_type": "f4e2m1"})
    assert out.dtype == ml_dtypes.float4_e2m1fn
    np.testing.assert_array_equal(out.astype(np.float32), [6, -6, 6, -6, 0, 1, -0.0, 2, 4, 4, 6, 6])
    assert np.signbit(out.astype(np.float32)[6])


@pytest.mark.parametrize("src", [np.float32, np.float16])
def test_to_f8e8m0_follows_openvino(src):
    """Codes measured on OpenVINO 2026.4.1 (ONNX Cast test cases + a sweep): ties to the even code
    (1.5 -> 128 = 2.0, 3 -> 128, 6 -> 130 = 8.0), sign bit set -> code 0, +inf -> 254, NaN -> 255."""
    x = np.array([0, -0.0, -2, 1, 3, 1.5, 6, 7, 0.375, np.inf, -np.inf, np.nan, -np.nan], src)
    (out,) = run_op("Convert", [x], {"destination_type": "f8e8m0"})
    assert out.dtype == ml_dtypes.float8_e8m0fnu
    np.testing.assert_array_equal(out.view(np.uint8), [0, 0, 0, 127, 128, 128, 130, 130, 126, 254, 0, 255, 0])
    big = np.array([1e-40, 2.0 ** 127 * 1.5, 2.0 ** 127 * 1.49, 2.0 ** -127 * 1.4], np.float32)
    (out,) = run_op("Convert", [big], {"destination_type": "f8e8m0"})
    np.testing.assert_array_equal(out.view(np.uint8), [0, 254, 254, 0])


def test_convert_between_i4_and_u4_is_refused_by_name():
    # found by tests/test_hostile_props.py: ml_dtypes cannot cast int4 <-> uint4 (a TypeError, exit 4)
    for src, dst in (("i4", "u4"), ("u4", "i4")):
        raises_for("Convert", UnsupportedError, "does not support Convert from", infer_op, "Convert",
                   [Param(src, [2])], {"destination_type": dst})
