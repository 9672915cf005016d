"""Pad-1/12: data-movement-ops.md §14, the pad-1/12.rst tables, and cases measured against
OpenVINO 2026.4.1 (reference evaluator and read_model; marked "measured")."""
from functools import partial

import numpy as np
import pytest

from helpers import ALL_DTYPES, Param, infer_op, raises_for, run_op, sample, shape_str
from irrun.types import elements
from irrun.errors import ExecutionError, ShapeError

I = lambda *v: np.array(v, dtype=np.int64)  # noqa: E731
DATA = np.array([[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]], dtype=np.float32)
VERSIONS = ["opset1", "opset12"]
S = elements.STRING_DTYPE


def pad(x, b, e, mode="constant", value=None, version="opset12", params=(0,)):
    ins = [x, b, e] + ([value] if value is not None else [])
    return run_op("Pad", ins, {"pad_mode": mode}, version, params=params)[0]


def shape(x, b, e, mode="constant", value=None, version="opset12", params=(0,)):
    ins = [x, b, e] + ([value] if value is not None else [])
    return shape_str(infer_op("Pad", ins, {"pad_mode": mode}, version, params=params)[0])


rejects = partial(raises_for, "Pad")


# --- the spec tables (pad-12.rst; pad-1.rst has the positive table) ---------------------------

POSITIVE = {  # pads_begin = [0, 1], pads_end = [2, 3]
    "constant": [[0, 1, 2, 3, 4, 0, 0, 0], [0, 5, 6, 7, 8, 0, 0, 0], [0, 9, 10, 11, 12, 0, 0, 0],
                 [0, 0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0, 0]],
    "edge": [[1, 1, 2, 3, 4, 4, 4, 4], [5, 5, 6, 7, 8, 8, 8, 8], [9, 9, 10, 11, 12, 12, 12, 12],
             [9, 9, 10, 11, 12, 12, 12, 12], [9, 9, 10, 11, 12, 12, 12, 12]],
    "reflect": [[2, 1, 2, 3, 4, 3, 2, 1], [6, 5, 6, 7, 8, 7, 6, 5], [10, 9, 10, 11, 12, 11, 10, 9],
                [6, 5, 6, 7, 8, 7, 6, 5], [2, 1, 2, 3, 4, 3, 2, 1]],
    "symmetric": [[1, 1, 2, 3, 4, 4, 3, 2], [5, 5, 6, 7, 8, 8, 7, 6], [9, 9, 10, 11, 12, 12, 11, 10],
                  [9, 9, 10, 11, 12, 12, 11, 10], [5, 5, 6, 7, 8, 8, 7, 6]],
}
MIXED = {  # pads_begin = [2, -1], pads_end = [-1, 3]
    "constant": [[0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0], [2, 3, 4, 0, 0, 0], [6, 7, 8, 0, 0, 0]],
    "edge": [[2, 3, 4, 4, 4, 4], [2, 3, 4, 4, 4, 4], [2, 3, 4, 4, 4, 4], [6, 7, 8, 8, 8, 8]],
    "reflect": [[10, 11, 12, 11, 10, 9], [6, 7, 8, 7, 6, 5], [2, 3, 4, 3, 2, 1], [6, 7, 8, 7, 6, 5]],
    "symmetric": [[6, 7, 8, 8, 7, 6], [2, 3, 4, 4, 3, 2], [2, 3, 4, 4, 3, 2], [6, 7, 8, 8, 7, 6]],
}
MODES = list(POSITIVE)


@pytest.mark.parametrize("params", [(), (0,), (0, 1, 2)], ids=["const", "param-data", "param-pads"])
@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("mode", MODES)
def test_spec_tables(mode, version, params):
    np.testing.assert_array_equal(pad(DATA, I(0, 1), I(2, 3), mode, None, version, params), POSITIVE[mode])
    np.testing.assert_array_equal(pad(DATA, I(-1, -1), I(-1, -1), mode, None, version, params), [[6, 7]])
    np.testing.assert_array_equal(pad(DATA, I(2, -1), I(-1, 3), mode, None, version, params), MIXED[mode])


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("data, b, e, mode, value, out", [      # the .rst <layer> examples
    ("1,3,32,40", I(0, 5, 2, 1), I(1, 0, 3, 7), "constant", np.float32(15), "[2,8,37,48]"),
    ("2,3,32,40", I(0, -2, -8, 1), I(-1, 4, -6, 7), "constant", np.float32(15), "[1,5,18,48]"),
    ("1,3,32,40", I(0, 5, 2, 1), I(1, 0, 3, 7), "edge", None, "[2,8,37,48]"),
])
def test_rst_layer_examples(version, data, b, e, mode, value, out):
    assert shape(Param("f32", data), b, e, mode, value, version) == out


def test_rst_pad_value_15():
    out = pad(np.ones((2, 3, 32, 40), np.float32), I(0, -2, -8, 1), I(-1, 4, -6, 7), "constant", np.float32(15))
    assert out.shape == (1, 5, 18, 48)
    assert (out[0, 1:] == 15).all() and (out[0, 0, :, 0] == 15).all() and (out[0, 0, :, 1:41] == 1).all() and (out[0, 0, :, 41:] == 15).all()


@pytest.mark.parametrize("mode, row0", [("constant", [2, 3, 4, 0, 0]), ("edge", [2, 3, 4, 4, 4]),
                                        ("reflect", [2, 3, 4, 3, 2]), ("symmetric", [2, 3, 4, 4, 3])])
def test_crop_and_pad_same_axis(mode, row0):
    """data-movement-ops.md §14: b=[0,-1] e=[0,2] (reflect rows 2,3,4,3,2 / 6,7,8,7,6 / ...)."""
    out = pad(DATA, I(0, -1), I(0, 2), mode)
    assert out.shape == (3, 5)
    np.testing.assert_array_equal(out[0], row0)
    np.testing.assert_array_equal(out[2, :3] - out[0, :3], [8] * 3)


@pytest.mark.parametrize("mode, out", [("constant", [3, 4, 0, 0, 0]), ("edge", [3, 4, 4, 4, 4]),
                                       ("reflect", [3, 4, 3, 2, 1]), ("symmetric", [3, 4, 4, 3, 2])])
def test_mirror_reaches_into_cropped_part(mode, out):
    """measured: [1,2,3,4] with b=-2 e=3 mirrors the *uncropped* axis (reflect gives ...2,1)."""
    np.testing.assert_array_equal(pad(np.array([1, 2, 3, 4], np.float32), I(-2), I(3), mode), out)


@pytest.mark.parametrize("b, e, out", [(I(-3), I(1), {"constant": [0], "edge": [3], "reflect": [2], "symmetric": [3]}),
                                       (I(2), I(-4), {"constant": [0], "edge": [1], "reflect": [3], "symmetric": [2]}),
                                       (I(-4), I(1), {m: [] for m in MODES})])
@pytest.mark.parametrize("mode", MODES)
def test_crop_whole_axis_then_pad(mode, b, e, out):     # measured, data [1,2,3]
    np.testing.assert_array_equal(pad(np.array([1, 2, 3], np.float32), b, e, mode), out[mode])


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("params", [(), (0,), (0, 3), (0, 1, 2, 3)], ids=["const", "param-data", "param-value", "param-all"])
def test_pad_value(version, params):
    out = pad(DATA, I(1, 0), I(0, 0), "constant", np.float32(9), version, params)
    np.testing.assert_array_equal(out, [[9, 9, 9, 9], [1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]])


def test_pad_value_ignored_outside_constant_mode():    # measured: any type/shape is accepted
    expect = [[1, 2, 3, 4], [1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]]
    np.testing.assert_array_equal(pad(DATA, I(1, 0), I(0, 0), "edge", np.float32(9)), expect)
    np.testing.assert_array_equal(pad(DATA, I(1, 0), I(0, 0), "edge", np.int32(9)), expect)
    np.testing.assert_array_equal(pad(DATA, I(1, 0), I(0, 0), "edge", np.array([9, 9], np.float32)), expect)


def test_missing_mode_is_constant_and_case_insensitive():
    out = run_op("Pad", [DATA, I(1, 0), I(0, 0)], {}, "opset12")[0]
    np.testing.assert_array_equal(out[0], [0, 0, 0, 0])
    out = run_op("Pad", [DATA, I(1, 0), I(0, 0)], {"pad_mode": "EDGE"}, "opset1")[0]
    np.testing.assert_array_equal(out[0], [1, 2, 3, 4])
    rejects(ShapeError, "bogus", run_op, "Pad", [DATA, I(1, 0), I(0, 0)], {"pad_mode": "bogus"})


def test_pads_types():
    out = pad(DATA, np.array([1, 0], np.int32), np.array([0, 1], np.uint8))
    np.testing.assert_array_equal(out, [[0] * 5, [1, 2, 3, 4, 0], [5, 6, 7, 8, 0], [9, 10, 11, 12, 0]])


def test_scalar_data():
    out = pad(np.float32(5), np.zeros(0, np.int64), np.zeros(0, np.int64))
    assert out.shape == () and out == 5


# --- limits and errors ------------------------------------------------------------------------

@pytest.mark.parametrize("mode, b, e, out_shape", [
    ("reflect", I(0, 3), I(0, 0), (3, 7)), ("symmetric", I(0, 4), I(0, 0), (3, 8)),
    ("edge", I(0, 10), I(0, 0), (3, 14)), ("reflect", I(0, 0), I(0, 3), (3, 7))])
def test_limits_ok(mode, b, e, out_shape):
    out = pad(DATA, b, e, mode)
    assert out.shape == out_shape
    if mode == "reflect" and b[1] == 3:
        np.testing.assert_array_equal(out[0], [4, 3, 2, 1, 2, 3, 4])        # measured
    if mode == "symmetric":
        np.testing.assert_array_equal(out[0], [4, 3, 2, 1, 1, 2, 3, 4])     # measured


REFLECT_MSG = "REFLECT padding mode requires that 'pads_begin[D]' and 'pads_end[D]' must be not greater than 'data_shape[D] - 1'."
SYMMETRIC_MSG = "SYMMETRIC padding mode requires that 'pads_begin[D]' and 'pads_end[D]' must be not greater than 'data_shape[D]'."


@pytest.mark.parametrize("x, mode, b, e, fragment", [
    (DATA, "reflect", I(0, 4), I(0, 0), REFLECT_MSG),
    (DATA, "reflect", I(0, 0), I(0, 4), REFLECT_MSG),
    (DATA, "symmetric", I(0, 5), I(0, 0), SYMMETRIC_MSG),
    (np.zeros((0, 4), np.float32), "reflect", I(0, 0), I(0, 0), REFLECT_MSG),          # measured
    (np.zeros((0, 4), np.float32), "symmetric", I(1, 0), I(0, 0), SYMMETRIC_MSG),      # measured
    (np.zeros((0, 4), np.float32), "edge", I(1, 0), I(0, 0),
     "EDGE padding mode requires an input of dimension of at least 1 at each spatial axis."),
    (np.zeros((1, 4), np.float32), "reflect", I(1, 0), I(0, 0),
     "REFLECT padding mode requires an input of dimension of at least 2 at each spatial axis."),
    (DATA, "constant", I(-3, 0), I(-3, 0), "crops axis 0 below zero"),
    (DATA, "constant", I(-2, 0), I(-2, 0), "crops axis 0 below zero"),
    (DATA, "constant", I(1), I(1, 1), "length of pads_begin mismatches with rank of input, expect 2, but got 1"),
    (DATA, "constant", I(1, 1), I(1), "length of pads_end mismatches with rank of input, expect 2, but got 1"),
])
@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("params, exc", [((), ShapeError), ((0,), ShapeError), ((0, 1, 2), ExecutionError)],
                         ids=["const", "param-data", "param-pads"])
def test_errors(x, mode, b, e, fragment, version, params, exc):
    if "length of" in fragment:
        exc = ShapeError        # a Parameter's length is static: rejected before running
    rejects(exc, fragment, pad, x, b, e, mode, None, version, params)


def test_edge_zero_dim_is_fine_when_that_axis_is_not_padded():       # measured
    assert pad(np.zeros((0, 4), np.float32), I(0, 1), I(0, 0), "edge").shape == (0, 5)
    assert pad(np.zeros((0, 4), np.float32), I(0, 0), I(0, 0), "edge").shape == (0, 4)


@pytest.mark.parametrize("version", VERSIONS)
def test_input_checks(version):
    rejects(ShapeError, "pads_begin must be an integral number, but is: f32).",
            pad, DATA, np.array([1, 1], np.float32), I(1, 1), version=version)
    rejects(ShapeError, "pads_end must be an integral number, but is: f32).",
            pad, DATA, I(1, 1), np.array([1, 1], np.float32), version=version)
    rejects(ShapeError, "Argument for pads_begin is not 1D.", pad, DATA, np.int64(1), I(0, 0), version=version)
    rejects(ShapeError, "Argument for pads_end is not 1D.", pad, DATA, I(0, 0), I(1, 0).reshape(1, 2), version=version)
    rejects(ShapeError, "Argument for padding value is not a scalar.",
            pad, DATA, I(1, 1), I(1, 1), "constant", np.array([9], np.float32), version)
    rejects(ShapeError, "Argument element types do not match (input arg element type: f32, arg_pad element type: i32).",
            pad, DATA, I(1, 0), I(0, 0), "constant", np.int32(9), version)


# --- strings -------------------------------------------------------------------------------------

STRINGS = np.array([["a", "bc"], ["def", "g"]], dtype=S)


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("params", [(), (0,), (0, 3)], ids=["const", "param-data", "param-value"])
def test_strings(version, params):
    # measured (reference and CPU): without pad_value the padding is "", with it the given string
    out = pad(STRINGS, I(1, 0), I(0, 1), "constant", None, version, params[:1])
    assert out.dtype == S
    assert out.tolist() == [["", "", ""], ["a", "bc", ""], ["def", "g", ""]]
    out = pad(STRINGS, I(1, 0), I(0, 1), "constant", np.array("zz", dtype=S), version, params)
    assert out.tolist() == [["zz", "zz", "zz"], ["a", "bc", "zz"], ["def", "g", "zz"]]


@pytest.mark.parametrize("mode", ["edge", "reflect", "symmetric"])
def test_strings_only_constant(mode):
    rejects(ShapeError, "Only CONSTANT pad mode is supported for element::string",
            pad, STRINGS, I(1, 0), I(0, 1), mode)


# --- dynamic shapes (measured with read_model unless noted) --------------------------------------

@pytest.mark.parametrize("data, b, e, mode, out", [
    (Param("f32", "2..5,?,4"), I(1, 1, -1), I(0, -2, -1), "constant", "[3..6,?,2]"),
    (Param("f32", "2..5"), I(-3), I(0), "constant", "[0..2]"),    # OpenVINO prints [..2]
    (Param("f32", "2..5"), I(3), I(0), "reflect", "[5..8]"),
    (Param("f32", "..."), I(1, 1), I(0, 0), "constant", "[?,?]"),       # OpenVINO: [...]
    (Param("f32", "2,3"), Param("i64", "2"), I(0, 0), "constant", "[?,?]"),
    (Param("f32", "2,3"), Param("i64", "?"), Param("i64", "?"), "constant", "[?,?]"),
    (Param("f32", "..."), Param("i64", "3"), Param("i64", "?"), "edge", "[?,?,?]"),
    (Param("f32", "..."), Param("i64", "?"), Param("i64", "?"), "edge", "[...]"),
])
def test_dynamic_shapes(data, b, e, mode, out):
    params = tuple(i for i, x in enumerate([data, b, e]) if isinstance(x, Param))
    assert shape(data, b, e, mode, params=params) == out


@pytest.mark.parametrize("data, b, e, mode, fragment", [
    # OpenVINO gives [?] / [11..14] / [?,?]: none of these can run, irrun says so at once
    (Param("f32", "2..5"), I(-6), I(0), "constant", "crops axis 0 below zero"),
    (Param("f32", "2..5"), I(9), I(0), "reflect", REFLECT_MSG),
    (Param("f32", "2..5"), I(0), I(6), "symmetric", SYMMETRIC_MSG),
    (Param("f32", "2,3"), Param("i64", "1"), I(0, 0), "constant", "length of pads_begin mismatches"),
    # OpenVINO: "Number of elements of pads_begin must be >= 0 and <= arg rank"
    (Param("f32", "2,3"), Param("i64", "3"), I(0, 0, 0), "constant", "expect 2, but got 3"),
])
def test_dynamic_errors(data, b, e, mode, fragment):
    params = tuple(i for i, x in enumerate([data, b, e]) if isinstance(x, Param))
    rejects(ShapeError, fragment, shape, data, b, e, mode, params=params)


def test_interval_dim_checked_at_run_time(tmp_path):
    import irrun
    from irrun.ir.builder import IRWriter
    b = IRWriter("m")
    x = b.parameter("x", "f32", "1..5", dims=[])
    b.result(b.layer("Pad", [x, b.const(I(3)), b.const(I(0))], {"pad_mode": "reflect"}, version="opset12"), "out")
    model = irrun.read_model(b.save(tmp_path / "m.xml"))
    assert str(model.outputs[0].shape) == "[4..8]"
    np.testing.assert_array_equal(model.run({"x": np.array([1, 2, 3, 4], np.float32)})["out"], [4, 3, 2, 1, 2, 3, 4])
    rejects(ShapeError, REFLECT_MSG, model.run, {"x": np.array([1, 2, 3], np.float32)})


# --- element types ---------------------------------------------------------------------------------

@pytest.mark.parametrize("params", [(), (0,)], ids=["const", "param"])
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_all_dtypes(dtype, params):
    x = sample((2, 3), dtype)
    zero = "" if np.dtype(dtype) == S else 0
    out = pad(x, I(1, -1), I(0, 1), "constant", params=params)
    assert out.dtype == np.dtype(dtype) and out.shape == (3, 3)
    assert out[0].tolist() == [zero] * 3 and out[:, 2].tolist() == [zero] * 3
    np.testing.assert_array_equal(out[1:, :2], x[:, 1:])
    value = x[1:2, 2:3].reshape(())               # a pad_value of the data's own type
    out = pad(x, I(0, 0), I(1, 0), "constant", value, params=params)
    np.testing.assert_array_equal(out[2], [x[1, 2]] * 3)
    if np.dtype(dtype) != S:
        out = pad(x, I(0, 2), I(0, 0), "symmetric", params=params)
        np.testing.assert_array_equal(out[:, :2], x[:, 1::-1])
        np.testing.assert_array_equal(out[:, 2:], x)
