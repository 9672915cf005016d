"""Compressed weights (tests/fixtures/compressed, made by tools/fixtures/make_compressed_fixtures.py): u8, i8,
u4, i4 and nf4 weight Consts with the Convert -> Subtract(zero point) -> Multiply(scale) [->
Reshape of group-wise weights] -> Convert -> MatMul/Gather decompression of LLM exports, and f16
weights -> Convert. irrun must read the packed Consts, keep the chain, and match OpenVINO's CPU
plugin (f32, no dynamic quantization) and its reference evaluator."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import irrun

ROOT = Path(__file__).parent / "fixtures" / "compressed"
CASES = sorted(p.name for p in ROOT.iterdir() if (p / "meta.json").exists())
#: nf4: OpenVINO's CPU plugin multiplies the code book values by the f16 scale in f32 without
#: rounding the product to f16 as the graph (and the reference evaluator) does — 3.3e-5 apart
#: on outputs of ~0.3; elsewhere rtol 1e-4 / atol 1e-5 as issue 3 asks
CPU_TOL = {"nf4_group": (1e-3, 1e-4)}


def load(case: str):
    d = ROOT / case
    meta = json.loads((d / "meta.json").read_text(encoding="utf-8"))
    with np.load(d / "inputs.npz") as f:
        inputs = {k: f[k] for k in f.files}
    with np.load(d / "expected.npz") as f, np.load(d / "reference.npz") as g:
        return meta, inputs, f["y"], g["y"]


def test_every_pattern_is_there():
    metas = [load(c)[0] for c in CASES]
    assert {m["weight"] for m in metas} == {"u8", "i8", "u4", "i4", "nf4", "f16"}
    assert {m["zero_point"] for m in metas} >= {"u8", "u4", "float16", "float32", None}
    assert any(m["groups"] > 1 for m in metas) and any(m["consumer"] == "gather" for m in metas)


@pytest.mark.parametrize("case", CASES)
def test_matches_openvino(case):
    meta, inputs, cpu, ref = load(case)
    model = irrun.read_model(ROOT / case / "model.xml")
    # the decompression chain is in the IR as OpenVINO wrote it, not folded away
    assert [L.type for L in layers(model) if L.type not in ("Parameter", "Result")] == \
        [t for t in meta["layers"] if t not in ("Parameter", "Result")]
    packed = [L for L in layers(model) if L.type == "Const" and L.data.get("element_type") == meta["weight"]]
    assert packed, f"no {meta['weight']} Const"
    y = model.run(inputs)["y"]
    assert y.dtype == np.float32 and y.shape == cpu.shape
    rtol, atol = CPU_TOL.get(case, (1e-4, 1e-5))
    np.testing.assert_allclose(y, cpu, rtol=rtol, atol=atol, err_msg="vs the CPU plugin")
    np.testing.assert_allclose(y, ref, rtol=1e-5, atol=1e-6, err_msg="vs the reference evaluator")


def layers(model) -> list:
    return sorted((model.graph.nodes[n]["layer"] for n in model.graph.nodes), key=lambda L: L.position)


@pytest.mark.parametrize("case", ["u4_odd", "u4_asym_group", "i4_sym_f32", "nf4_group"])
def test_packed_weights_decode_as_written(case):
    """ir-format.md: two 4-bit elements per byte, the first in the low nibble; i4 two's complement;
    nf4 holds code book indices. Unpacked here from model.bin by hand."""
    meta = load(case)[0]
    model = irrun.read_model(ROOT / case / "model.xml")
    packed = [L for L in layers(model) if L.type == "Const" and L.data["element_type"] == meta["weight"]]
    assert packed, f"no {meta['weight']} Const"
    for w in packed:
        check_packed(case, w, meta["weight"])


def check_packed(case: str, w, etype: str) -> None:
    raw = np.fromfile(ROOT / case / "model.bin", np.uint8)[int(w.data["offset"]):][:int(w.data["size"])]
    codes = np.stack([raw & 0xF, raw >> 4], axis=1).reshape(-1)[:w.const_value.size].astype(np.int64)
    if etype == "i4":
        codes = np.where(codes > 7, codes - 16, codes)
    assert w.const_value.shape == tuple(int(d) for d in w.data["shape"].split(","))
    np.testing.assert_array_equal(w.const_value.astype(np.int64).reshape(-1), codes)


def test_unfolded_chain_runs_in_f32_too(tmp_path):
    """Weights above the folding limit are decompressed by the executor, with the same rule:
    (w - zp) * scale in f32, no f16 rounding of the product (OpenVINO's CPU plugin and its
    ConstantFolding both compute it so; each f16 op alone would round)."""
    from irrun.ir.builder import IRWriter
    rng = np.random.default_rng(0)
    n, k = 300, 256                                  # 76800 weights > irrun.analysis.inference.FOLD_LIMIT
    w = rng.integers(0, 255, (n, k), endpoint=True).astype(np.uint8)
    zp = rng.integers(100, 150, (n, 1)).astype(np.uint8)
    scale = rng.uniform(0.005, 0.05, (n, 1)).astype(np.float16)
    x = rng.uniform(-2, 2, (2, k)).astype(np.float32)
    b = IRWriter("big")
    f16 = lambda port: b.layer("Convert", [port], {"destination_type": "f16"})  # noqa: E731
    dec = b.layer("Subtract", [f16(b.const(w)), f16(b.const(zp))])
    dec = b.layer("Multiply", [dec, b.const(scale)])
    dec = b.layer("Convert", [dec], {"destination_type": "f32"})
    y = b.layer("MatMul", [b.parameter("x", "f32", [2, k]), dec], {"transpose_a": "false", "transpose_b": "true"})
    b.result(y, "y")
    out = irrun.read_model(b.save(tmp_path / "big.xml")).run({"x": x})["y"]
    exact = (w.astype(np.float64) - zp) * scale.astype(np.float64)
    np.testing.assert_allclose(out, x.astype(np.float64) @ exact.T, rtol=1e-5, atol=1e-5)
    rounded = ((w.astype(np.float16) - zp.astype(np.float16)) * scale).astype(np.float64)
    assert np.abs(x @ rounded.T - x @ exact.T).max() > 1e-3       # what per-op rounding would give
