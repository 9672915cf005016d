"""``irrun compare MODEL.xml --input ...``: the first layer where irrun and a reference disagree;
with ``--reference OTHER.xml`` or ``--precision``, which layers lose the accuracy
(:mod:`irrun.debug.accuracy`)."""
from __future__ import annotations

import os

from ..errors import EXIT_FINDINGS, EXIT_OK, InputError
from ..io.inputs import load_inputs
from .accuracy import add_compare_arguments, run_compare

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
                        "openvino-reference: OpenVINO's reference evaluator; or a dump from "
                        "irrun --dump (its directory or tensors.npz), or any .npz keyed "
                        '"<layer id>:<port id>"')
    p.add_argument("--rtol", type=float, default=1e-5, help="relative tolerance (default 1e-5)")
    p.add_argument("--atol", type=float, default=1e-6, help="absolute tolerance (default 1e-6)")
    add_compare_arguments(p)


def main(args) -> int:
    from .. import read_model
    from ..debug.dumps import load_tensors
    from ..debug.layer_diff import compare
    from ..debug.openvino_reference import MODES, all_ports
    from ..debug.tracing import trace

    ref = args.reference or ""
    if args.precision and (ref.lower() in OPENVINO or ref.lower().endswith(".npz") or os.path.isdir(ref)):
        raise InputError(f"--precision compares MODEL at {args.precision} with itself at f32, or "
                         "with another IR (--reference OTHER.xml); not with OpenVINO or a dump",
                         file=ref)
    if args.precision or ref.lower().endswith(".xml"):
        return run_compare(args)
    if args.find_nonfinite or args.json or args.ignored_scope or args.plot or args.graph:
        raise InputError("--find-nonfinite, --json, --ignored-scope, --plot and --graph go with "
                         "--reference OTHER.xml or --precision")
    args.reference = args.reference or "openvino"
    model = read_model(args.model)
    feeds = load_inputs(model, args.input)
    ours = trace(model, feeds)
    if args.reference in OPENVINO:
        mode = OPENVINO[args.reference]
        ref, label = all_ports(model, feeds, mode), MODES[mode]
    else:
        ref, label = load_tensors(args.reference)[0], args.reference
    result = compare(model, ours, ref, args.rtol, args.atol)
    print(result.text(label))
    return EXIT_OK if result.ok else EXIT_FINDINGS
