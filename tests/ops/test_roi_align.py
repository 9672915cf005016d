"""ROIAlign-3/9: the spec's IR example, hand-computed bins (bilinear samples, avg and max, the
aligned modes' offsets, boxes outside the map), partial shapes, errors, element types, and
OpenVINO's answers (tools/expectations/make_trig_bitwise_dft_sampling_expectations.py)."""
from functools import partial

import numpy as np
import pytest

from helpers import Param, infer_op, raises_for, run_op, shape_str
from irrun.types import elements
from irrun.limits.memory import MemoryBudgetError
from irrun.errors import ExecutionError, ShapeError
from nn_cases import case_ids, replay

rejects = partial(raises_for, "ROIAlign")
BF16 = elements.TYPES["bf16"].dtype
#: OpenVINO builds these; its kernels cannot run them (a negative sampling ratio fails the
#: reference's assertion; a batch index beyond the maps is refused by the CPU plugin at run time)
REFUSE = {"ROIAlign9-shape-sr-negative": "sampling_ratio -1 is negative"}
FM = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)       # value = 4*y + x


@pytest.mark.parametrize("case", case_ids("ROIAlign"))
def test_openvino_case(case):
    replay(case, REFUSE)


def roi(fm, boxes, idx, ph=1, pw=1, sr=1, scale=1.0, mode="avg", aligned=None, params=(0, 1, 2)):
    attrs = dict(pooled_h=ph, pooled_w=pw, sampling_ratio=sr, spatial_scale=scale, mode=mode)
    version = "opset3"
    if aligned is not None:
        attrs["aligned_mode"], version = aligned, "opset9"
    ins = [np.asarray(fm), np.asarray(boxes, np.asarray(fm).dtype), np.asarray(idx, np.int64)]
    return run_op("ROIAlign", ins, attrs, version, params=params)[0]


def test_spec_example_shape():
    out = infer_op("ROIAlign", [Param("f32", "7,256,200,200"), Param("f32", "1000,4"), Param("i64", "1000")],
                   dict(pooled_h=6, pooled_w=6, spatial_scale=16.0, sampling_ratio=2, mode="avg",
                        aligned_mode="half_pixel"), "opset9", params=())
    assert shape_str(out[0]) == "[1000,256,6,6]"


@pytest.mark.parametrize("params", [(0, 1, 2), ()], ids=["params", "consts"])
def test_one_sample_per_bin_is_bilinear(params):
    """Box [0, 0, 2, 2], 2x2 bins of size 1, one sample at each bin centre (0.5, 0.5) ...:
    the bilinear value of 4y + x there."""
    out = roi(FM, [[0, 0, 2, 2]], [0], ph=2, pw=2, sr=1, params=params)
    np.testing.assert_allclose(out, [[[[2.5, 3.5], [6.5, 7.5]]]])


def test_avg_and_max_of_four_samples():
    """One bin over [0, 2]: samples at 0.5 and 1.5 per axis -> values 2.5, 3.5, 6.5, 7.5."""
    np.testing.assert_allclose(roi(FM, [[0, 0, 2, 2]], [0], sr=2), [[[[5.0]]]])
    np.testing.assert_allclose(roi(FM, [[0, 0, 2, 2]], [0], sr=2, mode="max"), [[[[7.5]]]])
    np.testing.assert_allclose(roi(-FM, [[0, 0, 2, 2]], [0], sr=2, mode="max"), [[[[0.0]]]])   # max starts at 0


def test_aligned_modes():
    """half_pixel_for_nn shifts the box by -0.5 (samples at 0 and 1: values 0, 1, 4, 5 -> 2.5);
    half_pixel maps (c + 0.5) * scale - 0.5: with scale 1 the same as asymmetric."""
    box = [[0, 0, 2, 2]]
    np.testing.assert_allclose(roi(FM, box, [0], sr=2, aligned="half_pixel_for_nn"), [[[[2.5]]]])
    np.testing.assert_allclose(roi(FM, box, [0], sr=2, aligned="half_pixel"), [[[[5.0]]]])
    np.testing.assert_allclose(roi(FM, box, [0], sr=2, aligned="asymmetric"), [[[[5.0]]]])


def test_small_boxes_widen_only_when_asymmetric():
    """A 0.5-wide box: asymmetric makes it 1 wide (sample at 0.5 -> 2.5 ... with sr=1 at y=0.5);
    half_pixel_for_nn keeps it (sample at x=-0.25 clamped to 0, y=-0.25 -> 0)."""
    box = [[0, 0, 0.5, 0.5]]
    np.testing.assert_allclose(roi(FM, box, [0], aligned="asymmetric"), [[[[2.5]]]])
    np.testing.assert_allclose(roi(FM, box, [0], aligned="half_pixel_for_nn"), [[[[0.0]]]])


def test_samples_outside_the_map_count_zero():
    """Samples at x = 5.5 > W=4 are 0; at x = 3.5 the column index clamps to 3."""
    np.testing.assert_allclose(roi(FM, [[5, 0, 6, 1]], [0]), [[[[0.0]]]])
    np.testing.assert_allclose(roi(FM, [[3, 0, 4, 1]], [0]), [[[[5.0]]]])          # x 3.5 -> 3, y 0.5 -> 2


def test_adaptive_sampling_ratio():
    """sampling_ratio 0: ceil(bin size) samples: a 3x1 box -> 3 x 1 samples (x 0.5, 1.5, 2.5)."""
    np.testing.assert_allclose(roi(FM, [[0, 0, 3, 1]], [0], sr=0), [[[[(2.5 + 3.5 + 4.5) / 3]]]])


@pytest.mark.parametrize("dtype", [np.float32, np.float16, BF16, np.float64], ids=["f32", "f16", "bf16", "f64"])
def test_float_types(dtype):
    out = roi(FM.astype(dtype), [[0, 0, 2, 2]], [0], sr=2)
    assert out.dtype == np.dtype(dtype)
    np.testing.assert_allclose(out.astype(np.float64), [[[[5.0]]]])


@pytest.mark.parametrize("box", [[0, 0, 3e38, 3e38], [3e38, 3e38, 1, 1], [-3e38, -3e38, 1, 1]])
@pytest.mark.parametrize("sr", [0, 2])
def test_coordinates_near_the_f32_limit_warn_nothing(box, sr):
    """Issue 11: samples far outside the map count 0 (no overflow in the int cast); a grid of
    3e38 samples per bin is refused by the memory budget, not attempted."""
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        if sr == 0 and box[2] - box[0] > 1:
            rejects(MemoryBudgetError, "the sampling grid", roi, FM, [box], [0], sr=0)
        else:
            out = roi(FM, [box], [0], sr=sr)
            assert np.isfinite(out).all() and out.shape == (1, 1, 1, 1)


def test_a_box_width_that_overflows_is_refused():
    rejects(ExecutionError, "width or height overflows", roi, FM, [[-3e38, 0, 3e38, 1]], [0])


def test_batch_index_out_of_range():
    rejects(ExecutionError, "Demanded batch (id = 1) doesn't exist", roi, FM, [[0, 0, 2, 2]], [1])


@pytest.mark.parametrize("ins, message", [
    (["2,3,8", "7,4", "7"], "Expected a 4D tensor for the input data. Got: [2,3,8]"),
    (["2,3,8,8", "7,5", "7"], "op dimension is expected to be equal to 4. Got: 5"),
    (["2,3,8,8", "7,4", "6"], "Got: 7 and: 6")])
def test_shape_errors(ins, message):
    params = [Param("f32", ins[0]), Param("f32", ins[1]), Param("i64", ins[2])]
    rejects(ShapeError, message, infer_op, "ROIAlign", params,
            dict(pooled_h=2, pooled_w=2, sampling_ratio=1, spatial_scale=1.0, mode="avg"), "opset3", params=())
