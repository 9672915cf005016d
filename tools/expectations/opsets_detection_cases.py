"""The detection ops' cases of tools/expectations/make_opsets_expectations.py (ROIPooling, PSROIPooling,
DeformablePSROIPooling, Proposal, the ExperimentalDetectron ops, GenerateProposals, MulticlassNms,
MatrixNms, NMSRotated, ROIAlignRotated): built here, measured and written into
tests/fixtures/opsets_expectations by that script. Their own seeded stream (``Rnd(20265)``)."""
from __future__ import annotations


import numpy as np

from tools.expectations.make_nn_expectations import Case, Cases, Dyn, Rnd, f32

CASES = Cases()
add = CASES.add
rnd = Rnd(20265)
normal = rnd.normal


# ROIPooling, PSROIPooling

def roi_cases() -> None:
    feat = normal(2, 3, 8, 10)
    rois = np.array([[0, 1, 1, 6, 5], [1, 0, 0, 9, 7], [0, 3.4, 2.6, 3.6, 2.9], [1, 7, 5, 15, 12]], np.float32)
    for scale in (1.0, 0.5):
        add(Case(f"ROIPooling-max-{scale}", "ROIPooling", "opset2", [feat, rois],
                 {"pooled_h": 3, "pooled_w": 2, "spatial_scale": scale, "method": "max"}, params=(0, 1)))
    norm = np.array([[0, 0.1, 0.2, 0.7, 0.9], [1, 0, 0, 1, 1], [0, 0.5, 0.5, 0.5, 0.5]], np.float32)
    for ph, pw in ((3, 4), (1, 1)):
        add(Case(f"ROIPooling-bilinear-{ph}x{pw}", "ROIPooling", "opset2", [feat, norm],
                 {"pooled_h": ph, "pooled_w": pw, "spatial_scale": 1.0, "method": "bilinear"}, params=(0, 1)))
    add(Case("ROIPooling-shape-dyn", "ROIPooling", "opset2", [Dyn("f32", "?,5,?,?"), Dyn("f32", "?,5")],
             {"pooled_h": 2, "pooled_w": 2, "spatial_scale": 1.0, "method": "max"}, params=()))
    ps = normal(2, 2 * 9, 8, 10)
    add(Case("PSROIPooling-average", "PSROIPooling", "opset1", [ps, rois[:2]],
             {"output_dim": 2, "group_size": 3, "spatial_scale": 1.0, "mode": "average"}, params=(0, 1)))
    add(Case("PSROIPooling-average-scale", "PSROIPooling", "opset1", [ps, rois],
             {"output_dim": 2, "group_size": 3, "spatial_scale": 0.5, "mode": "average"}, params=(0, 1)))
    psb = normal(2, 3 * 4, 8, 10)
    brois = np.array([[0, 1, 1, 6, 5], [1, 0.5, 0, 4, 3.5]], np.float32)
    for g in (1, 3):
        add(Case(f"PSROIPooling-bilinear-g{g}", "PSROIPooling", "opset1", [psb, brois],
                 {"output_dim": 3, "group_size": g, "spatial_scale": 0.1, "mode": "bilinear", "spatial_bins_x": 2,
                  "spatial_bins_y": 2}, params=(0, 1)))
    add(Case("PSROIPooling-shape-bad-channels", "PSROIPooling", "opset1", [Dyn("f32", "1,10,8,8"), Dyn("f32", "?,5")],
             {"output_dim": 2, "group_size": 3, "spatial_scale": 1.0, "mode": "average"}, params=()))


# ExperimentalDetectron*

def detectron_cases() -> None:
    rois = np.sort(rnd.rng.uniform(0, 60, (6, 2, 2)), axis=1).reshape(6, 4)[:, [0, 2, 1, 3]].astype(np.float32)
    probs = rnd.rng.permutation(6).astype(np.float32) / 6
    for k in (3, 8):
        add(Case(f"ExperimentalDetectronTopKROIs-{k}", "ExperimentalDetectronTopKROIs", "opset6", [rois, probs],
                 {"max_rois": k}, params=(0, 1)))
    priors = normal(3, 4) * 8
    fmap, image = normal(1, 2, 3, 4), normal(1, 3, 24, 40)
    for flatten, h, w, sx, sy in [(True, 0, 0, 0.0, 0.0), (False, 0, 0, 0.0, 0.0), (True, 2, 5, 7.0, 3.5)]:
        add(Case(f"ExperimentalDetectronPriorGridGenerator-{flatten}-{h}-{sx}", "ExperimentalDetectronPriorGridGenerator",
                 "opset6", [priors, fmap, image], {"flatten": flatten, "h": h, "w": w, "stride_x": sx, "stride_y": sy},
                 params=(0, 1, 2)))
    boxes = np.array([[0, 0, 20, 30], [10, 5, 200, 180], [3, 4, 3, 9], [50, 40, 600, 500], [-5, -5, 8, 8]], np.float32)
    levels = [normal(1, 3, 32, 32), normal(1, 3, 16, 16), normal(1, 3, 8, 8), normal(1, 3, 4, 4)]
    for aligned, ratio in ((False, 2), (True, 0)):
        add(Case(f"ExperimentalDetectronROIFeatureExtractor-{aligned}-{ratio}", "ExperimentalDetectronROIFeatureExtractor",
                 "opset6", [boxes, *levels], {"output_size": 3, "sampling_ratio": ratio, "pyramid_scales": [4, 8, 16, 32],
                                              "aligned": aligned}, params=(0, 1, 2, 3, 4)))


# Proposal

def proposal_cases() -> None:
    def attrs(framework="", **kw):
        a = {"base_size": 16, "pre_nms_topn": 30, "post_nms_topn": 8, "nms_thresh": 0.5, "feat_stride": 16,
             "min_size": 8, "ratio": [0.5, 1.0, 2.0], "scale": [1.0, 2.0], "framework": framework}
        a.update(kw)
        return a
    A, H, W = 6, 3, 4
    probs = rnd.rng.random((2, 2 * A, H, W)).astype(np.float32)
    deltas = normal(2, 4 * A, H, W) * 0.3
    image = f32(60, 70, 1)
    for v in ("opset1", "opset4"):
        add(Case(f"Proposal-{v}", "Proposal", v, [probs, deltas, image], attrs(), params=(0, 1)))
    add(Case("Proposal-tensorflow", "Proposal", "opset4", [probs, deltas, f32(60, 70, 1, 1)],
             attrs("tensorflow", clip_after_nms=True, normalize=True), params=(0, 1)))
    add(Case("Proposal-few", "Proposal", "opset4", [probs[:1], deltas[:1], image],
             attrs(pre_nms_topn=5, post_nms_topn=10, nms_thresh=0.3, clip_before_nms=False, box_size_scale=2.0,
                   box_coordinate_scale=0.5), params=(0, 1)))
    add(Case("Proposal-shape-dyn", "Proposal", "opset4", [Dyn("f32", "?,12,?,?"), Dyn("f32", "2,24,?,?"), Dyn("f32", "3")],
             attrs(), params=()))


# MulticlassNms, MatrixNms

def nms_boxes(n: int, m: int) -> np.ndarray:
    xy = rnd.rng.uniform(0, 10, (n, m, 2))
    wh = rnd.rng.uniform(1, 6, (n, m, 2))
    return np.concatenate([xy, xy + wh], -1).astype(np.float32)


def multiclass_cases() -> None:
    N, C, M = 2, 3, 8
    boxes = nms_boxes(N, M)
    scores = rnd.rng.random((N, C, M)).astype(np.float32)
    base = {"iou_threshold": 0.4, "score_threshold": 0.2, "nms_top_k": -1, "keep_top_k": -1, "background_class": -1,
            "nms_eta": 1.0, "normalized": True, "output_type": "i64", "sort_result_type": "score",
            "sort_result_across_batch": False}
    variants = [("default", {}), ("classid", {"sort_result_type": "classid"}),
                ("across-score", {"sort_result_across_batch": True}),
                ("across-classid", {"sort_result_across_batch": True, "sort_result_type": "classid"}),
                ("topk-bg", {"nms_top_k": 3, "keep_top_k": 5, "background_class": 1}),
                ("eta-unnorm", {"nms_eta": 0.7, "iou_threshold": 0.9, "normalized": False, "output_type": "i32"}),
                ("none", {"sort_result_type": "none"})]
    for v in ("opset8", "opset9"):
        for tag, extra in variants:
            add(Case(f"MulticlassNms-{v}-{tag}", "MulticlassNms", v, [boxes, scores], {**base, **extra}, params=(0, 1)))
    per_class = nms_boxes(C, M)
    add(Case("MulticlassNms-opset9-roisnum", "MulticlassNms", "opset9",
             [per_class, rnd.rng.random((C, M)).astype(np.float32), np.array([3, 5], np.int32)], base, params=(0, 1, 2)))
    add(Case("MulticlassNms-shape-dyn", "MulticlassNms", "opset9", [Dyn("f32", "2,?,4"), Dyn("f32", "2,3,?")], base, params=()))
    add(Case("MulticlassNms-shape-static", "MulticlassNms", "opset8", [Dyn("f32", "2,8,4"), Dyn("f32", "2,3,8")],
             {**base, "nms_top_k": 3, "keep_top_k": 5}, params=()))



def matrix_nms_cases() -> None:
    N, C, M = 2, 3, 8
    boxes = nms_boxes(N, M)
    scores = rnd.rng.random((N, C, M)).astype(np.float32)
    base = {"score_threshold": 0.1, "nms_top_k": -1, "keep_top_k": -1, "background_class": -1,
            "decay_function": "linear", "gaussian_sigma": 2.0, "post_threshold": 0.05, "normalized": True,
            "output_type": "i64", "sort_result_type": "score", "sort_result_across_batch": False}
    for tag, extra in [("linear", {}), ("gaussian", {"decay_function": "gaussian"}),
                       ("topk-bg", {"nms_top_k": 4, "keep_top_k": 6, "background_class": 0}),
                       ("across-classid", {"sort_result_across_batch": True, "sort_result_type": "classid"}),
                       ("across-score-unnorm", {"sort_result_across_batch": True, "normalized": False,
                                                "output_type": "i32"}),
                       ("post", {"post_threshold": 0.3})]:
        add(Case(f"MatrixNms-{tag}", "MatrixNms", "opset8", [boxes, scores], {**base, **extra}, params=(0, 1)))
    add(Case("MatrixNms-shape-static", "MatrixNms", "opset8", [Dyn("f32", "2,8,4"), Dyn("f32", "2,3,8")],
             {**base, "nms_top_k": 3, "keep_top_k": 5}, params=()))



def generate_proposals_cases() -> None:
    A, H, W = 3, 4, 5
    xy = rnd.rng.uniform(0, 40, (H, W, A, 2))
    anchors = np.concatenate([xy, xy + rnd.rng.uniform(4, 20, (H, W, A, 2))], -1).astype(np.float32)
    deltas = normal(2, A * 4, H, W) * 0.2
    scores = rnd.rng.random((2, A, H, W)).astype(np.float32)
    single = {"min_size": 2.0, "nms_threshold": 0.5, "pre_nms_count": 40, "post_nms_count": 12}
    add(Case("ExperimentalDetectronGenerateProposalsSingleImage-basic", "ExperimentalDetectronGenerateProposalsSingleImage",
             "opset6", [f32(50, 60, 1), anchors.reshape(-1, 4), deltas[0], scores[0]], single, params=(0, 1, 2, 3)))
    add(Case("ExperimentalDetectronGenerateProposalsSingleImage-few", "ExperimentalDetectronGenerateProposalsSingleImage",
             "opset6", [f32(30, 30, 1), anchors.reshape(-1, 4), deltas[1], scores[1]],
             {**single, "min_size": 6.0, "pre_nms_count": 8, "nms_threshold": 0.3}, params=(0, 1, 2, 3)))
    info = np.array([[50, 60, 1], [40, 45, 1.5]], np.float32)
    for tag, extra in [("normalized", {}), ("unnormalized", {"normalized": False}),
                       ("i32", {"roi_num_type": "i32", "post_nms_count": 5, "min_size": 4.0})]:
        add(Case(f"GenerateProposals-{tag}", "GenerateProposals", "opset9", [info, anchors, deltas, scores],
                 {**single, "normalized": True, "nms_eta": 1.0, "roi_num_type": "i64", **extra}, params=(0, 1, 2, 3)))
    add(Case("GenerateProposals-shape-dyn", "GenerateProposals", "opset9",
             [Dyn("f32", "2,3"), Dyn("f32", "?,?,3,4"), Dyn("f32", "?,12,?,?"), Dyn("f32", "?,3,?,?")],
             {**single, "normalized": True, "nms_eta": 1.0, "roi_num_type": "i64"}, params=()))



def detectron_output_cases() -> None:
    R, C = 8, 4
    xy = rnd.rng.uniform(0, 30, (R, 2))
    rois = np.concatenate([xy, xy + rnd.rng.uniform(5, 25, (R, 2))], -1).astype(np.float32)
    rois[3, 2] = rois[3, 0]                          # a ROI of zero width
    deltas = normal(R, C * 4) * 0.3
    scores = rnd.rng.random((R, C)).astype(np.float32)
    attrs = {"score_threshold": 0.2, "nms_threshold": 0.5, "max_delta_log_wh": 4.135, "num_classes": C,
             "post_nms_count": 5, "max_detections_per_image": 8, "class_agnostic_box_regression": False,
             "deltas_weights": [10.0, 10.0, 5.0, 5.0]}
    info = f32(60, 70, 1).reshape(1, 3)
    add(Case("ExperimentalDetectronDetectionOutput-basic", "ExperimentalDetectronDetectionOutput", "opset6",
             [rois, deltas, scores, info], attrs, params=(0, 1, 2, 3)))
    add(Case("ExperimentalDetectronDetectionOutput-few", "ExperimentalDetectronDetectionOutput", "opset6",
             [rois, deltas, scores, info], {**attrs, "score_threshold": 0.6, "post_nms_count": 2}, params=(0, 1, 2, 3)))



def rotated_cases() -> None:
    N, C, M = 2, 2, 7
    boxes = np.concatenate([rnd.rng.uniform(0, 12, (N, M, 2)), rnd.rng.uniform(2, 8, (N, M, 2)),
                            rnd.rng.uniform(-1.5, 1.5, (N, M, 1))], -1).astype(np.float32)
    scores = rnd.rng.random((N, C, M)).astype(np.float32)
    for tag, thr, attrs in [("cw", 0.3, {}), ("ccw", 0.3, {"clockwise": False}),
                            ("unsorted-i32", 0.5, {"sort_result_descending": False, "output_type": "i32"})]:
        add(Case(f"NMSRotated-{tag}", "NMSRotated", "opset13",
                 [boxes, scores, np.int64(3), np.float32(thr), np.float32(0.1)],
                 {"sort_result_descending": True, "output_type": "i64", "clockwise": True, **attrs}, params=(0, 1)))
    add(Case("NMSRotated-shape-dyn", "NMSRotated", "opset13",
             [Dyn("f32", "?,7,5"), Dyn("f32", "2,3,?"), np.int64(3), np.float32(0.3), np.float32(0.1)],
             {"sort_result_descending": True, "output_type": "i64", "clockwise": True}, params=()))
    data = normal(2, 3, 10, 12)
    rois = np.array([[5, 4, 6, 3, 0.3], [6, 5, 8, 5, -0.8], [3, 3, 2, 2, 0], [10, 8, 5, 7, 1.4]], np.float32)
    for tag, attrs in [("ccw", {}), ("cw", {"clockwise_mode": True}), ("ratio0-scale", {"sampling_ratio": 0, "spatial_scale": 0.5})]:
        add(Case(f"ROIAlignRotated-{tag}", "ROIAlignRotated", "opset15", [data, rois, np.array([0, 1, 1, 0], np.int32)],
                 {"pooled_h": 2, "pooled_w": 3, "sampling_ratio": 2, "spatial_scale": 1.0, "clockwise_mode": False, **attrs},
                 params=(0, 1)))



def deformable_psroi_cases() -> None:
    D, G = 2, 3
    data = normal(2, D * G * G, 8, 10)
    rois = np.array([[0, 1, 1, 6, 5], [1, 0.4, 0, 9, 7.6], [0, 3, 2, 3, 2], [1, 4, 3, 15, 12]], np.float32)
    base = {"output_dim": D, "spatial_scale": 1.0, "group_size": G, "mode": "bilinear_deformable",
            "spatial_bins_x": 1, "spatial_bins_y": 1, "trans_std": 1.0, "part_size": 1}
    add(Case("DeformablePSROIPooling-no-offsets", "DeformablePSROIPooling", "opset1", [data, rois], base, params=(0, 1)))
    add(Case("DeformablePSROIPooling-bins-scale", "DeformablePSROIPooling", "opset1", [data, rois],
             {**base, "spatial_bins_x": 2, "spatial_bins_y": 3, "spatial_scale": 0.5}, params=(0, 1)))
    off = normal(4, 2, 2, 2) * 0.2
    add(Case("DeformablePSROIPooling-offsets", "DeformablePSROIPooling", "opset1", [data, rois, off],
             {**base, "part_size": 2, "trans_std": 0.5, "spatial_bins_x": 2, "spatial_bins_y": 2}, params=(0, 1, 2)))
    add(Case("DeformablePSROIPooling-offsets-classes", "DeformablePSROIPooling", "opset1", [data, rois, normal(4, 4, 3, 3) * 0.1],
             {**base, "part_size": 3}, params=(0, 1, 2)))



all_cases = CASES.built_by(roi_cases, deformable_psroi_cases, proposal_cases, detectron_cases, detectron_output_cases,
                           generate_proposals_cases, multiclass_cases, matrix_nms_cases, rotated_cases)
