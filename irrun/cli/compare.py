"""``irrun compare MODEL.xml --input ...``: the first layer where irrun and a reference disagree;
with ``--reference OTHER.xml`` or ``--precision``, which layers lose the accuracy
(:mod:`irrun.debug.accuracy`)."""
from __future__ import annotations

import os

from ..errors import EXIT_FINDINGS, EXIT_OK, InputError
from ..io.inputs import add_strict_inputs, load_inputs
from ..io.progress import waiting
from .accuracy import add_compare_arguments, run_compare, run_device_compare

OPENVINO = {"openvino": "cpu", "openvino-reference": "reference"}


def add_arguments(p) -> None:
    p.add_argument("model", help="the IR .xml file (its .bin is read from beside it)")
    p.add_argument("--input", "-i", action="append", default=[], metavar="[NAME=]FILE",
                   help="x.npy, NAME=x.npy per input, or inputs.npz (as for irrun MODEL.xml)")
    p.add_argument("--reference", "-r", metavar="REF",
                   help="OTHER.xml: another IR of the same network (e.g. the fp32 export of an "
                        "NNCF-compressed MODEL): rank the layers adding the most error; "
                        "openvino: OpenVINO's CPU plugin at f32 with every port made an output "
                        "(default; needs openvino installed, runs in a child process); "
                        "openvino:DEVICE[,KEY=VALUE...] (e.g. openvino:CPU,INFERENCE_PRECISION_HINT=bf16, "
                        "openvino:GPU): rank the layers that OpenVINO configuration gets wrong "
                        "against irrun's f32 run; "
                        "openvino-reference: OpenVINO's reference evaluator; or a dump from "
                        "irrun --dump (its directory or tensors.npz), or any .npz keyed "
                        '"<layer id>:<port id>"')
    p.add_argument("--rtol", type=float, default=None,
                   help="a fixed relative tolerance (default: float32 rounding, 1e-4 of the value or of "
                        "the port's RMS; given alone, atol is 1e-6)")
    p.add_argument("--atol", type=float, default=None,
                   help="a fixed absolute tolerance (given alone, rtol is 1e-5)")
    add_strict_inputs(p)
    add_compare_arguments(p)


def main(args) -> int:
    from .. import read_model
    from ..debug.layer_diff import compare, tolerance
    from ..debug.openvino_reference import MODES, all_ports, is_device_spec
    from ..debug.tracing import trace
    from ..io.dumps import load_tensors

    ref = args.reference or ""
    if is_device_spec(ref):
        if args.precision:
            raise InputError("--precision simulates a precision in irrun; with --reference "
                             "openvino:DEVICE give the device's own, e.g. "
                             "openvino:CPU,INFERENCE_PRECISION_HINT=bf16", file=args.model)
        return run_device_compare(args)
    if args.precision and (ref.lower() in OPENVINO or ref.lower().endswith(".npz") or os.path.isdir(ref)):
        raise InputError(f"--precision compares MODEL at {args.precision} with itself at f32, or "
                         "with another IR (--reference OTHER.xml); not with OpenVINO or a dump",
                         file=ref)
    if args.precision or ref.lower().endswith(".xml"):
        return run_compare(args)
    if args.find_nonfinite or args.json or args.ignored_scope or args.plot or args.graph or args.html \
            or args.node_data or args.keep_f32:
        raise InputError("--find-nonfinite, --json, --ignored-scope, --plot, --graph, --html, "
                         "--node-data and --keep-f32 go with --reference OTHER.xml, openvino:DEVICE "
                         "or --precision")
    args.reference = args.reference or "openvino"
    model = read_model(args.model)
    feeds = load_inputs(model, args.input)
    ours = trace(model, feeds)
    if args.reference in OPENVINO:
        mode = OPENVINO[args.reference]
        with waiting(f"{MODES[mode]} runs the model"):
            ref, label = all_ports(model, feeds, mode), MODES[mode]
    else:
        ref, label = load_tensors(args.reference)[0], args.reference
    with waiting("comparing"):
        result = compare(model, ours, ref, tolerance(args.rtol, args.atol))
    print(result.text(label))
    return EXIT_OK if result.ok else EXIT_FINDINGS
