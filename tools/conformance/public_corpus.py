"""The public suite of the conformance tool: IR files other people committed to public GitHub
repositories (Model Optimizer v10/v11 output 2019-2025, Open Model Zoo FP32/FP16/FP16-INT8,
Ultralytics INT8 exports, openvino-tokenizers IRs), irrun vs OpenVINO CPU at f32.

    python -m tools.conformance.public_corpus [-k SUBSTR] [--corpus DIR] [-v] [--write-fixtures]
    python -m tools.conformance.conformance --suite public ...   (the same, through the shared driver)

The corpus is not in the repository: ``public_corpus_manifest.json`` (beside this module) records
every file's repository, path, commit and sha256 so that ``public_corpus_collect.py`` can fetch it again
(the search tool's ``fetch`` of each repository, then ``collect.py add``); the folder is
``--corpus``, else ``$IRRUN_PUBLIC_CORPUS``, else ``<workdir>/public``. A manifest entry whose
files are missing is *excluded* ("not collected"); one whose files differ from the recorded
sha256 *fails*. OpenVINO's outputs come from ``public_corpus_oracle.py`` (run here for the
files that lack them): seeded inputs, CPU, ``INFERENCE_PRECISION_HINT`` f32.

Every file must pass ``irrun check`` with no error (warnings are OpenVINO-harmless by the
README's rule) and show the input and output element types OpenVINO's ``Model.inputs``/
``outputs`` show. Then, per output:

* **no FakeQuantize in the file**: within atol 1e-3 + rtol 1e-3 (``|a - b| <= atol + rtol*|b|``;
  integers and strings exactly);
* **FakeQuantize** (INT8): every output within the atol/rtol above, or else irrun's relative L2
  error against OpenVINO's int8 kernels, ``||irrun - ov|| / ||ov||`` (root mean square over the
  outputs beyond atol/rtol), at most ``INT8_FACTOR`` (2) times OpenVINO's own spread — the same
  distance between its int8 path and the same model with its low-precision transformations off
  (``LP_TRANSFORMS_MODE`` False: FakeQuantize in f32) — plus ``INT8_FLOOR`` (1e-3). Why: a value
  that lands on a quantization boundary goes one step up or down with a last-bit difference
  upstream, and later FakeQuantize layers carry such steps on, so two correct implementations
  (OpenVINO's int8 and f32 paths, measured: up to 0.65 relative L2 on an SSD DetectionOutput,
  0.28 on a super-resolution net) differ by their accumulated flips. What it catches is coarse:
  a FakeQuantize with 16 levels for 256 fails it, one with 64 does not (that much noise is within
  OpenVINO's own spread on the vehicle-attributes model; tests/test_public_corpus.py).

IR v3-v9 files, which OpenVINO 2026 cannot read, must be refused with a message naming the IR
version (exit code 2): they pass when they are, and fail otherwise.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from tools import ROOT
from tools.conformance.conformance_rows import SEP, Row, error_row

HERE = Path(__file__).resolve().parent

SUITE = "public"
MANIFEST = HERE / "public_corpus_manifest.json"
ORACLE = HERE / "public_corpus_oracle.py"
ATOL = RTOL = 1e-3
#: an INT8 output passes within this many times OpenVINO's own int8-vs-f32 spread (module doc)
INT8_FACTOR = 2.0
INT8_FLOOR = 1e-3
FIXTURES = ROOT / "tests" / "fixtures" / "public"
#: small corpus files checked in for tests/test_public_corpus.py (Open Model Zoo models, Intel,
#: Apache-2.0): a v10 FP16 file (output_padding on its Convolutions) and a v10 INT8 one whose
#: outputs differ from OpenVINO's beyond atol/rtol and agree by the INT8 measure
FIXTURE_CASES = ("landmarks-regression-retail-0009-fp16-v10",
                 "vehicle-attributes-recognition-barrier-0039-fp16-int8")


def corpus_dir(workdir: Path | None, explicit: Path | None = None) -> Path:
    """``explicit``, else $IRRUN_PUBLIC_CORPUS, else ``workdir``."""
    if explicit is not None:
        return explicit
    env = os.environ.get("IRRUN_PUBLIC_CORPUS")
    return Path(env) if env else Path(workdir or ".")


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def rel_l2(a: np.ndarray, b: np.ndarray) -> float:
    """``||a - b|| / ||b||`` in float64 (0 when both are zero)."""
    a64, b64 = np.asarray(a, np.float64).ravel(), np.asarray(b, np.float64).ravel()
    num, den = float(np.linalg.norm(a64 - b64)), float(np.linalg.norm(b64))
    return num / den if den else (0.0 if num == 0 else float("inf"))


def within_tolerance(got: np.ndarray, want: np.ndarray) -> str | None:
    """Why ``got`` does not match ``want`` under atol/rtol 1e-3 (exact for integers and
    strings), or None."""
    if got.shape != want.shape:
        return f"shape {list(got.shape)}, OpenVINO {list(want.shape)}"
    if want.dtype.kind in "USOT" or got.dtype.kind in "USOT":
        bad = sum(str(x) != str(y) for x, y in zip(np.ravel(got).tolist(), np.ravel(want).tolist()))
        return f"{bad} of {want.size} strings differ" if bad else None
    if want.dtype.kind != "f":
        bad = int(np.sum(got.astype(np.int64) != want.astype(np.int64)))
        return f"{bad} of {want.size} values differ" if bad else None
    a, b = got.astype(np.float64), want.astype(np.float64)
    nan = np.isnan(a) != np.isnan(b)
    diff = np.abs(np.nan_to_num(a - b))
    bad = int(np.sum((diff > ATOL + RTOL * np.abs(np.nan_to_num(b))) | nan))
    return f"{bad} of {want.size} values beyond atol/rtol 1e-3 (max abs diff {diff.max():.3g})" if bad else None


def int8_verdict(outputs: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray | None]]) -> str | None:
    """The INT8 measure (module doc) over a model's outputs, ``{name: (irrun, OpenVINO int8,
    OpenVINO with LPT off)}``: None when they agree, else why not. Outputs that are not float (or
    lack the LPT-off reference) must match within tolerance; the float ones, together: the root
    mean square of their relative L2 errors within ``INT8_FACTOR`` x that of OpenVINO's own spread
    + ``INT8_FLOOR`` (one output of a few values — a 7-class softmax — is too small a sample of
    quantization flips to judge alone)."""
    errs, spreads, worst = [], [], ""
    for name, (got, want, lpt_off) in outputs.items():
        why = within_tolerance(got, want)
        if why is None:
            continue
        if got.shape != want.shape or want.dtype.kind != "f" or lpt_off is None:
            return f"{name}: {why}"
        errs.append(rel_l2(got, want))
        spreads.append(rel_l2(lpt_off, want))
        worst = worst or name
    if not errs:
        return None
    err, spread = float(np.sqrt(np.mean(np.square(errs)))), float(np.sqrt(np.mean(np.square(spreads))))
    if err <= INT8_FACTOR * spread + INT8_FLOOR:
        return None
    return (f"relative L2 error {err:.3g} (RMS over {len(errs)} outputs beyond atol/rtol, first {worst}) "
            f"beyond {INT8_FACTOR:g} x OpenVINO's own int8-vs-f32 spread {spread:.3g} + {INT8_FLOOR:g}")


def run_oracle(folder: Path, timeout: float = 900) -> None:
    """OpenVINO's outputs for one corpus folder (tools/conformance/public_corpus_oracle.py, isolated child)."""
    with tempfile.TemporaryDirectory(prefix="public-oracle-") as cwd:
        env = dict(os.environ, CI="true", IRRUN_PUBLIC_CORPUS=str(folder.parent))
        subprocess.run([sys.executable, str(ORACLE), folder.name, "--force"], cwd=cwd, env=env,
                       capture_output=True, text=True, timeout=timeout)


def api_types(ports) -> list[str]:
    return sorted(p.etype.name for p in ports)


def check_case(entry: dict, folder: Path) -> Row:
    """One corpus file: the checker, the API types, the outputs (module doc)."""
    import irrun
    from irrun.errors import ModelFileError
    name, xml = entry["name"], folder / "model.xml"
    ovj = json.loads((folder / "openvino.json").read_text())
    if entry["ir_version"] < 10:
        try:
            irrun.read_model(xml)
        except ModelFileError as e:
            ok = f'IR version "{entry["ir_version"]}"' in e.message
            return Row(SUITE, name, "pass" if ok else "fail",
                       "" if ok else f"refused without naming the IR version{SEP}{e}")
        return Row(SUITE, name, "fail", f"IR v{entry['ir_version']} read{SEP}OpenVINO 2026 cannot read it")
    if not ovj.get("ok"):
        return Row(SUITE, name, "excluded", f"OpenVINO cannot run it{SEP}{ovj.get('error', '')[:200]}")
    try:
        errors = [f for f in irrun.check(xml) if f.severity != "warning"]
        if errors:
            f = errors[0]
            return Row(SUITE, name, "fail", f"check reports {f.severity} {f.code}{SEP}layer {f.layer_id} "
                       f"{f.layer_type} {f.port}: {f.message}")
        model = irrun.read_model(xml)
        for what, ours, theirs in (("inputs", model.inputs, ovj["inputs"]), ("outputs", model.outputs, ovj["outputs"])):
            if api_types(ours) != sorted(p["element_type"] for p in theirs):
                return Row(SUITE, name, "fail", f"{what}' element types differ from OpenVINO's{SEP}"
                           f"irrun {api_types(ours)}, OpenVINO {sorted(p['element_type'] for p in theirs)}")
        exp = np.load(folder / "expected.npz")
        feeds = {k[3:]: exp[k] for k in exp.files if k.startswith("in:")}
        lpt = folder / "expected_lpt_off.npz"
        off = dict(np.load(lpt)) if lpt.exists() else {}
        got = model.run(feeds)
        by = {n: got[p.name] for p in model.outputs for n in p.names}
        compared = {}
        for o in ovj["outputs"]:
            key = "out:" + (o["any_name"] or o["friendly"])
            arr = next((by[n] for n in [*o["names"], o["friendly"]] if n in by), None)
            if arr is None:
                return Row(SUITE, name, "fail", f"output missing{SEP}no output named {o['names']}")
            compared[key[4:]] = (arr, exp[key], off.get(key))
        if entry["has_fakequantize"]:
            why = int8_verdict(compared)
            if why:
                return Row(SUITE, name, "fail", f"INT8 outputs differ{SEP}{why}")
        for out, (arr, want, _) in compared.items():
            why = None if entry["has_fakequantize"] else within_tolerance(arr, want)
            if why:
                return Row(SUITE, name, "fail", f"outputs differ{SEP}{out}: {why}")
    except Exception as e:      # irrun's errors, or a crash (an irrun bug): go on with the next case
        return error_row(SUITE, name, e)
    return Row(SUITE, name, "pass")


def run(workdir: Path, k: str = "", corpus: Path | None = None) -> list[Row]:
    """Every manifest entry whose name contains ``k``, from the corpus folder (module doc)."""
    root = corpus_dir(workdir, corpus)
    rows: list[Row] = []
    for entry in json.loads(MANIFEST.read_text()):
        name = entry["name"]
        if k not in name:
            continue
        folder = root / name
        xml, bin_ = folder / "model.xml", folder / "model.bin"
        if not (xml.exists() and bin_.exists()):
            rows.append(Row(SUITE, name, "excluded", f"not collected{SEP}no {folder}/model.xml + .bin "
                            "(tools/conformance/public_corpus_collect.py fetches it by the manifest)"))
            continue
        if sha256(xml) != entry["sha256_xml"] or sha256(bin_) != entry["sha256_bin"]:
            rows.append(Row(SUITE, name, "fail", f"files differ from the manifest{SEP}{folder}"))
            continue
        if not (folder / "openvino.json").exists() or (
                entry["has_fakequantize"] and not (folder / "expected_lpt_off.npz").exists()):
            run_oracle(folder)
        rows.append(check_case(entry, folder))
        print(f"  {name:55} {rows[-1].status}", file=sys.stderr, flush=True)
    return rows


def write_fixtures(corpus: Path) -> None:
    """Copy ``FIXTURE_CASES`` with OpenVINO's outputs and their provenance to tests/fixtures/public/."""
    import shutil
    manifest = {e["name"]: e for e in json.loads(MANIFEST.read_text())}
    for name in FIXTURE_CASES:
        src, dst = corpus / name, FIXTURES / name
        dst.mkdir(parents=True, exist_ok=True)
        for f in ("model.xml", "model.bin", "expected.npz", "expected_lpt_off.npz"):
            if (src / f).exists():
                shutil.copyfile(src / f, dst / f)
        ov = json.loads((src / "openvino.json").read_text())
        keep = {k: ov[k] for k in ("openvino", "inputs", "outputs")}
        (dst / "case.json").write_text(json.dumps(
            {"source": manifest[name], "licence": "Open Model Zoo (Intel), Apache-2.0", **keep}, indent=1) + "\n")
    total = sum(p.stat().st_size for p in FIXTURES.rglob("*") if p.is_file())
    print(f"tests/fixtures/public: {total / 2**20:.2f} MiB", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    p.add_argument("-k", default="", help="only files whose name contains this")
    p.add_argument("--corpus", type=Path, help="the corpus folder (default: $IRRUN_PUBLIC_CORPUS)")
    p.add_argument("-v", "--verbose", action="store_true")
    p.add_argument("--write-fixtures", action="store_true",
                   help="copy the FIXTURE_CASES to tests/fixtures/public/ (after running them)")
    args = p.parse_args(argv)
    os.environ["CI"] = "true"
    if args.write_fixtures:
        write_fixtures(corpus_dir(None, args.corpus))
    from tools.conformance.conformance import report
    return report(run(Path("."), args.k, args.corpus), verbose=args.verbose)


if __name__ == "__main__":
    sys.exit(main())
