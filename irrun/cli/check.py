"""``irrun check MODEL.xml``: infer every port and report where the file disagrees.

Exit 0 when clean (warnings alone too, unless ``--strict``), 1 when there are errors or layers
irrun could not check (never a false all-clear), 2 when the file cannot be read at all.
"""
from __future__ import annotations

from ..errors import EXIT_FINDINGS, EXIT_OK, InputError
from ..io.inputs import split_named
from ..types.shapes import PartialShape


def add_arguments(p) -> None:
    p.add_argument("model", help="the IR .xml file (its .bin is read from beside it)")
    p.add_argument("--shape", action="append", default=[], metavar="NAME=DIMS",
                   help="check as if input NAME had DIMS, e.g. x=1,3,224,224 or x=?,3,1..8,8")
    p.add_argument("--json", action="store_true", help="print the findings as JSON")
    p.add_argument("--strict", action="store_true", help="exit 1 on warnings too")


def parse_shapes(specs: list[str]) -> dict[str, str]:
    """``["x=1,3,?,?", ...]`` -> ``{"x": "1,3,?,?"}`` (dims checked when the model is read)."""
    shapes: dict[str, str] = {}
    for s in specs:
        name, dims = split_named(s, "--shape")
        if name is None:
            raise InputError(f'bad --shape "{s}": expected NAME=DIMS, e.g. x=1,3,224,224')
        if name in shapes:
            raise InputError(f'--shape gives input "{name}" twice')
        try:
            PartialShape.parse(dims)
        except ValueError as e:
            raise InputError(f'bad --shape "{s}": {e}') from None
        shapes[name] = dims
    return shapes


def exit_code(findings, strict: bool = False) -> int:
    sev = {f.severity for f in findings}
    return EXIT_FINDINGS if sev & {"error", "unchecked"} or (strict and sev) else EXIT_OK


def main(args) -> int:
    from .. import check
    from .check_report import format_json, format_text

    shapes = parse_shapes(args.shape)
    try:
        findings = check(args.model, shapes or None)
    except ValueError as e:
        raise InputError(f"bad --shape: {e}") from None
    print(format_json(findings) if args.json else format_text(args.model, findings))
    return exit_code(findings, args.strict)
