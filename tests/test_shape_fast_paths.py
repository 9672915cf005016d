"""The kernels' shape fast paths on plain ints against the general rules on PartialShapes they
stand in for (Reshape, Broadcast, Unsqueeze, Transpose, Gather): for every concrete input either
the same shape, or the fast path declines and the general rule decides — so a kernel gives the
same array, bit for bit, or the same error message. (The general rules themselves are tested
against OpenVINO in tests/ops/.)"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from irrun.errors import OpError
from irrun.ops import broadcast as broadcast_mod
from irrun.ops._broadcast import numpy_shape
from irrun.ops import gather as gather_mod
from irrun.ops.attention import attention_shape, concrete_shape
from irrun.ops.broadcast import broadcast_shape
from irrun.ops.reshape import concrete_target, reshape_target
from irrun.ops.transpose import Transpose1, transpose_order
from irrun.ops.unsqueeze import Unsqueeze1, unsqueeze_shape, unsqueezed
from irrun.types.shapes import PartialShape

shapes = st.lists(st.integers(0, 6), min_size=0, max_size=5).map(tuple)
ints = st.lists(st.integers(-3, 8), min_size=0, max_size=6)


def _general(fn, *args):
    """The general rule's answer: the shape, or its error message."""
    try:
        return fn(*args)
    except OpError as e:
        return e.message


@settings(max_examples=400, deadline=None)
@given(shapes, ints, st.booleans())
def test_reshape_on_ints_is_the_general_rule(shape, pattern, special_zero):
    fast = concrete_target(shape, pattern, special_zero)
    general = _general(lambda: reshape_target(PartialShape(shape), pattern, special_zero).to_tuple())
    if fast is not None:
        assert fast == general and all(type(d) is int for d in fast)


def test_reshape_on_ints_takes_the_common_patterns():
    """The patterns an LLM's decode step feeds (a copied dim, one -1) resolve on the fast path."""
    assert concrete_target((1, 7, 64), [0, 0, 4, 16], True) == (1, 7, 4, 16)
    assert concrete_target((1, 7, 4, 16), [1, -1, 64], False) == (1, 7, 64)
    assert concrete_target((2, 3), [6], False) == (6,)
    assert concrete_target((2, 0), [-1, 0], False) is None         # a literal 0: the general rule
    assert concrete_target((2, 3), [-1, -1], False) is None        # its error message


@settings(max_examples=400, deadline=None)
@given(shapes, ints, st.sampled_from(["numpy", "bidirectional"]))
def test_broadcast_on_ints_is_the_general_rule(shape, target, mode):
    target = [abs(t) for t in target]                 # (negative targets: refused before both)
    fast = broadcast_mod._concrete(mode, shape, target)
    general = _general(lambda: broadcast_shape(mode, PartialShape(shape), target).to_tuple())
    assert fast is None and isinstance(general, str) or fast == general


@settings(max_examples=300, deadline=None)
@given(shapes, st.lists(st.integers(-7, 7), min_size=1, max_size=4))
def test_unsqueeze_on_ints_is_the_general_rule(shape, axes):
    general = _general(lambda: unsqueeze_shape(PartialShape(shape), axes).to_tuple())
    fast = _general(lambda: tuple(unsqueezed(list(shape), axes)))
    assert fast == general
    x = np.zeros(shape, np.float32)
    kernel = _general(lambda: Unsqueeze1().run(x, np.array(axes, np.int64))[0].shape)
    assert kernel == general


@settings(max_examples=300, deadline=None)
@given(shapes, st.lists(st.integers(-1, 5), min_size=0, max_size=5))
def test_transpose_checks_the_order_as_the_general_rule(shape, order):
    x = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    want = _general(lambda: x.transpose(transpose_order(PartialShape(shape), order)))
    got = _general(lambda: Transpose1().run(x, np.array(order, np.int64))[0])
    if isinstance(want, str):
        assert got == want
    else:
        assert got.shape == want.shape and np.array_equal(got, want)


@pytest.mark.parametrize("indices", [[[2]], [0, 4, 1], [[-1, 3], [5, 0]], np.arange(40) % 5,
                                     np.arange(40) % 7 - 2, np.zeros((0,), np.int64)])
@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.uint64])
def test_gather_in_range_takes_the_same_rows_as_the_general_kernel(monkeypatch, indices, dtype):
    data = np.arange(5 * 3 * 2, dtype=np.float32).reshape(5, 3, 2)
    idx = np.asarray(indices).astype(dtype)
    for axis in (0, 2) if idx.size <= 2 or np.all((idx >= 0) & (idx < 2)) else (0,):
        fast = gather_mod.gather(data, idx, axis, 0)
        monkeypatch.setattr(gather_mod, "_in_range", lambda *a: False)
        general = gather_mod.gather(data, idx, axis, 0)
        monkeypatch.undo()
        assert fast.dtype == general.dtype and fast.shape == general.shape
        np.testing.assert_array_equal(fast, general)


@settings(max_examples=400, deadline=None)
@given(shapes, shapes)
def test_numpy_broadcast_on_ints_is_numpys(a, b):
    try:
        want = np.broadcast_shapes(a, b)
    except ValueError:
        want = None
    assert numpy_shape(a, b) == want


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(st.integers(1, 3), max_size=3).map(tuple), min_size=1, max_size=4))
def test_numpy_broadcast_of_several_shapes_is_numpys(several):
    """Select's three inputs, attention's q/k/v batch dims: one call over all of them."""
    try:
        want = np.broadcast_shapes(*several)
    except ValueError:
        want = None
    assert numpy_shape(*several) == want


small = st.lists(st.integers(0, 3), min_size=0, max_size=4).map(tuple)


@st.composite
def attention_inputs(draw):
    """q [*b, L, E], k [*b, S, E], v [*b, S, Ev], mask, scale, sink [*b, L, 1]: mostly
    consistent, some dims replaced by 1 or another size (broadcasting, mismatches); a sink of
    another rank now and then."""
    b = draw(st.lists(st.integers(0, 3), max_size=2))
    L, S, E, Ev = (draw(st.integers(0, 3)) for _ in range(4))
    shapes = [tuple(b) + (L, E), tuple(b) + (S, E), tuple(b) + (S, Ev), (1,) * len(b) + (L, S), (),
              tuple(b) + (L, 1)]
    n = draw(st.integers(3, 6))
    shapes = [tuple(draw(st.sampled_from([d, d, d, 1, 2])) for d in s) for s in shapes[:n]]
    if n >= 5:
        shapes[4] = draw(st.sampled_from([(), (1,), (2,), (1, 1)]))
    if n == 6 and draw(st.booleans()):
        shapes[5] = draw(st.sampled_from([shapes[5][1:], (1,) + shapes[5], shapes[5][:-1] + (2,)]))
    return shapes


@settings(max_examples=600, deadline=None)
@given(st.one_of(st.lists(small, min_size=3, max_size=5), attention_inputs()), st.booleans())
def test_attention_shape_on_ints_is_the_general_rule(shapes, causal):
    fast = concrete_shape(shapes, causal)
    general = _general(lambda: attention_shape([PartialShape(s) for s in shapes], causal).to_tuple())
    if fast is not None:
        assert fast == general


def test_attention_shape_on_ints_takes_a_decode_step():
    q, kv, mask = (1, 4, 1, 16), (1, 4, 9, 16), (1, 1, 1, 9)
    assert concrete_shape([q, kv, kv, mask], False) == (1, 4, 1, 16)
    assert concrete_shape([q, kv, kv, mask, ()], False) == (1, 4, 1, 16)
    assert concrete_shape([q, kv, kv, mask, (), (1, 4, 1, 1)], False) == (1, 4, 1, 16)     # gpt-oss's sink
