"""The Winograd F(2x2, 3x3) path of Convolution-1 / GroupConvolution-1 (irrun/ops/_winograd.py):
which layers take it, and its results against a direct f64 sum of the definition and against
OpenVINO's CPU plugin at f32 -- never against irrun's own im2col path."""

import numpy as np
import pytest
from helpers import _build, _tmp, needs_openvino, run_op

from irrun.ops import _conv, _winograd


def attrs(pads_begin=(1, 1), pads_end=(1, 1), auto_pad="explicit"):
    return dict(strides=[1, 1], pads_begin=list(pads_begin), pads_end=list(pads_end), dilations=[1, 1],
                auto_pad=auto_pad)


def direct_f64(x, w, pads_begin, out):
    """The convolution's definition summed in f64, tap by tap: ``w`` [G, Og, Cg, 3, 3];
    ``y[n, g*Og + o, i, j] = sum_{c, a, b} x[n, g*Cg + c, i + a - pt, j + b - pl] * w[g, o, c, a, b]``
    (zeros outside the input). IEEE arithmetic, so inf * 0 = NaN and inf - inf = NaN as the spec's
    sum of products gives."""
    g, og, cg = w.shape[:3]
    n, _, h, wd = x.shape
    pt, pl = pads_begin
    xp = np.zeros((n, g * cg, out[0] + 2, out[1] + 2))
    r0, c0 = max(pt, 0), max(pl, 0)
    rows, cols = min(h, out[0] + 2 - r0), min(wd, out[1] + 2 - c0)
    xp[:, :, r0:r0 + rows, c0:c0 + cols] = x[:, :, :rows, :cols]
    y = np.zeros((n, g * og, *out))
    with np.errstate(invalid="ignore", over="ignore"):
        for gi in range(g):
            xs = xp[:, gi * cg:(gi + 1) * cg]
            for a in range(3):
                for b in range(3):
                    y[:, gi * og:(gi + 1) * og] += np.einsum(
                        "oc,nchw->nohw", w[gi, :, :, a, b].astype(np.float64), xs[:, :, a:a + out[0], b:b + out[1]])
    return y


@pytest.fixture
def taken(monkeypatch):
    """The shapes of the inputs that went through the Winograd kernel during the test."""
    calls = []
    real = _conv.conv3x3

    def spy(x, u, pads_begin, out):
        calls.append(x.shape)
        return real(x, u, pads_begin, out)
    monkeypatch.setattr(_conv, "conv3x3", spy)
    return calls


def check_close(got, want, rel=2e-6):
    """f32 rounding: each output within ``rel`` of the sum of |products| scale (the output's RMS)."""
    scale = np.sqrt(np.mean(want[np.isfinite(want)] ** 2)) + 1e-30
    assert np.abs(got.astype(np.float64) - want).max() <= rel * scale * 10, np.abs(got - want).max() / scale


SHAPES = [  # (N, C, K, H, W, pads_begin, pads_end)
    (1, 32, 32, 12, 12, (1, 1), (1, 1)),        # whole 2x2 tiles
    (2, 32, 40, 9, 13, (1, 1), (1, 1)),         # batch 2, odd sizes: ragged last tiles
    (1, 48, 32, 7, 5, (0, 0), (0, 0)),          # valid padding
    (1, 32, 32, 6, 10, (2, 0), (1, 3)),         # uneven explicit pads
    (1, 32, 33, 5, 6, (3, 3), (3, 3)),          # pads wider than the kernel: whole zero tiles
]


@pytest.mark.parametrize("n, c, k, h, w, pb, pe", SHAPES)
def test_matches_the_definition(n, c, k, h, w, pb, pe, taken):
    rng = np.random.default_rng(11)
    x = rng.standard_normal((n, c, h, w)).astype(np.float32)
    wt = rng.standard_normal((k, c, 3, 3)).astype(np.float32)
    out = [h + pb[0] + pe[0] - 2, w + pb[1] + pe[1] - 2]
    got = run_op("Convolution", [x, wt], attrs(pb, pe))[0]
    assert taken, "the layer was meant to take the Winograd path"
    assert got.shape == (n, k, *out) and got.dtype == np.float32
    check_close(got, direct_f64(x, wt[None], pb, out))


@pytest.mark.parametrize("auto_pad, pads", [("same_upper", (1, 1)), ("same_lower", (1, 1)), ("valid", (0, 0))])
def test_auto_pad(auto_pad, pads, taken):
    """3x3, stride 1: same_upper and same_lower both pad one each side; valid none."""
    rng = np.random.default_rng(12)
    x = rng.standard_normal((1, 32, 11, 8)).astype(np.float32)
    wt = rng.standard_normal((32, 32, 3, 3)).astype(np.float32)
    got = run_op("Convolution", [x, wt], attrs((0, 0), (0, 0), auto_pad))[0]
    assert taken
    out = [11 + 2 * pads[0] - 2, 8 + 2 * pads[1] - 2]
    check_close(got, direct_f64(x, wt[None], pads, out))


def test_f16(taken):
    """f16 data and filters: computed in f32, rounded to f16 once."""
    rng = np.random.default_rng(13)
    x = rng.standard_normal((1, 64, 9, 9)).astype(np.float16)
    wt = (rng.standard_normal((64, 64, 3, 3)) / 8).astype(np.float16)
    got = run_op("Convolution", [x, wt], attrs())[0]
    assert taken and got.dtype == np.float16
    want = direct_f64(x.astype(np.float64), wt[None].astype(np.float64), (1, 1), [9, 9])
    np.testing.assert_allclose(got.astype(np.float64), want, rtol=2e-3, atol=2e-3)


@pytest.mark.parametrize("h, w, pb", [(1, 1, (1, 1)), (1, 4, (1, 0)), (3, 1, (0, 1))])
def test_kernel_on_one_pixel_rows_and_columns(h, w, pb):
    """The kernel alone (the rule sends such images to im2col) on 1-pixel-wide inputs: a single,
    mostly padding, tile."""
    rng = np.random.default_rng(18)
    x = rng.standard_normal((2, 3, h, w)).astype(np.float32)
    wt = rng.standard_normal((5, 3, 3, 3)).astype(np.float32)
    out = [h + 2 * pb[0] - 2, w + 2 * pb[1] - 2]
    got = _winograd.conv3x3(x, _winograd.filter_transform(wt), pb, out)
    check_close(got, direct_f64(x, wt[None], pb, out))


def test_grouped(taken):
    """GroupConvolution with 32 channels per group: one Winograd product set per group."""
    rng = np.random.default_rng(14)
    x = rng.standard_normal((1, 64, 10, 10)).astype(np.float32)
    wt = rng.standard_normal((2, 32, 32, 3, 3)).astype(np.float32)
    got = run_op("GroupConvolution", [x, wt], attrs())[0]
    assert taken
    check_close(got, direct_f64(x, wt, (1, 1), [10, 10]))


def test_small_channels_f64_and_runtime_filters_keep_im2col(taken):
    """Not taken: below 32 channels (measured slower), f64 data (summed in f64 by im2col, in its
    order), filters that are an input of the model (not a constant: no transform kept)."""
    rng = np.random.default_rng(15)
    x = rng.standard_normal((1, 16, 12, 12)).astype(np.float32)
    run_op("Convolution", [x, rng.standard_normal((16, 16, 3, 3)).astype(np.float32)], attrs())
    x64 = rng.standard_normal((1, 32, 12, 12))
    w64 = rng.standard_normal((32, 32, 3, 3))
    got = run_op("Convolution", [x64, w64], attrs())[0]
    np.testing.assert_allclose(got, direct_f64(x64, w64[None], (1, 1), [12, 12]), rtol=1e-12, atol=1e-11)
    x32 = x64.astype(np.float32)
    run_op("Convolution", [x32, w64.astype(np.float32)], attrs(), params=(0, 1))
    assert taken == []


def test_rule():
    """The measured rule (irrun/ops/_winograd.py worth_it): 32 channels and enough 2x2 tiles."""
    assert _winograd.worth_it(64, 64, (56, 56)) and _winograd.worth_it(256, 256, (14, 14))
    assert _winograd.worth_it(128, 128, (7, 7))            # 16 tiles * 16 > 128
    assert not _winograd.worth_it(512, 512, (7, 7))        # ResNet-18's last stage: 0.77x
    assert not _winograd.worth_it(16, 64, (56, 56))
    assert not _winograd.worth_it(64, 64, (56, 56), threads=2)   # 2 BLAS threads: 784 tiles > 8 * 64
    assert _winograd.worth_it(128, 128, (28, 28), threads=2)


@pytest.mark.parametrize("where", ["input-inf", "input-nan", "filter-inf"])
def test_non_finite_values_give_the_definitions_inf_and_nan(where, taken):
    """One inf in a 4x4 tile would turn the transform's outputs into NaN where the direct sum
    gives +-inf: such a layer is recomputed by im2col, so every output is the definition's
    (inf where it is inf with its sign, NaN where it is NaN)."""
    rng = np.random.default_rng(16)
    x = rng.standard_normal((1, 32, 8, 8)).astype(np.float32)
    wt = rng.standard_normal((32, 32, 3, 3)).astype(np.float32)
    if where == "input-inf":
        x[0, 3, 4, 5] = np.inf
        x[0, 7, 1, 1] = -np.inf
    elif where == "input-nan":
        x[0, 0, 2, 6] = np.nan
    else:
        wt[5, 2, 1, 0] = np.inf
    got = run_op("Convolution", [x, wt], attrs())[0].astype(np.float64)
    want = direct_f64(x, wt[None], (1, 1), [8, 8])
    assert not np.isfinite(want).all()
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_array_equal(np.isposinf(got), np.isposinf(want))
    np.testing.assert_array_equal(np.isneginf(got), np.isneginf(want))
    fin = np.isfinite(want)
    check_close(got[fin].reshape(-1), want[fin].reshape(-1))
    assert len(taken) == (where != "filter-inf"), "filters with inf never take the path"


@needs_openvino
@pytest.mark.parametrize("dtype", ["f32", "f16"])
def test_against_openvino(dtype):
    """A ResNet-style layer (64 channels, 20x20, pads 1) and a grouped one against OpenVINO's
    CPU plugin at f32 (tools/ovoracle.py)."""
    from tools.ovoracle import Oracle
    rng = np.random.default_rng(17)
    np_dtype = np.float32 if dtype == "f32" else np.float16
    x = rng.standard_normal((1, 64, 20, 20)).astype(np_dtype)
    cases = [("Convolution", (rng.standard_normal((64, 64, 3, 3)) / 24).astype(np_dtype)),
             ("GroupConvolution", (rng.standard_normal((2, 48, 32, 3, 3)) / 17).astype(np_dtype))]
    with Oracle() as ov:
        for op, wt in cases:
            tmp = _tmp()
            model, feeds = _build(tmp, op, [x, wt], attrs(), "opset1", 1, (0,))
            got = model.run(feeds)["out0"]
            ref = ov.cpu(str(tmp / f"{op}.xml"), {"in0": x})
            assert ref.ok, ref
            want = ref.outputs[0].array
            assert got.dtype == want.dtype and got.shape == want.shape
            tol = 1e-5 if dtype == "f32" else 2e-3
            np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=tol, atol=tol)


def test_filters_over_the_memory_budget_keep_im2col(taken):
    """256x256 filters: their f64 transform needs 8 MiB; under a 6 MiB budget the layer still
    runs (im2col), under 64 MiB it takes the Winograd path -- both give the definition's sums."""
    rng = np.random.default_rng(19)
    x = rng.standard_normal((1, 256, 14, 14)).astype(np.float32)
    wt = rng.standard_normal((256, 256, 3, 3)).astype(np.float32)
    want = direct_f64(x, wt[None], (1, 1), [14, 14])
    for mib, winograd in ((6, False), (64, True)):
        taken.clear()
        model, feeds = _build(_tmp(), "Convolution", [x, wt], attrs(), "opset1", 1, (0,))
        got = model.run(feeds, max_memory=mib << 20)["out0"]
        assert bool(taken) == winograd, mib
        check_close(got, want)
