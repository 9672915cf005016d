"""Reshape-1: data-movement-ops.md §8 (every measured example and error), Const and Parameter
target shapes, partial-shape inference (measured with OpenVINO 2026.4.1), views, element types."""
import tempfile
from functools import partial
from pathlib import Path

import numpy as np
import pytest

import irrun

from helpers import ALL_DTYPES, Param, infer_op, raises_for, run_op, sample, shape_str
from irrun.errors import ExecutionError, ShapeError
from irrun.ir.builder import IRWriter
from irrun.ops.reshape import Reshape1

PATHS = [(), (0,), (0, 1)]
PATH_IDS = ["const", "param-data", "params"]


def reshape(x, pattern, special_zero, params=(0, 1)):
    if params == () and len(pattern) == 0:
        return _all_const_empty_pattern(x, special_zero)
    return run_op("Reshape", [x, np.asarray(pattern, np.int64)], {"special_zero": special_zero},
                  params=params)[0]


def _all_const_empty_pattern(x, special_zero):
    """The all-Const path with the empty pattern stored first in the .bin: irrun's reader rejects
    a zero-size Const at a nonzero offset (which OpenVINO accepts; reported to the lead)."""
    b = IRWriter("op")
    pattern = b.const(np.zeros(0, np.int64))
    out = b.layer("Reshape", [b.const(x), pattern], {"special_zero": special_zero})
    b.result(out, "out0")
    return irrun.read_model(b.save(Path(tempfile.mkdtemp()) / "r.xml")).run({})["out0"]


def rshape(data, pattern, special_zero=False, params=()):
    return shape_str(infer_op("Reshape", [data, pattern], {"special_zero": special_zero},
                              params=params)[0])


rejects = partial(raises_for, "Reshape")


# (input shape, pattern, special_zero, output shape) — §8 "Examples (measured)"
EXAMPLES = [
    ((2, 5, 5, 0), [0, 4], False, (0, 4)),
    ((2, 5, 5, 24), [0, -1, 4], True, (2, 150, 4)),
    ((2, 2, 3), [0, 0, 1, -1], True, (2, 2, 1, 3)),
    ((3, 1, 1), [-1, 0], True, (3, 1)),
    ((3, 1, 1), [0, -1], True, (3, 1)),
    ((1, 1), [], False, ()),
    ((), [1, 1, 1], False, (1, 1, 1)),
    ((), [-1], False, (1,)),
    ((0, 3), [-1, 3], False, (0, 3)),
    ((0, 3), [3, -1], False, (3, 0)),
    ((0, 3), [-1, 0], False, (1, 0)),
    ((0, 3), [-1, 0, 2], False, (1, 0, 2)),
    ((0, 6), [-1, 0, 3], False, (1, 0, 3)),
    ((5, 0, 7), [0, -1], False, (0, 1)),
    ((2, 0, 3), [0, 0, -1], True, (2, 0, 3)),
    ((4, 0), [-1, 0], True, (4, 0)),
    ((1, 2, 3), [-1, 0], True, (3, 2)),
    ((2, 3), [0, 0, -1], True, (2, 3, 1)),
    ((2, 3), [0, -1], True, (2, 3)),
    ((2, 3), [3, 2], False, (3, 2)),
    ((2, 3), [3, 2], True, (3, 2)),
]


@pytest.mark.parametrize("params", PATHS, ids=PATH_IDS)
@pytest.mark.parametrize("shape, pattern, sz, out", EXAMPLES, ids=[f"{e[0]}->{e[1]}{'sz' if e[2] else ''}" for e in EXAMPLES])
def test_examples(shape, pattern, sz, out, params):
    x = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    res = reshape(x, pattern, sz, params)
    assert res.shape == out and res.dtype == np.float32
    np.testing.assert_array_equal(res.reshape(-1), np.arange(int(np.prod(out)), dtype=np.float32))


@pytest.mark.parametrize("shape, pattern, sz, out", EXAMPLES, ids=[f"{e[0]}->{e[1]}{'sz' if e[2] else ''}" for e in EXAMPLES])
def test_examples_inferred(shape, pattern, sz, out):
    assert rshape(Param("f32", ",".join(map(str, shape))), np.array(pattern, np.int64), sz) == \
        "[" + ",".join(map(str, out)) + "]"


@pytest.mark.parametrize("pattern", [np.array([3, -1], np.int32), np.array([3, 2], np.uint8),
                                     np.array([3, 2], np.uint64), np.array([2**64 - 1, 6], np.uint64)],
                         ids=["i32", "u8", "u64", "u64-max-is-minus-one"])
def test_pattern_types(pattern):
    out = run_op("Reshape", [np.arange(6).reshape(2, 3), pattern], {"special_zero": False})[0]
    assert out.shape == ((3, 2) if pattern[0] == 3 else (1, 6))


# ---------------------------------------------------------------------------------------------
# Errors (measured messages)

ERRORS = [
    ((2, 3), [0, -1], False, "Cannot infer '-1' dimension with zero-size output dimension unless at least one input dimension is also zero-size"),
    ((2, 3), [], False, "Requested output shape [] is incompatible with input shape"),
    ((2, 3), [4, 2], False, "Requested output shape [4,2] is incompatible with input shape"),
    ((2, 3), [-1, -1], False, "More than one dimension has size of -1"),
    ((2, 3), [-2, 3], False, "Output pattern dim[0] has invalid bounds: -2,-2"),
    ((2, 3), [4, -1], False, "Non-'-1' output dimensions do not evenly divide the input dimensions"),
    ((2, 3), [0, 0, 0], True, "'0' dimension is out of range"),
    # OpenVINO's shape inference accepts this one ([3,3]) and then fails or reads garbage
    ((2, 3), [3, 0], True, "Requested output shape [3,3] is incompatible with input shape [2,3]"),
]


@pytest.mark.parametrize("shape, pattern, sz, fragment", ERRORS, ids=[f"{e[0]}->{e[1]}" for e in ERRORS])
def test_errors_const_pattern(shape, pattern, sz, fragment):
    rejects(ShapeError, fragment, reshape, np.zeros(shape, np.float32), pattern, sz, params=(0,))


@pytest.mark.parametrize("shape, pattern, sz, fragment", ERRORS, ids=[f"{e[0]}->{e[1]}" for e in ERRORS])
def test_errors_runtime_pattern(shape, pattern, sz, fragment):
    rejects(ExecutionError, fragment, reshape, np.zeros(shape, np.float32), pattern, sz,
                 params=(0, 1))


@pytest.mark.parametrize("pattern, fragment", [
    (np.array([6.0]), "PartialShape pattern must be an integral number."),
    (np.array([True]), "PartialShape pattern must be an integral number."),
    (np.int64(6), "Pattern shape must have rank 1"),
    (np.array([[6]]), "Pattern shape must have rank 1"),
], ids=["f64", "boolean", "scalar", "2-D"])
def test_pattern_input_errors(pattern, fragment):
    rejects(ShapeError, fragment, run_op, "Reshape", [np.zeros((2, 3)), pattern],
                 {"special_zero": False})


# ---------------------------------------------------------------------------------------------
# Partial shapes (measured with OpenVINO 2026.4.1 unless noted)

@pytest.mark.parametrize("data, pattern, sz, expect", [
    ("2..4,6", [-1, 3], False, "[4..8,3]"),
    ("2..4,3", [-1], False, "[6..12]"),
    ("2..4,3", [0, -1], True, "[2..4,3]"),
    ("?,3", [3, -1, 2], True, "[3,?,2]"),
    ("2..5,4", [3, -1], True, "[3,3..6]"),
    ("2..5,4", [0, 4], True, "[2..5,4]"),
    ("?,3", [2, 4], True, "[2,4]"),
    ("?,3", [0, 0, -1], True, "[?,3,1]"),
    ("...", [0, -1, 3], True, "[?,?,3]"),
    ("...", [-1, 3], False, "[?,3]"),      # OpenVINO says [1..,3]; an empty input makes it 0
    ("2..3,5", [-1, 4], False, "[3,4]"),
    ("?,0", [-1, 0], False, "[1,0]"),        # OpenVINO: [?,0]; the -1 beside a literal 0 is 1
])
def test_partial_shapes(data, pattern, sz, expect):
    assert rshape(Param("f32", data), np.array(pattern, np.int64), sz) == expect


@pytest.mark.parametrize("data, pattern, fragment", [
    ("?,3", [-1, 0], "Cannot infer '-1' dimension with zero-size output dimension"),
    ("5..7", [-1, 8], "do not evenly divide"),     # OpenVINO infers an empty interval [1..0,8]
])
def test_partial_errors(data, pattern, fragment):
    rejects(ShapeError, fragment, rshape, Param("f32", data), np.array(pattern, np.int64))


@pytest.mark.parametrize("pattern, expect", [("2", "[?,?]"), ("?", "[...]"), ("2..3", "[...]"),
                                             ("0", "[]")])
def test_runtime_pattern_shapes(pattern, expect):
    assert rshape(Param("f32", "?,3"), Param("i64", pattern)) == expect


def test_runtime_pattern_values():
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    out = reshape(x, [0, -1], True)
    assert out.shape == (2, 12)
    np.testing.assert_array_equal(out[1], np.arange(12, 24))


# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("params", [(0,), (0, 1)], ids=["const-pattern", "param-pattern"])
def test_view(params):
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    out = reshape(x, [4, -1], False, params)
    assert out.shape == (4, 6) and np.shares_memory(out, x)


def test_non_contiguous_input_is_copied_correctly():
    x = np.arange(6).reshape(2, 3).T            # not C-contiguous: NumPy must copy
    (out,) = Reshape1(special_zero=False).run(x, np.array([6]))
    np.testing.assert_array_equal(out, [0, 3, 1, 4, 2, 5])


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_dtypes(dtype):
    x = sample((2, 3, 4), dtype)
    out = reshape(x, [0, -1], True)
    assert out.dtype == x.dtype and out.shape == (2, 12)
    assert np.array_equal(out.reshape(-1), x.reshape(-1)) and np.shares_memory(out, x)
