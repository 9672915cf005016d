"""``irrun graph MODEL.xml``: the graph (or one layer's neighbourhood) as a picture (SVG, PNG or
PDF, drawn by Graphviz's ``dot`` program) or as text (Graphviz DOT, Mermaid)."""
from __future__ import annotations

from pathlib import Path

from ..debug.describe import EXTENSIONS, PICTURES, need_dot, render
from ..errors import EXIT_OK, InputError, printable

TEXT = ("dot", "mermaid")


def add_arguments(p) -> None:
    p.add_argument("model", help="the IR .xml file (its .bin is read from beside it)")
    p.add_argument("--format", "-f", choices=PICTURES + TEXT,
                   help="svg, png, pdf (a picture, drawn by Graphviz's dot; needs -o), dot (Graphviz "
                        "text) or mermaid (GitHub/GitLab markdown). Default: from -o's extension, "
                        "else dot")
    p.add_argument("--layer", "-l", metavar="ID|NAME", help="draw only the layers near this one")
    p.add_argument("--depth", "-d", type=int, default=2,
                   help="with --layer: how many edges away to go (default 2)")
    p.add_argument("--output", "-o", metavar="FILE", help="write to FILE (g.svg, g.png, g.dot...) "
                   "instead of printing")


def pick_format(fmt: str | None, output: str | None) -> str:
    """The format written: ``--format``, else -o's suffix, else dot. A file is what its name says:
    a suffix irrun cannot write (``g.jpg``) or one naming another format than ``--format``
    (``--format png -o x.svg``) is refused rather than filled with other bytes; a name without a
    suffix takes ``--format`` (default dot)."""
    suffix = Path(output).suffix.lower() if output else ""
    named = EXTENSIONS.get(suffix)
    if suffix and named is None:
        known = ", ".join(sorted(EXTENSIONS))
        raise InputError(f'irrun cannot write a "{suffix}" file; the graph file must end in one of '
                         f"{known} (or have no suffix, with --format)", file=output)
    if fmt is not None and named is not None and fmt != named:
        raise InputError(f'--format {fmt} does not match the file name: a "{suffix}" file holds '
                         f"{named}; name it .{fmt} or drop --format", file=output)
    fmt = fmt or named or "dot"
    if fmt in PICTURES and not output:
        raise InputError(f"--format {fmt} draws a picture: give the file to write with -o FILE.{fmt}")
    return fmt


def main(args) -> int:
    from .. import read_model
    from ..debug.describe import neighbourhood, to_dot, to_mermaid
    from ..io.writers import data as content
    from ..io.writers import destination, model_files, write_files

    fmt = pick_format(args.format, args.output)
    need_dot(fmt)                                             # said before anything is read
    model = read_model(args.model)
    if args.output:                                           # checked before the layout
        destination(args.output, protect=model_files(model))
    focus, nodes = neighbourhood(model, args.layer, args.depth) if args.layer is not None else (None, None)
    text = (to_mermaid if fmt == "mermaid" else to_dot)(model, nodes, focus) + "\n"
    if not args.output:
        print(text, end="")
        return EXIT_OK
    data = render(text, fmt) if fmt in PICTURES else text.encode("utf-8")
    written = write_files([(args.output, content(data))], protect=model_files(model))[0]
    n = len(nodes) if nodes is not None else model.dag.number_of_nodes()
    print(f"wrote {printable(written)} ({fmt}, {n} layers)")
    return EXIT_OK
