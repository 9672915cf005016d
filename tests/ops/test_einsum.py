"""Einsum-7: the einsum-7.rst examples 1-8 and its shape examples, ellipsis broadcasting, diagonals,
implicit mode, OpenVINO's equation checks and shape rule (measured with 2026.4.1), element types,
and the CPU-plugin measurements of tools/expectations/make_select_expectations.py (the reference evaluator has
no Einsum kernel)."""
from functools import partial

import numpy as np
import pytest

from helpers import ALL_DTYPES, Param, infer_op, raises_for, run_op, shape_str
from irrun.types import elements
from irrun.errors import OpError, ShapeError
from irrun.ops.einsum import Einsum7
from nn_cases import case_ids, replay

NUMERIC = [d for d in ALL_DTYPES if np.dtype(d) not in (np.dtype(np.bool_), elements.STRING_DTYPE)]
#: OpenVINO infers a shape for a repeated output label but cannot evaluate it (CPU: "Input order
#: must have shape [n]")
REFUSE = {"Einsum-shape-out-repeated": "repeats a label", "Einsum-shape-implicit-repeated": "repeats a label",
          "Einsum-shape-spec-implicit": "repeats a label"}
A3 = np.arange(1, 10, dtype=np.float32).reshape(3, 3)
rejects = partial(raises_for, "Einsum")


@pytest.mark.parametrize("case", case_ids("Einsum"))
def test_openvino_case(case):
    replay(case, REFUSE)


def einsum(equation, *xs, params=None):
    xs = [np.asarray(x) for x in xs]
    return run_op("Einsum", xs, {"equation": equation}, "opset7", params=tuple(range(len(xs))) if params is None else params)[0]


def eshape(equation, *shapes, etype="f32"):
    return shape_str(infer_op("Einsum", [Param(etype, s) for s in shapes], {"equation": equation}, "opset7", params=())[0])


@pytest.mark.parametrize("params", [None, ()], ids=["params", "const"])
@pytest.mark.parametrize("equation, inputs, out", [
    ("i,i->", [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], 32.0),                                             # example 1
    ("ij,j->i", [[[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]], [4.0, 5.0, 6.0]], [32.0, 32.0]),                 # example 2
    ("kii->k", [[A3, 2 * A3]], [15.0, 30.0]),                                                        # example 3
    ("kii->ki", [[A3, 2 * A3]], [[1.0, 5.0, 9.0], [2.0, 10.0, 18.0]]),                               # example 4
    ("ijk->kij", [[A3]], [[[1.0, 4.0, 7.0]], [[2.0, 5.0, 8.0]], [[3.0, 6.0, 9.0]]]),                 # example 5
    ("a...->...", [A3], [12.0, 15.0, 18.0]),                                                         # example 6
    ("a...,...->a...", [A3, [0.5]], [[0.5, 1.0, 1.5], [2.0, 2.5, 3.0], [3.5, 4.0, 4.5]]),            # example 7
    ("AbC", [[[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]]], [[[1.0, 4.0], [2.0, 5.0], [3.0, 6.0]]]),         # example 8
])
def test_spec_examples(equation, inputs, out, params):
    res = einsum(equation, *[np.asarray(x, np.float32) for x in inputs], params=params)
    assert res.dtype == np.float32
    np.testing.assert_allclose(res, out)


@pytest.mark.parametrize("equation, shapes, out", [
    ("ij,ij->i", ["2,64", "2,64"], "[2]"),                                    # the spec's XML examples
    ("ab...,ac...,ade->...bc", ["2,3,4", "2,7,1", "2,4,7"], "[4,3,7]"),
    ("a...b,b...->a...", ["9,1,4,3", "3,11,7,1"], "[9,11,7,4]"),              # the spec's broadcasting example
    ("ab,bcd,bc->ca", ["2,5", "5,3,6", "5,3"], "[3,2]"),
    ("ijkj->ij", ["2,4,5,4"], "[2,4]"),
    ("ij,jk->ik", ["?,4", "4,?"], "[?,?]"),                                   # measured from here on
    ("ij,jk->jik", ["3,2..8", "4..10,5"], "[4..8,3,5]"),
    ("ij,jk->ik", ["...", "4,5"], "[?,5]"),
    ("...ij,jk->...ik", ["...", "4,5"], "[...]"),
    ("...ij,...jk->...ik", ["?,1,3,4", "5,4,2"], "[?,5,3,2]"),
    ("ij,ik->ijk", ["1..3,4", "2..5,6"], "[2..5,4,6]"),
    ("ij,ik->ijk", ["1,4", "?,6"], "[?,4,6]"),
    ("ii->i", ["2..5,3..8"], "[3..5]"),
    ("ij->...i", ["3,4"], "[3]"),
])
def test_shapes(equation, shapes, out):
    assert eshape(equation, *shapes) == out


@pytest.mark.parametrize("equation, shapes, fragment", [
    ("ij,jk->ik", ["3,4", "5,6"], "Different input dimensions indicated by the same labels for Einsum must be broadcastable."),
    ("...i,...i->...", ["2,3", "4,3"], "Input dimensions labeled with ellipsis for Einsum must be broadcastable."),
    ("ii->i", ["3,4"], "repeated labels within single input node for Einsum must be compatible."),
    ("ijk->i", ["3,4"], "Input rank must be greater or equal to a number of labels"),
    ("ij->i", ["3,4,5"], "Input rank must be greater or equal to a number of labels"),
    ("ij->k", ["3,4"], "Label in output subscript of Einsum equation must enter at least one input subscript."),
    ("ij,jk->ik", ["3,4"], "Equation must contain a number of subscripts equal to a number of Einsum inputs."),
    ("ij,->ij", ["3,4"], "Equation must contain a number of subscripts equal to a number of Einsum inputs."),
    ("i1,jk->ik", ["3,4", "4,5"], "Input subscript of Einsum equation must consist of either only alphabetic letters"),
    ("......i->i", ["3,4"], "Input subscript of Einsum equation must consist of either only alphabetic letters"),
    (" ij , jk -> ki ", ["2,3", "3,4"], "Input subscript of Einsum equation must consist"),   # blanks: OpenVINO's reader refuses them
    ("ij->j.", ["3,4"], "Output subscript of Einsum equation must consist of either only alphabetic letters"),
    ("ij->ii", ["3,3"], "repeats a label"),                    # OpenVINO infers [3,3], cannot evaluate it
    ("ii", ["3,3"], "repeats a label"),                        # implicit: "ii" keeps both labels
    # the spec calls this "dbbc,ca->ad"; OpenVINO's parser keeps the repeated b: "abbd", [5,4,4,2]
    ("dbbc,ca", ["2,4,4,3", "3,5"], "output subscript abbd repeats a label"),
])
def test_rejected(equation, shapes, fragment):
    rejects(ShapeError, fragment, eshape, equation, *shapes)


@pytest.mark.parametrize("etypes, fragment", [(["f32", "f16"], "Inputs to Einsum operation must have the same type."),
                                              (["boolean"], "The input type for Einsum operation must be numeric."),
                                              (["string"], "The input type for Einsum operation must be numeric.")])
def test_types_rejected(etypes, fragment):
    eq = "ij,jk->ik" if len(etypes) == 2 else "ij->ji"
    shapes = ["2,3", "3,4"]
    rejects(ShapeError, fragment, infer_op, "Einsum", [Param(t, s) for t, s in zip(etypes, shapes)],
            {"equation": eq}, "opset7", params=())


def test_ellipsis_broadcast_and_sum():
    a = np.arange(6, dtype=np.float32).reshape(2, 1, 3)
    b = np.ones((4, 3), np.float32)
    np.testing.assert_array_equal(einsum("...i,...i->...", a, b), [[3, 3, 3, 3], [12, 12, 12, 12]])
    # ellipsis dims left out of the output are summed (measured on the CPU plugin)
    np.testing.assert_array_equal(einsum("...i->i", np.arange(12, dtype=np.float32).reshape(2, 2, 3)), [18, 22, 26])


def test_size_one_label_broadcasts():
    a = np.array([[1], [2]], np.float32)                  # j = 1 broadcasts against j = 3
    b = np.array([[1, 2], [3, 4], [5, 6]], np.float32)
    np.testing.assert_array_equal(einsum("ij,jk->ik", a, b), [[9, 12], [18, 24]])


def test_diagonals_and_implicit_mode():
    x = np.arange(27, dtype=np.float32).reshape(3, 3, 3)
    np.testing.assert_array_equal(einsum("iii->i", x), [0, 13, 26])
    np.testing.assert_array_equal(einsum("ij,jk", A3, np.eye(3, dtype=np.float32)), A3)     # -> "ik"
    np.testing.assert_array_equal(einsum("ba", A3), A3.T)                                    # -> "ab"
    np.testing.assert_array_equal(einsum(",ij->ij", np.float32(2), A3), 2 * A3)


@pytest.mark.parametrize("dtype", NUMERIC, ids=str)
def test_every_numeric_type(dtype):
    a = np.array([[1, 2], [3, 4]]).astype(dtype)
    b = np.array([[1, 0], [1, 1]]).astype(dtype)
    out = einsum("ij,jk->ik", a, b)
    assert out.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(out.astype(np.float64), [[3, 2], [7, 4]])


def test_integers_saturate_and_f16_sums_in_f32():
    # the CPU plugin saturates i8/u8 results (measured) and sums f16 in f32: 3000 x 0.01 = 29.98
    np.testing.assert_array_equal(einsum("ij,jk->ik", np.full((1, 50), -5, np.int8), np.full((50, 1), 3, np.int8)), [[-128]])
    np.testing.assert_array_equal(einsum("ij,jk->ik", np.full((1, 50), 5, np.uint8), np.full((50, 1), 3, np.uint8)), [[255]])
    f16 = einsum("ij,jk->ik", np.full((1, 3000), 0.1, np.float16), np.full((3000, 1), 0.1, np.float16))
    assert f16.dtype == np.float16 and abs(float(f16[0, 0]) - 29.98) < 0.05
    big = einsum("i->", np.array([2**40, 1], np.int64))
    assert big == 2**40 + 1


def test_runtime_shapes_checked_by_the_kernel():
    # a Parameter "?,4" lets any first dim through shape inference; the kernel re-applies the rule
    with pytest.raises(OpError, match="same labels for Einsum must be broadcastable"):
        Einsum7(equation="ij,jk->ik").run(np.zeros((3, 4), np.float32), np.zeros((5, 6), np.float32))
