"""PriorBox-1/8 and PriorBoxClustered-1: the specs' shape examples, boxes computed by hand from the
rules in irrun/ops/prior_box.py, the refusals, and the OpenVINO measurements of
tools/expectations/make_detection_expectations.py."""
from functools import partial

import numpy as np
import pytest

from helpers import Param, infer_op, raises_for, run_op, shape_str
from irrun.errors import ShapeError
from nn_cases import case_ids, replay

COUNT = "boxes per cell into an output sized for"
REFUSE = {"PriorBox1-shape-overflow": COUNT, "PriorBox8-shape-overflow": COUNT,
          "PriorBox1-shape-mxnet-max": COUNT, "PriorBox8-shape-mxnet-max": COUNT}
#: OpenVINO fails in its kernel's assertion; irrun says it in its shape rule
MESSAGES = {"PriorBox1-shape-variance-2": "variance must have 0, 1 or 4 values, got 2",
            "PriorBox8-shape-variance-2": "variance must have 0, 1 or 4 values, got 2",
            "PriorBoxClustered-shape-variance-3": "variance must have 0, 1 or 4 values, got 3"}
INT_TYPES = [np.int64, np.int32, np.int16, np.int8, np.uint64, np.uint32, np.uint16, np.uint8]


@pytest.mark.parametrize("case", case_ids("PriorBox", "PriorBoxClustered"))
def test_openvino_case(case):
    replay(case, REFUSE, MESSAGES)


def prior_box(size, image, version="opset8", params=(0, 1), **kw):
    a = dict(offset=0.5)
    a.update(kw)
    return run_op("PriorBox", [np.array(size, np.int64), np.array(image, np.int64)], a, version,
                  params=params)[0]


def test_spec_example_shapes():
    # prior-box-8.rst: [24, 42] cells of a [384, 672] image, min 16, max 38.46, ratio 2 flipped -> 4 priors
    a = dict(aspect_ratio=[2.0], clip=False, flip=True, max_size=[38.46], min_size=[16.0], offset=0.5, step=16.0,
             variance=[0.1, 0.1, 0.2, 0.2])
    for version in ("opset1", "opset8"):
        (out,) = infer_op("PriorBox", [np.array([24, 42]), np.array([384, 672])], a, version, params=())
        assert shape_str(out) == "[2,16128]" and out.etype.name == "f32"
    # prior-box-clustered-1.rst: [10, 19] cells, 9 sizes -> [2, 6840]
    a = dict(clip=False, height=[44.0, 10.0, 30.0, 19.0, 94.0, 32.0, 61.0, 53.0, 17.0], offset=0.5, step=16.0,
             variance=[0.1, 0.1, 0.2, 0.2], width=[86.0, 13.0, 57.0, 39.0, 68.0, 34.0, 142.0, 50.0, 23.0])
    (out,) = infer_op("PriorBoxClustered", [np.array([10, 19]), np.array([180, 320])], a, "opset1", params=())
    assert shape_str(out) == "[2,6840]"


@pytest.mark.parametrize("params", [(0, 1), ()], ids=["param", "const"])
@pytest.mark.parametrize("version", ["opset1", "opset8"])
def test_min_max_and_ratio_boxes(version, params):
    # one cell of a 10 x 10 image: centre (5, 5); min 4 -> half 2; max 9 -> half sqrt(36) / 2 = 3;
    # ratio 2 -> half sizes 2 * sqrt(2) by 2 / sqrt(2)
    out = prior_box([1, 1], [10, 10], version, params, min_size=[4.0], max_size=[9.0], aspect_ratio=[2.0])
    r = np.sqrt(2)
    np.testing.assert_allclose(out, [[0.3, 0.3, 0.7, 0.7, 0.2, 0.2, 0.8, 0.8,
                                      (5 - 2 * r) / 10, (5 - 2 / r) / 10, (5 + 2 * r) / 10, (5 + 2 / r) / 10],
                                     [0.1] * 12], rtol=1e-5)


def test_v8_ratio_boxes_before_max():
    out = prior_box([1, 1], [10, 10], "opset8", min_size=[4.0], max_size=[9.0], aspect_ratio=[2.0],
                    min_max_aspect_ratios_order=False)
    np.testing.assert_allclose(out[0, 4:8], [(5 - 2 * np.sqrt(2)) / 10, (5 - np.sqrt(2)) / 10,
                                             (5 + 2 * np.sqrt(2)) / 10, (5 + np.sqrt(2)) / 10], rtol=1e-5)
    np.testing.assert_allclose(out[0, 8:], [0.2, 0.2, 0.8, 0.8], rtol=1e-5)


def test_step_offset_clip_and_variances():
    # two cells of a 10 x 20 (h x w) image, step 8, offset 0.5: centres (4, 4) and (12, 4)
    out = prior_box([1, 2], [10, 20], min_size=[4.0], step=8.0, variance=[0.1, 0.1, 0.2, 0.2])
    np.testing.assert_allclose(out, [[0.1, 0.2, 0.3, 0.6, 0.5, 0.2, 0.7, 0.6], [0.1, 0.1, 0.2, 0.2] * 2], rtol=1e-5)
    out = prior_box([1, 1], [10, 10], min_size=[16.0], clip=True, variance=[0.5])
    np.testing.assert_array_equal(out, [[0, 0, 1, 1], [0.5] * 4])


def test_mxnet_sizes_scale_with_the_image_height():
    # scale_all_sizes=false: min 0.4 * IH 10 = 4; step 0.5 * IH = 5, offset 0.5 -> centre (2.5, 2.5)
    out = prior_box([1, 1], [10, 10], min_size=[0.4], step=0.5, scale_all_sizes=False)
    np.testing.assert_allclose(out[0], [0.05, 0.05, 0.45, 0.45], rtol=1e-5, atol=1e-7)


def test_fixed_size_density():
    # fixed size 8, density 2 in a 16 x 16 image with step 16: shift 4, sub-centres 8 - 4 + 2 + {0, 4}
    out = prior_box([1, 1], [16, 16], fixed_size=[8.0], density=[2.0], step=16.0)
    np.testing.assert_allclose(out[0], np.array([[2, 2, 10, 10], [6, 2, 14, 10], [2, 6, 10, 14], [6, 6, 14, 14]]).reshape(-1) / 16,
                               rtol=1e-6)


@pytest.mark.parametrize("dtype", INT_TYPES)
def test_integer_input_types(dtype):
    out = run_op("PriorBox", [np.array([1, 1], dtype), np.array([10, 10], dtype)], dict(offset=0.5, min_size="4"),
                 "opset8", params=(0, 1))[0]
    np.testing.assert_allclose(out, [[0.3, 0.3, 0.7, 0.7], [0.1] * 4], rtol=1e-6)


def test_output_size_known_at_run_time():
    (out,) = infer_op("PriorBox", [Param("i64", "2"), np.array([300, 300])], dict(offset=0.5, min_size="4"), "opset8")
    assert shape_str(out) == "[2,?]"


def test_refusals():
    rejects = partial(raises_for, "PriorBox")
    e = rejects(ShapeError, "write 2 boxes per cell into an output sized for 3", prior_box, [2, 2], [8, 8],
                min_size=[4.0], max_size=[8.0, 16.0])
    assert e.openvino_loads
    rejects(ShapeError, "output size input must be an integral number, but is: f32", run_op, "PriorBox",
            [np.array([2, 2], np.float32), np.array([8, 8])], dict(offset=0.5, min_size="4"), "opset8")
    rejects(ShapeError, "Output size must have two elements. Got: 3", prior_box, [2, 2, 1], [8, 8], params=(),
            min_size=[4.0])


# ---------------------------------------------------------------------------------------------
# PriorBoxClustered

def clustered(size, image, params=(0, 1), **kw):
    a = dict(offset=0.5, width=[4.0], height=[2.0])
    a.update(kw)
    return run_op("PriorBoxClustered", [np.array(size, np.int64), np.array(image, np.int64)], a, "opset1",
                  params=params)[0]


@pytest.mark.parametrize("params", [(0, 1), ()], ids=["param", "const"])
def test_clustered_boxes(params):
    # one cell of a 10 x 10 image (step 10), centre (5, 5): box 4 x 2
    np.testing.assert_allclose(clustered([1, 1], [10, 10], params), [[0.3, 0.4, 0.7, 0.6], [0.1] * 4], rtol=1e-6)
    # steps 6 (x) and 4 (y), offset 0.5: centres x 3 and 9, y 2; clipped by default
    out = clustered([1, 2], [10, 10], params, step_w=6.0, step_h=4.0, variance=[0.1, 0.1, 0.2, 0.2])
    np.testing.assert_allclose(out, [[0.1, 0.1, 0.5, 0.3, 0.7, 0.1, 1.0, 0.3], [0.1, 0.1, 0.2, 0.2] * 2], rtol=1e-6)
    out = clustered([1, 1], [10, 10], params, width=[12.0], clip=False)
    np.testing.assert_allclose(out[0], [-0.1, 0.4, 1.1, 0.6], rtol=1e-6)


def test_clustered_errors():
    raises_for("PriorBoxClustered", ShapeError, "Size of heights vector: 2 doesn't match size of widths vector: 1",
               clustered, [1, 1], [10, 10], height=[2.0, 3.0])


@pytest.mark.parametrize("bad", [dict(fixed_size=[float("inf")], density=[1.0]), dict(min_size=[-4.0]),
                                 dict(min_size=[4.0], max_size=[float("nan")])])
def test_non_finite_or_negative_sizes_are_refused(bad):
    # found by tests/test_ops_robustness.py: fixed_size="inf,0.5,-1.0" crashed converting inf to int
    raises_for("PriorBox", ShapeError, "must hold finite sizes", prior_box, [2, 2], [8, 8], **bad)
