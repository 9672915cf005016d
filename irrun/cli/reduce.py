"""``irrun reduce MODEL.xml --reference (OTHER.xml | openvino:DEVICE[,K=V...]) -i ... -o DIR``: the
smallest sub-graph that still shows the disagreement, written as a standalone repro
(:mod:`irrun.debug.reduce`)."""
from __future__ import annotations

import sys

from ..errors import EXIT_OK, InputError, printable
from ..io.inputs import input_files, load_inputs


def add_arguments(p) -> None:
    p.add_argument("model", help="the IR .xml file (its .bin is read from beside it)")
    p.add_argument("--reference", "-r", metavar="OTHER.xml|openvino:DEVICE[,KEY=VALUE...]",
                   help="OTHER.xml: MODEL in irrun is suspect, OTHER in irrun is trusted (e.g. a "
                        "compressed export vs its fp32 original); openvino:DEVICE[,KEY=VALUE...] "
                        "(e.g. openvino:CPU,INFERENCE_PRECISION_HINT=bf16): that OpenVINO "
                        "configuration is suspect, irrun's f32 run is trusted")
    p.add_argument("--input", "-i", action="append", default=[], metavar="[NAME=]FILE",
                   help="x.npy, NAME=x.npy per input, or inputs.npz (as for irrun MODEL.xml)")
    p.add_argument("--output", "-o", required=True, metavar="DIR",
                   help="where to write model.xml, model.bin, inputs.npz, expected.npz, "
                        "report.json and repro.py")
    p.add_argument("--check", metavar='"CMD"',
                   help="a command deciding instead: exit status non-zero (or a crash, or a "
                        "timeout) = still bad; {model}, {inputs} and {expected} in it (also inside "
                        "an argument, as --model={model}) are "
                        "replaced by the candidate's files (else the model's path is appended); "
                        "run without a shell")
    p.add_argument("--check-timeout", type=float, default=120.0, metavar="SECONDS",
                   help="seconds one --check may take (default 120; longer counts as bad)")
    p.add_argument("--threshold", type=float, metavar="REL_L2",
                   help="a sub-graph is bad when an output is at least this relative L2 error "
                        "away from the trusted value (default: half the whole model's error)")
    p.add_argument("--max-checks", type=int, default=400, metavar="N",
                   help="sub-graphs to try before stopping with the smallest bad one (default 400)")


def main(args) -> int:
    from .. import read_model
    from ..debug import reduce as rd
    from ..debug.openvino_reference import is_device_spec, parse_device
    from ..debug.tracing import type_version
    from ..io.writers import model_files

    if not args.reference and not args.check:
        raise InputError("give --reference OTHER.xml, --reference openvino:DEVICE[,KEY=VALUE...] "
                         "or --check \"CMD\": what says the model is wrong")
    if not args.input:
        raise InputError("give the inputs that show the disagreement: --input x.npz")
    if args.threshold is not None and not args.threshold > 0:
        raise InputError("--threshold is a relative L2 error above 0, e.g. 0.01")
    model = read_model(args.model)
    protect = [*model_files(model), *input_files(args.input)]
    device = parse_device(args.reference) if is_device_spec(args.reference) else None
    reference = None
    if args.reference and device is None:
        if not args.reference.lower().endswith(".xml"):
            raise InputError("--reference is OTHER.xml or openvino:DEVICE[,KEY=VALUE...]",
                             file=args.reference)
        reference = read_model(args.reference)
        protect += model_files(reference)
    rd.targets(args.output, protect)                      # before running anything
    model.check_memory()
    feeds = load_inputs(model, args.input)
    check = rd.check_argv(args.check) if args.check else None
    if device is not None:
        trusted, subject, trusted_label = {}, device.label, "irrun (f32)"
        run = rd.device_subject(device)
    elif reference is not None:
        trusted = rd.trusted_from(model, feeds, reference, load_inputs(reference, args.input))
        subject, trusted_label = f"irrun on {args.model}", f"irrun on {args.reference}"
        run = rd.irrun_subject
    else:
        trusted, subject, trusted_label, run = {}, "--check", "irrun (f32)", None
    if check is not None:
        subject = f"--check {args.check}"

    def progress(line: str) -> None:
        print(printable(line), file=sys.stderr, flush=True)

    reducer = rd.Reducer(model, feeds, trusted, subject, trusted_label, run, check,
                         args.check_timeout, args.threshold, args.max_checks, progress)
    red = reducer.reduce()
    d = rd.write(red, model, args.output, device, protect)
    g = model.dag
    names = ", ".join(f'{n} "{printable(g.nodes[n]["layer"].name)}" ({type_version(model, n)})'
                      for n in red.layers[:6])
    more = f" and {len(red.layers) - 6} more" if len(red.layers) > 6 else ""
    print(f"{printable(red.subject)} vs {printable(red.trusted)}: {red.start_layers} layers -> "
          f"{len(red.layers)} ({red.sub.compute_layers} computing, Consts/Parameters/Results aside) in "
          f"{red.checks} checks, {red.seconds:.0f} s")
    print(f"  before: {rd.describe(red.before)}")
    print(f"  after:  {rd.describe(red.after)}")
    print(f"  kept: {names}{more}")
    print(f"wrote {printable(d)}/model.xml (+ .bin), inputs.npz, expected.npz, report.json, repro.py")
    print(f"reproduce in OpenVINO: cd {printable(d)} && python repro.py")
    return EXIT_OK
