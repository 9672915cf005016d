"""The fast paths of an MoE router's ops (Squeeze, Concat, Select shape rules on plain ints;
Reshape of zero-size expert batches; TopK and OneHot without NumPy's Python-level axis moves)
against the general rules they stand in for: the same shape, array and dtype bit for bit, or the
fast path declines and the general rule decides (the same error message). The general rules
themselves are tested against OpenVINO in tests/ops/."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from irrun.errors import OpError
from irrun.ops.concat import Concat1, concat_shape, concatenated
from irrun.ops.one_hot import OneHot1
from irrun.ops.reshape import concrete_target
from irrun.ops.select import Select1, select_shape
from irrun.ops.squeeze import Squeeze1, squeeze_shape, squeezed
from irrun.ops.topk import topk
from irrun.types.shapes import PartialShape

shapes = st.lists(st.integers(0, 4), min_size=0, max_size=4).map(tuple)


def _general(fn):
    """The general rule's answer: the shape, or its error message."""
    try:
        return fn()
    except OpError as e:
        return e.message


def test_reshape_on_ints_keeps_an_empty_experts_batch():
    """An expert no token was routed to reshapes 0-row batches; no -1 beside a zero: the fast path."""
    assert concrete_target((0, 64), [0, 1, 64], True) == (0, 1, 64)
    assert concrete_target((1, 0, 64), [1, 0, 64], True) == (1, 0, 64)
    assert concrete_target((0, 64), [0, 64], False) == (0, 64)       # literal zero, counts match
    assert concrete_target((3, 0), [-1, 0], True) is None            # -1 beside a zero: general
    assert concrete_target((2,), [1, 0], True) is None               # special zero out of range


@settings(max_examples=400, deadline=None)
@given(shapes, st.one_of(st.none(), st.lists(st.integers(-5, 5), min_size=0, max_size=4)))
def test_squeeze_on_ints_is_the_general_rule(shape, axes):
    fast = squeezed(shape, axes)
    general = _general(lambda: squeeze_shape(PartialShape(shape), axes).to_tuple())
    if fast is not None:
        assert fast == general and all(type(d) is int for d in fast)
    x = np.zeros(shape, np.float32)
    kernel = _general(lambda: Squeeze1().run(x, *([] if axes is None else [np.array(axes, np.int64)]))[0].shape)
    assert kernel == general


@st.composite
def concat_inputs(draw):
    """2-4 shapes of one base, the axis dim varied, sometimes another dim or the rank changed."""
    base = draw(st.lists(st.integers(0, 3), min_size=0, max_size=3))
    axis = draw(st.integers(-4, 3))
    out = []
    for _ in range(draw(st.integers(2, 4))):
        s = [draw(st.integers(0, 3)) if i == axis % max(len(base), 1) else d for i, d in enumerate(base)]
        if draw(st.integers(0, 5)) == 0:
            s = draw(st.lists(st.integers(0, 3), min_size=0, max_size=3))
        out.append(tuple(s))
    return out, axis


@settings(max_examples=500, deadline=None)
@given(concat_inputs())
def test_concat_on_ints_is_the_general_rule(case):
    shapes_, axis = case
    fast = concatenated(shapes_, axis)
    general = _general(lambda: concat_shape([PartialShape(s) for s in shapes_], axis).to_tuple())
    if fast is not None:
        assert fast == general and all(type(d) is int for d in fast)
    xs = [np.arange(int(np.prod(s)), dtype=np.int32).reshape(s) for s in shapes_]
    got = _general(lambda: Concat1(axis=axis).run(*xs)[0])
    if isinstance(general, str):                  # a run-time mismatch: a clear error, not a bug
        assert got == general
    else:
        assert np.array_equal(got, np.concatenate(xs, axis=axis)) and got.shape == general


@settings(max_examples=400, deadline=None)
@given(shapes, shapes, shapes)
def test_select_on_ints_is_the_general_rule(c, t, e):
    general = _general(lambda: select_shape(PartialShape(c), PartialShape(t), PartialShape(e), "numpy").to_tuple())
    cond = (np.arange(int(np.prod(c))) % 3 == 0).reshape(c)
    then = np.ones(t, np.float32)
    else_ = np.zeros(e, np.float32)
    got = _general(lambda: Select1().run(cond, then, else_)[0])
    if isinstance(general, str):
        assert got == general
    else:
        assert got.shape == general and np.array_equal(got, np.where(cond, then, else_))


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32, np.uint8])
@pytest.mark.parametrize("largest", [True, False])
@pytest.mark.parametrize("by_index", [True, False])
def test_topk_on_the_last_axis_is_the_moved_axis_path(dtype, largest, by_index):
    """The last axis (no moveaxis) gives what the same data on axis 0 gives (the moveaxis path)."""
    rng = np.random.default_rng(3)
    x = rng.integers(0, 5, size=(6, 8)).astype(dtype)           # ties on purpose
    if dtype == np.float32:
        x[1, 2] = x[4, 0] = np.nan
    for k in (1, 2, 8):
        v, i = topk(x, k, 1, largest, by_index, np.dtype(np.int64))
        vt, it = topk(np.ascontiguousarray(x.T), k, 0, largest, by_index, np.dtype(np.int64))
        assert v.dtype == vt.dtype and i.dtype == it.dtype
        np.testing.assert_array_equal(v, vt.T)
        np.testing.assert_array_equal(i, it.T)


@settings(max_examples=200, deadline=None)
@given(shapes, st.integers(-1, 4), st.integers(0, 4))
def test_one_hot_is_the_expand_dims_formula(shape, axis, depth):
    """The reshaped comparison equals the ``np.expand_dims`` one it replaced."""
    idx = (np.arange(int(np.prod(shape)), dtype=np.int64) % 6 - 1).reshape(shape)
    if not -len(shape) - 1 <= axis <= len(shape):
        return
    ax = axis % (len(shape) + 1)
    got = OneHot1(axis=axis).run(idx, np.array(depth), np.array(5.0, np.float32), np.array(-1.0, np.float32))[0]
    classes = np.arange(depth).reshape([depth if i == ax else 1 for i in range(idx.ndim + 1)])
    want = np.where(np.expand_dims(idx, ax) == classes, np.float32(5.0), np.float32(-1.0))
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)
