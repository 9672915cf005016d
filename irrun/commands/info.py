"""``irrun info MODEL.xml``: inputs, outputs, op types with versions, opsets, weights."""
from __future__ import annotations

from ..errors import EXIT_OK


def add_arguments(p) -> None:
    p.add_argument("model", help="the IR .xml file (its .bin is read from beside it)")


def main(args) -> int:
    from .. import read_model
    from ..describe import info_text

    print(info_text(read_model(args.model)))
    return EXIT_OK
