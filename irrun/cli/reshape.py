"""``irrun reshape MODEL.xml --shape NAME=DIMS ... -o OUT.xml``: write the IR for new input shapes.

All or nothing: when a layer cannot take the new shapes nothing is written, the message names
that first blocking layer and why, and the exit code is 1.
"""
from __future__ import annotations

import os
import sys

from ..errors import EXIT_FINDINGS, EXIT_OK, ExecutionError, InputError, ShapeError, printable
from ..io.progress import waiting
from .check import parse_shapes


def add_arguments(p) -> None:
    p.add_argument("model", help="the IR .xml file (its .bin is read from beside it)")
    p.add_argument("--shape", action="append", default=[], metavar="NAME=DIMS", required=True,
                   help="new shape of input NAME, e.g. x=4,3,224,224 or x=?,3,1..8,8 (repeatable)")
    p.add_argument("--output", "-o", required=True, metavar="OUT.xml",
                   help="the IR to write (OUT.bin beside it gets a copy of the weights)")


def main(args) -> int:
    from .. import read_model
    from ..analysis.reshape import targets
    from ..io.writers import model_files

    with waiting(f"reading {printable(args.model)}"):
        model = read_model(args.model)
    shapes = parse_shapes(args.shape)
    xml_out, bin_out = targets(args.output, model_files(model))     # before any work
    before = {(k, p.name): f"{p.etype}{p.shape}" for k, ports in
              (("input", model.inputs), ("output", model.outputs)) for p in ports}
    try:
        with waiting("inferring the new shapes"):
            model.reshape(shapes)
    except ValueError as e:
        raise InputError(f"bad --shape: {e}") from None
    except (ShapeError, ExecutionError) as e:
        print(f"irrun: cannot reshape, nothing written: {e}", file=sys.stderr)
        return EXIT_FINDINGS
    with waiting(f"writing {printable(xml_out)}"):
        model.save(xml_out)
    rows = [(k, printable(p.name), before.get((k, p.name), "?"), f"{p.etype}{p.shape}")
            for k, ports in (("input", model.inputs), ("output", model.outputs)) for p in ports]
    w = [max(len(r[i]) for r in rows) for i in range(3)]
    for r in rows:
        print(f"{r[0].ljust(w[0])}  {r[1].ljust(w[1])}  {r[2].ljust(w[2])}  -> {r[3]}")
    copied = model.ir.bin_path and os.path.isfile(model.ir.bin_path)
    print(f"wrote {printable(xml_out)}" + (f" and {printable(bin_out)}" if copied else ""))
    return EXIT_OK
