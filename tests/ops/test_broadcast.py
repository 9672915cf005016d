"""Broadcast-1/3: data-movement-ops.md §13, the broadcast-1/3.rst examples, and cases measured
against OpenVINO 2026.4.1 (reference evaluator; marked "measured")."""
from functools import partial

import numpy as np
import pytest

from helpers import ALL_DTYPES, Param, infer_op, raises_for, run_op, sample, shape_str
import irrun
from irrun.errors import ExecutionError, ShapeError
from irrun.ir.builder import IRWriter

I = lambda *v: np.array(v, dtype=np.int64)  # noqa: E731
F = lambda *s: np.arange(int(np.prod(s)), dtype=np.float32).reshape(s)  # noqa: E731


def bc(x, target, axes=None, mode="numpy", version="opset3", params=(0,)):
    ins = [x, target] + ([axes] if axes is not None else [])
    return run_op("Broadcast", ins, {"mode": mode}, version, params=params)[0]


def shape(x, target, axes=None, mode="numpy", version="opset3", params=(0,)):
    ins = [x, target] + ([axes] if axes is not None else [])
    return shape_str(infer_op("Broadcast", ins, {"mode": mode}, version, params=params)[0])


rejects = partial(raises_for, "Broadcast")


# --- the .rst examples ------------------------------------------------------------------------

@pytest.mark.parametrize("version", ["opset1", "opset3"])
def test_rst_numpy_16_1_1(version):
    assert shape(Param("f32", "16,1,1"), I(1, 16, 50, 50), version=version) == "[1,16,50,50]"
    out = bc(F(16, 1, 1), I(1, 16, 50, 50), version=version)
    assert out.shape == (1, 16, 50, 50)
    assert (out[0, 5] == 5).all() and (out[0, 15] == 15).all()


@pytest.mark.parametrize("version", ["opset1", "opset3"])
def test_rst_explicit(version):
    assert shape(Param("f32", "16"), I(1, 16, 50, 50), I(1), "explicit", version) == "[1,16,50,50]"
    assert shape(Param("f32", "50,50"), I(1, 50, 50, 16), I(1, 2), "explicit", version) == "[1,50,50,16]"
    out = bc(F(16), I(1, 16, 50, 50), I(1), "explicit", version)
    assert (out[0, 7] == 7).all() and (out[0, :, 3, 4] == np.arange(16)).all()
    out = bc(F(50, 50), I(1, 50, 50, 16), I(1, 2), "explicit", version)
    assert out.shape == (1, 50, 50, 16) and (out[0, 2, 3] == 103).all()


def test_rst_bidirectional():
    assert shape(Param("f32", "16,1,1"), I(1, 1, 50, 50), mode="bidirectional") == "[1,16,50,50]"
    out = bc(F(16, 1, 1), I(1, 1, 50, 50), mode="bidirectional")
    assert out.shape == (1, 16, 50, 50) and (out[0, 9] == 9).all()


# --- numpy mode ---------------------------------------------------------------------------------

@pytest.mark.parametrize("version", ["opset1", "opset3"])
def test_numpy_values(version):
    np.testing.assert_array_equal(bc(F(3), I(2, 3), version=version), [[0, 1, 2], [0, 1, 2]])
    np.testing.assert_array_equal(bc(F(2, 1), I(2, 3), version=version), [[0, 0, 0], [1, 1, 1]])
    np.testing.assert_array_equal(bc(np.float32(3), I(2, 2), version=version), [[3, 3], [3, 3]])
    out = bc(F(3), I(0, 3), version=version)
    assert out.shape == (0, 3)
    out = bc(np.float32(3), I(), version=version)                             # measured: [] -> []
    assert out.shape == () and out == 3


@pytest.mark.parametrize("params", [(), (0,), (0, 1)], ids=["const", "param-data", "param-target"])
@pytest.mark.parametrize("x, target, exc, fragment", [
    (F(2, 3, 4), I(3, 4), None, "Broadcast target_shape has smaller rank 2 than arg shape 3"),
    (F(2, 2), I(), None, "Broadcast target_shape has smaller rank 0 than arg shape 2"),
    (F(3, 2), I(3, 4), None, "Input shape dimension equal 2 cannot be broadcasted (numpy mode) to 4. "
                             "Allowed input dimension value would be 1 or 4"),
    (F(1, 3), I(3, 1), None, "Input shape dimension equal 3 cannot be broadcasted (numpy mode) to 1. "
                             "Allowed input dimension value would be 1"),
    (F(1), I(-1, 3), None, "negative value"),
])
def test_numpy_errors(params, x, target, exc, fragment):
    exc = ExecutionError if 1 in params else ShapeError   # a run-time target is checked by run()
    rejects(exc, fragment, bc, x, target, params=params)


def test_numpy_message_has_no_or_for_target_1():
    e = rejects(ShapeError, "would be 1", bc, F(1, 3), I(3, 1))
    assert e.message.endswith("would be 1")


# --- bidirectional ----------------------------------------------------------------------------

@pytest.mark.parametrize("params", [(), (0,), (0, 1)], ids=["const", "param-data", "param-target"])
def test_bidirectional_values(params):
    np.testing.assert_array_equal(bc(F(1, 3), I(3, 1), mode="bidirectional", params=params),
                                  [[0, 1, 2]] * 3)
    out = bc(F(2, 3, 4), I(3, 1), mode="bidirectional", params=params)   # target may be smaller
    np.testing.assert_array_equal(out, np.arange(24).reshape(2, 3, 4))
    assert bc(F(1), I(0), mode="bidirectional", params=params).shape == (0,)
    assert bc(F(0), I(1), mode="bidirectional", params=params).shape == (0,)


@pytest.mark.parametrize("params, exc", [((), ShapeError), ((0, 1), ExecutionError)])
def test_bidirectional_error(params, exc):
    rejects(exc, "Broadcast incorrect target shape. Expecting either 1 or 2. Got 4",
            bc, F(3, 2), I(3, 4), mode="bidirectional", params=params)


def test_bidirectional_only_in_v3():
    rejects(ShapeError, "bidirectional", bc, F(1, 3), I(3, 1), mode="bidirectional", version="opset1")


# --- explicit -----------------------------------------------------------------------------------

@pytest.mark.parametrize("params", [(), (0,), (0, 1, 2)], ids=["const", "param-data", "param-all"])
@pytest.mark.parametrize("version", ["opset1", "opset3"])
def test_explicit_values(params, version):
    out = bc(F(2, 3), I(2, 4, 3), I(0, 2), "explicit", version, params)
    np.testing.assert_array_equal(out, [[[0, 1, 2]] * 4, [[3, 4, 5]] * 4])
    out = bc(F(2, 1), I(2, 4, 3), I(0, 2), "explicit", version, params)
    np.testing.assert_array_equal(out, [[[0, 0, 0]] * 4, [[1, 1, 1]] * 4])


def test_explicit_scalar_and_none_synonym():
    np.testing.assert_array_equal(bc(np.float32(7), I(2, 3), I(), "explicit"), [[7] * 3] * 2)
    np.testing.assert_array_equal(bc(np.float32(7), I(2, 3), I(), "explicit", params=(0, 2)), [[7] * 3] * 2)
    # measured: a one-element mapping onto a target dim of 1 (CPU runs it, reference fails)
    np.testing.assert_array_equal(bc(np.float32(7), I(2, 1), I(1), "explicit"), [[7], [7]])
    np.testing.assert_array_equal(bc(F(2, 3), I(2, 4, 3), I(0, 2), "none"), [[[0, 1, 2]] * 4, [[3, 4, 5]] * 4])


@pytest.mark.parametrize("x, target, axes, fragment", [
    (F(2, 3), I(3, 2), I(1, 0), "Broadcast doesn't permit transposes. axes_mapping AxisVector{1, 0} "
                                "not in sorted order"),
    (F(2, 3), I(2, 3), I(1), "Broadcast axes_mapping shape [1] doesn't match rank of input tensor 2"),
    (F(2, 3), I(2, 3, 4), I(0, 3), "Broadcast axes_mapping[1]: 3 exceeds target rank 3"),
    (F(2, 3), I(2, 3), I(0, -1), "exceeds target rank 2"),
    (F(2, 3), I(2, 4), I(0, 1), "Broadcast target[axes_mapping[1]] Expected 3. Got 4"),
    (F(2, 3), I(3, 3), I(1, 1), "Broadcast target[axes_mapping[0]] Expected 2. Got 3"),
    (F(1, 1), I(3, 4), I(0, 0), "maps two data axes to one output axis"),      # OpenVINO accepts
    (np.float32(7), I(2, 1), I(0), "Broadcast target[axes_mapping[0]]. Expected 1. Got 2"),
])
def test_explicit_errors(x, target, axes, fragment):
    rejects(ShapeError, fragment, bc, x, target, axes, "explicit")


def test_explicit_empty_axes_for_vector():
    rejects(ShapeError, "Broadcast axes_mapping shape [0] doesn't match rank of input tensor 1",
            bc, F(1), I(2, 3), I(), "explicit", params=(0, 2))


def test_explicit_runtime_axes_checked():
    rejects(ExecutionError, "not in sorted order", bc, F(2, 3), I(3, 2), I(1, 0), "explicit", params=(0, 2))
    rejects(ExecutionError, "Expected 3. Got 4", bc, F(2, 3), I(2, 4), I(0, 1), "explicit", params=(0, 1))


@pytest.mark.parametrize("version", ["opset1", "opset3"])
def test_index_input_types(version):
    rejects(ShapeError, "Broadcast shape must be an integral number, but is: f32",
            bc, F(2), np.array([2.0], np.float32), version=version)
    rejects(ShapeError, "Broadcast shape must be an integral number, but is: boolean",
            bc, F(1), np.array([True]), version=version)
    rejects(ShapeError, "Broadcast shape rank must be 1, but has 0", bc, F(1), np.int64(3), version=version)
    rejects(ShapeError, "Broadcast axes must be integral numbers, but are: f32",
            bc, F(2, 3), I(2, 3), np.array([0, 1], np.float32), "explicit", version)
    rejects(ShapeError, "Broadcast axes rank must be 1, but has 2",
            bc, F(2, 3), I(2, 3), I(0, 1).reshape(1, 2), "explicit", version)
    np.testing.assert_array_equal(bc(F(3), np.array([2, 3], np.uint8), version=version), [[0, 1, 2]] * 2)
    np.testing.assert_array_equal(bc(F(3), np.array([2, 3], np.int32), version=version), [[0, 1, 2]] * 2)


# --- input counts per version (measured) -------------------------------------------------------

def test_input_counts():
    # v1: explicit with two inputs is numpy; numpy ignores a third input
    rejects(ShapeError, "(numpy mode)", bc, F(3), I(3, 2), mode="explicit", version="opset1")
    np.testing.assert_array_equal(bc(F(3), I(2, 3), I(0, 1), "numpy", "opset1"), [[0, 1, 2]] * 2)
    rejects(ShapeError, "index '2' out of range", bc, F(2, 1), I(2, 3), mode="pdpd", version="opset1")
    # v3: explicit needs axes_mapping, the others refuse it
    rejects(ShapeError, "axes_mapping input should be provided if explicit mode is used",
            bc, F(2, 3), I(2, 3), mode="explicit")
    rejects(ShapeError, "axes_mapping input should not be provided for mode other than explicit",
            bc, F(2, 3), I(2, 3), I(0, 1), "numpy")
    rejects(ShapeError, "bogus", bc, F(2, 3), I(2, 3), mode="bogus")


# --- pdpd (measured: OpenVINO's IR reader always uses axis 0) ---------------------------------

@pytest.mark.parametrize("params", [(), (0,), (0, 1)], ids=["const", "param-data", "param-target"])
@pytest.mark.parametrize("version, extra", [("opset3", ()), ("opset1", (I(0),))])
def test_pdpd_values(params, version, extra):
    def pd(x, t):
        ins = [x, t, *extra]
        return run_op("Broadcast", ins, {"mode": "pdpd"}, version, params=params)[0]
    np.testing.assert_array_equal(pd(F(2, 1), I(2, 3)), [[0, 0, 0], [1, 1, 1]])
    np.testing.assert_array_equal(pd(F(2, 3), I(2, 1)), [[0, 1, 2], [3, 4, 5]])   # output > target
    np.testing.assert_array_equal(pd(F(2, 3), I(1, 3)), [[0, 1, 2], [3, 4, 5]])
    np.testing.assert_array_equal(pd(F(1, 3), I(2, 3)), [[0, 1, 2], [0, 1, 2]])
    assert pd(F(2, 1, 1), I(2, 3, 4)).tolist() == [[[0] * 4] * 3, [[1] * 4] * 3]


def test_pdpd_axis_attribute_is_ignored():
    for attr in ("axis", "auto_broadcast_axis"):
        rejects(ShapeError, "Broadcast incorrect target shape. Expecting either 1 or 3 . Got 2",
                run_op, "Broadcast", [F(3, 4), I(2, 3, 4)], {"mode": "pdpd", attr: 1}, "opset3")


@pytest.mark.parametrize("x, target, fragment", [
    (F(2), I(2, 3), "data rank 1 differs from target_shape length 2"),
    (F(2, 3, 4), I(2, 3), "data rank 3 differs from target_shape length 2"),
    (np.float32(1), I(2, 3), "data rank 0 differs"),
    (F(1, 3), I(2, 0), "Broadcast incorrect target shape. Expecting either 1 or 3 . Got 0"),
])
def test_pdpd_errors(x, target, fragment):
    rejects(ShapeError, fragment, bc, x, target, mode="pdpd")


# --- dynamic shapes (measured with read_model) --------------------------------------------------

@pytest.mark.parametrize("mode, data, target, axes, out", [
    ("numpy", Param("f32", "2..5,1"), I(4, 3), None, "[4,3]"),
    ("numpy", Param("f32", "?"), I(1), None, "[1]"),
    ("numpy", Param("f32", "..."), I(2, 3), None, "[2,3]"),
    ("numpy", Param("f32", "2,3"), Param("i64", "3"), None, "[?,?,?]"),
    ("numpy", Param("f32", "2,3"), Param("i64", "?"), None, "[...]"),
    ("numpy", Param("f32", "2,3"), Param("i64", "..."), None, "[...]"),
    ("bidirectional", Param("f32", "2,3"), Param("i64", "3"), None, "[?,2,3]"),
    ("bidirectional", Param("f32", "2,3"), Param("i64", "1"), None, "[2,3]"),
    ("bidirectional", Param("f32", "1,3"), Param("i64", "2"), None, "[?,3]"),
    ("bidirectional", Param("f32", "2..4,1,?"), Param("i64", "4"), None, "[?,2..4,?,?]"),
    ("bidirectional", Param("f32", "..."), Param("i64", "2"), None, "[...]"),
    ("bidirectional", Param("f32", "2,3"), Param("i64", "?"), None, "[...]"),
    ("bidirectional", Param("f32", "?,3"), I(4, 1), None, "[4,3]"),
    ("bidirectional", Param("f32", "2..5,3"), I(4, 1), None, "[4,3]"),
    ("bidirectional", Param("f32", "1..5,3"), I(7, 1), None, "[7,3]"),
    ("bidirectional", Param("f32", "2..5,3"), I(1, 1), None, "[2..5,3]"),
    ("bidirectional", Param("f32", "..."), I(4, 1), None, "[...]"),
    ("explicit", Param("f32", "2,3"), I(2, 4, 3), Param("i64", "2"), "[2,4,3]"),
    ("explicit", Param("f32", "2,3"), Param("i64", "3"), I(0, 2), "[?,?,?]"),
    ("explicit", Param("f32", "2,3"), Param("i64", "?"), I(0, 2), "[...]"),
    ("explicit", Param("f32", "..."), I(2, 4, 3), I(0, 2), "[2,4,3]"),
    ("explicit", Param("f32", "?,?"), I(2, 4, 3), I(0, 2), "[2,4,3]"),
    ("pdpd", Param("f32", "?,3"), I(2, 3), None, "[2,3]"),
    ("pdpd", Param("f32", "2..5,1"), I(2, 3), None, "[2,3]"),
    ("pdpd", Param("f32", "..."), I(2, 3), None, "[2,3]"),
    ("pdpd", Param("f32", "2,3"), Param("i64", "3"), None, "[?,?,?]"),
    ("pdpd", Param("f32", "2,3"), Param("i64", "?"), None, "[...]"),
])
def test_dynamic_shapes(mode, data, target, axes, out):
    params = tuple(i for i, x in enumerate([data, target, axes]) if isinstance(x, Param))
    assert shape(data, target, axes, mode, params=params) == out


@pytest.mark.parametrize("mode, data, target, axes, fragment", [
    ("bidirectional", Param("f32", "2..5,3"), I(7, 1), None, "Expecting either 1 or 2..5. Got 7"),
    ("bidirectional", Param("f32", "2..5"), I(0), None, "Expecting either 1 or 2..5. Got 0"),
    ("explicit", Param("f32", "5..7,?"), I(2, 4, 3), I(0, 2), "Broadcast target[axes_mapping[0]] Expected 5..7. Got 2"),
    # OpenVINO accepts these (it skips dynamic dims) but no size in 2..5 can broadcast to 7
    ("numpy", Param("f32", "2..5"), I(7), None, "Input shape dimension equal 2..5 cannot be broadcasted"),
])
def test_dynamic_errors(mode, data, target, axes, fragment):
    rejects(ShapeError, fragment, shape, data, target, axes, mode)


def test_runtime_data_checked_against_const_target(tmp_path):
    """Data declared [?,?]: only run() sees that [3,2] cannot become [3,4]."""
    b = IRWriter("m")
    x = b.parameter("x", "f32", "?,?", dims=[])
    b.result(b.layer("Broadcast", [x, b.const(I(3, 4))], {"mode": "numpy"}, version="opset3"), "out")
    model = irrun.read_model(b.save(tmp_path / "m.xml"))
    assert str(model.outputs[0].shape) == "[3,4]"
    # run() re-infers with the concrete input shape, so this is a ShapeError naming the layer
    rejects(ShapeError, "cannot be broadcasted (numpy mode) to 4", model.run, {"x": F(3, 2)})
    np.testing.assert_array_equal(model.run({"x": F(1, 4)})["out"], [[0, 1, 2, 3]] * 3)


# --- views and element types -------------------------------------------------------------------

@pytest.mark.parametrize("mode, target, axes", [("numpy", I(4, 2, 3), None),
                                                ("bidirectional", I(4, 1, 1), None),
                                                ("explicit", I(2, 4, 3), I(0, 2)),
                                                ("pdpd", I(2, 3), None)])
def test_views(mode, target, axes):
    x = F(2, 3)
    out = bc(x, target, axes, mode)
    assert np.shares_memory(out, x) and not out.flags.writeable


@pytest.mark.parametrize("params", [(), (0,)], ids=["const", "param"])
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_all_dtypes(dtype, params):
    x = sample((2, 1), dtype)
    out = bc(x, I(3, 2, 4), params=params)
    assert out.dtype == np.dtype(dtype) and out.shape == (3, 2, 4)
    for k in range(3):
        for j in range(4):
            np.testing.assert_array_equal(out[k, :, j], x[:, 0])
    out = bc(x, I(2, 4, 1), I(0, 2), "explicit", params=params)
    assert out.dtype == np.dtype(dtype) and (out[1, 3, 0] == x[1, 0])
