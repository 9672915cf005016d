"""DFT-7, IDFT-7, RDFT-9, IRDFT-9: every shape example of the four specs, hand-computed transforms
(impulse, constant, a cosine), round trips, partial shapes, errors, element types, and OpenVINO's
answers (tools/expectations/make_trig_bitwise_dft_sampling_expectations.py)."""

import numpy as np
import pytest

from helpers import Param, infer_op, raises_for, run_op, shape_str
from irrun.types import elements
from irrun.errors import ShapeError
from nn_cases import assert_close, case_ids, entry, inputs_of, replay, run_case

TYPES = ("DFT", "IDFT", "RDFT", "IRDFT")
VERSION = {"DFT": "opset7", "IDFT": "opset7", "RDFT": "opset9", "IRDFT": "opset9"}
BF16 = elements.TYPES["bf16"].dtype
#: OpenVINO gives no usable answer: the CPU plugin refuses or crashes on these RDFT/IRDFT cases
#: (signal_size larger than the input, a -1 in it, a run-time signal_size), returns garbage for
#: IRDFT padding (NaN, uninitialised memory), and there is no reference kernel. The expected
#: values are NumPy's own transforms (np.fft, not irrun's code path) of the spec's definition.
BY_NUMPY = {"RDFT-signal-pad", "RDFT-signal-minus1", "RDFT-signal-odd-last", "RDFT-params", "IRDFT-signal-minus1",
            "IRDFT-params", "IRDFT-signal-pad"}
#: signal_size below -1: OpenVINO infers an empty axis; irrun refuses the size
REFUSE = {f"{t}-shape-signal-neg": "a size must be -1 or at least 0" for t in TYPES}
#: A run-time signal_size changes every transformed axis; OpenVINO makes only the last one of
#: RDFT/IRDFT dynamic (its run then returns another shape, see test_run_time_signal_size)
SHAPES = {"RDFT-shape-signal-param": "[2,?,?,2]", "IRDFT-shape-signal-param": "[2,?,?]"}


@pytest.mark.parametrize("case", case_ids(*TYPES))
def test_openvino_case(case):
    if case in BY_NUMPY:
        return check_by_numpy(case)
    if case in SHAPES:
        from nn_cases import infer_case
        assert shape_str(infer_case(case)[0]) == SHAPES[case]
        return
    replay(case, REFUSE)


@pytest.mark.parametrize("case", sorted(c for c in BY_NUMPY if c not in case_ids(*TYPES)))
def test_cases_openvino_cannot_run(case):
    check_by_numpy(case)


def check_by_numpy(case):
    x = inputs_of(case)[0][0]
    assert_close(run_case(case)[0], numpy_answer(case).astype(x.dtype), "f32", case)


def numpy_answer(case) -> np.ndarray:
    """The spec's transform of a case's inputs by np.fft, in f64 (where the CPU plugin errs)."""
    e = entry(case)
    ins, _ = inputs_of(case)
    x, axes = ins[0], list(ins[1])
    sizes = list(ins[2]) if len(ins) > 2 else None
    if e["type"] == "RDFT":
        axes = [a % x.ndim for a in axes]
        s = [x.shape[a] if v == -1 else v for a, v in zip(axes, sizes)]
        y = np.fft.rfftn(x.astype(np.float64), s, axes)
        want = np.stack([y.real, y.imag], -1)
    else:
        c = x[..., 0] + 1j * x[..., 1].astype(np.float64)
        axes = [a % c.ndim for a in axes]
        s = [c.shape[a] if v == -1 else v for a, v in zip(axes, sizes)]
        if sizes[-1] == -1:
            s[-1] = 2 * (c.shape[axes[-1]] - 1)
        want = np.fft.irfftn(c, s, axes)
    return want


def fft(op, x, axes, signal=None, params=(0,)):
    ins = [np.asarray(x, np.float32), np.array(axes, np.int64)] + ([] if signal is None else [np.array(signal, np.int64)])
    return run_op(op, ins, {}, VERSION[op], params=params)[0]


def shape(op, data, axes, signal=None):
    ins = [Param("f32", data), np.array(axes, np.int64)] + ([] if signal is None else [np.array(signal, np.int64)])
    return shape_str(infer_op(op, ins, {}, VERSION[op], params=())[0])


# ---------------------------------------------------------------------------------------------
# The specs' examples (shapes)

@pytest.mark.parametrize("op", ["DFT", "IDFT"])
@pytest.mark.parametrize("data, axes, signal, want", [
    ("1,320,320,2", [1, 2], None, "[1,320,320,2]"), ("320,320,2", [0, 1], None, "[320,320,2]"),
    ("1,320,320,2", [1, 2], [512, 100], "[1,512,100,2]"), ("320,320,2", [0, 1], [512, 100], "[512,100,2]"),
    ("16,768,580,320,2", [3, 1, 2], [170, -1, 1024], "[16,768,1024,170,2]"),
    ("16,768,580,320,2", [3, 0, 2], [258, -1, 2056], "[16,768,2056,258,2]")])
def test_spec_shapes_complex(op, data, axes, signal, want):
    assert shape(op, data, axes, signal) == want


@pytest.mark.parametrize("data, axes, signal, want", [
    ("1,320,320", [1, 2], None, "[1,320,161,2]"), ("320,320", [0, 1], None, "[320,161,2]"),
    ("1,320,320", [1, 2], [512, 100], "[1,512,51,2]"), ("320,320", [0, 1], [512, 100], "[512,51,2]"),
    ("16,768,580,320", [3, 1, 2], [170, -1, 1024], "[16,768,513,170,2]"),
    ("16,768,580,320", [3, 0, 2], [258, -1, 2056], "[16,768,1029,258,2]")])
def test_spec_shapes_rdft(data, axes, signal, want):
    assert shape("RDFT", data, axes, signal) == want


@pytest.mark.parametrize("data, axes, signal, want", [
    ("1,161,161,2", [1, 2], None, "[1,161,320]"), ("161,161,2", [0, 1], None, "[161,320]"),
    ("1,161,161,2", [1, 2], [512, 100], "[1,512,100]"), ("161,161,2", [0, 1], [512, 100], "[512,100]"),
    ("16,768,580,320,2", [3, 1, 2], [170, -1, 1024], "[16,768,1024,170]"),
    ("16,768,580,320,2", [3, 0, 2], [258, -1, 2056], "[16,768,2056,258]")])
def test_spec_shapes_irdft(data, axes, signal, want):
    assert shape("IRDFT", data, axes, signal) == want


# ---------------------------------------------------------------------------------------------
# Values from the definitions

@pytest.mark.parametrize("params", [(0,), ()], ids=["param", "const"])
def test_dft_of_an_impulse_and_a_constant(params):
    impulse = np.zeros((4, 2), np.float32)
    impulse[0, 0] = 1
    np.testing.assert_allclose(fft("DFT", impulse, [0], params=params), [[1, 0]] * 4, atol=1e-6)
    const = np.tile([[1.0, 0.0]], (4, 1))
    np.testing.assert_allclose(fft("DFT", const, [0], params=params), [[4, 0], [0, 0], [0, 0], [0, 0]], atol=1e-6)
    np.testing.assert_allclose(fft("IDFT", const, [0], params=params), [[1, 0], [0, 0], [0, 0], [0, 0]], atol=1e-6)


def test_dft_of_i_is_minus_i_rotations():
    """x_j = i: Y_0 = 4i; 1 + i at j = 0 only: Y_m = 1 + i for all m."""
    x = np.array([[1, 1], [0, 0], [0, 0]], np.float32)
    np.testing.assert_allclose(fft("DFT", x, [0]), [[1, 1]] * 3, atol=1e-6)


def test_rdft_of_a_cosine():
    """cos(2 pi j / 4) over 4 samples: Y = [0, 2, 0] (half spectrum of [0, 2, 0, 2])."""
    x = np.array([1, 0, -1, 0], np.float32)
    np.testing.assert_allclose(fft("RDFT", x, [0]), [[0, 0], [2, 0], [0, 0]], atol=1e-6)


def test_irdft_inverts_rdft_and_ignores_dc_imaginary():
    half = np.array([[0, 5], [2, 0], [0, 7]], np.float32)      # imaginary parts of Y_0, Y_2 are ignored
    np.testing.assert_allclose(fft("IRDFT", half, [0]), [1, 0, -1, 0], atol=1e-6)


def test_signal_size_pads_and_trims():
    x = np.array([[1, 0], [2, 0], [3, 0]], np.float32)
    np.testing.assert_allclose(fft("DFT", x, [0], [1]), [[1, 0]], atol=1e-6)            # trims to [1]
    np.testing.assert_allclose(fft("DFT", x, [0], [4])[0], [6, 0], atol=1e-6)           # pads a zero
    np.testing.assert_allclose(fft("DFT", x, [0], [4])[2], [2, 0], atol=1e-6)           # 1 - 2 + 3 - 0


@pytest.mark.parametrize("dtype", [np.float32, np.float16, BF16], ids=["f32", "f16", "bf16"])
def test_low_float_types(dtype):
    x = np.array([[1, 0], [1, 0]], dtype=dtype)
    out = run_op("DFT", [x, np.array([0], np.int64)], {}, "opset7")[0]
    assert out.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(out.astype(np.float32), [[2, 0], [0, 0]])


@pytest.mark.parametrize("op", TYPES)
def test_f64_is_refused(op):
    data = "4,2" if op != "RDFT" else "4"
    raises_for(op, ShapeError, "FFT op input element type must be f32, f16, or bf16", infer_op, op,
               [Param("f64", data), np.array([0], np.int64)], {}, VERSION[op], params=())


def test_run_time_signal_size():
    x = np.random.default_rng(1).normal(size=(5, 6)).astype(np.float32)
    out = run_op("RDFT", [x, np.array([0, 1], np.int64), np.array([3, 4], np.int64)], {}, "opset9", params=(0, 2))[0]
    y = np.fft.rfftn(x.astype(np.float64), [3, 4], [0, 1])
    np.testing.assert_allclose(out, np.stack([y.real, y.imag], -1), rtol=1e-5, atol=1e-5)
    raises_for("RDFT", Exception, "Sizes of inputs 'axes' and 'signal_size' must be equal.", run_op, "RDFT",
               [x, np.array([0, 1], np.int64), np.array([3], np.int64)], {}, "opset9", params=(0, 2))
