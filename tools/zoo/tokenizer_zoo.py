"""The tokenizers suite of the conformance tool: openvino-tokenizers IRs, irrun vs OpenVINO.

    python -m tools.zoo.tokenizer_zoo [-k SUBSTR] [--workdir DIR]
    python -m tools.conformance.conformance --suite tokenizers ...   (the same, through the shared driver)

Each case of ``SUITE_CASES`` is a tokenizer trained here on a small corpus (no downloads; the
builders and the recording of OpenVINO's outputs are tools/fixtures/make_tokenizer_fixtures.py's:
byte-level BPE, SentencePiece BPE and Unigram, tokenizers' own Unigram, WordPiece lower-cased
and cased), converted with ``openvino_tokenizers.convert_tokenizer(..., with_detokenizer=True)``
and options (add_special_tokens, skip_special_tokens, clean_up_tokenization_spaces, pairs,
truncation, max_length padding, i32 ids, UTF-8 replace modes). The conversion and OpenVINO's CPU
plugin run in the oracle worker (tools/ovoracle.py: ``python -I``, its own cwd, CI=true, with
openvino_tokenizers imported so that the extension is registered), on ``TEXTS`` plus
``MORE_TEXTS`` (RTL scripts, whitespace runs, mixed-length batches, special tokens inside text,
long inputs); the detokenizer on the tokenizer's ids, every vocabulary id, out-of-range ids and
an empty batch. Cached in the work directory.

irrun then replays every run: every id, mask and string must be equal, byte for byte; and
``irrun check`` must find nothing on either IR (warnings included). Status: ``pass``; ``fail`` (the first differing run
and output, or the finding); ``unsupported`` (irrun raised UnsupportedError); ``excluded`` when
openvino_tokenizers cannot convert the tokenizer.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

import numpy as np

from tools.conformance.conformance_rows import SEP, Row
from tools.fixtures.make_tokenizer_fixtures import CASES, LONG, TEXTS, make_case

SUITE = "tokenizers"

MORE_TEXTS = {
    "rtl": ["مرحبا بالعالم", "שלום עולם", "mixed English עברית العربية 123 \u200fmark\u200e"],
    "whitespace": ["   ", "a    b", "\t\t\n  x  \n", " leading", "trailing  ", "\u3000ideographic\u3000space"],
    "mixed_lengths": ["", "a", LONG[:700], "short one", "日本", LONG[:90]],
    "special_inside": ["text<|endoftext|>more", "x[SEP]y [CLS]z", "a</s>b<s>c", "<unk><pad>end", "[MASK]", "[UNK]x"],
    "very_long": [LONG * 6],
    "marks": ["a\u0300\u0301\u0302 o\u0308\u0304", "\u0915\u094d\u0937 \u0928\u092e\u0938\u094d\u0924\u0947",
              "\ufdfa \u00c5 A\u030a \u212b", "\u01c5 \u1e9e\u00df \ufb03", "🇯🇵🏳️‍🌈 👩🏽‍💻"],
}

#: case -> (kind, convert_tokenizer keyword arguments): the fixture cases plus more options
SUITE_CASES: dict[str, tuple[str, dict]] = {
    **CASES,
    "bpe_bytelevel_no_special": ("bpe_bytelevel", dict(add_special_tokens=False, skip_special_tokens=False)),
    "bpe_bytelevel_i32_pad": ("bpe_bytelevel", dict(tokenizer_output_type="i32", detokenizer_input_type="i32",
                                                    use_max_padding=True, max_length=24, truncation=True)),
    "bpe_sentencepiece_no_special": ("bpe_sentencepiece", dict(add_special_tokens=False,
                                                               clean_up_tokenization_spaces=True)),
    "bpe_sentencepiece_pair": ("bpe_sentencepiece", dict(number_of_inputs=2, truncation=True, max_length=30)),
    "wordpiece_cased": ("wordpiece_cased", {}),
    "wordpiece_cased_keep_special": ("wordpiece_cased", dict(skip_special_tokens=False, truncation=True,
                                                             max_length=8, clean_up_tokenization_spaces=False)),
    "wordpiece_no_special_pad": ("wordpiece", dict(add_special_tokens=False, use_max_padding=True, max_length=40,
                                                   truncation=True)),
    "unigram_no_cleanup": ("unigram", dict(clean_up_tokenization_spaces=False, add_special_tokens=False)),
    "unigram_pair": ("unigram", dict(number_of_inputs=2, truncation=True, max_length=14)),
    "bpe_bytelevel_nfc": ("bpe_bytelevel_nfc", {}),
    "wordpiece_nfkc_lower": ("wordpiece_nfkc_lower", {}),
    "unigram_hf": ("unigram_hf", {}),
    "unigram_hf_utf8_ignore": ("unigram_hf", dict(utf8_replace_mode="ignore")),
    "bpe_bytelevel_utf8_disable": ("bpe_bytelevel", dict(utf8_replace_mode="disable")),
    "unigram_hf_keep_special": ("unigram_hf", dict(skip_special_tokens=False, use_max_padding=True, max_length=32,
                                                   truncation=True)),
}

def build(case: str, workdir: Path, oracle) -> str:
    """Convert and record the case into ``workdir/case`` (cached); '' or OpenVINO's error."""
    from tools.ovoracle import short_message
    d = workdir / case
    if (d / "meta.json").exists():
        return ""
    workdir.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f"{case}-", dir=workdir))
    r = oracle.call(make_case, case, str(tmp), SUITE_CASES[case], {**TEXTS, **MORE_TEXTS})
    if not r.ok:
        shutil.rmtree(tmp)
        return short_message(r.message)
    (tmp / "meta.json").write_text(json.dumps(r.value, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    shutil.rmtree(d, ignore_errors=True)
    tmp.rename(d)
    return ""


def expected(arrays, key: str):
    """A recorded output: an array, or (for strings) (list of UTF-8 byte strings, shape)."""
    if key in arrays:
        return arrays[key]
    data, ends = arrays[key + "__utf8"].tobytes(), arrays[key + "__ends"].tolist()
    return [data[a:b] for a, b in zip([0] + ends[:-1], ends)], tuple(arrays[key + "__shape"].tolist())


def same(got: np.ndarray, want) -> bool:
    """Exact equality: element type, shape and every value (strings as UTF-8 bytes). A string
    OpenVINO returns that is not valid UTF-8 (a detokenizer with utf8_replace_mode disable) is
    compared as irrun's strings hold it: invalid bytes as U+FFFD (StringTensorPack's documented
    restriction: irrun's string tensors are NumPy StringDType, which holds only valid Unicode)."""
    if isinstance(want, tuple):
        items, shape = want
        items = [x.decode("utf-8", "replace").encode() for x in items]
        return got.shape == shape and [s.encode("utf-8", "surrogatepass") for s in got.reshape(-1).tolist()] == items
    return got.dtype == want.dtype and np.array_equal(got, want)


def replay(d: Path) -> str:
    """'' when irrun gives OpenVINO's outputs on every recorded run, else the first difference."""
    import irrun
    meta = json.loads((d / "meta.json").read_text(encoding="utf-8"))
    arrays = np.load(d / "runs.npz")
    models = {m: irrun.read_model(d / f"{m}.xml") for m in ("tokenizer", "detokenizer")}
    for run in meta["runs"]:
        model = models[run["model"]]
        out = model.run({name: arrays[key] for name, key in run["inputs"].items()})
        for name, key in run["outputs"].items():
            spec = next(o for o in model.outputs if name in o.names)
            if not same(out[spec.name], expected(arrays, key)):
                return f"{run['model']} output differs{SEP}run {run['name']!r}, output {name!r}"
    return ""


def findings(d: Path) -> str:
    """``irrun check``'s findings on both IRs ('' when none: any is a false alarm)."""
    import irrun
    found = [f"{m}: {f.severity}: {f.message}" for m in ("tokenizer", "detokenizer") for f in irrun.check(d / f"{m}.xml")]
    return "; ".join(found[:3]) + (f" (+{len(found) - 3} more)" if len(found) > 3 else "")


def check_case(case: str, d: Path) -> Row:
    from irrun.errors import UnsupportedError
    meta = json.loads((d / "meta.json").read_text(encoding="utf-8"))
    ov_failed = meta["failed_in_openvino"]
    if not any(r["model"] == "tokenizer" for r in meta["runs"]):
        return Row(SUITE, case, "excluded", f"OpenVINO CPU cannot run the tokenizer{SEP}{ov_failed[0]['error']}")
    try:
        bad = replay(d)
    except UnsupportedError as e:         # grouped by what is missing, then where
        where, _, why = str(e).split(": ", 1)[-1].partition("): ")
        return Row(SUITE, case, "unsupported", f"{why}{SEP}{where})" if why else where)
    except Exception as e:          # any error of irrun's is a failure of the case, said in the table
        return Row(SUITE, case, "fail", f"irrun raised {type(e).__name__}{SEP}{str(e)[:300]}")
    if not bad:
        alarm = findings(d)
        bad = f"irrun check reports a finding{SEP}{alarm}" if alarm else ""
    note = f"{len(meta['runs'])} runs equal" + (f", {len(ov_failed)} OpenVINO could not run" if ov_failed else "")
    return Row(SUITE, case, "fail" if bad else "pass", bad or note)


def run(workdir: Path, k: str = "") -> list[Row]:
    """Convert (or reuse), run in OpenVINO and irrun, and compare every case whose name contains ``k``."""
    from tools.ovoracle import Oracle
    rows: list[Row] = []
    workdir = Path(workdir)
    with Oracle(timeout=900) as oracle:
        for case in [c for c in SUITE_CASES if k in c]:
            err = build(case, workdir, oracle)
            rows.append(Row(SUITE, case, "excluded", f"openvino_tokenizers cannot convert it{SEP}{err}") if err
                        else check_case(case, workdir / case))
            print(f"  {case:32} {rows[-1].status} {rows[-1].detail}", file=sys.stderr, flush=True)
    return rows


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("-k", default="", help="only cases whose name contains this")
    p.add_argument("--workdir", type=Path, default=None, help="where the converted IRs are cached")
    args = p.parse_args(argv)
    os.environ["CI"] = "true"
    from tools.conformance.conformance import default_workdir, report
    return report(run(args.workdir or default_workdir() / SUITE, args.k))


if __name__ == "__main__":
    sys.exit(main())
