"""Build small tokenizer/detokenizer IRs with openvino-tokenizers and record OpenVINO's outputs,
as checked-in fixtures under tests/fixtures/tokenizers/<case>/.

    python tools/make_tokenizer_fixtures.py [--out tests/fixtures/tokenizers] [-k substring]

No downloads: each tokenizer is trained here on a small corpus (the ``tokenizers`` trainers, or
``sentencepiece`` for the SentencePiece kinds, converted by transformers' slow->fast converter),
wrapped in a ``PreTrainedTokenizerFast`` and converted by ``openvino_tokenizers.convert_tokenizer
(..., with_detokenizer=True)``, then saved with ``openvino.save_model``. The kinds:

* ``bpe_bytelevel``: GPT-2 style byte-level BPE (ByteLevel pre-tokenizer and decoder);
* ``bpe_sentencepiece``: Llama style SentencePiece BPE with byte fallback (Metaspace, not byte-level);
* ``wordpiece``: BERT (BertNormalizer lower-casing + accent stripping, [CLS] $A [SEP]);
* ``unigram``: T5/ALBERT style SentencePiece Unigram (Precompiled charsmap nmt_nfkc, Metaspace);

plus variants that exercise more of the ops: text pairs with truncation (``*_pair_trunc``), and
detokenizers that keep special tokens / clean up tokenization spaces.

Everything OpenVINO touches runs in the oracle worker (tools/ovoracle.py, CI=true). Per case it
writes tokenizer.xml/.bin, detokenizer.xml/.bin, runs.npz (inputs and the CPU plugin's outputs,
string inputs as unicode arrays, string outputs as UTF-8 bytes + end offsets + shape, see
``_run``) and meta.json (which arrays feed and answer each run).
tests/test_tokenizers.py replays them through irrun without OpenVINO.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sys
import tempfile
from pathlib import Path

os.environ["CI"] = "true"

import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))
from ovoracle import Oracle  # noqa: E402

_WORDS = ("the of and to in is was for on that with as by at from his her this which or have an they "
          "are be not one had all but were said there we can when what who will more if out so up about "
          "into than them these some would make like time has two other could then do first any my now "
          "such our over man me even most made after also did many before must through back years where "
          "much your way well down should because each just those people how too little state good very "
          "long world still own see men work last might us great").split()


def corpus() -> list[str]:
    """Training text: English words plus accents, CJK, Hangul, emoji and symbols."""
    rng = random.Random(0)
    text = ["The quick brown fox jumps over the lazy dog.", "Hello, world! It's 2024 and we're testing.",
            "Ünïcödé: café naïve résumé façade", "日本語のテキスト 中文文本 한국어",
            "emoji 🙂👍🏽 and symbols ∑∫√ ﬁ ①"] * 3
    for _ in range(60):
        text.append(" ".join(rng.choice(_WORDS) for _ in range(12)).capitalize() + rng.choice(".!?,"))
    return text


LONG = " ".join(random.Random(1).choice(_WORDS) for _ in range(300)) + " 終わり 🙂"

#: Text batches fed to every tokenizer (one run each).
TEXTS = {
    "basic": ["Hello, world!", "The quick brown fox jumps over the lazy dog.", "", "It's 2024 — we're testing."],
    "unicode": ["café naïve résumé", "日本語のテキスト 中文", "한국어 텍스트", "emoji 🙂👍🏽 👨‍👩‍👧",
                "e\u0301 combining a\u0308 \u00c5ngstr\u00f6m", "ﬁ ① Ｆｕｌｌ width ½", "  leading and   multiple   spaces  ",
                "tabs\tand\nnewlines\r\n", "ÀÉÎÕÜ UPPER CASE ǅ ß ẞ ΣΑΣ"],
    "special": ["<|endoftext|>hello<|endoftext|>", "[CLS] foo [SEP] bar [MASK]", "</s> x <s> y <unk>", "<pad><pad>"],
    "long": [LONG],
    "empty": [""],
    "one": ["a"],
    # where the regex library and PCRE2 could disagree: spaces, controls, format characters,
    # marks, digits, letters of every case, CJK, emoji, private use, unassigned, non-characters
    "codepoints": [f"a{c}b {c}{c} x{c}" for c in (
        "\x00", "\x01", "\t", "\x0b", "\x0c", "\r", "\x1c", "\x1f", "\x7f", "\x85", "\xa0", "\xad",
        "\u0301", "\u0378", "\u0660", "\u1680", "\u180e", "\u2000", "\u200b", "\u200d", "\u2028",
        "\u2029", "\u202f", "\u205f", "\u2060", "\u3000", "\ufeff", "\ue000", "\uffff", "\u00b2",
        "\u2460", "\u01c5", "\u00df", "\u1e9e", "\u0130", "\u03a3", "\u1f88", "\ufb01", "\u4e2d",
        "\U00020000", "\U0001f642", "\u0e01", "\u0627", "\u05d0", "'", "!", "_", "-", "$", "\u2019")],
}


def _train_spm(tmp: str, kind: str) -> str:
    import sentencepiece as spm
    path = os.path.join(tmp, "corpus.txt")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(corpus()))
    prefix = os.path.join(tmp, kind)
    extra = dict(byte_fallback=True) if kind == "bpe" else dict(normalization_rule_name="nmt_nfkc")
    spm.SentencePieceTrainer.train(input=path, model_prefix=prefix, vocab_size=400 if kind == "bpe" else 200, model_type=kind,
                                   character_coverage=1.0, hard_vocab_limit=False, minloglevel=2, **extra)
    return prefix + ".model"


def build_hf(kind: str, tmp: str):
    """A small trained PreTrainedTokenizerFast of one kind."""
    from tokenizers import Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, processors, trainers
    from transformers import LlamaTokenizer, PreTrainedTokenizerFast, T5Tokenizer
    from transformers.convert_slow_tokenizer import convert_slow_tokenizer
    if kind == "bpe_bytelevel":
        tok = Tokenizer(models.BPE())
        tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
        tok.decoder = decoders.ByteLevel()
        tok.train_from_iterator(corpus(), trainers.BpeTrainer(
            vocab_size=400, special_tokens=["<|endoftext|>"], initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
        return PreTrainedTokenizerFast(tokenizer_object=tok, eos_token="<|endoftext|>", bos_token="<|endoftext|>")
    if kind == "bpe_bytelevel_nfd_lower":      # normalizers: NFD, Lowercase, StripAccents, Replace
        tok = build_hf("bpe_bytelevel", tmp).backend_tokenizer
        tok.normalizer = normalizers.Sequence([normalizers.NFD(), normalizers.Lowercase(), normalizers.StripAccents(),
                                               normalizers.Replace("  ", " ")])
        return PreTrainedTokenizerFast(tokenizer_object=tok, eos_token="<|endoftext|>", bos_token="<|endoftext|>")
    if kind == "bpe_bytelevel_nfc":            # -> CharsMapNormalization normalization_form nfc
        tok = build_hf("bpe_bytelevel", tmp).backend_tokenizer
        tok.normalizer = normalizers.NFC()
        return PreTrainedTokenizerFast(tokenizer_object=tok, eos_token="<|endoftext|>", bos_token="<|endoftext|>")
    if kind == "wordpiece_nfkc_lower":         # -> nfkc with case folding
        tok = build_hf("wordpiece_cased", tmp).backend_tokenizer
        tok.normalizer = normalizers.Sequence([normalizers.NFKC(), normalizers.Lowercase()])
        return PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="[UNK]", pad_token="[PAD]", cls_token="[CLS]",
                                       sep_token="[SEP]", mask_token="[MASK]")
    if kind in ("wordpiece", "wordpiece_cased"):
        tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
        tok.normalizer = normalizers.BertNormalizer(lowercase=kind == "wordpiece")
        tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
        tok.decoder = decoders.WordPiece()
        tok.train_from_iterator(corpus(), trainers.WordPieceTrainer(
            vocab_size=300, special_tokens=["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]))
        cls, sep = tok.token_to_id("[CLS]"), tok.token_to_id("[SEP]")
        tok.post_processor = processors.TemplateProcessing(
            single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1", special_tokens=[("[CLS]", cls), ("[SEP]", sep)])
        return PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="[UNK]", pad_token="[PAD]", cls_token="[CLS]",
                                       sep_token="[SEP]", mask_token="[MASK]")
    if kind == "unigram_hf":                   # tokenizers' own Unigram trainer, no sentencepiece
        from tokenizers import SentencePieceUnigramTokenizer
        sp = SentencePieceUnigramTokenizer()
        sp.train_from_iterator(corpus(), vocab_size=300, show_progress=False,
                               special_tokens=["<pad>", "</s>", "<unk>"], unk_token="<unk>")
        sp.normalizer = normalizers.Sequence([normalizers.NFKC(), normalizers.Replace(Regex(" {2,}"), " ")])  # no Nmt
        sp.post_processor = processors.TemplateProcessing(
            single="$A </s>", pair="$A </s> $B </s>", special_tokens=[("</s>", sp.token_to_id("</s>"))])
        return PreTrainedTokenizerFast(tokenizer_object=sp._tokenizer, eos_token="</s>", unk_token="<unk>",
                                       pad_token="<pad>")
    if kind == "unigram":
        fast = convert_slow_tokenizer(T5Tokenizer(_train_spm(tmp, "unigram"), extra_ids=0, legacy=True))
        return PreTrainedTokenizerFast(tokenizer_object=fast, eos_token="</s>", unk_token="<unk>", pad_token="<pad>")
    if kind == "bpe_sentencepiece":
        fast = convert_slow_tokenizer(LlamaTokenizer(_train_spm(tmp, "bpe"), legacy=True))
        return PreTrainedTokenizerFast(tokenizer_object=fast, bos_token="<s>", eos_token="</s>", unk_token="<unk>")
    raise ValueError(kind)


#: case -> (tokenizer kind, convert_tokenizer keyword arguments)
CASES = {
    "bpe_bytelevel": ("bpe_bytelevel", {}),
    "bpe_bytelevel_pair_trunc": ("bpe_bytelevel", dict(number_of_inputs=2, truncation=True, max_length=12,
                                                       skip_special_tokens=False)),
    "bpe_bytelevel_nfd_lower": ("bpe_bytelevel_nfd_lower", {}),
    "bpe_sentencepiece": ("bpe_sentencepiece", {}),
    "bpe_sentencepiece_keep_special": ("bpe_sentencepiece", dict(skip_special_tokens=False, truncation=True,
                                                                 max_length=20)),
    "wordpiece": ("wordpiece", {}),
    "wordpiece_pair_trunc": ("wordpiece", dict(number_of_inputs=2, truncation=True, max_length=16,
                                               clean_up_tokenization_spaces=True, use_max_padding=True)),
    "unigram": ("unigram", {}),
    "unigram_keep_special": ("unigram", dict(skip_special_tokens=False, truncation=True, max_length=10)),
}


def _name(port) -> str:
    """An output's stable name: a tensor name that is not a generated ``Result_N`` one."""
    names = sorted(port.get_names())
    return next((n for n in names if not n.startswith(("Result_", "Parameter_"))), names[0])


def _compile_exact(core, xml: str):
    """The model compiled with each string output also unpacked by StringTensorUnpack-15: the
    tensor's ``bytes_data`` (NumPy ``S`` items) drops trailing NULs, and a token may be one."""
    import openvino as ov
    from openvino import opset15
    model = core.read_model(xml)
    results = [r.input_value(0) for r in model.get_results()]
    for o in results[:]:
        if o.get_element_type() == ov.Type.string:
            results += list(opset15.string_tensor_unpack(o).outputs())
    exact = ov.Model(results, model.get_sinks(), model.get_parameters(), model.get_friendly_name())
    return core.compile_model(exact, "CPU", {"INFERENCE_PRECISION_HINT": "f32"}), len(model.outputs)


def _run(compiled_n, feeds: list) -> dict:
    """Outputs by name; a string output as (UTF-8 bytes u8, end offsets i64, shape i64), read
    exactly from its StringTensorUnpack (see ``_compile_exact``)."""
    compiled, n = compiled_n
    req = compiled.create_infer_request()         # a fresh request: the state starts at its default
    req.infer(feeds)
    out, extra = {}, n
    for o in compiled.outputs[:n]:
        t = req.get_tensor(o)
        if o.get_element_type().get_type_name() == "string":
            begins, ends, chars = (np.array(req.get_tensor(compiled.outputs[extra + i]).data) for i in range(3))
            extra += 3
            data = chars.tobytes()
            items = [data[b:e] for b, e in zip(begins.reshape(-1).tolist(), ends.reshape(-1).tolist())]
            out[_name(o)] = (np.frombuffer(b"".join(items), np.uint8),
                             np.cumsum([len(b) for b in items], dtype=np.int64), np.array(t.shape, np.int64))
        else:
            out[_name(o)] = np.array(t.data)
    return out


def _store(arrays: dict, key: str, value) -> None:
    if isinstance(value, tuple):
        arrays[key + "__utf8"], arrays[key + "__ends"], arrays[key + "__shape"] = value
    else:
        arrays[key] = value


def make_case(case: str, out_dir: str, spec: tuple[str, dict] | None = None, texts: dict | None = None) -> dict:
    """(In the oracle worker) convert, save, run; returns the meta dict, writes runs.npz.
    ``spec`` (kind, convert kwargs) defaults to ``CASES[case]``, ``texts`` to ``TEXTS``."""
    import openvino as ov
    import openvino_tokenizers  # noqa: F401  (registers the extension ops)
    kind, kwargs = spec or CASES[case]
    texts = texts or TEXTS
    from openvino_tokenizers.constants import UTF8ReplaceMode
    with tempfile.TemporaryDirectory() as tmp:
        hf = build_hf(kind, tmp)
    conv = {k: getattr(ov.Type, v) if k.endswith("_type") else UTF8ReplaceMode(v) if k == "utf8_replace_mode" else v
            for k, v in kwargs.items()}            # (picklable names in CASES)
    tok, detok = openvino_tokenizers.convert_tokenizer(hf, with_detokenizer=True, **conv)
    ov.save_model(tok, os.path.join(out_dir, "tokenizer.xml"))
    ov.save_model(detok, os.path.join(out_dir, "detokenizer.xml"))
    core = ov.Core()
    ctok = _compile_exact(core, os.path.join(out_dir, "tokenizer.xml"))
    cdetok = _compile_exact(core, os.path.join(out_dir, "detokenizer.xml"))
    arrays: dict[str, np.ndarray] = {}
    runs, failed = [], []
    names = [i.get_node().get_friendly_name() for i in ctok[0].inputs]
    id_batches = {}
    for tname, batch in texts.items():
        feeds = []
        for j, n in enumerate(names):            # a pair tokenizer gets the batch and its reverse
            feeds.append(np.array(batch if j == 0 else batch[::-1]))
            arrays[f"tok_{tname}_in{j}"] = feeds[j]
        try:
            outs = _run(ctok, feeds)
        except RuntimeError as e:                # recorded, not replayed
            failed.append(dict(model="tokenizer", name=tname, error=str(e).strip().splitlines()[-1][:300]))
            continue
        runs.append(dict(model="tokenizer", name=tname, inputs={n: f"tok_{tname}_in{j}" for j, n in enumerate(names)},
                         outputs={k: f"tok_{tname}_{k}" for k in outs}))
        for k, v in outs.items():
            _store(arrays, f"tok_{tname}_{k}", v)
        id_batches[tname] = outs["input_ids"]
    vocab = int(hf.backend_tokenizer.get_vocab_size())
    id_batches["every_token"] = np.arange(vocab, dtype=np.int64)[None, :]
    id_batches["one_per_row"] = np.arange(vocab, dtype=np.int64)[:, None]
    id_batches["out_of_range"] = np.array([[1, vocab, vocab + 7, 2], [3, 4, 5, 6]], np.int64)
    id_batches["no_tokens"] = np.zeros((2, 0), np.int64)
    dname = cdetok[0].inputs[0].get_node().get_friendly_name()
    id_type = cdetok[0].inputs[0].get_element_type().to_dtype()
    for iname, ids in id_batches.items():
        ids = ids.astype(id_type)
        outs = _run(cdetok, [ids])
        arrays[f"detok_{iname}_in"] = ids
        for k, v in outs.items():
            _store(arrays, f"detok_{iname}_{k}", v)
        runs.append(dict(model="detokenizer", name=iname, inputs={dname: f"detok_{iname}_in"},
                         outputs={k: f"detok_{iname}_{k}" for k in outs}))
    np.savez_compressed(os.path.join(out_dir, "runs.npz"), **arrays)
    return dict(case=case, kind=kind, convert_kwargs=kwargs, vocab_size=vocab,
                failed_in_openvino=failed, oracle=f"OpenVINO CPU plugin (f32), openvino {ov.get_version()}, "
                       f"openvino_tokenizers {openvino_tokenizers.__version__}", runs=runs)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--out", default=str(ROOT / "tests" / "fixtures" / "tokenizers"))
    p.add_argument("-k", default="", help="only cases whose name contains this")
    a = p.parse_args(argv)
    with Oracle(timeout=600) as ov:
        for case in CASES:
            if a.k not in case:
                continue
            d = Path(a.out) / case
            tmp = Path(tempfile.mkdtemp(prefix=f"{case}-", dir=a.out if Path(a.out).is_dir() else None))
            r = ov.call(make_case, case, str(tmp))
            if not r.ok:
                shutil.rmtree(tmp)
                print(f"{case}: {r.status} {r.message}")
                return 1
            (tmp / "meta.json").write_text(json.dumps(r.value, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
            if d.exists():
                shutil.rmtree(d)
            tmp.rename(d)
            size = sum(f.stat().st_size for f in d.iterdir())
            print(f"{case}: {len(r.value['runs'])} runs, {size} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
