"""SpaceToBatch-2 and BatchToSpace-2: the spec's reshape/transpose formulas on tiny inputs written
out by hand, the spec's examples' shapes, round trips for every element type, partial shapes, the
refusals, and OpenVINO's measured answers (attention_quantize_movement_expectations)."""

import numpy as np
import pytest

from helpers import ALL_DTYPES, Param, infer_op, raises_for, run_op, sample, shape_str
from irrun.errors import ExecutionError, ShapeError
from nn_cases import case_ids, replay

#: OpenVINO accepts these and computes garbage (its evaluators disagree, the reference crashes)
REFUSE = {"SpaceToBatch-block0": "must be 1", "SpaceToBatch-pad0": "must be 0",
          "BatchToSpace-block0": "must be 1", "BatchToSpace-crop0": "must be 0",
          "SpaceToBatch-negative-pad": "pads_begin[1] must be non-negative, got -2"}
#: OpenVINO reads a too-short index input past its end (its message quotes garbage values)
MESSAGES = {"SpaceToBatch-shape-len": "must have one value per data axis (3), got 2"}


@pytest.mark.parametrize("case", case_ids("SpaceToBatch", "BatchToSpace"))
def test_openvino_case(case):
    replay(case, REFUSE, MESSAGES)


def s2b(x, block, begin, end, params=(0,)):
    return run_op("SpaceToBatch", [x, *(np.array(v, np.int64) for v in (block, begin, end))], None, "opset2",
                  params=params)[0]


def b2s(x, block, begin, end, params=(0,)):
    return run_op("BatchToSpace", [x, *(np.array(v, np.int64) for v in (block, begin, end))], None, "opset2",
                  params=params)[0]


@pytest.mark.parametrize("params", [(0,), (0, 1, 2, 3), ()], ids=["const", "param", "folded"])
def test_space_to_batch_by_hand(params):
    # [1, 4] blocks of 2: reshape [1, 2, 2] = [[1, 2], [3, 4]], transpose [2, 0, 1] -> [[1, 3], [2, 4]]
    np.testing.assert_array_equal(s2b(np.array([[1, 2, 3, 4]]), [1, 2], [0, 0], [0, 0], params), [[1, 3], [2, 4]])
    # padded to [0, 1, 2, 0] first
    np.testing.assert_array_equal(s2b(np.array([[1, 2]]), [1, 2], [0, 1], [0, 1], params), [[0, 2], [1, 0]])
    # two batches, block 2x1 on [2, 2, 1]: out batch = block offset * 2 + batch
    x = np.array([[[1], [2]], [[3], [4]]])
    np.testing.assert_array_equal(s2b(x, [1, 2, 1], [0, 0, 0], [0, 0, 0], params)[:, 0, 0], [1, 3, 2, 4])


@pytest.mark.parametrize("params", [(0,), (0, 1, 2, 3), ()], ids=["const", "param", "folded"])
def test_batch_to_space_by_hand(params):
    np.testing.assert_array_equal(b2s(np.array([[1, 3], [2, 4]]), [1, 2], [0, 0], [0, 0], params), [[1, 2, 3, 4]])
    np.testing.assert_array_equal(b2s(np.array([[0, 2], [1, 0]]), [1, 2], [0, 1], [0, 1], params), [[1, 2]])


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_round_trip_every_type(dtype):
    x = sample((2, 4, 6, 3), dtype)
    args = ([1, 2, 3, 1], [0, 1, 0, 0], [0, 1, 3, 0])
    y = s2b(x, *args)
    assert y.dtype == x.dtype and y.shape == (12, 3, 3, 3)
    back = b2s(y, *args)
    assert back.dtype == x.dtype and (back == x).all()
    pad = s2b(x[:1, :1, :1, :1], [1, 1, 2, 1], [0, 0, 1, 0], [0, 0, 0, 0])[0, 0, 0, 0]
    assert pad == np.zeros((), x.dtype)           # zero / False / "" padding


def test_spec_examples_shapes():
    i64 = lambda *v: np.array(v, np.int64)  # noqa: E731
    (a,) = infer_op("SpaceToBatch", [Param("f32", "2,6,10,3,3"), i64(1, 2, 4, 3, 1), i64(0, 0, 1, 0, 0),
                                     i64(0, 0, 1, 0, 0)], version="opset2", params=())
    assert shape_str(a) == "[48,3,3,1,3]"
    (b,) = infer_op("BatchToSpace", [Param("f32", "48,3,3,1,3"), i64(1, 2, 4, 3, 1), i64(0, 0, 1, 0, 0),
                                     i64(0, 0, 1, 0, 0)], version="opset2", params=())
    assert shape_str(b) == "[2,6,10,3,3]"
    (c,) = infer_op("BatchToSpace", [Param("f32", "10,2"), i64(1, 5), i64(0, 2), i64(0, 0)], version="opset2", params=())
    assert shape_str(c) == "[2,8]"


@pytest.mark.parametrize("op, x, rest, want", [
    ("SpaceToBatch", "?,6,2..8", [[1, 2, 2], [0, 0, 0], [0, 0, 0]], "[?,3,1..4]"),
    ("SpaceToBatch", "8..24,6,4", [[1, 2, 2], [0, 0, 0], [0, 0, 0]], "[32..96,3,2]"),
    ("SpaceToBatch", "24,6,4", [[1, 2, 2], "3", [0, 1, 0]], "[96,?,?]"),
    ("SpaceToBatch", "24,6,4", ["3", [0, 0, 0], [0, 0, 0]], "[?,?,?]"),
    ("BatchToSpace", "?,6,2..8", [[1, 2, 2], [0, 0, 0], [0, 0, 0]], "[?,12,4..16]"),
    ("BatchToSpace", "8..24,6,4", [[1, 2, 2], [0, 0, 0], [0, 0, 0]], "[2..6,12,8]"),
    ("BatchToSpace", "24,6,4", ["3", [0, 1, 0], [0, 2, 1]], "[?,3..,3..]"),
    ("BatchToSpace", "24,6,4", [[1, 2, 2], "3", [0, 1, 0]], "[6,?,?]"),
    ("SpaceToBatch", "...", [[1, 2, 2], [0, 0, 0], [0, 0, 0]], "[...]"),
])
def test_partial_shapes(op, x, rest, want):
    ins = [Param("i64", r) if isinstance(r, str) else np.array(r, np.int64) for r in rest]
    (info,) = infer_op(op, [Param("f32", x), *ins], version="opset2", params=())
    assert shape_str(info) == want


def test_errors():
    x = np.zeros((8, 2, 3), np.float32)
    raises_for("SpaceToBatch", ShapeError, "Dimension value: [ 2, 2] must be a multiple of divisor: 4", s2b, x,
               [1, 4, 1], [0, 0, 0], [0, 0, 0])
    raises_for("SpaceToBatch", ShapeError, "block_shape values must be greater than 0", s2b, x,
               [1, 0, 1], [0, 0, 0], [0, 0, 0])
    raises_for("SpaceToBatch", ShapeError, "The data tensor with rank lower than 2 is not supported (data rank: 1)",
               s2b, np.zeros(4), [1], [0], [0])
    raises_for("SpaceToBatch", ExecutionError, "block_shape[0] must be 1", s2b, x, [2, 1, 1], [0, 0, 0], [0, 0, 0],
               params=(0, 1, 2, 3))
    raises_for("BatchToSpace", ShapeError, "Dimension value: [ 8, 8] must be a multiple of divisor: 3", b2s, x,
               [1, 3, 1], [0, 0, 0], [0, 0, 0])
    raises_for("BatchToSpace", ShapeError, "crops_begin[i] + crops_end[i] must be less or equal to block_shape[i] * "
               "input_shape[i]", b2s, x, [1, 2, 1], [0, 3, 0], [0, 2, 0])
    raises_for("BatchToSpace", ShapeError, "block_shape, crops_begin and crops_end inputs must have same element "
               "type. Got: i32, i64 and i64", run_op, "BatchToSpace",
               [x, np.array([1, 2, 1], np.int32), np.zeros(3, np.int64), np.zeros(3, np.int64)], None, "opset2")
    raises_for("BatchToSpace", ShapeError, "data input must have rank greater or equal than 2. Got: 1", b2s,
               np.zeros(4), [1], [0], [0])
