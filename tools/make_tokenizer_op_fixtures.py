"""Single openvino-tokenizers ops that convert_tokenizer rarely writes, run by OpenVINO on
varied text, as checked-in fixtures: tests/fixtures/tokenizer_ops/<case>.npz + cases.json.

    python tools/make_tokenizer_op_fixtures.py [--out tests/fixtures/tokenizer_ops] [-k substring]

Each case is one op built with openvino_tokenizers' node factory (``_get_factory().create``)
whose every input is a Parameter (the decomposed string tensor ``begins, ends, chars``, for
BytesToChars/CharsToBytes the ragged one, optionally the skips), every output a Result; it runs
on OpenVINO's CPU plugin in the oracle worker (tools/ovoracle.py, CI=true). ``<case>.npz`` holds
``in<i>`` and ``out<i>`` arrays; cases.json each case's op type and attributes.
tests/test_tokenizer_ops.py replays them through irrun without OpenVINO.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import sys
from pathlib import Path

os.environ["CI"] = "true"

import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))
from make_tokenizer_fixtures import LONG, TEXTS  # noqa: E402
from ovoracle import Oracle  # noqa: E402

#: where normalization forms and case folding differ: compositions, Hangul, compatibility
#: characters, case pairs, marks in non-canonical order, invalid UTF-8 (as bytes)
NORM_TEXTS = [
    "e\u0301 a\u0308 \u00e9 A\u030a \u212b \u00c5 \u0041\u0301\u0301", "o\u0323\u0302 o\u0302\u0323 \u1ed9 q\u0307\u0323",
    "\u1100\u1161\u11a8 \uac01 \u1100\u1161 \u1112\u1161\u11ab\u1100\u1173\u11af",
    "\ufb01 \u2460 \uff26\uff55\uff4c\uff4c \u00bd \u2075 \u3392 \u337f",
    "\u01c5 \u00df \u1e9e \u0130 \u03a3\u039f\u03a3 \u1f88 \u0149 \u017f \u212a",
    "\u0915\u093c \u0958 \u09cb \u0b4b \u0f73 \u0f75",
    "\U0001d400\U0001d41a \U0001f642 \u2126 \u03a9 \u2000 \u00a0 \u3000", "\u0344 \u0340\u0341 \u0374 \u037e \u0387 \u1fee",
    "ＡＢＣ ａｂｃ ｶﾞ ｷﾞ \u30ab\u3099 \u304b\u309a", "\u0627\u0653 \u0622 \ufe81 \ufef5 \ufdfa", "", "   ", "MiXeD CaSe ÀÉÎÕÜ Ǆǅǆ",
]
RAW = [b"\xff\xfe ok", b"a\xe2\x82", b"\xc3\xa9\xc3", b"\xed\xa0\x80 surrogate", b"\xf4\x90\x80\x80 > U+10FFFF"]


def _texts() -> list[bytes]:
    rng = random.Random(5)
    sample = "".join(chr(rng.choice([rng.randrange(0x20, 0x3000), rng.randrange(0xAC00, 0xD7A4),
                                     rng.randrange(0xF900, 0xFFEF), rng.randrange(0x1D400, 0x1D800)]))
                     for _ in range(1500))
    text = [t for batch in TEXTS.values() for t in batch] + NORM_TEXTS + [sample[i:i + 50] for i in range(0, 1500, 50)]
    return [t.encode("utf-8", "surrogatepass") for t in text] + RAW + [LONG.encode()]


def _strings(items: list[bytes]) -> list[np.ndarray]:
    lengths = np.array([len(s) for s in items], np.int64)
    ends = np.cumsum(lengths)
    return [(ends - lengths).astype(np.int32), ends.astype(np.int32), np.frombuffer(b"".join(items), np.uint8).copy()]


def _ragged(words: list[list[bytes]]) -> list[np.ndarray]:
    counts = np.array([len(w) for w in words], np.int64)
    ends = np.cumsum(counts)
    return [(ends - counts).astype(np.int32), ends.astype(np.int32)] + _strings([x for w in words for x in w])


def _byte_level(items: list[bytes]) -> list[bytes]:
    """GPT-2's bytes_to_unicode of each byte: what BytesToChars writes, CharsToBytes reads."""
    keep = list(range(33, 127)) + list(range(161, 173)) + list(range(174, 256))
    table, n = {}, 0
    for b in range(256):
        if b in keep:
            table[b] = chr(b)
        else:
            table[b] = chr(256 + n)
            n += 1
    return ["".join(table[b] for b in s).encode() for s in items]


def cases() -> dict[str, tuple[str, dict, list[np.ndarray]]]:
    """case -> (op type, attributes, inputs)."""
    items = _texts()
    plain = _strings(items)
    skips = np.array([i % 3 == 1 for i in range(len(items))], bool)
    words = [items[i:i + 3] for i in range(0, len(items), 3)] + [[]]
    out = {}
    for form in ("NFC", "NFD", "NFKC", "NFKD"):
        out[f"normalize_unicode_{form}"] = ("NormalizeUnicode", {"normalization_form": form}, plain)
    out["normalize_unicode_NFKC_skips"] = ("NormalizeUnicode", {"normalization_form": "NFKC"}, plain + [skips])
    out["case_fold_utf8"] = ("CaseFold", {"encoding": "utf-8"}, plain)
    out["case_fold_utf8_skips"] = ("CaseFold", {"encoding": "utf-8"}, plain + [skips])
    out["case_fold_ascii_lower"] = ("CaseFold", {"encoding": "", "lower": True}, plain)
    out["case_fold_ascii_upper"] = ("CaseFold", {"encoding": "", "lower": False}, plain)
    for form in ("nfc", "nfd", "nfkc", "nfkd"):
        for cf in (False, True):
            out[f"charsmap_{form}{'_cf' * cf}"] = ("CharsMapNormalization", {
                "normalization_form": form, "case_fold": cf, "remove_extra_whitespaces": False}, plain + [skips])
    out["charsmap_nfkc_cf_spm"] = ("CharsMapNormalization", {
        "normalization_form": "nfkc", "case_fold": True, "add_dummy_prefix": True, "escape_whitespaces": True}, plain)
    out["bytes_to_chars"] = ("BytesToChars", {}, _ragged(words))
    wskips = np.array([i % 4 == 2 for i in range(sum(len(w) for w in words))], bool)
    out["bytes_to_chars_skips"] = ("BytesToChars", {}, _ragged(words) + [wskips])
    out["chars_to_bytes"] = ("CharsToBytes", {}, _ragged([_byte_level(w) for w in words]))
    return out


def run_case(op: str, attrs: dict, inputs: list[np.ndarray]) -> list[np.ndarray]:
    """(In the oracle worker) the op on Parameters, run by the CPU plugin."""
    import openvino as ov
    from openvino_tokenizers import _get_factory
    params = [ov.opset15.parameter([-1], ov.Type(a.dtype)) for a in inputs]
    node = _get_factory().create(op, [p.output(0) for p in params], attrs)
    model = ov.Model(node.outputs(), params)
    req = ov.Core().compile_model(model, "CPU").create_infer_request()
    req.infer(inputs)
    return [np.array(req.get_output_tensor(i).data) for i in range(len(node.outputs()))]


def run_saved(op: str, attrs: dict, inputs: list[np.ndarray], xml: str) -> list[np.ndarray]:
    """(In the oracle worker) as ``run_case``, the model also saved to ``xml``."""
    import openvino as ov
    from openvino_tokenizers import _get_factory
    params = [ov.opset15.parameter([-1], ov.Type(a.dtype)) for a in inputs]
    node = _get_factory().create(op, [p.output(0) for p in params], attrs)
    ov.save_model(ov.Model(node.outputs(), params), xml)
    return run_case(op, attrs, inputs)


def measure() -> None:
    """irrun vs OpenVINO on every code point (one string each) and on every multi-character key
    of irrun's nfc/nfkc maps, for each normalization form and case folding: prints the count of
    strings that differ and the first few."""
    import tempfile
    import unicodedata

    import irrun
    from irrun.ops.tokenizers._compose import composed_map, is_unicode_char
    single = [chr(c).encode() for c in range(1, 0x110000) if is_unicode_char(c)]
    keys = sorted({k.encode() for f in ("NFC", "NFKC") for k in composed_map(f, False) if len(k) > 1})
    print(f"Python unicodedata {unicodedata.unidata_version}; {len(single)} code points, {len(keys)} keys")
    specs = [("NormalizeUnicode", {"normalization_form": f}) for f in ("NFC", "NFD", "NFKC", "NFKD")]
    specs += [("CaseFold", {"encoding": "utf-8"})] + [
        ("CharsMapNormalization", {"normalization_form": f, "case_fold": True, "remove_extra_whitespaces": False})
        for f in ("nfc", "nfkc")]
    with Oracle(timeout=900) as ov, tempfile.TemporaryDirectory() as tmp:
        for op, attrs in specs:
            for what, items in (("code points", single), ("map keys", keys)):
                inputs = _strings(items)
                xml = str(Path(tmp) / "m.xml")
                r = ov.call(run_saved, op, attrs, inputs, xml)
                model = irrun.read_model(xml)
                got = model.run({spec.name: x for spec, x in zip(model.inputs, inputs)})
                g = _strings_of(*list(got.values())[:3])
                w = _strings_of(*r.value[:3])
                bad = [i for i in range(len(w)) if g[i] != w[i]]
                print(f"{op} {attrs}: {what}: {len(bad)} of {len(w)} differ", [
                    (items[i].decode(), w[i].decode("utf-8", "replace"), g[i].decode("utf-8", "replace"))
                    for i in bad[:4]])


def _strings_of(b, e, chars) -> list[bytes]:
    data = np.asarray(chars).tobytes()
    return [data[i:j] for i, j in zip(np.asarray(b).reshape(-1).tolist(), np.asarray(e).reshape(-1).tolist())]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--out", default=str(ROOT / "tests" / "fixtures" / "tokenizer_ops"))
    p.add_argument("-k", default="", help="only cases whose name contains this")
    p.add_argument("--measure", action="store_true", help="compare irrun and OpenVINO on every code point instead")
    a = p.parse_args(argv)
    if a.measure:
        measure()
        return 0
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    index_path = out / "cases.json"
    index = json.loads(index_path.read_text()) if index_path.exists() else {}
    with Oracle(timeout=600) as ov:
        for case, (op, attrs, inputs) in cases().items():
            if a.k not in case:
                continue
            r = ov.call(run_case, op, attrs, inputs)
            if not r.ok:
                print(f"{case}: {r.status} {r.message}")
                index.pop(case, None)
                continue
            np.savez_compressed(out / f"{case}.npz", **{f"in{i}": x for i, x in enumerate(inputs)},
                                **{f"out{i}": x for i, x in enumerate(r.value)})
            index[case] = {"type": op, "attrs": attrs, "inputs": len(inputs), "outputs": len(r.value)}
            print(f"{case}: {(out / f'{case}.npz').stat().st_size} bytes")
    index_path.write_text(json.dumps(dict(sorted(index.items())), indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
