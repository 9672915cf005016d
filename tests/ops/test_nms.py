"""NonMaxSuppression-1/3/4/5/9: the spec's shape examples, the classic worked example (ONNX's boxes,
with OpenVINO's answer), the measured tie and threshold rules, Soft-NMS, the -1 padding of
v1/v3/v4, shape inference, and the OpenVINO measurements of tools/expectations/make_detection_expectations.py."""
from functools import partial

import numpy as np
import pytest

from helpers import Param, infer_op, raises_for, run_op, shape_str
from irrun.types import elements
from irrun.errors import ExecutionError, ShapeError
from nn_cases import case_ids, replay

NEW = ["opset5", "opset9"]
OLD = ["opset1", "opset3", "opset4"]
BF16 = elements.TYPES["bf16"].dtype
rejects = partial(raises_for, "NonMaxSuppression")

B6 = np.array([[[0, 0, 1, 1], [0, 0.1, 1, 1.1], [0, -0.1, 1, 0.9],
                [0, 10, 1, 11], [0, 10.1, 1, 11.1], [0, 100, 1, 101]]], np.float32)
S6 = np.array([[[0.9, 0.75, 0.6, 0.95, 0.5, 0.3]]], np.float32)


@pytest.mark.parametrize("case", case_ids("NonMaxSuppression"))
def test_openvino_case(case):
    replay(case)


def nms(version, boxes, scores, *rest, params=(0, 1), center=False, sort=True, output_type=None):
    attrs = {"box_encoding": "center" if center else "corner", "sort_result_descending": sort}
    if version != "opset1":
        attrs["output_type"] = output_type or "i64"
    n_out = 3 if version in NEW else 1
    return run_op("NonMaxSuppression", [boxes, scores, *rest], attrs, version, n_out=n_out, params=params)


def scalars(mx, iou, score, *sigma):
    return [np.int64(mx), np.float32(iou), np.float32(score), *map(np.float32, sigma)]


# ---------------------------------------------------------------------------------------------
# Spec examples (shapes) and the classic worked example

@pytest.mark.parametrize("version, rows", [("opset4", "[150,3]"), ("opset5", "[0..150,3]"), ("opset9", "[0..150,3]")])
def test_spec_example_shapes(version, rows):
    # non-max-suppression-4/9.rst: boxes [3, 100, 4], scores [3, 5, 100], max 10 -> min(100, 10) * 3 * 5;
    # v5/v9 give the bound as an interval (dynamic output), as OpenVINO infers
    outs = infer_op("NonMaxSuppression", [Param("f32", "3,100,4"), Param("f32", "3,5,100"), np.int64(10),
                                          np.float32(0.5), np.float32(0.0)],
                    {"box_encoding": "corner", "sort_result_descending": True, "output_type": "i64"}, version,
                    n_out=3 if version in NEW else 1)
    assert shape_str(outs[0]) == rows
    if version in NEW:
        assert shape_str(outs[1]) == rows and outs[1].etype.name == "f32"
        assert shape_str(outs[2]) == "[1]" and outs[2].etype.name == "i64"


def test_spec_example_v1_shape():
    # non-max-suppression-1.rst: [1, 1000, 4] / [1, 1, 1000] -> [1000, 3] (min(num_boxes, max * classes))
    (out,) = infer_op("NonMaxSuppression", [Param("f32", "1,1000,4"), Param("f32", "1,1,1000"), np.int64(1000),
                                            np.float32(0.5), np.float32(0.0)],
                      {"box_encoding": "corner", "sort_result_descending": True}, "opset1")
    assert shape_str(out) == "[1000,3]" and out.etype.name == "i64"


@pytest.mark.parametrize("params", [(0, 1), ()], ids=["param", "const"])
@pytest.mark.parametrize("version", NEW)
def test_worked_example(version, params):
    # boxes 0/1/2, 3/4 and 5 form three clusters; OpenVINO (CPU, measured) keeps 3, 0, 5
    idx, sco, valid = nms(version, B6, S6, *scalars(3, 0.5, 0.0), params=params)
    np.testing.assert_array_equal(idx, [[0, 0, 3], [0, 0, 0], [0, 0, 5]])
    np.testing.assert_allclose(sco, [[0, 0, 0.95], [0, 0, 0.9], [0, 0, 0.3]], rtol=1e-6)
    assert valid.tolist() == [3] and idx.dtype == np.int64 and sco.dtype == np.float32


@pytest.mark.parametrize("version, rows", [("opset1", 6), ("opset3", 6), ("opset4", 6)])
def test_old_versions_pad_with_minus_one(version, rows):
    (idx,) = nms(version, B6, S6, *scalars(10, 0.5, 0.0))
    assert idx.shape == (rows, 3)
    np.testing.assert_array_equal(idx[:3], [[0, 0, 3], [0, 0, 0], [0, 0, 5]])
    assert (idx[3:] == -1).all()


def test_v1_cuts_to_its_static_size():
    # v1: min(num_boxes=6, max 4 * classes 3) = 6 rows, though 3 classes select 9 boxes (the CPU
    # plugin returns all 9; the spec and OpenVINO's shape rule say 6)
    scores = np.concatenate([S6, S6[:, :, ::-1], S6], axis=1)
    (idx,) = nms("opset1", B6, scores, *scalars(4, 0.5, 0.0), sort=False)
    np.testing.assert_array_equal(idx, [[0, 0, 3], [0, 0, 0], [0, 0, 5], [0, 1, 2], [0, 1, 5], [0, 1, 4]])


@pytest.mark.parametrize("version", NEW)
def test_flipped_corners_and_centre_encoding(version):
    flipped = B6[:, :, [2, 3, 0, 1]]
    assert nms(version, flipped, S6, *scalars(3, 0.5, 0.0))[0].tolist() == [[0, 0, 3], [0, 0, 0], [0, 0, 5]]
    centre = np.stack([(B6[..., 1] + B6[..., 3]) / 2, (B6[..., 0] + B6[..., 2]) / 2,
                       B6[..., 3] - B6[..., 1], B6[..., 2] - B6[..., 0]], axis=-1)
    assert nms(version, centre, S6, *scalars(3, 0.5, 0.0), center=True)[0].tolist() == [[0, 0, 3], [0, 0, 0], [0, 0, 5]]


# ---------------------------------------------------------------------------------------------
# Measured rules

TIE = np.array([[[0, 0, 1, 1], [0, 0, 1, 2], [0, 0, 1, 4], [5, 5, 6, 6]]], np.float32)   # IoU(0, 1) = 0.5
TIE_S = np.array([[[0.9, 0.8, 0.7, 0.6]]], np.float32)


@pytest.mark.parametrize("version", NEW + OLD)
def test_iou_equal_to_threshold_suppresses(version):
    idx = nms(version, TIE, TIE_S, *scalars(10, 0.5, 0.0), sort=False)[0]
    assert idx[:3].tolist() == [[0, 0, 0], [0, 0, 2], [0, 0, 3]]


@pytest.mark.parametrize("version", NEW)
def test_score_equal_to_threshold_is_no_candidate(version):
    idx, sco, valid = nms(version, TIE, TIE_S, *scalars(10, 0.99, 0.7), sort=False)
    assert idx.tolist() == [[0, 0, 0], [0, 0, 1]] and valid.tolist() == [2]


@pytest.mark.parametrize("version", NEW)
def test_default_iou_threshold_keeps_one_box(version):
    # without iou_threshold (0): IoU >= 0 holds for every pair, disjoint ones included
    idx, _, valid = nms(version, TIE, TIE_S, np.int64(10))
    assert idx.tolist() == [[0, 0, 0]] and valid.tolist() == [1]


@pytest.mark.parametrize("version", NEW)
def test_equal_scores_by_index_and_sorted_across_batches(version):
    boxes = np.array([[[0, i * 2, 1, i * 2 + 1] for i in range(4)]] * 2, np.float32)
    scores = np.array([[[0.5, 0.7, 0.5, 0.7]], [[0.7, 0.5, 0.5, 0.5]]], np.float32)
    idx = nms(version, boxes, scores, *scalars(10, 0.5, 0.0), sort=False)[0]
    assert idx.tolist() == [[0, 0, 1], [0, 0, 3], [0, 0, 0], [0, 0, 2], [1, 0, 0], [1, 0, 1], [1, 0, 2], [1, 0, 3]]
    idx = nms(version, boxes, scores, *scalars(10, 0.5, 0.0))[0]
    assert idx.tolist() == [[0, 0, 1], [0, 0, 3], [1, 0, 0], [0, 0, 0], [0, 0, 2], [1, 0, 1], [1, 0, 2], [1, 0, 3]]


@pytest.mark.parametrize("version", NEW)
def test_soft_nms(version):
    # box 4 overlaps box 0 with IoU 0.8, box 1 with 0.5, box 2 with 0.25; sigma 0.5 decays a score by
    # exp(-IoU^2); iou_threshold is ignored. Values measured on OpenVINO's CPU plugin.
    boxes = np.array([[[0, 0, 1, 1], [0, 0, 1, 2], [0, 0, 1, 4], [5, 5, 6, 6], [0, 0, 1, 1.25]]], np.float32)
    scores = np.array([[[0.9, 0.8, 0.7, 0.6, 0.85]]], np.float32)
    for iou in (0.3, 0.9):
        idx, sco, valid = nms(version, boxes, scores, *scalars(10, iou, 0.0, 0.5), sort=False)
        assert idx[:, 2].tolist() == [0, 2, 3, 1, 4] and valid.tolist() == [5]
        np.testing.assert_allclose(sco[:, 2], [0.9, 0.6575891, 0.6, 0.4852245, 0.2750506], rtol=1e-5)
    idx, sco, valid = nms(version, boxes, scores, *scalars(10, 0.3, 0.5, 0.5), sort=False)
    assert idx[:, 2].tolist() == [0, 2, 3] and valid.tolist() == [3]


@pytest.mark.parametrize("version", NEW)
@pytest.mark.parametrize("dtype", [np.float32, np.float16, BF16])
def test_float_types(version, dtype):
    idx, sco, valid = nms(version, B6.astype(dtype), S6.astype(dtype), np.int64(3), np.array(0.5, dtype),
                          np.array(0.0, dtype), output_type="i32")
    assert idx.dtype == np.int32 and valid.dtype == np.int32 and sco.dtype == np.float32
    assert idx.tolist() == [[0, 0, 3], [0, 0, 0], [0, 0, 5]]


@pytest.mark.parametrize("version", NEW)
def test_one_element_inputs_and_empty(version):
    idx, _, valid = nms(version, B6, S6, np.array([3], np.int32), np.array([0.5], np.float32),
                        np.array([0.0], np.float32), params=(0, 1, 2, 3, 4))
    assert idx.tolist() == [[0, 0, 3], [0, 0, 0], [0, 0, 5]]
    idx, sco, valid = nms(version, np.zeros((1, 0, 4), np.float32), np.zeros((1, 2, 0), np.float32), *scalars(3, 0.5, 0))
    assert idx.shape == sco.shape == (0, 3) and valid.tolist() == [0]


@pytest.mark.parametrize("version", NEW + OLD)
def test_negative_max_is_refused(version):
    # OpenVINO reads it (shape [?, 3]) but its CPU plugin cannot run it
    e = rejects(ExecutionError, "max_output_boxes_per_class is -1", nms, version, B6, S6,
                np.int64(-1), np.float32(0.5), np.float32(0.0), params=(0, 1, 2))
    assert e.openvino_loads and e.port == "input 2"


def test_output_type_and_scalar_errors():
    rejects(ShapeError, "Output type must be i32 or i64", nms, "opset9", B6, S6, np.int64(3), output_type="f32")
    rejects(ShapeError, "Expected a scalar for the 'iou_threshold' input", nms, "opset4", B6, S6,
            np.int64(3), np.array([0.5], np.float32))
    rejects(ShapeError, "Expected bf16, fp16 or fp32 as element type for the 'boxes' input.", nms, "opset9",
            B6.astype(np.float64), S6.astype(np.float64), np.int64(3))


# ---------------------------------------------------------------------------------------------
# Shape inference

def nms_shapes(version, boxes, scores, mx):
    rest = [] if mx is None else [mx]
    outs = infer_op("NonMaxSuppression", [Param("f32", boxes), Param("f32", scores), *rest],
                    {"box_encoding": "corner", "sort_result_descending": True, "output_type": "i64"}, version,
                    n_out=3 if version in NEW else 1, params=())
    return shape_str(outs[0])


@pytest.mark.parametrize("boxes, scores, mx, v1, v4, v9", [
    ("2,6,4", "2,3,6", np.int64(4), "[6,3]", "[24,3]", "[0..24,3]"),
    ("1..3,6,4", "2..5,3,6", np.int64(4), "[6,3]", "[60,3]", "[0..60,3]"),
    ("2,?,4", "2,3,?", np.int64(4), "[?,3]", "[?,3]", "[?,3]"),
    ("1,2..8,4", "1,2,?", np.int64(5), "[?,3]", "[?,3]", "[0..10,3]"),
    ("?,6,4", "?,3,6", np.int64(0), "[0,3]", "[0,3]", "[0,3]"),
    ("?,6,4", "?,3,6", np.int64(4), "[6,3]", "[?,3]", "[?,3]"),
    ("2,6,4", "...", np.int64(4), "[4,3]", "[?,3]", "[?,3]"),
    ("2,6,4", "2,3,6", Param("i64", ""), "[?,3]", "[?,3]", "[?,3]"),
    ("2,6,4", "2,3,6", np.int64(-1), "[?,3]", "[?,3]", "[?,3]"),
    ("2,6,4", "2,3,6", None, "[0,3]", "[0,3]", "[?,3]"),
])
def test_partial_shapes(boxes, scores, mx, v1, v4, v9):
    assert nms_shapes("opset1", boxes, scores, mx) == v1
    assert nms_shapes("opset3", boxes, scores, mx) == v1
    assert nms_shapes("opset4", boxes, scores, mx) == v4
    assert nms_shapes("opset5", boxes, scores, mx) == v9
    assert nms_shapes("opset9", boxes, scores, mx) == v9


def _random_boxes(rng, kind, n):
    if kind == "grid":                  # small boxes on a coarse grid: many exact ties and duplicates
        xy = rng.integers(0, 20, (n, 2)).astype(np.float32)
        return np.concatenate([xy, xy + rng.integers(0, 3, (n, 2))], 1).astype(np.float32)
    if kind == "mixed":                 # small boxes, a few huge ones, empty and non-finite ones
        xy = rng.random((n, 2), dtype=np.float32) * 50
        b = np.concatenate([xy, xy + rng.random((n, 2), dtype=np.float32) * 3], 1)
        b[rng.integers(0, n, 3)] = [0, 0, 60, 60]
        empty = rng.integers(0, n, n // 50)
        b[empty, 2:] = b[empty, :2]
        b[rng.integers(0, n, n // 100), rng.integers(0, 4)] = np.inf
        b[rng.integers(0, n, n // 100), 1] = np.nan
        return b
    xy = rng.random((n, 2), dtype=np.float32) * 60
    b = np.concatenate([xy, xy + rng.random((n, 2), dtype=np.float32) * 2], 1)
    return np.where(rng.random((n, 1)) < 0.2, b[:, [2, 3, 0, 1]], b)        # some flipped corners


@pytest.mark.parametrize("kind", ["grid", "mixed", "uniform"])
@pytest.mark.parametrize("iou", [0.3, 0.5, 1.0])
def test_pairwise_path_selects_what_the_box_by_box_loop_selects(monkeypatch, kind, iou):
    """The fast path (suppressing pairs found on a grid) against the box-by-box loop that the
    OpenVINO cases above check: the same boxes in the same order."""
    from irrun.ops import nms as mod
    rng = np.random.default_rng(len(kind) * 10 + int(iou * 10))
    boxes = _random_boxes(rng, kind, 3000)[None]
    scores = np.round(rng.random((1, 2, 3000), dtype=np.float32), 2)     # ties in score
    found = []
    pairs = mod._suppressing_pairs
    monkeypatch.setattr(mod, "_suppressing_pairs", lambda *a: found.append(pairs(*a)) or found[-1])
    fast = mod.nms(boxes, scores, 2500, iou, 0.1, 0.0, False, True)
    assert len(found) == 2 and all(f is not None for f in found)        # the fast path ran
    monkeypatch.setattr(mod, "_FEW", 10**9)
    slow = mod.nms(boxes, scores, 2500, iou, 0.1, 0.0, False, True)
    assert len(slow[0]) > 100
    np.testing.assert_array_equal(fast[0], slow[0])
    np.testing.assert_array_equal(fast[1], slow[1])
