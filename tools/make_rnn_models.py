"""Convert a small torch nn.LSTM and nn.GRU with openvino.convert_model into test fixtures.

    python tools/make_rnn_models.py [--out tests/fixtures/rnn_models]

Writes ``<out>/<name>/``: ``model.xml``/``model.bin`` (``ov.save_model(compress_to_fp16=False)``,
inputs left dynamic as the PyTorch front end makes them), ``runs.npz`` (for each run ``i``: the
inputs ``i:in:<name>`` and OpenVINO's CPU outputs at f32 inference precision ``i:out:<k>`` in
model-output order) and ``meta.json`` (the op types/versions of the IR, the output partial
shapes OpenVINO infers, the torch module, the largest difference between OpenVINO and torch). The runs use different batch and sequence sizes.
tests/ops/test_rnn.py replays them through irrun without torch.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

os.environ["CI"] = "true"

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ovoracle import Oracle  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def models():
    import torch

    class LSTM(torch.nn.Module):
        """2 layers, bidirectional, batch-first, zero initial states (built in the graph)."""

        def __init__(self):
            super().__init__()
            self.rnn = torch.nn.LSTM(input_size=3, hidden_size=4, num_layers=2, batch_first=True, bidirectional=True)

        def forward(self, x):
            y, (h, c) = self.rnn(x)
            return y, h, c

    class GRU(torch.nn.Module):
        """1 layer, time-major, given initial state (PyTorch's GRU is ONNX's linear_before_reset)."""

        def __init__(self):
            super().__init__()
            self.rnn = torch.nn.GRU(input_size=3, hidden_size=5)

        def forward(self, x, h0):
            return self.rnn(x, h0)

    rng = np.random.default_rng(7)
    x = lambda *s: rng.uniform(-2, 2, s).astype(np.float32)  # noqa: E731
    return {
        "lstm": (LSTM, [{"x": x(2, 5, 3)}, {"x": x(3, 2, 3)}]),
        "gru": (GRU, [{"x": x(6, 2, 3), "h0": x(1, 2, 5)}, {"x": x(1, 1, 3), "h0": x(1, 1, 5)}]),
    }


def build(name: str, cls, runs: list[dict], out: Path, oracle: Oracle) -> dict:
    import openvino as ov
    import torch

    torch.manual_seed(11)
    module = cls().eval()
    example = tuple(torch.from_numpy(a) for a in runs[0].values())
    model = ov.convert_model(module, example_input=example)
    d = out / name
    d.mkdir(parents=True, exist_ok=True)
    ov.save_model(model, d / "model.xml", compress_to_fp16=False)
    arrays, worst = {}, 0.0
    for i, feeds in enumerate(runs):
        r = oracle.cpu(d / "model.xml", list(feeds.values()))
        assert r.ok, r.message
        with torch.no_grad():
            ref = module(*(torch.from_numpy(a) for a in feeds.values()))
        ref = [t.numpy() for t in (ref if isinstance(ref[1], torch.Tensor) else (ref[0], *ref[1]))]
        for k, a in feeds.items():
            arrays[f"{i}:in:{k}"] = a
        for k, o in enumerate(r.outputs):
            arrays[f"{i}:out:{k}"] = o.array
            worst = max(worst, float(np.abs(o.array - ref[k]).max()))
    np.savez_compressed(d / "runs.npz", **arrays)
    ops = sorted({f"{op.get_type_name()}-{op.get_type_info().version_id}" for op in model.get_ops()})
    meta = {"torch": repr(module.rnn), "inputs": list(runs[0]), "runs": len(runs), "ops": ops,
            "output_shapes": [str(o.get_partial_shape()) for o in model.outputs],
            "openvino_vs_torch_max_abs_diff": worst}
    (d / "meta.json").write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")
    return meta


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=ROOT / "tests/fixtures/rnn_models")
    args = ap.parse_args(argv)
    with Oracle() as oracle:
        for name, (cls, runs) in models().items():
            meta = build(name, cls, runs, args.out, oracle)
            print(name, meta["ops"], f"OpenVINO vs torch: {meta['openvino_vs_torch_max_abs_diff']:.2g}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
