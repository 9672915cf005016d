"""irrun's own thread pool (irrun/limits/parallel.py) and the block-wise kernels that use it:
FakeQuantize, PRelu and every :func:`float_math` element-wise op give the same bits at 1, 2 and
3 threads, in place or not, as the spec formulas computed literally with NumPy on whole arrays
(FakeQuantize-1: ``x <= min(il, ih) ? ol : x > max(il, ih) ? oh : rint((x - il) / (ih - il) *
(levels-1)) / (levels-1) * (oh - ol) + ol`` in f32, f64 for f64 data; PRelu-1:
``x < 0 ? x * slope : x``), including the clamp edges, NaN, infinities and signed zeros."""
import threading

import ml_dtypes
import numpy as np
import pytest

from irrun.limits import parallel, threads
from irrun.ops import _numerics as numerics
from irrun.ops import fake_quantize as fq_module
from irrun.ops._numerics import block_slices, float_math
from irrun.ops.activations import PRelu1
from irrun.ops.fake_quantize import fake_quantize

FLOATS = [np.float32, np.float64, np.float16, np.dtype(ml_dtypes.bfloat16)]
IDS = ["f32", "f64", "f16", "bf16"]


@pytest.fixture(params=[1, 2, 3], ids=["1thread", "2threads", "3threads"])
def thread_count(request, monkeypatch):
    monkeypatch.setattr(threads, "_chosen", request.param)
    monkeypatch.setattr(parallel, "WORTH", 0)       # split even these test-sized arrays
    monkeypatch.setattr(fq_module, "FQ_SPLIT_BLOCK", 1 << 13)  # ... into many pieces (2 threads: 18 blocks)
    monkeypatch.setattr(numerics, "BLOCK", 1 << 13)             # (float_math: PRelu 9 blocks)
    return request.param


def bits(a: np.ndarray) -> np.ndarray:
    a = np.ascontiguousarray(a)
    return a.view(f"u{a.dtype.itemsize}")


def assert_same_bits(got: np.ndarray, want: np.ndarray) -> None:
    assert got.dtype == want.dtype and got.shape == want.shape
    nan = np.isnan(want.astype(np.float32))
    np.testing.assert_array_equal(np.isnan(got.astype(np.float32)), nan)
    np.testing.assert_array_equal(bits(got)[~nan], bits(want)[~nan])


def spec_fake_quantize(x, il, ih, ol, oh, levels):
    wd = np.float64 if x.dtype == np.float64 else np.float32
    v, a, b, c, d = (np.asarray(t).astype(wd) for t in (x, il, ih, ol, oh))
    with np.errstate(all="ignore"):
        q = np.rint((v - a) / (b - a) * wd(levels - 1)) / wd(levels - 1) * (d - c) + c
        return np.where(v <= np.minimum(a, b), c, np.where(v > np.maximum(a, b), d, q)).astype(x.dtype)


def data(shape, dtype, seed=0):
    """Normal data with the values that sit on the edges at the front."""
    x = (np.random.default_rng(seed).standard_normal(shape) * 3).astype(dtype)
    x.reshape(-1)[:7] = [np.nan, np.inf, -np.inf, 0.0, -0.0, -1.25, 1.5]
    return x


#: limits of the kinds INT8 models have, and the edges the spec formula treats apart
LIMITS = {
    "scalar": ((), lambda s: (-1.25, 1.5, -1.25, 1.5)),
    "per-channel": ((1, 8, 1, 1), lambda s: (-np.linspace(0.5, 4, 8).reshape(s), np.linspace(0.3, 7, 8).reshape(s),
                                             -np.linspace(0.5, 4, 8).reshape(s), np.linspace(0.3, 7, 8).reshape(s))),
    "output-range-other": ((), lambda s: (-1.0, 1.0, 0.1, 0.7)),      # (oh - ol) + ol != oh
    "negative-zero-low": ((), lambda s: (-1.0, 1.0, -0.0, 2.0)),
    "inverted-and-equal": ((1, 8, 1, 1), lambda s: (np.r_[1.0, 0.5, -1, -2, -3, -1, -1, -1].reshape(s),
                                                    np.r_[-1.0, 0.5, 1, 2, 3, 1, 1, 1].reshape(s),
                                                    np.zeros(s), np.ones(s))),
}


@pytest.mark.parametrize("dtype", FLOATS, ids=IDS)
@pytest.mark.parametrize("limits", list(LIMITS))
@pytest.mark.parametrize("levels", [256, 255, 2])
def test_fake_quantize_is_the_spec_formula_at_any_thread_count(thread_count, dtype, limits, levels):
    shape, make = LIMITS[limits]
    x = data((2, 8, 60, 150), dtype)
    il, ih, ol, oh = (np.asarray(t, dtype).reshape(shape) for t in make(shape))
    want = spec_fake_quantize(x, il, ih, ol, oh, levels)
    assert_same_bits(fake_quantize(x, il, ih, ol, oh, levels), want)
    buffer = x.copy()           # in place: the planner offers the dead input's buffer
    got = fake_quantize(buffer, il, ih, ol, oh, levels, out=buffer)
    assert got is buffer
    assert_same_bits(got, want)


@pytest.mark.parametrize("dtype", FLOATS, ids=IDS)
@pytest.mark.parametrize("slope", [[0.1], [1.0], [2.5], [0.0], [-0.0], [-0.3], [np.inf], [np.nan],
                                   np.linspace(0.25, 2, 8)], ids=str)
def test_prelu_is_the_spec_formula_at_any_thread_count(thread_count, dtype, slope):
    x = data((1, 8, 100, 90), dtype, seed=1)
    s = np.asarray(slope, dtype)
    view = s.reshape(1, -1, 1, 1) if s.size == 8 else s
    wd = np.float64 if dtype == np.float64 else np.float32
    with np.errstate(all="ignore"):
        want = np.where(x.astype(wd) < 0, x.astype(wd) * view.astype(wd), x.astype(wd)).astype(dtype)
    op = PRelu1.__new__(PRelu1)         # (the kernel alone: no attributes)
    assert_same_bits(op.run(x, s)[0], want)
    buffer = x.copy()
    assert_same_bits(op.run(buffer, s, out=buffer)[0], want)


def test_float_math_blocks_cut_broadcast_operands_to_each_block(thread_count):
    x = data((3, 40, 700), np.float32)
    row = np.linspace(-1, 1, 700, dtype=np.float32)
    column = np.linspace(1, 2, 40, dtype=np.float32).reshape(40, 1)
    with np.errstate(all="ignore"):
        want = x * row + column
        got = float_math(lambda v, r, c: v * r + c, x, row, column)
    assert_same_bits(got, want)


@pytest.mark.parametrize("shape", [(), (5,), (1, 32, 160, 272), (3, 1, 7, 50000), (70000, 3), (2, 0, 4)])
def test_blocks_cover_every_element_once(shape):
    hits = np.zeros(shape, np.int8)
    for where in block_slices(shape, 1 << 15):
        hits[where] += 1
    assert (hits == 1).all()


def test_the_work_runs_on_as_many_threads_as_set(monkeypatch):
    monkeypatch.setattr(threads, "_chosen", 2)
    seen = set()
    started = threading.Barrier(2, timeout=10)

    def task(piece):
        seen.add(threading.get_ident())
        if piece in (0, 4):
            started.wait()      # both runs of pieces are under way at once
    parallel.run_all(task, list(range(8)), parallel.WORTH)
    assert len(seen) == 2
    seen.clear()
    parallel.run_all(lambda p: seen.add(threading.get_ident()), list(range(8)), parallel.WORTH - 1)
    assert seen == {threading.get_ident()}      # too little work to hand any of it over
    monkeypatch.setattr(threads, "_chosen", 1)
    seen.clear()
    parallel.run_all(lambda p: seen.add(threading.get_ident()), list(range(8)), parallel.WORTH)
    assert seen == {threading.get_ident()}


def test_the_caller_never_waits_for_a_pool_thread_that_has_not_started(monkeypatch):
    """The pool's threads busy elsewhere (on a loaded machine: not scheduled): the calling thread
    takes every piece itself and returns, rather than waiting for a helper to wake up."""
    monkeypatch.setattr(threads, "_chosen", 2)
    release = threading.Event()
    pool = parallel._executor(2)
    blockers = [pool.submit(release.wait, 30) for _ in range(2)]       # both pool threads held
    try:
        seen = set()
        done = threading.Event()

        def run():
            parallel.run_all(lambda p: seen.add((p, threading.get_ident())), list(range(8)), parallel.WORTH)
            done.set()
        caller = threading.Thread(target=run)
        caller.start()
        assert done.wait(10), "run_all waited for a pool thread that never started"
        assert sorted(p for p, _ in seen) == list(range(8)) and {t for _, t in seen} == {caller.ident}
    finally:
        release.set()
        for b in blockers:
            b.result(timeout=30)


def test_a_task_error_is_raised_in_the_caller(monkeypatch):
    monkeypatch.setattr(threads, "_chosen", 2)

    def task(piece):
        if piece == 5:
            raise ValueError("piece 5")
    with pytest.raises(ValueError, match="piece 5"):
        parallel.run_all(task, list(range(8)), parallel.WORTH)


def test_thread_count_follows_set_threads_then_the_environment(monkeypatch):
    monkeypatch.setattr(threads, "_chosen", None)
    for var in threads.ENV:
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "3")
    assert threads.count() == 3
    monkeypatch.setattr(threads, "_chosen", 5)
    assert threads.count() == 5


def test_a_weight_fake_quantize_runs_once_into_the_constant_cache(tmp_path, monkeypatch):
    """FakeQuantize on a Const (an INT8 model's weights): computed when the plan is made, then
    read from the program's constants by every run; the convolution's output is the spec
    formula's quantized weights convolved (here a 1x1 convolution: a matmul over channels)."""
    import irrun
    import irrun.analysis.inference
    from irrun.ir.builder import IRWriter
    monkeypatch.setattr(irrun.analysis.inference, "FOLD_LIMIT", 0)      # real-size weights' path
    rng = np.random.default_rng(3)
    weights = rng.standard_normal((4, 3, 1, 1)).astype(np.float32)
    w = IRWriter()
    x = w.parameter("x", "f32", [1, 3, 5, 5])
    lims = [w.const(np.float32(v)) for v in (-1.0, 1.0, -1.0, 1.0)]
    q = w.layer("FakeQuantize", [w.const(weights), *lims], {"levels": 255, "auto_broadcast": "numpy"})
    y = w.layer("Convolution", [x, q], {"strides": "1,1", "pads_begin": "0,0", "pads_end": "0,0",
                                        "dilations": "1,1", "auto_pad": "explicit"})
    w.result(y, "y")
    model = irrun.read_model(w.save(tmp_path / "fq_weights.xml"))
    calls = []
    real = fq_module.quantize_prepared          # (what FakeQuantize1.run calls)
    monkeypatch.setattr(fq_module, "quantize_prepared", lambda *a, **k: calls.append(1) or real(*a, **k))
    data = rng.standard_normal((1, 3, 5, 5)).astype(np.float32)
    outs = [model.run({"x": data})["y"] for _ in range(3)]
    assert len(calls) == 1
    quantized = spec_fake_quantize(weights, np.float32(-1), np.float32(1), np.float32(-1), np.float32(1), 255)
    want = np.einsum("oc,nchw->nohw", quantized[:, :, 0, 0].astype(np.float64), data.astype(np.float64))
    for out in outs:
        np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-5)


def test_the_kept_limit_values_follow_the_limits():
    """FakeQuantize1 keeps what it derives from read-only limits (the same constants every run);
    other limit arrays, or writeable ones, are derived anew: every result is the spec formula's."""
    from irrun.ops.fake_quantize import FakeQuantize1
    op = FakeQuantize1.__new__(FakeQuantize1)
    op.levels, op.auto_broadcast = 255, "numpy"
    x = data((1, 8, 30, 30), np.float32)

    def frozen(*values):
        out = [np.asarray(v, np.float32) for v in values]
        for a in out:
            a.flags.writeable = False
        return out
    first, second = frozen(-1, 1, -1, 1), frozen(-2, 0.5, 0, 3)
    writeable = [np.asarray(v, np.float32) for v in (-0.5, 0.5, -4, 4)]
    for lims in (first, first, second, first, writeable, writeable):
        assert_same_bits(op.run(x, *lims)[0], spec_fake_quantize(x, *lims, 255))
    writeable[1][...] = 3.0             # changed in place: not a kept value
    assert_same_bits(op.run(x, *writeable)[0], spec_fake_quantize(x, *writeable, 255))


def test_the_kept_prelu_slope_follows_the_slope():
    """PRelu1 keeps the kernel it picks for a read-only slope (a constant: the same array every
    run); another slope, another data shape or a writeable slope changed in place is looked at
    anew: every result is the spec formula ``x < 0 ? x * slope : x``."""
    op = PRelu1.__new__(PRelu1)
    x, small = data((1, 8, 30, 30), np.float32), data((1, 8, 2, 2), np.float32, seed=2)

    def frozen(values):
        a = np.asarray(values, np.float32)
        a.flags.writeable = False
        return a

    def spec(v, s):
        view = s.reshape(1, -1, 1, 1) if s.size == 8 else s
        with np.errstate(all="ignore"):
            return np.where(v < 0, v * view, v).astype(np.float32)
    below_one, above_one = frozen(np.linspace(0.1, 0.9, 8)), frozen([2.5])
    writeable = np.full(8, 0.5, np.float32)
    for v, s in ((x, below_one), (x, below_one), (small, below_one), (x, above_one), (x, below_one),
                 (x, writeable), (x, writeable)):
        assert_same_bits(op.run(v, s)[0], spec(v, s))
    writeable[...] = -3.0               # changed in place: a negative slope needs the masked select
    assert_same_bits(op.run(x, writeable)[0], spec(x, writeable))


def test_fake_quantize_takes_bigger_blocks_only_when_shared_with_the_pool(monkeypatch):
    """Split over the pool, FakeQuantize's blocks are FQ_SPLIT_BLOCK elements (fewer GIL hand-overs
    between the threads), in one thread FQ_BLOCK (smaller, L2-sized for eight passes)."""
    sizes: list[list[int]] = []
    real = parallel.run_all
    x = data((1, 96, 128, 128), np.float32)             # 1.5M elements: over WORTH
    monkeypatch.setattr(fq_module, "run_all", lambda task, pieces, size: sizes.append(
        [x[p].size for p in pieces]) or real(task, pieces, size))
    monkeypatch.setattr(parallel, "WORTH", 1 << 20)
    for n in (1, 2):
        monkeypatch.setattr(threads, "_chosen", n)
        assert_same_bits(fake_quantize(x, -1.25, 1.5, -1.25, 1.5, 256), spec_fake_quantize(x, -1.25, 1.5, -1.25, 1.5, 256))
    one, two = sizes
    assert max(one) <= fq_module.FQ_BLOCK < fq_module.FQ_SPLIT_BLOCK
    assert max(two) == fq_module.FQ_SPLIT_BLOCK and sum(two) == x.size
