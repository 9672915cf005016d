"""Property: every registered op, fed hostile attributes and random small inputs through the whole
pipeline (IR writer -> reader -> inference/folding -> run), either succeeds or raises one of
irrun's own errors naming the layer — never InternalError (irrun admitting a bug) and never a
bare Python exception (issue 5).

Attributes come from each class's declared ``attrs``: plausible values (the default, small
numbers, the enum choices) mixed with edge values (0, negatives, huge numbers, empty and
wrong-length lists, unknown enum strings, NaN). Inputs are small arrays of assorted ranks (0-d and
empty dims included), dtypes and values, correlated with one "base" shape so that deep paths are
reached; each is a Const (folding path), a static Parameter (run path) or a Parameter with
dynamic dims (inference on partial shapes, then run). Everything runs under a 64 MiB budget, so
hostile attributes cannot make the test allocate much.

Default: a few examples per op (derandomized, CI-deterministic, ~15 s in all);
``IRRUN_ROBUSTNESS_EXAMPLES=500 python -m pytest tests/test_ops_robustness.py`` for a long hunt.
"""
from __future__ import annotations

import math
import os
import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import irrun
from irrun.limits import memory as budget
from irrun.types import elements
from irrun.errors import ExecutionError, InputError, InternalError, IrrunError, ShapeError
from irrun.ir.builder import IRWriter
from irrun.ops.base import _MISSING
from irrun.ops.registry import all_ops

from helpers import run_op

OPS = all_ops()
EXAMPLES = int(os.environ.get("IRRUN_ROBUSTNESS_EXAMPLES", 6))
SETTINGS = settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
                    suppress_health_check=list(HealthCheck))
BUDGET = 64 << 20
_DIR = tempfile.TemporaryDirectory(prefix="irrun-robust-")

OMIT = object()
HUGE_INTS = [2**31, 2**31 - 1, -2**31, 2**63 - 1, -2**63, 10**6, 10**12]
EDGE_FLOATS = [0.0, -1.0, 1e30, -1e30, 1e-30, math.nan, math.inf, -math.inf]
ETYPES = [t for t in elements.TYPES] + ["undefined", "bogus", ""]
DTYPES = [np.float32, np.float16, np.float64, elements.TYPES["bf16"].dtype, np.int64, np.int32,
          np.int8, np.uint8, np.uint64, np.bool_, elements.STRING_DTYPE]

small_int = st.one_of(st.integers(0, 3), st.integers(0, 3), st.integers(-3, 5))
any_int = st.one_of(small_int, small_int, st.sampled_from(HUGE_INTS))
any_float = st.one_of(st.sampled_from([0.5, 1.0, 2.0, 1e-5, 0.1]), st.sampled_from(EDGE_FLOATS))
dim_text = st.one_of(st.integers(0, 4).map(str), st.sampled_from(["?", "-1", "1..3", "2..", "..4",
                                                                   "-5", str(2**40), "x"]))


def _fmt_list(xs) -> str:
    return ",".join(str(x) for x in xs)


def attr_value(decl, rank: int) -> st.SearchStrategy[object]:
    """Strings for one declared attribute: OMIT, the default, plausible and hostile values; list
    lengths favour the base rank and its spatial part (rank - 2), as axes, pads and strides do."""
    kind = decl.kind
    if kind == "int":
        s = any_int.map(str)
    elif kind == "ints":
        s = st.one_of(*(st.lists(st.integers(lo, 2), min_size=n, max_size=n)
                        for n in {rank, max(rank - 2, 0)} for lo in (0, 1)),
                      st.lists(any_int, max_size=6)).map(_fmt_list)
    elif kind == "float":
        s = any_float.map(repr)
    elif kind == "bool":
        s = st.sampled_from(["true", "false", "1", "maybe"])
    elif kind == "etype":
        s = st.sampled_from(ETYPES)
    elif kind == "pshape":
        s = st.one_of(st.lists(dim_text, max_size=4).map(_fmt_list), st.sampled_from(["...", "[]", "[?,2]"]))
    elif kind == "shape":
        s = st.lists(st.one_of(st.integers(0, 4), st.sampled_from([-1, 2**40])), max_size=4).map(_fmt_list)
    elif kind == "floats":
        s = st.one_of(st.lists(any_float, min_size=rank, max_size=rank), st.lists(any_float, max_size=6)).map(_fmt_list)
    elif kind == "enum":
        s = st.one_of(st.sampled_from(decl.choices or ("x",)), st.sampled_from(["bogus", ""]))
    else:   # str
        s = st.sampled_from(["", "x", "0", "none", "a,b"])
    options = [st.just(OMIT), s, s]
    if decl.default is not _MISSING and decl.default is not None:
        d = decl.default
        text = (_fmt_list(d) if isinstance(d, (list, tuple)) else str(d).lower() if isinstance(d, bool)
                else getattr(d, "name", str(d)))
        options.append(st.just(text))
    return st.one_of(*options)


@st.composite
def array(draw, base: tuple[int, ...], data_dtype) -> np.ndarray:
    """A small array: mostly of the case's data type or an index type, its shape related to
    ``base`` (same, 1-D of its rank, its spatial part, scalar) or random."""
    dtype = np.dtype(draw(st.one_of(st.just(data_dtype), st.just(data_dtype), st.just(np.int64),
                                    st.just(np.int32), st.sampled_from(DTYPES))))
    shape = draw(st.one_of(st.just(base), st.just(base), st.just((len(base),)), st.just(()),
                           st.just(base[2:]), st.lists(st.integers(0, 4), max_size=4).map(tuple)))
    n = int(np.prod(shape, dtype=np.int64))
    vals = draw(st.lists(st.one_of(st.integers(0, 3), st.integers(-3, 6),
                                   st.sampled_from([0, 1, -1, 127, 2**31])), min_size=n, max_size=n))
    a = np.array(vals, dtype=np.int64).reshape(shape)
    if dtype == elements.STRING_DTYPE:
        return a.astype(str).astype(dtype)
    if dtype.kind == "f" or dtype == elements.TYPES["bf16"].dtype:
        with np.errstate(over="ignore"):
            return a.astype(np.float64).astype(dtype)
    return a.astype(dtype)      # integer wrap-around is fine: any value is a valid input


@st.composite
def case(draw, cls):
    base = tuple(draw(st.lists(st.one_of(st.integers(1, 3), st.integers(0, 4)), max_size=5)))
    attrs = {}
    for name, decl in cls.attrs.items():
        v = draw(attr_value(decl, len(base)))
        if v is not OMIT:
            attrs[name] = v
    lo, hi = cls.num_inputs
    hi = lo + 3 if hi is None else hi
    n = draw(st.integers(lo, min(hi, lo + 3)))
    data_dtype = draw(st.sampled_from([np.float32, *DTYPES]))
    inputs = [draw(array(base, data_dtype)) for _ in range(n)]
    modes = [draw(st.sampled_from(["const", "const", "param", "dynamic"])) for _ in range(n)]
    return attrs, inputs, modes


def _param_shape(x: np.ndarray, dynamic_rank: bool, which: list[bool]) -> str:
    if dynamic_rank:
        return "..."
    return ",".join("?" if w else str(d) for d, w in zip(x.shape, which))


def build(cls, attrs, inputs, modes, n_out: int, seed: int = 0):
    """One layer of ``cls`` fed by Consts/Parameters, its ``n_out`` outputs as Results."""
    b = IRWriter("robust")
    feeds, ports = {}, []
    rng = np.random.default_rng(seed)
    for i, (x, mode) in enumerate(zip(inputs, modes)):
        et = elements.from_dtype(x.dtype).name
        if mode == "const":
            ports.append(b.const(x))
            continue
        if mode == "param":
            ports.append(b.parameter(f"in{i}", et, list(x.shape)))
        else:
            shape = _param_shape(x, rng.random() < 0.3, list(rng.random(x.ndim) < 0.6))
            ports.append(b.parameter(f"in{i}", et, shape, dims=[]))
        feeds[f"in{i}"] = x
    outs = b.layer(cls.type, ports, attrs, version=cls.version, n_out=n_out)
    for i, o in enumerate([outs] if n_out == 1 else outs):
        b.result(o, f"out{i}")
    d = Path(tempfile.mkdtemp(dir=_DIR.name))
    return b.save(d / "model.xml"), feeds


def exercise(cls, attrs, inputs, modes) -> IrrunError | None:
    """The whole pipeline under a 64 MiB budget; returns irrun's error (or None) and lets
    InternalError and every other exception through."""
    n_out = 1
    for _ in range(2):      # a second try with the output count the op says it produces
        path, feeds = build(cls, attrs, inputs, modes, n_out)
        try:
            with budget.limit(BUDGET):
                model = irrun.read_model(path)
                model.types()
                model.check_memory(BUDGET)
                model.run(feeds, max_memory=BUDGET)
            return None
        except InternalError:
            raise
        except IrrunError as e:
            if "output ports but" in e.message and n_out == 1:
                n_out = int(e.message.rsplit("produces ", 1)[1].split()[0])
                if 0 < n_out <= 16:      # (Split num_splits=10**6 would build a million Results)
                    continue
            assert e.layer is not None or isinstance(e, InputError), f"error names no layer: {e}"
            return e
    return None


def _id(cls) -> str:
    return f"{cls.type}-{cls.version}"


# Regression examples for crashes this property found (op type -> (attrs, inputs, modes)).
_f32, _u64 = np.float32, np.uint64
# negative pooled_w (ROIAlign-3) became a "?" dim, then the kernel wanted a static shape (ValueError)
_ROIALIGN_NEGATIVE_POOLED = [({"pooled_h": "2", "pooled_w": str(-2**62), "sampling_ratio": "1",
                                 "spatial_scale": "1.0", "mode": "avg"},
                             [np.zeros((1, 1, 4, 4), _f32), np.array([[0, 0, 2, 2]], _f32), np.array([0])],
                             ["param", "param", "const"])]

REGRESSIONS: dict[str, list[tuple[dict, list, list]]] = {
    # 0-d input: NumPy ufuncs return scalars, the in-place erfc fit failed (TypeError)
    "Gelu-opset2": [({}, [np.array(0.0, _f32)], ["const"]), ({}, [np.array(-1.0, _f32)], ["param"])],
    "Gelu-opset7": [({"approximation_mode": "erf"}, [np.array(0.0, _f32)], ["const"])],
    # a step beyond int64 (u64 max) made Python ints overflow NumPy's int64 (OverflowError)
    "Range-opset4": [({"output_type": "i64"}, [np.array(0, _f32), np.array(0, _f32),
                                               np.array(2**64 - 1, _u64)], ["const"] * 3),
                     ({"output_type": "i32"}, [np.array(-1e30, _f32), np.array(0, _f32),
                                               np.array(2**64 - 1, _u64)], ["const"] * 3),
                     # a dynamic output_type got through to the kernel (AttributeError on None)
                     ({"output_type": "undefined"}, [np.array(2.9, _f32), np.array(9.9, _f32),
                                                     np.array(2.9, _f32)], ["param", "dynamic", "param"])],
    # 0-d data: np.searchsorted returned a scalar, the NaN fix-up assigned into it (TypeError)
    "Bucketize-opset3": [({}, [np.array(0.0, _f32), np.array([], _f32)], ["const", "const"])],
    # NaN/inf bounds on integer data: math.ceil(nan) (ValueError) / math.ceil(inf) (OverflowError)
    "Clamp-opset1": [({"min": "0.5", "max": "nan"}, [np.array(0)], ["const"]),
                     ({"min": "-inf", "max": "inf"}, [np.array([1, 2], np.int32)], ["param"])],
    # resizing an empty axis to a non-empty size: np.take from an empty axis (IndexError)
    "Interpolate-opset1": [({"axes": "3", "mode": "linear"}, [np.zeros((1, 1, 1, 0), _f32), np.array([8])],
                            ["param", "const"]),
                           # negative target / pads were not checked (IndexError, ValueError)
                           ({"axes": "3", "mode": "linear"}, [np.zeros((1, 1, 1, 4), _f32),
                                                              np.array([-2**62])], ["param", "const"]),
                           ({"axes": "3", "mode": "nearest", "pads_end": "-1"},
                            [np.zeros((1, 1, 1, 4), _f32), np.array([2])], ["param", "const"])],
    # huge pads around an axis that sizes then shrink: np.pad of an unbounded array (ValueError)
    "Interpolate-opset4": [({"mode": "nearest", "shape_calculation_mode": "sizes", "pads_begin": "0,1,1,2",
                             "pads_end": f"5,3,{2**62},7"},
                            [np.ones((1, 2, 5, 6), _f32), np.array([9, 10]), np.array([1.0, 1.0], _f32),
                             np.array([2, 3])], ["const"] * 4)],
    "Interpolate-opset11": [({"mode": "nearest", "shape_calculation_mode": "sizes"},
                             [np.zeros((1, 1, 1, 0), _f32), np.array([1, 2]), np.array([2, 3])],
                             ["param", "param", "const"])],
    # an empty feature map with boxes: sampling indexed outside it (IndexError)
    "ROIAlign-opset9": [({"pooled_h": "3", "pooled_w": "2", "sampling_ratio": "2", "spatial_scale": "0.5",
                          "mode": "avg", "aligned_mode": "half_pixel_for_nn"},
                         [np.zeros((2, 3, 8, 0), _f32), np.array([[1, 1, 6, 5]], _f32), np.array([0])],
                         ["param", "param", "param"])],
    # num_splits=2**31-1 on an empty axis: a list of 2**31 output infos (MemoryError)
    "Split-opset1": [({"num_splits": str(2**31 - 1)}, [np.zeros((0, 3), np.int32), np.array(0)],
                      ["param", "const"])],
    # inf/NaN spatial_scale: NaN sample positions cast to int64 min (IndexError); a huge
    # sampling_ratio: an unbounded sampling grid (ValueError "array is too big")
    "ROIAlign-opset3": _ROIALIGN_NEGATIVE_POOLED + [({"pooled_h": "1", "pooled_w": "1", "sampling_ratio": "2", "spatial_scale": s,
                          "mode": "avg"}, [np.ones((1, 1, 4, 4), _f32), np.array([[0, 0, 2, 2]], _f32),
                                           np.array([0])], ["param", "param", "dynamic"])
                        for s in ("nan", "inf")] +
                       [({"pooled_h": "3", "pooled_w": "2", "sampling_ratio": str(2**62), "spatial_scale": "0.5",
                          "mode": "max"}, [np.ones((1, 3, 8, 10), _f32), np.array([[1, 1, 6, 5]], _f32),
                                           np.array([0])], ["param", "const", "param"])],
    # an empty filter (spatial dim 0): the kernel's window count disagreed with the shape rule
    "Convolution-opset1": [({"strides": "1", "pads_begin": "0", "pads_end": "0", "dilations": d,
                             "auto_pad": "explicit"}, [np.ones((1, 2, 3), _f32), np.zeros((2, 2, 0), _f32)],
                            ["param", "param"]) for d in ("1", "2")],
    # empty slices along an axis: reshape(n, -1) of an empty array (ValueError), and counts
    # the shape rule said could not exist (shape mismatch)
    "Unique-opset10": [({"sorted": "false"}, [np.zeros((3, 0), np.int64), np.array(1)], ["param", "const"]),
                       ({"sorted": "true"}, [np.zeros((5, 0), _f32), np.array([0])], ["param", "const"]),
                       ({"sorted": "false"}, [np.zeros((1, 3, 0), np.int32), np.array(0)], ["dynamic", "const"])],
    # empty axes: the last axis of an empty list (IndexError)
    "IRDFT-opset9": [({}, [np.zeros((2, 5, 4, 2), _f32), np.zeros(0, np.int64)], ["param", "const"])],
    "RDFT-opset9": [({}, [np.zeros((2, 5), _f32), np.zeros(0, np.int64)], ["const", "const"])],
}


def test_every_regression_names_a_registered_op():
    """A misspelt key would leave its examples unexercised."""
    assert set(REGRESSIONS) <= {_id(c) for c in OPS}


@pytest.mark.parametrize("cls", OPS, ids=[_id(c) for c in OPS])
def test_op_fails_only_with_irrun_errors(cls):
    for attrs, inputs, modes in REGRESSIONS.get(_id(cls), ()):
        exercise(cls, attrs, inputs, modes)

    @SETTINGS
    @given(case(cls))
    def prop(c):
        exercise(cls, *c)

    prop()


# Explicit checks of the fixed paths (values from the op definitions, not from irrun).

@pytest.mark.parametrize("params", [(), (0,)])
def test_gelu_0d(params):
    (y,) = run_op("Gelu", [np.array(-1.0, np.float32)], version="opset2", params=params)
    assert y.shape == () and y.dtype == np.float32
    assert abs(float(y) - -0.15865525) < 1e-6          # -1 * Phi(-1)


def test_range_huge_step_single_element():
    """start 0, stop 1, step 2**64-1 (read as f64): one element, the start."""
    (y,) = run_op("Range", [np.float32(0), np.float32(1), np.uint64(2**64 - 1)],
                  {"output_type": "i64"}, version="opset4", params=())
    assert y.tolist() == [0] and y.dtype == np.int64


def test_range_start_beyond_int64_is_an_error():
    with pytest.raises(ExecutionError) as e:
        run_op("Range", [np.float32(-1e30), np.float32(0), np.float32(1e29)],
               {"output_type": "i64"}, version="opset4", params=())
    assert "do not fit in 64-bit" in e.value.message and e.value.layer.type == "Range"


def test_bucketize_0d():
    (y,) = run_op("Bucketize", [np.float32(0.5), np.array([0.0, 1.0], np.float32)], version="opset3",
                  params=())
    assert y.shape == () and int(y) == 1


def test_clamp_nan_bound_is_refused():
    """OpenVINO checks ``min <= max``, which NaN fails."""
    with pytest.raises(ShapeError) as e:
        run_op("Clamp", [np.array([1, 2], np.int32)], {"min": "nan", "max": "1"})
    assert "Attribute 'min' must be less or equal than 'max'" in e.value.message
    assert e.value.layer.type == "Clamp"


def test_clamp_infinite_bounds_saturate_on_integers():
    (y,) = run_op("Clamp", [np.array([-5, 0, 5], np.int32)], {"min": "-inf", "max": "3"})
    assert y.tolist() == [-5, 0, 3] and y.dtype == np.int32


def test_interpolate_empty_axis_to_nonempty_is_an_error():
    with pytest.raises(ExecutionError) as e:
        run_op("Interpolate", [np.zeros((1, 1, 1, 0), np.float32), np.array([8])],
               {"axes": "3", "mode": "linear"})
    assert "cannot resize the empty axis 3" in e.value.message and e.value.layer.type == "Interpolate"


def test_interpolate1_negative_target_is_an_error():
    with pytest.raises(ShapeError) as e:
        run_op("Interpolate", [np.zeros((1, 1, 1, 4), np.float32), np.array([-3])],
               {"axes": "3", "mode": "nearest"})
    assert "must not be negative" in e.value.message and e.value.port == "input 1"


@pytest.mark.parametrize("op", ["RDFT", "IRDFT"])
def test_real_fft_empty_axes_is_an_error(op):
    with pytest.raises(ShapeError) as e:
        run_op(op, [np.zeros((2, 4, 2), np.float32), np.zeros(0, np.int64)], version="opset9")
    assert "empty 'axes'" in e.value.message and e.value.layer.type == op


def test_range4_dynamic_output_type_is_refused():
    """OpenVINO: ``is_integral_number() || is_real()``, which dynamic is not."""
    with pytest.raises(ShapeError) as e:
        run_op("Range", [np.float32(0), np.float32(3), np.float32(1)], {"output_type": "dynamic"},
               version="opset4", params=(0, 1, 2))
    assert "output tensor type should be a numeric type" in e.value.message


def test_roi_align_negative_pooled_size_is_refused():
    with pytest.raises(ShapeError) as e:
        run_op("ROIAlign", [np.zeros((1, 1, 4, 4), np.float32), np.array([[0, 0, 2, 2]], np.float32),
                            np.array([0])],
               {"pooled_h": 2, "pooled_w": -1, "sampling_ratio": 1, "spatial_scale": 1.0, "mode": "avg"},
               version="opset3", params=(0, 1))
    assert "negative pooled sizes" in e.value.message and e.value.layer.type == "ROIAlign"
