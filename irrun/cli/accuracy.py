"""Command-line glue for the accuracy tools: the options ``irrun compare`` and ``irrun run``
gain (``--precision``, ``--find-nonfinite``, the model-vs-model comparison), and how a sequence
of input files becomes the steps of a stateful run."""
from __future__ import annotations

from pathlib import Path

from ..debug.accuracy.precision import PRECISIONS
from ..errors import EXIT_FINDINGS, EXIT_OK, InputError, printable

MAX_STEPS = 10_000


def add_precision_arguments(p) -> None:
    p.add_argument("--precision", choices=sorted(PRECISIONS),
                   help="simulate OpenVINO's inference precision: round every activation to f16 or "
                        "bf16 after each layer, as OpenVINO does (weights as in the file; the layers "
                        "OpenVINO keeps in f32 stay f32)")
    p.add_argument("--find-nonfinite", action="store_true",
                   help="name the first layer that makes NaN or Inf from finite inputs, with its "
                        "inputs' ranges and the positions (exit code 1 when there is one)")


def add_compare_arguments(p) -> None:
    add_precision_arguments(p)
    a = p.add_argument_group("ranking the layers (--reference OTHER.xml or openvino:DEVICE[,KEY=VALUE...], "
                             "or --precision alone)")
    a.add_argument("--json", action="store_true", help="print the report as JSON")
    a.add_argument("--top", type=int, default=10, metavar="K", help="layers to rank (default 10)")
    a.add_argument("--ignored-scope", metavar="FILE.json",
                   help='write the top K layers as {"names": [...]} for nncf.IgnoredScope(**...)')
    a.add_argument("--plot", metavar="FILE.png|FILE.svg",
                   help="draw the error along the network (needs pip install irrun[plot])")
    a.add_argument("--graph", metavar="FILE.svg|png|pdf|dot",
                   help="draw the candidate's graph with each layer filled by the error it adds "
                        "(log colour scale, the top K labelled; Graphviz's dot draws svg/png/pdf, "
                        ".dot is the text); over 300 layers: the top K's neighbourhoods only")
    a.add_argument("--node-data", metavar="FILE.json",
                   help="write the error each layer adds as Google Model Explorer node data "
                        "(results keyed by output tensor name: value, bgColor)")
    a.add_argument("--keep-f32", metavar="OUT.xml",
                   help="write MODEL as OUT.xml + OUT.bin with the top K layers marked to stay in "
                        "f32 (OpenVINO's disable_fp16_compression rt_info); with --reference "
                        "openvino:DEVICE, also run OUT.xml there and show the outputs' error")
    a.add_argument("--html", metavar="FILE.html",
                   help="write one self-contained page (nothing fetched): the ranking table, the "
                        "graph coloured by added error and the plot")


def step_files(specs: list[str]) -> list[list[str]] | None:
    """``--input`` options as steps: each .npz (or the .npz/.npy files of one directory, in name
    order) is one step; None when the options are one ordinary set of inputs."""
    if len(specs) == 1 and Path(specs[0]).is_dir():
        from ..io.inputs import input_dir_files
        return [[str(f)] for f in input_dir_files(specs[0])[:MAX_STEPS]]
    if len(specs) > 1 and all(s.endswith(".npz") and "=" not in Path(s).name for s in specs):
        return [[s] for s in specs[:MAX_STEPS]]
    return None


def load_steps(model, specs: list[str]) -> list[dict]:
    from ..io.inputs import load_inputs
    files = step_files(specs)
    return [load_inputs(model, s) for s in files] if files is not None else [load_inputs(model, specs)]


def _inputs_for(model, role: str, specs: list[str], other) -> list[dict]:
    """:func:`load_steps` for one of the two models; an input error names which one (the same
    ``--input`` feeds both, and "the model has 3 inputs" did not say whose)."""
    try:
        return load_steps(model, specs)
    except InputError as e:
        def ins(m) -> str:
            n = len(m.inputs)
            return f"{n} input{'s' * (n != 1)}: {', '.join(printable(p.name) for p in m.inputs) or 'none'}"
        other_role = "the reference" if role == "MODEL" else "MODEL"
        e.message = (f"{role} {printable(model.path)} ({ins(model)}; {other_role} has {ins(other)}): "
                     f"{e.message}")
        raise


def run_compare(args) -> int:
    """``irrun compare MODEL --reference OTHER.xml`` or ``irrun compare MODEL --precision P``."""
    from .. import read_model
    from ..debug.accuracy.attribute import compare_models
    from ..io.inputs import input_files
    from ..io.writers import model_files

    ref_path = args.reference or args.model
    cand = read_model(args.model)
    same = Path(ref_path).resolve() == Path(args.model).resolve()
    if same and not args.precision:
        raise InputError("comparing a model with itself: give --precision f16|bf16, or another "
                         "--reference", file=args.model)
    ref = read_model(ref_path)
    protect = (*model_files(cand), *model_files(ref), *input_files(args.input))
    graph_fmt = _check_outputs(args, protect)                               # before running
    cand.check_memory()
    steps = list(zip(_inputs_for(cand, "MODEL", args.input, ref), _inputs_for(ref, "the reference", args.input, cand),
                     strict=True))
    res = compare_models(cand, ref, steps, args.precision, same_model=same)
    return report(args, cand, res, protect, graph_fmt)


def run_device_compare(args) -> int:
    """``irrun compare MODEL --reference openvino:DEVICE[,KEY=VALUE...]``: the layers that
    configuration gets wrong, against irrun's f32 run (:mod:`irrun.debug.accuracy.device`)."""
    from .. import read_model
    from ..debug.accuracy.device import compare_device, output_errors
    from ..debug.accuracy.metrics import fmt_rel
    from ..debug.openvino_reference import parse_device
    from ..io.inputs import input_files, load_inputs
    from ..io.writers import model_files

    device = parse_device(args.reference)
    model = read_model(args.model)
    protect = (*model_files(model), *input_files(args.input))
    graph_fmt = _check_outputs(args, protect)
    model.check_memory()
    if step_files(args.input) is not None:
        raise InputError("--reference openvino:... compares one inference: give one set of inputs",
                         file=args.model)
    feeds = load_inputs(model, args.input)
    res = compare_device(model, feeds, device)
    code = report(args, model, res, protect, graph_fmt)
    if args.keep_f32 and not args.json:
        model.reset_state()             # the recording above advanced a stateful model's variables
        trusted = model.run(feeds)
        from ..debug.accuracy.keep_f32 import marks_lost, worst_layers
        before = output_errors(model, feeds, device, trusted)
        executed: dict[int, tuple[str, str]] = {}
        after = output_errors(read_model(args.keep_f32), feeds, device, trusted, executed=executed)
        print(f"\ncompiled as they are (no outputs added) on {device.label}, outputs against irrun's f32:")
        for name, s in after.items():
            was = f"{fmt_rel(before[name].rel_l2)} in MODEL, " if name in before else ""
            print(f'  output "{printable(name)}": rel L2 {was}{fmt_rel(s.rel_l2)} in {printable(args.keep_f32)}')
        marked = [le.node for le in worst_layers(res, args.top)]
        lost = marks_lost(marked, executed)
        if executed and marked:
            print(f"OpenVINO ran {len(marked) - len(lost)} of the {len(marked)} marked layers in f32"
                  + (" (the plugin drops the mark where it fuses a layer into a new node):" if lost else ""))
            for n, ran in lost.items():
                layer = model.dag.nodes[n]["layer"]
                how = (f"ran in {ran[0]}, in a {printable(ran[1])} node" if ran
                       else "merged into a node named after another layer")
                print(f'  {n} "{printable(layer.name)}" ({layer.type}): {how}')
    return code


def report(args, cand, res, protect: tuple, graph_fmt: str | None) -> int:
    """Print ``res`` (text or ``--json``) and write the files asked for (``--ignored-scope``,
    ``--plot``, ``--graph``, ``--html``); exit 1 when the candidate makes NaN/Inf the reference
    does not."""
    from ..debug.accuracy.report import as_json, ignored_scope, text, write_file
    print(as_json(res) if args.json else text(res, args.top))
    if args.ignored_scope:
        import json
        scope = ignored_scope(res, args.top)
        write_file(args.ignored_scope, (json.dumps(scope, indent=1) + "\n").encode(), protect)
        if not args.json:
            print(f"\nwrote {len(scope['names'])} layer names to {printable(args.ignored_scope)} "
                  "(nncf.IgnoredScope(**json.load(f)))")
    if args.plot:
        from ..debug.accuracy.plot import render
        write_file(args.plot, render(res, Path(args.plot).suffix.lstrip(".").lower()), protect)
        if not args.json:
            print(f"wrote the error plot to {printable(args.plot)}")
    if graph_fmt:
        _draw_graph(cand, res, args, graph_fmt, protect)
    if args.html:
        _write_html(cand, res, args, protect)
    if args.keep_f32:
        from ..debug.accuracy.keep_f32 import worst_layers, write_marked
        marked = worst_layers(res, args.top)
        write_marked(cand, [le.node for le in marked], args.keep_f32, protect)
        if not args.json:
            print(f"wrote {printable(args.keep_f32)} (+ .bin): {len(marked)} layer{'s' * (len(marked) != 1)} "
                  "marked to stay in f32 (rt_info precise = disable_fp16_compression)")
    if args.node_data:
        import json

        from ..debug.accuracy.report import node_data
        doc = node_data(cand, res)
        write_file(args.node_data, (json.dumps(doc, indent=1, allow_nan=False) + "\n").encode(), protect)
        if not args.json:
            print(f"wrote Model Explorer node data for {len(doc['results'])} tensors to {printable(args.node_data)}")
    return EXIT_FINDINGS if res.first_nonfinite is not None else EXIT_OK


def _check_outputs(args, protect: tuple) -> str | None:
    """Refuse a bad ``--ignored-scope``, ``--plot``, ``--graph``, ``--html``, ``--node-data`` or
    ``--keep-f32`` file before the run (a suffix
    that is not the format written, a link, the models' .xml/.bin or an input, two of them one
    file...); ``--graph``'s format (None: none)."""
    from ..io.writers import destination, distinct
    distinct([("--ignored-scope", args.ignored_scope), ("--plot", args.plot), ("--graph", args.graph),
              ("--html", args.html), ("--node-data", args.node_data), ("--keep-f32", args.keep_f32)])
    checks = [(args.keep_f32, (".xml",), "the --keep-f32 file is an IR: its name must end in .xml"),
              (args.node_data, (".json",), "the --node-data file is JSON: its name must end in .json"),
              (args.html, (".html", ".htm"), "the --html file must end in .html or .htm"),
              (args.ignored_scope, (".json",), "the --ignored-scope file is JSON: its name must end in .json")]
    for path, suffixes, message in checks:
        if path:
            if Path(path).suffix.lower() not in suffixes:
                raise InputError(message, file=path)
            destination(path, protect=protect)
    if args.keep_f32:
        destination(Path(args.keep_f32).with_suffix(".bin"), protect=protect)
    if args.plot:
        if Path(args.plot).suffix.lower() not in (".png", ".svg"):
            raise InputError("the plot file must end in .png or .svg", file=args.plot)
        destination(args.plot, protect=protect)
        from ..debug.accuracy.plot import pyplot
        pyplot()                                    # matplotlib missing: say so now
    return _graph_format(args.graph, protect) if args.graph else None


def _graph_format(path: str, protect: tuple) -> str:
    """``--graph``'s format by the file's suffix; the file and Graphviz checked before running."""
    from ..debug.describe import EXTENSIONS, PICTURES, need_dot
    from ..io.writers import destination
    fmt = EXTENSIONS.get(Path(path).suffix.lower(), "")
    if fmt not in PICTURES + ("dot",):
        raise InputError("the --graph file must end in .svg, .png, .pdf or .dot", file=path)
    need_dot(fmt, "--graph FILE.dot")
    destination(path, protect=protect)
    return fmt


def _draw_graph(cand, res, args, fmt: str, protect: tuple) -> None:
    from ..debug.accuracy.errorgraph import error_dot
    from ..debug.accuracy.report import write_file
    from ..debug.describe import render
    dot, drawn, total = error_dot(cand, res, args.top)
    data = render(dot, fmt, smaller="a smaller --top") if fmt != "dot" else dot.encode("utf-8")
    write_file(args.graph, data, protect)
    if not args.json:
        part = f"{drawn} of {total} layers: the top {args.top}'s neighbourhoods" if drawn < total \
            else f"{drawn} layers"
        print(f"wrote the graph coloured by added error to {printable(args.graph)} ({fmt}, {part})")


def _write_html(cand, res, args, protect: tuple) -> None:
    from ..debug.accuracy.plot import render as plot
    from ..debug.accuracy.report import write_file
    from ..debug.html_report import render
    from ..errors import UnsupportedError
    try:
        plot_svg = plot(res, "svg")
    except UnsupportedError:                      # no matplotlib: the page says so
        plot_svg = None
    write_file(args.html, render(cand, res, args.top, plot_svg), protect)
    if not args.json:
        print(f"wrote the report page to {printable(args.html)}")


def run_model(model, feeds: dict, precision: str | None, find_nonfinite: bool):
    """``irrun MODEL --precision P`` / ``--find-nonfinite``: the outputs, and the finding."""
    import numpy as np

    from ..debug.accuracy.capture import record
    from ..debug.accuracy.nonfinite import Watch
    from ..debug.accuracy.precision import Policy
    watch = Watch() if find_nonfinite else None
    with np.errstate(all="ignore"):          # overflow and log(0) are reported, not warned about
        rec = record(model, feeds, Policy(model, precision) if precision else None, watch)
    return rec.outputs, (watch.first if watch else None)


def nonfinite_text(finding) -> str:
    return finding.text() if finding is not None else \
        "no layer makes NaN or Inf from finite inputs"
