"""Build the encoder-decoder IR pairs of the seq2seq suite (tools/zoo/seq2seq_zoo.py): random weights, nothing downloaded.

    CI=true python -m tools.zoo.make_seq2seq [--out DIR] [--only NAME,...] [--force]

Every model is made from a ``transformers`` config written here (fixed seed), saved with
``save_pretrained`` (with its generation config) to a temporary directory, and exported by
optimum-intel's own command line, ``optimum-cli export openvino --task
text2text-generation-with-past`` (T5, mT5, LongT5, BART, mBART, Marian, Pegasus, M2M100,
Blenderbot) or ``--task
automatic-speech-recognition-with-past`` (Whisper), in a child process. Tokenizer conversion is
disabled: the suite feeds token ids and mel features. ``MODELS`` names the weight formats
(``--weight-format`` fp32, fp16, int8, and int4/nf4 in groups of 16). Tool-only dependencies:
torch, transformers, optimum-intel, nncf.

optimum-intel writes ``openvino_encoder_model.xml`` (input_ids + attention_mask, or
input_features) and a stateful ``openvino_decoder_model.xml`` (input_ids, encoder_hidden_states,
encoder_attention_mask where the model has one, beam_idx; the self-attention KV cache and the
cross-attention keys/values, computed from encoder_hidden_states at the first step, live in
ReadValue/Assign variables). With ``--disable-stateful`` (the ``-stateless`` models) the decoder
is two IRs: ``openvino_decoder_model.xml`` for the first step, returning every layer's keys and
values (``present.<i>.decoder|encoder.key|value``), and ``openvino_decoder_with_past_model.xml``
fed them back as ``past_key_values.*`` (its encoder_hidden_states input is then unused).

optimum-intel 1.27.0 cannot export T5 statefully with openvino 2026.4: OpenVINO's SDPA fusion
leaves a cross-attention key Transpose without a tensor name and ``insert_state_for_nodes`` calls
``get_any_name()`` on it. The child applies upstream's fix (huggingface/optimum-intel PR #1857:
name the variable ``<friendly name>.<port>`` when the tensor has none) before running the command
line; it changes nothing for a tensor that has a name. ``build.json`` records it.

Whisper keeps its real ``max_source_positions`` of 1500: the exporter traces the encoder with
3000 mel frames and the encoder accepts exactly ``2 * max_source_positions``.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("CI", "true")            # OpenVINO's telemetry stalls without it
TEXT = "text2text-generation-with-past"
SPEECH = "automatic-speech-recognition-with-past"
FP32 = ("--weight-format", "fp32")
INT8 = ("--weight-format", "int8")
STATELESS = "--disable-stateful"
UPSTREAM_FIX = "huggingface/optimum-intel PR #1857 (unnamed cross-attention tensors) applied"
_T5 = dict(vocab_size=1000, d_model=32, d_kv=8, d_ff=64, num_layers=2, num_heads=4,
           relative_attention_num_buckets=8, decoder_start_token_id=0, pad_token_id=0, eos_token_id=1)
_BART = dict(vocab_size=1000, d_model=32, encoder_layers=2, decoder_layers=2, encoder_attention_heads=4,
             decoder_attention_heads=4, encoder_ffn_dim=64, decoder_ffn_dim=64, max_position_embeddings=128)
#: architecture -> (model class, config class, config arguments, export task)
ARCHS = {
    "t5": ("T5ForConditionalGeneration", "T5Config", _T5, TEXT),
    "mt5": ("MT5ForConditionalGeneration", "MT5Config", {**_T5, "feed_forward_proj": "gated-gelu"}, TEXT),
    "bart": ("BartForConditionalGeneration", "BartConfig",
             dict(**_BART, bos_token_id=0, pad_token_id=1, eos_token_id=2, decoder_start_token_id=2), TEXT),
    "marian": ("MarianMTModel", "MarianConfig",
               dict(**_BART, pad_token_id=0, eos_token_id=1, decoder_start_token_id=0), TEXT),
    "mbart": ("MBartForConditionalGeneration", "MBartConfig",
              dict(**_BART, bos_token_id=0, pad_token_id=1, eos_token_id=2, decoder_start_token_id=2), TEXT),
    "pegasus": ("PegasusForConditionalGeneration", "PegasusConfig",
                dict(**_BART, pad_token_id=0, eos_token_id=1, decoder_start_token_id=0), TEXT),
    "m2m_100": ("M2M100ForConditionalGeneration", "M2M100Config",
                dict(**_BART, bos_token_id=0, pad_token_id=1, eos_token_id=2, decoder_start_token_id=2), TEXT),
    "blenderbot": ("BlenderbotForConditionalGeneration", "BlenderbotConfig",
                   dict(**_BART, bos_token_id=0, pad_token_id=1, eos_token_id=2, decoder_start_token_id=1), TEXT),
    "longt5": ("LongT5ForConditionalGeneration", "LongT5Config",
               {**_T5, "encoder_attention_type": "transient-global", "local_radius": 2, "global_block_size": 4}, TEXT),
    "whisper": ("WhisperForConditionalGeneration", "WhisperConfig",
                dict(vocab_size=1000, d_model=32, encoder_layers=2, decoder_layers=2, encoder_attention_heads=4,
                     decoder_attention_heads=4, encoder_ffn_dim=64, decoder_ffn_dim=64, num_mel_bins=16,
                     max_source_positions=1500, max_target_positions=64, pad_token_id=0, bos_token_id=1,
                     eos_token_id=2, decoder_start_token_id=1), SPEECH),
}
#: The checked-in cases' size (tests/fixtures/seq2seq_zoo: < 300 KB each): one layer per side, vocab 256.
MINI = {"vocab_size": 256, "num_layers": 1, "encoder_layers": 1, "decoder_layers": 1}
# name -> (architecture, export flags, config arguments changed)
MODELS: dict[str, tuple[str, tuple[str, ...], dict]] = {
    **{f"tiny_{a}-fp32": (a, FP32, {}) for a in ARCHS},
    "tiny_t5-int8": ("t5", INT8, {}),
    "tiny_whisper-int8": ("whisper", INT8, {}),
    "tiny_whisper-fp16": ("whisper", ("--weight-format", "fp16"), {}),
    **{f"tiny_{a}-{f}": (a, ("--weight-format", f, "--group-size", "16", "--ratio", "1.0"), {})
       for a, f in (("t5", "int4"), ("bart", "nf4"))},
    **{f"tiny_{a}-fp32-stateless": (a, (*FP32, STATELESS), {}) for a in ("t5", "bart", "whisper")},
    "mini_t5-int8": ("t5", INT8, MINI),
    "mini_bart-int8": ("bart", INT8, MINI),
}
FILES = ("openvino_encoder_model", "openvino_decoder_model")
WITH_PAST = "openvino_decoder_with_past_model"


def save_random(name: str, dest: Path, seed: int = 0) -> int:
    """Write a randomly initialised model ``name`` (model + generation config) to ``dest``; its parameters."""
    import torch
    import transformers as t
    arch, _, changed = MODELS[name]
    model_cls, config_cls, kwargs, _ = ARCHS[arch]
    torch.manual_seed(seed)
    kwargs = {**kwargs, **{k: v for k, v in changed.items() if k in kwargs}}
    model = getattr(t, model_cls)(getattr(t, config_cls)(**kwargs)).eval()
    model.save_pretrained(dest)
    model.generation_config.save_pretrained(dest)
    return sum(p.numel() for p in model.parameters())


def _cli_with_upstream_fix(argv: list[str]) -> int:
    """optimum-cli's main with PR #1857's insert_state_for_nodes (see the module docstring)."""
    import openvino as ov
    from optimum.commands.optimum_cli import main as cli
    from optimum.exporters.openvino import stateful

    def insert_state_for_nodes(model, nodes):
        for output in sum((node.outputs() for node in nodes), []):
            consumers = output.get_target_inputs()
            variable_id = (output.get_any_name() if output.get_names()
                           else f"{output.get_node().get_friendly_name()}.{output.get_index()}")
            read_value = ov.opset13.read_value(output, variable_id)
            for consumer in consumers:
                consumer.replace_source_output(read_value.output(0))
            model.add_sinks([ov.opset13.assign(read_value, variable_id)])

    stateful.insert_state_for_nodes = insert_state_for_nodes
    sys.argv = ["optimum-cli", *argv]
    cli()
    return 0


def export(name: str, out: Path, force: bool = False) -> dict:
    """Build ``out/name`` (atomically: exported next to it, then renamed); its build record."""
    # imported here: the --save-random and --cli children run this file by path, without the tools package
    from tools.zoo.make_llms import publish
    arch, flags, _ = MODELS[name]
    dest = out / name
    if (dest / "build.json").exists() and not force:
        return json.loads((dest / "build.json").read_text())
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=f"{name}-", dir=out) as tmp:
        src, ir = Path(tmp) / "hf", Path(tmp) / "ir"
        t0 = time.perf_counter()
        params = int(subprocess.run([sys.executable, __file__, "--save-random", name, str(src)], check=True,
                                    capture_output=True, text=True, cwd=tmp).stdout.split()[-1])
        made = time.perf_counter() - t0
        args = ["export", "openvino", "--model", str(src), "--task", ARCHS[arch][3], *flags,
                "--disable-convert-tokenizer", str(ir)]
        t0 = time.perf_counter()
        p = subprocess.run([sys.executable, __file__, "--cli", *args], capture_output=True, text=True, cwd=tmp,
                           env=dict(os.environ, HF_HUB_OFFLINE="1"))
        took = time.perf_counter() - t0
        if p.returncode != 0 or not all((ir / f"{f}.xml").exists()
                                        for f in (*FILES, *[WITH_PAST][:STATELESS in flags])):
            raise SystemExit(f"{name}: export failed (exit {p.returncode}):\n{p.stderr[-3000:]}")
        record = {"name": name, "architecture": arch, "parameters": params, "seed": 0,
                  "command": "optimum-cli " + " ".join(args).replace(str(tmp) + "/", ""), "note": UPSTREAM_FIX,
                  "random_model_seconds": round(made, 1), "export_seconds": round(took, 1),
                  "bytes": {f.name: f.stat().st_size for f in sorted(ir.glob("openvino_*"))}}
        publish(ir, dest, record)
    return record


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "--save-random":
        print(save_random(argv[1], Path(argv[2])))
        return 0
    if argv and argv[0] == "--cli":
        return _cli_with_upstream_fix(argv[1:])
    from tools.zoo.make_llms import export_each
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=Path(tempfile.gettempdir()) / "irrun-seq2seq")
    ap.add_argument("--only", default="", help="model names, comma-separated (default: all)")
    ap.add_argument("--force", action="store_true", help="rebuild models that exist")
    args = ap.parse_args(argv)
    names = [n for n in args.only.split(",") if n] or list(MODELS)
    unknown = [n for n in names if n not in MODELS]
    if unknown:
        ap.error(f"unknown model(s) {unknown}; known: {', '.join(MODELS)}")
    return export_each(names, export, args.out, args.force)


if __name__ == "__main__":
    sys.exit(main())
