"""DetectionOutput-1/8: the spec's shape example, small hand-computed detections (Caffe and MXNet
styles, keep_top_k, ARM inputs), the shape rule, and the OpenVINO measurements of
tools/expectations/make_detection_expectations.py."""
from functools import partial

import numpy as np
import pytest

from helpers import Param, infer_op, raises_for, run_op, shape_str
from irrun.errors import ShapeError
from nn_cases import case_ids, replay

rejects = partial(raises_for, "DetectionOutput")
VERSIONS = ["opset1", "opset8"]


@pytest.mark.parametrize("case", case_ids("DetectionOutput"))
def test_openvino_case(case):
    replay(case)


def attrs(version, num_classes, **kw):
    a = dict(background_label_id=0, top_k=-1, variance_encoded_in_target=True, keep_top_k=[-1],
             code_type="caffe.PriorBoxParameter.CORNER", share_location=True, nms_threshold=0.5,
             confidence_threshold=0.1, normalized=True)
    a.update(kw)
    return dict(a, num_classes=num_classes) if version == "opset1" else a


def detect(version, loc, conf, priors, *arm, params=None, **kw):
    p_n = priors.shape[2] // (4 if kw.get("normalized", True) else 5)
    a = attrs(version, conf.shape[1] // p_n, **kw)
    ins = [loc, conf, priors, *arm]
    out = run_op("DetectionOutput", ins, a, version, params=tuple(range(len(ins))) if params is None else params)[0]
    return out[0, 0]


# three unit boxes: 0 and 1 overlap with IoU 1/3, box 2 is apart; zero logits leave them as they are
PRIORS = np.array([[[0, 0, 2, 2, 1, 0, 3, 2, 5, 5, 6, 6]]], np.float32)
LOC = np.zeros((1, 12), np.float32)
# classes: background, A, B; per prior
CONF = np.array([[0.1, 0.9, 0.2,   0.1, 0.8, 0.7,   0.9, 0.05, 0.6]], np.float32)


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("params", [None, ()], ids=["param", "const"])
def test_caffe_style(version, params):
    rows = detect(version, LOC, CONF, PRIORS, params=params)
    assert rows.shape == (9, 7)        # N * P * C rows without top_k / keep_top_k
    np.testing.assert_allclose(rows[:6], [
        [0, 1, 0.9, 0, 0, 2, 2],       # class A: prior 0 (0.9), prior 1 (0.8, IoU 1/3 <= 0.5 kept)
        [0, 1, 0.8, 1, 0, 3, 2],
        [0, 2, 0.7, 1, 0, 3, 2],       # class B: 0.7, 0.6, 0.2 (0.05 is below the threshold)
        [0, 2, 0.6, 5, 5, 6, 6],
        [0, 2, 0.2, 0, 0, 2, 2],
        [-1, 0, 0, 0, 0, 0, 0]], rtol=1e-6)
    assert (rows[6:] == 0).all()


@pytest.mark.parametrize("version", VERSIONS)
def test_nms_threshold_and_top_k(version):
    rows = detect(version, LOC, CONF, PRIORS, nms_threshold=0.3, top_k=2)
    assert rows.shape == (6, 7)        # N * top_k * C
    np.testing.assert_allclose(rows[:4], [[0, 1, 0.9, 0, 0, 2, 2],              # prior 1 suppressed (1/3 > 0.3)
                                          [0, 2, 0.7, 1, 0, 3, 2], [0, 2, 0.6, 5, 5, 6, 6],
                                          [-1, 0, 0, 0, 0, 0, 0]], rtol=1e-6)


@pytest.mark.parametrize("version", VERSIONS)
def test_keep_top_k(version):
    rows = detect(version, LOC, CONF, PRIORS, keep_top_k=[2])
    np.testing.assert_allclose(rows, [[0, 1, 0.9, 0, 0, 2, 2], [0, 1, 0.8, 1, 0, 3, 2]], rtol=1e-6)


@pytest.mark.parametrize("version", VERSIONS)
def test_mxnet_style(version):
    # each prior keeps its best non-background class (>= threshold): A for priors 0 and 1, B for 2
    rows = detect(version, LOC, CONF, PRIORS, decrease_label_id=True, confidence_threshold=0.6)
    np.testing.assert_allclose(rows[:4], [[0, 0, 0.9, 0, 0, 2, 2], [0, 0, 0.8, 1, 0, 3, 2],
                                          [0, 1, 0.6, 5, 5, 6, 6], [-1, 0, 0, 0, 0, 0, 0]], rtol=1e-6)


@pytest.mark.parametrize("version", VERSIONS)
def test_variance_and_centre_size_decoding(version):
    # prior [0, 0, 2, 2] with variances 0.1 0.1 0.2 0.2, logits (1, 0, ln 2 / 0.2, 0): centre moves
    # by 0.1 * 1 * 2 = 0.2 in x, the width doubles to 4 -> [1.2 - 2, 0, 1.2 + 2, 2]
    priors = np.array([[[0, 0, 2, 2], [0.1, 0.1, 0.2, 0.2]]], np.float32)
    loc = np.array([[1, 0, np.log(2) / 0.2, 0]], np.float32)
    rows = detect(version, loc, np.array([[0, 1]], np.float32), priors, variance_encoded_in_target=False,
                  code_type="caffe.PriorBoxParameter.CENTER_SIZE")
    np.testing.assert_allclose(rows[0], [0, 1, 1, -0.8, 0, 3.2, 2], rtol=1e-5, atol=1e-6)
    rows = detect(version, loc, np.array([[0, 1]], np.float32), priors, variance_encoded_in_target=False,
                  code_type="caffe.PriorBoxParameter.CENTER_SIZE", clip_after_nms=True)
    np.testing.assert_allclose(rows[0], [0, 1, 1, 0, 0, 1, 1], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("version", VERSIONS)
def test_arm_objectness(version):
    # prior 1's ARM objectness 0.2 < 0.5: only its background score (1) remains
    arm_conf = np.array([[0.1, 0.9, 0.8, 0.2, 0.3, 0.7]], np.float32)
    rows = detect(version, LOC, CONF, PRIORS, arm_conf, LOC, objectness_score=0.5)
    np.testing.assert_allclose(rows[:4], [[0, 1, 0.9, 0, 0, 2, 2], [0, 2, 0.6, 5, 5, 6, 6],
                                          [0, 2, 0.2, 0, 0, 2, 2], [-1, 0, 0, 0, 0, 0, 0]], rtol=1e-6)


@pytest.mark.parametrize("dtype", [np.float16, np.float64])
def test_float_types(dtype):
    rows = detect("opset8", LOC.astype(dtype), CONF.astype(dtype), PRIORS.astype(dtype), keep_top_k=[2])
    assert rows.dtype == dtype
    np.testing.assert_allclose(rows.astype(np.float32), [[0, 1, 0.9, 0, 0, 2, 2], [0, 1, 0.8, 1, 0, 3, 2]], rtol=1e-3)


# ---------------------------------------------------------------------------------------------
# Shapes and errors

def do_shape(version, shapes, **kw):
    a = dict(attrs(version, 3, **kw), variance_encoded_in_target=kw.get("variance_encoded_in_target", False))
    (out,) = infer_op("DetectionOutput", [Param("f32", sh) for sh in shapes], a, version, params=())
    return shape_str(out)


@pytest.mark.parametrize("version", VERSIONS)
def test_spec_example_shape(version):
    # detectionoutput-8.rst: [1, 5376], [1, 2688], [1, 2, 5376], keep_top_k 200 -> [1, 1, 200, 7]
    a = dict(attrs(version, 2, keep_top_k=[200], top_k=200, variance_encoded_in_target=False,
                   code_type="caffe.PriorBoxParameter.CENTER_SIZE", background_label_id=1))
    (out,) = infer_op("DetectionOutput", [Param("f32", "1,5376"), Param("f32", "1,2688"), Param("f32", "1,2,5376")],
                      a, version, params=())
    assert shape_str(out) == "[1,1,200,7]" and out.etype.name == "f32"


@pytest.mark.parametrize("shapes, kw, rows", [
    (("2,48", "2,36", "1,2,48"), {}, "[1,1,72,7]"),
    (("2,48", "2,36", "1,2,48"), {"top_k": 5}, "[1,1,30,7]"),
    (("2,48", "2,36", "1,2,48"), {"keep_top_k": [10]}, "[1,1,20,7]"),
    (("?,48", "?,36", "1,2,48"), {"top_k": 5}, "[1,1,?,7]"),
    (("1..4,48", "?,36", "1,2,48"), {"keep_top_k": [7]}, "[1,1,7..28,7]"),
    (("?,48", "3,36", "1,2,48"), {}, "[1,1,108,7]"),
])
def test_partial_shapes(shapes, kw, rows):
    assert do_shape("opset8", shapes, **kw) == rows
    assert do_shape("opset1", shapes, **kw) == rows


def test_errors():
    rejects(ShapeError, "Proposals' second dimension is mismatched. Current value is: 1, expected: 2.",
            do_shape, "opset8", ("1,48", "1,36", "1,1,48"))
    rejects(ShapeError, "Number of classes must be greater than zero", infer_op, "DetectionOutput",
            [Param("f32", "1,48"), Param("f32", "1,36"), Param("f32", "1,2,48")], attrs("opset1", 0), "opset1")
    e = rejects(ShapeError, "cannot use decrease_label_id and background_label_id", detect, "opset8", LOC, CONF,
                PRIORS, decrease_label_id=True, background_label_id=1)
    assert e.openvino_loads
