#!/usr/bin/env python3
"""OpenVINO reference outputs for the public IR corpus (tools/conformance/public_corpus.py).

For every entry of CORPUS/manifest.json (or the names given) this starts a fresh worker
``python -I oracle.py --one DIR`` in its own temporary cwd (isolated mode: no user site, no
PYTHON* variables, no script dir on sys.path; CI=true keeps telemetry quiet). The worker

  1. reads DIR/model.xml with ``Core().read_model`` and records every input and output as the
     API shows it: names, element type, partial shape;
  2. picks a static shape for each input (dynamic dims: see ``static_shape``), draws seeded random
     inputs (``np.random.default_rng(0)``; floats uniform in ``value_range``), compiles on CPU with
     {"INFERENCE_PRECISION_HINT": "f32"} and runs one inference;
  3. writes DIR/expected.npz (inputs as "in:NAME", outputs as "out:NAME") and DIR/openvino.json
     (what OpenVINO showed, the shapes and ranges chosen, or the error where it could not read,
     compile or infer the model);
  4. for a model with FakeQuantize, runs it again with the CPU plugin's low-precision
     transformations off (``LP_TRANSFORMS_MODE`` False: FakeQuantize computed in f32 rather than
     by int8 kernels) and writes those outputs to DIR/expected_lpt_off.npz ("out:NAME"): how far
     OpenVINO's own two paths lie apart is the INT8 measure's noise floor (tools/conformance/public_corpus.py).

Usage:
  oracle.py [NAME ...] [--force] [--timeout S] [--threads N]
      (re)compute the references (existing openvino.json is kept unless --force)
  oracle.py --one DIR     worker mode (what the driver runs in a subprocess)
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

CORPUS = Path(os.environ.get("IRRUN_PUBLIC_CORPUS", "/work/corpus/public"))

# Per-model overrides: name substring -> {"shapes": {input: [dims]}, "range": (lo, hi) for
# float inputs, "int_range": (lo, hi) for integer inputs}
OVERRIDES: dict[str, dict] = {
    "detokenizer": {"int_range": (100, 5000)},   # token ids past the special tokens
}


def int_range(model_name: str) -> tuple[int, int]:
    for key, ov in OVERRIDES.items():
        if key in model_name and "int_range" in ov:
            return tuple(ov["int_range"])
    return (0, 10)


# string inputs (tokenizers) cycle through these
TEXTS = ["a photo of a cat", "Hello, World! How are you?", "OpenVINO IR: model.xml + model.bin",
         "naïve café — déjà vu 123"]


def value_range(model_name: str, shape: list[int], etype: str) -> tuple[float, float]:
    """The range random float inputs are drawn from.

    Ultralytics YOLO exports take images scaled to [0, 1]; OMZ / Model Optimizer image models
    take raw [0, 255] pixels (their mean/scale is folded in); anything that is not an image
    (rank != 4 or no 1/3-channel axis) gets [0, 1]."""
    for key, ov in OVERRIDES.items():
        if key in model_name and "range" in ov:
            return tuple(ov["range"])
    is_image = len(shape) == 4 and (shape[1] in (1, 3) or shape[3] in (1, 3))
    if not is_image:
        return (0.0, 1.0)
    low = model_name.lower()
    if "yolo" in low or "best" in low:
        return (0.0, 1.0)
    return (0.0, 255.0)


def static_shape(model_name: str, input_name: str, pshape) -> list[int]:
    """A static shape for a (possibly dynamic) partial shape: batch 1, YOLO spatial 640,
    other image spatial 224, any other dynamic dim 16."""
    for key, ov in OVERRIDES.items():
        if key in model_name and input_name in ov.get("shapes", {}):
            return list(ov["shapes"][input_name])
    if pshape.rank.is_dynamic:
        return [1, 3, 224, 224]
    if pshape.rank.get_length() == 1 and pshape[0].is_dynamic:
        return [4]
    dims = []
    rank = pshape.rank.get_length()
    for i, d in enumerate(pshape):
        if d.is_static:
            dims.append(d.get_length())
        elif i == 0:
            dims.append(1)
        elif rank == 4 and i >= 2:
            dims.append(640 if "yolo" in model_name.lower() or "best" in model_name.lower() else 224)
        else:
            dims.append(16)
    return dims


def port_info(port) -> dict:
    names = sorted(port.get_names())
    return {"names": names, "any_name": key_of(port) if names else None,
            "friendly": port.get_node().get_friendly_name(),
            "element_type": port.get_element_type().get_type_name(),
            "partial_shape": str(port.get_partial_shape())}


def key_of(port) -> str:
    try:
        return port.get_any_name()
    except RuntimeError:
        return port.get_node().get_friendly_name()


def worker(folder: Path, threads: int) -> int:
    import numpy as np
    import openvino as ov

    try:  # registers the tokenizer ops (version="extension") with every Core, when installed
        import openvino_tokenizers  # noqa: F401
    except ImportError:
        pass
    report: dict = {"openvino": ov.get_version(), "stage": "read"}
    out_json = folder / "openvino.json"
    try:
        core = ov.Core()
        model = core.read_model(str(folder / "model.xml"))
        report["inputs"] = [port_info(p) for p in model.inputs]
        report["outputs"] = [port_info(p) for p in model.outputs]
        report["stage"] = "inputs"
        rng = np.random.default_rng(0)
        feed, arrays = {}, {}
        chosen = {}
        for p in model.inputs:
            name = key_of(p)
            shape = static_shape(folder.name, name, p.get_partial_shape())
            et = p.get_element_type()
            if et.get_type_name() == "string":
                a = np.array((TEXTS * (1 + int(np.prod(shape)) // len(TEXTS)))[: int(np.prod(shape))],
                             dtype=str).reshape(shape)
                chosen[name] = {"shape": shape, "dtype": "string", "fill": "TEXTS"}
                feed[p] = a
                arrays["in:" + name] = a
                continue
            dt = np.dtype(et.to_dtype())
            if name == "seq_ind" and dt.kind == "f":
                # CTC sequence indicator of the LPR nets: 0 at the first step, 1 after
                a = np.ones(shape, dtype=dt)
                a.reshape(-1)[0] = 0
                chosen[name] = {"shape": shape, "dtype": str(dt), "fill": "seq_ind 0,1,1,..."}
            elif dt.kind == "f":
                lo, hi = value_range(folder.name, shape, et.get_type_name())
                a = rng.uniform(lo, hi, size=shape).astype(dt)
                chosen[name] = {"shape": shape, "dtype": str(dt), "range": [lo, hi]}
            elif dt.kind == "b":
                a = rng.integers(0, 2, size=shape).astype(bool)
                chosen[name] = {"shape": shape, "dtype": "bool"}
            else:
                lo, hi = int_range(folder.name)
                a = rng.integers(lo, hi, size=shape).astype(dt)
                chosen[name] = {"shape": shape, "dtype": str(dt), "range": [lo, hi]}
            feed[p] = a
            arrays["in:" + name] = a
        report["chosen_inputs"] = chosen
        if any(not p.get_partial_shape().is_static for p in model.inputs):
            model.reshape({p: ov.PartialShape(list(feed[p].shape)) for p in model.inputs})
            report["reshaped"] = True
        report["stage"] = "compile"
        compiled = core.compile_model(model, "CPU", {"INFERENCE_PRECISION_HINT": "f32",
                                                     "INFERENCE_NUM_THREADS": threads})
        report["stage"] = "infer"
        req = compiled.create_infer_request()
        res = req.infer({compiled.inputs[i]: feed[p] for i, p in enumerate(model.inputs)})
        outs = {}
        for i, p in enumerate(compiled.outputs):
            a = np.array(res[p])
            outs[key_of(model.outputs[i])] = a
            arrays["out:" + key_of(model.outputs[i])] = a
        report["output_shapes"] = {k: list(v.shape) for k, v in outs.items()}
        report["output_dtypes"] = {k: str(v.dtype) for k, v in outs.items()}
        np.savez(folder / "expected.npz", **arrays)
        if any(op.get_type_name() == "FakeQuantize" for op in model.get_ops()):
            report["stage"] = "lpt-off"
            plain = core.compile_model(model, "CPU", {"INFERENCE_PRECISION_HINT": "f32",
                                                      "INFERENCE_NUM_THREADS": threads,
                                                      "LP_TRANSFORMS_MODE": False})
            res = plain.create_infer_request().infer(
                {plain.inputs[i]: feed[p] for i, p in enumerate(model.inputs)})
            np.savez(folder / "expected_lpt_off.npz",
                     **{"out:" + key_of(model.outputs[i]): np.array(res[p]) for i, p in enumerate(plain.outputs)})
            report["lpt_off"] = True
        report["stage"] = "done"
        report["ok"] = True
    except Exception as e:  # noqa: BLE001 - the error is the result
        report["ok"] = False
        report["error"] = f"{type(e).__name__}: {e}"[:2000]
    out_json.write_text(json.dumps(report, indent=1) + "\n")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("names", nargs="*")
    ap.add_argument("--one", help="worker mode: compute the reference for one corpus folder")
    ap.add_argument("--force", action="store_true")
    ap.add_argument("--timeout", type=float, default=600)
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args(argv)
    if args.one:
        return worker(Path(args.one), args.threads)

    entries = json.loads((CORPUS / "manifest.json").read_text())
    env = dict(os.environ, CI="true")
    for e in entries:
        if args.names and e["name"] not in args.names:
            continue
        folder = CORPUS / e["name"]
        if (folder / "openvino.json").exists() and not args.force:
            continue
        with tempfile.TemporaryDirectory(prefix="oracle-") as cwd:
            try:
                r = subprocess.run([sys.executable, "-I", str(Path(__file__).resolve()), "--one",
                                    str(folder), "--threads", str(args.threads)],
                                   cwd=cwd, env=env, capture_output=True, text=True,
                                   timeout=args.timeout)
                crash = r.returncode != 0
                tail = (r.stderr or "")[-1500:]
            except subprocess.TimeoutExpired:
                crash, tail = True, f"timeout after {args.timeout}s"
        if crash or not (folder / "openvino.json").exists():
            (folder / "openvino.json").write_text(json.dumps(
                {"ok": False, "stage": "worker", "error": f"worker died: {tail}"}, indent=1) + "\n")
        rep = json.loads((folder / "openvino.json").read_text())
        status = "ok" if rep.get("ok") else f"FAIL at {rep.get('stage')}: {rep.get('error', '')[:200]}"
        print(f"{e['name']:50} {status}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
