"""Build the decoder LLM IRs that tools/bench/bench.py --llm measures: random weights, nothing downloaded.

    CI=true python -m tools.zoo.make_llms [--out /work/llm-models] [--only tiny|real|NAME,...] [--force]

Every model is made from a ``transformers`` config written here (fixed seed), saved with
``save_pretrained`` to a temporary directory, and exported by optimum-intel's own command line
(``optimum-cli export openvino --task text-generation-with-past``, run as a child process so the
export's memory is returned to the system when it ends). Tokenizer conversion is disabled: the
benchmark feeds token ids. Tool-only dependencies: torch, transformers, optimum-intel, nncf.

Outputs, one directory per model under ``--out`` (model.xml + model.bin + config.json; see
``build.json`` there for the export command, the time it took and the model's size):

* tiny_<arch>-int8: 2 layers, hidden 64, vocab 1000 (llama, qwen2, gpt2, phi3, mistral, and the
  mixture-of-experts mixtral and qwen2_moe), int8 weights (``--weight-format int8``);
* tiny_llama-fp32 and tiny_llama-fp16: the llama one without weight compression;
* tiny_<arch>-int8 for more architectures (LLAMA_LIKE and OTHERS below: qwen3, qwen3_moe, gemma,
  gemma2, granite, olmo, olmo2, starcoder2, stablelm, cohere, glm, helium, arcee, smollm3, phi,
  falcon, bloom, opt, gptj, codegen, mpt, gpt_bigcode, gpt_neox, gpt_oss (MoE), and the
  state-space/hybrid mamba and lfm2), the suite of tools/zoo/llm_zoo.py;
* tiny_llama-int4/-nf4 and tiny_qwen3-int4/-nf4: 4-bit weights, group 16, ratio 1.0;
* qwen2_0.5b-int4: the shape of Qwen2-0.5B (hidden 896, 24 layers, 14 heads, 2 KV heads,
  intermediate 4864, vocab 151936, tied embeddings; 494M parameters), ``--weight-format int4
  --group-size 128 --ratio 1.0``. Its export peaks at about 4-5 GB of RAM.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("CI", "true")            # OpenVINO's telemetry stalls without it
DEFAULT_OUT = Path("/work/llm-models")
TINY = dict(vocab_size=1000, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
            num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=512,
            bos_token_id=1, eos_token_id=2, pad_token_id=0)
INT4 = ("--weight-format", "int4", "--group-size", "128", "--ratio", "1.0")
INT8 = ("--weight-format", "int8")
#: 4-bit weights for the tiny models: hidden 64 needs groups smaller than the default 128.
TINY_4BIT = {f: ("--weight-format", f, "--group-size", "16", "--ratio", "1.0") for f in ("int4", "nf4")}
#: Architectures whose config takes TINY's llama-style names (head_dim: some default to 128/256).
LLAMA_LIKE = {"qwen3": "Qwen3Config", "gemma": "GemmaConfig", "gemma2": "Gemma2Config", "granite": "GraniteConfig",
              "olmo": "OlmoConfig", "olmo2": "Olmo2Config", "starcoder2": "Starcoder2Config",
              "stablelm": "StableLmConfig", "cohere": "CohereConfig", "glm": "GlmConfig", "helium": "HeliumConfig",
              "arcee": "ArceeConfig", "smollm3": "SmolLM3Config"}
#: Architectures with their own parameter names: config class and its tiny arguments.
OTHERS = {
    "qwen3_moe": ("Qwen3MoeConfig", dict(**TINY, head_dim=16, num_experts=4, num_experts_per_tok=2,
                                         moe_intermediate_size=64)),
    # optimum-intel's phi export traces only without grouped KV heads
    "phi": ("PhiConfig", dict(**{**TINY, "num_key_value_heads": 4})),
    "falcon": ("FalconConfig", dict(vocab_size=1000, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
                                    num_kv_heads=2, new_decoder_architecture=True, bos_token_id=1, eos_token_id=2)),
    "bloom": ("BloomConfig", dict(vocab_size=1000, hidden_size=64, n_layer=2, n_head=4, bos_token_id=1, eos_token_id=2)),
    "opt": ("OPTConfig", dict(vocab_size=1000, hidden_size=64, ffn_dim=128, num_hidden_layers=2, num_attention_heads=4,
                              word_embed_proj_dim=64, max_position_embeddings=512, bos_token_id=1, eos_token_id=2,
                              pad_token_id=0)),
    "gptj": ("GPTJConfig", dict(vocab_size=1000, n_embd=64, n_layer=2, n_head=4, rotary_dim=8, n_positions=512,
                                bos_token_id=1, eos_token_id=2)),
    "codegen": ("CodeGenConfig", dict(vocab_size=1000, n_embd=64, n_layer=2, n_head=4, rotary_dim=8, n_positions=512,
                                      n_ctx=512, bos_token_id=1, eos_token_id=2)),
    "mpt": ("MptConfig", dict(vocab_size=1000, d_model=64, n_heads=4, n_layers=2, expansion_ratio=2, max_seq_len=512)),
    "gpt_bigcode": ("GPTBigCodeConfig", dict(vocab_size=1000, n_embd=64, n_layer=2, n_head=4, n_positions=512,
                                             bos_token_id=1, eos_token_id=2)),
    "mamba": ("MambaConfig", dict(vocab_size=1000, hidden_size=64, state_size=8, num_hidden_layers=2, conv_kernel=4,
                                  expand=2, bos_token_id=1, eos_token_id=2, pad_token_id=0)),
    "lfm2": ("Lfm2Config", dict(**TINY, layer_types=["conv", "full_attention"], block_dim=64, block_ff_dim=128,
                                block_auto_adjust_ff_dim=False, conv_L_cache=3)),
    "gpt_oss": ("GptOssConfig", dict(**TINY, head_dim=16, num_local_experts=4, num_experts_per_tok=2,
                                     layer_types=["sliding_attention", "full_attention"], sliding_window=128)),
    "gpt_neox": ("GPTNeoXConfig", dict(vocab_size=1000, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                                       num_attention_heads=4, max_position_embeddings=512, bos_token_id=1,
                                       eos_token_id=2)),
}


def _config(arch: str):
    """The transformers config of one model: small, but of the architecture's real structure."""
    import transformers as t
    if arch == "llama":
        return t.LlamaConfig(**TINY)
    if arch == "qwen2":
        return t.Qwen2Config(**TINY)
    if arch == "mistral":
        return t.MistralConfig(**TINY, sliding_window=4096)
    if arch == "phi3":
        return t.Phi3Config(**{**TINY, "num_key_value_heads": 4})
    if arch == "gpt2":
        return t.GPT2Config(vocab_size=1000, n_embd=64, n_layer=2, n_head=4, n_positions=512,
                            bos_token_id=1, eos_token_id=2)
    if arch == "mixtral":
        return t.MixtralConfig(**TINY, num_local_experts=4, num_experts_per_tok=2)
    if arch == "qwen2_moe":
        return t.Qwen2MoeConfig(**TINY, num_experts=4, num_experts_per_tok=2, moe_intermediate_size=64,
                                shared_expert_intermediate_size=128)
    if arch in LLAMA_LIKE:
        return getattr(t, LLAMA_LIKE[arch])(**TINY, head_dim=16)
    if arch in OTHERS:
        cls, kwargs = OTHERS[arch]
        return getattr(t, cls)(**kwargs)
    if arch == "qwen2_0.5b":
        return t.Qwen2Config(vocab_size=151936, hidden_size=896, intermediate_size=4864, num_hidden_layers=24,
                             num_attention_heads=14, num_key_value_heads=2, max_position_embeddings=32768,
                             rope_theta=1000000.0, rms_norm_eps=1e-6, tie_word_embeddings=True,
                             bos_token_id=151643, eos_token_id=151643, torch_dtype="float32")
    raise SystemExit(f"unknown architecture {arch}")


# name -> (architecture, export flags)
MODELS: dict[str, tuple[str, tuple[str, ...]]] = {
    **{f"tiny_{a}-int8": (a, INT8) for a in ("llama", "qwen2", "gpt2", "phi3", "mistral", "mixtral", "qwen2_moe")},
    "tiny_llama-fp32": ("llama", ("--weight-format", "fp32")),
    "tiny_llama-fp16": ("llama", ("--weight-format", "fp16")),
    **{f"tiny_{a}-int8": (a, INT8) for a in (*LLAMA_LIKE, *OTHERS)},
    **{f"tiny_{a}-{f}": (a, flags) for a in ("llama", "qwen3") for f, flags in TINY_4BIT.items()},
    "qwen2_0.5b-int4": ("qwen2_0.5b", INT4),
}
TINY_NAMES = tuple(n for n in MODELS if n.startswith("tiny_"))
REAL_NAMES = ("qwen2_0.5b-int4",)


def save_random(arch: str, dest: Path, seed: int = 0) -> int:
    """Write a randomly initialised model of ``arch`` to ``dest`` (save_pretrained); its parameters."""
    import torch
    from transformers import AutoModelForCausalLM
    torch.manual_seed(seed)
    model = AutoModelForCausalLM.from_config(_config(arch), torch_dtype=torch.float32).eval()
    model.save_pretrained(dest)
    return sum(p.numel() for p in model.parameters())


def _peak_rss_children_mb() -> float:
    import resource
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024


def export(name: str, out: Path, force: bool = False) -> dict:
    """Build ``out/name`` (atomically: exported next to it, then renamed); its build record."""
    arch, flags = MODELS[name]
    dest = out / name
    if (dest / "model.xml").exists() and not force:
        return json.loads((dest / "build.json").read_text()) if (dest / "build.json").exists() else {"name": name}
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=f"{name}-", dir=out) as tmp:
        src, ir = Path(tmp) / "hf", Path(tmp) / "ir"
        # The random model is made in its own process too: the 0.5B one holds 2 GB of f32 weights.
        t0 = time.perf_counter()
        params = int(subprocess.run([sys.executable, __file__, "--save-random", arch, str(src)], check=True,
                                    capture_output=True, text=True).stdout.split()[-1])
        made = time.perf_counter() - t0
        cmd = [sys.executable, "-m", "optimum.commands.optimum_cli", "export", "openvino", "--model", str(src),
               "--task", "text-generation-with-past", *flags, "--disable-convert-tokenizer", str(ir)]
        t0 = time.perf_counter()
        p = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp, env=dict(os.environ, HF_HUB_OFFLINE="1"))
        took = time.perf_counter() - t0
        if p.returncode != 0 or not (ir / "openvino_model.xml").exists():
            raise SystemExit(f"{name}: export failed (exit {p.returncode}):\n{p.stderr[-3000:]}")
        (ir / "openvino_model.xml").rename(ir / "model.xml")
        (ir / "openvino_model.bin").rename(ir / "model.bin")
        record = {"name": name, "architecture": arch, "parameters": params, "seed": 0,
                  "command": "optimum-cli " + " ".join(cmd[cmd.index("export"):]).replace(str(tmp) + "/", ""),
                  "random_model_seconds": round(made, 1), "export_seconds": round(took, 1),
                  "export_peak_rss_mb_max_so_far": round(_peak_rss_children_mb()),
                  "xml_bytes": (ir / "model.xml").stat().st_size, "bin_bytes": (ir / "model.bin").stat().st_size}
        publish(ir, dest, record)
    return record


def publish(ir: Path, dest: Path, record: dict) -> None:
    """Write ``record`` to ``ir/build.json``, then put ``ir`` in ``dest``'s place (a rename: a
    half-written export is never found). Shared with tools/zoo/make_seq2seq.py."""
    (ir / "build.json").write_text(json.dumps(record, indent=1) + "\n")
    if dest.exists():
        shutil.rmtree(dest)
    ir.rename(dest)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "--save-random":
        print(save_random(argv[1], Path(argv[2])))
        return 0
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    ap.add_argument("--only", default="tiny,real", help="tiny, real, or model names, comma-separated")
    ap.add_argument("--force", action="store_true", help="rebuild models that exist")
    args = ap.parse_args(argv)
    names: list[str] = []
    for item in args.only.split(","):
        names += TINY_NAMES if item == "tiny" else REAL_NAMES if item == "real" else [item] if item else []
    unknown = [n for n in names if n not in MODELS]
    if unknown:
        ap.error(f"unknown model(s) {unknown}; known: {', '.join(MODELS)}")
    return export_each(names, export, args.out, args.force)


def export_each(names: list[str], export_one, out: Path, force: bool) -> int:
    """``export_one(name, out, force)`` for each name, its record or failure said on stderr; the
    exit code (1 when any failed). Shared with tools/zoo/make_seq2seq.py."""
    failed = 0
    for name in names:
        try:
            r = export_one(name, out, force)
        except SystemExit as e:
            print(e, file=sys.stderr)
            failed += 1
            continue
        print(f"{name}: {r.get('parameters', '?')} params, export {r.get('export_seconds', '?')} s"
              + (f", bin {r['bin_bytes'] / 1e6:.1f} MB" if "bin_bytes" in r else ""), file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
