"""FakeQuantize-1: the spec formula on hand-computed inputs, half-to-even rounding, the limits'
broadcasting, the refusals, and OpenVINO's measured answers (attention_quantize_movement_expectations: the reference
kernel, Node.evaluate, where it and the CPU plugin disagree)."""

import numpy as np
import pytest

import irrun
from helpers import Param, infer_op, raises_for, run_op, shape_str
from irrun.types import elements
from irrun.errors import ShapeError, UnsupportedError
from irrun.ir.builder import IRWriter
from nn_cases import case_ids, entry, replay

BF16 = elements.TYPES["bf16"].dtype
FLOATS = [np.float64, np.float32, np.float16, BF16]
#: OpenVINO builds these but computes garbage (or crashes, or has no formula): irrun refuses
REFUSE = {
    "FakeQuantize-pdpd-2d": "auto_broadcast pdpd",
    "FakeQuantize-shape-pdpd": "auto_broadcast pdpd",
    "FakeQuantize-big-limit": "does not broadcast to the data shape",
    "FakeQuantize-shape-bigger-limit": "does not broadcast to the data shape",
    "FakeQuantize-levels1": "levels must be at least 2",
    "FakeQuantize-i32": "irrun does not support FakeQuantize on i32",
    "FakeQuantize-shape-mixed-types": "reads the limit's bytes as the data's type",
}
rejects = lambda *a, **k: raises_for("FakeQuantize", *a, **k)  # noqa: E731


@pytest.mark.parametrize("case", case_ids("FakeQuantize"))
def test_openvino_case(case):
    replay(case, REFUSE)


def test_the_fixture_holds_the_reference_where_the_cpu_plugin_differs():
    assert entry("FakeQuantize-equal-input")["oracle"] == "reference"     # the CPU plugin gives NaN
    assert entry("FakeQuantize-ties")["oracle"] == "cpu"                   # both agree


def fq(x, lims, levels, ab="numpy", params=(0,)):
    x = np.asarray(x)
    ins = [x, *(np.asarray(v, x.dtype) for v in lims)]
    return run_op("FakeQuantize", ins, {"levels": levels, "auto_broadcast": ab}, params=params)[0]


@pytest.mark.parametrize("dtype", FLOATS, ids=["f64", "f32", "f16", "bf16"])
def test_spec_formula(dtype):
    # levels 3 on [-1, 1] -> {0, 1, 2}: round((x + 1) / 2 * 2) / 2 * 2 + 0
    x = np.linspace(-2, 2, 9).astype(dtype)
    out = fq(x, (-1, 1, 0, 2), 3)
    assert out.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(out.astype(np.float32), [0, 0, 0, 0, 1, 2, 2, 2, 2])


def test_rounds_half_to_even():
    x = np.array([0.5, 1.5, 2.5, 3.5, 253.5, 254.5, 255.5, -0.0], np.float32)
    np.testing.assert_array_equal(fq(x, (0, 255, 0, 255), 256), [0, 2, 2, 4, 254, 254, 255, 0])


def test_nan_and_equal_limits_follow_the_reference_kernel():
    x = np.array([np.nan, -1, 0.5, 0.7], np.float32)
    np.testing.assert_array_equal(fq(x, (0, 1, 0, 1), 3), [np.nan, 0, 0.5, 0.5])
    np.testing.assert_array_equal(fq(x, (0.5, 0.5, -1, 1), 3), [np.nan, -1, -1, 1])   # x <= il -> ol


def test_inverted_output_range():
    x = np.array([-1, 0.3, 0.7, 2], np.float32)
    np.testing.assert_array_equal(fq(x, (0, 1, 1, -1), 3), [1, 0, 0, -1])


@pytest.mark.parametrize("params", [(0,), (0, 1, 2, 3, 4)], ids=["const-limits", "param-limits"])
def test_per_channel_limits(params):
    x = np.array([[[0.2, 0.6]], [[0.2, 0.6]]], np.float32)          # [2, 1, 2], two channels
    il = np.array([0, 0], np.float32).reshape(2, 1, 1)
    ih = np.array([1, 2], np.float32).reshape(2, 1, 1)
    ol, oh = np.float32(0).reshape(1, 1, 1), np.array([10, 20], np.float32).reshape(2, 1, 1)
    out = run_op("FakeQuantize", [x, il, ih, ol, oh], {"levels": "3"}, params=params)[0]
    # channel 0: steps of 0.5 on [0, 1] -> 0.6 is step 1 of 2 -> 5; channel 1: steps of 1 on [0, 2] -> 10
    np.testing.assert_array_equal(out, [[[0, 5]], [[0, 10]]])


def test_limits_with_leading_ones_and_auto_broadcast_none():
    x = np.array([[0.1, 0.6]], np.float32)
    lims = [np.full((1, 1, 1, 2), v, np.float32) for v in (0, 1, 0, 1)]
    np.testing.assert_array_equal(run_op("FakeQuantize", [x, *lims], {"levels": "2"})[0], [[0, 1]])
    np.testing.assert_array_equal(fq(x, [np.full((1, 2), v) for v in (0, 1, 0, 1)], 2, "none"), [[0, 1]])


def test_scalar_data():
    assert fq(np.float32(0.26), (0, 1, 0, 1), 5) == np.float32(0.25)


@pytest.mark.parametrize("x, lims, ab, want", [
    ("?,3,2..5", ["1,3,1", "1", "1", "1"], "numpy", "[?,3,2..5]"),
    ("...", ["1,3,1", "1", "1", "1"], "numpy", "[...]"),
    ("2,3", ["...", "1", "1", "1"], "numpy", "[2,3]"),
    ("?,3", ["2,3", "2,3", "2,3", "2,3"], "none", "[?,3]"),     # the data's shape, not the merge
])
def test_partial_shapes(x, lims, ab, want):
    ins = [Param("f32", x), *(Param("f32", s) for s in lims)]
    (info,) = infer_op("FakeQuantize", ins, {"levels": "256", "auto_broadcast": ab}, params=())
    assert shape_str(info) == want


def test_errors():
    x = np.zeros((2, 3), np.float32)
    one = [np.zeros(1, np.float32)] * 3
    rejects(ShapeError, "Argument shapes are inconsistent.", run_op, "FakeQuantize",
            [x, np.zeros(4, np.float32), *one], {"levels": "3"})
    # merged in turn: [?, 3] with [2, 3] then [5, 3]
    rejects(ShapeError, "Argument shapes are inconsistent.", infer_op, "FakeQuantize",
            [Param("f32", "?,3"), Param("f32", "2,3"), Param("f32", "5,3"), Param("f32", "1"), Param("f32", "1")],
            {"levels": "3"}, params=())
    rejects(ShapeError, "levels must be at least 2", run_op, "FakeQuantize", [x, *one, one[0]], {"levels": "0"})
    rejects(UnsupportedError, "does not support FakeQuantize on i32", run_op, "FakeQuantize",
            [x.astype(np.int32), *(np.zeros(1, np.int32),) * 4], {"levels": "3"})
    rejects(ShapeError, "input_high is f16, the data f32", run_op, "FakeQuantize",
            [x, one[0], np.zeros(1, np.float16), *one[:2]], {"levels": "3"})
    rejects(ShapeError, "does not broadcast to the data shape", run_op, "FakeQuantize",
            [x, np.zeros((4, 2, 3), np.float32), *one], {"levels": "3"})


def test_runtime_limit_shapes_are_checked_like_constant_ones(tmp_path):
    b = IRWriter("dyn")
    lims = [b.parameter("il", "f32", "?,?,?")] + [b.const(np.float32(v)) for v in (1, 0, 1)]
    y = b.layer("FakeQuantize", [b.parameter("x", "f32", "2,3"), *lims], {"levels": "3"})
    b.result(y, "y")
    model = irrun.read_model(b.save(tmp_path / "dyn.xml"))
    x = np.array([[0, 0.3, 0.6], [0.8, 1, 2]], np.float32)
    np.testing.assert_array_equal(model.run({"x": x, "il": np.zeros((1, 1, 3), np.float32)})["y"],
                                  [[0, 0.5, 0.5], [1, 1, 1]])
    rejects(ShapeError, "does not broadcast to the data shape", model.run,
            {"x": x, "il": np.zeros((4, 2, 3), np.float32)})
