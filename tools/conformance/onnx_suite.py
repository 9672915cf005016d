"""ONNX's own node test cases, converted to IR by OpenVINO, run by irrun (issue 3, "Proof").

    python -m tools.conformance.onnx_suite [-k substring] [--workdir DIR] [--jobs N] [--json FILE]

``run(workdir, k)`` returns one :class:`Row` per case (suite ``"onnx"``); tools/conformance/conformance.py
tabulates them with the zoo's. Run alone, this prints its own summary and the cases that did
not simply pass, grouped by reason (excluded), by op (unsupported: IR type-version; fail: the
ONNX op the case tests) or by note (passes that needed OpenVINO's word, see 5).

The cases ship with the ``onnx`` package as Python generators
(``onnx.backend.test.loader.load_model_tests(kind="node")``, ~1900 cases, 7 s to generate). Each
is written once into ``<workdir>/<case>/`` (~60 MB with the IR; the driver's workdir is
``~/.cache/irrun-conformance/onnx``, this script's default too):
``model.onnx`` and ``data.pkl`` (inputs, expected outputs, their ONNX names, the tested op).
OpenVINO and irrun run in long-lived worker processes (tools/ovoracle.py's Oracle, one per job):
a crash or timeout costs that case only. Every case goes through, in this order:

1. a non-tensor input or output (ONNX sequence / optional / map) -> ``excluded``: IR has tensors only;
2. ``openvino.convert_model(model.onnx)`` + ``save_model(compress_to_fp16=False)`` -> ``model.xml``,
   then one inference on the CPU plugin with ``INFERENCE_PRECISION_HINT`` f32. Cannot convert /
   cannot compile or run -> ``excluded`` with OpenVINO's message. Both are cached in ``ov.pkl``
   (per OpenVINO version): a second run re-runs irrun only (~30 s for the whole suite);
3. OpenVINO's outputs vs ONNX's expected ones, within ONNX's own test tolerance (:data:`OV_RTOL`,
   :data:`OV_ATOL`). If the CPU plugin disagrees, OpenVINO's reference evaluator is asked; if it
   disagrees too -> ``excluded`` ("OpenVINO disagrees with ONNX"), never counted against irrun;
   if it agrees, the case counts (noted on the row);
4. ``irrun.read_model`` + ``run`` -> ``unsupported`` (irrun raised UnsupportedError: the detail
   names each such layer's op type and version), ``excluded`` (irrun refuses the input arrays'
   types), ``fail`` (irrun's error, a crash or timeout, an output element type other than
   OpenVINO's, or values off), else the outputs are compared with ONNX's expected ones:
5. within tolerance -> ``pass``. Otherwise two cases where OpenVINO, not irrun, departs from
   ONNX: irrun within tolerance of OpenVINO's output, which is within ONNX's own (looser)
   tolerance of the expected one (ONNX writes some expected values with 4 digits) -> ``pass``
   with a note; irrun equal to OpenVINO's reference evaluator where only the CPU plugin matches
   ONNX (the CPU plugin departs from the op spec, e.g. integer Divide with m_pythondiv) ->
   ``excluded``. Anything else -> ``fail`` with the largest error.

Tolerances for irrun: integer, boolean and string outputs exact; float outputs rtol 1e-4 / atol
1e-5 (:data:`RTOL`, :data:`ATOL`), NaN exactly where NaN is expected, equal infinities; f16 and
bf16 outputs rtol = the type's epsilon (one rounding of the low type: ONNX's reference computes in
f32 and rounds once); f8/f4 outputs (results of casts) exact. No op needed a wider bound.
"""
from __future__ import annotations

import argparse
import json
import pickle
import queue
import re
import sys
import threading
import time
import traceback
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any, Callable

import ml_dtypes
import numpy as np

from tools.conformance.conformance import default_workdir
from tools.conformance.conformance_rows import SEP, Row
from tools.ovoracle import Oracle, short_message

SUITE = "onnx"

RTOL, ATOL = 1e-4, 1e-5          # irrun vs ONNX's expected outputs (issue 3)
OV_RTOL, OV_ATOL = 1e-3, 1e-5    # OpenVINO vs ONNX: ONNX's own rtol; atol no tighter than irrun's
CONVERT_TIMEOUT = 120.0
IRRUN_TIMEOUT = 60.0

# excluded-row detail prefixes (the summary groups by them)
X_TYPES = "not tensors"
X_CONVERT = "OpenVINO cannot convert"
X_CPU = "OpenVINO CPU cannot compile/run"
X_WRONG = "OpenVINO disagrees with ONNX"
X_IRRUN_TYPES = "irrun cannot take"
X_REF = "OpenVINO's CPU plugin matches ONNX, its reference evaluator (and irrun) do not"
P_VIA_OV = "within tolerance of OpenVINO CPU, not of ONNX's expected values"
P_VIA_REF = "OpenVINO's CPU plugin disagrees with ONNX, its reference evaluator agrees"


# =============================================================================================
# The cases on disk


def _tested_op(model, name: str, by_name: dict[str, str]) -> str:
    """The ONNX op a case tests: its single node's type; for a function-expanded case the op of
    the case it expands."""
    nodes = model.graph.node
    if len(nodes) == 1:
        return nodes[0].op_type
    base = name.removesuffix("_expanded")
    for cand in (base, re.sub(r"_expanded.*$", "", name)):
        if cand in by_name:
            return by_name[cand]
    return "+".join(dict.fromkeys(n.op_type for n in nodes))[:60]


def _plain(value: Any) -> Any:
    """A data-set value as NumPy (TensorProto -> array); sequences stay lists."""
    from onnx import TensorProto, numpy_helper
    if isinstance(value, TensorProto):
        return numpy_helper.to_array(value)
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, np.generic):       # 0-d inputs come as NumPy scalars
        return np.asarray(value)
    return value


def materialize(root: Path) -> list[str]:
    """Write every node case into ``root/<case>/`` (model.onnx, data.pkl) unless the index of a
    previous run with the same onnx version is there; returns the case names."""
    import onnx
    index = root / "index.json"
    if index.exists():
        got = json.loads(index.read_text())
        if got.get("onnx") == onnx.__version__:
            return got["cases"]
    import warnings
    from onnx.backend.test import loader
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cases = loader.load_model_tests(kind="node")
    single = {c.name: c.model.graph.node[0].op_type for c in cases if len(c.model.graph.node) == 1}
    for c in cases:
        d = root / c.name
        d.mkdir(parents=True, exist_ok=True)
        g = c.model.graph
        init = {i.name for i in g.initializer}
        (inputs, outputs), = c.data_sets[:1]
        data = dict(input_names=[i.name for i in g.input if i.name not in init],
                    output_names=[o.name for o in g.output],
                    inputs=[_plain(a) for a in inputs], outputs=[_plain(a) for a in outputs],
                    op=_tested_op(c.model, c.name, single))
        (d / "data.pkl").write_bytes(pickle.dumps(data, protocol=pickle.HIGHEST_PROTOCOL))
        onnx_bytes = c.model.SerializeToString()
        if not (d / "model.onnx").exists() or (d / "model.onnx").read_bytes() != onnx_bytes:
            for f in ("model.xml", "model.bin", "ov.pkl"):      # another onnx version: redo
                (d / f).unlink(missing_ok=True)
            (d / "model.onnx").write_bytes(onnx_bytes)
    names = sorted(c.name for c in cases)
    index.write_text(json.dumps({"onnx": onnx.__version__, "cases": names}, indent=0))
    return names


def _load(d: Path) -> dict:
    return pickle.loads((d / "data.pkl").read_bytes())


def _non_tensor(data: dict) -> str:
    for kind, names, values in (("input", data["input_names"], data["inputs"]),
                                ("output", data["output_names"], data["outputs"])):
        for name, v in zip(names, values):
            if not isinstance(v, np.ndarray):
                what = {list: "a sequence", type(None): "an empty optional", dict: "a map"}.get(
                    type(v), type(v).__name__)
                return f"{X_TYPES}{SEP}{kind} {name!r} is {what} (IR carries tensors only)"
    return ""


# =============================================================================================
# Comparison


def _dtype_name(a: np.ndarray) -> str:
    return "string" if a.dtype.kind in "OTU" else a.dtype.name


def _low_float(dt: np.dtype) -> bool:
    return dt.kind == "V" or (dt.kind == "f" and dt.itemsize < 4) or "float8" in dt.name \
        or "float4" in dt.name or "bfloat16" in dt.name


def _kind(a: np.ndarray) -> str:
    """s(tring) b(ool) i(nteger) f(loat) of an array, ml_dtypes included."""
    dt = a.dtype
    if dt.kind in "OTUS":
        return "s"
    if dt.kind == "b":
        return "b"
    if dt.kind in "iu" or dt.name in ("int4", "uint4", "int2", "uint2"):
        return "i"
    return "f"


def compare(got: np.ndarray, want: np.ndarray, rtol: float, atol: float) -> str:
    """'' when ``got`` matches ``want`` (shape; values exact for strings, booleans and integers;
    floats within rtol/atol, NaN where NaN, same infinities), else what differs."""
    got, want = np.asarray(got), np.asarray(want)
    if got.shape != want.shape:
        return f"shape {list(got.shape)}, expected {list(want.shape)}"
    kg, kw = _kind(got), _kind(want)
    if kw == "s" or kg == "s":
        if kg != kw:
            return f"dtype {_dtype_name(got)}, expected strings"
        g, w = got.astype(object).astype(str), want.astype(object).astype(str)
        bad = np.argwhere(g != w)
        i = tuple(int(x) for x in bad[0]) if len(bad) else ()
        return f"{len(bad)} strings differ, first at {i}: {g[i]!r} vs {w[i]!r}" if len(bad) else ""
    if kw in "bi" and kg in "bi":
        g, w = got.astype(np.int64), want.astype(np.int64)
        if want.dtype == np.uint64 or got.dtype == np.uint64:
            g, w = got.astype(np.uint64), want.astype(np.uint64)
        bad = np.argwhere(g != w)
        i = tuple(int(x) for x in bad[0]) if len(bad) else ()
        return f"{len(bad)}/{want.size} values differ, first at {i}: got {g[i]}, expected {w[i]}" \
            if len(bad) else ""
    g, w = got.astype(np.float64), want.astype(np.float64)
    if _low_float(want.dtype) or _low_float(got.dtype):
        low = want.dtype if _low_float(want.dtype) else got.dtype
        if low.itemsize == 1:                 # f8/f4: results of a cast, rounded once: exact
            rtol = atol = 0.0
        else:                                 # f16/bf16: one rounding of the low type
            rtol = max(rtol, float(ml_dtypes.finfo(low).eps))
    with np.errstate(invalid="ignore", over="ignore"):
        return _compare_floats(g, w, rtol, atol)


def _compare_floats(g: np.ndarray, w: np.ndarray, rtol: float, atol: float) -> str:
    nan_g, nan_w = np.isnan(g), np.isnan(w)
    if (nan_g != nan_w).any():
        i = tuple(int(x) for x in np.argwhere(nan_g != nan_w)[0])
        return f"NaN mismatch at {i}: {g[i]} vs {w[i]}"
    ok = nan_w | (g == w) | (np.abs(g - w) <= atol + rtol * np.abs(w))
    if ok.all():
        return ""
    with np.errstate(invalid="ignore"):
        err = np.where(ok, 0.0, np.abs(g - w))
    err = np.where(np.isnan(err), np.inf, err)
    i = np.unravel_index(int(np.argmax(err)), err.shape)
    return f"{int((~ok).sum())}/{w.size} values off, max |err| {err[i]:.3g} at {tuple(map(int, i))}: " \
           f"got {g[i]:.7g}, expected {w[i]:.7g} (rtol {rtol:g}, atol {atol:g})"


def _aligned(produced: list[tuple[tuple[str, ...], np.ndarray, str]], data: dict) -> list | str:
    """``produced`` (names, array, element type name) reordered as ONNX's outputs — by tensor
    name, else by position — or what is missing."""
    out = []
    for i, name in enumerate(data["output_names"]):
        hit = [p for p in produced if name in p[0]]
        if not hit and len(produced) == len(data["output_names"]):
            hit = [produced[i]]
        if not hit:
            return f"no output named {name!r} (got {[p[0] for p in produced]})"
        out.append(hit[0][1:])
    return out


def compare_all(got: list[np.ndarray], want: list[np.ndarray], names: list[str], rtol: float,
                atol: float) -> str:
    for name, g, w in zip(names, got, want):
        diff = compare(g, w, rtol, atol)
        if diff:
            return f"output {name!r}: {diff}"
    return ""


# =============================================================================================
# Worker-side stages (run inside tools/ovoracle.py worker processes via Oracle.call); they
# return plain dicts with the outputs in ONNX's order, the parent compares.

_CORE = None


def _ov_run(kind: str, xml: Path, data: dict):
    global _CORE
    import openvino as ov
    from tools import ovoracle
    if _CORE is None:
        _CORE = ov.Core()
    fn = ovoracle._run_cpu if kind == "cpu" else ovoracle._run_reference
    arrays = [a.astype(str) if a.dtype == object else a for a in data["inputs"]]
    try:
        res = fn(_CORE, str(xml), dict(zip(data["input_names"], arrays)))
        if res.status == "error" and res.message.startswith("no input given for Parameter"):
            res = fn(_CORE, str(xml), arrays)          # a Parameter renamed: by position
    except Exception as e:
        res = ovoracle.OracleResult("error", "eval", f"{type(e).__name__}: {e}")
    if not res.ok:
        return dict(status=res.status, detail=_oneline(res.message))
    got = _aligned([(o.names, o.array, o.etype) for o in res.outputs], data)
    if isinstance(got, str):
        return dict(status="error", detail=got)
    return dict(status="ok", outputs=[a for a, _ in got], etypes=[e for _, e in got])


def ov_stage(case_dir: str) -> dict:
    """Convert (unless model.xml is there), then run once on the CPU plugin."""
    import openvino as ov
    d = Path(case_dir)
    xml = d / "model.xml"
    if not xml.exists():
        try:
            m = ov.convert_model(str(d / "model.onnx"))
            tmp = d / "model.tmp.xml"
            ov.save_model(m, str(tmp), compress_to_fp16=False)
            tmp.with_suffix(".bin").replace(xml.with_suffix(".bin"))
            tmp.replace(xml)
        except Exception as e:
            return dict(status="convert", detail=f"{type(e).__name__}: {_oneline(e)}")
    return _ov_run("cpu", xml, _load(d))


def reference_stage(case_dir: str) -> dict:
    """OpenVINO's reference evaluator (tools/ovoracle.py) on the case."""
    d = Path(case_dir)
    return _ov_run("reference", d / "model.xml", _load(d))


def irrun_stage(case_dir: str) -> dict:
    """Read model.xml with irrun and run it on the ONNX inputs."""
    import irrun
    from irrun.types import elements
    from irrun.errors import InputError, IrrunError, UnsupportedError
    d = Path(case_dir)
    data = _load(d)
    try:
        model = irrun.read_model(d / "model.xml")
    except UnsupportedError as e:
        return dict(status="unsupported", detail=_unsupported([e]))
    except IrrunError as e:
        return dict(status="fail", detail=f"read_model: {type(e).__name__}: {_oneline(e)}")
    missing = [e for e in model.op_errors.values() if isinstance(e, UnsupportedError)]
    if missing:
        return dict(status="unsupported", detail=_unsupported(missing))
    feeds = {}
    by_name = dict(zip(data["input_names"], data["inputs"]))
    params = model.inputs
    if not all(set(p.names) & set(by_name) for p in params) and len(params) == len(data["inputs"]):
        by_name = {p.name: a for p, a in zip(params, data["inputs"])}   # renamed: by position
    for p in params:
        hit = [n for n in p.names if n in by_name]
        if not hit:
            return dict(status="fail", detail=f"IR input {p.name!r} matches no ONNX input "
                                              f"({list(by_name)})")
        a = by_name[hit[0]]
        feeds[p.name] = a.astype(elements.STRING_DTYPE) if a.dtype.kind in "OU" else a
    try:
        outs = model.run(feeds)
    except UnsupportedError as e:
        return dict(status="unsupported", detail=_unsupported([e]))
    except InputError as e:
        return dict(status="excluded", detail=f"{X_IRRUN_TYPES}{SEP}{_oneline(e)}")
    except IrrunError as e:
        return dict(status="fail", detail=f"{type(e).__name__}: {_oneline(e)}")
    except Exception as e:
        tb = traceback.extract_tb(e.__traceback__)[-1]
        return dict(status="fail", detail=f"crash {type(e).__name__}: {_oneline(e)} "
                                          f"({Path(tb.filename).name}:{tb.lineno})")
    got = _aligned([(s.names, outs[s.name], _etype_name(outs[s.name].dtype)) for s in model.outputs], data)
    if isinstance(got, str):
        return dict(status="fail", detail=got)
    return dict(status="ok", outputs=[a for a, _ in got], etypes=[e for _, e in got])


def _etype_name(dt: np.dtype) -> str:
    from irrun.types import elements
    if dt.kind in "OTU":
        return "string"
    return next(t.name for t in sorted(elements.TYPES.values(), key=lambda t: t.name in elements.PACKED)
                if t.dtype == dt)


def _unsupported(errors: list) -> str:
    """'unsupported op T-v[, ...] — message' naming each distinct unsupported layer type."""
    seen: dict[str, str] = {}
    for e in errors:
        seen.setdefault(f"{e.layer.type}-{e.layer.version}" if e.layer else "?", _oneline(e.message))
    return f"unsupported op{'s' if len(seen) > 1 else ''} {', '.join(sorted(seen))}{SEP}" + \
        " | ".join(seen.values())


def _oneline(e: Any) -> str:
    text = str(e)
    short = short_message(text) if "\n" in text else text
    return re.sub(r"\s+", " ", short)[:400]


# =============================================================================================
# Parent side


def _ov_version() -> str:
    from importlib.metadata import version
    return version("openvino")


def _openvino(oracle: Oracle, d: Path, stamp: str) -> dict:
    """OpenVINO's answer for a case: status ok (outputs, etypes in ONNX's order), convert, or an
    error status with the detail. Cached in ov.pkl for this OpenVINO version."""
    cache = d / "ov.pkl"
    ov = pickle.loads(cache.read_bytes()) if cache.exists() else None
    if ov is not None and ov.get("stamp") == stamp:
        return ov
    if ov is not None:                  # converted by another OpenVINO version: convert again
        for f in ("model.xml", "model.bin"):
            (d / f).unlink(missing_ok=True)
    r = oracle.call(ov_stage, str(d), timeout=CONVERT_TIMEOUT)
    if r.ok:
        ov = r.value
    else:                               # the worker crashed or timed out
        ov = dict(status="convert" if not (d / "model.xml").exists() else r.status,
                  detail=f"OpenVINO {r.status}: {_oneline(r.message)}")
    ov["stamp"] = stamp
    cache.write_bytes(pickle.dumps(ov, protocol=pickle.HIGHEST_PROTOCOL))
    return ov


def _case(oracle: Oracle, d: Path, stamp: str) -> Row:
    data = _load(d)
    op, names, want = data["op"], data["output_names"], data["outputs"]
    reason = _non_tensor(data)
    if reason:
        return Row(SUITE, d.name, "excluded", reason)
    ov = _openvino(oracle, d, stamp)
    if ov["status"] != "ok":
        return Row(SUITE, d.name, "excluded",
                   f"{X_CONVERT if ov['status'] == 'convert' else X_CPU}{SEP}{ov['detail']}")
    note = ""
    diff = compare_all(ov["outputs"], want, names, OV_RTOL, OV_ATOL)
    if diff:        # the CPU plugin is wrong; OpenVINO's reference evaluator may still be right
        ref = _reference(oracle, d, ov)
        if ref["status"] != "ok" or compare_all(ref["outputs"], want, names, OV_RTOL, OV_ATOL):
            return Row(SUITE, d.name, "excluded", f"{X_WRONG}{SEP}{diff}")
        ov, note = dict(ov, outputs=ref["outputs"]), f"{P_VIA_REF}{SEP}CPU: {diff}"
    r = oracle.call(irrun_stage, str(d), timeout=IRRUN_TIMEOUT)
    if not r.ok:
        return Row(SUITE, d.name, "fail", f"{op}{SEP}irrun {r.status}: {_oneline(r.message)}")
    v = r.value
    if v["status"] != "ok":
        return Row(SUITE, d.name, v["status"], f"{op}{SEP}{v['detail']}" if v["status"] == "fail" else v["detail"])
    for name, got, et in zip(names, v["etypes"], ov["etypes"]):
        if got != et:
            return Row(SUITE, d.name, "fail", f"{op}{SEP}output {name!r}: element type {got}, OpenVINO gives {et}")
    diff = compare_all(v["outputs"], want, names, RTOL, ATOL)
    if not diff:
        return Row(SUITE, d.name, "pass", note)
    if note:
        return Row(SUITE, d.name, "fail", f"{op}{SEP}{diff}; {note.replace(SEP, ': ')}")
    # ONNX's expected values are sometimes written with 4 digits (AveragePool): irrun within
    # rtol/atol of OpenVINO, which is within ONNX's own tolerance of them, passes (and says so).
    if not compare_all(v["outputs"], ov["outputs"], names, RTOL, ATOL):
        return Row(SUITE, d.name, "pass", f"{P_VIA_OV}{SEP}vs ONNX {diff}")
    # Where the CPU plugin departs from the spec, irrun follows OpenVINO's reference evaluator.
    ref = _reference(oracle, d, ov)
    if ref["status"] == "ok":
        ref_diff = compare_all(ref["outputs"], want, names, OV_RTOL, OV_ATOL)
        if ref_diff and not compare_all(v["outputs"], ref["outputs"], names, RTOL, ATOL):
            return Row(SUITE, d.name, "excluded", f"{X_REF}{SEP}{ref_diff}")
    return Row(SUITE, d.name, "fail", f"{op}{SEP}{diff}")


def _reference(oracle: Oracle, d: Path, ov: dict) -> dict:
    """OpenVINO's reference evaluator on the case, asked only when needed; kept in ov.pkl."""
    if "reference" not in ov:
        r = oracle.call(reference_stage, str(d), timeout=CONVERT_TIMEOUT)
        ov["reference"] = r.value if r.ok else dict(status=r.status, detail=_oneline(r.message))
        (d / "ov.pkl").write_bytes(pickle.dumps(ov, protocol=pickle.HIGHEST_PROTOCOL))
    return ov["reference"]


def run(workdir: Path, k: str = "", jobs: int = 2,
        progress: Callable[[int, int], None] | None = None) -> list[Row]:
    """Every ONNX node case whose name contains ``k``, as Rows (see the module docstring)."""
    root = Path(workdir)
    root.mkdir(parents=True, exist_ok=True)
    names = [n for n in materialize(root) if k in n]
    stamp = _ov_version()
    rows: list[Row | None] = [None] * len(names)
    todo: queue.Queue[int] = queue.Queue()
    for i in range(len(names)):
        todo.put(i)
    done = [0]
    lock = threading.Lock()

    def worker() -> None:
        with Oracle() as oracle:
            while True:
                try:
                    i = todo.get_nowait()
                except queue.Empty:
                    return
                try:
                    rows[i] = _case(oracle, root / names[i], stamp)
                except Exception as e:   # a bug of this tool: say so on the row, keep going
                    rows[i] = Row(SUITE, names[i], "fail", f"bug in tools/conformance/onnx_suite.py{SEP}{type(e).__name__}: {e}")
                with lock:
                    done[0] += 1
                    if progress:
                        progress(done[0], len(names))

    threads = [threading.Thread(target=worker, daemon=True) for _ in range(max(1, jobs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return [r for r in rows if r is not None]


# =============================================================================================
# Report


def _group_key(row: Row) -> str:
    return row.reason if row.status != "pass" or row.detail.startswith((P_VIA_OV, P_VIA_REF)) else ""


def summary(rows: list[Row]) -> str:
    """Totals, the rate over the cases OpenVINO passes, and the non-passing cases by reason."""
    c = Counter(r.status for r in rows)
    counted = c["pass"] + c["fail"] + c["unsupported"]
    lines = [f"ONNX node tests: {len(rows)} cases, {c['pass']} passed, {c['fail']} failed, "
             f"{c['unsupported']} not supported, {c['excluded']} excluded",
             f"irrun passes {c['pass']}/{counted} = {100 * c['pass'] / max(counted, 1):.1f}% of the "
             "cases OpenVINO converts, runs and gets right"]
    via = [r for r in rows if r.status == "pass" and r.detail]
    if via:
        lines.append(f"   ({len(via)} of the passes with a note: listed below)")
    sections = (("excluded", "reason", 3), ("unsupported", "op", 0), ("fail", "op", None),
                ("pass", "note", None))
    for status, by, shown in sections:
        groups: dict[str, list[Row]] = defaultdict(list)
        for r in rows:
            if r.status == status and (status != "pass" or r.detail):
                groups[_group_key(r)].append(r)
        if not groups:
            continue
        n = sum(map(len, groups.values()))
        lines.append(f"\n== {status} ({n}), by {by}" if status != "pass" else f"\n== passed with a note ({n})")
        for key, rs in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])):
            lines.append(f"  {len(rs):4d}  {key}")
            for r in rs[:shown]:
                lines.append(f"          {r.case}: {r.detail[:300]}")
            if shown is not None and 0 < shown < len(rs):
                lines.append("          ...")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-k", default="", help="only cases whose name contains this")
    ap.add_argument("--workdir", type=Path, default=default_workdir() / SUITE,
                    help="cache of the cases and converted models (default: %(default)s)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--json", type=Path, help="also write the rows here")
    args = ap.parse_args(argv)
    t0 = time.monotonic()

    def progress(n: int, total: int) -> None:
        if n % 100 == 0 or n == total:
            print(f"  {n}/{total} cases, {time.monotonic() - t0:.0f} s", file=sys.stderr, flush=True)
    rows = run(args.workdir, args.k, args.jobs, progress)
    if args.json:
        args.json.write_text(json.dumps([vars(r) for r in rows], indent=0))
    print(summary(rows))
    print(f"\n{time.monotonic() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
