"""Build the fixture IRs in tests/fixtures/ with OpenVINO's Python opset API.

    python tools/make_fixtures.py [--out tests/fixtures] [case ...]

Each case writes ``tests/fixtures/<case>/``:
  model.xml, model.bin   saved by ``ov.save_model(compress_to_fp16=False)`` (or as the case says:
                         f16-compressed weights, or IR v10 via ``ov.serialize(version="IR_V10")``)
  inputs.npz             one array per model input, keyed by input name
  expected.npz           one array per model output, keyed by output name, from OpenVINO's
                         reference evaluator (tools/ovoracle.py; ConstantFolding)
  meta.json              oracle used, input/output names + element types + shapes in model order,
                         whether a float computation happens (else compare exactly), and any
                         disagreement of the CPU plugin (f32 hint) with the reference evaluator.
bf16 arrays are stored in the .npz as their uint16 bits (meta says "bf16"); strings as ``<U``.
Values are small integers so that every element type carries them exactly.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sys
from pathlib import Path

os.environ["CI"] = "true"

import ml_dtypes  # noqa: E402
import numpy as np  # noqa: E402
import openvino as ov  # noqa: E402
import openvino.opset1 as o1  # noqa: E402
import openvino.opset3 as o3  # noqa: E402
import openvino.opset7 as o7  # noqa: E402
import openvino.opset8 as o8  # noqa: E402
import openvino.opset12 as o12  # noqa: E402
import openvino.opset15 as o15  # noqa: E402
from openvino.utils.node_factory import NodeFactory  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ovoracle import Oracle, short_message  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
BF16 = np.dtype(ml_dtypes.bfloat16)


def seq(shape, dtype=np.float32, start=0):
    """start, start+1, ... in ``dtype`` (booleans alternate)."""
    a = np.arange(start, start + int(np.prod(shape)), dtype=np.int64).reshape(shape)
    return (a % 2).astype(bool) if np.dtype(dtype) == np.bool_ else a.astype(dtype)


def c(value, dtype=np.int64):
    a = np.asarray(value, dtype=dtype)
    return o8.constant(a) if a.size else ov.op.Constant(ov.Tensor(a))  # opset refuses empty


def param(name, shape, etype=np.float32):
    return o8.parameter(shape, ov.Type.bf16 if etype is BF16 else etype, name=name)


def named(node, *names):
    """Give the node's outputs the tensor names ``names`` (in port order)."""
    for i, n in enumerate(names):
        node.output(i).set_names({n})
    return [node.output(i) for i in range(len(names))]


# ---------------------------------------------------------------------------------------------
# The cases: name -> () -> (outputs, parameters, inputs, options)

CASES = {}


def case(fn):
    CASES[fn.__name__] = fn
    return fn


@case
def split_neg_axis():
    """Split-1 axis -1 into 3 (spec table: [2,6] values 0..11)."""
    x = param("x", [2, 6])
    return named(o1.split(x, c(-1), 3), "a", "b", "c"), [x], {"x": seq([2, 6])}, {}


@case
def variadic_split_minus1():
    """VariadicSplit-1, i32 data, axis -1 (i32), lengths [6,-1,3] (u8)."""
    x = param("x", [6, 2, 10], np.int32)
    s = o1.variadic_split(x, c(-1, np.int32), c([6, -1, 3], np.int32))
    return named(s, "a", "b", "c"), [x], {"x": seq([6, 2, 10], np.int32)}, {}


@case
def variadic_split_shapeof():
    """VariadicSplit whose lengths come from ShapeOf(y)[1] of a dynamic Parameter: [len, -1];
    the lengths are only known at run time."""
    x = param("x", [2, 10])
    y = param("y", [-1, -1], np.int8)
    n = o8.gather(o3.shape_of(y, "i32"), c([1], np.int32), c(0, np.int32))
    lengths = o1.concat([n, c([-1], np.int32)], 0)
    s = o1.variadic_split(x, c([1]), lengths)
    return named(s, "head", "tail"), [x, y], {"x": seq([2, 10]), "y": seq([3, 4], np.int8)}, {}


@case
def variadic_split_zero_len():
    """VariadicSplit with a zero length and a -1 that resolves to 0 (u64 lengths)."""
    x = param("x", [2, 6], np.int64)
    s = o1.variadic_split(x, c(1), c([6, 0, -1]))
    return named(s, "a", "b", "c"), [x], {"x": seq([2, 6], np.int64)}, {}


@case
def slice_negative_step():
    """Slice-8 with negative steps (op_reference table) and the clamp deviation: on an axis of 16,
    start -20 with step -3 is clamped to element 0 (Python slicing would give nothing)."""
    x = param("x", [3, 16], np.int64)
    a = o8.slice(x, c([2, 15]), c([-4, -17]), c([-1, -15]), c([0, 1]))
    b = o8.slice(x, c([-20]), c([-30]), c([-3]), c([-1]))
    return named(a, "a") + named(b, "b"), [x], {"x": seq([3, 16], np.int64)}, {}


@case
def slice_runtime_bounds():
    """Slice-8 whose start/stop are Parameters (i32) and axes unsigned: the run-time path."""
    x = param("x", [4, 2, 3, 2], np.float16)
    start = param("start", [2], np.int32)
    stop = param("stop", [2], np.int32)
    s = o8.slice(x, start, stop, c([-1, 2], np.int32), c([2, 0], np.uint8))
    return (named(s, "y"), [x, start, stop],
            {"x": seq([4, 2, 3, 2], np.float16), "start": np.array([100, -100], np.int32),
             "stop": np.array([-100, 100], np.int32)}, {})


@case
def strided_slice_masks():
    """StridedSlice-1: begin/end masks with a negative stride, and ellipsis + shrink."""
    x = param("x", [4, 5, 6])
    a = o1.strided_slice(x, c([1, 0, 5]), c([3, 0, 0]), c([1, 1, -2]), [0, 1, 0], [0, 1, 1])
    b = o1.strided_slice(x, c([0, -1]), c([0, 0]), c([1, 1]), [0, 0], [0, 0],
                         new_axis_mask=[0, 0], shrink_axis_mask=[0, 1], ellipsis_mask=[1, 0])
    return named(a, "a") + named(b, "b"), [x], {"x": seq([4, 5, 6])}, {}


@case
def strided_slice_new_axis():
    """StridedSlice-1: new_axis before an ellipsis, masks shorter than begin, begin == end."""
    x = param("x", [2, 3, 4], np.uint8)
    a = o1.strided_slice(x, c([0, 0]), c([0, 0]), c([1, 1]), [0, 0], [0, 0],
                         new_axis_mask=[1, 0], ellipsis_mask=[0, 1])
    b = o1.strided_slice(x, c([1, 1, 1]), c([2, 3, 4]), c([1, 1, 2]), [1, 0], [0, 0])
    d = o1.strided_slice(x, c([0, 2]), c([2, 2]), c([1, 1]), [0, 0], [0, 0])
    return named(a, "a") + named(b, "b") + named(d, "d"), [x], {"x": seq([2, 3, 4], np.uint8)}, {}


@case
def shuffle_channels():
    """ShuffleChannels-1 on [1,15,2,2] group 5, and negative axis -4 on [15,2,1,2]."""
    x = param("x", [1, 15, 2, 2], np.int16)
    a = o3.shuffle_channels(x, 1, 5)
    b = o3.shuffle_channels(o8.reshape(x, c([15, 2, 1, 2]), False), -4, 5)
    return named(a, "a") + named(b, "b"), [x], {"x": seq([1, 15, 2, 2], np.int16)}, {}


@case
def shufflenet_block():
    """ShuffleNet-v2 style block: split channels (VariadicSplit), shuffle the concatenation,
    split again (Split)."""
    x = param("x", [1, 8, 4, 4])
    left, right = o1.variadic_split(x, c(1), c([4, -1])).outputs()
    right = o8.transpose(right, c([0, 1, 3, 2]))
    cat = o1.concat([left, right], 1)
    sh = o3.shuffle_channels(cat, 1, 2)
    return named(o1.split(sh, c(1), 2), "p", "q"), [x], {"x": seq([1, 8, 4, 4])}, {}


@case
def concat_mixed():
    """Concat-1 of a Parameter, a zero-width Parameter and a Const along axis -1 (f16)."""
    a = param("a", [2, 3], np.float16)
    z = param("z", [2, 0], np.float16)
    k = c(seq([2, 2], np.float16, 100), np.float16)
    return (named(o1.concat([a, z, k], -1), "y"), [a, z],
            {"a": seq([2, 3], np.float16), "z": np.zeros([2, 0], np.float16)}, {})


@case
def gather8_negative_oob():
    """Gather-8: negative indices wrap, out-of-range indices give 0; runtime i32 indices."""
    x = param("x", [2, 5], np.int32)
    i = param("i", [5], np.int32)
    g = o8.gather(x, i, c(1))
    return (named(g, "y"), [x, i],
            {"x": seq([2, 5], np.int32, 1), "i": np.array([0, -2, -1, 3, 10], np.int32)}, {})


@case
def gather7_batch_dims():
    """Gather-7 batch_dims 1 axis 1 (spec example), and batch_dims 2 axis 2."""
    x = param("x", [2, 5], np.float32)
    a = o7.gather(x, c([[0, 0, 4], [4, 0, 0]], np.int32), c(1), 1)
    y = param("y", [2, 2, 5], np.float32)
    b = o7.gather(y, c([[[0, 0, 4], [4, 0, 0]], [[1, 2, 4], [4, 3, 2]]]), c(2), 2)
    return (named(a, "a") + named(b, "b"), [x, y],
            {"x": seq([2, 5], np.float32, 1), "y": seq([2, 2, 5], np.float32, 1)}, {})


@case
def gather1_scalar_index():
    """Gather-1 with a scalar index (rank drops) and with indices [[1],[0]] on axis 0."""
    x = param("x", [2, 5], np.bool_)
    a = o1.gather(x, c(3), c(1))
    b = o1.gather(x, c([[1], [0]]), c(0))
    return named(a, "a") + named(b, "b"), [x], {"x": seq([2, 5], np.bool_)}, {}


@case
def shapeof_reshape_dynamic_batch():
    """Dynamic batch [?,3,4]: ShapeOf -> Gather -> Concat -> Reshape to [N,12], then Reshape with
    special_zero back to [N,3,4] and a Transpose."""
    x = param("x", [-1, 3, 4])
    n = o8.gather(o1.shape_of(x), c([0]), c(0))
    flat = o1.reshape(x, o1.concat([n, c([12])], 0), False)
    back = o1.reshape(flat, c([0, 3, -1]), True)
    t = o1.transpose(back, c([0, 2, 1]))
    return named(flat, "flat") + named(t, "t"), [x], {"x": seq([2, 3, 4])}, {}


@case
def interval_dim():
    """Parameter with an interval dim [1..8, 6]: Transpose, Split, Unsqueeze, Concat."""
    x = param("x", ov.PartialShape([ov.Dimension(1, 8), ov.Dimension(6)]), np.int32)
    t = o1.transpose(x, c([1, 0]))
    p, q = o1.split(t, c(0), 2).outputs()
    u = o1.unsqueeze(o1.concat([q, p], 1), c([0]))
    return named(u, "y"), [x], {"x": seq([5, 6], np.int32)}, {}


@case
def transpose_orders():
    """Transpose-1 with an explicit permutation and with an empty order (reverse all axes)."""
    x = param("x", [2, 3, 4], BF16)
    a = o1.transpose(x, c([2, 0, 1]))
    b = o1.transpose(x, c(np.zeros([0])))
    return named(a, "a") + named(b, "b"), [x], {"x": seq([2, 3, 4], BF16)}, {}


@case
def squeeze_unsqueeze():
    """Squeeze-1 with axes (a non-1 axis is silently kept), Squeeze-1 without axes,
    Squeeze-15 allow_axis_skip, Unsqueeze with duplicate/negative axes."""
    x = param("x", [1, 3, 1, 2], np.int8)
    a = o1.squeeze(x, c([0, 1]))
    b = NodeFactory("opset1").create("Squeeze", [x.output(0)], {})  # opset1.squeeze needs axes
    d = o15.squeeze(x, c([2, -4]), True)
    e = o1.unsqueeze(x, c([0, 0, -1]))
    return (named(a, "a") + named(b, "b") + named(d, "d") + named(e, "e"), [x],
            {"x": seq([1, 3, 1, 2], np.int8)}, {})


@case
def tile_repeats():
    """Tile-1: repeats longer than the rank, and a zero repeat."""
    x = param("x", [2, 3], np.uint16)
    a = o1.tile(x, c([2, 1, 2]))
    b = o1.tile(x, c([0, 2]))
    return named(a, "a") + named(b, "b"), [x], {"x": seq([2, 3], np.uint16)}, {}


@case
def broadcast_modes():
    """Broadcast-1 explicit ([2,3] -> [2,4,3] axes [0,2]) and numpy; Broadcast-3 bidirectional."""
    x = param("x", [2, 3], np.int32)
    a = o1.broadcast(x, c([2, 4, 3]), c([0, 2]), "EXPLICIT")
    r = param("r", [1, 3], np.int32)
    b = o3.broadcast(r, c([3, 1]), broadcast_spec="BIDIRECTIONAL")
    d = o1.broadcast(r, c([2, 2, 3]))
    return (named(a, "a") + named(b, "b") + named(d, "d"), [x, r],
            {"x": seq([2, 3], np.int32), "r": seq([1, 3], np.int32, 7)}, {})


@case
def pad_modes():
    """Pad-12 reflect and symmetric with a negative (cropping) pad; Pad-1 constant with a value."""
    x = param("x", [3, 4])
    a = o12.pad(x, c([0, 1]), c([2, 3]), "reflect")
    b = o12.pad(x, c([2, -1]), c([-1, 3]), "symmetric")
    d = o1.pad(x, c([1, 0]), c([0, 2]), "constant", c(9.0, np.float32))
    e = o12.pad(x, c([0, 2]), c([1, 10]), "edge")
    return (named(a, "a") + named(b, "b") + named(d, "d") + named(e, "e"), [x],
            {"x": seq([3, 4], np.float32, 1)}, {})


@case
def depth_to_space():
    """DepthToSpace-1 blocks_first and depth_first on [1,8,2,1] bs 2; a 3-D input."""
    x = param("x", [1, 8, 2, 1], np.int64)
    a = o1.depth_to_space(x, "blocks_first", 2)
    b = o1.depth_to_space(x, "depth_first", 2)
    y = param("y", [1, 4, 2], np.int64)
    d = o1.depth_to_space(y, "blocks_first", 2)
    return (named(a, "a") + named(b, "b") + named(d, "d"), [x, y],
            {"x": seq([1, 8, 2, 1], np.int64), "y": seq([1, 4, 2], np.int64)}, {})


@case
def space_to_depth():
    """SpaceToDepth-1 on [1,2,4,4] bs 2 (both modes) and on [1,1,4] (K=1)."""
    x = param("x", [1, 2, 4, 4])
    a = o1.space_to_depth(x, "blocks_first", 2)
    b = o1.space_to_depth(x, "depth_first", 2)
    y = param("y", [1, 1, 4])
    d = o1.space_to_depth(y, "blocks_first", 2)
    return (named(a, "a") + named(b, "b") + named(d, "d"), [x, y],
            {"x": seq([1, 2, 4, 4]), "y": seq([1, 1, 4])}, {})


@case
def convert_chain():
    """Convert-1: f32 -> i32 truncates toward zero, f32 -> u8 of -2.7 wraps to 254, -> boolean,
    i32 -> f16 -> f32; plus ShapeOf-1 and ShapeOf-3(i32) outputs."""
    x = param("x", [6])
    i = o1.convert(x, "i32")
    outs = named(i, "i32") + named(o1.convert(x, "u8"), "u8") + named(o1.convert(x, "boolean"), "b")
    outs += named(o1.convert(o1.convert(i, "f16"), "f32"), "back")
    outs += named(o1.shape_of(x), "s64") + named(o3.shape_of(x, "i32"), "s32")
    return (outs, [x], {"x": np.array([-2.7, -0.5, 0.0, 0.5, 3.99, 100.25], np.float32)},
            {"float_compute": False})


@case
def f16_compressed_weights():
    """Weights saved with compress_to_fp16=True: Const(f16) -> Convert(f32, rt_info
    decompression) concatenated with the input, then reshaped."""
    x = param("x", [2, 3])
    w = o8.constant(seq([2, 3], np.float32, 10) + 0.5)
    y = o1.reshape(o1.concat([x, w], 0), c([-1]), False)
    return named(y, "y"), [x], {"x": seq([2, 3])}, {"save": "fp16"}


@case
def ir_v10():
    """IR v10 file (ov.serialize version IR_V10): Reshape -> Transpose -> StridedSlice on f32."""
    x = param("x", [2, 12])
    r = o1.reshape(x, c([2, 3, 4]), False)
    t = o1.transpose(r, c([1, 0, 2]))
    s = o1.strided_slice(t, c([0, 0, 1]), c([3, 2, 4]), c([2, 1, 2]), [0, 0, 0], [0, 0, 0])
    return named(s, "y"), [x], {"x": seq([2, 12])}, {"save": "v10"}


@case
def string_data():
    """String tensors through Gather-8, Concat and Reshape."""
    x = param("x", [2, 3], ov.Type.string)
    g = o8.gather(x, c([2, 0]), c(1))
    y = o1.reshape(o1.concat([g, x], 1), c([-1]), False)
    return named(y, "y"), [x], {"x": np.array([["a", "bc", "déf"], ["", "x y", "z"]])}, {}


# ---------------------------------------------------------------------------------------------

def _etype(port) -> str:
    return port.get_element_type().get_type_name()


def _store(arr: np.ndarray) -> np.ndarray:
    if arr.dtype == BF16:
        return arr.view(np.uint16)
    if arr.dtype.kind == "T":
        return arr.astype(object).astype(str)
    return arr


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.dtype.kind == "f" or a.dtype == BF16:
        return np.array_equal(a.astype(np.float64), b.astype(np.float64), equal_nan=True)
    return np.array_equal(a, b)


def build(name: str, out_root: Path, oracle: Oracle) -> dict:
    outputs, params, inputs, opts = CASES[name]()
    model = ov.Model(outputs, params, name)
    d = out_root / name
    if d.exists():
        shutil.rmtree(d)
    d.mkdir(parents=True)
    xml = d / "model.xml"
    save = opts.get("save", "plain")
    if save == "v10":
        ov.serialize(model, str(xml), str(d / "model.bin"), version="IR_V10")
    else:
        ov.save_model(model, xml, compress_to_fp16=(save == "fp16"))
    inputs = {p.get_friendly_name(): np.asarray(inputs[p.get_friendly_name()]) for p in params}
    ref = oracle.reference(xml, inputs)
    if not ref.ok:
        raise RuntimeError(f"{name}: reference evaluator failed ({ref.status}): {ref.message}")
    cpu = oracle.cpu(xml, inputs)
    disagree = []
    if not cpu.ok:
        disagree.append(f"CPU plugin {cpu.status}: {short_message(cpu.message)}")
    else:
        for r, k in zip(ref.outputs, cpu.outputs):
            if not _same(r.array, k.array):
                disagree.append(f"output {r.name}: reference {r.etype}{list(r.array.shape)} "
                                f"{r.array.ravel()[:12].tolist()} vs CPU {k.etype}"
                                f"{list(k.array.shape)} {k.array.ravel()[:12].tolist()}")
    np.savez(d / "inputs.npz", **{k: _store(v) for k, v in inputs.items()})
    out_names = [sorted(o.get_names())[0] for o in outputs]   # the names the case gave
    np.savez(d / "expected.npz", **{n: _store(o.array) for n, o in zip(out_names, ref.outputs)})
    meta = {
        "case": name,
        "description": " ".join(CASES[name].__doc__.split()),
        "ir_version": 10 if save == "v10" else 11,
        "compress_to_fp16": save == "fp16",
        "oracle": "OpenVINO reference evaluator (Parameters -> Constants + ConstantFolding), "
                  f"openvino {ov.__version__.split('-')[0]}",
        "float_compute": bool(opts.get("float_compute", False)),
        "inputs": [{"name": p.get_friendly_name(), "etype": _etype(p.output(0)),
                    "shape": list(inputs[p.get_friendly_name()].shape)} for p in params],
        "outputs": [{"name": n, "etype": o.etype, "shape": list(o.array.shape),
                     "openvino_names": list(o.names)} for n, o in zip(out_names, ref.outputs)],
        "cpu_plugin": "agrees" if not disagree else disagree,
    }
    text = json.dumps(meta, indent=1, ensure_ascii=False)
    text = re.sub(r"\[([-\d,\s]*)\]", lambda m: "[" + ", ".join(m[1].replace(",", " ").split()) + "]",
                  text)                                  # shapes on one line
    (d / "meta.json").write_text(text + "\n")
    return meta


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=ROOT / "tests" / "fixtures")
    ap.add_argument("cases", nargs="*", help=f"default: all ({', '.join(CASES)})")
    args = ap.parse_args(argv)
    with Oracle() as oracle:
        for name in args.cases or CASES:
            meta = build(name, args.out, oracle)
            size = sum(f.stat().st_size for f in (args.out / name).iterdir())
            cpu = meta["cpu_plugin"]
            print(f"{name:32s} {size:6d} B  cpu: {cpu if isinstance(cpu, str) else '; '.join(cpu)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
