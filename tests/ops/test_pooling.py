"""MaxPool-1/8/14, AvgPool-1/14/16, AdaptiveAvgPool-8: the worked examples of max-pool-8.rst,
hand-computed averages, the rounding/auto_pad/divisor rules, and the OpenVINO measurements."""

import numpy as np
import pytest

from helpers import ALL_DTYPES, Param, infer_op, raises_for, run_op, shape_str
from irrun.types import elements
from irrun.errors import ShapeError
from nn_cases import case_ids, replay

NUMERIC = [d for d in ALL_DTYPES if np.dtype(d) not in (np.dtype(np.bool_), elements.STRING_DTYPE)]
#: both refuse; irrun's enum parser says it its own way
MESSAGES = {"MaxPool8-shape-ceil_torch": 'rounding_type="ceil_torch" is not one of: floor, ceil'}
SPEC_X = np.array([[[[-1, 2, 3], [4, 5, -6], [-7, 8, 9]]]], np.float32)


@pytest.mark.parametrize("case", case_ids("MaxPool", "AvgPool", "AdaptiveAvgPool"))
def test_openvino_case(case):
    replay(case, messages=MESSAGES)


def maxpool(x, kernel, strides, pads_begin=None, pads_end=None, version="opset8", **a):
    n = len(kernel)
    attrs = dict(kernel=kernel, strides=strides, pads_begin=pads_begin or [0] * n, pads_end=pads_end or [0] * n, **a)
    if version != "opset1":
        attrs.setdefault("dilations", [1] * n)
    return run_op("MaxPool", [x], attrs, version, n_out=1 if version == "opset1" else 2)


def avgpool(x, kernel, strides, pads_begin, pads_end, exclude, version="opset1", **a):
    attrs = dict(kernel=kernel, strides=strides, pads_begin=pads_begin, pads_end=pads_end,
                 **{"exclude-pad": exclude}, **a)
    return run_op("AvgPool", [x], attrs, version)[0]


# ---------------------------------------------------------------------------------------------
# MaxPool: max-pool-8.rst examples 1-7

@pytest.mark.parametrize("x, kw, values, indices", [
    # example 1 says -6 (index 5) at [1, 3], whose window holds 3 and -6: a typo in the spec;
    # OpenVINO (CPU and reference, measured) gives 3 (index 2), as here
    (SPEC_X, dict(kernel=[2, 2], strides=[1, 1], pads_begin=[1, 1], pads_end=[1, 1]),
     [[-1, 2, 3, 3], [4, 5, 5, 3], [4, 8, 9, 9], [-7, 8, 9, 9]],
     [[0, 1, 2, 2], [3, 4, 4, 2], [3, 7, 8, 8], [6, 7, 8, 8]]),
    (np.array([[[-1, 2, 3, 5, -7, 9, 1]]], np.float32), dict(kernel=[3], strides=[1], auto_pad="valid"),
     [3, 5, 5, 9, 9], [2, 3, 3, 5, 5]),
    (SPEC_X, dict(kernel=[2, 2], strides=[1, 1], auto_pad="same_lower"),
     [[-1, 2, 3], [4, 5, 5], [4, 8, 9]], [[0, 1, 2], [3, 4, 4], [3, 7, 8]]),
    (SPEC_X, dict(kernel=[2, 2], strides=[2, 2], rounding_type="ceil", auto_pad="valid"),
     [[5, 3], [8, 9]], [[4, 2], [7, 8]]),
    (np.arange(1, 10, dtype=np.float32).reshape(1, 1, 3, 3),
     dict(kernel=[2, 2], strides=[1, 1], pads_begin=[1, 1], pads_end=[1, 1], dilations=[2, 2]),
     [[5, 6, 5], [8, 9, 8], [5, 6, 5]], [[4, 5, 4], [7, 8, 7], [4, 5, 4]]),
])
@pytest.mark.parametrize("version", ["opset8", "opset14"])
def test_spec_examples(x, kw, values, indices, version):
    vals, idx = maxpool(x, version=version, **kw)
    np.testing.assert_array_equal(vals[0, 0], values)
    np.testing.assert_array_equal(idx[0, 0], indices)
    assert idx.dtype == np.int64
    if "dilations" not in kw:
        np.testing.assert_array_equal(maxpool(x, version="opset1", **kw)[0][0, 0], values)


def test_spec_example_4_same_upper_two_channels():
    x = np.concatenate([SPEC_X, np.array([[[[2, -1, 5], [6, -7, 1], [8, 2, -3]]]], np.float32)], axis=1)
    vals, idx = maxpool(x, [2, 2], [1, 1], auto_pad="same_upper")
    np.testing.assert_array_equal(vals[0], [[[5, 5, 3], [8, 9, 9], [8, 9, 9]], [[6, 5, 5], [8, 2, 1], [8, 2, -3]]])
    np.testing.assert_array_equal(idx[0], [[[4, 4, 2], [7, 8, 8], [7, 8, 8]], [[12, 11, 11], [15, 16, 14], [15, 16, 17]]])


@pytest.mark.parametrize("dtype", NUMERIC)
def test_spec_example_7_axis_2_every_numeric_type(dtype):
    x = np.arange(1, 19).reshape(1, 2, 3, 3).astype(dtype)
    vals, idx = maxpool(x, [2, 2], [1, 1], axis=2, index_element_type="i32")
    assert vals.dtype == np.dtype(dtype) and idx.dtype == np.int32
    np.testing.assert_array_equal(vals.astype(np.int64)[0], [[[5, 6], [8, 9]], [[14, 15], [17, 18]]])
    np.testing.assert_array_equal(idx[0], [[[4, 5], [7, 8]], [[4, 5], [7, 8]]])


def test_window_entirely_in_padding():
    # measured: the lowest value of the type (not -inf) and the index of the spatial origin
    low = np.finfo(np.float32).min
    vals, idx = maxpool(np.full((1, 2, 1, 1), 7, np.float32), [1, 1], [2, 2], [0, 0], [1, 1], rounding_type="ceil")
    np.testing.assert_array_equal(vals[0, 1], [[7, low], [low, low]])
    np.testing.assert_array_equal(idx[0, 1], [[1, 1], [1, 1]])          # channel 1 starts at index 1


@pytest.mark.parametrize("rounding, size", [("floor", 2), ("ceil", 3), ("ceil_torch", 2)])
def test_rounding_types(rounding, size):
    # 5 + 1 + 1 - 2 = 5 over stride 3: floor 1 -> 2 windows, ceil 2 -> 3, and ceil_torch drops the
    # third: it would start at 6 >= 5 + pads_begin (PyTorch's rule)
    x = np.arange(25, dtype=np.float32).reshape(1, 1, 5, 5)
    vals, _ = maxpool(x, [2, 2], [3, 3], [1, 1], [1, 1], version="opset14", rounding_type=rounding)
    assert vals.shape == (1, 1, size, size)
    assert shape_str(infer_op("MaxPool", [Param("f32", "1,1,5,5")], dict(kernel=[2, 2], strides=[3, 3], pads_begin=[1, 1],
                     pads_end=[1, 1], dilations=[1, 1], rounding_type=rounding), "opset14", n_out=2)[0]) == f"[1,1,{size},{size}]"


@pytest.mark.parametrize("version, rounding, x, want", [
    ("opset8", "floor", "1,1,4..9,?", "[1,1,2..5,1..]"),
    ("opset14", "ceil_torch", "1,1,4..5,?", "[1,1,3,1..]"),
    ("opset8", "floor", "...", "[?,?,?,?]"),
])
def test_partial_shapes(version, rounding, x, want):
    info = infer_op("MaxPool", [Param("f32", x)], dict(kernel=[3, 3] if rounding == "floor" else [1, 1],
                    strides=[2, 2], pads_begin=[1, 1], pads_end=[1, 1], dilations=[1, 1], rounding_type=rounding),
                    version, n_out=2)
    assert [shape_str(i) for i in info] == [want, want]


def test_bad_index_type():
    raises_for("MaxPool", ShapeError, "index_element_type must be i32 or i64", maxpool,
               SPEC_X, [2, 2], [1, 1], index_element_type="f32")


# ---------------------------------------------------------------------------------------------
# AvgPool

X3 = np.arange(1, 10, dtype=np.float32).reshape(1, 1, 3, 3)      # 1 2 3 / 4 5 6 / 7 8 9


@pytest.mark.parametrize("exclude, want", [
    (True, [[3, 4.5], [7.5, 9]]),                   # means of 1 2 4 5, 3 6, 7 8, 9
    (False, [[3, 9 / 4], [15 / 4, 9 / 4]]),         # pads count: whole 2x2 kernel
])
def test_exclude_pad(exclude, want):
    np.testing.assert_array_equal(avgpool(X3, [2, 2], [2, 2], [0, 0], [1, 1], exclude)[0, 0], want)


def test_include_pad_without_padding_counts_the_clipped_window():
    # ceil mode, no pads: the last window holds 3 6 / 9 only; OpenVINO divides by what is inside
    np.testing.assert_array_equal(avgpool(X3, [2, 2], [2, 2], [0, 0], [0, 0], False, rounding_type="ceil")[0, 0],
                                  [[3, 4.5], [7.5, 9]])


def test_include_pad_window_past_the_end_padding_divides_by_the_kernel():
    # 1-D: 1 2 3 4, pads 1/1, k3 s2 ceil -> windows at -1, 1, 3 (the last covers 3, 4 and one
    # element past the end padding): sums 3, 9, 4, all divided by 3
    x = np.array([[[1, 2, 3, 4]]], np.float32)
    np.testing.assert_allclose(avgpool(x, [3], [2], [1], [1], False, rounding_type="ceil")[0, 0], [1, 3, 4 / 3])


def test_dilations_v16():
    x = np.array([[[1, 2, 3, 4, 5]]], np.float32)
    out = avgpool(x, [2], [1], [1], [1], True, version="opset16", dilations=[2])
    np.testing.assert_array_equal(out[0, 0], [2, 2, 3, 4, 4])      # (2), (1+3), (2+4), (3+5), (4)


def test_integers_round_to_nearest():
    x = np.array([[[5, 1, 1, -5, -1, -1, 2, 0, 0]]], np.int32)
    np.testing.assert_array_equal(avgpool(x, [3], [3], [0], [0], True)[0, 0], [2, -2, 1])   # 7/3 -7/3 2/3


@pytest.mark.parametrize("dtype", NUMERIC)
def test_avgpool_every_numeric_type(dtype):
    x = np.array([[[2, 4, 6, 8]]]).astype(dtype)
    out = avgpool(x, [2], [2], [0], [0], True)
    assert out.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(out.astype(np.float64)[0, 0], [3, 7])


def test_avgpool_pad_as_big_as_the_kernel_is_refused():
    raises_for("AvgPool", ShapeError, "Kernel after dilation is sometimes entirely in the padding area", avgpool,
               X3, [2, 2], [1, 1], [2, 0], [0, 0], True)


# ---------------------------------------------------------------------------------------------
# AdaptiveAvgPool

@pytest.mark.parametrize("size, want", [(2, [2, 4]), (3, [1.5, 3, 4.5]), (1, [3]), (7, [1, 1.5, 2.5, 3, 3.5, 4.5, 5])])
@pytest.mark.parametrize("params", [(0,), (0, 1)])
def test_adaptive_bins(size, want, params):
    # bin i covers [floor(i*5/n), ceil((i+1)*5/n))
    out = run_op("AdaptiveAvgPool", [np.array([[[1, 2, 3, 4, 5]]], np.float32), np.array([size], np.int64)],
                 version="opset8", params=params)[0]
    np.testing.assert_allclose(out[0, 0], want)


def test_adaptive_2d_and_runtime_sizes():
    x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
    out = run_op("AdaptiveAvgPool", [x, np.array([2, 1], np.int32)], version="opset8")[0]
    np.testing.assert_allclose(out[0, 0], [[3.5], [11.5]])
    info = infer_op("AdaptiveAvgPool", [Param("f32", "2,3,?,8"), Param("i64", "2")], version="opset8", params=())[0]
    assert shape_str(info) == "[2,3,?,?]"


def test_adaptive_negative_size_is_refused():
    raises_for("AdaptiveAvgPool", ShapeError, "has a negative size", run_op, "AdaptiveAvgPool",
               [np.zeros((1, 1, 4), np.float32), np.array([-1], np.int64)], version="opset8")


@pytest.mark.parametrize("version", ["opset1", "opset8"])
def test_nan_never_wins_and_minus_inf_counts_as_the_lowest_value(version):
    """Measured on OpenVINO 2026.4.1 (CPU plugin and reference evaluator alike): the window
    maximum starts at the lowest value and takes ``v > max``, so NaN is skipped wherever it is in
    the window, and a window of NaN, -inf and padding gives -FLT_MAX."""
    lo = np.finfo(np.float32).min
    x = np.array([[[[1, np.nan, np.nan, 5, 2, np.nan], [3, 4, 0, 1, np.nan, np.nan]]]], np.float32)
    n = 1 if version == "opset1" else 2
    out = run_op("MaxPool", [x], dict(strides=[1, 2], pads_begin=[0, 0], pads_end=[0, 0], kernel=[2, 2]),
                 version=version, n_out=n)[0]
    np.testing.assert_array_equal(out, [[[[4, 5, 2]]]])
    x = np.array([[[[np.nan, np.nan, np.nan, -np.inf, 2, np.nan], [np.nan] * 6]]], np.float32)
    out = run_op("MaxPool", [x], dict(strides=[1, 2], pads_begin=[0, 1], pads_end=[0, 1], kernel=[2, 2]),
                 version=version, n_out=n)[0]
    np.testing.assert_array_equal(out, [[[[lo, lo, 2, lo]]]])


# ---------------------------------------------------------------------------------------------
# Few wide windows (global pooling) are one reduction over the kernel axes, not one pass per
# offset: the values and indices must still be max-pool-8.rst's (the maximum, the first position
# of it in the window, flattened from ``axis``) and avg-pool-1.rst's mean. Expected values are
# computed straight from those definitions on the input, window by window.

def _windows_reference(x, k):
    """[N, C, oh, ow, k*k] windows of stride k (definition, plain loops)."""
    n, c, h, w = x.shape
    oh, ow = h // k, w // k
    out = np.empty((n, c, oh, ow, k * k), x.dtype)
    for i in range(oh):
        for j in range(ow):
            out[:, :, i, j] = x[:, :, i * k:(i + 1) * k, j * k:(j + 1) * k].reshape(n, c, -1)
    return out


@pytest.mark.parametrize("shape, k", [((2, 3, 32, 32), 32), ((1, 2, 16, 16), 8), ((1, 4, 7, 7), 7)])
@pytest.mark.parametrize("axis", [0, 2])
def test_global_and_wide_max_pool_values_and_first_index(shape, k, axis):
    rng = np.random.default_rng(7)
    x = rng.integers(-20, 20, shape).astype(np.float32)   # many ties: the first occurrence must win
    x[0, 0, 0, 0] = np.nan                                   # NaN never wins, even in first place
    vals, idx = maxpool(x, [k, k], [k, k], axis=axis)
    win = _windows_reference(x, k)
    want = np.nanmax(win, axis=-1)
    np.testing.assert_array_equal(vals, want)
    offset = np.argmax(win == want[..., None], axis=-1)     # first position of the maximum
    oh, ow = np.indices(want.shape[2:])
    row, col = oh * k + offset // k, ow * k + offset % k
    n, c = np.indices(want.shape[:2])[..., None, None] if axis == 0 else (0, 0)
    want_idx = ((n * shape[1] + c) * shape[2] + row) * shape[3] + col
    np.testing.assert_array_equal(idx, want_idx)
    np.testing.assert_array_equal(maxpool(x, [k, k], [k, k], version="opset1")[0], want)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32, np.uint8])
def test_global_avg_pool_is_the_mean(dtype):
    rng = np.random.default_rng(3)
    x = rng.integers(0, 50, (1, 5, 32, 32)).astype(dtype)
    got = avgpool(x, [32, 32], [32, 32], [0, 0], [0, 0], exclude=False)
    want = x.astype(np.float64).mean(axis=(2, 3), keepdims=True)
    assert got.dtype == dtype and got.shape == (1, 5, 1, 1)
    if np.dtype(dtype).kind in "iu":
        np.testing.assert_array_equal(got, np.rint(want))
    else:
        np.testing.assert_allclose(got, want, rtol=1e-3 if dtype == np.float16 else 1e-6)


def test_wide_avg_pool_with_padding_divides_by_the_window_inside_the_input():
    x = np.arange(1, 65, dtype=np.float32).reshape(1, 1, 8, 8)
    exclude = avgpool(x, [9, 9], [9, 9], [1, 1], [0, 0], exclude=True)
    include = avgpool(x, [9, 9], [9, 9], [1, 1], [0, 0], exclude=False)
    np.testing.assert_allclose(exclude, [[[[x.mean()]]]], rtol=1e-6)
    np.testing.assert_allclose(include, [[[[x.sum() / 81]]]], rtol=1e-6)


def test_max_pool_index_with_padding_ties_prefer_the_input_over_the_padding():
    """A real -FLT_MAX in the input equals the padding's fill: the index must still point at the
    input element (max-pool-8.rst: padding is never a maximum)."""
    lo = np.finfo(np.float32).min
    x = np.full((1, 1, 2, 2), lo, np.float32)
    vals, idx = maxpool(x, [2, 2], [2, 2], pads_begin=[1, 1], pads_end=[1, 1])
    np.testing.assert_array_equal(vals[0, 0], [[lo, lo], [lo, lo]])
    np.testing.assert_array_equal(idx[0, 0], [[0, 1], [2, 3]])


def _max_pool_reference(x, k, s, p):
    """max-pool-8.rst as OpenVINO loops it: ``max = lowest; if (v > max) max = v, index = pos``
    over the window's input elements (padding never counts), index flattened from axis 2."""
    lo = np.finfo(np.float32).min
    n, c, h, w = x.shape
    oh, ow = (h + 2 * p - k) // s + 1, (w + 2 * p - k) // s + 1
    vals = np.empty((n, c, oh, ow), np.float32)
    idx = np.zeros((n, c, oh, ow), np.int64)
    for b, ch, i, j in np.ndindex(n, c, oh, ow):
        best, at = lo, None
        for di, dj in np.ndindex(k, k):
            r, q = i * s - p + di, j * s - p + dj
            if 0 <= r < h and 0 <= q < w and x[b, ch, r, q] > best:
                best, at = x[b, ch, r, q], r * w + q
        if at is None:      # nothing above the lowest value: the first input element of the window
            r, q = max(i * s - p, 0), max(j * s - p, 0)
            at = r * w + q
        vals[b, ch, i, j], idx[b, ch, i, j] = best, at
    return vals, idx


@pytest.mark.parametrize("k, s, p", [(5, 1, 2), (3, 2, 0), (3, 2, 1), (3, 1, 1)])
def test_square_kernels_are_taken_axis_by_axis_with_the_same_values_and_indices(k, s, p):
    """3x3 and 5x5 maxima are computed one spatial axis at a time (YOLO's SPPF): the values
    and indices must be the windowed loop's, NaN, -inf and ties included."""
    rng = np.random.default_rng(11)
    x = rng.integers(-5, 5, (1, 3, 9, 11)).astype(np.float32)
    x[0, 0, 1, 2] = x[0, 1, 4, 4] = np.nan
    x[0, 2, 0, :4] = -np.inf
    want_vals, want_idx = _max_pool_reference(x, k, s, p)
    vals, idx = maxpool(x, [k, k], [s, s], [p, p], [p, p], axis=2)
    np.testing.assert_array_equal(vals, want_vals)
    np.testing.assert_array_equal(idx, want_idx)
    np.testing.assert_array_equal(maxpool(x, [k, k], [s, s], [p, p], [p, p], version="opset1")[0], want_vals)


def _lifted_first(x, k, s, p, lowest):
    """The spec loop's ``max = lowest; if (v > max) max = v`` as a running np.fmax that starts
    from the lowest value (NaN and -inf lifted at the first offset of each pass), offsets in
    row-major order, a kernel wider than 2x2 one axis at a time (rows, then columns): the
    formulation irrun's MaxPool used before it lifted once at the end. (NumPy's np.fmax picks
    either zero of a tie depending on its loop, so the order of the passes is part of the bits.)"""
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)), constant_values=lowest)
    oh, ow = (xp.shape[2] - k) // s + 1, (xp.shape[3] - k) // s + 1
    rows = [(slice(None),) * 2 + (slice(d, d + (oh - 1) * s + 1, s),) for d in range(k)]
    cols = [(slice(None),) * 3 + (slice(d, d + (ow - 1) * s + 1, s),) for d in range(k)]
    offsets = [(slice(None),) * 2 + r[2:] + c[3:] for r, c in ((r, c) for r in rows for c in cols)]
    best = xp
    for group in ([rows, cols] if k * k > 2 * k + 1 else [offsets]):
        part = np.fmax(best[group[0]], lowest)
        for offset in group[1:]:
            np.fmax(part, best[offset], out=part)
        best = part
    return best


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("k, s, p, size", [(1, 2, 0, 17), (2, 2, 0, 40), (3, 2, 0, 33), (3, 2, 1, 40),
                                           (3, 1, 1, 9), (5, 1, 2, 24), (2, 1, 0, 65)])
def test_max_pool_lifts_nan_and_minus_inf_once_with_the_same_bits(dtype, k, s, p, size):
    """irrun lifts NaN and -inf to the lowest value once, on the maxima (pooling.lift_lowest),
    not at the first kernel offset: the same bits, zeros' signs, NaN, infinities, the lowest
    value itself and subnormals included — and with none of them (the reduction that skips the
    lift) — for kernels taken whole (2x2), axis by axis (3x3, 5x5) and over one offset (1x1)."""
    lowest = np.finfo(dtype).min
    edges = np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, lowest, -lowest, 1e-40, -1e-40, 1.0, -2.0],
                     np.float64).astype(dtype)
    rng = np.random.default_rng(size * 10 + k)
    plain = rng.normal(size=(2, 3, size, size + 3)).astype(dtype)
    edgy = rng.choice(edges, size=plain.shape)
    low = rng.choice(edges[[0, 1, 3, 6]], size=plain.shape)     # windows of NaN, -inf and lowest only
    bits = f"u{np.dtype(dtype).itemsize}"
    for x in (plain, edgy, low, np.where(rng.random(plain.shape) < 0.5, edgy, plain)):
        want = _lifted_first(x, k, s, p, lowest)
        for version in ("opset1", "opset8"):
            got = maxpool(x, [k, k], [s, s], [p, p], [p, p], version=version)[0]
            assert got.dtype == want.dtype and got.shape == want.shape
            np.testing.assert_array_equal(got.view(bits), want.view(bits))
    if dtype is np.float32 and edgy.size <= 3000:   # the spec loop itself: values (zeros of either sign)
        vals = maxpool(edgy, [k, k], [s, s], [p, p], [p, p])[0]
        np.testing.assert_array_equal(vals, _max_pool_reference(edgy, k, s, p)[0])
