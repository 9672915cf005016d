"""``irrun info MODEL.xml``: inputs, outputs, op types with versions, opsets, weights."""
from __future__ import annotations

import json

from ..errors import EXIT_OK


def add_arguments(p) -> None:
    p.add_argument("model", help="the IR .xml file (its .bin is read from beside it)")
    p.add_argument("--json", action="store_true", help="print the same as one JSON object")


def main(args) -> int:
    from .. import read_model
    from ..debug.describe import info_json, info_text

    model = read_model(args.model)
    print(json.dumps(info_json(model), indent=1) if args.json else info_text(model))
    return EXIT_OK
