"""The export conformance suite (issue 24): every case irrun's conformance suites keep, exported to
ONNX by irrun and run in onnxruntime against OpenVINO's expected outputs.

    python -m tools.conformance.export_suite [-k SUBSTR] [--ops-only] [--workdir DIR] [-v] [--write-baseline]
    python -m tools.conformance.conformance --suite export          (the same rows in the pass table)

``run(workdir, k)`` returns one Row per case; the row's suite says where the case came from:

* ``export:ops`` — the op-by-op replay: every measured case of tests/fixtures/*_expectations
  (one layer exactly as OpenVINO serialised it, with its inputs and OpenVINO's outputs) built as a
  one-layer IR, exported, run in onnxruntime and compared with OpenVINO's outputs (f32/f64 rtol
  1e-4 / atol 1e-5, f16 and bf16 1e-2, integers and booleans exactly — the op tests' bounds).
  Only cases where OpenVINO answered with values count; those with bf16 inputs or outputs are
  excluded (onnxruntime's Python API cannot feed or return bf16), as are layers irrun itself
  refuses (the op tests hold irrun to refusing them).
* ``export:zoo``, ``export:encoders``, ``export:llm``, ``export:seq2seq``, ``export:public``,
  ``export:compressed`` — the models: every case folder of the suites' checked-in fixtures
  (tests/fixtures/zoo, encoder_zoo, llm_zoo, seq2seq_zoo, public, compressed) and every collected
  file of the public corpus OpenVINO ran (``$IRRUN_PUBLIC_CORPUS``, else the conformance
  driver's ``<workdir>/public``: folders holding OpenVINO's expected.npz), compared with
  OpenVINO's recorded outputs at the suite's tolerance (case.json's rtol/atol, else 1e-4; INT8
  files by the public suite's INT8 measure); LLMs and seq2seq decoders step by step with the
  state carried through the exported state inputs and outputs, and the same greedy token at
  every step.
* ``export:zoo-built``, ``export:encoders-built``, ``export:seq2seq-built`` — the models the zoo,
  encoders and seq2seq suites built with torch/optimum-intel into the driver's ``--workdir``
  (``export_suite --workdir DIR``): their expected values are not stored, so OpenVINO is asked
  for them here in a child process exactly as those suites ask (tools/zoo/zoo.py ``expected``,
  encoder_zoo.py ``openvino_outputs``, seq2seq_zoo.py ``openvino_seq2seq``), at their tolerances;
  one row per suite case (a seq2seq case: its encoder, then its decoder).

Statuses: ``pass`` exported and matched (an op case: OpenVINO's recorded outputs, or, where the
fixture records that OpenVINO's reference evaluator answers otherwise than its CPU plugin, the
reference's — the op's rule, which irrun follows there); ``unsupported`` not exported — the reason names each op
(type-version) without an ONNX form, counted apart from failures; ``fail`` exported but the outputs
differ or onnxruntime cannot load or run it; ``excluded`` a difference listed in
:data:`KNOWN_DIFFERENCES` with its reason, or a case that cannot be run here (above).

``--write-baseline`` writes the ids of the op cases that match today to
tests/fixtures/export_op_replay.json; tests/test_export_op_replay.py replays them and fails when
one stops matching.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from tools.conformance.conformance_rows import SEP, Row

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"
BASELINE = FIXTURES / "export_op_replay.json"
#: float tolerances of the op replay by element type (rtol, atol): tests/ops/nn_cases.py's
TOL = {"f32": (1e-4, 1e-5), "f64": (1e-4, 1e-5), "f16": (1e-2, 1e-2)}
#: the model suites' default tolerance (issue 24: f32 1e-4)
MODEL_RTOL = MODEL_ATOL = 1e-4

#: math cases OpenVINO's reference evaluator has no kernel for, answered by its CPU plugin, which
#: departs from the op's rule there (integer results rounded or saturated instead of truncated or
#: wrapped, f64 computed in f32, a NaN kept out of its Softmax slice): irrun follows the rule (the
#: answer written out in tests/ops/expectations.py CPU_DEVIATIONS) and so does its export
CPU_ONLY = ("OpenVINO's CPU plugin departs from the op's rule on this type (tests/ops/expectations.py "
            "CPU_DEVIATIONS); the export, like irrun, follows the rule")

#: 64-bit integer cases of ops OpenVINO has no reference kernel for: its CPU plugin computes them
#: in 32 bits (u32 right shifts as i32); irrun and the export follow the op's rule, which
#: tests/test_export_ops.py holds the export to (tests/ops/test_bitwise.py CPU_DEVIATIONS,
#: tests/ops/test_convert_promote_types.py CPU_I64)
CPU_32_BITS = ("OpenVINO's CPU plugin computes 64-bit integers in 32 bits here (no reference kernel); the "
               "export, like irrun, follows the op's rule")

#: Differences between the export in onnxruntime and OpenVINO that are known and why: (op type,
#: case-id fragment or "" for every case of the type, reason). A failing case that matches an
#: entry is ``excluded`` with the reason; the first entry that matches wins.
KNOWN_DIFFERENCES: list[tuple[str, str, str]] = [
    ("NonMaxSuppression", "iou-equals-threshold", "OpenVINO suppresses a box at IoU >= iou_threshold, "
                                                  "ONNX only above it: a pair exactly at the threshold"),
    ("NonMaxSuppression", "iou-threshold-0", "iou_threshold 0: OpenVINO suppresses every later box of a "
                                             "class (IoU >= 0), ONNX only the overlapping ones (IoU > 0)"),
    ("NonMaxSuppression", "no-thresholds", "no iou_threshold input means 0: OpenVINO suppresses every later "
                                           "box of a class (IoU >= 0), ONNX only the overlapping ones"),
    ("TopK", "TopK11-k0-param", "K = 0 at run time, outside the op's domain (a positive integer): irrun "
                                "refuses it, OpenVINO's shape inference gives an empty axis (as the export "
                                "does) and its evaluators the whole axis (tests/ops/test_topk.py)"),
    ("NonZero", "scalar-zero-const", "a constant scalar zero: OpenVINO folds it to shape [0, 0]; a scalar is "
                                     "one element to irrun and to OpenVINO's own evaluators at run time "
                                     "([1, 0], case NonZero-scalar-zero), and so to the export"),
    ("ExperimentalDetectronTopKROIs", "-8", "more max_rois than boxes: OpenVINO leaves the rows after them "
                                            "uninitialised, irrun and the export write zeros (the boxes "
                                            "themselves are compared in tests/test_export_control.py)"),
    ("ScaledDotProductAttention", "empty-S", "no keys (S = 0): OpenVINO's CPU plugin returns uninitialised "
                                             "memory, irrun and the export zeros (tests/ops/test_attention.py)"),
    *[(op, case, "OpenVINO's CPU plugin errs here and irrun follows the spec (tests/ops/test_unique.py CPU_WRONG, "
                 "tests/ops/test_dft.py BY_NUMPY); tests/test_export_ops.py holds the export to the spec's "
                 "answer (worked by hand, by NumPy)") for op, case in (
        ("Unique", "Unique-columns-axis1-"), ("IRDFT", "IRDFT-signal-pad"))],
    *[(op, case, "a transform sums many f32 terms (outputs up to ~30): onnxruntime's order rounds near-zero "
                 "outputs up to 3.6e-5 off, past the replay's 1e-5 absolute; tests/test_export_ops.py holds "
                 "every DFT case to 1e-4") for op, case in (
        ("DFT", "DFT-signal-pad"), ("RDFT", "RDFT-axes12"), ("RDFT", "RDFT-axes21"), ("RDFT", "RDFT-all"))],
    ("Multinomial", "", "random draws: the export holds OpenVINO's reference kernel's seeded stream as a "
                        "constant (said in the model's metadata), its CPU plugin draws from another "
                        "(tests/ops/test_multinomial.py); tests/test_export_ops.py holds the export to the "
                        "reference rule"),
    *[(op, case, CPU_32_BITS) for op, case in (
        ("BitwiseOr", "-i64"), ("BitwiseXor", "-i64"), ("BitwiseNot", "-i64"), ("BitwiseLeftShift", "-u64"),
        ("BitwiseRightShift", "-u64"), ("BitwiseRightShift", "-u32"), ("ConvertPromoteTypes", "-i64-"),
        ("ConvertPromoteTypes", "-u64-target"))],
    *[(op, case, CPU_ONLY) for op, case in (
        ("Exp", "Exp-u8"), ("Log", "Log-i8"), ("Log", "Log-u8"), ("Sin", "Sin-i8"), ("Sin", "Sin-u8"),
        ("Divide", "Divide-i8"), ("Divide", "Divide-pythondiv-true-i8"), ("SquaredDifference", "-i8"),
        ("SquaredDifference", "-u8"), ("Multiply", "Multiply-u8-overflow"), ("Round", "-f64"),
        ("IsInf", "IsInf-f64"), ("LogSoftmax", "LogSoftmax-extremes"))],
]
#: a valid ONNX model onnxruntime has no kernel for (an op on a type the ONNX spec allows but
#: onnxruntime's CPU provider does not implement, e.g. Selu on double): not the export's fault
NO_KERNEL = "onnxruntime has no kernel for this ONNX op on this type"


# --------------------------------------------------------------------------------------------
# The op cases

@dataclass
class OpCase:
    """One measured layer: ``inputs`` are (array, fed as a Parameter?), ``expected`` OpenVINO's
    outputs with their IR element types."""

    id: str
    fixture: str
    type: str
    version: str
    attrs: dict
    inputs: list[tuple[np.ndarray, bool]]
    expected: list[tuple[np.ndarray, str]]
    input_types: list[str] = field(default_factory=list)
    #: OpenVINO's reference evaluator's outputs where they differ from its CPU plugin's
    #: (``expected``): the op's rule, which irrun follows there (tests/ops say why per case)
    reference: list[np.ndarray] = field(default_factory=list)


def _bf16(a: np.ndarray, etype: str) -> np.ndarray:
    from irrun.types import elements
    return a.view(elements.TYPES["bf16"].dtype) if etype == "bf16" else a


def _math_cases(path: Path) -> Iterator[OpCase]:
    """The math fixture (tests/ops/expectations.py's format: slices of flat pools): cases the
    reference evaluator answered (``ok``), else the CPU plugin (``unfolded`` with cpu ``ok``)."""
    index = json.loads(path.read_text(encoding="utf-8"))["cases"]
    with np.load(path.with_suffix(".npz")) as f:
        pools = {k: f[k] for k in f.files}

    def array(case: dict, key: str, spec: dict) -> np.ndarray:
        pool, offset = case["data"][key]
        n = int(np.prod(spec["shape"], dtype=np.int64))
        return _bf16(pools[pool][offset:offset + n].reshape(spec["shape"]), spec["etype"])

    for c in index:
        if c["status"] == "ok":
            outs, key = c["outputs"], "out"
        elif c["status"] == "unfolded" and c.get("cpu") == "ok":
            outs, key = c["cpu_outputs"], "cpu"
        else:
            continue
        yield OpCase(c["id"], path.stem, c["type"], c["version"], c["attrs"],
                     [(array(c, f"in{i}", s), bool(s["param"])) for i, s in enumerate(c["inputs"])],
                     [(array(c, f"{key}{j}", s), s["etype"]) for j, s in enumerate(outs)],
                     [s["etype"] for s in c["inputs"]])


def _nn_cases(path: Path) -> Iterator[OpCase]:
    """A fixture in tools/expectations/make_nn_expectations.py's format: its ``run`` cases with values."""
    index = json.loads(path.read_text(encoding="utf-8"))["cases"]
    with np.load(path.with_suffix(".npz")) as f:
        arrays = {k: f[k] for k in f.files}
    for c in index:
        if c["status"] != "ok" or c.get("kind") != "run" or not all("array" in s for s in c["inputs"]):
            continue
        yield OpCase(c["id"], path.stem, c["type"], c["version"], c["attrs"],
                     [(_bf16(arrays[s["array"]], s["etype"]), bool(s["param"])) for s in c["inputs"]],
                     [(_bf16(arrays[s["array"]], s["etype"]), s["etype"]) for s in c["outputs"]],
                     [s["etype"] for s in c["inputs"]],
                     [_bf16(arrays[k], s["etype"]) for k, s in zip(c.get("reference_arrays", []), c["outputs"])])


def op_cases(k: str = "") -> list[OpCase]:
    """Every op case with OpenVINO's output values, from every tests/fixtures/*_expectations pair."""
    cases: list[OpCase] = []
    for path in sorted(FIXTURES.glob("*_expectations.json")):
        cases += (_math_cases if path.name == "math_expectations.json" else _nn_cases)(path)
    return [c for c in cases if k in c.id]


def _one_layer_ir(case: OpCase, directory: Path) -> tuple[Path, dict[str, np.ndarray]]:
    """The case's layer as an IR (Parameters ``in<i>`` for the fed inputs, Consts for the rest,
    Results ``out<j>``) and its feeds."""
    from irrun.ir.builder import IRWriter
    from irrun.types import elements
    b = IRWriter("op")
    ports, feeds = [], {}
    for i, (x, param) in enumerate(case.inputs):
        if param:
            ports.append(b.parameter(f"in{i}", elements.from_dtype(x.dtype).name, list(x.shape)))
            feeds[f"in{i}"] = x
        else:
            ports.append(b.const(x))
    n_out = len(case.expected)
    outs = b.layer(case.type, ports, case.attrs, version=case.version, n_out=n_out)
    for j, o in enumerate([outs] if n_out == 1 else outs):
        b.result(o, f"out{j}")
    return b.save(directory / "op.xml"), feeds


def known_difference(op_type: str, case_id: str) -> str | None:
    """The reason :data:`KNOWN_DIFFERENCES` gives for this case, or None."""
    return next((why for t, frag, why in KNOWN_DIFFERENCES if t == op_type and frag in case_id), None)


def _refused(suite: str, case: str, e: Exception) -> Row:
    """The row of an export irrun refused: ``unsupported``, grouped by the ops named."""
    import re
    message = str(e)
    if "dynamic rank" in message:
        return Row(suite, case, "unsupported", f"not exported: an input or output of dynamic rank{SEP}{message}")
    ops = sorted(set(re.findall(r"(?:no ONNX form: |; )([A-Za-z0-9]+-[A-Za-z0-9.]+) \(", message))) or \
        ["(no op named)"]
    return Row(suite, case, "unsupported", f"not exported: {', '.join(ops)}{SEP}{message}")


def _session(proto_or_path: Any) -> Any:
    import onnxruntime as ort
    ort.set_default_logger_severity(4)
    options = ort.SessionOptions()
    options.log_severity_level = 4
    options.intra_op_num_threads = 1
    source = proto_or_path.SerializeToString() if hasattr(proto_or_path, "SerializeToString") \
        else os.fspath(proto_or_path)
    return ort.InferenceSession(source, options, providers=["CPUExecutionProvider"])


def _short(e: Exception) -> str:
    return " ".join(str(e).split())[:300]


def replay_op(case: OpCase, directory: Path) -> Row:
    """One op case: built, exported, run in onnxruntime, compared with OpenVINO's outputs."""
    import irrun
    from irrun.errors import IrrunError, UnsupportedError
    from irrun.export.onnx import build_onnx
    suite = "export:ops"
    if "bf16" in case.input_types or any(et == "bf16" for _, et in case.expected):
        return Row(suite, case.id, "excluded", "bf16 inputs or outputs — onnxruntime's Python API "
                   "cannot feed or return them")
    try:
        xml, feeds = _one_layer_ir(case, directory)
        model = irrun.read_model(xml)
        model.types()
    except IrrunError as e:
        return Row(suite, case.id, "excluded", f"irrun refuses the layer (the op tests hold it to that){SEP}{e}")
    try:
        proto = build_onnx(model)
    except UnsupportedError as e:
        return _refused(suite, case.id, e)
    except Exception as e:           # an export bug: a row, not the end of the run
        return Row(suite, case.id, "fail", f"export crashed {type(e).__name__}{SEP}{_short(e)}")
    known = known_difference(case.type, case.id)
    bad = "excluded" if known else "fail"
    prefix = f"known difference: {known}{SEP}" if known else ""
    try:
        session = _session(proto)
    except Exception as e:
        if "NOT_IMPLEMENTED" in str(e):
            return Row(suite, case.id, "excluded", f"{NO_KERNEL}{SEP}{case.type}: {_short(e)}")
        return Row(suite, case.id, bad, f"{prefix}onnxruntime cannot load the export{SEP}{case.type}: {_short(e)}")
    try:
        names = [o.name for o in session.get_outputs()]
        got = dict(zip(names, session.run(names, feeds)))
    except Exception as e:
        return Row(suite, case.id, bad, f"{prefix}onnxruntime fails to run it{SEP}{case.type}: {_short(e)}")
    differs = _first_difference(case.expected, got)
    if differs and case.reference and not _first_difference(list(zip(case.reference, [et for _, et in case.expected])), got):
        return Row(suite, case.id, "pass", "matches OpenVINO's reference evaluator (its CPU plugin differs)")
    if differs:
        return Row(suite, case.id, bad, f"{prefix}differs from OpenVINO{SEP}{case.type} {differs}")
    return Row(suite, case.id, "pass")


def _first_difference(expected: list[tuple[np.ndarray, str]], got: dict[str, np.ndarray]) -> str:
    """How the first output of ``got`` that differs from ``expected`` (at the op tolerance of its
    element type) differs; "" when every one agrees."""
    from irrun.export.verify import compare
    for j, (want, et) in enumerate(expected):
        rtol, atol = TOL.get(et, (0.0, 0.0))
        with np.errstate(invalid="ignore"):       # inf - inf inside compare: it compares infinities apart
            (agree,) = compare({f"out{j}": want}, got, atol=atol, rtol=rtol)
        if not agree.ok:
            return f"out{j}: max abs {agree.max_abs:.3g} {agree.problem}".rstrip()
    return ""


def replay_ops(k: str = "", ids: set[str] | None = None) -> list[Row]:
    """:func:`replay_op` of every op case (whose id contains ``k``; or only ``ids``)."""
    rows = []
    with tempfile.TemporaryDirectory(prefix="irrun-export-ops-") as tmp:
        for n, case in enumerate(op_cases(k)):
            if ids is not None and case.id not in ids:
                continue
            d = Path(tmp) / str(n)
            d.mkdir()
            rows.append(replay_op(case, d))
    return rows


# --------------------------------------------------------------------------------------------
# The models

def _alias(ports) -> dict[str, str]:
    """Every name of a model input/output -> the name irrun (and the export) gives it."""
    return {name: p.name for p in ports for name in p.names} | {p.name: p.name for p in ports}


def _tolerance(d: Path) -> tuple[float, float]:
    meta = json.loads((d / "case.json").read_text(encoding="utf-8")) if (d / "case.json").exists() else {}
    return float(meta.get("rtol", MODEL_RTOL)), float(meta.get("atol", MODEL_ATOL))


def input_sets(d: Path) -> Iterator[tuple[dict, dict]]:
    """(inputs, OpenVINO's outputs) per input set of a case folder: inputs[_N].npz/expected[_N].npz,
    or the public corpus' one expected.npz (``in:<name>``/``out:<name>``). The one reader of the
    checked-in case format (tools/zoo/zoo.py ``write_fixture``): tests/helpers.py uses it too."""
    if not (d / "inputs.npz").exists():
        with np.load(d / "expected.npz") as f:
            yield ({k[3:]: f[k] for k in f.files if k.startswith("in:")},
                   {k[4:]: f[k] for k in f.files if k.startswith("out:")})
        return
    i = 1
    while (d / f"inputs{'' if i == 1 else f'_{i}'}.npz").exists():
        s = "" if i == 1 else f"_{i}"
        with np.load(d / f"inputs{s}.npz") as f, np.load(d / f"expected{s}.npz") as e:
            yield {k: f[k] for k in f.files}, {k: e[k] for k in e.files}
        i += 1


def _export(xml: Path) -> tuple[Any, Any]:
    """(the irrun model, the checked ONNX proto) of an IR."""
    import irrun
    from irrun.export.onnx import build_onnx
    model = irrun.read_model(xml)
    return model, build_onnx(model)


def _plain_case(suite: str, d: Path) -> Row:
    """A one-shot model: every input set through the export, each output against OpenVINO's."""
    return _one_shot(suite, d.name, d / "model.xml", input_sets(d), _tolerance(d), d / "expected_lpt_off.npz")


def _one_shot(suite: str, case: str, xml: Path, sets: Any, tol: tuple[float, float],
              lpt_off: Path | None = None) -> Row:
    """``xml`` exported and run in onnxruntime on each (inputs, OpenVINO's outputs) of ``sets``;
    FakeQuantize models with an ``lpt_off`` file by the public suite's INT8 measure."""
    from irrun.export.verify import compare
    model, proto = _export(xml)
    s = _session(proto)
    ins, outs = _alias(model.inputs), _alias(model.outputs)
    rtol, atol = tol
    int8 = lpt_off is not None and lpt_off.exists() and any(op.type == "FakeQuantize" for op in model.ops.values())
    for n, (inputs, expected) in enumerate(sets, 1):
        feeds = {ins[k]: v for k, v in inputs.items() if k in ins}
        got = dict(zip([o.name for o in s.get_outputs()], s.run(None, feeds)))
        want = {outs[k]: v for k, v in expected.items() if k in outs}
        if int8:        # OpenVINO's int8 kernels: the public suite's INT8 measure (its module doc)
            from tools.conformance.public_corpus import int8_verdict
            with np.load(lpt_off) as f:
                off = {outs[k[4:]]: f[k] for k in f.files if k.startswith("out:") and k[4:] in outs}
            why = int8_verdict({k: (got[k], v, off.get(k)) for k, v in want.items()})
            if why:
                return Row(suite, case, "fail", f"INT8 outputs differ{SEP}{why}")
            continue
        for a in compare(want, got, atol=atol, rtol=rtol):
            if not a.ok:
                return Row(suite, case, "fail", f"outputs differ{SEP}set {n} {a.name}: max abs {a.max_abs:.3g} "
                           f"(rtol {rtol:g}, atol {atol:g}) {a.problem}".rstrip())
    return Row(suite, case, "pass")


def _state_names(proto: Any) -> tuple[dict[str, str], dict[str, str]]:
    """variable id -> state input, variable id -> state output (the export's metadata)."""
    meta = {p.key: p.value for p in proto.metadata_props}
    return ({v: k.split(".", 2)[2] for k, v in meta.items() if k.startswith("irrun.state_input.")},
            {v: k.split(".", 2)[2] for k, v in meta.items() if k.startswith("irrun.state_output.")})


def empty_states(session: Any, state_in: dict[str, str], batch: int) -> dict[str, np.ndarray]:
    """The export's state inputs at the start of a decode: empty, e.g. a KV cache [batch, heads,
    0, head_dim] (a dynamic first dim is the batch, the other dynamic dims 0; fixed dims kept)."""
    inputs = {i.name: i for i in session.get_inputs()}
    return {name: np.zeros([d if isinstance(d, int) else batch if a == 0 else 0
                            for a, d in enumerate(inputs[name].shape)],
                           np.float16 if inputs[name].type == "tensor(float16)" else np.float32)
            for name in state_in.values()}


def _decode(suite: str, case: str, xml: Path, steps: list[dict], want: list[np.ndarray],
            tol: tuple[float, float]) -> Row:
    """A stateful decoder: from empty states (0 elements), each step's logits against OpenVINO's
    and the same greedy token; the state carried through the export's state outputs."""
    _, proto = _export(xml)
    s = _session(proto)
    state_in, state_out = _state_names(proto)
    state = empty_states(s, state_in, next(iter(steps[0].values())).shape[0] if steps and steps[0] else 1)
    names = [o.name for o in s.get_outputs()]
    for i, (feeds, ref) in enumerate(zip(steps, want)):
        got = dict(zip(names, s.run(None, {**feeds, **state})))
        logits = got["logits"]
        if logits.shape != ref.shape or not np.allclose(logits, ref, rtol=tol[0], atol=tol[1]):
            err = float(np.max(np.abs(logits - ref))) if logits.shape == ref.shape else float("inf")
            return Row(suite, case, "fail", f"logits differ{SEP}step {i}: max abs {err:.3g}")
        if int(logits[0, -1].argmax()) != int(ref[0, -1].argmax()):
            return Row(suite, case, "fail", f"another greedy token{SEP}step {i}")
        state = {state_in[v]: got[state_out[v]] for v in state_in}
    return Row(suite, case, "pass")


def _steps(npz: Path) -> list[dict[str, np.ndarray]]:
    """``<step>.<input>`` arrays of a trace, per step."""
    with np.load(npz) as f:
        steps: dict[int, dict[str, np.ndarray]] = {}
        for key in f.files:
            head, name = key.split(".", 1)
            if head.isdigit():
                steps.setdefault(int(head), {})[name] = f[key]
    return [steps[i] for i in sorted(steps)]


def _llm_case(suite: str, d: Path) -> Row:
    steps = _steps(d / "steps.npz")
    with np.load(d / "expected.npz") as e:
        want = [e[str(i)] for i in range(len(steps))]
    return _decode(suite, d.name, d / "model.xml", steps, want, _tolerance(d))


def _encoder(suite: str, d: Path, trace: Path) -> Row:
    """A seq2seq encoder's output on a trace's ``source.*`` inputs against OpenVINO's."""
    from irrun.export.verify import compare
    _, proto = _export(d / "openvino_encoder_model.xml")
    s = _session(proto)
    with np.load(trace) as f:
        feeds = {k.split(".", 1)[1]: f[k] for k in f.files if k.startswith("source.")}
        want = f["expected.encoder"]
    got = s.run(None, feeds)[0]
    rtol, atol = _tolerance(d)
    (a,) = compare({"encoder": want}, {"encoder": got}, atol=atol, rtol=rtol)
    return Row(suite, f"{d.name}/encoder", "pass" if a.ok else "fail",
               "" if a.ok else f"outputs differ{SEP}max abs {a.max_abs:.3g} {a.problem}".rstrip())


def _stateless(suite: str, case: str, d: Path, ref: dict, tol: tuple[float, float]) -> Row:
    """optimum-intel's stateless pair: decoder_model on step 0, decoder_with_past after, each step
    fed OpenVINO's inputs (its past_key_values.* from OpenVINO's present.*); every output of every
    step against OpenVINO's, and the same greedy token."""
    from irrun.export.verify import compare
    from tools.zoo.seq2seq_zoo import DECODER, WITH_PAST
    first, with_past = (_session(_export(d / x)[1]) for x in (DECODER, WITH_PAST))
    for i, (feeds, logits, rest) in enumerate(zip(ref["feeds"], ref["logits"], ref["outputs"])):
        s = with_past if i else first
        got = dict(zip([o.name for o in s.get_outputs()], s.run(None, feeds)))
        for a in compare({"logits": logits, **rest}, got, atol=tol[1], rtol=tol[0]):
            if not a.ok:
                return Row(suite, case, "fail", f"outputs differ{SEP}step {i} {a.name}: max abs {a.max_abs:.3g} "
                           f"{a.problem}".rstrip())
        if int(got["logits"][0, -1].argmax()) != int(logits[0, -1].argmax()):
            return Row(suite, case, "fail", f"another greedy token{SEP}step {i}")
    return Row(suite, case, "pass")


def _seq2seq_cases(suite: str, d: Path) -> list[Row]:
    """The decoder of an encoder-decoder pair over each recorded trace (greedy, and beams: the
    decoder's beam_idx input reorders the cache inside the graph, as in OpenVINO)."""
    rows = []
    try:                                     # the encoder, on the first trace's source
        rows.append(_encoder(suite, d, sorted(d.glob("*.npz"))[0]))
    except Exception as e:
        rows.append(_model_error(suite, f"{d.name}/encoder", e))
    for trace in sorted(d.glob("*.npz")):
        case = f"{d.name}/{trace.stem}"
        try:
            steps = _steps(trace)
            with np.load(trace) as f:
                want = [f[f"expected.{i}"] for i in range(len(steps))]
            rows.append(_decode(suite, case, d / "openvino_decoder_model.xml", steps, want, _tolerance(d)))
        except Exception as e:
            rows.append(_model_error(suite, case, e))
    return rows


def _model_error(suite: str, case: str, e: Exception) -> Row:
    from irrun.errors import UnsupportedError
    if isinstance(e, UnsupportedError):
        return _refused(suite, case, e)
    return Row(suite, case, "fail", f"{type(e).__name__}{SEP}{_short(e)}")


#: suite -> its checked-in case folders and how one is run
MODEL_SUITES = {"zoo": ("zoo", _plain_case), "encoders": ("encoder_zoo", _plain_case),
                "compressed": ("compressed", _plain_case), "public": ("public", _plain_case),
                "llm": ("llm_zoo", _llm_case)}


def _public_corpus(workdir: Path | None) -> list[Path]:
    """The collected public corpus files OpenVINO ran (the public suite's folder:
    ``$IRRUN_PUBLIC_CORPUS``, else the driver's ``<workdir>/public``), with its expected.npz."""
    from tools.conformance.public_corpus import corpus_dir
    root = corpus_dir(None if workdir is None else Path(workdir).parent / "public")
    if not root.is_dir() or (workdir is None and not os.environ.get("IRRUN_PUBLIC_CORPUS")):
        return []
    return sorted(p for p in root.iterdir() if (p / "model.xml").exists() and (p / "expected.npz").exists())


def replay_models(k: str = "", workdir: Path | None = None) -> list[Row]:
    rows: list[Row] = []
    for suite, (folder, run_case) in MODEL_SUITES.items():
        dirs = sorted(p for p in (FIXTURES / folder).iterdir() if (p / "model.xml").exists())
        if suite == "public":
            dirs += [p for p in _public_corpus(workdir) if p.name not in {d.name for d in dirs}]
        for d in dirs:
            if k not in d.name:
                continue
            try:
                rows.append(run_case(f"export:{suite}", d))
            except Exception as e:
                rows.append(_model_error(f"export:{suite}", d.name, e))
    for d in sorted((FIXTURES / "seq2seq_zoo").iterdir()):
        if k in d.name and (d / "openvino_decoder_model.xml").exists():
            rows += _seq2seq_cases("export:seq2seq", d)
    return rows


def _built_zoo(root: Path, k: str) -> list[Row]:
    """tools/zoo/zoo.py's converted torch models in ``root`` (fp32 and fp16 weights), OpenVINO's
    outputs asked for as the zoo suite does, at the zoo's tolerances."""
    from tools.ovoracle import Oracle
    from tools.zoo.zoo import ATOL, RTOL, VARIANTS, expected, feeds_of
    try:        # each case's own tolerance; the models need torch only to be built, not replayed
        from tools.zoo.zoo_models import CASES
        tols = {name: tuple(info.tol[:2]) for name, info in CASES.items() if info.tol}
        names = list(CASES)
    except ModuleNotFoundError:
        tols, names = {}, sorted(p.parent.name for p in root.glob("*/stamp.json"))
    suite, rows = "export:zoo-built", []
    with Oracle(timeout=300) as oracle:
        for name in names:
            stamp = root / name / "stamp.json"
            variants = [v for v in VARIANTS if k in f"{name}/{v}"]
            if not stamp.exists() or not variants:
                continue
            meta = json.loads(stamp.read_text(encoding="utf-8"))["meta"]
            feeds = feeds_of(root / name, meta)
            tol = tols.get(name, (RTOL, ATOL))
            for v in variants:
                xml = root / name / v / "model.xml"
                try:
                    want = expected(oracle, xml, feeds, meta["outputs"])
                except RuntimeError as e:
                    rows.append(Row(suite, f"{name}/{v}", "excluded", f"OpenVINO CPU cannot run it{SEP}{e}"))
                    continue
                rows.append(_guarded(suite, f"{name}/{v}", _one_shot, xml, zip(feeds, want), tol))
    return rows


def _built_encoders(root: Path, k: str) -> list[Row]:
    """tools/zoo/make_encoders.py's optimum/diffusers/nncf models in ``root``, OpenVINO's outputs
    asked for as the encoders suite does, at its tolerances (its OV_WRONG cases left out)."""
    from tools.ovoracle import Oracle, short_message
    from tools.zoo import make_encoders
    from tools.zoo.encoder_zoo import ATOL, OV_WRONG, RTOL, WIDER, openvino_outputs
    suite, rows = "export:encoders-built", []
    with Oracle(timeout=300) as oracle:
        for case in make_encoders.CASES:
            xml = root / case / "model.xml"
            if k not in case or not xml.exists() or case in OV_WRONG:
                continue
            r = oracle.call(openvino_outputs, str(xml), make_encoders.feeds(case.split("/")[0]))
            if not r.ok:
                rows.append(Row(suite, case, "excluded", f"OpenVINO CPU cannot run it{SEP}{short_message(r.message)}"))
                continue
            sets = zip(r.value["feeds"], r.value["outputs"])
            rows.append(_guarded(suite, case, _one_shot, xml, sets, WIDER.get(case, (RTOL, ATOL, ""))[:2]))
    return rows


def _built_seq2seq(root: Path, k: str) -> list[Row]:
    """tools/zoo/make_seq2seq.py's encoder-decoder pairs in ``root``, traced in OpenVINO as the
    seq2seq suite does (greedy, two beams, stateless): the encoder on the trace's source, then the
    decoder step by step (state through past_key_values.*/present.*), at the suite's tolerance."""
    from tools.ovoracle import Oracle
    from tools.zoo.seq2seq_zoo import ATOL, BEAM, DECODER, RTOL, STATELESS, _cases, openvino_seq2seq
    suite, rows = "export:seq2seq-built", []
    with Oracle(timeout=600) as oracle:
        for case in _cases():
            name = case.removesuffix(BEAM)
            mode = BEAM if case.endswith(BEAM) else STATELESS if case.endswith(STATELESS) else ""
            d = root / name
            if k not in case or not (d / "build.json").exists():
                continue
            config = {**json.loads((d / "config.json").read_text(encoding="utf-8")),
                      **json.loads((d / "generation_config.json").read_text(encoding="utf-8"))}
            r = oracle.call(openvino_seq2seq, str(d), config, mode)
            if not r.ok:
                rows.append(Row(suite, case, "excluded", f"OpenVINO CPU cannot run it{SEP}{_short(r.message)}"))
                continue
            ref, tol = r.value, (RTOL, ATOL)
            try:                                # one row per case: the encoder, then the decoder
                encoder = _built_encoder(suite, case, d, ref, tol)
            except Exception as e:
                encoder = _model_error(suite, case, e)
            if encoder.status != "pass":
                rows.append(encoder)
            elif mode == STATELESS:
                rows.append(_guarded(suite, case, _stateless, d, ref, tol))
            else:
                rows.append(_guarded(suite, case, lambda s, c, xml: _decode(s, c, xml, ref["feeds"], ref["logits"],
                                                                          tol), d / DECODER))
    return rows


def _built_encoder(suite: str, case: str, d: Path, ref: dict, tol: tuple[float, float]) -> Row:
    """A seq2seq encoder's output on OpenVINO's trace (its ``source``) against OpenVINO's ``hidden``."""
    from irrun.export.verify import compare
    from tools.zoo.seq2seq_zoo import ENCODER
    got = _session(_export(d / ENCODER)[1]).run(None, ref["source"])[0]
    (a,) = compare({"encoder": ref["hidden"]}, {"encoder": got}, atol=tol[1], rtol=tol[0])
    return Row(suite, case, "pass" if a.ok else "fail",
               "" if a.ok else f"encoder outputs differ{SEP}max abs {a.max_abs:.3g} {a.problem}".rstrip())


def _guarded(suite: str, case: str, run_case: Any, *args: Any) -> Row:
    """``run_case(suite, case, *args)``, an error of the export or of onnxruntime as the case's row."""
    try:
        row = run_case(suite, case, *args)
    except Exception as e:
        row = _model_error(suite, case, e)
    print(f"  {suite} {case:34} {row.status} {row.detail[:120]}", file=sys.stderr, flush=True)
    return row


#: the workdir suites (built with torch/optimum-intel by the conformance driver into
#: ``<workdir>/<suite>``): replayed when their folder exists
BUILT_SUITES = {"zoo": _built_zoo, "encoders": _built_encoders, "seq2seq": _built_seq2seq}


def replay_built(workdir: Path, k: str = "") -> list[Row]:
    """Every model the zoo, encoders and seq2seq suites built into ``workdir`` (the driver's
    ``--workdir``), exported and run in onnxruntime against OpenVINO's outputs, asked for now."""
    rows: list[Row] = []
    for folder, replay in BUILT_SUITES.items():
        if (workdir / folder).is_dir():
            rows += replay(workdir / folder, k)
    return rows


def run(workdir: Path | None, k: str = "", ops: bool = True) -> list[Row]:
    """The conformance driver's entry: the models (the checked-in ones, then those the other
    suites built into the driver's workdir: ``workdir`` is its ``<workdir>/export``), then the
    op cases."""
    built = replay_built(Path(workdir).parent, k) if workdir is not None else []
    return replay_models(k, workdir) + built + (replay_ops(k) if ops else [])


def write_baseline(rows: list[Row]) -> None:
    """The op cases that match today, for tests/test_export_op_replay.py."""
    ids = sorted(r.case for r in rows if r.suite == "export:ops" and r.status == "pass")
    BASELINE.write_text(json.dumps({
        "doc": "op cases (tests/fixtures/*_expectations) whose ONNX export matches OpenVINO's outputs in "
               "onnxruntime; written by python -m tools.conformance.export_suite --write-baseline, "
               "replayed by tests/test_export_op_replay.py",
        "matching": ids}, indent=0) + "\n", encoding="utf-8")
    print(f"{BASELINE.relative_to(ROOT)}: {len(ids)} matching op cases", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    p.add_argument("-k", default="", help="only cases whose name contains this")
    p.add_argument("--ops-only", action="store_true", help="only the op-by-op replay")
    p.add_argument("--markdown", action="store_true", help="print the table as Markdown (for the README)")
    p.add_argument("-v", "--verbose", action="store_true", help="list every case of every reason")
    p.add_argument("--workdir", type=Path, default=None,
                   help="also replay the models the conformance driver built into this --workdir "
                        "(its zoo/, encoders/, seq2seq/ folders)")
    p.add_argument("--write-baseline", action="store_true",
                   help=f"write the matching op cases to {BASELINE.relative_to(ROOT)}")
    args = p.parse_args(argv)
    os.environ["CI"] = "true"
    rows = replay_ops(args.k) if args.ops_only else run(None if args.workdir is None else args.workdir / "export", args.k)
    if args.write_baseline:
        write_baseline(rows)
    from tools.conformance.conformance import report
    return report(rows, args.markdown, args.verbose)


if __name__ == "__main__":
    sys.exit(main())
