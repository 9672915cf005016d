"""irrun's conformance run: the model zoo, ONNX's node tests, the LLM, seq2seq, encoder and tokenizer
zoos, public IR files; one command, one pass table.

    python -m tools.conformance.conformance [-k SUBSTR]
        [--suite zoo|onnx|llm|seq2seq|encoders|tokenizers|public|export]
                                            [--workdir DIR] [--markdown] [-v]

Suites (each a module with ``run(workdir: Path, k: str = "") -> list[Row]``, Row in
tools/conformance/conformance_rows.py):

* ``zoo`` (tools/zoo/zoo.py): small torch models converted with ``openvino.convert_model``, with and
  without fp16-compressed weights; expected values from OpenVINO CPU at f32.
* ``onnx`` (tools/conformance/onnx_suite.py): the node test cases shipped with the ``onnx`` package,
  converted to IR; expected values from ONNX's own files. Cases OpenVINO itself cannot convert or
  gets wrong are ``excluded`` with the reason, not counted against irrun.
* ``llm`` (tools/zoo/llm_zoo.py): tiny decoder LLMs exported by optimum-intel (tools/zoo/make_llms.py:
  33 architectures, int8/int4/nf4/fp weights), prefill + 3 greedy steps with the state carried;
  expected logits from OpenVINO CPU at f32 (f32 KV cache). Also needs transformers, optimum-intel.
* ``tokenizers`` (tools/zoo/tokenizer_zoo.py): tokenizers trained here, converted by
  openvino_tokenizers.convert_tokenizer with detokenizers; ids and strings equal to OpenVINO CPU's.
* ``seq2seq`` (tools/zoo/seq2seq_zoo.py): encoder-decoder pairs exported by optimum-intel
  (tools/zoo/make_seq2seq.py: T5, BART, Whisper and kin; stateful, stateless, int8), the encoder once,
  then the decoder greedily and as two beams; expected outputs from OpenVINO CPU at f32.
* ``encoders`` (tools/zoo/encoder_zoo.py): encoders exported by optimum-intel, diffusers models by
  convert_model, nncf weight formats and PTQ (tools/zoo/make_encoders.py); three input shapes each;
  expected outputs from OpenVINO CPU at f32.
* ``public`` (tools/conformance/public_corpus.py): IR files other people committed to public repositories
  (Model Optimizer v10/v11, Open Model Zoo FP32/FP16/INT8), listed in
  tools/conformance/public_corpus_manifest.json and collected into ``$IRRUN_PUBLIC_CORPUS`` (else
  ``<workdir>/public``); OpenVINO CPU at f32; FakeQuantize files by the INT8 measure.
* ``export`` (tools/conformance/export_suite.py): the suites' checked-in cases (converted zoo,
  encoders, compressed weights, LLMs, seq2seq decoders, public IRs and ``$IRRUN_PUBLIC_CORPUS``)
  and every op expectation case, exported to ONNX by irrun and run in onnxruntime against
  OpenVINO's outputs; rows ``export:<suite>``, an op without an ONNX form is "not supported" by
  name. Needs onnx and onnxruntime only.

Needs torch, onnx and openvino (OpenVINO always runs in a child process with CI=true).
Converted models are cached in ``--workdir`` (one sub-directory per suite). Prints the pass
table — cases, passed, failed, not supported (irrun raised UnsupportedError), excluded, and the
pass rate over the cases not excluded — then the rows that did not pass, grouped by reason.
Exit code 1 when any case failed (not supported is no failure: it is named in the table).
"""
from __future__ import annotations

import argparse
import importlib
import os
import sys
import textwrap
import time
from collections import defaultdict
from pathlib import Path

from tools.conformance.conformance_rows import STATUSES, Row

SUITES = {"zoo": "zoo", "onnx": "onnx_suite", "llm": "llm_zoo", "seq2seq": "seq2seq_zoo",
          "encoders": "encoder_zoo", "tokenizers": "tokenizer_zoo", "public": "public_corpus",
          "export": "export_suite"}
LABELS = {"fail": "failed", "unsupported": "not supported", "excluded": "excluded"}
SHOWN = 6          # case names listed per reason without -v


def default_workdir() -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "irrun-conformance"


#: where a suite's module (a SUITES value) is looked for, in this order
SUITE_PACKAGES = ("zoo", "conformance")


def load_suite(suite: str):
    """The suite's module, looked up in the packages that hold suites (:data:`SUITE_PACKAGES`), or
    None (said on stderr) when its file is in none of them."""
    mod = SUITES[suite]
    names = [f"tools.{group}.{mod}" for group in SUITE_PACKAGES]
    for name in names:
        try:
            return importlib.import_module(name)
        except ModuleNotFoundError as e:
            if e.name != name:
                raise
    print(f"{' or '.join(n.replace('.', '/') + '.py' for n in names)} is missing: the {suite} suite is skipped",
          file=sys.stderr)
    return None


def table(rows: list[Row]) -> list[list[str]]:
    """One line per suite (in order of appearance) plus a total when there are several."""
    suites = list(dict.fromkeys(r.suite for r in rows))
    lines = []
    for name, rs in [(s, [r for r in rows if r.suite == s]) for s in suites] + (
            [("total", rows)] if len(suites) > 1 else []):
        n = {s: sum(r.status == s for r in rs) for s in STATUSES}
        counted = len(rs) - n["excluded"]
        rate = f"{100 * n['pass'] / counted:.1f}%" if counted else "-"
        lines.append([name, str(len(rs)), str(n["pass"]), str(n["fail"]), str(n["unsupported"]),
                      str(n["excluded"]), rate])
    return lines


HEAD = ["suite", "cases", "passed", "failed", "not supported", "excluded", "pass rate"]


def format_table(lines: list[list[str]], markdown: bool) -> str:
    if markdown:
        out = ["| " + " | ".join(HEAD) + " |", "|" + "|".join(["---"] + ["--:"] * (len(HEAD) - 1)) + "|"]
        return "\n".join(out + ["| " + " | ".join(ln) + " |" for ln in lines])
    w = [max(len(x) for x in col) for col in zip(HEAD, *lines)]
    fmt = lambda ln: "  ".join(x.ljust(w[0]) if i == 0 else x.rjust(w[i]) for i, x in enumerate(ln))  # noqa: E731
    return "\n".join([fmt(HEAD)] + [fmt(ln) for ln in lines])


def format_failures(rows: list[Row], verbose: bool = False) -> str:
    """The rows that did not pass, by status, then by suite and reason (largest group first):
    the case names of each group, or with ``verbose`` (or a group of one) each case's details."""
    groups: dict[tuple[str, str, str], list[Row]] = defaultdict(list)
    for r in rows:
        if r.status != "pass":
            groups[(r.status, r.suite, r.reason or "(no detail)")].append(r)
    out = []
    for status in ("fail", "unsupported", "excluded"):
        gs = sorted(((k[1:], v) for k, v in groups.items() if k[0] == status),
                    key=lambda kv: (-len(kv[1]), kv[0]))
        if not gs:
            continue
        out.append(f"\n{LABELS[status]} ({sum(len(v) for _, v in gs)}):")
        for (suite, reason), rs in gs:
            out.append(f"  {len(rs):4}  {suite}: {reason}")
            if verbose or len(rs) == 1:
                out += [f"          {r.case}  {r.detail[len(r.reason):].lstrip(' —')}".rstrip() for r in rs]
            else:
                names = ", ".join(r.case for r in rs[:SHOWN]) + (
                    f", … and {len(rs) - SHOWN} more (-v lists them)" if len(rs) > SHOWN else "")
                out += textwrap.wrap(names, 110, initial_indent=" " * 10, subsequent_indent=" " * 10)
    return "\n".join(out)


def report(rows: list[Row], markdown: bool = False, verbose: bool = False) -> int:
    print(format_table(table(rows), markdown) if rows else "no cases ran")
    failures = format_failures(rows, verbose)
    if failures:
        print(failures)
    return 1 if any(r.status == "fail" for r in rows) else 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    p.add_argument("-k", default="", help="only cases whose name contains this")
    p.add_argument("--suite", choices=sorted(SUITES), action="append",
                   help="run only this suite (repeatable; default: all)")
    p.add_argument("--workdir", type=Path, default=default_workdir(),
                   help="cache for converted models (default: %(default)s)")
    p.add_argument("--markdown", action="store_true", help="print the table as Markdown (for the README)")
    p.add_argument("-v", "--verbose", action="store_true", help="list every case of every reason")
    args = p.parse_args(argv)
    os.environ["CI"] = "true"
    rows: list[Row] = []
    for suite in args.suite or list(SUITES):
        mod = load_suite(suite)
        if mod is None:
            continue
        t = time.perf_counter()
        try:
            got = mod.run(args.workdir / suite, args.k)
        except ModuleNotFoundError as e:            # a package the suite needs (torch, onnx...), not a bug
            if (e.name or "tools").split(".")[0] in ("tools", "irrun"):
                raise
            print(f"{suite}: needs the Python package {e.name!r}, which is not installed: the suite is skipped "
                  f"(see this tool's docstring for what each suite needs)", file=sys.stderr)
            continue
        print(f"{suite}: {len(got)} cases in {time.perf_counter() - t:.0f} s", file=sys.stderr)
        rows += got
    return report(rows, args.markdown, args.verbose)


if __name__ == "__main__":
    sys.exit(main())
