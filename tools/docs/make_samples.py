"""Build the sample models in samples/ with OpenVINO's Python opset API.

    python -m tools.docs.make_samples

Each sample is ``samples/<name>/{model.xml, model.bin, input.npy, expected.npy}``: a tiny IR
saved by ``ov.save_model(compress_to_fp16=False)``, a seeded random input, and the output of
OpenVINO's reference evaluator (the CPU plugin is run as a cross-check; the script stops if they
disagree). ``samples/README.md`` lists the command line for each.
"""
from __future__ import annotations

import os
import sys

os.environ["CI"] = "true"

import numpy as np
import openvino as ov
import openvino.opset1 as o1
import openvino.opset3 as o3
import openvino.opset8 as o8

from tools import ROOT
from tools.fixtures.make_fixtures import c
from tools.ovoracle import Oracle, short_message

SAMPLES = ROOT / "samples"


def shufflenet_block():
    """ShuffleNet-v2 unit without its convolutions: split the channels in two (VariadicSplit
    [4,-1]), pass one half through a spatial Transpose (stand-in for the conv branch), Concat,
    and ShuffleChannels with 2 groups. Input x: f32[1,8,4,4] (batch dynamic in the IR)."""
    x = o8.parameter([-1, 8, 4, 4], np.float32, name="x")
    left, right = o1.variadic_split(x, c(1), c([4, -1])).outputs()
    right = o1.transpose(right, c([0, 1, 3, 2]))
    y = o3.shuffle_channels(o1.concat([left, right], 1), 1, 2)
    y.output(0).set_names({"y"})
    return ov.Model([y], [x], "shufflenet_block"), [1, 8, 4, 4]


def space_to_depth():
    """YOLO-style reorg: SpaceToDepth (block 2, blocks_first) of an f32[1,2,4,4] image to
    [1,8,2,2], then DepthToSpace (depth_first) back to [1,2,4,4] in a different pixel order,
    and the two concatenated along the channels."""
    x = o8.parameter([1, 2, 4, 4], np.float32, name="x")
    s = o1.space_to_depth(x, "blocks_first", 2)
    d = o1.depth_to_space(s, "depth_first", 2)
    y = o1.concat([x, d], 1)
    y.output(0).set_names({"y"})
    return ov.Model([y], [x], "space_to_depth"), [1, 2, 4, 4]


def dynamic_flatten():
    """Flatten with a dynamic batch, the way exporters write it: ShapeOf -> Gather(batch) ->
    Concat with [-1] -> Reshape, then a StridedSlice keeping every other feature in reverse.
    Input x: f32[?,3,4], sample 2x3x4."""
    x = o8.parameter([-1, 3, 4], np.float32, name="x")
    batch = o8.gather(o3.shape_of(x, "i64"), c([0]), c(0))
    flat = o1.reshape(x, o1.concat([batch, c([-1])], 0), False)
    y = o1.strided_slice(flat, c([0, -1]), c([0, 0]), c([1, -2]), [1, 0], [1, 1])
    y.output(0).set_names({"y"})
    return ov.Model([y], [x], "dynamic_flatten"), [2, 3, 4]


SAMPLES = [shufflenet_block, space_to_depth, dynamic_flatten]


def main() -> int:
    lines = ["# Sample models", "",
             "Tiny IR models made with OpenVINO's Python opset API by `tools/docs/make_samples.py`; "
             "`expected.npy` is OpenVINO's output (reference evaluator, checked against the CPU "
             "plugin).", ""]
    rng = np.random.default_rng(2026)
    with Oracle() as oracle:
        for make in SAMPLES:
            model, shape = make()
            d = SAMPLES / make.__name__
            d.mkdir(parents=True, exist_ok=True)
            ov.save_model(model, d / "model.xml", compress_to_fp16=False)
            x = rng.standard_normal(shape).astype(np.float32)
            np.save(d / "input.npy", x)
            ref = oracle.reference(d / "model.xml", {"x": x})
            cpu = oracle.cpu(d / "model.xml", {"x": x})
            if not (ref.ok and cpu.ok and np.array_equal(ref.outputs[0].array, cpu.outputs[0].array)):
                raise SystemExit(f"{make.__name__}: reference {ref.status} {short_message(ref.message)}"
                                 f" / CPU {cpu.status} {short_message(cpu.message)} disagree")
            np.save(d / "expected.npy", ref.outputs[0].array)
            rel = f"samples/{make.__name__}"
            lines += [f"## {make.__name__}", "", " ".join(make.__doc__.split()), "", "```sh",
                      f"irrun {rel}/model.xml --input {rel}/input.npy",
                      f"irrun check {rel}/model.xml", "```", ""]
            print(f"{rel}: y {ref.outputs[0].array.shape}")
    (SAMPLES / "README.md").write_text("\n".join(lines), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
