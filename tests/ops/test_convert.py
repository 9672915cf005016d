"""Convert-1, expected values measured on OpenVINO 2026.4.1 (reference evaluator and CPU agree)."""
import ml_dtypes
import numpy as np
import pytest

import irrun
from helpers import run_op
from irrun.irwriter import IRWriter
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
