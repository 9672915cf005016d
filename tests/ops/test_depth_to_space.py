"""DepthToSpace-1 / SpaceToDepth-1: data-movement-ops.md §15 (spec example, measured values,
measured dynamic shapes and errors)."""
import numpy as np
import pytest

import irrun
from helpers import ALL_DTYPES, Param, infer_op, raises_for, run_op, sample, shape_str
from irrun.types import elements
from irrun.errors import ShapeError
from irrun.ir.builder import IRWriter

BF, DF = "blocks_first", "depth_first"


def d2s(x, mode, bs=2, params=(0,)):
    return run_op("DepthToSpace", [x], {"mode": mode, "block_size": bs}, params=params)[0]


def s2d(x, mode, bs=2, params=(0,)):
    return run_op("SpaceToDepth", [x], {"mode": mode, "block_size": bs}, params=params)[0]


def seq(*shape):
    return np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)


@pytest.mark.parametrize("params", [(), (0,)], ids=["const", "param"])
@pytest.mark.parametrize("shape, mode, out_shape, want", [
    ((1, 8, 1, 1), BF, (1, 2, 2, 2), [0, 2, 4, 6, 1, 3, 5, 7]),
    ((1, 8, 1, 1), DF, (1, 2, 2, 2), [0, 1, 2, 3, 4, 5, 6, 7]),
    ((1, 8, 2, 1), BF, (1, 2, 4, 2), [0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15]),
    ((1, 8, 2, 1), DF, (1, 2, 4, 2), [0, 2, 4, 6, 1, 3, 5, 7, 8, 10, 12, 14, 9, 11, 13, 15]),
    ((1, 4, 2), BF, (1, 2, 4), [0, 4, 1, 5, 2, 6, 3, 7]),
    ((1, 8, 1, 1, 1), DF, (1, 1, 2, 2, 2), [0, 1, 2, 3, 4, 5, 6, 7]),
])
def test_depth_to_space_values(shape, mode, out_shape, want, params):
    out = d2s(seq(*shape), mode, params=params)
    assert out.shape == out_shape and out.dtype == np.float32
    np.testing.assert_array_equal(out.ravel(), want)


@pytest.mark.parametrize("params", [(), (0,)], ids=["const", "param"])
@pytest.mark.parametrize("shape, mode, out_shape, want", [
    ((1, 2, 2, 2), BF, (1, 8, 1, 1), [0, 4, 1, 5, 2, 6, 3, 7]),
    ((1, 2, 2, 2), DF, (1, 8, 1, 1), [0, 1, 2, 3, 4, 5, 6, 7]),
    ((1, 1, 4), BF, (1, 2, 2), [0, 2, 1, 3]),
    ((1, 1, 4), DF, (1, 2, 2), [0, 2, 1, 3]),
])
def test_space_to_depth_values(shape, mode, out_shape, want, params):
    out = s2d(seq(*shape), mode, params=params)
    assert out.shape == out_shape
    np.testing.assert_array_equal(out.ravel(), want)


def test_block_size_one_is_identity():
    x = seq(1, 3, 2, 2)
    np.testing.assert_array_equal(d2s(x, BF, 1), x)
    np.testing.assert_array_equal(s2d(x, DF, 1), x)


@pytest.mark.parametrize("mode", [BF, DF])
def test_spec_example_shapes(mode):
    assert shape_str(infer_op("DepthToSpace", [Param("f32", "5,28,2,3")], {"mode": mode, "block_size": 2})[0]) \
        == "[5,7,4,6]"
    assert shape_str(infer_op("SpaceToDepth", [Param("f32", "5,7,4,6")], {"mode": mode, "block_size": 2})[0]) \
        == "[5,28,2,3]"


def test_zero_size():
    assert d2s(np.zeros((1, 0, 2), np.float32), BF).shape == (1, 0, 4)
    assert d2s(np.zeros((0, 8, 2), np.float32), DF).shape == (0, 4, 4)
    assert s2d(np.zeros((1, 8, 0), np.float32), DF).shape == (1, 16, 0)


@pytest.mark.parametrize("type_, shape, bs, out", [           # all measured with OpenVINO 2026.4.1
    ("DepthToSpace", "1,?,2,3", 2, "[1,?,4,6]"),
    ("DepthToSpace", "1,4..16,2,3", 2, "[1,1..4,4,6]"),
    ("DepthToSpace", "1,5..9,2,3", 2, "[1,2,4,6]"),
    ("DepthToSpace", "1,3..,2..5,?", 2, "[1,1..,4..10,?]"),     # OpenVINO prints 1..2305843009213693952
    ("DepthToSpace", "...", 2, "[...]"),
    ("DepthToSpace", "1,0,2", 2, "[1,0,4]"),
    ("SpaceToDepth", "1,?,4,?", 2, "[1,?,2,?]"),
    ("SpaceToDepth", "1,2,4..16,3..", 2, "[1,8,2..8,2..]"),
    ("SpaceToDepth", "1,2,5..7,2", 2, "[1,8,3,1]"),
    ("SpaceToDepth", "1,2,5..9,2", 2, "[1,8,3..4,1]"),
    ("SpaceToDepth", "1,2,1..3,2", 2, "[1,8,1,1]"),
    ("SpaceToDepth", "...", 2, "[...]"),
    ("SpaceToDepth", "1,8,0", 2, "[1,16,0]"),
])
def test_dynamic_shapes(type_, shape, bs, out):
    assert shape_str(infer_op(type_, [Param("f32", shape)], {"mode": BF, "block_size": bs})[0]) == out


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
@pytest.mark.parametrize("mode", [BF, DF])
def test_dtypes(dtype, mode):
    x = sample((1, 4, 1, 1), dtype)
    out = d2s(x, mode)
    assert out.dtype == x.dtype and out.shape == (1, 1, 2, 2)
    # K=2, C'=1: both modes read the 4 channels in order into the 2x2 block
    assert (out.ravel() == x.ravel()).all()
    back = s2d(out, mode)
    assert back.dtype == x.dtype and (back == x).all()


# --- errors and attribute defaults ----------------------------------------------------------------

@pytest.mark.parametrize("type_, shape, attrs, fragment", [
    ("DepthToSpace", "1,8", {"mode": BF, "block_size": 2},
     "The input tensor with rank lower than 3 is not supported (input rank: 2)"),
    ("SpaceToDepth", "1,8", {"mode": BF, "block_size": 2},
     "The input tensor with rank lower than 3 is not supported (input rank: 2)"),
    ("DepthToSpace", "1,8,2", {"mode": BF, "block_size": 0}, "DepthToSpace: The divisor must not be 0"),
    ("SpaceToDepth", "1,8,2", {"mode": BF, "block_size": 0}, "The block size must be greater than 0"),
    ("DepthToSpace", "1,6,2", {"mode": BF, "block_size": -1}, "divisor must be greater than 0"),
    ("SpaceToDepth", "1,6,2", {"mode": BF, "block_size": -1}, "divisor must be greater than 0"),
    ("DepthToSpace", "1,6,6,6", {"mode": BF, "block_size": 2}, "Dimension value: [ 6, 6] must be a multiple of divisor: 4"),
    ("DepthToSpace", "1,8,2", {"mode": DF, "block_size": 3}, "Dimension value: [ 8, 8] must be a multiple of divisor: 3"),
    ("DepthToSpace", "1,5..7,2,3", {"mode": BF, "block_size": 2}, "Dimension value: [ 5, 7] must be a multiple of divisor: 4"),
    ("SpaceToDepth", "1,6,6,5", {"mode": BF, "block_size": 2}, "Dimension value: [ 5, 5] must be a multiple of divisor: 2"),
    ("DepthToSpace", "1,8,2", {"mode": BF}, "DepthToSpace: The divisor must not be 0"),   # missing -> 0
    ("SpaceToDepth", "1,8,2", {"mode": DF}, "The block size must be greater than 0 0"),
    ("DepthToSpace", "1,8,2", {"mode": "xyz", "block_size": 2}, "blocks_first, depth_first"),
])
def test_rejected(type_, shape, attrs, fragment):
    raises_for(type_, ShapeError, fragment, infer_op, type_, [Param("f32", shape)], attrs)


def test_rejected_with_constant_input():
    raises_for("DepthToSpace", ShapeError, "Dimension value: [ 6, 6] must be a multiple of divisor: 4",
               d2s, seq(1, 6, 2, 2), BF, params=())


@pytest.mark.parametrize("type_, shape, out", [("DepthToSpace", "1,8,2,2", "[1,2,4,4]"),
                                               ("SpaceToDepth", "1,8,2,2", "[1,32,1,1]")])
def test_missing_mode_reads_as_blocks_first(type_, shape, out):
    (info,) = infer_op(type_, [Param("f32", shape)], {"block_size": 2})
    assert shape_str(info) == out
    x = seq(1, 8, 1, 1)
    np.testing.assert_array_equal(run_op("DepthToSpace", [x], {"block_size": 2})[0].ravel(),
                                  [0, 2, 4, 6, 1, 3, 5, 7])


def test_mode_is_case_insensitive():
    np.testing.assert_array_equal(d2s(seq(1, 8, 1, 1), "BLOCKS_FIRST").ravel(), [0, 2, 4, 6, 1, 3, 5, 7])


# --- DepthToSpace -> SpaceToDepth round trips (2-layer models) ------------------------------------

@pytest.mark.parametrize("mode", [BF, DF])
@pytest.mark.parametrize("shape, bs", [((2, 8, 2, 3), 2), ((1, 27, 2), 3), ((1, 16, 1, 2, 1), 2),
                                       ((2, 4, 3, 1), 2)])
def test_depth_to_space_then_space_to_depth_is_identity(tmp_path, mode, shape, bs):
    x = sample(shape, np.int32)
    b = IRWriter("roundtrip")
    p = b.parameter("x", elements.from_dtype(x.dtype).name, list(shape))
    mid = b.layer("DepthToSpace", [p], {"mode": mode, "block_size": bs})
    b.result(b.layer("SpaceToDepth", [mid], {"mode": mode, "block_size": bs}), "y")
    y = irrun.read_model(b.save(tmp_path / "rt.xml")).run({"x": x})["y"]
    assert y.shape == x.shape and (y == x).all()
