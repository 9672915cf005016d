"""Slice-8: data-movement-ops.md §3 (op_reference/slice.cpp, type_prop/slice.cpp, measured rows)."""
from __future__ import annotations

from functools import partial

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import ALL_DTYPES, Param, _build, _tmp, infer_op, raises_for, run_op, sample, shape_str
from irrun.errors import ExecutionError, IrrunError, OpError, ShapeError
from irrun.ops.base import TensorInfo
from irrun.ops.slice import Slice8, clamp_slice, sliced_dim
from irrun.types.elements import TYPES
from irrun.types.shapes import Dim, PartialShape

MIN, MAX = np.iinfo(np.int64).min, np.iinfo(np.int64).max
# Const: the op is folded during inference; data: data fed at run time, indices constant;
# all: every input fed at run time (the kernel sees the index values first at run time).
PATHS = {"const": (), "data": (0,), "all": (0, 1, 2, 3, 4)}


def i64(*v):
    return np.array(v, dtype=np.int64)


def slice8(inputs, params=(0,)):
    return run_op("Slice", inputs, version="opset8", params=params)[0]


def shape_of(data_shape, *idx, params=(0,), etype="f32"):
    return shape_str(infer_op("Slice", [Param(etype, data_shape), *idx], version="opset8", params=params)[0])


rejects = partial(raises_for, "Slice")


# ---------------------------------------------------------------------------------------------
# Value table (data = 0..N-1 unless `one` = data 1..N): shape, start, stop, step, axes, expected

TABLE = [
    ((10,), False, [1], [8], [1], [0], [1, 2, 3, 4, 5, 6, 7]),
    ((10,), False, [-100], [100], [1], [0], [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]),
    ((10,), False, [9], [-11], [-1], [0], [9, 8, 7, 6, 5, 4, 3, 2, 1, 0]),
    ((10,), False, [9], [0], [-1], [0], [9, 8, 7, 6, 5, 4, 3, 2, 1]),
    ((10,), False, [9], [-10], [-1], [0], [9, 8, 7, 6, 5, 4, 3, 2, 1]),
    ((10,), False, [9], [-11], [-2], [0], [9, 7, 5, 3, 1]),
    ((10,), False, [100], [-100], [-1], [0], [9, 8, 7, 6, 5, 4, 3, 2, 1, 0]),
    ((2, 5), False, [0, 1], [2, 4], [1, 2], [0, 1], [[1, 3], [6, 8]]),
    ((4,), True, [5], [-6], [-1], None, [4, 3, 2, 1]),
    ((4,), True, [0], [5], [-1], [0], np.zeros(0)),
    ((4,), True, [6], [5], [1], [0], np.zeros(0)),
    ((2, 2), True, [0, 3], [2, -4], [1, -1], [0, 1], [[2, 1], [4, 3]]),
    ((2, 2), True, [-1, 3], [-4, -4], [-1, -1], [0, 1], [[4, 3], [2, 1]]),
    ((3, 16), False, [2, 15], [-4, -17], [-1, -15], [0, 1], [[47, 32], [31, 16], [15, 0]]),
    ((3, 16), False, [0, 0], [3, 16], [1, 15], [0, 1], [[0, 15], [16, 31], [32, 47]]),
    ((2, 4, 3), False, [0, 0, 4], [2, 4, -5], [3, 2, -2], [0, 1, 2], [[[2, 0], [8, 6]]]),
    ((2, 2, 2), True, [0, 0, 0], [2, 2, 2], [1, 1, 1], [-3, -2, -1], [[[1, 2], [3, 4]], [[5, 6], [7, 8]]]),
    ((2, 2), False, [10, 0], [20, 2], [1, 1], [0, 1], np.zeros((0, 2))),
    ((2, 2, 2), False, [0, 2, 0], [2, 2, 2], [1, 1, 1], [0, 1, 2], np.zeros((2, 0, 2))),
    ((4, 2, 3, 2), False, [100, -100], [-100, 100], [-1, 2], [2, 0],
     np.array([4, 5, 2, 3, 0, 1, 10, 11, 8, 9, 6, 7, 28, 29, 26, 27, 24, 25, 34, 35, 32, 33, 30, 31]).reshape(2, 2, 3, 2)),
    ((2, 4, 2, 2, 3), False, [0, 1, -5, 100, 1], [2, 6, 3, -100, 2], [1, 2, 2, -1, 1], [-5, 1, 4, 2, 3],
     np.array([21, 23, 15, 17, 45, 47, 39, 41, 69, 71, 63, 65, 93, 95, 87, 89]).reshape(2, 2, 2, 1, 2)),
    ((4, 2, 3, 2), False, [0], [2], [1], [0], np.arange(24).reshape(2, 2, 3, 2)),
    ((4, 2, 3, 2), False, [0], [4], [2], [0],
     np.array(list(range(12)) + list(range(24, 36))).reshape(2, 2, 3, 2)),
    # measured (OpenVINO 2026.4.1): the negative-step start clamp, sentinels, empty results
    ((3,), False, [-4], [-4], [-3], [0], [0]),          # Python: []
    ((3,), False, [-5], [-10], [-1], [0], [0]),         # Python: []
    ((5,), False, [2], [MAX], [2], [0], [2, 4]),
    ((5,), False, [-1], [MIN], [-1], [0], [4, 3, 2, 1, 0]),
    ((5,), False, [MAX], [MIN], [-2], [0], [4, 2, 0]),
    ((5,), False, [3], [3], [1], [0], np.zeros(0)),
    ((5,), False, [-1], [-2], [1], [0], np.zeros(0)),
    ((0, 3), False, [0], [1], [1], [0], np.zeros((0, 3))),
    # the OpenVINO issue's window: 1x1x4x4 = 1..16, offsets {0,0,0,1}, sizes {1,1,4,3}
    ((1, 1, 4, 4), True, [0, 0, 0, 1], [1, 1, 4, 4], [1, 1, 2, 2], None, [[[[2, 4], [10, 12]]]]),
    ((1, 1, 4, 4), True, [0, 0, 3, 1], [1, 1, -5, 4], [1, 1, -2, 2], None, [[[[14, 16], [6, 8]]]]),
    ((1, 1, 4, 4), True, [0, 0, 3, 1], [1, 1, MIN, 4], [1, 1, -2, 2], [0, 1, 2, 3], [[[[14, 16], [6, 8]]]]),
]


def _data(shape, one, dtype=np.float32):
    return (np.arange(int(np.prod(shape))) + (1 if one else 0)).reshape(shape).astype(dtype)


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("shape, one, start, stop, step, axes, expected", TABLE)
def test_table(path, shape, one, start, stop, step, axes, expected):
    x = _data(shape, one)
    inputs = [x, i64(*start), i64(*stop), i64(*step)] + ([] if axes is None else [i64(*axes)])
    out = slice8(inputs, PATHS[path])
    expected = np.asarray(expected, dtype=np.float32)
    assert out.dtype == np.float32
    assert out.shape == expected.shape
    np.testing.assert_array_equal(out, expected)


@pytest.mark.parametrize("itype", [np.int8, np.int16, np.int32, np.int64])
def test_int_min_max_index_of_every_type(itype):
    """start [min,max,max,min], stop [max,min,min,max], step [1,-1,-1,1]: dims 1 and 2 reversed."""
    lo, hi = np.iinfo(itype).min, np.iinfo(itype).max
    x = np.arange(48, dtype=np.float32).reshape(4, 2, 3, 2)
    idx = [np.array(v, dtype=itype) for v in ([lo, hi, hi, lo], [hi, lo, lo, hi], [1, -1, -1, 1], [0, 1, 2, 3])]
    expected = [10, 11, 8, 9, 6, 7, 4, 5, 2, 3, 0, 1, 22, 23, 20, 21, 18, 19, 16, 17, 14, 15, 12, 13,
                34, 35, 32, 33, 30, 31, 28, 29, 26, 27, 24, 25, 46, 47, 44, 45, 42, 43, 40, 41, 38, 39, 36, 37]
    for params in PATHS.values():
        out = slice8([x, *idx], params)
        assert out.shape == (4, 2, 3, 2)
        np.testing.assert_array_equal(out.ravel(), expected)


# Mixed data / index / axes types (op_reference generateSliceCombinedParams); unsigned index rows.
MIXED = [(np.float16, np.int32, np.int8), (TYPES["bf16"].dtype, np.int32, np.int16),
         (np.float32, np.int64, np.int32), (np.int8, np.int16, np.int8), (np.int16, np.int8, np.int16),
         (np.int32, np.int64, np.int32), (np.int64, np.int32, np.int64), (np.uint32, np.int32, np.int16),
         (np.uint8, np.uint8, np.uint8), (np.uint16, np.uint16, np.uint16), (np.uint32, np.uint32, np.uint32),
         (np.uint64, np.uint64, np.uint64), (np.uint16, np.uint8, np.uint32), (np.uint32, np.uint16, np.uint8)]
UNSIGNED_ROWS = [  # data shape (1..N), start, stop, step, axes, expected
    ((4,), [0], [5], [1], [0], [1, 2, 3, 4]),
    ((4,), [0], [5], [1], None, [1, 2, 3, 4]),
    ((4,), [6], [5], [1], [0], []),
    ((2, 2), [0, 0], [2, 2], [1, 1], [0, 1], [[1, 2], [3, 4]]),
    ((2, 4), [1, 0], [2, 3], [1, 2], [0, 1], [[5, 7]]),
    ((2, 2, 2), [0, 0], [2, 2], [1, 1], [0, 1], [[[1, 2], [3, 4]], [[5, 6], [7, 8]]]),
    ((2, 2, 2), [0, 2, 0], [2, 2, 2], [1, 1, 1], [0, 1, 2], np.zeros((2, 0, 2))),
]


@pytest.mark.parametrize("dtype, itype, atype", MIXED)
@pytest.mark.parametrize("path", ["const", "all"])
def test_index_types(dtype, itype, atype, path):
    for shape, start, stop, step, axes, expected in UNSIGNED_ROWS:
        x = _data(shape, True, dtype)
        idx = [np.array(v, dtype=itype) for v in (start, stop, step)]
        idx += [] if axes is None else [np.array(axes, dtype=atype)]
        out = slice8([x, *idx], PATHS[path])
        assert out.dtype == np.dtype(dtype)
        assert out.shape == np.shape(expected) or out.size == np.size(expected) == 0
        np.testing.assert_array_equal(out.astype(np.float64), np.asarray(expected, np.float64).reshape(out.shape))


@pytest.mark.parametrize("path", PATHS)
def test_u8_255_is_255_not_minus_1(path):
    x = np.arange(300, dtype=np.int32)
    out = slice8([x, np.array([250], np.uint8), np.array([255], np.uint8), np.array([1], np.uint8)], PATHS[path])
    np.testing.assert_array_equal(out, [250, 251, 252, 253, 254])   # as -1 it would run to 298
    out = slice8([x, np.array([255], np.uint8), np.array([299], np.uint16), np.array([40], np.uint8)], PATHS[path])
    np.testing.assert_array_equal(out, [255, 295])                   # as -1 it would be [299]


@pytest.mark.parametrize("path", PATHS)
def test_empty_start_is_a_no_op(path):
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    e = np.zeros(0, np.int64)
    for inputs in ([x, e, e, e], [x, e, e, e, e]):
        out = slice8(inputs, PATHS[path])
        np.testing.assert_array_equal(out, x)
        if path != "const":
            assert np.shares_memory(out, x)


# ---------------------------------------------------------------------------------------------
# Every element type; results are views of the input

@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
@pytest.mark.parametrize("path", ["data", "all"])
def test_all_dtypes_are_views(dtype, path):
    x = sample((2, 5), dtype)
    out = slice8([x, i64(0, 4), i64(2, 0), i64(1, -2), i64(0, 1)], PATHS[path])   # columns 4, 2
    assert out.dtype == x.dtype
    np.testing.assert_array_equal(out, x[:, [4, 2]])
    assert np.shares_memory(out, x)


def test_kernel_views_negative_steps_and_int_extremes():
    x = np.arange(48, dtype=np.float32).reshape(4, 2, 3, 2)
    (out,) = Slice8().run(x, i64(MIN, MAX, MAX, MIN), i64(MAX, MIN, MIN, MAX), i64(1, -1, -1, 1), i64(0, 1, 2, 3))
    assert np.shares_memory(out, x) and out.base is not None
    assert out.ravel()[:12].tolist() == [10, 11, 8, 9, 6, 7, 4, 5, 2, 3, 0, 1]


# ---------------------------------------------------------------------------------------------
# Errors (measured messages)

def test_errors_at_inference():
    x = np.zeros((2, 3), np.float32)
    cases = [
        ([x, i64(0), i64(1), i64(0), i64(0)], "Step must be non-zero"),
        ([x, i64(0, 0), i64(1, 1), i64(1, 1), i64(0, 0)], "Slice values in `axes` input must be unique."),
        ([x, i64(0, 0), i64(1, 1), i64(1, 1), i64(-1, 1)], "Slice values in `axes` input must be unique."),
        ([x, i64(0), i64(1), i64(1), i64(2)], "Axis 2 out of the tensor rank range [-2, 1]."),
        ([x, i64(0, 0), i64(1), i64(1, 1)], "Slice `start`, `stop`, `step` inputs must have compatible shapes."),
        ([x, i64(0, 0), i64(1, 1), i64(1, 1), i64(0)],
         "Slice `axes` input must have compatible shape with `start`, `stop`, `step` inputs."),
        ([x, i64(0, 0, 0), i64(1, 1, 1), i64(1, 1, 1)], "Slice `start` input dim size can't be bigger than `data` rank."),
        ([np.float32(1), i64(0), i64(1), i64(1)], "Slice `data` input can't be a scalar."),
        ([x, np.int64(0), i64(1), i64(1)], "Slice `start` input must be a 1D tensor. Got rank: 0"),
        ([x, np.array([0.0], np.float32), i64(1), i64(1)], "Slice `start` input type must be integer."),
        ([x, np.array([False]), i64(1), i64(1)], "Slice `start` input type must be integer."),
        ([x, i64(0), np.array([1.0], np.float32), i64(1)], "Slice `stop` input type must be integer."),
        ([x, i64(0), i64(1), np.array([1.0], np.float32)], "Slice `step` input type must be integer."),
        ([x, i64(0), i64(1), i64(1), np.array([0.0], np.float32)], "Slice `axes` input type must be integer."),
    ]
    for inputs, msg in cases:
        for params in ((), (0,)):
            rejects(ShapeError, msg, lambda: slice8(inputs, params))


def test_runtime_values_are_checked_like_constants():
    x = np.zeros((2, 3), np.float32)
    cases = [
        ([x, i64(0), i64(1), i64(0), i64(0)], "Step must be non-zero"),
        ([x, i64(0, 0), i64(1, 1), i64(1, 1), i64(-1, 1)], "Slice values in `axes` input must be unique."),
        ([x, i64(0), i64(1), i64(1), i64(-3)], "Axis -3 out of the tensor rank range [-2, 1]."),
    ]
    for inputs, msg in cases:
        rejects(ExecutionError, msg, lambda: slice8(inputs, (0, 1, 2, 3, 4)))


def test_runtime_lengths_of_dynamic_index_inputs_are_checked():
    model_inputs = [Param("f32", "2,3"), Param("i64", "?"), Param("i64", "?"), Param("i64", "?")]
    model, _ = _build(_tmp(), "Slice", model_inputs, None, "opset8", 1, ())
    x = np.zeros((2, 3), np.float32)
    feeds = {"in0": x, "in1": i64(0, 0), "in2": i64(1), "in3": i64(1, 1)}
    rejects(IrrunError, "must have compatible shapes", lambda: model.run(feeds))
    feeds = {"in0": x, "in1": i64(0, 0, 0), "in2": i64(1, 1, 1), "in3": i64(1, 1, 1)}
    rejects(IrrunError, "can't be bigger than `data` rank", lambda: model.run(feeds))
    feeds = {"in0": x, "in1": i64(1), "in2": i64(2), "in3": i64(1)}
    np.testing.assert_array_equal(model.run(feeds)["out0"], np.zeros((1, 3)))


# ---------------------------------------------------------------------------------------------
# Shapes (type_prop/slice.cpp and data-movement-ops.md §3)

TEN8 = "10,10,10,10,10,10,10,10"
SHAPES = [
    (TEN8, [1, 1, -20, 9, 9, 9, 9, 20], [8, 8, 20, -11, 0, -10, -11, -20], [1, 2, 1, -1, -1, -1, -2, -1],
     list(range(8)), "[7,4,10,10,9,9,5,10]"),
    (TEN8, [1, 1, -20, 9, 9, 9, 9, 20], [8, 8, 20, -11, 0, -10, -11, -20], [1, 2, 1, -1, -1, -1, -2, -1],
     None, "[7,4,10,10,9,9,5,10]"),
    ("5,5,5,5,9,9", [0] * 6, [5, 5, 5, 5, 9, 9], [2, 3, 4, 5, 2, 3], None, "[3,2,2,1,5,3]"),
    ("5,5,5,5,9,9", [5, 5, 5, 5, 9, 9], [0] * 6, [-2, -3, -4, -5, -2, -3], None, "[2,2,1,1,4,3]"),
    ("5,5,5,5,9,9", [0, 0, 0, 5, 0, 10], [5, 5, 5, 5, 9, 9], [2, -3, 1, 5, 2, 1], None, "[3,0,5,0,5,0]"),
    (TEN8, [1, 1, -20, 9, 9, 9, 9, 20], [8, 8, 20, -11, 0, -10, -11, -20], [1, 2, 1, -1, -1, -1, -2, -1],
     [2, 0, 3, 7, 1, 5, 6, 4], "[4,9,7,10,10,9,5,10]"),
    # partial shapes
    ("?", [2], [8], [1], None, "[0..6]"),
    ("20..", [-7], [MAX], [1], None, "[7]"),
    ("10,10,10,10,10,20,20..30,30,2..5,?", [1, 1, -20, 9, 10, 9], [8, 8, 20, -11, 25, 0], [1, 2, 1, -1, 1, -1],
     [1, 0, 2, 3, 6, 4], "[4,7,10,10,9,20,10..15,30,2..5,?]"),
    ("1..5,10..20,20..30,16,30..40", [0, 2, 10, 0, 35], [1, 8, 25, 16, 40], [1] * 5, None, "[1,6,10..15,16,0..5]"),
    ("10,10..20,10..20,10..20,10..20,10..20,30..40,0..50,?", [2, 2, MIN, MIN, MIN, MIN, MIN, 0, 0],
     [10, MAX, 5, 10, 15, 25, MAX, 50, MAX], [1] * 9, None, "[8,8..18,5,10,10..15,10..20,30..40,0..50,?]"),
    ("10,10..20,10..20,10..20,11..20,10..20,10..20,30..40,20,20,0..20,?,?",
     [9, MAX, MAX, MAX, MAX, MAX, MAX, MAX, 20, 20, 20, 20, MAX],
     [1, 1, 4, 10, 10, 15, 25, MIN, -21, MIN, MIN, MIN, MIN], [-1, -2] + [-1] * 11, None,
     "[8,4..9,5..15,0..9,0..9,0..4,0,30..40,20,20,0..20,0..21,?]"),
    ("?,?,?,?", [2, 10, 35, MIN], [8, 25, 40, -3], [1] * 4, None, "[0..6,0..15,0..5,?]"),
    ("?,?,?", [-8, -25, -40], [-2, -10, -35], [1] * 3, None, "[0..6,0..15,0..5]"),
    ("?,?,?", [8, 25, 40], [2, 10, 35], [-1] * 3, None, "[0..6,0..15,0..5]"),
    ("?,?,?", [-2, -10, -35], [-8, -25, -40], [-1] * 3, None, "[0..6,0..15,0..5]"),
    ("?,?,?,?,?,?", [5, 5, 5, -10, MAX, MAX], [-10, -10, MIN, 5, 5, MIN], [-1, -2, -1, -1, -1, -1], None,
     "[0..6,0..3,0..6,?,?,?]"),
    ("0..2000,?,4", [0, 0, 0], [MAX, MAX, MAX], [1, 1, 1], None, "[0..2000,?,4]"),
    ("0..2000,?,4", [1], [MAX], [1], [1], "[0..2000,?,4]"),
    ("...", [1, 1, -20], [8, 8, 20], [1, 2, 1], None, "[...]"),
]


@pytest.mark.parametrize("data, start, stop, step, axes, expected", SHAPES)
def test_shapes(data, start, stop, step, axes, expected):
    idx = [i64(*start), i64(*stop), i64(*step)] + ([] if axes is None else [i64(*axes)])
    assert shape_of(data, *idx) == expected


def test_i32_extremes_are_the_sentinels_and_other_values_are_bounds():
    i32 = lambda *v: np.array(v, np.int32)  # noqa: E731
    mx = np.iinfo(np.int32).max
    assert shape_of("0..2000,?,4", i32(0, 0, 0), i32(mx, mx, mx), i32(1, 1, 1)) == "[0..2000,?,4]"
    assert shape_of("?", i32(0), i32(mx - 1), i32(1)) == "[0..2147483646]"
    assert shape_of("?", i64(0), i64(2**31 - 1), i64(1)) == "[0..2147483647]"
    assert shape_of("?", i64(0), i64(2**40), i64(1)) == "[0..1099511627776]"
    assert shape_of("?", i64(0), i64(MAX - 1), i64(1)) == "[?]"   # OpenVINO: 0..MAX-1; no dim is that long


def test_unknown_values_give_zero_to_upper():
    p = lambda n: Param("i64", n)  # noqa: E731
    data = "0..10,1..10,10,3..5,?,100..,0..8,4..8,16"
    # start/stop/step unknown, default axes from start's length 7: the last two dims are kept
    assert shape_of(data, p("7"), p("7"), p("7"), params=(0, 1, 2, 3)) == "[0..10,0..10,0..10,0..5,?,?,0..8,4..8,16]"
    assert shape_of(data, p("7"), p("7"), p("7"), i64(*range(7)), params=(0, 1, 2, 3)) == \
        "[0..10,0..10,0..10,0..5,?,?,0..8,4..8,16]"
    # axes unknown: every dim may be sliced
    assert shape_of(data, p("7"), p("7"), p("7"), p("7"), params=(0, 1, 2, 3, 4)) == \
        "[0..10,0..10,0..10,0..5,?,?,0..8,0..8,0..16]"
    assert shape_of("5..10,2,7,0..4", p("3"), p("3"), p("3"), i64(0, 3, 1), params=(0, 1, 2, 3)) == "[0..10,0..2,7,0..4]"
    assert shape_of("5..10,2,7,0..4", p("3"), p("3"), p("3"), i64(-4, -1, -3), params=(0, 1, 2, 3)) == "[0..10,0..2,7,0..4]"
    # only stop unknown: the axes come from start
    assert shape_of("0..10,1..10,10,3..5", i64(0, 0), p("2"), i64(1, 1), params=(0, 2)) == "[0..10,0..10,10,3..5]"
    # start of unknown length and no axes input: every dim
    assert shape_of("0..10,1..10,10,3..5", p("?"), p("?"), p("?"), params=(0, 1, 2, 3)) == "[0..10,0..10,0..10,0..5]"
    # dynamic data rank stays dynamic
    assert shape_of("...", p("2"), p("2"), p("2"), params=(0, 1, 2, 3)) == "[...]"


# ---------------------------------------------------------------------------------------------
# Properties against an independent emulation: Python slicing + the documented clamp rule

def emulate(n: int, start: int, stop: int, step: int) -> list[int]:
    """Indices [start:stop:step] selects on range(n) in OpenVINO: Python's list slicing, except
    that a negative step whose start is below -n starts at element 0."""
    if step < 0 and start < -n:
        start = 0
    return range(n)[start:stop:step]


VALUES = st.one_of(st.integers(-12, 12), st.sampled_from([MIN, MAX, MIN + 1, MAX - 1]))
STEPS = st.sampled_from([-4, -3, -2, -1, 1, 2, 3, 4])


@settings(max_examples=400, deadline=None)
@given(st.lists(st.integers(0, 6), min_size=1, max_size=4), st.data())
def test_kernel_matches_python_slicing_with_the_clamp_rule(shape, data):
    rank = len(shape)
    axes = data.draw(st.permutations(range(rank)))[:data.draw(st.integers(0, rank))]
    axes = [a - rank if data.draw(st.booleans()) else a for a in axes]
    start, stop, step = ([data.draw(s) for _ in axes] for s in (VALUES, VALUES, STEPS))
    x = np.arange(int(np.prod(shape)), dtype=np.int32).reshape(shape)
    (out,) = Slice8().run(x, i64(*start), i64(*stop), i64(*step), i64(*axes))
    picks = [list(range(n)) for n in shape]
    for a, s0, s1, s2 in zip(axes, start, stop, step):
        picks[a % rank] = emulate(shape[a % rank], s0, s1, s2)
    expected = x[np.ix_(*picks)] if all(picks) else np.zeros([len(p) for p in picks], x.dtype)
    assert out.shape == expected.shape
    np.testing.assert_array_equal(out, expected)
    assert out.size == 0 or np.shares_memory(out, x)
    # the shape rule (same helper) agrees with the kernel
    infos = [TensorInfo(TYPES["i32"], PartialShape(shape))] + \
        [TensorInfo.of(i64(*v), TYPES["i64"]) for v in (start, stop, step, axes)]
    assert Slice8().infer(infos)[0].shape == PartialShape(out.shape)


@settings(max_examples=400, deadline=None)
@given(st.integers(0, 12), st.one_of(st.none(), st.integers(0, 14)), VALUES, VALUES, STEPS)
def test_interval_dims_are_exact(lo, span, start, stop, step):
    """sliced_dim contains the length for every size the interval allows, and its ends are attained
    (for an unbounded dim: sizes up to 60, and it is unbounded only if the length keeps growing)."""
    hi = None if span is None else lo + span
    d = sliced_dim(Dim(lo, hi), start, stop, step)
    lengths = [len(emulate(n, start, stop, step)) for n in range(lo, (60 if hi is None else hi) + 1)]
    assert all(d.contains(v) for v in lengths)
    assert d.lo == min(lengths)
    if hi is None:
        far = len(emulate(10**12, start, stop, step))     # INT64_MIN/MAX still act as the ends here
        assert (d.hi is None) == (far > max(lengths))
        if d.hi is not None:
            assert d.hi == max(lengths) >= far
    else:
        assert d.hi == max(lengths)


def test_clamp_rule_examples():
    assert clamp_slice(3, -4, -4, -3) == (slice(0, None, -3), 1)
    assert clamp_slice(5, -7, MIN, -1) == (slice(0, None, -1), 1)
    assert clamp_slice(0, MAX, MIN, -1)[1] == 0
    with pytest.raises(OpError, match="Step must be non-zero"):
        clamp_slice(3, 0, 1, 0)


def test_the_kept_index_follows_the_values_and_the_data_shape():
    """Slice-8 keeps the index of its last call (the same constants every LLM decode step): a
    call with other start/stop/step/axes values, another index dtype or another data shape must
    slice by its own values — Python's slicing is the expected value."""
    op = Slice8()
    x = np.arange(60, dtype=np.float32).reshape(3, 20)
    calls = [(x, [1], [5], [1], [1], x[:, 1:5]),
             (x, [1], [5], [1], [1], x[:, 1:5]),              # the kept index
             (x, [2], [5], [1], [1], x[:, 2:5]),              # another start
             (x, [1], [5], [2], [1], x[:, 1:5:2]),            # another step
             (x, [1], [5], [1], [0], x[1:5]),                 # another axis
             (x[:, :4], [1], [5], [1], [1], x[:, 1:4]),       # another data shape: clamped again
             (x, [-3], [-1], [1], [1], x[:, -3:-1])]
    for data, start, stop, step, axes, want in calls:
        got, = op.run(data, *(np.array(v, np.int64) for v in (start, stop, step, axes)))
        np.testing.assert_array_equal(got, want)
    # the same bytes read as another index type: i32 [1, 0] is not i64 [1]
    got, = op.run(x, np.array([1, 0], np.int32), np.array([5, 3], np.int32), np.array([1, 1], np.int32))
    np.testing.assert_array_equal(got, x[1:5, 0:3])
