"""Convolution-1, GroupConvolution-1, ConvolutionBackpropData-1, GroupConvolutionBackpropData-1:
hand-computed values on tiny inputs, the auto_pad and output_shape rules, and the OpenVINO measurements (nn_cases)."""

import numpy as np
import pytest

import irrun
from helpers import ALL_DTYPES, Param, infer_op, raises_for, run_op, shape_str
from irrun.types import elements
from irrun.errors import ShapeError, UnsupportedError
from irrun.ir.builder import IRWriter
from nn_cases import array, case_ids, entry, rejects, replay, run_case

NUMERIC = [d for d in ALL_DTYPES if np.dtype(d) not in (np.dtype(np.bool_), elements.STRING_DTYPE)]
X = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
ONES = np.ones((1, 1, 2, 2), np.float32)

#: OpenVINO builds these, but cannot run them (its CPU plugin fails, the reference has no kernel)
REFUSE = {
    "ConvolutionBackpropData-shape-negative": "the output would have no elements",
    "ConvolutionBackpropData-negative-size": "the output would have no elements",
}


def attrs(strides, pads_begin, pads_end, dilations, auto_pad="explicit", **extra):
    return dict(strides=strides, pads_begin=pads_begin, pads_end=pads_end, dilations=dilations,
                auto_pad=auto_pad, **extra)


def conv(x, w, *a, op="Convolution", params=(0,), **k):
    return run_op(op, [x, w], attrs(*a, **k), params=params)[0]


@pytest.mark.parametrize("case", case_ids("Convolution", "GroupConvolution", "ConvolutionBackpropData",
                                          "GroupConvolutionBackpropData"))
def test_openvino_case(case):
    replay(case, REFUSE)


def test_backprop_with_runtime_output_shape_matches_the_constant_one():
    # OpenVINO's CPU plugin fails on this graph ("Destination memory is undefined"), its reference
    # evaluator has no kernel: the same layer with output_shape as a Const is the oracle
    want = entry("ConvolutionBackpropData-outshape-explicit")["outputs"][0]
    assert entry("ConvolutionBackpropData-outshape-param")["inputs"][2]["param"]
    np.testing.assert_allclose(run_case("ConvolutionBackpropData-outshape-param")[0],
                               array(want["array"], "f32"), rtol=1e-4, atol=1e-5)


# ---------------------------------------------------------------------------------------------
# Convolution

def test_stride_two_sums_each_2x2_block():
    np.testing.assert_array_equal(conv(X, ONES, [2, 2], [0, 0], [0, 0], [1, 1]), [[[[10, 18], [42, 50]]]])


def test_padding_adds_zeros():
    want = [[0, 3, 3], [12, 30, 18], [12, 27, 15]]
    np.testing.assert_array_equal(conv(X, ONES, [2, 2], [1, 1], [1, 1], [1, 1])[0, 0], want)


@pytest.mark.parametrize("auto_pad, want", [
    ("same_upper", [[10, 14, 8], [26, 30, 16], [17, 19, 10]]),       # extra pad row/column at the end
    ("same_lower", [[0, 1, 3], [4, 10, 14], [12, 26, 30]]),           # ... at the beginning
    ("valid", [[10, 14], [26, 30]]),
])
def test_auto_pad(auto_pad, want):
    x = X[:, :, :3, :3]                                      # 0 1 2 / 4 5 6 / 8 9 10
    # pads_begin/pads_end are ignored when auto_pad is not explicit
    np.testing.assert_array_equal(conv(x, ONES, [1, 1], [7, 7], [7, 7], [1, 1], auto_pad)[0, 0], want)


def test_dilation_1d():
    x = np.array([[[1, 2, 3, 4, 5]]], np.float32)
    np.testing.assert_array_equal(conv(x, np.ones((1, 1, 2), np.float32), [1], [0], [0], [2]), [[[4, 6, 8]]])


def test_channels_are_summed_and_filters_stacked():
    x = np.array([[[1, 2, 3], [10, 20, 30]]], np.float32)            # [1, 2, 3]
    w = np.array([[[1], [1]], [[1], [-1]]], np.float32)              # [2 out, 2 in, 1]
    np.testing.assert_array_equal(conv(x, w, [1], [0], [0], [1], params=(0, 1)), [[[11, 22, 33], [-9, -18, -27]]])


def test_3d():
    x = np.ones((1, 1, 3, 3, 3), np.float32)
    out = conv(x, np.ones((1, 1, 2, 2, 2), np.float32), [1, 1, 1], [0, 0, 0], [0, 0, 0], [1, 1, 1])
    np.testing.assert_array_equal(out, np.full((1, 1, 2, 2, 2), 8))


@pytest.mark.parametrize("dtype", NUMERIC)
def test_every_numeric_type(dtype):
    out = conv(X.astype(dtype), ONES.astype(dtype), [2, 2], [0, 0], [0, 0], [1, 1])
    assert out.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(out.astype(np.int64), [[[[10, 18], [42, 50]]]])


@pytest.mark.parametrize("x, a, want", [
    ("1,3,5..10,?", attrs([2, 2], [1, 1], [1, 1], [1, 1]), "[1,4,3..5,1..]"),
    ("?,3,8..9,?", attrs([2, 2], [0, 0], [0, 0], [1, 1], "same_upper"), "[?,4,4..5,?]"),
    ("...", attrs([1, 1], [0, 0], [0, 0], [1, 1]), "[?,4,1..,1..]"),
])
def test_partial_shapes(x, a, want):
    w = np.zeros((4, 3, 3, 3), np.float32)
    assert shape_str(infer_op("Convolution", [Param("f32", x), w], a, params=())[0]) == want


def test_dynamic_input_checked_at_run_time(tmp_path):
    # the shape rule runs again on the actual input shape: a 1-pixel-high image under a 2x2 kernel
    b = IRWriter("dyn")
    y = b.layer("Convolution", [b.parameter("x", "f32", "1,1,?,?"), b.const(ONES)], attrs([1, 1], [0, 0], [0, 0], [1, 1]))
    b.result(y, "y")
    model = irrun.read_model(b.save(tmp_path / "dyn.xml"))
    np.testing.assert_array_equal(model.run({"x": X})["y"][0, 0], [[10, 14, 18], [26, 30, 34], [42, 46, 50]])
    err = raises_for("Convolution", ShapeError, "Kernel after dilation has size (dim: 2) larger than the data "
                     "shape after padding (dim: 1) at axis 0.", model.run, {"x": np.ones((1, 1, 1, 3), np.float32)})
    assert err.port == "input 0"


def test_negative_pads_are_refused():
    raises_for("Convolution", UnsupportedError, "irrun does not support negative pads", conv, X, ONES,
               [1, 1], [-1, 0], [0, 0], [1, 1])


def test_non_numeric_data_is_refused():
    raises_for("Convolution", UnsupportedError, "irrun does not run Convolution on boolean data", infer_op,
               "Convolution", [Param("boolean", "1,1,4,4"), Param("boolean", "1,1,2,2")], attrs([1, 1], [0, 0], [0, 0], [1, 1]))


# ---------------------------------------------------------------------------------------------
# GroupConvolution

def test_depthwise():
    x = np.array([[[1, 2, 3], [4, 5, 6]]], np.float32)              # [1, 2, 3]
    w = np.array([[[[1, 1]]], [[[1, -1]]]], np.float32)              # [2 groups, 1, 1, 2]
    np.testing.assert_array_equal(conv(x, w, [1], [0], [0], [1], op="GroupConvolution"), [[[3, 5], [-1, -1]]])


def test_depthwise_with_channel_multiplier_and_padding():
    x = np.array([[[1, 2], [3, 4]]], np.float32)                    # 2 channels
    w = np.array([[[[1, 1]], [[0, 1]]], [[[2, 0]], [[1, 1]]]], np.float32)   # [2 groups, 2 out, 1 in, 2]
    out = conv(x, w, [1], [1], [0], [1], op="GroupConvolution", params=(0, 1))
    np.testing.assert_array_equal(out, [[[1, 3], [1, 2], [0, 6], [3, 7]]])


def test_groups_of_two_channels():
    x = np.arange(1, 5, dtype=np.float32).reshape(1, 4, 1)          # channels 1, 2, 3, 4
    w = np.array([[[[1], [1]]], [[[1], [-1]]]], np.float32)          # [2 groups, 1 out, 2 in, 1]
    np.testing.assert_array_equal(conv(x, w, [1], [0], [0], [1], op="GroupConvolution"), [[[3], [-1]]])


def test_group_channel_mismatch():
    raises_for("GroupConvolution", ShapeError, "Input channels dimension of data batch is incompatible", conv,
               np.zeros((1, 5, 3), np.float32), np.zeros((2, 1, 2, 1), np.float32), [1], [0], [0], [1],
               op="GroupConvolution")


# ---------------------------------------------------------------------------------------------
# ConvolutionBackpropData

X1 = np.array([[[1, 2]]], np.float32)          # [1, 1, 2]
K3 = np.ones((1, 1, 3), np.float32)            # [C_in, C_out, 3]


def backprop(x, w, *a, output_shape=None, params=(0,), **k):
    ins = [x, w] + ([np.array(output_shape, np.int64)] if output_shape is not None else [])
    return run_op("ConvolutionBackpropData", ins, attrs(*a, **k), params=params)[0]


@pytest.mark.parametrize("pads, extra, want", [
    ((0, 0), {}, [1, 1, 3, 2, 2]),                       # each input scatters its 3 taps, stride 2
    ((1, 1), {}, [1, 3, 2]),                             # pads crop the full result
    ((1, 1), {"output_padding": [1]}, [1, 3, 2, 2]),     # output_padding grows it at the end
    ((2, 0), {}, [3, 2, 2]),
])
def test_transposed_1d(pads, extra, want):
    np.testing.assert_array_equal(backprop(X1, K3, [2], [pads[0]], [pads[1]], [1], **extra)[0, 0], want)


@pytest.mark.parametrize("auto_pad, want", [
    ("same_upper", [1, 3, 2, 2]),      # total pad 1 goes to the *begin* (as OpenVINO computes it)
    ("same_lower", [1, 1, 3, 2]),
    ("explicit", [1, 3, 2, 2]),        # explicit: pads_begin=1 and the output size given
])
def test_output_shape(auto_pad, want):
    out = backprop(X1, K3, [2], [1], [0], [1], auto_pad, output_shape=[4])
    np.testing.assert_array_equal(out[0, 0], want)


def test_output_shape_as_parameter():
    out = backprop(X1, K3, [2], [1], [0], [1], output_shape=[4], params=(0, 2))
    np.testing.assert_array_equal(out[0, 0], [1, 3, 2, 2])
    info = infer_op("ConvolutionBackpropData", [Param("f32", "1,1,2"), K3, Param("i64", "1")],
                    attrs([2], [1], [0], [1]), params=())[0]
    assert shape_str(info) == "[1,1,?]"


def test_transposed_channels_and_dilation():
    x = np.array([[[1], [2]]], np.float32)                 # 2 input channels, 1 pixel
    w = np.array([[[1, 1]], [[10, 0]]], np.float32)        # [2 in, 1 out, 2]
    np.testing.assert_array_equal(backprop(x, w, [1], [0], [0], [3])[0, 0], [21, 0, 0, 1])


def test_backprop_without_elements_is_refused():
    # OpenVINO's shape inference leaves the dimension dynamic; its CPU plugin then fails
    assert rejects("ConvolutionBackpropData-negative-size", "the output would have no elements").openvino_loads


def test_backprop_partial_shape():
    info = infer_op("ConvolutionBackpropData", [Param("f32", "1,3,2..5,?"), np.zeros((3, 4, 3, 3), np.float32)],
                    attrs([2, 2], [1, 1], [1, 1], [1, 1]), params=())[0]
    assert shape_str(info) == "[1,4,3..9,1..]"


# ---------------------------------------------------------------------------------------------
def spec_transposed(x, w, strides, dilations, pads_begin, out):
    """The spec's definition, one input pixel and tap at a time (float64): ``w`` [G, C_in/G,
    C_out/G, *k]; input pixel ``i`` and tap ``t`` add ``x * w`` at output ``i*stride + t*dilation
    - pads_begin`` when that lies inside ``out``."""
    g, cg, og = w.shape[:3]
    res = np.zeros((x.shape[0], g * og, *out))
    for n, c, *i in np.ndindex(*x.shape):
        grp, ci = divmod(c, cg)
        for t in np.ndindex(*w.shape[3:]):
            o = [a * s + b * d - p for a, b, s, d, p in zip(i, t, strides, dilations, pads_begin)]
            if all(0 <= v < e for v, e in zip(o, out)):
                res[(n, slice(grp * og, (grp + 1) * og), *o)] += x[(n, c, *i)] * w[(grp, ci, slice(None), *t)]
    return res


@pytest.mark.parametrize("op, w_shape, strides, dilations, pb, pe, outpad", [
    ("ConvolutionBackpropData", (3, 2, 3, 3), [3, 3], [1, 1], [0, 0], [0, 0], [0, 0]),      # stride = kernel
    ("ConvolutionBackpropData", (3, 2, 2, 3), [4, 3], [1, 1], [0, 1], [1, 0], [2, 1]),      # gaps between taps
    ("ConvolutionBackpropData", (3, 2, 3, 2), [2, 1], [2, 3], [1, 2], [0, 1], [1, 0]),      # dilated, overlapping
    ("GroupConvolutionBackpropData", (3, 1, 2, 3, 3), [2, 2], [1, 1], [1, 1], [1, 1], [1, 0]),
], ids=["stride-kernel", "gaps", "dilation", "groups"])
def test_transposed_matches_the_spec_definition(op, w_shape, strides, dilations, pb, pe, outpad):
    """The matmul + scatter-add kernel against the definition, where strides leave gaps, taps
    overlap, dilation spreads them, pads crop and output_padding extends."""
    rng = np.random.default_rng(5)
    x = rng.standard_normal((2, 3, 4, 5)).astype(np.float32)
    w = rng.standard_normal(w_shape).astype(np.float32)
    got = run_op(op, [x, w], attrs(strides, pb, pe, dilations, output_padding=outpad), params=(0,))[0]
    wg = w if op.startswith("Group") else w[None]
    ext = [(k - 1) * d + 1 for k, d in zip(wg.shape[3:], dilations)]
    out = [(i - 1) * s + e - b - f + o for i, s, e, b, f, o in zip(x.shape[2:], strides, ext, pb, pe, outpad)]
    np.testing.assert_allclose(got, spec_transposed(x, wg, strides, dilations, pb, out), rtol=1e-5, atol=1e-5)

# GroupConvolutionBackpropData

def group_backprop(x, w, *a, output_shape=None, params=(0,), **k):
    ins = [x, w] + ([np.array(output_shape, np.int64)] if output_shape is not None else [])
    return run_op("GroupConvolutionBackpropData", ins, attrs(*a, **k), params=params)[0]


@pytest.mark.parametrize("params", [(0,), (0, 1), ()], ids=["const-filters", "param-filters", "folded"])
def test_group_backprop_depthwise_1d(params):
    x = np.array([[[1, 2], [3, 4]]], np.float32)               # 2 channels = 2 groups of 1
    w = np.array([[[[1, 1]]], [[[1, -1]]]], np.float32)        # [G=2, 1 in, 1 out, k=2]
    # stride 2: every input pixel writes its 2 taps side by side, each group with its own filter
    np.testing.assert_array_equal(group_backprop(x, w, [2], [0], [0], [1], params=params)[0],
                                  [[1, 1, 2, 2], [3, -3, 4, -4]])


def test_group_backprop_groups_of_two_channels():
    x = np.array([[[1], [2], [3], [4]]], np.float32)            # [1, 4, 1]: G=2 groups of 2 inputs
    w = np.zeros((2, 2, 3, 1), np.float32)                     # [G, C_in/G=2, C_out/G=3, k=1]
    w[0, :, :, 0] = [[1, 0, 0], [0, 1, 1]]
    w[1, :, :, 0] = [[1, 1, 1], [10, 0, 0]]
    out = group_backprop(x, w, [1], [0], [0], [1])
    # group 0 sees channels 1, 2; group 1 sees channels 3, 4: out = sum_c x_c * w[g, c]
    np.testing.assert_array_equal(out[0, :, 0], [1, 2, 2, 43, 3, 3])


def test_group_backprop_output_shape_and_padding():
    x = np.array([[[1, 2]]], np.float32)
    w = np.ones((1, 1, 1, 3), np.float32)
    np.testing.assert_array_equal(group_backprop(x, w, [2], [1], [0], [1], "same_lower", output_shape=[4])[0, 0],
                                  [1, 1, 3, 2])
    np.testing.assert_array_equal(group_backprop(x, w, [2], [1], [1], [1], output_padding=[1])[0, 0], [1, 3, 2, 2])


@pytest.mark.parametrize("x, w, a, want", [   # the spec's three examples
    ("1,20,224", (4, 5, 2, 3), attrs([2], [1], [1], [1]), "[1,8,447]"),
    ("1,20,224,224", (4, 5, 2, 3, 3), attrs([2, 2], [1, 1], [1, 1], [1, 1]), "[1,8,447,447]"),
    ("1,20,224,224,224", (4, 5, 2, 3, 3, 3), attrs([2] * 3, [1] * 3, [1] * 3, [1] * 3), "[1,8,447,447,447]"),
    ("1,?,5,5", (2, 2, 3, 3, 3), attrs([2, 2], [1, 1], [1, 1], [1, 1]), "[1,6,9,9]"),
    ("1,4,2..5,?", (2, 2, 3, 3, 3), attrs([2, 2], [1, 1], [1, 1], [1, 1]), "[1,6,3..9,1..]"),
])
def test_group_backprop_shapes(x, w, a, want):
    info = infer_op("GroupConvolutionBackpropData", [Param("f32", x), np.zeros(w, np.float32)], a, params=())[0]
    assert shape_str(info) == want


def test_group_backprop_groups_from_the_data_channels():
    info = infer_op("GroupConvolutionBackpropData", [Param("f32", "1,4,5,5"), Param("f32", "?,2,3,3,3")],
                    attrs([2, 2], [1, 1], [1, 1], [1, 1]), params=())[0]
    assert shape_str(info) == "[1,6,9,9]"


def test_group_backprop_errors():
    w = np.zeros((2, 2, 3, 3, 3), np.float32)
    raises_for("GroupConvolutionBackpropData", ShapeError, "Input channels dimension of data batch is incompatible "
               "with filter groups or input channels.", group_backprop, np.zeros((1, 5, 4, 4), np.float32), w,
               [1, 1], [0, 0], [0, 0], [1, 1])
    raises_for("GroupConvolutionBackpropData", ShapeError, "Data and filters rank do not match", group_backprop,
               np.zeros((1, 4, 4, 4), np.float32), w[0], [1, 1], [0, 0], [0, 0], [1, 1])


@pytest.mark.parametrize("dtype", NUMERIC, ids=str)
def test_group_backprop_every_numeric_type(dtype):
    x = np.array([[[1, 2], [3, 4]]]).astype(dtype)
    w = np.array([[[[1, 1]]], [[[2, 0]]]]).astype(dtype)
    out = group_backprop(x, w, [2], [0], [0], [1])
    assert out.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(out[0].astype(np.float64), [[1, 1, 2, 2], [6, 0, 8, 0]])


def test_pointwise_with_stride_and_padding():
    """1x1 filters run as a plain matmul on the strided (padded) input: output (i, j) is the
    filter times the padded input at (i * stride, j * stride)."""
    two = np.full((1, 1, 1, 1), 2, np.float32)
    np.testing.assert_array_equal(conv(X, two, [2, 2], [0, 0], [0, 0], [1, 1]), [[[[0, 4], [16, 20]]]])
    np.testing.assert_array_equal(conv(X, two, [2, 2], [1, 1], [1, 1], [1, 1]),
                                  [[[[0, 0, 0], [0, 10, 14], [0, 26, 30]]]])


def spec_group_convolution(x, w, strides, dilations, pads_begin, out):
    """GroupConvolution-1's definition, one output value at a time (float64): ``w`` [G, C_out/G,
    C_in/G, *k]; output ``o`` of group ``g`` sums ``x[c, o*stride + t*dilation - pads_begin] * w[t]``
    over the group's input channels and the taps that land inside the input."""
    g, og, cg = w.shape[:3]
    res = np.zeros((x.shape[0], g * og, *out))
    for n, co, *o in np.ndindex(*res.shape):
        grp, j = divmod(co, og)
        for ci in range(cg):
            for t in np.ndindex(*w.shape[3:]):
                i = [a * s + b * d - p for a, b, s, d, p in zip(o, t, strides, dilations, pads_begin)]
                if all(0 <= v < e for v, e in zip(i, x.shape[2:])):
                    res[(n, co, *o)] += x[(n, grp * cg + ci, *i)] * w[(grp, j, ci, *t)]
    return res


@pytest.mark.parametrize("og, k, strides, dilations, pb, pe", [
    (1, (3, 3), [1, 1], [1, 1], [1, 1], [1, 1]),         # MobileNet's layer: one stride phase
    (1, (3, 3), [2, 2], [1, 1], [1, 1], [1, 1]),         # four phases of 4, 2, 2 and 1 taps
    (2, (3, 2), [3, 2], [2, 3], [2, 0], [0, 3]),         # phases where gcd(dilation, stride) > 1
    (1, (4, 3), [2, 3], [3, 2], [0, 1], [1, 0]),         # every other tap, strided plane offsets
    (3, (2, 2), [1, 2], [2, 1], [1, 0], [0, 1]),         # channel multiplier
], ids=["3x3", "3x3-stride2", "strides-3-2", "dilated", "multiplier"])
@pytest.mark.parametrize("block", [1 << 20, 1], ids=["one-block", "channel-blocks"])
def test_depthwise_matches_the_spec_definition(og, k, strides, dilations, pb, pe, block, monkeypatch):
    """The depthwise kernel (a stride-phase plane per phase, the taps of a phase copied as one
    strided grid, blocks of channels) against the definition, in one block and one channel at
    a time."""
    from irrun.ops import _conv
    monkeypatch.setattr(_conv, "DEPTHWISE_BLOCK", block)
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 5, 9, 11)).astype(np.float32)
    w = rng.standard_normal((5, og, 1, *k)).astype(np.float32)
    got = conv(x, w, strides, pb, pe, dilations, op="GroupConvolution")
    ext = [(kk - 1) * d + 1 for kk, d in zip(k, dilations)]
    out = [(i + b + e - x_) // s + 1 for i, b, e, x_, s in zip(x.shape[2:], pb, pe, ext, strides)]
    np.testing.assert_allclose(got, spec_group_convolution(x, w, strides, dilations, pb, out), rtol=1e-5, atol=1e-5)
