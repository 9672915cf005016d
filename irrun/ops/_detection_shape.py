"""DetectionOutput's shape rule (OpenVINO's detection_output_shape_inference.hpp): the class and
prior counts from the inputs' shapes, checked against each other, and the output shape.
"""
from __future__ import annotations

from collections.abc import Sequence

from ..errors import OpError
from ..types.shapes import DYN, Dim, PartialShape


def _fits(d: Dim, n: int | Dim) -> bool:
    return d.intersect(Dim.of(n)) is not None


def _per(value: int, unit: int, what: str, unit_name: str, port: int) -> int:
    """``value / unit`` for a dimension that holds ``unit`` numbers per item, OpenVINO's message
    where it does not divide."""
    if value % unit:
        raise OpError(f"{what} must be a multiply of {unit_name} ({unit}). Current value is: {value}.",
                      port=f"input {port}")
    return value // unit


def _prior_count(value: int, unit: int, priors: int, what: str, unit_name: str, port: int) -> int:
    """The prior count a dimension of ``unit`` numbers per prior gives while none is known
    (``priors`` 0), else ``priors`` once the dimension is checked to hold exactly that many."""
    if not priors:
        return _per(value, unit, what, unit_name, port)
    if value != priors * unit:
        raise OpError(f"{what} must be equal to num_prior_boxes * {unit_name} ({priors * unit}). "
                      f"Current value is: {value}.", port=f"input {port}")
    return priors


# ---------------------------------------------------------------------------------------------
# Shape rule (detection_output_shape_inference.hpp)

def _count_classes(op, shapes: Sequence[PartialShape]) -> tuple[int, int]:
    """v8: (num_classes, num_prior_boxes) deduced from the shapes (0 = unknown)."""
    loc, conf, pri = shapes[:3]
    five = len(shapes) == 5
    for s, r, what in ((loc, 2, "Box logits"), (conf, 2, "Class predictions"), (pri, 3, "Proposals")):
        if s.rank not in (None, r):
            raise OpError(f"{what} rank must be {r}. Got {s.rank}")
    if five:
        for s, what in ((shapes[3], "Additional class predictions"), (shapes[4], "Additional box predictions")):
            if s.rank not in (None, 2):
                raise OpError(f"{what} rank must be 2. Got {s.rank}")
    size = 4 if op.normalized else 5
    classes = priors = 0
    if pri.rank is not None and pri[2].is_static:
        priors = _per(pri[2].lo, size, "Proposals' third dimension", "prior_box_size", 2)
        if priors <= 0:
            raise OpError(f"A number of prior boxes must be greater zero. Got: {priors}", port="input 2")
    if not priors and five and shapes[3].rank is not None and shapes[3][1].is_static:
        v = shapes[3][1].lo
        if v % 2:
            raise OpError("Additional class predictions second dimension must be a multiply of 2. "
                          f"Current value is: {v}.", port="input 3")
        priors = v // 2
        if priors <= 0:
            raise OpError(f"A number of prior boxes must be greater zero. Got: {priors}", port="input 3")
    if priors and conf.rank is not None and conf[1].is_static:
        classes = _per(conf[1].lo, priors, "Class predictions second dimension", "num_prior_boxes", 1)
    boxes: PartialShape | None
    for i, boxes, what in ((0, loc, "Box logits"), (4, shapes[4] if five else None, "Additional box predictions")):
        if not classes and priors and boxes is not None and boxes.rank is not None and boxes[1].is_static \
                and not op.share_location:
            classes = _per(boxes[1].lo, priors * 4, f"{what} second dimension", "num_prior_boxes * 4", i)
    return classes, priors


def output_shape(op, shapes: Sequence[PartialShape], attr_classes: int) -> PartialShape:
    """OpenVINO's ``shape_infer_base`` for both versions (``attr_classes`` -1 for v8)."""
    if attr_classes == -1:
        classes, priors = _count_classes(op, shapes)
    else:
        classes, priors = attr_classes, 0
    loc, conf, pri = shapes[:3]
    locs = 1 if op.share_location else classes
    size = 4 if op.normalized else 5
    images, known = DYN, False
    if loc.rank is not None:
        if loc.rank != 2:
            raise OpError(f"Box logits rank must be 2. Got {loc.rank}", port="input 0")
        images, known = loc[0], True
        if not priors and loc[1].is_static:
            if not (locs and loc[1].lo % (locs * 4) == 0):
                raise OpError(f"Box logits' second dimension must be a multiply of num_loc_classes * 4 ({locs * 4}). "
                              f"Current value is: {loc[1].lo}.", port="input 0")
            priors = loc[1].lo // (locs * 4)
        if priors > 0 and locs > 0 and not _fits(loc[1], priors * locs * 4):
            raise OpError("The second dimension of the first input (box logits) is not compatible. Current value: "
                          f"{loc[1]}, expected value: {priors * locs * 4}", port="input 0")
    if conf.rank is not None:
        if conf.rank != 2:
            raise OpError(f"Class predictions rank must be 2. Got {conf.rank}", port="input 1")
        if (not known or not images.is_static) and conf[0].is_static:
            images, known = conf[0], True
        elif not _fits(conf[0], images):
            raise OpError("Class predictions' first dimension is not compatible with batch size.  Current value is: "
                          f"{conf[0]}, expected: {images}.", port="input 1")
        if conf[1].is_static and classes:
            priors = _prior_count(conf[1].lo, classes, priors, "Class predictions' second dimension", "num_classes", 1)
    if pri.rank is not None:
        if pri.rank != 3:
            raise OpError(f"Proposals rank must be 3. Got {pri.rank}", port="input 2")
        if not (_fits(pri[0], 1) or _fits(pri[0], images)):
            raise OpError(f"Proposals' first dimension is must be equal to either batch size ({images}) or 1. "
                          f"Got: {pri[0]}.", port="input 2")
        second = 1 if op.variance_encoded_in_target else 2
        if not _fits(pri[1], second):
            raise OpError(f"Proposals' second dimension is mismatched. Current value is: {pri[1]}, expected: "
                          f"{second}.", port="input 2")
        if pri[2].is_static:
            priors = _prior_count(pri[2].lo, size, priors, "Proposals' third dimension", "prior_box_size", 2)
    if len(shapes) == 5:
        aconf, aloc = shapes[3], shapes[4]
        if aconf.rank is not None:
            if aconf.rank != 2:
                raise OpError(f"additional class predictions rank must be 2. Got {aconf.rank}", port="input 3")
            if not _fits(aconf[0], images):
                raise OpError("Additional class predictions' first dimension must be compatible with batch size. "
                              f"Current value is: {aconf[0]}, expected: {images}.", port="input 3")
            if priors and not _fits(aconf[1], priors * 2):
                raise OpError("Additional class predictions' second dimension must be compatible with "
                              f"num_prior_boxes * 2. Current value is: {aconf[1]}, expected: {priors * 2}.",
                              port="input 3")
            if aconf[1].is_static:
                priors = aconf[1].lo // 2
        if not aloc.compatible(loc):
            raise OpError("Additional box predictions' shape must be compatible with box logits shape. Current "
                          f"value is: {aloc}, expected: {loc}.", port="input 4")
    p_dim = Dim.of(priors) if priors else DYN
    c_dim = Dim.of(classes) if classes else DYN
    keep = op.keep_top_k[0]
    if keep > 0:
        rows = images * keep
    elif keep == -1 and op.top_k > 0:
        rows = images * op.top_k * c_dim
    else:
        rows = images * p_dim * c_dim
    return PartialShape([1, 1, rows, 7])
