"""StridedSlice-1: data-movement-ops.md §4 (op_reference/strided_slice.cpp, type_prop/strided_slice.cpp,
measured rows)."""
from __future__ import annotations

from functools import partial

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import ALL_DTYPES, Param, _build, _tmp, infer_op, raises_for, run_op, sample, shape_str
from irrun.types.elements import TYPES
from irrun.errors import ExecutionError, IrrunError, ShapeError
from irrun.ops.base import TensorInfo
from irrun.ops.strided_slice import StridedSlice1
from irrun.types.shapes import PartialShape

MIN, MAX = np.iinfo(np.int64).min, np.iinfo(np.int64).max
PATHS = {"const": (), "data": (0,), "all": (0, 1, 2, 3)}
MASKS = ("begin_mask", "end_mask", "new_axis_mask", "shrink_axis_mask", "ellipsis_mask")


def i64(*v):
    return np.array(v, dtype=np.int64)


def bits(text: str) -> list[int]:
    return [int(c) for c in text]


def masks(bm="", em="", nm="", sm="", el="") -> dict:
    return {name: bits(v) for name, v in zip(MASKS, (bm, em, nm, sm, el))}


def ss(inputs, attrs, params=(0,)):
    return run_op("StridedSlice", inputs, attrs, params=params)[0]


def shape_of(data_shape, *idx, attrs, params=(0,)):
    return shape_str(infer_op("StridedSlice", [Param("f32", data_shape), *idx], attrs, params=params)[0])


rejects = partial(raises_for, "StridedSlice")


# ---------------------------------------------------------------------------------------------
# Value table (data = 0..N-1): shape, begin, end, stride (None = input omitted), masks, expected

X7 = (2, 4, 6, 8, 2, 2, 2)
SS1 = [185, 187, 189, 191, 169, 171, 173, 175, 313, 315, 317, 319, 297, 299, 301, 303, 569, 571, 573, 575,
       553, 555, 557, 559, 697, 699, 701, 703, 681, 683, 685, 687, 953, 955, 957, 959, 937, 939, 941, 943,
       1081, 1083, 1085, 1087, 1065, 1067, 1069, 1071, 1337, 1339, 1341, 1343, 1321, 1323, 1325, 1327,
       1465, 1467, 1469, 1471, 1449, 1451, 1453, 1455, 1721, 1723, 1725, 1727, 1705, 1707, 1709, 1711,
       1849, 1851, 1853, 1855, 1833, 1835, 1837, 1839, 2105, 2107, 2109, 2111, 2089, 2091, 2093, 2095,
       2233, 2235, 2237, 2239, 2217, 2219, 2221, 2223, 2489, 2491, 2493, 2495, 2473, 2475, 2477, 2479,
       2617, 2619, 2621, 2623, 2601, 2603, 2605, 2607, 2873, 2875, 2877, 2879, 2857, 2859, 2861, 2863,
       3001, 3003, 3005, 3007, 2985, 2987, 2989, 2991]
TABLE = [
    ("strided_slice_0", (2, 3, 4), [1, 0], [0, 0], [1, 1], masks("000", "000", "010", "100", "000"),
     np.arange(12, 24).reshape(1, 3, 4)),
    ("stride_optional", (2, 3, 4), [-1, -1, 0], [0, 0, 0], None, masks("000", "000", "001", "110", "000"),
     [[20, 21, 22, 23]]),
    ("stride_optional_empty", (2, 3, 4), [0, 0], [-1, 0], None, masks("10", "10"), np.zeros((2, 0, 4))),
    ("strided_slice_1", X7, [0, 0, 2, 7, 0, 0, 1], [0, 4, 6, 3, 0, 0, 0], [1, 1, 2, -2, 1, 1, 1],
     masks("0100000", "1000000", "0000100", "0000001", "0000010"), np.array(SS1).reshape(2, 4, 2, 2, 1, 2, 2)),
    ("ellipsis_shrink", (2, 3, 4), [0, -1], [0, 0], [1, 1], masks("00", "00", sm="01", el="10"),
     [[3, 7, 11], [15, 19, 23]]),
    ("ellipsis_reverse_last", (2, 3, 4), [0, 0], [0, 0], [1, -1], masks("01", "01", el="10"),
     [[[3, 2, 1, 0], [7, 6, 5, 4], [11, 10, 9, 8]], [[15, 14, 13, 12], [19, 18, 17, 16], [23, 22, 21, 20]]]),
    ("new_then_ellipsis", (2, 3, 4), [0, 0], [0, 0], [1, 1], masks("00", "00", nm="10", el="01"),
     np.arange(24).reshape(1, 2, 3, 4)),
    ("ellipsis_then_new", (2, 3, 4), [0, 0], [0, 0], [1, 1], masks("00", "00", nm="01", el="10"),
     np.arange(24).reshape(2, 3, 4, 1)),
    ("begin_mask_negative_stride", (5,), [0], [1], [-1], masks("1", "0"), [4, 3, 2]),
    ("end_mask_negative_stride", (5,), [3], [1], [-1], masks("0", "1"), [3, 2, 1, 0]),
    ("both_masks_stride_-2", (5,), [0], [0], [-2], masks("1", "1"), [4, 2, 0]),
    ("reverse_clamped", (5,), [4], [-10], [-1], masks("0", "0"), [4, 3, 2, 1, 0]),
    ("reverse_clamped_-2", (5,), [10], [-10], [-2], masks("0", "0"), [4, 2, 0]),
    ("forward_clamped_3", (5,), [-10], [10], [3], masks("0", "0"), [0, 3]),
    ("negative_start_clamp", (3,), [-4], [-4], [-3], masks("0", "0"), [0]),     # Python: []
    ("begin_equals_end", (5,), [2], [2], [1], masks("0", "0"), np.zeros(0)),
    ("new_axis_beats_shrink", (4,), [0], [1], [1], masks("0", "0", "1", "1"), [[0, 1, 2, 3]]),
    ("new_axis_on_scalar", (), [0], [1], [1], masks("0", "0", "1"), [0]),
    ("masks_shorter_than_begin", (10, 11, 12), [0, 0, 0, 0], [1, 5, 20, 20], [1, 1, 1, 1],
     masks("000", "000", "100", "001", "000"), np.arange(10 * 11 * 12).reshape(10, 11, 12)[None, 0:5, 0, :]),
    ("spec_clamping_example", (2, 2), [1234, 2], [1234, 4321], [1, -1], masks("00", "00"), np.zeros((0, 0))),
    ("masks_longer_than_begin", (2, 3), [1], [2], [1], masks("0111", "0000", "0000", "0000", "0000"), [[3, 4, 5]]),
    # the OpenVINO issue's window: 1x1x4x4 = 1..16 (as 0..15 + 1 below), offsets {0,0,0,1}, sizes {1,1,4,3}
    ("window", (1, 1, 4, 4), [0, 0, 0, 1], [1, 1, 4, 4], [1, 1, 2, 2], masks("0000", "0000"),
     np.array([[[[2, 4], [10, 12]]]]) - 1),
    ("window_reversed_rows", (1, 1, 4, 4), [0, 0, 3, 1], [1, 1, -5, 4], [1, 1, -2, 2], masks("0000", "0000"),
     np.array([[[[14, 16], [6, 8]]]]) - 1),
    ("window_reversed_rows_end_mask", (1, 1, 4, 4), [0, 0, 3, 1], [1, 1, 0, 4], [1, 1, -2, 2],
     masks("0000", "0010"), np.array([[[[14, 16], [6, 8]]]]) - 1),
]


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("name, shape, begin, end, stride, attrs, expected", TABLE, ids=[r[0] for r in TABLE])
def test_table(path, name, shape, begin, end, stride, attrs, expected):
    x = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    inputs = [x, i64(*begin), i64(*end)] + ([] if stride is None else [i64(*stride)])
    out = ss(inputs, attrs, PATHS[path])
    expected = np.asarray(expected, dtype=np.float32)
    assert out.dtype == np.float32
    assert out.shape == expected.shape
    np.testing.assert_array_equal(out, expected)


def test_issue_window_on_one_to_sixteen():
    x = np.arange(1, 17, dtype=np.float32).reshape(1, 1, 4, 4)
    out = ss([x, i64(0, 0, 0, 1), i64(1, 1, 4, 4), i64(1, 1, 2, 2)], masks("0000", "0000"))
    np.testing.assert_array_equal(out, [[[[2, 4], [10, 12]]]])
    out = ss([x, i64(0, 0, 3, 1), i64(1, 1, -5, 4), i64(1, 1, -2, 2)], masks("0000", "0000"))
    np.testing.assert_array_equal(out, [[[[14, 16], [6, 8]]]])


@pytest.mark.parametrize("path", PATHS)
def test_shrink_everything_gives_a_0d_view(path):
    x = np.arange(5, dtype=np.float32)
    out = ss([x, i64(3), i64(0), i64(1)], masks("0", "0", sm="1"), PATHS[path])
    assert isinstance(out, np.ndarray) and out.shape == () and out == 3
    if path != "const":
        assert np.shares_memory(out, x)
    (k,) = StridedSlice1(**masks("00", "00", sm="11")).run(np.arange(6).reshape(2, 3), i64(1, -1), i64(0, 0), i64(1, 1))
    assert isinstance(k, np.ndarray) and k.shape == () and k == 5


@pytest.mark.parametrize("path", PATHS)
def test_shrink_uses_begin_even_with_begin_mask(path):
    """Measured: shrink ignores begin_mask (and end, stride)."""
    out = ss([np.arange(5, dtype=np.float32), i64(2), i64(0), i64(1)], masks("1", "0", sm="1"), PATHS[path])
    assert out.shape == () and out == 2


@pytest.mark.parametrize("itype", [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64])
def test_index_types(itype):
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    for params in PATHS.values():
        out = ss([x, np.array([1, 0], itype), np.array([0, 0], itype), np.array([1, 1], itype)],
                 masks("000", "000", "010", "100", "000"), params)
        np.testing.assert_array_equal(out, np.arange(12, 24).reshape(1, 3, 4))
    # u8 255 is 255 (clamped to the end), not -1
    y = np.arange(300, dtype=np.int16)
    out = ss([y, np.array([250], np.uint8), np.array([255], np.uint8)], masks("0", "0"), (0, 1, 2))
    np.testing.assert_array_equal(out, [250, 251, 252, 253, 254])


def test_int_extremes_and_float_stride():
    x = np.arange(5, dtype=np.float32)
    for t in (np.int32, np.int64):
        lo, hi = np.iinfo(t).min, np.iinfo(t).max
        out = ss([x, np.array([hi], t), np.array([lo], t), np.array([-2], t)], masks("0", "0"))
        np.testing.assert_array_equal(out, [4, 2, 0])
    # OpenVINO accepts a float stride (measured); the value is truncated
    out = ss([x, i64(0), i64(5), np.array([2.0], np.float32)], masks("0", "0"))
    np.testing.assert_array_equal(out, [0, 2, 4])


# ---------------------------------------------------------------------------------------------
# Every element type; results are views

@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
@pytest.mark.parametrize("path", ["data", "all"])
def test_all_dtypes_are_views(dtype, path):
    x = sample((2, 3, 4), dtype)
    out = ss([x, i64(0, 1, 3), i64(0, 0, 0), i64(1, 1, -2)], masks("100", "101", "010", "000", "000"),
             PATHS[path])   # [:, newaxis, 3::-2] on axes 0 and 1 -> rows 2, 0 of axis 1
    assert out.dtype == x.dtype and out.shape == (2, 1, 2, 4)
    np.testing.assert_array_equal(out, x[:, None][:, :, [2, 0]])
    assert np.shares_memory(out, x)


# ---------------------------------------------------------------------------------------------
# Errors

def test_mask_attribute_errors():
    x = np.zeros((4,), np.float32)
    cases = [
        (masks("2", "0"), "All masks of StridedSlice must have be 0 or 1"),
        (masks("0", "0", el="101"), "All masks of StridedSlice must have the same size"),
        (masks("000", "000", el="101"), "At most one ellipsis is allowed."),
        (masks("00000", "0"), "All masks of StridedSlice must have the same size"),
        (masks("0011", "0000", "001", "", "01"), "All masks of StridedSlice must have the same size"),  # spec example
        (masks("", "0"), "All masks of StridedSlice must have the same size"),
    ]
    for attrs, msg in cases:
        rejects(ShapeError, msg, lambda: ss([x, i64(0), i64(1), i64(1)], attrs))


def test_errors_at_inference():
    x = np.zeros((2, 3, 4), np.float32)
    cases = [
        ([x, i64(0), i64(1), i64(0)], masks("0", "0"), "Stride must be non-zero"),
        ([np.zeros(4, np.float32), i64(0, 0), i64(1, 1), i64(1, 1)], masks("00", "00"),
         "Input rank plus number of new axis has to be at least the size of Lower and Upper bounds vector."),
        ([np.float32(1), i64(0), i64(1), i64(1)], masks("0", "0"), "Input rank plus number of new axis"),
        ([x, i64(0, 0, 0, 0, 0), i64(1, 1, 1, 1, 1), i64(1, 1, 1, 1, 1)], masks("10000", "10000", el="01000"),
         "Input rank plus number of new axis"),
        ([x, np.array([0.0], np.float32), i64(1), i64(1)], masks("0", "0"),
         "Begin mask must be an integral number, but is: f32"),
        ([x, i64(0), np.array([1.0]), i64(1)], masks("0", "0"), "End mask must be an integral number, but is: f64"),
        ([x, np.array([[0]]), i64(1), i64(1)], masks("0", "0"), "Begin input must be 1D (has rank: 2)"),
        ([x, np.int64(0), i64(1), i64(1)], masks("0", "0"), "Begin input must be 1D (has rank: 0)"),
        ([x, i64(0), i64(1), np.array([[1]])], masks("0", "0"), "Strides input must be 1D (has rank: 2)"),
        ([x, i64(0, 0), i64(0), i64(1, 1)], masks("0", "0"), "Begin and end need to have same number of values."),
        ([x, i64(0, 0), i64(0, 0), i64(1)], masks("0", "0"),
         "Stride needs to have same number of values as begin and end."),
        ([x, i64(0, 0), i64(0, 0), i64(1, 1)], masks("00", "00", nm="10", el="10"),
         "ellipsis_mask and new_axis_mask are both set for entry 0"),
        ([x, i64(0, 0), i64(0, 0), i64(1, 1)], masks("00", "00", sm="10", el="10"),
         "ellipsis_mask and shrink_axis_mask are both set for entry 0"),
        ([np.zeros(5, np.float32), i64(5), i64(0), i64(1)], masks("0", "0", sm="1"),
         "shrink_axis_mask index 5 is out of range"),
        ([np.zeros(5, np.float32), i64(-6), i64(0), i64(1)], masks("0", "0", sm="1"),
         "shrink_axis_mask index -6 is out of range"),
    ]
    for inputs, attrs, msg in cases:
        for params in ((), (0,)):
            rejects(ShapeError, msg, lambda: ss(inputs, attrs, params))


def test_runtime_values_are_checked_like_constants():
    x = np.zeros(5, np.float32)
    cases = [
        ([x, i64(0), i64(1), i64(0)], masks("0", "0"), "Stride must be non-zero"),
        ([x, i64(5), i64(0), i64(1)], masks("0", "0", sm="1"), "shrink_axis_mask index 5 is out of range"),
        ([x, i64(-6), i64(0), i64(1)], masks("0", "0", sm="1"), "shrink_axis_mask index -6 is out of range"),
    ]
    for inputs, attrs, msg in cases:
        rejects(ExecutionError, msg, lambda: ss(inputs, attrs, (0, 1, 2, 3)))
    # a shrink index valid for some sizes of a partial dim is checked once the size is known
    attrs = masks("0", "0", sm="1")
    assert shape_of("2..8", i64(4), i64(0), i64(1), attrs=attrs) == "[]"
    model, _ = _build(_tmp(), "StridedSlice", [Param("f32", "2..8"), i64(4), i64(0), i64(1)], attrs, "opset1", 1, ())
    assert model.run({"in0": np.arange(6, dtype=np.float32)})["out0"] == 4
    rejects(IrrunError, "shrink_axis_mask index 4 is out of range",
                 lambda: model.run({"in0": np.arange(3, dtype=np.float32)}))
    rejects(ShapeError, "shrink_axis_mask index 8 is out of range",
                 lambda: shape_of("2..8", i64(8), i64(0), i64(1), attrs=attrs))


def test_ellipsis_mask_bits_past_begin_are_ignored():
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    out = ss([x, i64(1), i64(2), i64(1)], masks("00", "00", "01", "00", "01"))   # entry 1 does not exist
    np.testing.assert_array_equal(out, [[3, 4, 5]])


# ---------------------------------------------------------------------------------------------
# Shapes (type_prop/strided_slice.cpp, data-movement-ops.md §4)

SHAPES = [
    ("3,4,5", [10, 2], [-10, -10], [-1, -1], masks("000", "000"), "[3,3,5]"),
    ("4,4,4,4,4,4,4,4", [0, 2, 4, 10, -1, -2, -4, 10], [1, 3, 4, 5, -1, -3, -4, -5], [1] * 8,
     masks("1" * 8, "0" * 8), "[1,3,4,4,3,1,0,0]"),
    ("4,4,4,4,4,4,4,4", [0, 2, 4, 10, -1, -2, -4, -10], [1, 3, 4, 5, -1, -3, -4, -5], [-1] * 8,
     masks("1" * 8, "0" * 8), "[2,0,0,0,0,2,3,4]"),
    ("4,4,4,4,4,4,4,4", [0, 2, 4, 10, -1, -2, -4, -10], [1, 3, 4, 5, -1, -3, -4, -5], [1] * 8,
     masks("0" * 8, "1" * 8), "[4,2,0,0,1,2,4,4]"),
    ("4,4,4,4,4,4,4,4", [0, 2, 4, 10, -1, -2, -4, -10], [1, 3, 4, 5, -1, -3, -4, -5], [-1] * 8,
     masks("0" * 8, "1" * 8), "[1,3,4,4,4,3,1,1]"),
    ("4,4,4,4,4,4,4,4", [0, 2, 4, 10, -1, -2, -4, -10], [1, 3, 4, 5, -1, -3, -4, -5],
     [1, 2, 3, 10, -1, -2, -3, -10], masks("1" * 8, "1" * 8), "[4,2,2,1,4,2,2,1]"),
    ("3,3,3,3,3,3,3,3", [0, 0, 0, 0, 1, 1, 1, 1], [1, 2, 3, 4, 1, 2, 3, 4], [1] * 8, masks("0" * 8, "0" * 8),
     "[1,2,3,3,0,1,2,2]"),
    ("3,3,3,3,3,3,3,3", [-1, -1, -1, -1, -2, -2, -2, -2], [1, 2, 3, 4, 1, 2, 3, 4], [1] * 8,
     masks("0" * 8, "0" * 8), "[0,0,1,1,0,1,2,2]"),
    ("5,5,5,5,5", [5] * 5, [5] * 5, [1, 2, 5, -2, -5], masks("0" * 5, "0" * 5), "[0,0,0,0,0]"),
    ("10,11,12", [0, 0, 0, 0], [1, 5, 20, 20], [1, 1, 1, 1], masks("000", "000", "100", "001", "000"), "[1,5,12]"),
    # type_prop says [0..20,?] here; irrun is exact (at most 21 elements: 20..0), as Slice-8's type_prop is
    ("0..20,?", [20, 20], [MIN, MIN], [-1, -1], masks("00", "00"), "[0..20,0..21]"),
    ("2..8,?", [1, -3], [MAX, MAX], [1, 1], masks("00", "00"), "[1..7,0..3]"),
    ("...", [0], [1], [1], masks("0", "0"), "[...]"),
]


@pytest.mark.parametrize("data, begin, end, stride, attrs, expected", SHAPES)
def test_shapes(data, begin, end, stride, attrs, expected):
    assert shape_of(data, i64(*begin), i64(*end), i64(*stride), attrs=attrs) == expected


def test_unknown_begin_end():
    p = lambda n: Param("i64", n)  # noqa: E731
    assert shape_of("1,200,300,3", p("4"), p("4"), p("4"), attrs=masks("0000", "0000", "0000", "0100", "0000"),
                    params=(0, 1, 2, 3)) == "[0..1,0..300,0..3]"
    assert shape_of("1,200,300,3", p("4"), p("4"), p("4"), attrs=masks("1000", "1000", "0000", "0101", "0000"),
                    params=(0, 1, 2, 3)) == "[0..1,0..300]"
    assert shape_of("1,200,200,3", p("4"), p("4"), p("4"), attrs=masks("1000", "1000", "0010", "0000", "0000"),
                    params=(0, 1, 2, 3)) == "[0..1,0..200,1,0..200,3]"
    assert shape_of("8..,200,200,3", p("4"), p("4"), p("4"), attrs=masks("0000", "0000"),
                    params=(0, 1, 2, 3)) == "[?,0..200,0..200,0..3]"
    # begin of unknown rank, end of length 2, no stride input
    assert shape_of("2,4,6,8", Param("i64", "..."), p("2"), attrs=masks("00", "00"), params=(0, 1, 2)) == \
        "[0..2,0..4,6,8]"
    # stride known, begin/end of unknown length: the entry count comes from the stride
    assert shape_of("2,4,6,8", p("?"), p("?"), i64(1, 1, 1), attrs=masks("00", "00"), params=(0, 1, 2)) == \
        "[0..2,0..4,0..6,8]"
    # no length known anywhere: dynamic rank
    assert shape_of("2,4,6,8", p("?"), p("?"), p("?"), attrs=masks("00", "00"), params=(0, 1, 2, 3)) == "[...]"
    # shrink with an unknown begin still removes its dim; new axes after an ellipsis are counted
    assert shape_of("2,4,6,8", p("3"), p("3"), p("3"), attrs=masks("000", "000", "000", "010", "000"),
                    params=(0, 1, 2, 3)) == "[0..2,0..6,8]"
    assert shape_of("2,4,6,8", p("3"), p("3"), p("3"), attrs=masks("000", "000", "010", "000", "100"),
                    params=(0, 1, 2, 3)) == "[2,4,6,1,0..8]"
    assert shape_of("...", p("3"), p("3"), p("3"), attrs=masks("000", "000"), params=(0, 1, 2, 3)) == "[...]"


# ---------------------------------------------------------------------------------------------
# Property: the kernel against an independent emulation (Python slicing + the documented rule)

def emulate(x: np.ndarray, begin, end, stride, m: dict) -> np.ndarray:
    """The result built axis by axis with np.take/expand_dims, as data-movement-ops.md §4 describes
    the entries (Python's clamping via range slicing, plus the negative-stride start rule)."""
    bit = lambda name, i: i < len(m[name]) and m[name][i] == 1  # noqa: E731
    n_real = sum(not bit("ellipsis_mask", i) and not bit("new_axis_mask", i) for i in range(len(begin)))
    steps, dim = [], 0
    for i, (b, e, s) in enumerate(zip(begin, end, stride)):
        if bit("ellipsis_mask", i):
            steps += [("all",)] * (x.ndim - n_real)
            dim += x.ndim - n_real
        elif bit("new_axis_mask", i):
            steps.append(("new",))
        elif bit("shrink_axis_mask", i):
            steps.append(("pick", b))
            dim += 1
        else:
            n = x.shape[dim]
            b = None if bit("begin_mask", i) else b
            e = None if bit("end_mask", i) else e
            if s < 0 and b is not None and b < -n:
                b = 0                                   # OpenVINO: element 0 is taken
            steps.append(("take", list(range(n)[b:e:s])))
            dim += 1
    steps += [("all",)] * (x.ndim - dim)
    out, axis = x, 0
    for kind, *v in steps:
        if kind == "new":
            out = np.expand_dims(out, axis)
        elif kind == "pick":
            out = np.take(out, v[0], axis=axis)
            continue
        elif kind == "take":
            out = np.take(out, np.array(v[0], dtype=np.intp), axis=axis)
        axis += 1
    return out


VALUES = st.one_of(st.integers(-8, 8), st.sampled_from([MIN, MAX]))


@settings(max_examples=500, deadline=None)
@given(st.lists(st.integers(0, 5), min_size=0, max_size=4), st.data())
def test_kernel_matches_emulation(shape, data):
    n = data.draw(st.integers(0, len(shape) + 2))
    mask = lambda p: data.draw(st.lists(st.sampled_from([0, 1] if p else [0]), min_size=n, max_size=n))  # noqa: E731
    m = {"begin_mask": mask(True), "end_mask": mask(True), "new_axis_mask": mask(True),
         "shrink_axis_mask": mask(True), "ellipsis_mask": [0] * n}
    for i in range(n):   # new axis beats shrink (tested above); keep the emulation to one meaning per entry
        if m["new_axis_mask"][i]:
            m["shrink_axis_mask"][i] = 0
    plain = [i for i in range(n) if not m["new_axis_mask"][i] and not m["shrink_axis_mask"][i]]
    if plain and data.draw(st.booleans()):
        m["ellipsis_mask"][data.draw(st.sampled_from(plain))] = 1
    begin, end = [data.draw(VALUES) for _ in range(n)], [data.draw(VALUES) for _ in range(n)]
    stride = [data.draw(st.sampled_from([-3, -2, -1, 1, 2, 3])) for _ in range(n)]
    real = [i for i in range(n) if not m["new_axis_mask"][i] and not m["ellipsis_mask"][i]]
    if len(real) > len(shape):
        return
    hidden = len(shape) - len(real)      # dims the ellipsis (or the implicit one at the end) covers
    for k, i in enumerate(real):         # shrink indices must be in range
        if m["shrink_axis_mask"][i]:
            after_ellipsis = any(m["ellipsis_mask"][:i])
            size = shape[k + hidden] if after_ellipsis else shape[k]
            if size == 0:
                m["shrink_axis_mask"][i] = 0
            else:
                begin[i] = data.draw(st.integers(-size, size - 1))
    x = np.arange(int(np.prod(shape)), dtype=np.int32).reshape(shape)
    op = StridedSlice1(**m)
    (out,) = op.run(x, i64(*begin), i64(*end), i64(*stride))
    expected = emulate(x, begin, end, stride, m)
    assert out.shape == expected.shape
    np.testing.assert_array_equal(out, expected)
    assert out.size == 0 or np.shares_memory(out, x)
    infos = [TensorInfo(TYPES["i32"], PartialShape(shape))] + \
        [TensorInfo.of(i64(*v), TYPES["i64"]) for v in (begin, end, stride)]
    assert op.infer(infos)[0].shape == PartialShape(out.shape)
