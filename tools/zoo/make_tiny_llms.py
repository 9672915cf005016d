"""Build tiny random-weight LLMs with optimum-intel, fp32 and NNCF-compressed, plus step inputs.

    CI=true python -m tools.zoo.make_tiny_llms /tmp/tiny_llms [--arch llama qwen2] [--formats fp32 int8 int4 nf4]

Nothing is downloaded: a transformers config is made in code (a few layers, hidden 64), the
model is initialised with random weights (fixed seed) and saved, then exported with
``optimum-cli export openvino --task text-generation-with-past --weight-format F`` (int4/nf4 with
``--group-size 16 --ratio 1.0``, so every MatMul is compressed). Each export lands in
``OUT/<arch>-<format>/openvino_model.xml``; ``OUT/<arch>-steps/step{0..3}.npz`` hold a prefill
of 6 tokens and three decode steps (input_ids, attention_mask, position_ids, beam_idx), the
inputs ``irrun compare --input DIR`` takes. Needs torch, transformers, optimum-intel and nncf
(the tool extra, not irrun's runtime deps); the exports are not checked in (tens of MB).
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np

CONFIGS = {
    "llama": ("LlamaConfig", dict(hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                                  num_attention_heads=4, num_key_value_heads=2)),
    "qwen2": ("Qwen2Config", dict(hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                                  num_attention_heads=4, num_key_value_heads=2)),
}
VOCAB, PREFILL, DECODE = 512, 6, 3


def build_hf(arch: str, out: Path) -> Path:
    import torch
    import transformers
    torch.manual_seed(0)
    cls, kw = CONFIGS[arch]
    cfg = getattr(transformers, cls)(vocab_size=VOCAB, max_position_embeddings=128,
                                     tie_word_embeddings=False, **kw)
    model = transformers.AutoModelForCausalLM.from_config(cfg)
    with torch.no_grad():                       # wider weights than the 0.02 init: visible errors
        for p in model.parameters():
            if p.dim() == 2:
                p.normal_(0.0, 0.1)
    d = out / f"{arch}-hf"
    model.save_pretrained(d)
    return d


def export(hf: Path, dest: Path, fmt: str) -> None:
    cli = shutil.which("optimum-cli") or str(Path(sys.executable).parent / "optimum-cli")
    cmd = [cli, "export", "openvino", "--model", str(hf), "--task", "text-generation-with-past",
           "--weight-format", fmt]
    if fmt in ("int4", "nf4"):
        cmd += ["--group-size", "16", "--ratio", "1.0"]
    subprocess.run(cmd + [str(dest)], check=True, cwd=str(dest.parent),
                   env=dict(os.environ, CI="true"))


def write_steps(dest: Path) -> None:
    rng = np.random.default_rng(0)
    dest.mkdir(parents=True, exist_ok=True)
    ids = rng.integers(0, VOCAB, size=PREFILL + DECODE)
    for k in range(DECODE + 1):
        start, end = (0, PREFILL) if k == 0 else (PREFILL + k - 1, PREFILL + k)
        np.savez(dest / f"step{k}.npz",
                 input_ids=ids[None, start:end].astype(np.int64),
                 attention_mask=np.ones((1, end), np.int64),
                 position_ids=np.arange(start, end, dtype=np.int64)[None],
                 beam_idx=np.zeros(1, np.int32))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("out", type=Path)
    p.add_argument("--arch", nargs="+", default=["llama"], choices=sorted(CONFIGS))
    p.add_argument("--formats", nargs="+", default=["fp32", "int8", "int4", "nf4"])
    a = p.parse_args()
    a.out.mkdir(parents=True, exist_ok=True)
    for arch in a.arch:
        hf = build_hf(arch, a.out)
        for fmt in a.formats:
            export(hf, a.out / f"{arch}-{fmt}", fmt)
        write_steps(a.out / f"{arch}-steps")
        print(f"{arch}: {', '.join(a.formats)} in {a.out}")


if __name__ == "__main__":
    main()
