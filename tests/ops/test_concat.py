"""Concat-1: data-movement-ops.md §6 (spec examples and measured rows), and Split/VariadicSplit ->
Concat round trips on ranks 1..8 for every element type."""
from functools import partial

import numpy as np
import pytest

import irrun
from helpers import ALL_DTYPES, Param, infer_op, raises_for, run_op, sample, shape_str
from irrun.types import elements
from irrun.errors import ShapeError
from irrun.ir.builder import IRWriter


def concat(xs, axis, params=None):
    params = tuple(range(len(xs))) if params is None else params
    return run_op("Concat", xs, {"axis": axis}, params=params)[0]


def shape(xs, axis):
    return shape_str(infer_op("Concat", xs, {"axis": axis})[0])


rejects = partial(raises_for, "Concat")


@pytest.mark.parametrize("params", [(), (0,), (0, 1)], ids=["const", "param-0", "params"])
def test_values_negative_axis(params):
    out = concat([np.arange(6, dtype=np.float32).reshape(2, 3), np.array([[10], [20]], np.float32)],
                 -1, params)
    np.testing.assert_array_equal(out, [[0, 1, 2, 10], [3, 4, 5, 20]])
    assert out.dtype == np.float32


def test_three_inputs_axis_0():
    out = concat([np.array([[1, 2]], np.int32), np.array([[3, 4], [5, 6]], np.int32),
                  np.array([[7, 8]], np.int32)], 0)
    np.testing.assert_array_equal(out, [[1, 2], [3, 4], [5, 6], [7, 8]])


@pytest.mark.parametrize("a, b, out", [((2, 3), (2, 0), (2, 3)), ((2, 0), (2, 3), (2, 3)),
                                       ((2, 0), (2, 0), (2, 0))])
def test_zero_size_on_axis(a, b, out):
    x, y = np.arange(np.prod(a), dtype=np.float32).reshape(a), np.arange(np.prod(b), dtype=np.float32).reshape(b)
    res = concat([x, y], 1)
    assert res.shape == out
    np.testing.assert_array_equal(res, [[0, 1, 2], [3, 4, 5]] if out == (2, 3) else np.zeros((2, 0)))


def test_zero_rows_then_rows():
    res = concat([np.zeros((0, 3), np.float32), np.arange(6, dtype=np.float32).reshape(2, 3)], 0)
    np.testing.assert_array_equal(res, [[0, 1, 2], [3, 4, 5]])


def test_single_input_is_identity():
    x = np.arange(6, dtype=np.int64).reshape(2, 3)
    out = concat([x], -1)
    np.testing.assert_array_equal(out, [[0, 1, 2], [3, 4, 5]])


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_dtypes(dtype):
    x = sample((2, 3), dtype)
    y = sample((2, 2), dtype)
    out = concat([x, y], 1)
    assert out.dtype == x.dtype and out.shape == (2, 5)
    assert (out[:, :3] == x).all() and (out[:, 3:] == y).all()


@pytest.mark.parametrize("axis", [1, -3])
def test_spec_example(axis):   # the spec's comment says 48, OpenVINO (and arithmetic) say 56
    xs = [Param("f32", f"1,{c},50,50") for c in (8, 16, 32)]
    assert shape(xs, axis) == "[1,56,50,50]"


@pytest.mark.parametrize("a, b, axis, out", [          # all measured with OpenVINO 2026.4.1
    ("?,3", "2,?", 0, "[2..,3]"),
    ("?,3", "2,?", 1, "[2,3..]"),
    ("2..5,3", "3..8,1", 1, "[3..5,4]"),
    ("1..3,3", "2..4,?", 0, "[3..7,3]"),
    ("1..5,2..9", "3..7,?", 1, "[3..5,2..]"),
    ("...", "2,3", 0, "[2..,3]"),
    ("2,3", "...", 1, "[2,3..]"),
    ("...", "...", 1, "[...]"),
    ("2,?", "2,3", 0, "[4,3]"),
    ("2..,3", "1..4,3", 0, "[3..,3]"),
])
def test_dynamic_shapes(a, b, axis, out):
    assert shape([Param("f32", a), Param("f32", b)], axis) == out


def test_dynamic_rank_in_the_middle():
    assert shape([Param("f32", "2,3"), Param("f32", "..."), Param("f32", "2,1..")], -1) == "[2,4..]"


def test_dynamic_element_type_merges():
    (info,) = infer_op("Concat", [Param("dynamic", "2,3"), Param("i32", "2,3")], {"axis": 0})
    assert info.etype.name == "i32" and shape_str(info) == "[4,3]"


def test_missing_axis_reads_as_zero():
    assert shape_str(infer_op("Concat", [Param("f32", "2,3"), Param("f32", "1,3")], {})[0]) == "[3,3]"


# --- errors -------------------------------------------------------------------------------------

INCONSISTENT = ("Argument shapes are inconsistent; they must have the same rank, and must have "
                "equal dimension everywhere except on the concatenation axis (axis {}).")


@pytest.mark.parametrize("xs, axis, fragment", [
    ([Param("f32", "2,3"), Param("f32", "3,3")], 1, INCONSISTENT.format(1)),
    ([Param("f32", "2,3"), Param("f32", "3,3")], -1, INCONSISTENT.format(1)),
    ([Param("f32", "2,3"), Param("f32", "2,3,1")], 0, INCONSISTENT.format(0)),
    ([Param("f32", "2..5,3"), Param("f32", "6..8,1")], 1, INCONSISTENT.format(1)),
    ([Param("f32", "2,3"), Param("f32", "2,3")], 2, "Axis 2 out of the tensor rank range [-2, 1]."),
    ([Param("f32", "2,3"), Param("f32", "2,3")], -3, "Axis -3 out of the tensor rank range [-2, 1]."),
    ([Param("f32", "..."), Param("f32", "2,3")], 5, "Axis 5 out of the tensor rank range [-2, 1]."),
    ([Param("f32", ""), Param("f32", "")], 0, "Accessing out-of-range dimension"),
    ([Param("f32", "2,3"), Param("f32", "")], 0, "Accessing out-of-range dimension"),
    ([Param("f32", "2,3"), Param("i32", "2,3")], 0, "Argument element types are inconsistent."),
])
def test_rejected(xs, axis, fragment):
    rejects(ShapeError, fragment, infer_op, "Concat", xs, {"axis": axis})


def test_rejected_with_constants():
    rejects(ShapeError, INCONSISTENT.format(1), concat,
            [np.zeros((2, 3), np.float32), np.zeros((3, 3), np.float32)], 1, params=())


# --- Split / VariadicSplit -> Concat round trips (2-layer models) --------------------------------

def split_concat(tmp_path, x, axis, kind, n):
    """x -> Split(num_splits=n) or VariadicSplit(n uneven parts) -> Concat(axis) -> result."""
    b = IRWriter("roundtrip")
    p = b.parameter("x", elements.from_dtype(x.dtype).name, list(x.shape))
    if kind == "Split":
        parts = b.layer("Split", [p, b.const(np.int64(axis))], {"num_splits": n}, n_out=n)
    else:
        dim = x.shape[axis]
        lengths = [1] * (n - 1) + [-1] if dim >= n else [dim] + [0] * (n - 1)
        parts = b.layer("VariadicSplit", [p, b.const(np.int32(axis)), b.const(np.array(lengths))], n_out=n)
    parts = parts if n > 1 else [parts]
    b.result(b.layer("Concat", parts, {"axis": axis}), "y")
    model = irrun.read_model(b.save(tmp_path / f"{kind}.xml"))
    return model.run({"x": x})["y"]


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
@pytest.mark.parametrize("rank", range(1, 9))
@pytest.mark.parametrize("kind", ["Split", "VariadicSplit"])
def test_split_then_concat_gives_the_input_back(tmp_path, kind, rank, dtype):
    shape = [2] * rank
    axis = rank - 1 - (rank // 2)           # a middle axis
    shape[axis] = 6
    x = sample(tuple(shape), dtype)
    y = split_concat(tmp_path, x, axis - rank if rank % 2 else axis, kind, 3)
    assert y.dtype == x.dtype and y.shape == x.shape
    assert (y == x).all()
    assert not np.shares_memory(y, x)       # Concat copies


@pytest.mark.parametrize("kind", ["Split", "VariadicSplit"])
def test_split_into_one_part_then_concat(tmp_path, kind):
    x = sample((3, 4), np.int32)
    y = split_concat(tmp_path, x, 1, kind, 1)
    np.testing.assert_array_equal(y, [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]])
