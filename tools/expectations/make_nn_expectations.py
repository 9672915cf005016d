"""Measure OpenVINO's matrix, convolution, pooling, normalization and interpolation ops into ONE fixture.

    python -m tools.expectations.make_nn_expectations [--out tests/fixtures/nn_expectations] [-k substring]

Writes ``nn_expectations.npz`` (the arrays: inputs and expected outputs, small seeded values,
each distinct array stored once under a key ``aN``) and ``nn_expectations.json`` (the index, one
case per line, naming its arrays) that tests/ops/nn_cases.py reads; the unit tests never need
OpenVINO. ``-k`` only prints the matching cases.

Each case is one op built with OpenVINO's opset API (``NodeFactory(opset).create(type, inputs,
attrs)``, what the ``openvino.opsetN`` functions wrap) — Parameters for the inputs in ``params``,
Constants for the others — and saved with ``ov.save_model(compress_to_fp16=False)``. The index
records the layer as OpenVINO serialised it (IR type, ``version``, ``<data>`` attributes), so the
tests replay exactly that layer through irrun. Two kinds of case:

* ``run``: concrete inputs, evaluated in a worker process (tools/ovoracle.py, CI=true) by
  - the CPU plugin with INFERENCE_PRECISION_HINT f32 -> ``outputs``, the expected values;
  - the reference evaluator (Parameters replaced by Constants + ConstantFolding) -> compared
    with the CPU; its values are kept (``reference_arrays``) only where they differ beyond
    rtol 1e-4 / atol 1e-5 (exactly for integers); where the CPU plugin fails, the reference
    values are the expected ones (``oracle`` says which evaluator it is).
* ``shape``: Parameters with partial shapes (``Dyn("f32", "1,3,?,2..9")``); the index records
  the output element types and partial shapes OpenVINO infers (``[[lo, hi], ...]``, hi null =
  unbounded; null = dynamic rank) — or, for both kinds, OpenVINO's error message when building
  the node fails (``status: "error"``).

The other generators of this format (tools/make_{index,rnn,select,attention_quantize_movement,trig_bitwise_dft_sampling,detection}_expectations.py)
hold only their cases and call :func:`main` (``cases_of``, ``out``, ``doc`` and, where they adjust
the measurement, ``measure_case``); the helpers they share live here: ``Case``/``Dyn``, ``Cases``
(a generator's case list: ``add``, ``built_by``), ``Rnd`` (seeded input values, one stream per
generator), the element-type tables (``ETYPE``/``etype``, ``INTS``, ``F16``...), ``build_case``,
``measure``. tools/expectations/make_math_expectations.py (its own packed format) shares them too, as well as
``parse_args``/``select``/``write_fixture``.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Callable, NamedTuple

os.environ["CI"] = "true"

import ml_dtypes
import numpy as np
from lxml import etree

from tools import ROOT
from tools.ovoracle import Oracle, short_message

BF16 = np.dtype(ml_dtypes.bfloat16)
F32, F16, F64 = np.dtype(np.float32), np.dtype(np.float16), np.dtype(np.float64)
ETYPE = {F64: "f64", F32: "f32", F16: "f16", BF16: "bf16", np.dtype(np.int64): "i64",
         np.dtype(np.int32): "i32", np.dtype(np.int16): "i16", np.dtype(np.int8): "i8",
         np.dtype(np.uint64): "u64", np.dtype(np.uint32): "u32", np.dtype(np.uint16): "u16",
         np.dtype(np.uint8): "u8", np.dtype(np.bool_): "boolean"}
INTS = [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64]
NAN, INF = float("nan"), float("inf")


def etype(dtype) -> str:
    """OpenVINO's name of a NumPy element type ("f32", "bf16", "boolean", ...)."""
    return ETYPE[np.dtype(dtype)]


class Dyn(NamedTuple):
    """A Parameter known by element type and partial shape only (shape cases)."""
    etype: str
    shape: str


class Case(NamedTuple):   # (not a dataclass: the oracle worker imports this file unregistered)
    id: str
    type: str
    opset: str
    inputs: list
    attrs: dict = {}
    params: tuple = (0,)      # inputs fed as Parameters (the others are Constants)
    note: str = ""


class Cases(list):
    """One generator's cases in the order they are built: ``add(*cases)`` appends, and
    ``built_by(*builders)`` is the ``cases_of`` for :func:`main` (it runs the builders, once)."""

    def add(self, *cases) -> None:
        self.extend(cases)

    def built_by(self, *builders: Callable[[], None]) -> Callable[[], list]:
        def cases_of() -> list:
            if not self:
                for build in builders:
                    build()
            return self
        return cases_of


class Rnd:
    """Seeded input values, one stream per generator (``Rnd(seed)``; ``.rng`` for other draws).
    Cases draw in the order they are built and ``-k`` builds them all before filtering, so
    neither selecting cases nor adding cases to another generator changes a case's values."""

    def __init__(self, seed: int, ints: tuple[int, int] = (-3, 3)):
        self.rng = np.random.default_rng(seed)
        self.ints = ints            # the default range of integer values

    def __call__(self, *shape: int, dtype=np.float32, lo: float | None = None, hi: float | None = None) -> np.ndarray:
        """Floats uniform in [lo, hi) (default [-3, 3), drawn in f32 then cast); integers in
        [lo, hi] (default ``ints``), lo raised to the type's minimum; booleans 0/1."""
        dtype = np.dtype(dtype)
        if dtype == np.bool_:
            return self.rng.integers(0, 2, shape).astype(bool)
        if dtype.kind in "iu":
            lo = max(self.ints[0] if lo is None else lo, np.iinfo(dtype).min)
            hi = self.ints[1] if hi is None else hi
            return self.rng.integers(int(np.floor(lo)), int(np.ceil(hi)), shape, endpoint=True).astype(dtype)
        return self.rng.uniform(-3.0 if lo is None else lo, 3.0 if hi is None else hi, shape).astype(np.float32).astype(dtype)

    def normal(self, *shape: int) -> np.ndarray:
        """Standard-normal f32 values."""
        return self.rng.normal(size=shape).astype(np.float32)


CASES = Cases()
add = CASES.add
rnd = Rnd(20261)


def i64(*v) -> np.ndarray:
    return np.array(v, np.int64)


def f32(*v) -> np.ndarray:
    return np.array(v, np.float32)


# ---------------------------------------------------------------------------------------------
# Cases

def matmul_cases() -> None:
    mm = lambda ta=False, tb=False: {"transpose_a": ta, "transpose_b": tb}  # noqa: E731
    for tag, a, b, ta, tb in [
            ("2x3-3x4", (2, 3), (3, 4), 0, 0), ("ta", (3, 2), (3, 4), 1, 0), ("tb", (2, 3), (4, 3), 0, 1),
            ("ta-tb", (3, 2), (4, 3), 1, 1), ("vec-vec", (5,), (5,), 0, 0), ("vec-vec-t", (5,), (5,), 1, 1),
            ("vec-mat", (3,), (3, 4), 0, 0), ("mat-vec", (2, 3), (3,), 0, 0), ("mat-vec-tb", (4, 3), (3,), 0, 1),
            ("vec-batch", (3,), (2, 3, 4), 0, 0), ("batch-vec", (2, 4, 3), (3,), 0, 0),
            ("bcast", (5, 1, 2, 3), (7, 3, 4), 0, 0), ("bcast-t", (2, 1, 3, 2), (1, 4, 5, 3), 1, 1),
            ("3d-2d", (2, 3, 4), (4, 5), 0, 0), ("2d-3d", (3, 4), (2, 4, 5), 0, 0), ("k1", (3, 1), (1, 4), 0, 0),
            ("empty-k", (2, 0), (0, 3), 0, 0), ("empty-batch", (0, 2, 3), (3, 4), 0, 0)]:
        add(Case(f"MatMul-{tag}", "MatMul", "opset1", [rnd(*a), rnd(*b)], mm(bool(ta), bool(tb)), params=(0, 1)))
    add(Case("MatMul-const-weights", "MatMul", "opset1", [rnd(2, 3, 8), rnd(16, 8)], mm(False, True)))
    for dt in (F16, BF16, F64):
        add(Case(f"MatMul-{ETYPE[dt]}", "MatMul", "opset1", [rnd(2, 3, 16, dtype=dt), rnd(16, 4, dtype=dt)], params=(0, 1)))
    for dt in (np.int32, np.int64):
        add(Case(f"MatMul-{etype(dt)}", "MatMul", "opset1", [rnd(2, 3, dtype=dt, lo=-9, hi=9),
                                                            rnd(3, 4, dtype=dt, lo=-9, hi=9)], params=(0, 1)))
    # shapes
    for tag, a, b, ta, tb in [
            ("dyn", "?,3", "?,4", 0, 0), ("interval", "2..5,3", "3,?", 0, 0), ("rank-dyn", "...", "3,4", 0, 0),
            ("rank-dyn-b", "3,4", "...", 0, 0), ("vec-dyn", "?", "?", 0, 0), ("vec-mat-dyn", "?", "3,4", 0, 0),
            ("bcast-1..3", "1..3,2,3", "4,3,5", 0, 0), ("bcast-2..3", "2..3,2,3", "4,3,5", 0, 0),
            ("bcast-?-1", "?,2,3", "1,3,5", 0, 0), ("bcast-4-?", "4,2,3", "?,3,5", 0, 0),
            ("bcast-both-1", "1..3,2,3", "1..5,3,5", 0, 0), ("rank-extend", "2,3", "3,?,4", 0, 0),
            ("inner-dyn", "2,?", "3,4", 0, 0), ("inner-interval", "2,2..4", "3..5,4", 0, 0),
            ("bad-inner", "2,3", "4,4", 0, 0), ("bad-inner-ta", "2,3", "3", 1, 0), ("bad-batch", "5,2,2,3", "7,3,4", 0, 0),
            ("scalar", "", "3", 0, 0), ("t-interval", "2..4,3,?", "1,5,3", 1, 1)]:
        add(Case(f"MatMul-shape-{tag}", "MatMul", "opset1", [Dyn("f32", a), Dyn("f32", b)], mm(bool(ta), bool(tb)), params=()))
    add(Case("MatMul-shape-types", "MatMul", "opset1", [Dyn("f16", "2,3"), Dyn("f32", "3,4")], mm(), params=()))


def conv_attrs(strides, pb, pe, dil, auto_pad="explicit", **extra) -> dict:
    return dict(strides=list(strides), pads_begin=list(pb), pads_end=list(pe), dilations=list(dil),
                auto_pad=auto_pad, **extra)


#: transposed-convolution geometries of 2-D data, tag -> (the output_shape input if any, attributes);
#: ConvolutionBackpropData runs them all, GroupConvolutionBackpropData (make_attention_quantize_movement) most
BACKPROP = {
    "basic": ((), conv_attrs((1, 1), (0, 0), (0, 0), (1, 1))),
    "stride2": ((), conv_attrs((2, 2), (0, 0), (0, 0), (1, 1))),
    "stride2-pads": ((), conv_attrs((2, 2), (1, 1), (1, 1), (1, 1))),
    "stride2-outpad": ((), conv_attrs((2, 2), (1, 1), (1, 1), (1, 1), output_padding=[1, 1])),
    "stride3-asym": ((), conv_attrs((3, 2), (2, 0), (0, 1), (1, 1), output_padding=[2, 1])),
    "dilation": ((), conv_attrs((2, 1), (1, 0), (0, 2), (2, 2))),
    "valid": ((), conv_attrs((2, 2), (1, 1), (1, 1), (1, 1), "valid")),
    "same_upper-no-outshape": ((), conv_attrs((2, 2), (0, 0), (0, 0), (1, 1), "same_upper")),
    "outshape-explicit": ((i64(8, 9),), conv_attrs((2, 2), (1, 0), (0, 1), (1, 1))),
    "outshape-explicit-small": ((i64(5, 6),), conv_attrs((2, 2), (1, 1), (1, 1), (1, 1))),
    "outshape-same_upper": ((i64(8, 10),), conv_attrs((2, 2), (0, 0), (0, 0), (1, 1), "same_upper")),
    "outshape-same_lower": ((i64(8, 10),), conv_attrs((2, 2), (0, 0), (0, 0), (1, 1), "same_lower")),
    "outshape-same_upper-odd": ((i64(7, 9),), conv_attrs((2, 2), (0, 0), (0, 0), (1, 1), "same_upper")),
    "outshape-same_lower-odd": ((i64(7, 9),), conv_attrs((2, 2), (0, 0), (0, 0), (1, 1), "same_lower")),
}


def convolution_cases() -> None:
    x2, w2 = rnd(2, 3, 9, 8), rnd(4, 3, 3, 3)
    for tag, a in [("basic", conv_attrs((1, 1), (0, 0), (0, 0), (1, 1))),
                   ("stride-pad", conv_attrs((2, 2), (1, 1), (1, 1), (1, 1))),
                   ("asym-pad", conv_attrs((2, 1), (0, 2), (1, 0), (1, 1))),
                   ("dilation", conv_attrs((1, 1), (2, 2), (2, 2), (2, 2))),
                   ("dil-stride", conv_attrs((2, 3), (1, 0), (0, 1), (2, 1))),
                   ("same_upper", conv_attrs((2, 2), (0, 0), (0, 0), (1, 1), "same_upper")),
                   ("same_lower", conv_attrs((2, 2), (0, 0), (0, 0), (1, 1), "same_lower")),
                   ("same_upper-dil", conv_attrs((3, 2), (0, 0), (0, 0), (2, 1), "same_upper")),
                   ("valid", conv_attrs((2, 2), (5, 5), (5, 5), (1, 1), "valid"))]:
        add(Case(f"Convolution-2d-{tag}", "Convolution", "opset1", [x2, w2], a))
    add(Case("Convolution-1d", "Convolution", "opset1", [rnd(2, 3, 11), rnd(5, 3, 4)],
             conv_attrs((2,), (1,), (2,), (1,))))
    add(Case("Convolution-3d", "Convolution", "opset1", [rnd(1, 2, 5, 6, 4), rnd(3, 2, 3, 2, 2)],
             conv_attrs((1, 2, 1), (1, 0, 1), (1, 1, 0), (1, 1, 2))))
    add(Case("Convolution-1x1", "Convolution", "opset1", [rnd(1, 16, 4, 4), rnd(8, 16, 1, 1)],
             conv_attrs((1, 1), (0, 0), (0, 0), (1, 1))))
    add(Case("Convolution-params", "Convolution", "opset1", [x2, w2], conv_attrs((1, 1), (1, 1), (1, 1), (1, 1)),
             params=(0, 1)))
    for dt in (F16, BF16, F64):
        add(Case(f"Convolution-{ETYPE[dt]}", "Convolution", "opset1", [x2.astype(dt), w2.astype(dt)],
                 conv_attrs((1, 1), (1, 1), (1, 1), (1, 1))))
    add(Case("Convolution-i32", "Convolution", "opset1", [rnd(1, 2, 5, 5, dtype=np.int32, lo=-5, hi=5),
                                                          rnd(3, 2, 2, 2, dtype=np.int32, lo=-3, hi=3)],
             conv_attrs((1, 1), (0, 0), (0, 0), (1, 1))))
    # group convolution
    add(Case("GroupConvolution-depthwise", "GroupConvolution", "opset1", [rnd(2, 4, 7, 6), rnd(4, 1, 1, 3, 3)],
             conv_attrs((1, 1), (1, 1), (1, 1), (1, 1))))
    add(Case("GroupConvolution-depthwise-s2-same", "GroupConvolution", "opset1", [rnd(1, 4, 7, 6), rnd(4, 1, 1, 3, 3)],
             conv_attrs((2, 2), (0, 0), (0, 0), (1, 1), "same_upper")))
    add(Case("GroupConvolution-depthwise-mult", "GroupConvolution", "opset1", [rnd(1, 3, 6, 6), rnd(3, 2, 1, 3, 2)],
             conv_attrs((1, 2), (1, 0), (1, 1), (2, 1))))
    add(Case("GroupConvolution-groups", "GroupConvolution", "opset1", [rnd(2, 4, 6, 5), rnd(2, 3, 2, 3, 3)],
             conv_attrs((1, 1), (1, 1), (0, 1), (1, 1))))
    add(Case("GroupConvolution-1d", "GroupConvolution", "opset1", [rnd(1, 6, 9), rnd(3, 2, 2, 3)],
             conv_attrs((2,), (1,), (1,), (1,))))
    add(Case("GroupConvolution-3d-depthwise", "GroupConvolution", "opset1", [rnd(1, 2, 4, 5, 4), rnd(2, 1, 1, 2, 3, 2)],
             conv_attrs((1, 1, 1), (0, 1, 0), (1, 1, 0), (1, 1, 1))))
    add(Case("GroupConvolution-f16", "GroupConvolution", "opset1", [rnd(1, 4, 6, 6, dtype=F16), rnd(4, 1, 1, 3, 3, dtype=F16)],
             conv_attrs((1, 1), (1, 1), (1, 1), (1, 1))))
    # transposed convolution
    xb, wb = rnd(1, 3, 4, 5), rnd(3, 2, 3, 3)
    for tag, (out_shape, a) in BACKPROP.items():
        add(Case(f"ConvolutionBackpropData-{tag}", "ConvolutionBackpropData", "opset1", [xb, wb, *out_shape], a))
    bp = conv_attrs
    for tag, ins, a in [
            ("1d", [rnd(2, 2, 5), rnd(2, 3, 4)], bp((2,), (1,), (0,), (1,))),
            ("3d", [rnd(1, 2, 3, 2, 3), rnd(2, 2, 2, 3, 2)], bp((2, 1, 2), (0, 1, 1), (1, 0, 0), (1, 1, 1))),
            ("4to8", [rnd(1, 4, 3, 3), rnd(4, 8, 4, 4)], bp((2, 2), (1, 1), (1, 1), (1, 1)))]:
        add(Case(f"ConvolutionBackpropData-{tag}", "ConvolutionBackpropData", "opset1", ins, a))
    add(Case("ConvolutionBackpropData-outshape-param", "ConvolutionBackpropData", "opset1",
             [xb, wb, i64(8, 9)], bp((2, 2), (1, 0), (0, 1), (1, 1)), params=(0, 2)))
    add(Case("ConvolutionBackpropData-negative-size", "ConvolutionBackpropData", "opset1", [rnd(1, 3, 1, 1), wb],
             bp((1, 1), (2, 2), (2, 2), (1, 1))))
    add(Case("ConvolutionBackpropData-f16", "ConvolutionBackpropData", "opset1", [xb.astype(F16), wb.astype(F16)],
             bp((2, 2), (1, 1), (1, 1), (1, 1))))
    # shapes and errors
    W = np.zeros((4, 3, 3, 3), np.float32)
    for tag, x, a in [
            ("interval", "1,3,5..10,?", conv_attrs((2, 2), (1, 1), (1, 1), (1, 1))),
            ("interval-same_upper", "1,3,5..10,?", conv_attrs((2, 2), (1, 1), (1, 1), (1, 1), "same_upper")),
            ("interval-same_lower", "?,3,8..9,1..", conv_attrs((2, 3), (0, 0), (0, 0), (2, 1), "same_lower")),
            ("interval-valid", "1,3,5..10,?", conv_attrs((2, 2), (1, 1), (1, 1), (1, 1), "valid")),
            ("small-interval", "1,3,1..10,1..2", conv_attrs((1, 1), (0, 0), (0, 0), (1, 1))),
            ("upper-only", "1,3,..3,..30", conv_attrs((2, 2), (0, 0), (0, 0), (1, 1))),
            ("dyn-dims-pads", "?,?,?,?", conv_attrs((2, 2), (3, 3), (3, 3), (2, 2))),
            ("rank-dyn", "...", conv_attrs((1, 1), (0, 0), (0, 0), (1, 1))),
            ("too-small", "1,3,2,8", conv_attrs((1, 1), (0, 0), (0, 0), (1, 1))),
            ("channels", "1,5,8,8", conv_attrs((1, 1), (0, 0), (0, 0), (1, 1))),
            ("channels-interval", "1,4..6,8,8", conv_attrs((1, 1), (0, 0), (0, 0), (1, 1))),
            ("rank-mismatch", "1,3,8", conv_attrs((1,), (0,), (0,), (1,))),
            ("rank6", "1,3,8,8,8,8", conv_attrs((1,) * 4, (0,) * 4, (0,) * 4, (1,) * 4)),
            ("strides-len", "1,3,8,8", conv_attrs((1,), (0, 0), (0, 0), (1, 1))),
            ("dilations-len", "1,3,8,8", conv_attrs((1, 1), (0, 0), (0, 0), (1,))),
            ("pads-len", "1,3,8,8", conv_attrs((1, 1), (0,), (0, 0), (1, 1))),
            ("zero-stride", "1,3,8,8", conv_attrs((0, 1), (0, 0), (0, 0), (1, 1))),
            ("zero-dilation", "1,3,8,8", conv_attrs((1, 1), (0, 0), (0, 0), (1, 0)))]:
        add(Case(f"Convolution-shape-{tag}", "Convolution", "opset1", [Dyn("f32", x), W], a, params=()))
    for tag, f in [("filter-dyn", "?,?,?,?"), ("filter-rank-dyn", "..."), ("filter-interval", "4,3,2..3,1..5")]:
        add(Case(f"Convolution-shape-{tag}", "Convolution", "opset1", [Dyn("f32", "1,3,8,8"), Dyn("f32", f)],
                 conv_attrs((1, 1), (0, 0), (0, 0), (1, 1)), params=()))
    add(Case("Convolution-shape-both-rank-dyn", "Convolution", "opset1", [Dyn("f32", "..."), Dyn("f32", "...")],
             conv_attrs((1, 1), (0, 0), (0, 0), (1, 1)), params=()))
    add(Case("Convolution-shape-types", "Convolution", "opset1", [Dyn("f16", "1,3,8,8"), W],
             conv_attrs((1, 1), (0, 0), (0, 0), (1, 1)), params=()))
    G = np.zeros((3, 4, 2, 3, 3), np.float32)
    for tag, x, g in [("static", "1,6,8,8", G), ("bad-channels", "1,5,8,8", G), ("dyn-channels", "1,?,8,8", G),
                      ("dyn-groups", "1,6,8,8", Dyn("f32", "?,4,2,3,3")), ("dyn-per-group", "1,6,8,8", Dyn("f32", "3,?,2,3,3")),
                      ("dyn-filter", "1,6,8,8", Dyn("f32", "?,?,?,3,3")), ("rank-mismatch", "1,6,8,8", Dyn("f32", "3,4,2,3")),
                      ("rank-dyn", "...", G)]:
        add(Case(f"GroupConvolution-shape-{tag}", "GroupConvolution", "opset1", [Dyn("f32", x), g],
                 conv_attrs((1, 1), (0, 0), (0, 0), (1, 1)), params=()))
    Wb = np.zeros((3, 4, 3, 3), np.float32)
    for tag, x, extra, a in [
            ("interval", "1,3,2..5,?", [], bp((2, 2), (1, 1), (1, 1), (1, 1))),
            ("outshape", "1,3,5,5", [i64(10, 9)], bp((2, 2), (1, 1), (1, 1), (1, 1))),
            ("outshape-dyn", "1,3,5,5", [Dyn("i64", "2")], bp((2, 2), (1, 1), (1, 1), (1, 1))),
            ("outshape-len", "1,3,5,5", [i64(10, 9, 3)], bp((2, 2), (1, 1), (1, 1), (1, 1))),
            ("outshape-rank-dyn", "...", [i64(10, 9)], bp((2, 2), (1, 1), (1, 1), (1, 1))),
            ("rank-dyn", "...", [], bp((2, 2), (1, 1), (1, 1), (1, 1))),
            ("channels", "1,4,5,5", [], bp((2, 2), (1, 1), (1, 1), (1, 1))),
            ("outpad-len", "1,3,5,5", [], bp((2, 2), (1, 1), (1, 1), (1, 1), output_padding=[1])),
            ("negative", "1,3,1,1", [], bp((1, 1), (2, 2), (2, 2), (1, 1)))]:
        add(Case(f"ConvolutionBackpropData-shape-{tag}", "ConvolutionBackpropData", "opset1",
                 [Dyn("f32", x), Wb, *extra], a, params=()))


def pool_attrs(strides, pb, pe, kernel, rounding="floor", auto_pad="explicit", **extra) -> dict:
    return dict(strides=list(strides), pads_begin=list(pb), pads_end=list(pe), kernel=list(kernel),
                rounding_type=rounding, auto_pad=auto_pad, **extra)


def pooling_cases() -> None:
    x = rnd(2, 3, 7, 8)
    x5 = np.arange(1, 26, dtype=np.float32).reshape(1, 1, 5, 5)
    x6 = np.arange(1, 37, dtype=np.float32).reshape(1, 1, 6, 6)
    geos = [("k2s2", ((2, 2), (0, 0), (0, 0), (2, 2))), ("k3s2p1", ((2, 2), (1, 1), (1, 1), (3, 3))),
            ("k3s1-asym", ((1, 1), (0, 2), (1, 0), (3, 2))), ("k2s3p1", ((3, 3), (1, 1), (1, 1), (2, 2)))]
    for tag, g in geos:
        for r in ("floor", "ceil"):
            add(Case(f"MaxPool1-{tag}-{r}", "MaxPool", "opset1", [x], pool_attrs(*g, rounding=r)))
            add(Case(f"AvgPool1-excl-{tag}-{r}", "AvgPool", "opset1", [x], pool_attrs(*g, rounding=r, **{"exclude-pad": True})))
            add(Case(f"AvgPool1-incl-{tag}-{r}", "AvgPool", "opset1", [x], pool_attrs(*g, rounding=r, **{"exclude-pad": False})))
    for ap in ("same_upper", "same_lower", "valid"):
        add(Case(f"MaxPool1-{ap}", "MaxPool", "opset1", [x], pool_attrs((2, 3), (1, 1), (1, 1), (3, 2), auto_pad=ap)))
        add(Case(f"MaxPool1-{ap}-ceil", "MaxPool", "opset1", [x6], pool_attrs((3, 3), (0, 0), (0, 0), (1, 1), "ceil", ap)))
        for ex in (True, False):
            add(Case(f"AvgPool1-{ap}-{'excl' if ex else 'incl'}", "AvgPool", "opset1", [x6],
                     pool_attrs((2, 2), (0, 0), (0, 0), (3, 3), auto_pad=ap, **{"exclude-pad": ex})))
    add(Case("MaxPool1-1d", "MaxPool", "opset1", [rnd(2, 3, 9)], pool_attrs((2,), (1,), (0,), (3,), "ceil")))
    add(Case("MaxPool1-3d", "MaxPool", "opset1", [rnd(1, 2, 4, 5, 6)], pool_attrs((2, 1, 2), (0, 1, 1), (1, 0, 1), (2, 2, 3))))
    add(Case("MaxPool1-window-in-pad", "MaxPool", "opset1", [-x5], pool_attrs((2, 2), (1, 1), (1, 1), (1, 1), "ceil")))
    for axis in (0, 1, 2, 3, -1):
        add(Case(f"MaxPool8-axis{axis}", "MaxPool", "opset8", [x], pool_attrs((2, 2), (1, 0), (0, 1), (2, 3), axis=axis,
                                                                               dilations=[1, 1], index_element_type="i64")))
    add(Case("MaxPool8-dilation-i32", "MaxPool", "opset8", [x], pool_attrs((1, 2), (1, 1), (1, 1), (2, 2), "ceil",
                                                                          dilations=[2, 3], axis=0, index_element_type="i32")))
    add(Case("MaxPool8-window-in-pad", "MaxPool", "opset8", [-x5], pool_attrs((2, 2), (1, 1), (1, 1), (1, 1), "ceil",
                                                                             dilations=[1, 1], axis=0, index_element_type="i64")))
    ties = np.zeros((2, 2, 4, 4), np.float32)
    ties[1, 1, 2, 2] = 5
    add(Case("MaxPool8-ties", "MaxPool", "opset8", [ties], pool_attrs((2, 2), (1, 1), (1, 1), (3, 3), dilations=[1, 1],
                                                                      axis=0, index_element_type="i64")))
    add(Case("MaxPool8-same_lower-dil", "MaxPool", "opset8", [x], pool_attrs((2, 2), (0, 0), (0, 0), (3, 2), auto_pad="same_lower",
                                                                              dilations=[2, 2], axis=0, index_element_type="i64")))
    add(Case("MaxPool8-3d", "MaxPool", "opset8", [rnd(1, 2, 4, 5, 6)], pool_attrs((2, 1, 2), (0, 1, 1), (1, 0, 1), (2, 2, 3),
                                                                                 dilations=[1, 2, 1], axis=2, index_element_type="i64")))
    for tag, g in geos + [("k2s3p1-in5", ((3, 3), (1, 1), (1, 1), (2, 2))), ("k2s3p10-in5", ((3, 3), (1, 1), (0, 0), (2, 2)))]:
        xi = x5 if "in5" in tag else x
        add(Case(f"MaxPool14-{tag}-ceil_torch", "MaxPool", "opset14", [xi], pool_attrs(*g, "ceil_torch", dilations=[1, 1],
                                                                                       axis=0, index_element_type="i64")))
        add(Case(f"AvgPool14-incl-{tag}-ceil_torch", "AvgPool", "opset14", [xi], pool_attrs(*g, "ceil_torch", **{"exclude-pad": False})))
        add(Case(f"AvgPool14-excl-{tag}-ceil_torch", "AvgPool", "opset14", [xi], pool_attrs(*g, "ceil_torch", **{"exclude-pad": True})))
    add(Case("AvgPool14-incl-ceil-beyond-pad", "AvgPool", "opset14", [x6], pool_attrs((2, 2), (1, 1), (1, 1), (3, 3), "ceil", **{"exclude-pad": False})))
    add(Case("AvgPool14-incl-ceil-pad-one-axis", "AvgPool", "opset14", [rnd(1, 1, 5, 6)],
             pool_attrs((2, 2), (1, 0), (1, 0), (3, 3), "ceil", **{"exclude-pad": False})))
    add(Case("AvgPool14-incl-ceil-no-pad", "AvgPool", "opset14", [x5], pool_attrs((2, 2), (0, 0), (0, 0), (2, 2), "ceil", **{"exclude-pad": False})))
    for ex in (True, False):
        add(Case(f"AvgPool16-dil-{'excl' if ex else 'incl'}", "AvgPool", "opset16", [x], pool_attrs(
            (1, 2), (1, 1), (1, 2), (2, 3), "ceil", dilations=[2, 2], **{"exclude-pad": ex})))
        add(Case(f"AvgPool16-dil-same_upper-{'excl' if ex else 'incl'}", "AvgPool", "opset16", [x], pool_attrs(
            (2, 2), (0, 0), (0, 0), (3, 3), auto_pad="same_upper", dilations=[2, 1], **{"exclude-pad": ex})))
    add(Case("AvgPool1-1d", "AvgPool", "opset1", [rnd(2, 3, 9)], pool_attrs((2,), (1,), (1,), (3,), "ceil", **{"exclude-pad": True})))
    add(Case("AvgPool1-3d", "AvgPool", "opset1", [rnd(1, 2, 4, 5, 6)], pool_attrs((1, 2, 2), (1, 0, 1), (0, 1, 1), (2, 2, 3), **{"exclude-pad": False})))
    for dt in (F16, BF16, F64):
        add(Case(f"MaxPool8-{ETYPE[dt]}", "MaxPool", "opset8", [x.astype(dt)], pool_attrs((2, 2), (1, 1), (0, 0), (3, 3), dilations=[1, 1],
                                                                                          axis=0, index_element_type="i64")))
        add(Case(f"AvgPool1-{ETYPE[dt]}", "AvgPool", "opset1", [x.astype(dt)], pool_attrs((2, 2), (1, 1), (0, 0), (3, 3), **{"exclude-pad": False})))
    quarters = np.array([[[[0, 0, 1, 2, -3], [1, 1, 0, -1, -2]]]], np.int32)     # window sums 2, 4, 2, -4 (k2: /4)
    add(Case("AvgPool1-i32-rounding", "AvgPool", "opset1", [quarters], pool_attrs((1, 1), (0, 0), (0, 0), (2, 2), **{"exclude-pad": True})))
    add(Case("AvgPool1-i32-rounding-3", "AvgPool", "opset1", [np.array([[[5, 1, 1, -5, -1, -1, 2, 0, 0]]], np.int32)],
             pool_attrs((3,), (0,), (0,), (3,), **{"exclude-pad": True})))
    xi = (np.arange(50, dtype=np.int32).reshape(1, 2, 5, 5) * 7 % 23) - 11
    for dt in (np.int32, np.int8, np.uint8):
        v = (xi + 11).astype(dt) if dt == np.uint8 else xi.astype(dt)
        add(Case(f"MaxPool8-{etype(dt)}", "MaxPool", "opset8", [v], pool_attrs((1, 1), (1, 1), (1, 1), (2, 2), dilations=[1, 1],
                                                                               axis=0, index_element_type="i64")))
        add(Case(f"AvgPool1-{etype(dt)}", "AvgPool", "opset1", [v], pool_attrs((1, 1), (0, 0), (0, 0), (2, 2), **{"exclude-pad": True})))
        add(Case(f"AvgPool1-{etype(dt)}-k3", "AvgPool", "opset1", [v], pool_attrs((1, 1), (1, 1), (1, 1), (3, 3), **{"exclude-pad": False})))
    # adaptive
    for tag, xs, os_ in [("2d", (2, 3, 7, 9), (3, 4)), ("2d-up", (1, 2, 3, 4), (5, 7)), ("1d", (2, 3, 10), (4,)),
                         ("3d", (1, 2, 5, 6, 7), (2, 3, 4)), ("identity", (1, 2, 4, 4), (4, 4)), ("global", (1, 3, 5, 6), (1, 1))]:
        add(Case(f"AdaptiveAvgPool-{tag}", "AdaptiveAvgPool", "opset8", [rnd(*xs), i64(*os_)]))
    add(Case("AdaptiveAvgPool-i32-sizes", "AdaptiveAvgPool", "opset8", [rnd(1, 2, 6, 6), np.array([4, 3], np.int32)]))
    add(Case("AdaptiveAvgPool-param-sizes", "AdaptiveAvgPool", "opset8", [rnd(1, 2, 6, 6), i64(4, 3)], params=(0, 1)))
    add(Case("AdaptiveAvgPool-f16", "AdaptiveAvgPool", "opset8", [rnd(1, 2, 7, 5, dtype=F16), i64(3, 2)]))
    # shapes and errors
    for op, opset, extra in [("MaxPool", "opset1", {}), ("MaxPool", "opset8", dict(dilations=[1, 1], axis=0, index_element_type="i64")),
                             ("AvgPool", "opset1", {"exclude-pad": True})]:
        for tag, xs, a in [
                ("interval", "1,1,4..9,?", pool_attrs((2, 2), (1, 1), (1, 1), (3, 3))),
                ("interval-ceil", "1,1,4..9,?", pool_attrs((2, 2), (0, 0), (0, 0), (2, 2), "ceil")),
                ("upper-only", "?,?,..3,1..3", pool_attrs((2, 2), (0, 0), (0, 0), (2, 2), "ceil")),
                ("interval-same_upper", "1,1,4..9,5", pool_attrs((3, 3), (0, 0), (0, 0), (3, 3), auto_pad="same_upper")),
                ("rank-dyn", "...", pool_attrs((2, 2), (0, 0), (0, 0), (2, 2))),
                ("rank2", "9,9", pool_attrs((1,), (0,), (0,), (3,))),
                ("batch-zero", "0,1,9,9", pool_attrs((1, 1), (0, 0), (0, 0), (3, 3))),
                ("channels-zero", "1,0,9,9", pool_attrs((1, 1), (0, 0), (0, 0), (3, 3))),
                ("kernel-big", "1,1,2,9", pool_attrs((1, 1), (0, 0), (0, 0), (3, 3))),
                ("kernel-big-interval", "1,1,1..2,9", pool_attrs((1, 1), (0, 0), (0, 0), (3, 3))),
                ("pads-len", "1,1,6,6", pool_attrs((3, 3), (1,), (0, 0), (1, 1))),
                ("strides-len", "1,1,6,6", pool_attrs((3,), (1, 1), (0, 0), (1, 1))),
                ("kernel-len", "1,1,6,6", pool_attrs((3, 3, 3), (1, 1, 1), (0, 0, 0), (1, 1, 1))),
                ("zero-stride", "1,1,6,6", pool_attrs((0, 3), (0, 0), (0, 0), (1, 1))),
                ("pad-ge-kernel", "1,1,9,9", pool_attrs((1, 1), (3, 3), (0, 0), (3, 3))),
                ("pad-ge-kernel-dyn", "1,1,?,?", pool_attrs((1, 1), (3, 3), (0, 0), (3, 3)))]:
            add(Case(f"{op}{opset[5:]}-shape-{tag}", op, opset, [Dyn("f32", xs)], dict(a, **extra), params=()))
    m14 = dict(dilations=[1, 1], axis=0, index_element_type="i64")
    for tag, xs, a in [("interval", "1,1,4..5,?", pool_attrs((2, 2), (1, 1), (1, 1), (1, 1), "ceil_torch")),
                       ("interval-wide", "1,1,4..9,3..", pool_attrs((3, 2), (1, 1), (1, 0), (2, 2), "ceil_torch")),
                       ("dyn-no-pad", "1,1,?,1..", pool_attrs((2, 2), (0, 0), (0, 0), (1, 2), "ceil_torch"))]:
        add(Case(f"MaxPool14-shape-{tag}", "MaxPool", "opset14", [Dyn("f32", xs)], dict(a, **m14), params=()))
    add(Case("MaxPool8-shape-axis", "MaxPool", "opset8", [Dyn("f32", "1,1,9,9")], pool_attrs((1, 1), (0, 0), (0, 0), (3, 3), **dict(m14, axis=4)), params=()))
    add(Case("MaxPool8-shape-zero-dilation", "MaxPool", "opset8", [Dyn("f32", "1,1,9,9")], pool_attrs((1, 1), (0, 0), (0, 0), (3, 3), **dict(m14, dilations=[0, 1])), params=()))
    add(Case("MaxPool8-shape-dilations-len", "MaxPool", "opset8", [Dyn("f32", "1,1,9,9")], pool_attrs((1, 1), (0, 0), (0, 0), (3, 3), **dict(m14, dilations=[1])), params=()))
    add(Case("MaxPool8-shape-ceil_torch", "MaxPool", "opset8", [Dyn("f32", "1,1,9,9")], pool_attrs((1, 1), (0, 0), (0, 0), (3, 3), "ceil_torch", **m14), params=()))
    add(Case("MaxPool8-shape-i32", "MaxPool", "opset8", [Dyn("i32", "1,1,9,9")], pool_attrs((1, 1), (0, 0), (0, 0), (3, 3), **dict(m14, index_element_type="i32")), params=()))
    for tag, xs, os_ in [("static", "2,3,7,9", i64(3, 4)), ("len", "2,3,7,9", i64(3)), ("dyn", "2,3,7,9", Dyn("i64", "2")),
                         ("rank-dyn", "...", i64(3, 4)), ("rank2", "3,7", i64(3)), ("zero", "2,3,7,9", i64(0, 4)),
                         ("interval-data", "?,3,1..7,?", i64(3, 4))]:
        add(Case(f"AdaptiveAvgPool-shape-{tag}", "AdaptiveAvgPool", "opset8", [Dyn("f32", xs), os_], params=()))


def normalization_cases() -> None:
    x = rnd(2, 3, 4, 5)
    for tag, a in [("across", dict(across_channels=True, normalize_variance=True, eps=1e-9)),
                   ("per-channel", dict(across_channels=False, normalize_variance=True, eps=1e-9)),
                   ("mean-only", dict(across_channels=False, normalize_variance=False, eps=1e-9)),
                   ("big-eps", dict(across_channels=True, normalize_variance=True, eps=0.5)),
                   ("axes", dict(across_channels=False, normalize_variance=True, eps=0.25, reduction_axes=[1, 3]))]:
        add(Case(f"MVN1-{tag}", "MVN", "opset2", [x], a))
    add(Case("MVN1-reduction-axes-only", "MVN", "opset2", [x], dict(across_channels=False, normalize_variance=True, eps=0.25,
                                                                     reduction_axes=[1, 2, 3])))
    add(Case("MVN1-reduction-axes-last", "MVN", "opset2", [x], dict(across_channels=False, normalize_variance=True, eps=0.25,
                                                                     reduction_axes=[3])))
    add(Case("MVN6-axis-out-of-range", "MVN", "opset6", [x, i64(4)], dict(normalize_variance=True, eps=1e-9, eps_mode="inside_sqrt")))
    add(Case("MVN1-3d", "MVN", "opset2", [rnd(2, 3, 6)], dict(across_channels=False, normalize_variance=True, eps=1e-6)))
    add(Case("MVN1-f16", "MVN", "opset2", [x.astype(F16)], dict(across_channels=True, normalize_variance=True, eps=1e-6)))
    for tag, axes, mode, eps in [("last", i64(-1), "inside_sqrt", 1e-5), ("spatial", i64(2, 3), "outside_sqrt", 1e-5),
                                 ("inside-big-eps", i64(1, 2, 3), "inside_sqrt", 0.5), ("outside-big-eps", i64(1, 2, 3), "outside_sqrt", 0.5),
                                 ("all", i64(0, 1, 2, 3), "inside_sqrt", 1e-9), ("dup", i64(1, -3), "inside_sqrt", 1e-9),
                                 ("i32-axes", np.array([0, 2], np.int32), "outside_sqrt", 1e-3)]:
        add(Case(f"MVN6-{tag}", "MVN", "opset6", [x, axes], dict(normalize_variance=True, eps=eps, eps_mode=mode)))
    add(Case("MVN6-mean-only", "MVN", "opset6", [x, i64(1)], dict(normalize_variance=False, eps=1e-9, eps_mode="inside_sqrt")))
    add(Case("MVN6-axes-param", "MVN", "opset6", [x, i64(2, 3)], dict(normalize_variance=True, eps=1e-9, eps_mode="inside_sqrt"), params=(0, 1)))
    for dt in (F16, BF16, F64):
        add(Case(f"MVN6-{ETYPE[dt]}", "MVN", "opset6", [x.astype(dt), i64(-1)], dict(normalize_variance=True, eps=1e-5, eps_mode="inside_sqrt")))
    for tag, axes, mode, eps, data in [("c", i64(1), "max", 1e-6, x), ("hw", i64(2, 3), "add", 1e-6, x),
                                       ("all", i64(0, 1, 2, 3), "add", 0.5, x), ("max-big-eps", i64(1), "max", 4.0, x),
                                       ("add-big-eps", i64(1), "add", 4.0, x), ("neg-axis", i64(-1), "max", 1e-12, x),
                                       ("scalar-axis", np.array(1, np.int64), "max", 1e-12, x),
                                       ("zeros", i64(1), "max", 1e-12, np.zeros((1, 3, 2), np.float32)),
                                       ("zeros-add", i64(1), "add", 1e-12, np.zeros((1, 3, 2), np.float32)),
                                       ("empty-axes", np.zeros(0, np.int64), "max", 1e-6, x),
                                       ("empty-axes-add", np.zeros(0, np.int64), "add", 1e-6, x)]:
        add(Case(f"NormalizeL2-{tag}", "NormalizeL2", "opset1", [data, axes], dict(eps=eps, eps_mode=mode)))
    add(Case("NormalizeL2-f16", "NormalizeL2", "opset1", [x.astype(F16), i64(1)], dict(eps=1e-6, eps_mode="max")))
    ch = lambda: [rnd(3, lo=0.5, hi=2), rnd(3), rnd(3), rnd(3, lo=0.1, hi=2)]  # noqa: E731
    g, b, m, v = ch()
    add(Case("BatchNormInference5", "BatchNormInference", "opset5", [x, g, b, m, v], dict(epsilon=1e-5)))
    add(Case("BatchNormInference5-2d", "BatchNormInference", "opset5", [rnd(4, 3), g, b, m, v], dict(epsilon=0.1)))
    add(Case("BatchNormInference5-params", "BatchNormInference", "opset5", [x, g, b, m, v], dict(epsilon=1e-3), params=(0, 1, 2, 3, 4)))
    add(Case("BatchNormInference5-f16", "BatchNormInference", "opset5", [x.astype(F16)] + [a.astype(F16) for a in (g, b, m, v)], dict(epsilon=1e-3)))
    add(Case("BatchNormInference1", "BatchNormInference", "opset1", [g, b, x, m, v], dict(epsilon=1e-5), params=(2,)))
    add(Case("BatchNormInference1-5d", "BatchNormInference", "opset1", [g, b, rnd(1, 3, 2, 3, 2), m, v], dict(epsilon=0.5), params=(2,)))
    for tag, xs, groups in [("g1", (2, 4, 3, 5), 1), ("g2", (2, 4, 3, 5), 2), ("g-c", (2, 4, 3, 5), 4), ("2d", (3, 6), 3),
                            ("3d", (2, 6, 7), 2), ("5d", (1, 4, 2, 3, 2), 2)]:
        c = xs[1]
        add(Case(f"GroupNormalization-{tag}", "GroupNormalization", "opset12", [rnd(*xs), rnd(c, lo=0.5, hi=2), rnd(c)],
                 dict(num_groups=groups, epsilon=1e-5)))
    add(Case("GroupNormalization-big-eps", "GroupNormalization", "opset12", [rnd(2, 4, 3), rnd(4), rnd(4)], dict(num_groups=2, epsilon=0.7)))
    add(Case("GroupNormalization-f16", "GroupNormalization", "opset12", [rnd(2, 4, 3, dtype=F16), rnd(4, dtype=F16), rnd(4, dtype=F16)],
             dict(num_groups=2, epsilon=1e-5)))
    add(Case("GroupNormalization-params", "GroupNormalization", "opset12", [rnd(2, 4, 3), rnd(4), rnd(4)],
             dict(num_groups=2, epsilon=1e-5), params=(0, 1, 2)))
    # shapes and errors
    mv = dict(normalize_variance=True, eps=1e-9, eps_mode="inside_sqrt")
    for tag, xs, axes in [("axes-2d", "2,3,4,5", np.array([[1]])), ("axes-too-many", "2,3", i64(0, 1, 1)),
                          ("axes-dyn", "2,3,4,5", Dyn("i64", "?")), ("rank-dyn", "...", i64(1)), ("axis-range", "2,3,4,5", i64(4))]:
        add(Case(f"MVN6-shape-{tag}", "MVN", "opset6", [Dyn("f32", xs), axes], mv, params=()))
    add(Case("MVN1-shape-rank-dyn", "MVN", "opset2", [Dyn("f32", "...")], dict(across_channels=False, normalize_variance=True, eps=1e-9), params=()))
    for tag, xs, axes in [("axis-range", "2,3,4", i64(3)), ("axes-2d", "2,3,4", np.array([[1]])), ("axes-dyn", "2,?,4", Dyn("i64", "2"))]:
        add(Case(f"NormalizeL2-shape-{tag}", "NormalizeL2", "opset1", [Dyn("f32", xs), axes], dict(eps=1e-6, eps_mode="max"), params=()))
    P = lambda s, t="f32": Dyn(t, s)  # noqa: E731
    for tag, ins, eps in [("mismatch", [P("2,3,4"), P("4"), P("3"), P("3"), P("3")], 1e-5),
                          ("channel", [P("2,3,4"), P("4"), P("4"), P("4"), P("4")], 1e-5),
                          ("dyn", [P("?,?,4"), P("?"), P("5"), P("?"), P("?")], 1e-5),
                          ("rank1", [P("3"), P("3"), P("3"), P("3"), P("3")], 1e-5),
                          ("gamma-2d", [P("2,3"), P("3,1"), P("3"), P("3"), P("3")], 1e-5),
                          ("neg-eps", [P("2,3"), P("3"), P("3"), P("3"), P("3")], -1.0),
                          ("types", [P("2,3"), P("3", "f16"), P("3"), P("3"), P("3")], 1e-5),
                          ("int", [P("2,3", "i32")] + [P("3", "i32")] * 4, 1e-5),
                          ("rank-dyn", [P("..."), P("3"), P("?"), P("3"), P("3")], 1e-5)]:
        add(Case(f"BatchNormInference5-shape-{tag}", "BatchNormInference", "opset5", ins, dict(epsilon=eps), params=()))
    for tag, ins, groups in [("bad-groups", [P("2,6,4"), P("6"), P("6")], 4), ("scale-size", [P("2,6,4"), P("5"), P("6")], 3),
                             ("bias-size", [P("2,6,4"), P("6"), P("5")], 3), ("rank1", [P("6"), P("6"), P("6")], 3),
                             ("zero-groups", [P("2,6"), P("6"), P("6")], 0), ("scale-2d", [P("2,6"), P("6,1"), P("6")], 3),
                             ("dyn-c", [P("2,?,3"), P("?"), P("6")], 3), ("rank-dyn", [P("..."), P("6"), P("6")], 3)]:
        add(Case(f"GroupNormalization-shape-{tag}", "GroupNormalization", "opset12", ins, dict(num_groups=groups, epsilon=1e-5), params=()))


def interp4(mode, calc="sizes", ctm="half_pixel", nearest="round_prefer_floor", antialias=False, pb=(0,), pe=(0,), cube=-0.75) -> dict:
    return dict(mode=mode, shape_calculation_mode=calc, coordinate_transformation_mode=ctm, nearest_mode=nearest,
                antialias=antialias, pads_begin=list(pb), pads_end=list(pe), cube_coeff=cube)


def interpolate_cases() -> None:
    x = rnd(1, 2, 5, 6)
    up, down = (i64(9, 13), f32(1.8, 2.17)), (i64(3, 4), f32(0.6, 0.67))
    for mode in ("nearest", "linear", "linear_onnx", "cubic"):
        for ctm in ("half_pixel", "pytorch_half_pixel", "asymmetric", "tf_half_pixel_for_nn", "align_corners"):
            for tag, (sizes, scales) in (("up", up), ("down", down)):
                add(Case(f"Interpolate4-{mode}-{ctm}-{tag}", "Interpolate", "opset4", [x, sizes, scales, i64(2, 3)],
                         interp4(mode, ctm=ctm)))
                add(Case(f"Interpolate11-{mode}-{ctm}-{tag}-scales", "Interpolate", "opset11", [x, scales, i64(2, 3)],
                         interp4(mode, "scales", ctm)))
    for nm in ("round_prefer_floor", "round_prefer_ceil", "floor", "ceil", "simple"):
        for tag, (sizes, scales) in (("up", (i64(10, 12), f32(2.0, 2.0))), ("down", (i64(2, 3), f32(0.5, 0.5))),
                                     ("odd", (i64(7, 9), f32(1.4, 1.5)))):
            for ctm in ("half_pixel", "asymmetric", "tf_half_pixel_for_nn"):
                add(Case(f"Interpolate11-nearest-{nm}-{ctm}-{tag}", "Interpolate", "opset11", [x, sizes, i64(2, 3)],
                         interp4("nearest", ctm=ctm, nearest=nm)))
    for tag, (sizes, scales) in (("down", (i64(2, 3), f32(0.4, 0.5))), ("down-odd", (i64(3, 2), f32(0.6, 0.34))), ("mixed", (i64(2, 11), f32(0.4, 1.9)))):
        for ctm in ("half_pixel", "align_corners", "asymmetric"):
            add(Case(f"Interpolate11-linear-antialias-{ctm}-{tag}", "Interpolate", "opset11", [rnd(1, 2, 7, 6), sizes, i64(2, 3)],
                     interp4("linear", ctm=ctm, antialias=True)))
    for cube in (-0.5, -0.75, -1.0):
        add(Case(f"Interpolate4-cubic-a{cube}", "Interpolate", "opset4", [x, i64(8, 9), f32(1, 1), i64(2, 3)], interp4("cubic", cube=cube)))
    add(Case("Interpolate4-scales-mode", "Interpolate", "opset4", [x, i64(1, 1), f32(1.5, 0.75), i64(2, 3)], interp4("linear_onnx", "scales")))
    add(Case("Interpolate4-scales-mode-nearest", "Interpolate", "opset4", [x, i64(1, 1), f32(2.5, 1.33), i64(3, 2)], interp4("nearest", "scales")))
    add(Case("Interpolate4-no-axes", "Interpolate", "opset4", [x, i64(1, 2, 8, 4), f32(1, 1, 1.6, 0.67)], interp4("linear_onnx")))
    add(Case("Interpolate4-no-axes-nearest-all", "Interpolate", "opset4", [x, i64(2, 3, 8, 4), f32(2, 1.5, 1.6, 0.67)], interp4("nearest")))
    add(Case("Interpolate4-pads", "Interpolate", "opset4", [x, i64(9, 10), f32(1, 1), i64(2, 3)], interp4("linear_onnx", pb=(0, 0, 1, 2), pe=(0, 0, 2, 0))))
    add(Case("Interpolate4-pads-nearest", "Interpolate", "opset4", [x, i64(9, 10), f32(1, 1), i64(2, 3)], interp4("nearest", pb=(0, 1, 1, 2), pe=(0, 0, 2, 0))))
    add(Case("Interpolate4-one-axis", "Interpolate", "opset4", [x, i64(11), f32(1), i64(3)], interp4("cubic")))
    add(Case("Interpolate4-3d-linear", "Interpolate", "opset4", [rnd(2, 5, 6), i64(7, 4), f32(1, 1), i64(1, 2)], interp4("linear")))
    add(Case("Interpolate4-5d-linear", "Interpolate", "opset4", [rnd(1, 2, 3, 4, 5), i64(5, 3, 7), f32(1, 1, 1), i64(2, 3, 4)], interp4("linear")))
    add(Case("Interpolate4-5d-linear_onnx", "Interpolate", "opset4", [rnd(1, 2, 3, 4, 5), i64(5, 3, 7), f32(1, 1, 1), i64(2, 3, 4)], interp4("linear_onnx")))
    add(Case("Interpolate4-sizes-param", "Interpolate", "opset4", [x, i64(9, 13), f32(1, 1), i64(2, 3)], interp4("linear_onnx"), params=(0, 1)))
    add(Case("Interpolate4-scales-param", "Interpolate", "opset4", [x, i64(1, 1), f32(1.5, 2.0), i64(2, 3)], interp4("nearest", "scales"), params=(0, 2)))
    add(Case("Interpolate4-f16", "Interpolate", "opset4", [x.astype(F16), i64(9, 13), f32(1, 1), i64(2, 3)], interp4("linear_onnx")))
    add(Case("Interpolate4-u8-nearest", "Interpolate", "opset4", [rnd(1, 1, 4, 4, dtype=np.uint8, lo=0, hi=255), i64(7, 6), f32(1, 1), i64(2, 3)], interp4("nearest")))
    add(Case("Interpolate4-u8-linear_onnx", "Interpolate", "opset4", [rnd(1, 1, 4, 4, dtype=np.uint8, lo=0, hi=255), i64(7, 6), f32(1, 1), i64(2, 3)], interp4("linear_onnx")))
    add(Case("Interpolate4-i32-cubic", "Interpolate", "opset4", [rnd(1, 1, 4, 4, dtype=np.int32, lo=-100, hi=100), i64(7, 6), f32(1, 1), i64(2, 3)], interp4("cubic")))
    for mode in ("bilinear_pillow", "bicubic_pillow"):
        for tag, sizes in (("down", i64(3, 2)), ("up", i64(9, 11)), ("mixed", i64(2, 10)), ("same", i64(5, 6))):
            add(Case(f"Interpolate11-{mode}-{tag}", "Interpolate", "opset11", [x, sizes, i64(2, 3)],
                     interp4(mode, cube=-0.5 if "cubic" in mode else -0.75)))
        add(Case(f"Interpolate11-{mode}-nhwc", "Interpolate", "opset11", [rnd(1, 5, 6, 2), i64(3, 8), i64(1, 2)], interp4(mode, cube=-0.5)))
        add(Case(f"Interpolate11-{mode}-scales", "Interpolate", "opset11", [x, f32(0.5, 1.5), i64(2, 3)], interp4(mode, "scales", cube=-0.5)))
    add(Case("Interpolate11-bilinear_pillow-3-axes", "Interpolate", "opset11", [x, i64(3, 3, 4), i64(1, 2, 3)], interp4("bilinear_pillow"),
             note="the reference refuses 3 axes; the CPU output changes from run to run (values up to 1e34)"))
    add(Case("Interpolate11-no-axes", "Interpolate", "opset11", [x, i64(1, 2, 7, 3)], interp4("cubic")))
    # Interpolate-1
    for mode in ("nearest", "linear", "cubic"):
        for ac in (False, True):
            for tag, xs, axes, t in (("4d", (1, 2, 5, 6), [2, 3], i64(8, 4)), ("4d-axis3", (1, 2, 5, 6), [3], i64(9)),
                                     ("3d", (2, 5, 6), [1, 2], i64(3, 9)), ("2d", (5, 6), [0, 1], i64(7, 4))):
                add(Case(f"Interpolate1-{mode}-{tag}-ac{int(ac)}", "Interpolate", "opset1", [rnd(*xs), t],
                         dict(axes=axes, mode=mode, align_corners=ac, antialias=False, pads_begin=[0], pads_end=[0])))
    add(Case("Interpolate1-linear-5d", "Interpolate", "opset1", [rnd(1, 2, 3, 4, 5), i64(5, 3, 7)],
             dict(axes=[2, 3, 4], mode="linear", align_corners=False, antialias=False, pads_begin=[0], pads_end=[0])))
    add(Case("Interpolate1-area", "Interpolate", "opset1", [x, i64(3, 3)],
             dict(axes=[2, 3], mode="area", align_corners=False, antialias=False, pads_begin=[0], pads_end=[0])))
    # shapes and errors
    v4 = interp4("nearest")
    for tag, xs, ins, a in [
            ("sizes", "1,2,?,4..8", [i64(9, 13), f32(1, 1), i64(2, 3)], v4),
            ("scales", "1,2,?,4..8", [i64(1, 1), f32(1.5, 0.3), i64(2, 3)], interp4("nearest", "scales")),
            ("scales-one", "1,2,3..,4..8", [i64(1, 1), f32(1.0, 2.0), i64(2, 3)], interp4("nearest", "scales")),
            ("pads", "1,2,5,?", [i64(9, 13), f32(1, 1), i64(2, 3)], interp4("nearest", pb=(1, 0, 1), pe=(0, 2, 0, 1, 7))),
            ("sizes-dyn", "1,2,5,6", [Dyn("i64", "2"), f32(1, 1), i64(2, 3)], v4),
            ("axes-dyn", "1,2,5,6", [i64(9, 13), f32(1, 1), Dyn("i64", "2")], v4),
            ("rank-dyn", "...", [i64(9, 13), f32(1, 1), i64(2, 3)], v4),
            ("axis-range", "1,2,5,6", [i64(9, 13), f32(1, 1), i64(2, 4)], v4),
            ("axis-negative", "1,2,5,6", [i64(9, 13), f32(1, 1), i64(2, -1)], v4),
            ("sizes-short", "1,2,5,6", [i64(9), f32(1, 1), i64(2, 3)], v4),
            ("sizes-long", "1,2,5,6", [i64(9, 10, 11), f32(1, 1), i64(2, 3)], v4),
            ("sizes-2d", "1,2,5,6", [np.array([[9, 13]]), f32(1, 1), i64(2, 3)], v4),
            ("scales-2d-unused", "1,2,5,6", [i64(9, 13), np.array([[1.0, 1.0]], np.float32), i64(2, 3)], v4),
            ("sizes-f32", "1,2,5,6", [f32(9, 13), f32(1, 1), i64(2, 3)], v4),
            ("scales-i64", "1,2,5,6", [i64(9, 13), i64(1, 1), i64(2, 3)], v4),
            ("axes-f32", "1,2,5,6", [i64(9, 13), f32(1, 1), f32(2, 3)], v4)]:
        add(Case(f"Interpolate4-shape-{tag}", "Interpolate", "opset4", [Dyn("f32", xs), *ins], a, params=()))
    for tag, xs, ins, a in [
            ("scales", "1,2,?,4..8", [f32(1.5, 0.3), i64(2, 3)], interp4("nearest", "scales")),
            ("sizes", "1,2,?,4..8", [i64(9, 13)], interp4("linear")),
            ("pillow-axes", "1,2,5,6", [i64(9, 13, 3), i64(1, 2, 3)], interp4("bilinear_pillow")),
            ("axes-2d", "1,2,5,6", [i64(9, 13), np.array([[2, 3]])], v4),
            ("sizes-f32", "1,2,5,6", [f32(9, 13), i64(2, 3)], v4),
            ("scales-i64", "1,2,5,6", [i64(9, 13), i64(2, 3)], interp4("nearest", "scales"))]:
        add(Case(f"Interpolate11-shape-{tag}", "Interpolate", "opset11", [Dyn("f32", xs), *ins], a, params=()))
    v1 = dict(axes=[2, 3], mode="nearest", align_corners=False, antialias=False, pads_begin=[0], pads_end=[0])
    for tag, xs, t, a in [("static", "1,2,?,4..8", i64(9, 13), v1), ("dyn-target", "1,2,5,6", Dyn("i64", "2"), v1),
                          ("axis-range", "1,2,5,6", i64(9, 13), dict(v1, axes=[2, 4])), ("target-f32", "1,2,5,6", f32(9, 13), v1),
                          ("rank-dyn", "...", i64(9, 13), v1)]:
        add(Case(f"Interpolate1-shape-{tag}", "Interpolate", "opset1", [Dyn("f32", xs), t], a, params=()))


all_cases = CASES.built_by(matmul_cases, convolution_cases, pooling_cases, normalization_cases, interpolate_cases)


# ---------------------------------------------------------------------------------------------
# Worker side (inside the oracle worker process)

def build_case(type_: str, opset: str, inputs: list, params: tuple, attrs: dict, xml: str) -> str:
    import openvino as ov
    import openvino.opset16 as o16
    from openvino.utils.node_factory import NodeFactory
    from tools.ovoracle import _ov_tensor

    nodes, parameters = [], []
    for i, a in enumerate(inputs):
        if isinstance(a, tuple):                                  # Dyn (pickled as a plain tuple)
            p = o16.parameter(ov.PartialShape(a[1]), getattr(ov.Type, a[0]), name=f"in{i}")
        elif i in params:
            p = o16.parameter(list(a.shape), ov.Type.bf16 if a.dtype == BF16 else ov.Type(a.dtype), name=f"in{i}")
        elif a.size == 0:
            nodes.append(ov.op.Constant(ov.Type(a.dtype), ov.Shape(list(a.shape)), []).output(0))
            continue
        else:
            nodes.append(ov.op.Constant(_ov_tensor(a)).output(0))
            continue
        parameters.append(p)
        nodes.append(p.output(0))
    node = NodeFactory(opset).create(type_, nodes, attrs)
    for j, o in enumerate(node.outputs()):
        o.set_names({f"out{j}"})
    ov.save_model(ov.Model(node.outputs(), parameters), xml, compress_to_fp16=False)
    return xml


# ---------------------------------------------------------------------------------------------
# Parent side

def _layer_of(xml: Path) -> tuple[str, str, dict]:
    for L in etree.parse(str(xml)).getroot().iter("layer"):
        if L.get("type") not in ("Parameter", "Const", "Result"):
            data = L.find("data")
            return L.get("type"), L.get("version"), dict(data.attrib) if data is not None else {}
    raise RuntimeError(f"no op layer in {xml}")


class Store:
    """The arrays of the .npz, each distinct array once (the cases share their inputs)."""

    def __init__(self):
        self.arrays: dict[str, np.ndarray] = {}
        self._keys: dict[tuple, str] = {}

    def put(self, a: np.ndarray) -> str:
        a = np.array(a.view(np.uint16) if a.dtype == BF16 else a, order="C")   # (keeps 0-d arrays 0-d)
        sig = (a.dtype.str, a.shape, a.tobytes())
        if sig not in self._keys:
            self._keys[sig] = f"a{len(self._keys)}"
            self.arrays[self._keys[sig]] = a
        return self._keys[sig]


def _agree(x: np.ndarray, y: np.ndarray) -> tuple[bool, float]:
    if x.shape != y.shape or x.dtype != y.dtype:
        return False, float("inf")
    x64, y64 = x.astype(np.float64), y.astype(np.float64)
    with np.errstate(invalid="ignore"):
        d = np.abs(x64 - y64)
    d = d[~np.isnan(d)]
    dmax = float(d.max()) if d.size else 0.0
    if x.dtype.kind == "f" or x.dtype == BF16:
        lo = x.dtype.itemsize <= 2
        return bool(np.allclose(x64, y64, rtol=1e-2 if lo else 1e-4, atol=1e-3 if lo else 1e-5, equal_nan=True)), dmax
    return bool(np.array_equal(x, y)), dmax


def _attr_text(v) -> str:
    """An attribute as OpenVINO's serializer writes it (for cases it refused to build)."""
    if isinstance(v, bool):
        return str(v).lower()
    if isinstance(v, (list, tuple)):
        return ", ".join(str(x) for x in v)
    return str(v)


def measure(case: Case, ov: Oracle, tmp: Path, store: Store) -> dict:
    xml = tmp / f"{case.id}.xml"
    shape_case = any(isinstance(a, Dyn) for a in case.inputs)
    entry = {"id": case.id, "kind": "shape" if shape_case else "run"}
    if case.note:
        entry["note"] = case.note
    inputs = [a if isinstance(a, Dyn) else np.asarray(a) for a in case.inputs]
    entry["inputs"] = [{"etype": a.etype, "shape": a.shape, "param": True} if isinstance(a, Dyn) else
                       {"etype": ETYPE[a.dtype], "shape": list(a.shape), "param": i in case.params,
                        "array": store.put(a)} for i, a in enumerate(inputs)]
    wire = [tuple(a) if isinstance(a, Dyn) else a for a in inputs]
    r = ov.call(build_case, case.type, case.opset, wire, case.params, case.attrs, str(xml))
    if not r.ok:
        entry.update(type=case.type, version=case.opset, attrs={k: _attr_text(v) for k, v in case.attrs.items()},
                     status="error", stage="build", message=short_message(r.message))
        return entry
    t, v, a = _layer_of(xml)
    entry.update(type=t, version=v, attrs=a)
    if shape_case:
        loaded = ov.load(xml)
        entry["status"] = loaded.status
        if loaded.ok:
            entry["outputs"] = [{"etype": o.etype, "shape": o.shape} for o in loaded.outputs]
        else:
            entry.update(stage=loaded.stage, message=short_message(loaded.message))
        return entry
    feeds = {f"in{i}": x for i, x in enumerate(inputs) if i in case.params}
    cpu, ref = ov.cpu(xml, feeds), ov.reference(xml, feeds)
    oracle = cpu if cpu.ok else ref
    entry["oracle"] = "cpu" if cpu.ok else "reference"
    entry["status"] = oracle.status
    if not oracle.ok:
        entry.update(stage=oracle.stage, message=short_message(oracle.message),
                     cpu=f"{cpu.status} ({cpu.stage}): {short_message(cpu.message)}")
        return entry
    entry["outputs"] = [{"etype": o.etype, "shape": list(o.array.shape), "array": store.put(o.array)}
                        for o in oracle.outputs]
    if not cpu.ok:
        entry["cpu"] = f"{cpu.status} ({cpu.stage}): {short_message(cpu.message)}"
    elif ref.ok:
        agree = [_agree(c.array, o.array) for c, o in zip(cpu.outputs, ref.outputs)]
        if all(ok for ok, _ in agree):
            entry["reference"] = "agrees"
        else:
            entry["reference"] = "differs (max abs diff " + ", ".join(f"{d:.3g}" for _, d in agree) + ")"
            entry["reference_arrays"] = [store.put(o.array) for o in ref.outputs]
    else:
        entry["reference"] = f"{ref.status} ({ref.stage}): {short_message(ref.message)}"
    return entry


def parse_args(argv: list[str] | None, doc: str, out: str) -> argparse.Namespace:
    """``--out`` (default tests/fixtures/<out>) and ``-k``, the options of every generator."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--out", type=Path, default=ROOT / "tests/fixtures" / out)
    ap.add_argument("-k", default="", help="only cases whose id contains this (prints, writes nothing)")
    return ap.parse_args(argv)


def select(cases: list, k: str) -> list:
    """The cases whose id contains ``k``, once every id is known to be unique."""
    dup = sorted(i for i, n in Counter(c.id for c in cases).items() if n > 1)
    assert not dup, f"duplicate case ids: {dup}"
    return [c for c in cases if k in c.id]


def write_fixture(out: Path, index: list[dict], arrays: dict[str, np.ndarray], **header) -> None:
    """``out``.npz (the arrays) and ``out``.json: the OpenVINO version, ``header``, one case per line."""
    np.savez_compressed(out.with_suffix(".npz"), **arrays)
    lines = ",\n".join(json.dumps(e, separators=(",", ":")) for e in index)
    head = "".join(f", {json.dumps(k)}: {json.dumps(v)}" for k, v in header.items())
    out.with_suffix(".json").write_text(
        f'{{"openvino": "{ov_version()}"{head},\n"cases": [\n{lines}\n]}}\n', encoding="utf-8")


def ov_version() -> str:
    import importlib.metadata
    return importlib.metadata.version("openvino")


def main(argv: list[str] | None = None, cases_of: Callable[[], list[Case]] | None = None,
         out: str = "nn_expectations", doc: str | None = None,
         measure_case: Callable[[Case, Oracle, Path, Store], dict] | None = None) -> int:
    """Measure ``cases_of()`` (default: this file's cases) into tests/fixtures/<out>.{json,npz}.
    Other generators (tools/expectations/make_<family>_expectations.py) define their cases and call this,
    some with their own ``measure_case`` (wrapping :func:`measure`)."""
    args = parse_args(argv, doc or __doc__, out)
    cases = select((cases_of or all_cases)(), args.k)
    index, store = [], Store()
    with Oracle() as ov, tempfile.TemporaryDirectory() as tmp:
        for case in cases:
            entry = (measure_case or measure)(case, ov, Path(tmp), store)
            index.append(entry)
            if args.k:
                print(json.dumps(entry))
    if args.k:
        return 0
    write_fixture(args.out, index, store.arrays)
    runs = [e for e in index if e["kind"] == "run"]
    print(f"{len(index)} cases ({len(runs)} run, {len(index) - len(runs)} shape): "
          f"{sum(e['status'] == 'ok' for e in index)} ok, {sum(e['status'] == 'error' for e in index)} rejected; "
          f"reference differs from CPU on {sum(e.get('reference', '').startswith('differs') for e in runs)}, "
          f"CPU failed on {sum('cpu' in e for e in runs)}")
    for e in index:
        if e.get("reference", "agrees") != "agrees" or "cpu" in e or e["status"] not in ("ok", "error"):
            print(f"  {e['id']}: {e['status']} {e.get('message', '')} cpu={e.get('cpu', 'ok')} "
                  f"reference={e.get('reference', '-')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
