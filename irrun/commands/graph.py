"""``irrun graph MODEL.xml``: the graph (or one layer's neighbourhood) as Graphviz dot or Mermaid."""
from __future__ import annotations

from ..errors import EXIT_OK, printable


def add_arguments(p) -> None:
    p.add_argument("model", help="the IR .xml file (its .bin is read from beside it)")
    p.add_argument("--format", "-f", choices=("dot", "mermaid"), default="dot",
                   help="dot (render with: dot -Tsvg) or mermaid (GitHub/GitLab markdown); default dot")
    p.add_argument("--layer", "-l", metavar="ID|NAME", help="draw only the layers near this one")
    p.add_argument("--depth", "-d", type=int, default=2,
                   help="with --layer: how many edges away to go (default 2)")
    p.add_argument("--output", "-o", metavar="FILE", help="write to FILE instead of printing")


def main(args) -> int:
    from .. import read_model
    from ..describe import neighbourhood, to_dot, to_mermaid

    model = read_model(args.model)
    focus, nodes = neighbourhood(model, args.layer, args.depth) if args.layer is not None else (None, None)
    text = (to_dot if args.format == "dot" else to_mermaid)(model, nodes, focus) + "\n"
    if args.output:
        from ..writers import data, model_files, write_files
        written = write_files([(args.output, data(text))], protect=model_files(model))[0]
        print(f"wrote {printable(written)} ({len(nodes) if nodes is not None else model.graph.number_of_nodes()} layers)")
    else:
        print(text, end="")
    return EXIT_OK
