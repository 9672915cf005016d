"""Build small IRs with compressed weights — the decompression patterns of LLM exports — and record
OpenVINO's outputs, as checked-in fixtures under tests/fixtures/compressed/<case>/.

    python tools/make_compressed_fixtures.py [--out tests/fixtures/compressed] [-k substring]

Each case is one weight Const of a packed or narrow type (u8, i8, u4, i4, nf4, f16) followed by
the pattern NNCF/optimum write: ``Convert(f16|f32)`` -> ``Subtract(zero point)`` (a Const of the
same type + Convert, or an f16/f32 Const; absent for symmetric/nf4 weights) -> ``Multiply(scale
f16|f32)`` -> (for group-wise scales, weights shaped ``[N, groups, group_size]``) ``Reshape`` to
``[N, K]`` -> ``Convert(f32)`` -> ``MatMul(x, W, transpose_b)`` (or a ``Gather`` for an
embedding table). The graph is built with OpenVINO's Python API in the oracle worker
(tools/ovoracle.py, CI=true) and written by ``ov.save_model(compress_to_fp16=False)``, which does
not fold constants; the tool checks that the written XML still holds the packed Const and the
whole Convert/Subtract/Multiply chain.

Per case it writes model.xml/.bin, inputs.npz, expected.npz (OpenVINO CPU plugin,
INFERENCE_PRECISION_HINT f32 and DYNAMIC_QUANTIZATION_GROUP_SIZE 0 — by default the CPU plugin
quantizes the activations of MatMuls with 8-bit weights to int8, 15% off), reference.npz (the reference evaluator: Parameters -> Constants +
ConstantFolding, which computes the f16 chain in f16) and meta.json (the pattern, both oracles'
agreement). tests/test_compressed.py replays them through irrun.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

os.environ["CI"] = "true"

import numpy as np  # noqa: E402
from lxml import etree  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))
from make_nn_expectations import ov_version  # noqa: E402
from ovoracle import Oracle  # noqa: E402

PACKED = ("u4", "i4", "nf4")
CODE_RANGE = {"u8": (0, 255), "i8": (-128, 127), "u4": (0, 15), "i4": (-8, 7), "nf4": (0, 15)}


def case(name: str, desc: str, weight: str, n: int, k: int, groups: int = 1, zp: str | None = None,
         dtype: str = "f16", batch: tuple = (2,), consumer: str = "matmul", seed: int = 0) -> dict:
    """One model's data: weight codes [N, groups, K/groups] (or [N, K]), zero points and scales per
    (row, group), an f32 input [*batch, K] (or i64 ids for a Gather)."""
    rng = np.random.default_rng(seed)
    gs = k // groups
    wshape = (n, groups, gs) if groups > 1 else (n, k)
    sshape = (n, groups, 1) if groups > 1 else (n, 1)
    spec = dict(name=name, desc=desc, weight=weight, dtype=dtype, consumer=consumer, n=n, k=k, groups=groups)
    if weight == "f16":
        spec["w"] = rng.uniform(-1, 1, wshape).astype(np.float16)
    else:
        lo, hi = CODE_RANGE[weight]
        spec["w"] = rng.integers(lo, hi, wshape, endpoint=True).astype(np.int64)
        spec["scale"] = rng.uniform(0.005, 0.05, sshape).astype({"f16": np.float16, "f32": np.float32}[dtype])
        if zp in ("u8", "u4", "i4", "i8"):
            lo, hi = CODE_RANGE[zp]
            spec["zp"], spec["zp_type"] = rng.integers(lo, hi, sshape, endpoint=True).astype(np.int64), zp
        elif zp is not None:
            spec["zp"], spec["zp_type"] = rng.uniform(0, 15, sshape).round().astype(zp), zp
    if consumer == "gather":
        spec["x"] = rng.integers(0, n, batch).astype(np.int64)
    else:
        spec["x"] = rng.uniform(-2, 2, (*batch, k)).astype(np.float32)
    return spec


CASES = [
    case("u8_asym_channel", "u8 weights, u8 zero point per output channel, f16 scale", "u8", 8, 32, zp="u8"),
    case("u8_asym_f32", "u8 weights decompressed in f32: f32 zero point and scale", "u8", 8, 32, zp="float32",
         dtype="f32", seed=1),
    case("i8_sym_channel", "i8 weights, no zero point, f16 scale per channel", "i8", 8, 32, seed=2),
    case("u4_asym_group", "u4 weights in groups of 8, u4 zero point, f16 scale per group", "u4", 8, 32, groups=4,
         zp="u4", batch=(1, 3), seed=3),
    case("u4_asym_group_f16_zp", "u4 weights in groups of 16, f16 zero point per group", "u4", 6, 32, groups=2,
         zp="float16", seed=4),
    case("u4_odd", "u4 weights with an odd element count (3x5), u4 zero point per channel", "u4", 3, 5, zp="u4",
         seed=5),
    case("i4_sym_group", "i4 weights in groups of 8, f16 scale per group", "i4", 8, 32, groups=4, seed=6),
    case("i4_sym_f32", "i4 weights per channel, f32 decompression", "i4", 5, 7, dtype="f32", seed=7),
    case("nf4_group", "nf4 weights (code book values) in groups of 16, f16 scale per group", "nf4", 8, 32,
         groups=2, seed=8),
    case("f16_weights", "f16 weights Const -> Convert(f32) -> MatMul", "f16", 8, 32, seed=9),
    case("u8_embedding", "u8 embedding table with u8 zero point and f16 scale, read by Gather", "u8", 16, 8,
         zp="u8", batch=(2, 3), consumer="gather", seed=10),
]


# ---------------------------------------------------------------------------------------------
# Worker side

def _pack4(codes: np.ndarray) -> np.ndarray:
    """Two 4-bit codes per byte, the first in the low nibble (OpenVINO's u4/i4/nf4 layout)."""
    flat = (codes.reshape(-1).astype(np.int64) & 0xF).astype(np.uint8)
    if flat.size % 2:
        flat = np.append(flat, np.uint8(0))
    return flat[0::2] | (flat[1::2] << 4)


def _const(etype: str, values: np.ndarray):
    import openvino as ov
    if etype in PACKED:
        t = ov.Tensor(getattr(ov.Type, etype), ov.Shape(list(values.shape)))
        t.data[:] = _pack4(values)
        return ov.op.Constant(t)
    dt = {"u8": np.uint8, "i8": np.int8}.get(etype)
    return ov.op.Constant(ov.Tensor(np.ascontiguousarray(values.astype(dt) if dt else values)))


def build_model(spec: dict, xml: str) -> str:
    import openvino as ov
    import openvino.opset13 as ops

    dt = ov.Type.f16 if spec["dtype"] == "f16" else ov.Type.f32
    if spec["consumer"] == "gather":
        x = ops.parameter(list(spec["x"].shape), ov.Type.i64, name="ids")
    else:
        x = ops.parameter(list(spec["x"].shape), ov.Type.f32, name="x")
    if spec["weight"] == "f16":
        w = ops.convert(_const("f16", spec["w"]), ov.Type.f32)
    else:
        w = ops.convert(_const(spec["weight"], spec["w"]), dt)
        if "zp" in spec:
            if spec["zp_type"] in ("u8", "i8", "u4", "i4"):
                zp = ops.convert(_const(spec["zp_type"], spec["zp"]), dt)
            else:
                zp = _const("", spec["zp"])
            w = ops.subtract(w, zp)
        w = ops.multiply(w, _const("", spec["scale"]))
        if spec["groups"] > 1:
            w = ops.reshape(w, ops.constant(np.array([spec["n"], spec["k"]], np.int64)), special_zero=False)
        if spec["dtype"] == "f16":
            w = ops.convert(w, ov.Type.f32)
    if spec["consumer"] == "gather":
        y = ops.gather(w, x, ops.constant(np.int64(0)))
    else:
        y = ops.matmul(x, w, transpose_a=False, transpose_b=True)
    y.output(0).set_names({"y"})
    ov.save_model(ov.Model([y.output(0)], [x], spec["name"]), xml, compress_to_fp16=False)
    return xml


#: the CPU plugin quantizes the activations of a MatMul with 8-bit weights to int8 on the fly
#: (``DYNAMIC_QUANTIZATION_GROUP_SIZE``), 15% off on u8/i8 weights; the oracle runs without it
CPU_CONFIG = {"INFERENCE_PRECISION_HINT": "f32", "DYNAMIC_QUANTIZATION_GROUP_SIZE": "0"}


def run_cpu(xml: str, feeds: dict, config: dict) -> np.ndarray:
    """(worker side) One inference on the CPU plugin with ``config``; the output ``y``."""
    import openvino as ov
    compiled = ov.Core().compile_model(xml, "CPU", config)
    return np.array(compiled(feeds)["y"], copy=True)


# ---------------------------------------------------------------------------------------------
# Parent side

def check_chain(xml: Path, spec: dict) -> list[str]:
    """The layer types in the written IR; asserts the packed Const and the chain survived."""
    layers = etree.parse(str(xml)).getroot().find("layers")
    types = [L.get("type") for L in layers]
    const_types = {(L.find("data").get("element_type")) for L in layers if L.get("type") == "Const"}
    assert spec["weight"] in const_types, (spec["name"], const_types)
    want = ["Convert"] + (["Subtract"] if "zp" in spec else []) + (["Multiply"] if spec["weight"] != "f16" else [])
    for t in want:
        assert t in types, f"{spec['name']}: save_model dropped the {t} of the decompression ({types})"
    return types


def agreement(a: np.ndarray, b: np.ndarray) -> dict:
    d = np.abs(a.astype(np.float64) - b.astype(np.float64))
    rel = d / np.maximum(np.abs(b.astype(np.float64)), 1e-6)
    return {"max_abs": float(d.max()), "max_rel": float(rel.max())}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=ROOT / "tests/fixtures/compressed")
    ap.add_argument("-k", default="")
    args = ap.parse_args(argv)
    with Oracle() as ov, tempfile.TemporaryDirectory() as tmp:
        for spec in CASES:
            if args.k not in spec["name"]:
                continue
            xml = Path(tmp) / f"{spec['name']}.xml"
            r = ov.call(build_model, spec, str(xml))
            assert r.ok, (spec["name"], r.message)
            types = check_chain(xml, spec)
            name = "ids" if spec["consumer"] == "gather" else "x"
            feeds = {name: spec["x"]}
            cpu, ref = ov.call(run_cpu, str(xml), feeds, CPU_CONFIG), ov.reference(xml, feeds)
            default = ov.cpu(xml, feeds)
            assert cpu.ok and ref.ok and default.ok, (spec["name"], cpu.message, ref.message, default.message)
            y_cpu, y_ref = cpu.value, ref.by_name()["y"]
            d = args.out / spec["name"]
            d.mkdir(parents=True, exist_ok=True)
            shutil.copy(xml, d / "model.xml")
            shutil.copy(xml.with_suffix(".bin"), d / "model.bin")
            np.savez(d / "inputs.npz", **feeds)
            np.savez(d / "expected.npz", y=y_cpu)
            np.savez(d / "reference.npz", y=y_ref)
            meta = {"case": spec["name"], "description": spec["desc"], "weight": spec["weight"],
                    "zero_point": spec.get("zp_type"), "decompression": spec["dtype"], "groups": spec["groups"],
                    "consumer": spec["consumer"], "layers": types,
                    "oracle": "OpenVINO CPU plugin, INFERENCE_PRECISION_HINT f32 (expected.npz); reference "
                              "evaluator in reference.npz",
                    "cpu_config": CPU_CONFIG, "cpu_vs_reference": agreement(y_cpu, y_ref),
                    "default_cpu_vs_reference": agreement(default.by_name()["y"], y_ref),
                    "openvino": ov_version()}
            (d / "meta.json").write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")
            print(f"{spec['name']}: {' '.join(t for t in types if t not in ('Parameter', 'Result'))}; "
                  f"CPU vs reference {meta['cpu_vs_reference']}, default CPU {meta['default_cpu_vs_reference']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
