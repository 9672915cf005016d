"""irrun next to OpenVINO, onnxruntime and ONNX's ReferenceEvaluator: one run, side by side, as ratios.

    CI=true python -m tools.bench.bench [--models resnet18,mobilenetv2,bert_small,datamove]
                                  [--threads 1,2] [--runtimes irrun,openvino,onnxruntime,reference,openvino-default]
                                  [--public NAME,...|all|none] [--corpus DIR]
                                  [--seconds 10] [--workdir DIR] [--irrun-python PATH] [--markdown]
    CI=true python -m tools.bench.bench --llm [real,tiny,read] ...   (decoder LLMs: see tools/bench/bench_llm.py)

Builds (once, cached in ``--workdir``; torch, onnx and openvino are installed on demand) the
models of issue 6, each as ONNX and as the IR OpenVINO converts that ONNX to, so every runtime
runs the same graph:

* resnet18: a ResNet-18-style net (BasicBlocks 64-128-256-512, BatchNorm folded by the export)
  at 1x3x224x224; random weights, seed 0.
* mobilenetv2: a MobileNetV2-style net (inverted residuals, depthwise 3x3, ReLU6) at 1x3x224x224.
* bert_small: a BERT-style encoder, hidden 256, 4 layers, 4 heads, FFN 1024, sequence 128
  (token ids + attention mask inputs, erf GELU, LayerNorm).
* public IR files (``--public``, from ``--corpus``: default ``$IRRUN_PUBLIC_CORPUS`` or
  /work/corpus/public, a directory per model with model.xml/.bin and expected.npz holding its
  ``in:*`` inputs, manifest.json saying which carry FakeQuantize): Open Model Zoo detectors,
  re-identification, pose, segmentation, YOLO, and their INT8 (FakeQuantize) versions, run as
  the files are. Skipped with a message when the corpus is absent.
* datamove: 64 MiB of f32 ([1, 64, 512, 512]) through VariadicSplit -> Slice (step -1) ->
  StridedSlice (stride -1) -> ShuffleChannels -> Concat, built with OpenVINO's opset API; its ONNX
  twin spells ShuffleChannels as Reshape -> Transpose -> Reshape.

Each (runtime, model, threads) runs in its own fresh isolated process (``python -I ... --worker``
in the model's directory; irrun from ``--irrun-python``, default this interpreter), which reports:
import (the runtime's Python modules), load (read the model and make it ready to run: OpenVINO read + compile, onnxruntime session,
irrun read_model + shape inference), read (the file reading alone, irrun and OpenVINO), first
inference, the median steady-state latency (repeated until ``--seconds`` or 200 runs, at least
3), and peak RSS (ru_maxrss of the worker). Threads: OpenVINO INFERENCE_NUM_THREADS,
onnxruntime intra_op_num_threads, irrun and ReferenceEvaluator through the BLAS environment
variables (OMP/OPENBLAS/MKL_NUM_THREADS), set before NumPy is imported. Python bytecode is cached
(``--workdir``/pycache) for every runtime, as in an installed package. Every output is compared
with OpenVINO's (max abs diff) so a fast wrong answer shows. Nothing asserts on the numbers.

``openvino-default`` is OpenVINO with its default CPU configuration (no hints: every core, and
bf16 or f16 inference where the CPU has it) -- what a user gets without asking for f32 -- timed
once per model, its ratio shown beside the f32 ones.

Timing runs without ``OPENBLAS_CORETYPE`` and ``OPENBLAS_L2_SIZE`` (build machines set them for
old OpenBLAS builds; a user's machine does not, and they slow NumPy's GEMM 1.3-1.5x): unset in the
workers' environment only, the kernel OpenBLAS then picked reported by threadpoolctl.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

os.environ.setdefault("CI", "true")            # OpenVINO's telemetry stalls without it
MODELS = ("resnet18", "mobilenetv2", "bert_small", "datamove")
RUNTIMES = ("irrun", "openvino", "onnxruntime", "reference")
OV_DEFAULT = "openvino-default"
BASELINE = "irrun-base"                    # irrun from --baseline-python: before/after in one run
IRRUNS = ("irrun", BASELINE)
#: OpenBLAS settings of build machines that a user's machine does not have: unset for timing.
BLAS_PINS = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")
#: The public IR files measured by default: the INT8 (FakeQuantize) detectors and re-id models of
#: issue 23 and float Open Model Zoo models of each kind (``--public all``: every runnable one).
PUBLIC = ("person-detection-retail-0013-fp16-int8", "face-detection-adas-0001-fp16-int8", "yolov8n-int8",
          "face-reidentification-retail-0095-fp16-int8", "person-reidentification-retail-0287-fp16-int8",
          "pedestrian-detection-adas-0002-fp16-int8", "vehicle-detection-adas-0002-fp16-int8",
          "head-pose-estimation-adas-0001-fp16-int8", "human-pose-estimation-0001-fp16-int8",
          "person-detection-retail-0013-fp32", "face-detection-retail-0004-fp32", "face-detection-0200-fp16",
          "person-reidentification-retail-0288-fp32", "person-attributes-recognition-crossroad-0230-fp32",
          "road-segmentation-adas-0001-fp16", "squeezenet1-1-fp16", "yolov5n-fp16",
          "single-image-super-resolution-1032-fp32")
DATAMOVE_SHAPE = (1, 64, 512, 512)


# ---------------------------------------------------------------------------------------------
# Building the models (parent process)

def _need(*packages: str) -> None:
    """Install what the build needs (torch: the local CPU wheel, see the README)."""
    import importlib.util
    missing = [p for p in packages if importlib.util.find_spec(p.split("==")[0]) is None]
    if missing:
        spec = [("torch==2.13.0" if p == "torch" else p) for p in missing]
        print(f"installing {' '.join(spec)} ...", file=sys.stderr)
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", *spec], check=True)


def _torch_models():
    import torch
    from torch import nn

    def cbr(cin, cout, k=3, s=1, g=1, act=nn.ReLU):
        return [nn.Conv2d(cin, cout, k, s, k // 2, groups=g, bias=False), nn.BatchNorm2d(cout)] + \
               ([act()] if act else [])

    class Basic(nn.Module):
        def __init__(self, cin, cout, s):
            super().__init__()
            self.body = nn.Sequential(*cbr(cin, cout, 3, s), *cbr(cout, cout, 3, 1, act=None))
            self.skip = nn.Sequential(*cbr(cin, cout, 1, s, act=None)) if s != 1 or cin != cout else nn.Identity()

        def forward(self, x):
            return torch.relu(self.body(x) + self.skip(x))

    def resnet18():
        layers = [*cbr(3, 64, 7, 2), nn.MaxPool2d(3, 2, 1)]
        cin = 64
        for cout, s in ((64, 1), (128, 2), (256, 2), (512, 2)):
            layers += [Basic(cin, cout, s), Basic(cout, cout, 1)]
            cin = cout
        return nn.Sequential(*layers, nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(512, 1000))

    class Inverted(nn.Module):
        def __init__(self, cin, cout, s, t):
            super().__init__()
            h = cin * t
            self.res = s == 1 and cin == cout
            self.body = nn.Sequential(*(cbr(cin, h, 1, act=nn.ReLU6) if t != 1 else []),
                                      *cbr(h, h, 3, s, g=h, act=nn.ReLU6), *cbr(h, cout, 1, act=None))

        def forward(self, x):
            return x + self.body(x) if self.res else self.body(x)

    def mobilenetv2():
        layers, cin = [*cbr(3, 32, 3, 2, act=nn.ReLU6)], 32
        for t, c, n, s in ((1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1),
                           (6, 160, 3, 2), (6, 320, 1, 1)):
            for i in range(n):
                layers.append(Inverted(cin, c, s if i == 0 else 1, t))
                cin = c
        return nn.Sequential(*layers, *cbr(320, 1280, 1, act=nn.ReLU6), nn.AdaptiveAvgPool2d(1),
                             nn.Flatten(), nn.Linear(1280, 1000))

    class Layer(nn.Module):
        def __init__(self, d, heads, ffn):
            super().__init__()
            self.heads, self.qkv, self.out = heads, nn.Linear(d, 3 * d), nn.Linear(d, d)
            self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
            self.ffn = nn.Sequential(nn.Linear(d, ffn), nn.GELU(), nn.Linear(ffn, d))

        def forward(self, x, bias):
            b, n, d = x.shape
            q, k, v = self.qkv(x).reshape(b, n, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
            a = torch.softmax(q @ k.transpose(-1, -2) / (d // self.heads) ** 0.5 + bias, -1) @ v
            x = self.ln1(x + self.out(a.transpose(1, 2).reshape(b, n, d)))
            return self.ln2(x + self.ffn(x))

    class Bert(nn.Module):
        def __init__(self, vocab=8000, d=256, layers=4, heads=4, ffn=1024, seq=128):
            super().__init__()
            self.tok, self.pos = nn.Embedding(vocab, d), nn.Embedding(seq, d)
            self.ln = nn.LayerNorm(d)
            self.layers = nn.ModuleList(Layer(d, heads, ffn) for _ in range(layers))

        def forward(self, ids, mask):
            x = self.ln(self.tok(ids) + self.pos.weight[: ids.shape[1]])
            bias = (1.0 - mask[:, None, None, :].to(x.dtype)) * -10000.0
            for layer in self.layers:
                x = layer(x, bias)
            return x

    g = torch.Generator().manual_seed(1)
    ids = torch.randint(0, 8000, (1, 128), generator=g)
    mask = torch.ones(1, 128, dtype=torch.int64)
    mask[:, 100:] = 0
    image = torch.randn(1, 3, 224, 224, generator=g)
    return {"resnet18": (resnet18, (image,), ("x",)), "mobilenetv2": (mobilenetv2, (image,), ("x",)),
            "bert_small": (Bert, (ids, mask), ("input_ids", "attention_mask"))}


def _datamove_ir(xml: Path) -> None:
    import numpy as np
    import openvino as ov
    from openvino import opset8 as ops

    x = ops.parameter(list(DATAMOVE_SHAPE), np.float32, name="x")
    parts = ops.variadic_split(x, ops.constant(np.int64(1)), ops.constant(np.array([16, 48]))).outputs()
    outs = []
    for p in parts:
        p = ops.slice(p, ops.constant(np.array([-1])), ops.constant(np.array([np.iinfo(np.int64).min])),
                      ops.constant(np.array([-1])), ops.constant(np.array([3])))
        p = ops.strided_slice(p, np.array([0, 0, -1, 0]), np.array([0, 0, 0, 0]), np.array([1, 1, -1, 1]),
                              [1, 1, 0, 1], [1, 1, 1, 1])
        outs.append(ops.shuffle_channels(p, 1, 4))
    m = ov.Model([ops.result(ops.concat(outs, 1))], [x], "datamove")
    ov.save_model(m, str(xml), compress_to_fp16=False)


def _datamove_onnx(path: Path) -> None:
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    c = lambda name, v: numpy_helper.from_array(np.array(v, np.int64), name)  # noqa: E731
    nodes, inits, outs = [helper.make_node("Split", ["x", "lens"], ["a", "b"], axis=1)], [c("lens", [16, 48])], []
    inits += [c("w_s", [-1]), c("w_e", [np.iinfo(np.int64).min]), c("w_a", [3]), c("h_s", [-1]),
              c("h_e", [np.iinfo(np.int64).min]), c("h_a", [2]), c("step", [-1])]
    for p, ch in (("a", 16), ("b", 48)):
        inits += [c(f"{p}_s1", [1, 4, ch // 4, 512, 512]), c(f"{p}_s2", [1, ch, 512, 512])]
        nodes += [helper.make_node("Slice", [p, "w_s", "w_e", "w_a", "step"], [f"{p}1"]),
                  helper.make_node("Slice", [f"{p}1", "h_s", "h_e", "h_a", "step"], [f"{p}2"]),
                  helper.make_node("Reshape", [f"{p}2", f"{p}_s1"], [f"{p}3"]),
                  helper.make_node("Transpose", [f"{p}3"], [f"{p}4"], perm=[0, 2, 1, 3, 4]),
                  helper.make_node("Reshape", [f"{p}4", f"{p}_s2"], [f"{p}5"])]
        outs.append(f"{p}5")
    nodes.append(helper.make_node("Concat", outs, ["y"], axis=1))
    graph = helper.make_graph(nodes, "datamove",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, DATAMOVE_SHAPE)],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, DATAMOVE_SHAPE)], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8                       # what onnxruntime and torch's exporter read/write
    onnx.save(model, str(path))


def build(name: str, workdir: Path) -> Path:
    """workdir/<name>/: model.onnx, model.xml/.bin, inputs.npz (keyed by input name)."""
    d = workdir / name
    if (d / "inputs.npz").exists():
        return d
    d.mkdir(parents=True, exist_ok=True)
    import numpy as np
    if name == "datamove":
        _need("onnx", "openvino")
        _datamove_ir(d / "model.xml")
        _datamove_onnx(d / "model.onnx")
        x = np.random.default_rng(0).standard_normal(DATAMOVE_SHAPE, np.float32)
        np.savez(d / "inputs.npz", x=x)
        return d
    _need("torch", "onnx", "openvino")
    import openvino as ov
    import torch
    torch.manual_seed(0)
    make, args, names = _torch_models()[name]
    model = make().eval()
    with torch.no_grad():
        torch.onnx.export(model, args, str(d / "model.onnx"), input_names=list(names),
                          output_names=["y"], opset_version=17, dynamo=False)
    ov.save_model(ov.convert_model(str(d / "model.onnx")), str(d / "model.xml"), compress_to_fp16=False)
    np.savez(d / "inputs.npz", **{n: a.numpy() for n, a in zip(names, args)})
    return d


def corpus_models(corpus: Path, wanted: str) -> tuple[list[str], dict[str, bool], str | None]:
    """The public models to measure (``wanted``: names, ``all`` or ``none``), whether each has
    FakeQuantize layers, and why none are measured (no corpus), if so."""
    if wanted == "none":
        return [], {}, None
    manifest = corpus / "manifest.json"
    if not manifest.is_file():
        return [], {}, f"public models skipped: no corpus at {corpus} (--corpus DIR or $IRRUN_PUBLIC_CORPUS)"
    entries = {e["name"]: e for e in json.loads(manifest.read_text())}
    runnable = [n for n, e in entries.items() if e.get("ir_version") in (10, 11)
                and (corpus / n / "expected.npz").is_file() and (corpus / n / "model.xml").is_file()]
    # Tokenizers take and give strings and need openvino-tokenizers' extension in OpenVINO: not
    # what a speed table of tensor models compares, so ``all`` leaves them out (name them to time).
    tensor_models = [n for n in runnable if "tokenizer" not in str(entries[n].get("task", ""))]
    names = tensor_models if wanted == "all" else [n for n in wanted.split(",") if n]
    missing = [n for n in names if n not in runnable]
    if missing:
        print(f"public models skipped (not in {corpus} or not runnable): {', '.join(missing)}", file=sys.stderr)
    names = [n for n in names if n in runnable]
    return names, {n: bool(entries[n].get("has_fakequantize")) for n in names}, None


def public_dir(name: str, corpus: Path, workdir: Path) -> Path:
    """workdir/public-<name>/: links to the corpus model (read only) and inputs.npz from its
    expected.npz ``in:*`` arrays; the workers' outputs are written here, never in the corpus."""
    d = workdir / f"public-{name}"            # (beside the others: the same bytecode cache)
    if (d / "inputs.npz").exists():
        return d
    d.mkdir(parents=True, exist_ok=True)
    import numpy as np
    for f in ("model.xml", "model.bin"):
        if not (d / f).exists():
            (d / f).symlink_to((corpus / name / f).resolve())
    with np.load(corpus / name / "expected.npz") as f:
        np.savez(d / "inputs.npz", **{k[3:]: f[k] for k in f.files if k.startswith("in:")})
    return d


def timing_env() -> dict[str, str]:
    """The workers' environment: this one without the build machines' OpenBLAS pins."""
    return {k: v for k, v in os.environ.items() if k not in BLAS_PINS}


# ---------------------------------------------------------------------------------------------
# One measurement (worker process: nothing imported before the thread settings)

def worker(runtime: str, d: Path, threads: int, seconds: float) -> dict:
    if threads > 0:                             # (0: the runtime's default, openvino-default)
        for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
            os.environ[var] = str(threads)
    t0 = time.perf_counter()
    import numpy as np
    if runtime in IRRUNS:
        import irrun
    elif runtime in ("openvino", OV_DEFAULT):
        import openvino as ov
    elif runtime == "onnxruntime":
        import onnxruntime as ort
    elif runtime == "reference":
        from onnx.reference import ReferenceEvaluator
    else:
        raise SystemExit(f"unknown runtime {runtime}")
    imports = time.perf_counter() - t0
    with np.load(d / "inputs.npz") as f:
        feeds = {k: f[k] for k in f.files}
    read = None
    t0 = time.perf_counter()
    if runtime in IRRUNS:
        model = irrun.read_model(d / "model.xml")
        read = time.perf_counter() - t0
        wants = {p.name: p.etype.dtype for p in model.inputs}     # (f16 Parameters of v10 FP16 IRs)
        feeds = {k: v.astype(wants[k], copy=False) if wants.get(k) is not None else v for k, v in feeds.items()}
        model.infer_shapes()
        infer = lambda: list(model.run(feeds).values())[0]  # noqa: E731
    elif runtime in ("openvino", OV_DEFAULT):
        core = ov.Core()
        m = core.read_model(str(d / "model.xml"))
        read = time.perf_counter() - t0
        config = {} if runtime == OV_DEFAULT else {
            "INFERENCE_PRECISION_HINT": "f32", "INFERENCE_NUM_THREADS": threads,
            "PERFORMANCE_HINT": "LATENCY", "NUM_STREAMS": 1}
        compiled = core.compile_model(m, "CPU", config)
        request = compiled.create_infer_request()
        # (a Model Optimizer port may carry several names, e.g. "138" beside "left_eye_image")
        args = [feeds[next(n for n in sorted(p.get_names()) if n in feeds)].astype(
            p.get_element_type().to_dtype(), copy=False) for p in compiled.inputs]
        infer = lambda: np.array(request.infer(args)[compiled.outputs[0]])  # noqa: E731
    elif runtime == "onnxruntime":
        so = ort.SessionOptions()
        so.intra_op_num_threads, so.inter_op_num_threads = threads, 1
        sess = ort.InferenceSession(str(d / "model.onnx"), so, providers=["CPUExecutionProvider"])
        infer = lambda: sess.run(None, feeds)[0]  # noqa: E731
    else:
        ref = ReferenceEvaluator(str(d / "model.onnx"))
        infer = lambda: ref.run(None, feeds)[0]  # noqa: E731
    load = time.perf_counter() - t0
    t0 = time.perf_counter()
    out = infer()
    first = time.perf_counter() - t0
    times, start = [], time.perf_counter()
    while len(times) < 3 or (len(times) < 200 and time.perf_counter() - start < seconds):
        t0 = time.perf_counter()
        infer()
        times.append(time.perf_counter() - t0)
    np.save(d / f"out_{runtime}_{threads}.npy", np.asarray(out))
    hwm = next(int(ln.split()[1]) for ln in Path("/proc/self/status").read_text().splitlines()
               if ln.startswith("VmHWM:"))          # (ru_maxrss would carry the parent's over exec)
    return {"import": imports, "load": load, "read": read, "first": first,
            "median": statistics.median(times), "runs": len(times), "rss": hwm / 1024, "blas": blas_kernel()}


def blas_kernel() -> str:
    """The BLAS NumPy runs, as threadpoolctl sees it: library, CPU kernel, threads."""
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        return "threadpoolctl not installed"
    pools = [p for p in threadpool_info() if p.get("user_api") == "blas"]
    return "; ".join(f"{p.get('internal_api')} {p.get('architecture') or '?'} x{p.get('num_threads')}"
                     for p in pools) or "no BLAS loaded"


def worker_cmd(python: str | Path, workdir: Path, script: str, *args: object) -> list[str]:
    """``python -I`` (no PYTHONPATH, user site or cwd on sys.path: irrun is the one ``python`` has
    installed; ``--irrun-python`` picks a checkout), bytecode cached in ``workdir/pycache`` as for an
    installed package (else irrun's import and first read would time compiling its sources)."""
    return [str(python), "-I", "-X", f"pycache_prefix={workdir / 'pycache'}", script, *map(str, args)]


def warm_bytecode(python: str | Path, workdir: Path) -> None:
    """Compile irrun (every op module) into the bytecode cache once, before any measurement."""
    code = ("import irrun\ntry:\n    from irrun.ops.registry import load_all\n    load_all()\n"
            "except ImportError:\n    pass")       # (irrun versions that import every op eagerly)
    subprocess.run(worker_cmd(python, workdir, "-c", code), check=True, timeout=600)


def run_worker(cmd: list[str], cwd: str | Path, timeout: float, env: dict[str, str] | None = None) -> dict:
    """The JSON a worker prints as its last line, or ``{"error": ...}`` (its exit code and last
    stderr line, or the timeout). Shared by tools/bench/bench_llm.py and tools/bench/bench_read.py."""
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, cwd=cwd, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return {"error": f"timeout after {timeout:.0f} s"}
    if p.returncode != 0:
        tail = (p.stderr.strip().splitlines() or ["(no output)"])[-1]
        return {"error": f"exit {p.returncode}: {tail[:160]}"}
    return json.loads(p.stdout.strip().splitlines()[-1])


def measure(runtime: str, d: Path, threads: int, seconds: float, irrun_python: dict[str, str | Path]) -> dict:
    python = irrun_python[runtime] if runtime in IRRUNS else sys.executable
    return run_worker(worker_cmd(python, d.parent, __file__, "--worker", runtime, d.resolve(), threads, seconds),
                      cwd=d, timeout=1800, env=timing_env())


# ---------------------------------------------------------------------------------------------
# Report

def _fmt_ms(s: float | None) -> str:
    return "-" if s is None else f"{s * 1e3:.1f}" if s < 10 else f"{s * 1e3:.0f}"


def _ratio(x: float | None, ref: float | None) -> str:
    return "" if x is None or not ref else f" ({x / ref:.2f}x)"


def table(results: list[dict], markdown: bool) -> str:
    head = ["model", "threads", "runtime", "import ms", "load ms", "read ms", "first ms", "median ms", "peak RSS MiB",
            "max |diff|"]
    rows = []
    for r in results:
        ov = next((o for o in results if o["model"] == r["model"] and o["threads"] == r["threads"]
                   and o["runtime"] == "openvino" and "error" not in o), None)
        if "error" in r:
            rows.append([r["model"], str(r["threads"] or "default"), r["runtime"], r["error"][:70]] + [""] * 6)
            continue
        g = lambda k: _fmt_ms(r[k]) + _ratio(r[k], ov and ov[k])  # noqa: E731
        rows.append([r["model"], str(r["threads"] or "default"), r["runtime"], g("import"), g("load"),
                     "-" if r["read"] is None else g("read"), g("first"), g("median"),
                     f"{r['rss']:.0f}" + _ratio(r["rss"], ov and ov["rss"]), r.get("diff", "")])
    return grid(head, rows, markdown)


def speed_table(results: list[dict], thread_counts: list[int], fake_quantize: dict[str, bool],
                markdown: bool) -> str:
    """One row per model: irrun's median and its ratio to OpenVINO (f32) at each thread count,
    how much the ratio grows from the first thread count to the last, and OpenVINO's default
    configuration with irrun's best time over it; then the medians and maxima per group."""
    def median_of(model: str, runtime: str, threads: int) -> float | None:
        r = next((r for r in results if (r["model"], r["runtime"], r["threads"]) == (model, runtime, threads)), None)
        return None if r is None or "error" in r else r["median"]
    before = any(r["runtime"] == BASELINE for r in results)
    head = ["model"] + [f"irrun {t}t ms (x OV)" for t in thread_counts]
    head += [f"before {t}t ms (x OV)" for t in thread_counts] if before else []
    head += ["ratio growth"] if len(thread_counts) > 1 else []
    head += ["OV default ms", "irrun best / OV default"]
    rows, ratios = [], {t: {} for t in thread_counts}
    for model in dict.fromkeys(r["model"] for r in results):
        row = [model + (" (INT8)" if fake_quantize.get(model) else "")]
        for t in thread_counts:
            mine, ov = median_of(model, "irrun", t), median_of(model, "openvino", t)
            if mine is not None and ov:
                ratios[t][model] = mine / ov
            row.append("-" if mine is None else _fmt_ms(mine) + _ratio(mine, ov))
        for t in thread_counts if before else ():
            old, ov = median_of(model, BASELINE, t), median_of(model, "openvino", t)
            row.append("-" if old is None else _fmt_ms(old) + _ratio(old, ov))
        if len(thread_counts) > 1:
            first, last = (ratios[t].get(model) for t in (thread_counts[0], thread_counts[-1]))
            row.append(f"{last / first:.2f}" if first and last else "")
        best = min((m for t in thread_counts if (m := median_of(model, "irrun", t)) is not None), default=None)
        default = median_of(model, OV_DEFAULT, 0)
        row += [_fmt_ms(default), f"{best / default:.2f}x" if best is not None and default else ""]
        rows.append(row)
    lines = [grid(head, rows, markdown), ""]
    public = [m for m in fake_quantize]
    for t in thread_counts:
        for label, group in (("public models", public), ("INT8 FakeQuantize models", [m for m in public if fake_quantize[m]])):
            got = [ratios[t][m] for m in group if m in ratios[t]]
            if got:
                lines.append(f"{t} thread(s), {label}: median {statistics.median(got):.2f}x, max {max(got):.2f}x "
                             f"OpenVINO (f32) over {len(got)}")
    return "\n".join(lines).rstrip()


def grid(head: list[str], rows: list[list[str]], markdown: bool) -> str:
    if markdown:
        head = [h.replace("|", "\\|") for h in head]
        return "\n".join("| " + " | ".join(x) + " |" for x in [head, ["---"] * len(head)] + rows)
    w = [max(len(x[i]) for x in [head] + rows) for i in range(len(head))]
    return "\n".join("  ".join(x[i].ljust(w[i]) for i in range(len(head))).rstrip() for x in [head] + rows)


def machine() -> str:
    import numpy as np
    cpu = next((ln.split(":", 1)[1].strip() for ln in Path("/proc/cpuinfo").read_text().splitlines()
                if ln.startswith("model name")), platform.processor()) if Path("/proc/cpuinfo").exists() else platform.processor()
    blas = ""
    try:
        cfg = np.show_config(mode="dicts")["Build Dependencies"]["blas"]
        blas = f", NumPy {np.__version__} with {cfg.get('name')} {cfg.get('version')}"
    except Exception:       # noqa: BLE001 - only a description
        pass
    return f"{cpu}, {os.cpu_count()} cores, Python {platform.python_version()}{blas}"


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "--worker":
        print(json.dumps(worker(argv[1], Path(argv[2]), int(argv[3]), float(argv[4]))))
        return 0
    if any(a.split("=")[0] == "--llm" for a in argv):    # decoder LLMs: tools/bench/bench_llm.py, own options
        from tools.bench.bench_llm import main as llm_main
        return llm_main(argv)
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--runtimes", default=",".join(RUNTIMES + (OV_DEFAULT,)))
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--seconds", type=float, default=10.0, help="steady-state time budget per measurement")
    ap.add_argument("--workdir", type=Path, default=Path(os.environ.get("TMPDIR", "/tmp")) / "irrun-bench")
    ap.add_argument("--irrun-python", type=Path, help="interpreter that imports the irrun to measure")
    ap.add_argument("--baseline-python", type=Path,
                    help="interpreter of an older irrun, measured beside it in the same run (runtime irrun-base)")
    ap.add_argument("--public", default=",".join(PUBLIC),
                    help="public IR files from --corpus to measure: names, 'all' (every runnable one) or 'none'")
    ap.add_argument("--corpus", type=Path,
                    default=Path(os.environ.get("IRRUN_PUBLIC_CORPUS", "/work/corpus/public")),
                    help="directory of public IR files (manifest.json, <name>/model.xml, expected.npz)")
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--json", type=Path, help="also write the raw results here")
    args = ap.parse_args(argv)
    irrun_py: dict[str, str | Path] = {"irrun": args.irrun_python or sys.executable}
    runtimes = ["openvino"] + [r for r in args.runtimes.split(",") if r and r != "openvino"]  # ratios need it
    if args.baseline_python:
        irrun_py[BASELINE] = args.baseline_python
        runtimes.insert(runtimes.index("irrun") + 1 if "irrun" in runtimes else len(runtimes), BASELINE)
    for rt, python in irrun_py.items():
        if rt in runtimes:
            warm_bytecode(python, args.workdir)
    thread_counts = [int(t) for t in args.threads.split(",")]
    public, fake_quantize, skipped = corpus_models(args.corpus, args.public)
    if skipped:
        print(skipped, file=sys.stderr)
    results = []
    for name in [m for m in args.models.split(",") if m] + public:
        d = public_dir(name, args.corpus, args.workdir) if name in fake_quantize else build(name, args.workdir)
        if OV_DEFAULT in runtimes:
            results.append(dict(model=name, threads=0, runtime=OV_DEFAULT,
                                **measure(OV_DEFAULT, d, 0, args.seconds, irrun_py)))
        for threads in thread_counts:
            for rt in (r for r in runtimes if r != OV_DEFAULT and (name not in fake_quantize or r in ("openvino",) + IRRUNS)):
                if rt == "onnxruntime":
                    _need("onnxruntime")
                r = dict(model=name, threads=threads, runtime=rt, **measure(rt, d, threads, args.seconds, irrun_py))
                if "error" not in r and rt != "openvino":
                    import numpy as np
                    try:
                        a, b = (np.load(d / f"out_{x}_{threads}.npy") for x in (rt, "openvino"))
                        r["diff"] = f"{np.max(np.abs(a.astype(np.float64) - b)):.1e}" if a.shape == b.shape else "shape!"
                    except (OSError, ValueError):   # (no output file, or string outputs)
                        pass
                results.append(r)
                print(f"  {name} t={threads} {rt}: " + (r.get("error") or f"median {_fmt_ms(r['median'])} ms"),
                      file=sys.stderr)
    kernels = sorted({r["blas"] for r in results if r.get("blas") and r["runtime"] in IRRUNS})
    pins = ", ".join(f"{k}={os.environ[k]}" for k in BLAS_PINS if k in os.environ) or "none set"
    print(f"Machine: {machine()}; ratios are to OpenVINO CPU (f32) in the same run.")
    print(f"BLAS in irrun's timing workers (threadpoolctl): {' | '.join(kernels) or '-'} "
          f"({', '.join(BLAS_PINS)} unset for timing; here: {pins})\n")
    print(table(results, args.markdown))
    print()
    print(speed_table(results, thread_counts, fake_quantize, args.markdown))
    if skipped:
        print(f"\n{skipped}")
    if args.json:
        args.json.write_text(json.dumps({"machine": machine(), "results": results}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
