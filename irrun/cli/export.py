"""``irrun export MODEL.xml -o MODEL.onnx [--opset N] [--external-data] [--matmul-nbits] [--int8-qdq] [--verify]``:
write the model as ONNX.

All or nothing: when some layer has no ONNX form nothing is written and the message names every
such layer (exit 3). ``--verify`` then runs the export in onnxruntime and the IR in irrun on the
same inputs (``--input`` files, the rest seeded random) and prints each output's agreement;
exit 1 when some output disagrees. A model that would pass protobuf's 2 GB limit (or any model,
with ``--external-data``) is written as ``MODEL.onnx`` plus its tensors in ``MODEL.onnx.data``.
"""
from __future__ import annotations

import os
import sys

from ..errors import EXIT_FINDINGS, EXIT_OK, printable


def add_arguments(p) -> None:
    from ..export.onnx import DEFAULT_OPSET
    from ..export.verify import ATOL, RTOL
    p.add_argument("model", help="the IR .xml file (its .bin is read from beside it)")
    p.add_argument("--output", "-o", required=True, metavar="OUT.onnx",
                   help="the ONNX file to write (with --ir-version: OUT.xml, its .bin beside it)")
    p.add_argument("--ir-version", type=int, choices=[10], metavar="10",
                   help="write an OpenVINO IR v10 file instead of ONNX, for the runtimes of 2020.1-2021.4 "
                        "(static shapes, op versions of opsets 1-8; nothing written otherwise)")
    p.add_argument("--opset", type=int, default=DEFAULT_OPSET,
                   help=f"the ONNX opset to write (default {DEFAULT_OPSET}, the lowest irrun writes)")
    p.add_argument("--external-data", action="store_true",
                   help="write the tensors of 1 KB or more to OUT.onnx.data beside OUT.onnx (ONNX external "
                        "data); done anyway when the model would pass protobuf's 2 GB limit")
    p.add_argument("--matmul-nbits", action="store_true",
                   help="write MatMuls by int4/int8 blocked weights as onnxruntime's com.microsoft MatMulNBits "
                        "(its fused low-bit kernels; the model then runs in onnxruntime only)")
    p.add_argument("--int8-qdq", action="store_true",
                   help="write FakeQuantize as its u8 levels + DequantizeLinear (weights stored as u8) and "
                        "convolutions/MatMuls on them as ConvInteger/MatMulInteger, OpenVINO's int8 arithmetic; "
                        "the default writes FakeQuantize's f32 formula, irrun's and OpenVINO's reference to the bit")
    p.add_argument("--verify", action="store_true",
                   help="run the export in onnxruntime and the model in irrun on the same inputs and "
                        "compare every output (needs pip install onnxruntime)")
    p.add_argument("--input", "-i", action="append", default=[], metavar="[NAME=]FILE",
                   help="--verify's inputs (.npy / .npz, as for irrun run); the rest are seeded random")
    p.add_argument("--seed", type=int, default=0, help="seed of --verify's random inputs (default 0)")
    p.add_argument("--atol", type=float, default=ATOL, help=f"--verify's absolute tolerance (default {ATOL})")
    p.add_argument("--rtol", type=float, default=RTOL, help=f"--verify's relative tolerance (default {RTOL})")


def main(args) -> int:
    from .. import read_model
    from ..export.onnx import data_file_of, onnx_files, require_onnx
    from ..export.quantize import QDQ_NOTE
    from ..io import writers

    model = read_model(args.model)
    if args.ir_version is not None:
        return write_ir(model, args)
    protect = writers.model_files(model)
    target = writers.destination(args.output, protect=protect)      # before any work
    if args.external_data:
        writers.destination(data_file_of(target), protect=protect)
    require_onnx()
    if args.verify:
        from ..export.verify import require_onnxruntime
        require_onnxruntime()
    proto, files = onnx_files(model, target, args.opset, args.external_data or None, args.matmul_nbits,
                              args.int8_qdq)
    writers.write_files(files, protect=protect)
    size = os.path.getsize(target)
    print(f"wrote {printable(target)}: ONNX opset {args.opset}, {len(proto.graph.node)} nodes, "
          f"{len(proto.graph.initializer)} initializers, {size / 1e6:.1f} MB")
    for path, _ in files[:-1]:
        print(f"wrote {printable(path)}: its external data (tensors of 1 KB or more), "
              f"{os.path.getsize(path) / 1e6:.1f} MB")
    for prop in proto.metadata_props:
        if prop.key.startswith("irrun.note."):
            print(f"note: {printable(prop.value)}")
    if args.matmul_nbits and not any(node.op_type == "MatMulNBits" for node in proto.graph.node):
        print("note: --matmul-nbits: no MatMul here reads int4/int8 weights with block-wise scales; "
              "written without MatMulNBits")
    if args.int8_qdq and QDQ_NOTE not in {prop.value for prop in proto.metadata_props}:
        print("note: --int8-qdq: no FakeQuantize here has a DequantizeLinear form (levels 255/256, constant "
              "limits, zero on a level); written with its formula")
    if not args.verify:
        return EXIT_OK
    return verify(model, target, args, {p.key: p.value for p in proto.metadata_props})


def write_ir(model, args) -> int:
    """``--ir-version 10``: the model as IR v10 (irrun.export.ir_v10); the ONNX options do not apply."""
    from ..errors import InputError
    from ..export.ir_v10 import write_ir_v10
    onnx_only = [flag for flag, on in (("--verify", args.verify), ("--external-data", args.external_data),
                                       ("--matmul-nbits", args.matmul_nbits), ("--int8-qdq", args.int8_qdq),
                                       ("--input", args.input)) if on]
    if onnx_only:
        raise InputError(f"{', '.join(onnx_only)}: for the ONNX export, not with --ir-version")
    xml = write_ir_v10(model, args.output)
    print(f"wrote {printable(xml)} and {printable(xml.with_suffix('.bin'))}: OpenVINO IR v10")
    print("note: an IR v10 reader feeds f16 inputs as f32, gives i64/i32 outputs as i32 and other non-f32 "
          "outputs as f32, and names tensors after their layers")
    return EXIT_OK


def verify(model, target, args, metadata: dict[str, str]) -> int:
    from ..debug.profiling import random_inputs
    from ..export.verify import OnnxRunError, compare, quantizer_count, reference, relative_l2, run_onnx
    from ..io.inputs import load_inputs

    feeds = random_inputs(model, load_inputs(model, args.input, partial=True), args.seed)
    feeds = {spec.name: feeds[key] for spec in model.inputs for key in spec.names if key in feeds}
    expected, onnx_feeds = reference(model, feeds, metadata)
    try:
        got = run_onnx(target, onnx_feeds)
    except OnnxRunError as e:
        print(f"irrun: onnxruntime could not run the export on these inputs (irrun could): {printable(e)}"
              "\n(random inputs may hold indices out of range, which OpenVINO and irrun answer with zeros "
              "and ONNX refuses: give realistic ones with --input)", file=sys.stderr)
        return EXIT_FINDINGS
    rows = compare(expected, got, atol=args.atol, rtol=args.rtol)
    table = [("output", "dtype", "shape", "max abs diff", "max rel diff", "")]
    table += [(printable(r.name), r.dtype, "x".join(map(str, r.shape)) or "scalar", f"{r.max_abs:.3g}",
               f"{r.max_rel:.3g}", "ok" if r.ok else f"DIFFERS {r.problem}".rstrip()) for r in rows]
    w = [max(len(row[i]) for row in table) for i in range(5)]
    for row in table:
        print("  ".join(c.ljust(w[i]) if i < 5 else c for i, c in enumerate(row)).rstrip())
    bad = [r for r in rows if not r.ok]
    print(f"onnxruntime and irrun agree on {len(rows) - len(bad)} of {len(rows)} outputs "
          f"(|diff| <= {args.atol:g} + {args.rtol:g}*|irrun|; integers exactly)")
    quantizers = quantizer_count(model)
    if bad and quantizers:
        errors = ", ".join(f"{printable(r.name)} {relative_l2(got[r.name], expected[r.name]):.3g}" for r in bad
                           if r.dtype.startswith("float") and got[r.name].shape == expected[r.name].shape)
        print(f"note: the model quantizes ({quantizers} FakeQuantize layers): a value within an ulp of a "
              "rounding step may take the other level in onnxruntime, and the difference grows layer after "
              f"layer; judge it by the relative L2 error (norm(diff) / norm(irrun)): {errors or 'none of float type'} "
              "(the public corpus' INT8 measure: within 2x OpenVINO's own int8-vs-f32 spread)")
    return EXIT_FINDINGS if bad else EXIT_OK
