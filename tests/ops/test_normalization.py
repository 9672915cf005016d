"""MVN-1 ("opset2") and MVN-6, NormalizeL2-1, BatchNormInference-1/5, GroupNormalization-12:
hand-computed values on tiny inputs and the OpenVINO measurements (nn_cases)."""
import numpy as np
import pytest

from helpers import Param, infer_op, raises_for, run_op, shape_str
from irrun.types import elements
from irrun.errors import ShapeError, UnsupportedError
from nn_cases import case_ids, rejects, replay

FLOATS = [np.float32, np.float64, np.float16, elements.TYPES["bf16"].dtype]
#: OpenVINO builds these; its CPU plugin then fails ("Axis 4 out of the tensor rank range")
REFUSE = {"MVN6-shape-axis-range": "Axis 4 out of the tensor rank range [-4, 3].",
          "MVN6-axis-out-of-range": "Axis 4 out of the tensor rank range [-4, 3]."}
X13 = np.array([[1, 2, 3]], np.float32)
S23 = np.sqrt(2 / 3)


@pytest.mark.parametrize("case", case_ids("MVN", "NormalizeL2", "BatchNormInference", "GroupNormalization"))
def test_openvino_case(case):
    replay(case, REFUSE)


# ---------------------------------------------------------------------------------------------
# MVN

def mvn6(x, axes, eps=0.0, mode="inside_sqrt", variance=True, params=(0,)):
    return run_op("MVN", [x, np.array(axes, np.int64)], {"normalize_variance": variance, "eps": eps,
                  "eps_mode": mode}, "opset6", params=params)[0]


@pytest.mark.parametrize("params", [(0,), (0, 1)])
@pytest.mark.parametrize("kw, want", [
    (dict(), [-1 / S23, 0, 1 / S23]),                                     # (x - 2) / sqrt(2/3)
    (dict(eps=1.0, mode="outside_sqrt"), [-1 / (S23 + 1), 0, 1 / (S23 + 1)]),
    (dict(eps=1.0), [-1 / np.sqrt(2 / 3 + 1), 0, 1 / np.sqrt(2 / 3 + 1)]),
    (dict(variance=False), [-1, 0, 1]),
])
def test_mvn6(kw, want, params):
    np.testing.assert_allclose(mvn6(X13, [-1], params=params, **kw)[0], want, rtol=1e-6)


@pytest.mark.parametrize("dtype", FLOATS)
def test_mvn6_float_types(dtype):
    out = mvn6(X13.astype(dtype), [1], variance=False)
    assert out.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(out.astype(np.float32), [[-1, 0, 1]])


@pytest.mark.parametrize("version", ["opset1", "opset2"])          # "opset1" is read as opset2
@pytest.mark.parametrize("across, want", [
    (False, [[-1, 1], [-1, 1]]),
    (True, np.array([[-3, -1], [1, 3]]) / np.sqrt(5)),                # over both channels: mean 4, var 5
])
def test_mvn1(across, want, version):
    x = np.array([[[1, 3], [5, 7]]], np.float32)
    out = run_op("MVN", [x], {"across_channels": across, "normalize_variance": True, "eps": 0.0}, version)[0]
    np.testing.assert_allclose(out[0], want, rtol=1e-6)


def test_mvn_integer_data_is_refused():
    raises_for("MVN", UnsupportedError, "irrun runs MVN on floating-point data only", infer_op, "MVN",
               [Param("i32", "2,3"), np.array([1])], {"normalize_variance": True, "eps": 0.1, "eps_mode": "inside_sqrt"},
               "opset6", params=())


def test_mvn6_runtime_axes_keep_the_shape():
    info = infer_op("MVN", [Param("f32", "2,?,4"), Param("i64", "?")], {"normalize_variance": True, "eps": 0.1,
                    "eps_mode": "inside_sqrt"}, "opset6", params=())[0]
    assert shape_str(info) == "[2,?,4]"


# ---------------------------------------------------------------------------------------------
# NormalizeL2

@pytest.mark.parametrize("params", [(0,), (0, 1)])
@pytest.mark.parametrize("eps, mode, want", [
    (0.0, "max", [0.6, 0.8]), (100.0, "max", [0.3, 0.4]), (11.0, "add", [0.5, 4 / 6]), (1e-6, "add", [0.6, 0.8]),
])
def test_normalize_l2(eps, mode, want, params):
    out = run_op("NormalizeL2", [np.array([[3, 4]], np.float32), np.array([1], np.int64)],
                 {"eps": eps, "eps_mode": mode}, params=params)[0]
    np.testing.assert_allclose(out[0], want, rtol=1e-6)


def test_normalize_l2_without_axes_keeps_zero_and_drops_the_sign():
    out = run_op("NormalizeL2", [np.array([-2, 0, 3], np.float32), np.zeros(0, np.int64)], {"eps": 1.0, "eps_mode": "add"})[0]
    np.testing.assert_array_equal(out, [1, 0, 1])


@pytest.mark.parametrize("dtype", FLOATS)
def test_normalize_l2_float_types(dtype):
    out = run_op("NormalizeL2", [np.array([[3, 4]], dtype), np.array(1, np.int64)], {"eps": 0.0, "eps_mode": "max"})[0]
    assert out.dtype == np.dtype(dtype)
    np.testing.assert_allclose(out.astype(np.float32), [[0.6, 0.8]], rtol=1e-2)


# ---------------------------------------------------------------------------------------------
# BatchNormInference

BN = dict(x=np.array([[[1], [2]]], np.float32), gamma=np.array([2, 3], np.float32), beta=np.array([1, 0.5], np.float32),
          mean=np.array([0, 1], np.float32), var=np.array([3, 0], np.float32))
BN_OUT = [[2], [3.5]]           # 2 * (1 - 0) / sqrt(3 + 1) + 1, 3 * (2 - 1) / sqrt(0 + 1) + 0.5


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("version", ["opset1", "opset5"])
def test_batch_norm(version, dtype):
    b = {k: v.astype(dtype) for k, v in BN.items()}
    order = ["gamma", "beta", "x", "mean", "var"] if version == "opset1" else ["x", "gamma", "beta", "mean", "var"]
    out = run_op("BatchNormInference", [b[k] for k in order], {"epsilon": 1.0}, version,
                 params=(order.index("x"),))[0]
    assert out.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(out[0].astype(np.float32), BN_OUT)


def test_batch_norm_merges_the_channel_dim():
    info = infer_op("BatchNormInference", [Param("f32", "?,?,4"), Param("f32", "?"), Param("f32", "5"),
                    Param("f32", "?"), Param("f32", "?")], {"epsilon": 0.1}, "opset5", params=())[0]
    assert shape_str(info) == "[?,5,4]"


# ---------------------------------------------------------------------------------------------
# GroupNormalization

@pytest.mark.parametrize("params", [(0,), (0, 1, 2)])
@pytest.mark.parametrize("groups, want", [
    (1, [[-3 / np.sqrt(5), -1 / np.sqrt(5)], [2 / np.sqrt(5) + 1, 6 / np.sqrt(5) + 1]]),   # mean 4, var 5
    (2, [[-1, 1], [-1, 3]]),                                                              # per channel
])
def test_group_normalization(groups, want, params):
    x = np.array([[[1, 3], [5, 7]]], np.float32)
    out = run_op("GroupNormalization", [x, np.array([1, 2], np.float32), np.array([0, 1], np.float32)],
                 {"num_groups": groups, "epsilon": 0.0}, "opset12", params=params)[0]
    np.testing.assert_allclose(out[0], want, rtol=1e-6)


def test_group_normalization_groups_must_divide_the_channels():
    raises_for("GroupNormalization", ShapeError, "evenly divisible by the number of groups", infer_op,
               "GroupNormalization", [Param("f32", "1,6,2"), Param("f32", "6"), Param("f32", "6")],
               {"num_groups": 4, "epsilon": 0.0}, "opset12", params=())


def test_out_of_range_axes():
    # OpenVINO loads MVN-6 with such axes (its CPU plugin fails when running); NormalizeL2 not
    assert rejects("MVN6-axis-out-of-range", "Axis 4 out of the tensor rank range").openvino_loads
    err = raises_for("NormalizeL2", ShapeError, "Axis 3 out of the tensor rank range [-3, 2].", infer_op,
                     "NormalizeL2", [Param("f32", "2,3,4"), np.array([3])], {"eps": 0.1, "eps_mode": "add"}, params=())
    assert not err.openvino_loads
