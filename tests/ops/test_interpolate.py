"""Interpolate-1/4/11: hand-computed resizes (coordinate transforms, nearest rounding modes, the
linear/cubic/pillow filters, output sizes) and the OpenVINO measurements (nn_cases)."""
import numpy as np
import pytest

from helpers import ALL_DTYPES, Param, infer_op, raises_for, run_op, shape_str
from irrun.types import elements
from irrun.errors import UnsupportedError
from nn_cases import case_ids, replay

NUMERIC = [d for d in ALL_DTYPES if np.dtype(d) not in (np.dtype(np.bool_), elements.STRING_DTYPE)]
PILLOW_AXES = "For Pillow based modes exactly two (HW) axes need to be provided."
#: OpenVINO's shape inference lets these through; its reference evaluator refuses them, its CPU
#: plugin computes something undocumented (3-axis pillow) or fails ("area")
REFUSE = {"Interpolate11-bilinear_pillow-3-axes": PILLOW_AXES, "Interpolate11-shape-pillow-axes": PILLOW_AXES,
          "Interpolate1-area": "Interpolate-1 mode 'area' is not supported"}
RAMP = np.array([0, 1, 2, 3], np.float32).reshape(1, 1, 1, 4)
TWO = np.array([0, 10], np.float32).reshape(1, 1, 1, 2)


@pytest.mark.parametrize("case", case_ids("Interpolate"))
def test_openvino_case(case):
    replay(case, REFUSE)


def v11(x, sizes, mode, ctm="half_pixel", nearest="round_prefer_floor", axes=(2, 3), params=(0,), **a):
    attrs = dict(mode=mode, shape_calculation_mode="sizes", coordinate_transformation_mode=ctm, nearest_mode=nearest, **a)
    return run_op("Interpolate", [x, np.array(sizes, np.int64), np.array(axes, np.int64)], attrs, "opset11",
                  params=params)[0]


def v4(x, sizes, scales, mode, ctm="half_pixel", calc="sizes", params=(0,)):
    attrs = dict(mode=mode, shape_calculation_mode=calc, coordinate_transformation_mode=ctm)
    return run_op("Interpolate", [x, np.array(sizes, np.int64), np.array(scales, np.float32),
                                  np.array([2, 3], np.int64)], attrs, "opset4", params=params)[0]


@pytest.mark.parametrize("nearest, up", [
    ("round_prefer_floor", [0, 0, 1, 1, 2, 2, 3, 3]), ("round_prefer_ceil", [0, 1, 1, 2, 2, 3, 3, 3]),
    ("floor", [0, 0, 1, 1, 2, 2, 3, 3]), ("ceil", [0, 1, 1, 2, 2, 3, 3, 3]), ("simple", [0, 0, 1, 1, 2, 2, 3, 3]),
])
def test_nearest_modes_at_ties(nearest, up):
    # asymmetric, 4 -> 8: source coordinates 0, 0.5, 1, ..., 3.5 (ceil of 3.5 is clamped to 3)
    np.testing.assert_array_equal(v11(RAMP, [1, 8], "nearest", "asymmetric", nearest)[0, 0, 0], up)


@pytest.mark.parametrize("nearest, down", [("round_prefer_floor", [0, 2]), ("round_prefer_ceil", [1, 3]),
                                            ("simple", [1, 3]), ("floor", [0, 2])])
def test_nearest_downsampling_half_pixel(nearest, down):
    # 4 -> 2: (o + 0.5) / 0.5 - 0.5 = 0.5, 2.5; "simple" takes the ceiling when shrinking
    np.testing.assert_array_equal(v11(RAMP, [1, 2], "nearest", "half_pixel", nearest)[0, 0, 0], down)


@pytest.mark.parametrize("dtype", NUMERIC)
def test_nearest_every_numeric_type(dtype):
    x = np.array([[1, 2], [3, 4]]).astype(dtype).reshape(1, 1, 2, 2)
    out = v4(x, [4, 4], [2, 2], "nearest", "asymmetric")
    assert out.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(out[0, 0].astype(np.int64), [[1, 1, 2, 2], [1, 1, 2, 2], [3, 3, 4, 4], [3, 3, 4, 4]])


@pytest.mark.parametrize("mode, ctm, want", [
    ("linear_onnx", "align_corners", [0, 5, 10]),
    ("linear", "align_corners", [0, 5, 10]),
    ("linear_onnx", "asymmetric", [0, 20 / 3, 10]),        # 2/3 * 10, then clamped to the last pixel
    ("cubic", "align_corners", [0, 5, 10]),
])
def test_two_to_three(mode, ctm, want):
    np.testing.assert_allclose(v11(TWO, [1, 3], mode, ctm)[0, 0, 0], want, rtol=1e-6)


@pytest.mark.parametrize("mode", ["linear", "linear_onnx"])
@pytest.mark.parametrize("params", [(0,), (0, 1)])
def test_half_pixel_linear(mode, params):
    # coordinates -0.25, 0.25, 0.75, 1.25: the outer two fall on the edge pixels
    np.testing.assert_allclose(v11(TWO, [1, 4], mode, params=params)[0, 0, 0], [0, 2.5, 7.5, 10], rtol=1e-6)


def test_cubic_taps():
    # asymmetric x2 of 0 0 16 0 0: at coordinate 2.5 the four taps weigh (a = -0.75)
    # -0.09375, 0.59375, 0.59375, -0.09375
    x = np.array([0, 0, 16, 0, 0], np.float32).reshape(1, 1, 1, 5)
    out = v11(x, [1, 10], "cubic", "asymmetric")[0, 0, 0]
    np.testing.assert_allclose(out[3:8], [9.5, 16, 9.5, 0, -1.5], rtol=1e-6)


@pytest.mark.parametrize("mode, want", [("bilinear_pillow", [5 / 7, 16 / 7]),
                                        ("bicubic_pillow", [1.109375 / 1.890625, 4.5625 / 1.890625])])
def test_pillow_downsampling(mode, want):
    # 4 -> 2, filter arguments (x - center + 0.5) / 2 with centers 1 and 3:
    # bilinear (support 2): weights (0.75, 0.75, 0.25) / 1.75 and (0.25, 0.75, 0.75) / 1.75;
    # bicubic with Pillow's a = -0.5 (support 4): (0.8671875, 0.8671875, 0.2265625, -0.0703125)
    # / 1.890625 and the mirror image
    out = v11(RAMP, [1, 2], mode, cube_coeff=-0.5)[0, 0, 0]
    np.testing.assert_allclose(out, want, rtol=1e-6)


def test_scales_mode_output_sizes():
    # floor(dim * (scale + 1e-6)) in float32: 5 * 1.5 -> 7, 6 * 0.3333 -> 1, an unknown dim stays unknown
    info = infer_op("Interpolate", [Param("f32", "1,5,6,?"), np.array([1.5, 0.3333, 2.0], np.float32),
                                    np.array([1, 2, 3], np.int64)],
                    dict(mode="nearest", shape_calculation_mode="scales"), "opset11", params=())[0]
    assert shape_str(info) == "[1,7,1,?]"
    out = v4(RAMP, [1, 1], [1.0, 2.5], "nearest", "asymmetric", calc="scales")
    # 4 * 2.5 -> 10 positions at o / 2.5 = 0, 0.4, 0.8, ..., 3.6, rounded half down, clamped
    np.testing.assert_array_equal(out[0, 0, 0], [0, 0, 1, 1, 2, 2, 2, 3, 3, 3])


def test_runtime_sizes():
    info = infer_op("Interpolate", [Param("f32", "1,3,5,6"), Param("i64", "2"), np.array([2, 3], np.int64)],
                    dict(mode="nearest", shape_calculation_mode="sizes"), "opset11", params=())[0]
    assert shape_str(info) == "[1,3,?,?]"
    np.testing.assert_array_equal(v11(RAMP, [1, 2], "nearest", "asymmetric", params=(0, 1))[0, 0, 0], [0, 2])


@pytest.mark.parametrize("mode, axes, ac, target, want", [
    ("nearest", [3], False, [8], [0, 0, 1, 1, 2, 2, 3, 3]),                        # "simple", asymmetric
    ("linear", [2, 3], False, [1, 8], [0, 0.5, 1, 1.5, 2, 2.5, 3, 3]),            # 4-D over {2, 3}: asymmetric
    ("linear", [3], False, [8], [0, 0.25, 0.75, 1.25, 1.75, 2.25, 2.75, 3]),     # otherwise half_pixel
    ("linear", [2, 3], True, [1, 7], [0, 0.5, 1, 1.5, 2, 2.5, 3]),
])
def test_interpolate1(mode, axes, ac, target, want):
    out = run_op("Interpolate", [RAMP, np.array(target, np.int64)], dict(axes=axes, mode=mode, align_corners=ac))[0]
    np.testing.assert_allclose(out[0, 0, 0], want, rtol=1e-6)


def test_interpolate1_area_is_refused():
    raises_for("Interpolate", UnsupportedError, "Interpolate-1 mode 'area' is not supported", infer_op, "Interpolate",
               [Param("f32", "1,1,4,4"), np.array([2, 2], np.int64)], dict(axes=[2, 3], mode="area"), params=())


def test_strings_are_refused():
    raises_for("Interpolate", UnsupportedError, "irrun does not run Interpolate on string data", infer_op, "Interpolate",
               [Param("string", "1,1,4,4"), np.array([2, 2], np.int64), np.array([2, 3], np.int64)],
               dict(mode="nearest", shape_calculation_mode="sizes"), "opset11", params=())
