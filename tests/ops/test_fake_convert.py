"""FakeConvert-13: the spec's IR example and formula, hand-checked f8e4m3/f8e5m2 roundings
(ties, subnormals, saturation, NaN as OpenVINO's CPU plugin gives it), scale/shift broadcasting,
partial shapes, errors, element types, and OpenVINO's answers
(tools/expectations/make_trig_bitwise_dft_sampling_expectations.py)."""
from functools import partial

import numpy as np
import pytest

from helpers import Param, infer_op, raises_for, run_op, shape_str
from irrun.types import elements
from irrun.errors import ShapeError
from nn_cases import case_ids, replay

rejects = partial(raises_for, "FakeConvert")
BF16 = elements.TYPES["bf16"].dtype


@pytest.mark.parametrize("case", case_ids("FakeConvert"))
def test_openvino_case(case):
    replay(case)


def fc(x, scale=1.0, shift=None, dst="f8e4m3", dtype=np.float32, params=(0,)):
    ins = [np.asarray(x, dtype), np.asarray(scale, dtype)] + ([] if shift is None else [np.asarray(shift, dtype)])
    return run_op("FakeConvert", ins, {"destination_type": dst}, "opset13", params=params)[0]


def test_spec_example_shape():
    out = infer_op("FakeConvert", [Param("f32", "1,64,56,56"), Param("f32", "1,64,1,1"), Param("f32", "1,64,1,1")],
                   {"destination_type": "f8e4m3"}, "opset13", params=())
    assert shape_str(out[0]) == "[1,64,56,56]"


@pytest.mark.parametrize("params", [(0,), ()], ids=["param", "const"])
def test_e4m3_rounding(params):
    """f8e4m3 has 3 mantissa bits: 1.0625 is a tie between 1 and 1.125 (to even: 1), 1.1875 rounds
    up to 1.25; 17 -> 16; the largest value is 448; 2**-9 is the smallest subnormal."""
    x = [1.0625, 1.1875, 17, 100, 440, 464, 1000, 2.0 ** -9, 0.001, 1e-6]
    np.testing.assert_array_equal(fc(x, params=params), [1, 1.25, 16, 96, 448, 448, 448, 2.0 ** -9, 2.0 ** -9, 0])


def test_e5m2_rounding():
    """f8e5m2 has 2 mantissa bits: 1.125 -> 1 (tie to even), 3.3 -> 3.5, 60000 -> 57344 (max)."""
    np.testing.assert_array_equal(fc([1.125, 3.3, 480, 60000, 1e6], dst="f8e5m2"), [1, 3.5, 512, 57344, 57344])


def test_non_finite_values_saturate():
    np.testing.assert_array_equal(fc([np.inf, -np.inf, np.nan]), [448, -448, -448])
    np.testing.assert_array_equal(fc([np.inf, np.nan], dst="f8e5m2"), [57344, -57344])


def test_scale_and_shift():
    """x = 1.7, scale 2, shift 0.5: 1.7*2 - 0.5 = 2.9 -> 3.0 (f8e4m3), (3 + 0.5) / 2 = 1.75."""
    np.testing.assert_allclose(fc([1.7], 2.0, 0.5), [1.75], rtol=1e-6)


def test_per_channel_scales():
    x = np.ones((1, 2, 2), np.float32) * 1.1
    out = fc(x, np.array([[[1.0], [10.0]]], np.float32))
    np.testing.assert_allclose(out[0, 0], [1.125, 1.125], rtol=1e-6)
    np.testing.assert_allclose(out[0, 1], [1.1, 1.1], rtol=1e-6)              # 11 is exact in f8e4m3


@pytest.mark.parametrize("dtype", [np.float16, BF16], ids=["f16", "bf16"])
def test_low_float_types(dtype):
    """(and the intermediate rounding: bf16 43.9375 = 12.625 * 3.5 - 0.25 becomes 44, a tie that
    f8e5m2 rounds to even, 48: (48 + 0.25) * bf16(1 / 3.5) = 13.75 in bf16)"""
    if np.dtype(dtype) == BF16:
        assert float(fc([12.625], 3.5, 0.25, "f8e5m2", dtype)[0]) == 13.75
    out = fc([1.0625, 17, 1000], dtype=dtype)
    assert out.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(out.astype(np.float32), [1, 16, 448])


@pytest.mark.parametrize("ins, message", [
    ([Param("f64", "2"), Param("f64", "1")], "must be a bf16, f16, f32 but got: f64"),
    ([Param("f32", "2"), Param("f16", "1")], "Mixed input types are not supported."),
    ([Param("f32", "3,4"), Param("f32", "2,3,4")], "inputs cannot be broadcast into data"),
    ([Param("f32", "2,3,4"), Param("f32", "3,1"), Param("f32", "1,1")], "scale shape is not compatible with shift shape")])
def test_errors(ins, message):
    rejects(ShapeError, message, infer_op, "FakeConvert", ins, {"destination_type": "f8e4m3"}, "opset13", params=())


def test_destination_type_must_be_f8():
    rejects(ShapeError, "Bad format for f8 conversion type: f16", infer_op, "FakeConvert",
            [Param("f32", "2"), Param("f32", "1")], {"destination_type": "f16"}, "opset13", params=())
