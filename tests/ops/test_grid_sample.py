"""GridSample-9: the spec's example, hand-computed samples of the spec's formulas (denormalisation,
padding modes, interpolation), partial shapes, errors, element types, and OpenVINO's answers
(tools/expectations/make_trig_bitwise_dft_sampling_expectations.py)."""
from functools import partial

import numpy as np
import pytest

from helpers import ALL_DTYPES, Param, infer_op, raises_for, run_op, shape_str
from irrun.types import elements
from irrun.errors import ShapeError, UnsupportedError
from nn_cases import case_ids, replay

rejects = partial(raises_for, "GridSample")
NUMERIC = [d for d in ALL_DTYPES if np.dtype(d) != elements.STRING_DTYPE]


@pytest.mark.parametrize("case", case_ids("GridSample"))
def test_openvino_case(case):
    replay(case)


def gs(data, grid, mode="bilinear", pad="zeros", ac=False, params=(0, 1)):
    attrs = {"mode": mode, "padding_mode": pad, "align_corners": ac}
    return run_op("GridSample", [np.asarray(data), np.asarray(grid, np.float32)], attrs, "opset9", params=params)[0]


def test_spec_example_shape():
    out = infer_op("GridSample", [Param("f32", "1,3,100,100"), Param("f32", "1,10,10,2")],
                   {"align_corners": True, "mode": "nearest", "padding_mode": "border"}, "opset9", params=())
    assert shape_str(out[0]) == "[1,3,10,10]"


IMG = np.array([[[[1, 2, 3], [4, 5, 6]]]], np.float32)        # H=2, W=3


@pytest.mark.parametrize("params", [(0, 1), ()], ids=["params", "consts"])
def test_denormalisation(params):
    """align_corners: -1/1 are the centres of the corner pixels, else their outer edges: x = -1
    is pixel -0.5 (half outside: bilinear with zeros gives half the value)."""
    corners = [[[[-1, -1], [1, -1], [-1, 1], [1, 1], [0, 0]]]]
    np.testing.assert_allclose(gs(IMG, corners, ac=True, params=params), [[[[1, 3, 4, 6, 3.5]]]])
    np.testing.assert_allclose(gs(IMG, corners, ac=False, params=params), [[[[0.25, 0.75, 1, 1.5, 3.5]]]])
    np.testing.assert_allclose(gs(IMG, corners, pad="border", ac=False, params=params), [[[[1, 3, 4, 6, 3.5]]]])


def test_padding_modes_by_index():
    """Padding acts on pixel indices: grid x = 1.75 is pixel 2.75 (W=3, align: (v+1)*(W-1)/2),
    between pixels 2 and 3 (weights 0.25, 0.75); pixel 3 is 0 with zeros, 2 with border, 1 with
    reflection (align_corners: period 2*(W-1) = 4)."""
    g = [[[[1.75, -1]]]]
    row = np.array([[[[10, 20, 40]]]], np.float32)
    np.testing.assert_allclose(gs(row, g, pad="zeros", ac=True), [[[[0.25 * 40]]]], rtol=1e-5)
    np.testing.assert_allclose(gs(row, g, pad="border", ac=True), [[[[40]]]], rtol=1e-5)
    np.testing.assert_allclose(gs(row, g, pad="reflection", ac=True), [[[[0.25 * 40 + 0.75 * 20]]]], rtol=1e-5)


def test_nearest_rounds_half_to_even():
    """x = 0.5 and 1.5 (W=3, align_corners) -> pixels 0 and 2."""
    out = gs([[[[10, 20, 40]]]], [[[[-0.5, -1], [0.5, -1]]]], mode="nearest", pad="border", ac=True)
    np.testing.assert_array_equal(out, [[[[10, 40]]]])


def test_bicubic_at_a_pixel_is_the_pixel():
    """At an integer position the cubic weights are 0, 1, 0, 0."""
    x = np.arange(20, dtype=np.float32).reshape(1, 1, 4, 5)
    out = gs(x, [[[[-1, -1], [0, 1 / 3], [1, 1]]]], mode="bicubic", pad="border", ac=True)
    np.testing.assert_allclose(out, [[[[0, 12, 19]]]], atol=1e-5)


@pytest.mark.parametrize("dtype", NUMERIC, ids=lambda d: np.dtype(d).name)
def test_nearest_moves_every_type(dtype):
    """Nearest sampling at pixel centres is a gather: every numeric type and booleans."""
    data = (np.arange(6).reshape(1, 1, 2, 3) % 2).astype(dtype) if np.dtype(dtype) == np.bool_ else \
        np.arange(6).reshape(1, 1, 2, 3).astype(dtype)
    out = gs(data, [[[[1, 1], [-1, -1], [0, -1]]]], mode="nearest", ac=True)
    assert out.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(out, data.reshape(-1)[[5, 0, 1]].reshape(1, 1, 1, 3))


def test_strings_are_refused():
    data = np.array([[[["a", "b"]]]], dtype=elements.STRING_DTYPE)
    rejects(UnsupportedError, "irrun does not run GridSample on string data", gs, data, [[[[0, 0]]]])


def test_shapes():
    attrs = {"mode": "bilinear"}
    out = infer_op("GridSample", [Param("f32", "?,3,?,?"), Param("f32", "2..4,5,?,2")], attrs, "opset9", params=())
    assert shape_str(out[0]) == "[2..4,3,5,?]"
    out = infer_op("GridSample", [Param("f32", "..."), Param("f32", "2,5,6,2")], attrs, "opset9", params=())
    assert shape_str(out[0]) == "[2,?,5,6]"


@pytest.mark.parametrize("data, grid, message", [
    ("2,3,4,4", "3,5,6,2", "The batch dimension in the input data tensor's shape doesn't match"),
    ("2,3,4,4", "2,5,6,3", "The last dimension of grid tensor's shape has to be equal to 2."),
    ("2,3,4", "2,5,6,2", "The supported shape of the input data tensor is 4D."),
    ("2,3,4,4", "2,6,2", "The supported shape of the grid tensor is 4D.")])
def test_shape_errors(data, grid, message):
    rejects(ShapeError, message, infer_op, "GridSample", [Param("f32", data), Param("f32", grid)], {}, "opset9", params=())


def test_run_time_batch_mismatch():
    rejects(ShapeError, "The batch dimension", gs, np.zeros((2, 1, 3, 3), np.float32), np.zeros((1, 2, 2, 2)))


def test_empty_image_is_refused_by_name():
    # found by tests/test_ops_robustness.py: sampling (1,2,4,0) data at one point read index -1
    raises_for("GridSample", UnsupportedError, "no pixels", gs, np.zeros((1, 2, 4, 0), np.float32),
               np.zeros((1, 1, 1, 2)), "bicubic", "reflection")
