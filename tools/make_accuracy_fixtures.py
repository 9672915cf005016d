"""Build the small IRs the accuracy tests use (tests/fixtures/accuracy/), with OpenVINO and NNCF.

    CI=true python tools/make_accuracy_fixtures.py

* ``mlp/``: x[2,16] -> MatMul -> Add -> Relu -> MatMul -> Add -> Relu -> MatMul (fp32 weights);
* ``block/``: a one-head transformer block on x[1,6,16] (q/k/v projections, scaled scores,
  Softmax, output projection, residual Add, a RMS-style normalisation, a two-MatMul MLP);
* ``block_int8/``, ``block_int4/``: ``block`` compressed by ``nncf.compress_weights``
  (INT8_ASYM; INT4_SYM with group size 8, ratio 1): the decompression chains the matcher must see
  through;
* ``overflow/``: x[1,8] -> MatMul -> Multiply by 3000 -> Multiply by 1e-3 -> MatMul: for inputs in
  [-1, 1] the first Multiply's values exceed f16's 65504 (it is not in the graph tail OpenVINO
  keeps in f32, a MatMul follows), so f16 inference overflows there and nowhere before;
* ``log0/``: x[1,6] -> Relu -> Multiply by [1,0,1,1,0,1] -> Log -> Add 1: log(0) = -inf at
  positions 1 and 4, from finite inputs;
* ``inputs.npz`` per model (seeded), and ``block/bf16_openvino.npz``: OpenVINO CPU's output with
  ``INFERENCE_PRECISION_HINT=bf16`` (when the CPU supports bf16), the oracle for the simulation.

Weights are saved uncompressed (``compress_to_fp16=False``) so that perturbing one weight in a
copy (tests/test_accuracy.py) changes exactly one layer.
"""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np

os.environ.setdefault("CI", "true")
import openvino as ov                      # noqa: E402
import openvino.opset13 as ops             # noqa: E402

OUT = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "accuracy"
rng = np.random.default_rng(7)


def w(*shape, scale=0.3):
    return ops.constant(rng.normal(0, scale, shape).astype(np.float32))


def named(node, name):
    node.set_friendly_name(name)
    node.output(0).set_names({name})
    return node


def mlp():
    x = ops.parameter([2, 16], np.float32, name="x")
    h = x
    for k, (i, o) in enumerate([(16, 32), (32, 32), (32, 8)]):
        h = named(ops.matmul(h, w(i, o), False, False), f"fc{k}/MatMul")
        if k < 2:
            h = named(ops.add(h, w(1, o, scale=0.1)), f"fc{k}/Add")
            h = named(ops.relu(h), f"fc{k}/Relu")
    return ov.Model([ops.result(h)], [x], "mlp"), {"x": rng.uniform(-1, 1, (2, 16)).astype(np.float32)}


def block():
    d = 16
    x = ops.parameter([1, 6, d], np.float32, name="x")
    q = named(ops.matmul(x, w(d, d), False, False), "attn/q_proj/MatMul")
    k = named(ops.matmul(x, w(d, d), False, False), "attn/k_proj/MatMul")
    v = named(ops.matmul(x, w(d, d), False, False), "attn/v_proj/MatMul")
    s = named(ops.matmul(q, k, False, True), "attn/scores/MatMul")
    s = named(ops.multiply(s, ops.constant(np.float32(0.25))), "attn/scale/Multiply")
    p = named(ops.softmax(s, -1), "attn/Softmax")
    a = named(ops.matmul(p, v, False, False), "attn/context/MatMul")
    o = named(ops.matmul(a, w(d, d), False, False), "attn/o_proj/MatMul")
    h = named(ops.add(x, o), "attn/residual/Add")
    sq = named(ops.multiply(h, h), "norm/square/Multiply")
    mean = named(ops.reduce_mean(sq, ops.constant(np.int64([-1])), True), "norm/ReduceMean")
    eps = named(ops.add(mean, ops.constant(np.float32(1e-6))), "norm/eps/Add")
    rms = named(ops.sqrt(eps), "norm/Sqrt")
    n = named(ops.divide(h, rms), "norm/Divide")
    u = named(ops.matmul(n, w(d, 32), False, False), "mlp/up_proj/MatMul")
    u = named(ops.relu(u), "mlp/Relu")
    m = named(ops.matmul(u, w(32, d), False, False), "mlp/down_proj/MatMul")
    y = named(ops.add(h, m), "mlp/residual/Add")
    return ov.Model([ops.result(y)], [x], "block"), {"x": rng.normal(0, 1, (1, 6, d)).astype(np.float32)}


def overflow():
    x = ops.parameter([1, 8], np.float32, name="x")
    h = named(ops.matmul(x, ops.constant(np.full((8, 8), 4.0, np.float32)), False, False), "in/MatMul")
    h = named(ops.multiply(h, ops.constant(np.float32(3000.0))), "big/Multiply")
    h = named(ops.multiply(h, ops.constant(np.float32(1e-3))), "small/Multiply")
    h = named(ops.matmul(h, w(8, 4), False, False), "out/MatMul")
    return ov.Model([ops.result(h)], [x], "overflow"), {"x": np.full((1, 8), 0.9, np.float32)}


def log0():
    x = ops.parameter([1, 6], np.float32, name="x")
    h = named(ops.relu(x), "Relu")
    h = named(ops.multiply(h, ops.constant(np.float32([[1, 0, 1, 1, 0, 1]]))), "mask/Multiply")
    h = named(ops.log(h), "Log")
    h = named(ops.add(h, ops.constant(np.float32(1.0))), "Add")
    return ov.Model([ops.result(h)], [x], "log0"), {"x": np.float32([[0.5, 2.0, 1.5, 3.0, 0.25, 4.0]])}


def save(name, model, inputs):
    d = OUT / name
    d.mkdir(parents=True, exist_ok=True)
    ov.save_model(model, str(d / "model.xml"), compress_to_fp16=False)
    np.savez(d / "inputs.npz", **inputs)


def main() -> None:
    import nncf
    built = {"mlp": mlp(), "block": block(), "overflow": overflow(), "log0": log0()}
    for name, (model, inputs) in built.items():
        save(name, model, inputs)
    core = ov.Core()
    base = core.read_model(str(OUT / "block" / "model.xml"))
    _, inputs = built["block"]
    for name, kw in (("block_int8", dict(mode=nncf.CompressWeightsMode.INT8_ASYM)),
                     ("block_int4", dict(mode=nncf.CompressWeightsMode.INT4_SYM, group_size=8, ratio=1.0,
                                         all_layers=True))):
        save(name, nncf.compress_weights(base.clone(), **kw), inputs)
    if "BF16" in core.get_property("CPU", "OPTIMIZATION_CAPABILITIES"):
        cm = core.compile_model(base, "CPU", {"INFERENCE_PRECISION_HINT": "bf16"})
        out = cm(inputs)[0]
        np.savez(OUT / "block" / "bf16_openvino.npz", y=np.asarray(out, np.float32))
    print(f"wrote {', '.join(sorted(p.name for p in OUT.iterdir()))} in {OUT}")


if __name__ == "__main__":
    main()
