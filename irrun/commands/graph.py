"""``irrun graph MODEL.xml``: the graph (or one layer's neighbourhood) as Graphviz dot or Mermaid."""
from __future__ import annotations

from pathlib import Path

from ..errors import EXIT_OK, InputError


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
        try:
            Path(args.output).write_text(text, encoding="utf-8")
        except OSError as e:
            raise InputError(f"cannot write the graph: {e.strerror or e}", file=args.output) from None
        print(f"wrote {args.output} ({len(nodes) if nodes is not None else model.dag.number_of_nodes()} layers)")
    else:
        print(text, end="")
    return EXIT_OK
