"""The model-zoo suite of the conformance tool: real converted models, irrun vs OpenVINO.

    python -m tools.zoo.zoo [-k SUBSTR] [--workdir DIR] [--rebuild] [--write-fixtures]
    python -m tools.conformance.conformance --suite zoo ...        (the same, through the shared driver)

Every model of tools/zoo/zoo_models.py (torch, random weights, fixed seeds) is converted with
``openvino.convert_model`` and saved twice — ``compress_to_fp16=False`` (``<name>/fp32``) and
``True`` (``<name>/fp16``: f16 Consts, each followed by a Convert to f32) — in the work directory,
where it stays cached until tools/zoo/zoo_models.py or the torch/openvino versions change. Each IR is
run on its input sets by OpenVINO's CPU plugin with ``INFERENCE_PRECISION_HINT`` f32 (the
expected values; in a worker process, tools/ovoracle.py) and by ``irrun.read_model(...).run``.

Agreement: integer and boolean outputs exactly; floats within ``|irrun - ov| <= atol + rtol*|ov|``
with rtol 1e-4, atol 1e-5 — for the fp16 variants too, since both runtimes decompress the f16
weights to f32 before computing. A case may declare a wider bound with its reason in
tools/zoo/zoo_models.py (only the full-width ResNet-18 does: atol 1e-4). Status per case
(``<name>/<variant>``): ``pass``; ``unsupported`` when irrun raises UnsupportedError (the op
named); ``fail`` with the worst error, how far irrun and OpenVINO each are from the torch model
run in float64 (fp32 weights), and the first diverging layer (found as ``irrun compare
--reference openvino`` does), or irrun's error; ``excluded`` when the model cannot be built or
converted, or OpenVINO's CPU plugin cannot run it.

``--write-fixtures`` also writes every small case (all but ResNet-18 and BERT-small) to
tests/fixtures/zoo/<name>_<variant>/ (model.xml, model.bin, inputs.npz, expected.npz;
inputs_2.npz/expected_2.npz for a second input set; case.json with the description and
tolerance) for tests/test_zoo.py, which needs no OpenVINO. Each model is converted in a fresh
process (OpenVINO numbers unnamed nodes per process), so regenerating gives identical files.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import sys
from importlib import metadata
from pathlib import Path

import numpy as np

from tools import ROOT
from tools.conformance.conformance_rows import SEP, Row, error_row
from tools.ovoracle import Oracle, short_message

SUITE = "zoo"
VARIANTS = ("fp32", "fp16")
RTOL, ATOL = 1e-4, 1e-5
FIXTURES = ROOT / "tests" / "fixtures" / "zoo"
FIXTURE_BUDGET = 3 << 20            # all checked-in zoo files together


def _stamp() -> str:
    """What the converted files depend on: the zoo's source and the converters' versions."""
    h = hashlib.sha256((Path(__file__).with_name("zoo_models.py")).read_bytes())
    for pkg in ("torch", "openvino", "onnx"):
        h.update(f"{pkg}={metadata.version(pkg)}".encode())
    return h.hexdigest()[:16]


def build(name: str, d: Path, rebuild: bool = False) -> dict:
    """Convert case ``name`` into ``d`` unless an up-to-date conversion is there; returns its
    meta ({"inputs", "outputs", "feeds"}). Raises RuntimeError when OpenVINO cannot convert it."""
    from tools.zoo.zoo_models import convert
    stamp_file, stamp = d / "stamp.json", _stamp()
    if not rebuild and stamp_file.exists():
        old = json.loads(stamp_file.read_text())
        if old.get("stamp") == stamp and all((d / v / "model.xml").exists() for v in VARIANTS):
            return old["meta"]
    shutil.rmtree(d, ignore_errors=True)
    with Oracle(timeout=600) as fresh:     # a new process: OpenVINO numbers unnamed nodes per process
        r = fresh.call(convert, name, str(d))
    if not r.ok:
        raise RuntimeError(f"{r.status}: {short_message(r.message)}")
    stamp_file.write_text(json.dumps({"stamp": stamp, "meta": r.value}))
    return r.value


def feeds_of(d: Path, meta: dict) -> list[dict[str, np.ndarray]]:
    out = []
    for i in range(meta["feeds"]):
        with np.load(d / f"inputs_{i}.npz") as f:
            out.append({k: f[k] for k in f.files})
    return out


def expected(oracle: Oracle, xml: Path, feeds: list[dict], names: list[str]) -> list[dict[str, np.ndarray]]:
    """OpenVINO CPU (f32) outputs per input set, keyed by the names given to the outputs."""
    out = []
    for f in feeds:
        r = oracle.cpu(xml, f)
        if not r.ok:
            raise RuntimeError(f"{r.status} at {r.stage}: {short_message(r.message)}")
        by = r.by_name()
        out.append({n: by[n] for n in names})
    return out


def mismatch(got: np.ndarray, want: np.ndarray, rtol: float, atol: float) -> str:
    """'' when ``got`` agrees with ``want`` (same dtype and shape; integers and booleans exactly,
    floats within atol + rtol * |want|), else what differs."""
    from irrun.debug.layer_diff import compare_arrays
    got = np.asarray(got)
    if got.dtype != want.dtype:
        return f"dtype {got.dtype}, OpenVINO {want.dtype}"
    d = compare_arrays("", got, want, rtol, atol)
    if d.equal or d.note:
        return d.note
    err = f", max abs err {d.max_abs:.3g}, max rel err {d.max_rel:.3g}" if d.max_abs is not None else ""
    return f"{d.bad} of {d.size} values off{err}"


def first_diverging(model, feeds: dict, rtol: float, atol: float) -> str:
    """The first layer whose inputs agree with OpenVINO CPU but whose outputs do not."""
    from irrun.debug import trace
    from irrun.debug.layer_diff import compare
    from irrun.debug.openvino_reference import all_ports
    try:
        c = compare(model, trace(model, feeds), all_ports(model, feeds, "cpu"), rtol, atol)
    except Exception as e:      # a diagnosis only: never hide the failure it explains
        return f"(no per-layer diagnosis: {type(e).__name__}: {short_message(str(e))})"
    if c.culprit is None:
        return "(every layer agrees when all ports are outputs: a fused-kernel difference in OpenVINO)"
    r = c.culprit
    keys = [r.key(i) for i in range(len(r.ports))]
    w = next((c.ports[k] for k in keys if k in c.ports and not c.ports[k].equal), None)
    err = f", max abs err {w.max_abs:.3g}, max rel err {w.max_rel:.3g}" if w and w.max_abs is not None else \
        f", {w.note}" if w and w.note else ""
    return f'first diverging layer {r.id} "{r.name}" ({r.op}){err}'


def float64_of(d: Path, meta: dict) -> list[dict[str, np.ndarray]] | None:
    """The source model's float64 outputs per input set (torch cases), or None."""
    if not (d / "float64_0.npz").exists():
        return None
    out = []
    for i in range(meta["feeds"]):
        with np.load(d / f"float64_{i}.npz") as f:
            out.append({k: f[k] for k in f.files})
    return out


def check(name: str, variant: str, xml: Path, feeds: list[dict], want: list[dict],
          tol: tuple[float, float], truth: list[dict] | None = None, suite: str = SUITE) -> Row:
    """Run irrun on every input set of one case and compare with OpenVINO's outputs; ``truth``
    (the source model in float64, for fp32 weights) says in a failure whose rounding it is.
    ``suite`` names the row's suite (tools/zoo/encoder_zoo.py uses this check too)."""
    import irrun
    case = f"{name}/{variant}"
    try:
        model = irrun.read_model(xml)
        for i, (f, w) in enumerate(zip(feeds, want)):
            got = model.run(f)
            by = {n: got[p.name] for p in model.outputs for n in p.names}
            for out, arr in w.items():
                if out not in by:
                    return Row(suite, case, "fail", f"output missing{SEP}no output named {out}")
                why = mismatch(by[out], arr, *tol)
                if why:
                    if truth is not None and out in truth[i] and arr.dtype.kind == "f":
                        t = truth[i][out]
                        why += (f"; max abs err vs the float64 torch model: irrun {np.abs(by[out] - t).max():.3g},"
                                f" OpenVINO {np.abs(arr - t).max():.3g}")
                    shape = "x".join(map(str, next(iter(f.values())).shape))
                    return Row(suite, case, "fail", f"outputs differ{SEP}input set {i + 1} ({shape}): "
                               f"{out}: {why}; {first_diverging(model, f, *tol)}")
    except Exception as e:      # irrun's errors, or a crash (an irrun bug): go on with the next case
        return error_row(suite, case, e)
    return Row(suite, case, "pass")


def run(workdir: Path, k: str = "", *, rebuild: bool = False, write_fixtures: bool = False) -> list[Row]:
    """Build (or reuse), run and compare every zoo case whose ``<name>/<variant>`` contains
    ``k``; with ``write_fixtures``, write each one to tests/fixtures/zoo/ as well."""
    from tools.zoo.zoo_models import CASES
    rows: list[Row] = []
    workdir = Path(workdir)
    with Oracle(timeout=300) as oracle:
        for name, info in CASES.items():
            variants = [v for v in VARIANTS if k in f"{name}/{v}"]
            if not variants:
                continue
            d = workdir / name
            try:
                meta = build(name, d, rebuild)
            except RuntimeError as e:
                rows += [Row(SUITE, f"{name}/{v}", "excluded", f"cannot build or convert{SEP}{e}") for v in variants]
                continue
            feeds = feeds_of(d, meta)
            tol = info.tol[:2] if info.tol else (RTOL, ATOL)
            for v in variants:
                xml = d / v / "model.xml"
                try:
                    want = expected(oracle, xml, feeds, meta["outputs"])
                except RuntimeError as e:
                    rows.append(Row(SUITE, f"{name}/{v}", "excluded", f"OpenVINO CPU cannot run it{SEP}{e}"))
                    continue
                truth = float64_of(d, meta) if v == "fp32" else None
                rows.append(check(name, v, xml, feeds, want, tol, truth))
                print(f"  {rows[-1].case:28} {rows[-1].status}", file=sys.stderr, flush=True)
                if write_fixtures and info.fixture:
                    write_fixture(FIXTURES / f"{name}_{v}", xml, feeds, want, info, tol)
    if write_fixtures:
        total = sum(p.stat().st_size for p in FIXTURES.rglob("*") if p.is_file())
        print(f"tests/fixtures/zoo: {total / 2**20:.2f} MiB"
              + (f" — over the {FIXTURE_BUDGET >> 20} MiB budget: shrink the models"
                 if total > FIXTURE_BUDGET else ""),
              file=sys.stderr)
    return rows


def write_fixture(d: Path, xml: Path, feeds: list[dict], want: list[dict], info, tol,
                  made_by: str = "python -m tools.zoo.zoo --write-fixtures",
                  oracle: str = "OpenVINO CPU plugin, INFERENCE_PRECISION_HINT f32") -> None:
    """One checked-in case: the IR, its input sets and OpenVINO's outputs, case.json (``info``:
    name, doc, tol)."""
    shutil.rmtree(d, ignore_errors=True)
    d.mkdir(parents=True)
    shutil.copyfile(xml, d / "model.xml")
    shutil.copyfile(xml.with_suffix(".bin"), d / "model.bin")
    for i, (f, w) in enumerate(zip(feeds, want)):
        suffix = f"_{i + 1}" if i else ""
        np.savez_compressed(d / f"inputs{suffix}.npz", **f)
        np.savez_compressed(d / f"expected{suffix}.npz", **w)
    (d / "case.json").write_text(json.dumps({
        "model": info.name, "variant": d.name.rsplit("_", 1)[1], "description": info.doc,
        "rtol": tol[0], "atol": tol[1], "tolerance_reason": info.tol[2] if info.tol else "",
        "made_by": made_by,
        "expected": oracle},
        indent=1) + "\n")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("-k", default="", help="only cases whose <name>/<variant> contains this")
    p.add_argument("--workdir", type=Path, default=None,
                   help="where converted models are cached (default: ~/.cache/irrun-conformance/zoo)")
    p.add_argument("--rebuild", action="store_true", help="convert again even if cached")
    p.add_argument("--write-fixtures", action="store_true", help="also write tests/fixtures/zoo/")
    p.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    args = p.parse_args(argv)
    from tools.conformance.conformance import default_workdir, report
    rows = run(args.workdir or default_workdir() / SUITE, args.k, rebuild=args.rebuild,
               write_fixtures=args.write_fixtures)
    return report(rows, args.markdown)


if __name__ == "__main__":
    os.environ["CI"] = "true"
    sys.exit(main())
