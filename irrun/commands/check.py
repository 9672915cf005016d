"""``irrun check MODEL.xml``: infer every port and report where the file disagrees."""
from __future__ import annotations

from ..errors import EXIT_FINDINGS, EXIT_OK, EXIT_UNSUPPORTED, InputError
from . import split_named


def add_arguments(p) -> None:
    p.add_argument("model", help="the IR .xml file (its .bin is read from beside it)")
    p.add_argument("--shape", action="append", default=[], metavar="NAME=DIMS",
                   help="check as if input NAME had DIMS, e.g. x=1,3,224,224 or x=?,3,1..8,8")
    p.add_argument("--json", action="store_true", help="print the findings as JSON")
    p.add_argument("--strict", action="store_true", help="exit 1 on warnings too")


def main(args) -> int:
    from ..checker import check_model, format_json, format_text

    shapes = {}
    for s in args.shape:
        name, dims = split_named(s, "--shape")
        if name is None:
            raise InputError(f'bad --shape "{s}": expected NAME=DIMS, e.g. x=1,3,224,224')
        shapes[name] = dims
    try:
        findings = check_model(args.model, shapes or None)
    except ValueError as e:
        raise InputError(f"bad --shape: {e}") from None
    print(format_json(findings) if args.json else format_text(args.model, findings))
    sev = {f.severity for f in findings}
    if "error" in sev or (args.strict and sev):
        return EXIT_FINDINGS
    return EXIT_UNSUPPORTED if "unchecked" in sev else EXIT_OK
