"""ShuffleChannels-1: data-movement-ops.md §5 (op_reference/shuffle_channels.cpp rows, type_prop
shapes, measured rows)."""
import numpy as np
import pytest

import irrun
from helpers import ALL_DTYPES, Param, infer_op, raises_for, run_op, sample, shape_str
from irrun.types import elements
from irrun.errors import ShapeError
from irrun.ir.builder import IRWriter

# [1,15,2,2] axis 1 group 5 (op_reference): channels 0,3,6,9,12,1,4,7,10,13,2,5,8,11,14, 4 values each
SHUFFLED_60 = [0, 1, 2, 3, 12, 13, 14, 15, 24, 25, 26, 27, 36, 37, 38, 39, 48, 49, 50, 51,
               4, 5, 6, 7, 16, 17, 18, 19, 28, 29, 30, 31, 40, 41, 42, 43, 52, 53, 54, 55,
               8, 9, 10, 11, 20, 21, 22, 23, 32, 33, 34, 35, 44, 45, 46, 47, 56, 57, 58, 59]
REF_DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
              elements.TYPES["bf16"].dtype, np.float16, np.float32, np.float64]


def shuffle(x, axis=None, group=None, params=(0,)):
    attrs = {k: v for k, v in (("axis", axis), ("group", group)) if v is not None}
    return run_op("ShuffleChannels", [x], attrs, params=params)[0]


@pytest.mark.parametrize("dtype", REF_DTYPES, ids=str)
@pytest.mark.parametrize("shape, axis, group, want", [
    ((1, 15, 2, 2), 1, 5, SHUFFLED_60),
    ((15, 2, 1, 2), -4, 5, SHUFFLED_60),
    ((6, 1, 1, 1), 0, 2, [0, 3, 1, 4, 2, 5]),
    ((15,), 0, 5, [0, 3, 6, 9, 12, 1, 4, 7, 10, 13, 2, 5, 8, 11, 14]),
    ((15, 4), 0, 5, SHUFFLED_60),
    ((15, 2, 2), 0, 5, SHUFFLED_60),
    ((2, 2, 15, 2, 2), 2, 5, [v + 60 * i for i in range(4) for v in SHUFFLED_60]),
])
def test_reference_values(dtype, shape, axis, group, want):
    x = np.arange(int(np.prod(shape))).astype(dtype).reshape(shape)
    out = shuffle(x, axis, group)
    assert out.dtype == x.dtype and out.shape == shape
    assert (out.ravel() == np.array(want).astype(dtype)).all()   # 240 values wrap in 8-bit types


@pytest.mark.parametrize("params", [(), (0,)], ids=["const", "param"])
def test_const_and_parameter_paths(params):
    np.testing.assert_array_equal(shuffle(np.arange(6, dtype=np.float32), 0, 3, params), [0, 2, 4, 1, 3, 5])


@pytest.mark.parametrize("group", [1, 6])
def test_identities(group):
    x = np.arange(6, dtype=np.float32).reshape(1, 6)
    np.testing.assert_array_equal(shuffle(x, 1, group), [[0, 1, 2, 3, 4, 5]])


def test_zero_size():
    assert shuffle(np.zeros((1, 0, 2), np.float32), 1, 3).shape == (1, 0, 2)
    assert shuffle(np.zeros((0, 6), np.float32), 1, 3).shape == (0, 6)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_dtypes(dtype):
    x = sample((2, 6), dtype)
    out = shuffle(x, 1, 2)
    assert out.dtype == x.dtype
    assert (out == x[:, [0, 3, 1, 4, 2, 5]]).all()


@pytest.mark.parametrize("shape, attrs", [
    ("3,9,4,5", {}), ("2,3,9,4,5", {"axis": 2, "group": 3}), ("6,2,3,9,4,5", {"axis": 3, "group": 3}),
    ("5,4,9", {"axis": 2, "group": 3}), ("9,20", {"axis": 0, "group": 3}), ("9", {"axis": 0, "group": 3}),
    ("1,3,5,8", {"axis": -1, "group": 2}), ("1,3,8,5", {"axis": -2, "group": 2}),
    ("8,3,5,7", {"axis": -4, "group": 2}),
    ("?,3..9,4,4..15", {"axis": 1, "group": 3}),     # dynamic/interval channels pass unchecked
    ("?,3..9", {"axis": 1, "group": 4}),             # measured
    ("...", {"axis": 1, "group": 3}),
    ("1,0,2", {"axis": 1, "group": 3}),
])
def test_shapes(shape, attrs):
    assert shape_str(infer_op("ShuffleChannels", [Param("f32", shape)], attrs)[0]) == \
        str(irrun.PartialShape.parse(shape))


@pytest.mark.parametrize("shape, attrs, fragment", [
    ("1,2,3,4", {"axis": -5, "group": 5}, "Axis -5 out of the tensor rank range [-4, 3]."),
    ("", {}, "The input tensor's shape is expected to be at least 1D."),
    ("", {"axis": 0}, "The input tensor's shape is expected to be at least 1D."),
    ("1,2,3,15", {"axis": -1, "group": 2},
     "The channel dimension size has to be a multiple of the groups parameter value."),
    ("1,2,3,15", {"axis": -1, "group": 0}, "The 'group' parameter must be greater or equal to 1."),
    ("1,2,3,15", {"axis": -1, "group": -1}, "The 'group' parameter must be greater or equal to 1."),
    ("...", {"group": 0}, "The 'group' parameter must be greater or equal to 1."),
])
def test_rejected(shape, attrs, fragment):
    raises_for("ShuffleChannels", ShapeError, fragment,
               infer_op, "ShuffleChannels", [Param("f32", shape)], attrs)


def test_rejected_at_run_time_shape(tmp_path):   # [?,3..9] group 4 passes inference, 6 channels do not
    b = IRWriter("sc")
    b.result(b.layer("ShuffleChannels", [b.parameter("x", "f32", "?,3..9")], {"group": 4}), "y")
    model = irrun.read_model(b.save(tmp_path / "sc.xml"))
    raises_for("ShuffleChannels", ShapeError, "multiple of the groups parameter value",
               model.run, {"x": np.zeros((2, 6), np.float32)})


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
@pytest.mark.parametrize("shape, axis, group", [((1, 15, 2, 2), 1, 5), ((12,), 0, 3), ((4, 6, 2), -2, 2),
                                                ((2, 3, 8), 2, 8)])
def test_group_then_complement_group_is_identity(tmp_path, dtype, shape, axis, group):
    """ShuffleChannels(group g) then ShuffleChannels(group C/g) returns the input (2-layer model)."""
    x = sample(shape, dtype)
    c = shape[axis]
    b = IRWriter("twice")
    p = b.parameter("x", elements.from_dtype(x.dtype).name, list(shape))
    once = b.layer("ShuffleChannels", [p], {"axis": axis, "group": group})
    b.result(b.layer("ShuffleChannels", [once], {"axis": axis, "group": c // group}), "y")
    y = irrun.read_model(b.save(tmp_path / "twice.xml")).run({"x": x})["y"]
    assert y.dtype == x.dtype and y.shape == x.shape
    assert (y == x).all()
