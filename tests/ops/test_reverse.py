"""Reverse-1 and ReverseSequence-1: flips written out by hand, both modes of Reverse (a view),
per-batch lengths of ReverseSequence on either axis order, every element type, partial shapes,
the errors, and OpenVINO's measured answers (attention_quantize_movement_expectations)."""

import numpy as np
import pytest

from helpers import ALL_DTYPES, Param, infer_op, raises_for, run_op, sample, shape_str
from irrun.errors import ExecutionError, ShapeError
from nn_cases import case_ids, replay

X = np.array([[1, 2, 3], [4, 5, 6]], np.float32)
REFUSE = {"ReverseSequence-same-axes-square": "batch_axis and seq_axis are the same axis"}
#: the CPU plugin's run-time refusal (OpenVINO has no reference kernel)
RUNTIME = {"ReverseSequence-too-long", "ReverseSequence-negative-len"}


@pytest.mark.parametrize("case", case_ids("Reverse", "ReverseSequence"))
def test_openvino_case(case):
    replay(case, REFUSE)


@pytest.mark.parametrize("case", sorted(RUNTIME))
def test_lengths_out_of_range_are_refused_like_the_cpu_plugin(case):
    from nn_cases import rejects
    assert "Incorrect input 'seq_lengths' values!" in rejects(case, "Incorrect input 'seq_lengths' values!",
                                                              ExecutionError).message


def reverse(x, axes, mode="index", params=(0,)):
    return run_op("Reverse", [x, axes], {"mode": mode}, params=params)[0]


def reverse_sequence(x, lens, params=(0,), **a):
    return run_op("ReverseSequence", [x, np.asarray(lens)], {k: str(v) for k, v in a.items()}, params=params)[0]


@pytest.mark.parametrize("params", [(0,), (0, 1), ()], ids=["const", "param", "folded"])
@pytest.mark.parametrize("axes, mode, want", [
    (np.array([1]), "index", [[3, 2, 1], [6, 5, 4]]),
    (np.array([-2]), "index", [[4, 5, 6], [1, 2, 3]]),
    (np.array([0, 1, 1], np.int32), "index", [[6, 5, 4], [3, 2, 1]]),
    (np.zeros(0, np.int64), "index", [[1, 2, 3], [4, 5, 6]]),
    (np.array([True, False]), "mask", [[4, 5, 6], [1, 2, 3]]),
    (np.array([False, False]), "mask", [[1, 2, 3], [4, 5, 6]]),
])
def test_reverse(axes, mode, want, params):
    np.testing.assert_array_equal(reverse(X, axes, mode, params), want)


def test_reverse_is_a_view():
    from irrun.ops.reverse import Reverse1
    x = np.arange(6).reshape(2, 3)
    out = Reverse1(mode="index").run(x, np.array([0, 1]))[0]
    assert np.shares_memory(out, x) and (out == x[::-1, ::-1]).all()


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_every_type(dtype):
    x = sample((2, 3), dtype)
    assert (reverse(x, np.array([1])) == x[:, ::-1]).all()
    out = reverse_sequence(x, [2, 3])
    assert out.dtype == x.dtype and (out == x[:, [[1, 0, 2], [2, 1, 0]]][[0, 1], [0, 1]]).all()


@pytest.mark.parametrize("params", [(0,), (0, 1), ()], ids=["const", "param", "folded"])
def test_reverse_sequence(params):
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    # batch 0 reverses 2, batch 1 all 4, batch 2 none (0 and 1 change nothing)
    np.testing.assert_array_equal(reverse_sequence(x, np.array([2, 4, 0]), params),
                                  [[1, 0, 2, 3], [7, 6, 5, 4], [8, 9, 10, 11]])
    # batch axis 1, sequence axis 0, negative spelling
    np.testing.assert_array_equal(reverse_sequence(x.T, np.array([2, 4, 1], np.int32), params, batch_axis=-1,
                                                   seq_axis=-2), [[1, 7, 8], [0, 6, 9], [2, 5, 10], [3, 4, 11]])
    # float lengths truncate
    np.testing.assert_array_equal(reverse_sequence(x, np.array([2.9, 1, 3], np.float32), params)[2], [10, 9, 8, 11])


def test_reverse_sequence_three_axes():
    x = np.arange(2 * 3 * 2).reshape(2, 3, 2)
    out = reverse_sequence(x, [3, 2], batch_axis=2, seq_axis=1)
    np.testing.assert_array_equal(out[:, :, 0], x[:, ::-1, 0])
    np.testing.assert_array_equal(out[:, :, 1], x[:, [1, 0, 2], 1])


def test_shapes():
    assert shape_str(infer_op("Reverse", [Param("f32", "?,3"), np.array([0])], {"mode": "index"})[0]) == "[?,3]"
    assert shape_str(infer_op("Reverse", [Param("f32", "..."), Param("i64", "?")], {"mode": "index"})[0]) == "[...]"
    assert shape_str(infer_op("ReverseSequence", [Param("f32", "?,5,3"), Param("i64", "4")])[0]) == "[4,5,3]"
    assert shape_str(infer_op("ReverseSequence", [Param("f32", "..."), Param("i64", "4")])[0]) == "[...]"


def test_errors():
    rejects = raises_for
    rejects("Reverse", ShapeError, "Some of the provided axes (AxisSet{3}) are out of bounds (input rank: 2).",
            reverse, X, np.array([3]))
    rejects("Reverse", ExecutionError, "Some of the provided axes (AxisSet{-3}) are out of bounds", reverse, X,
            np.array([-3]), params=(0, 1))
    rejects("Reverse", ShapeError, "The number of elements in the reversed_axes tensor (3) must match the input "
            "data tensor rank (2) in 'mask' mode.", reverse, X, np.array([True] * 3), "mask")
    rejects("Reverse", ShapeError, "In 'mask' mode the second input must contain boolean values.", reverse, X,
            np.array([1, 0]), "mask")
    rejects("Reverse", ShapeError, "In 'index' mode the second input must contain integer values.", reverse, X,
            np.array([True]))
    rejects("Reverse", ShapeError, "The reversed_axes input must be a 1D tensor (got 2).", reverse, X, np.array([[1]]))
    rejects("ReverseSequence", ShapeError, "Sequence lengths input size (3) is not equal to batch axis dimension of "
            "data input (2)", reverse_sequence, X, [1, 1, 1])
    rejects("ReverseSequence", ShapeError, "Axis 2 out of the tensor rank range [-2, 1].", reverse_sequence, X,
            [1, 1], seq_axis=2)
    rejects("ReverseSequence", ShapeError, "Sequence lengths element type must be numeric type. Got: boolean",
            reverse_sequence, X, [True, False])
    rejects("ReverseSequence", ShapeError, "Sequence lengths rank must be equal to 1. Got: [2,1]",
            reverse_sequence, X, [[1], [1]])
    rejects("ReverseSequence", ShapeError, "batch_axis and seq_axis are the same axis (1)", reverse_sequence,
            X, [1, 1, 1], batch_axis=1, seq_axis=1)
    rejects("ReverseSequence", ExecutionError, "Incorrect input 'seq_lengths' values!", reverse_sequence, X,
            [1, 4], params=(0, 1))
