"""The ``irrun`` command line: picks the sub-command module and turns errors into exit codes.

    irrun MODEL.xml [--input x.npy | --input NAME=x.npy ... | --input inputs.npz] [--output out.npz]
    irrun check MODEL.xml [--shape NAME=1,3,224,224 ...] [--json] [--strict]
    irrun reshape MODEL.xml --shape NAME=4,3,224,224 [...] -o OUT.xml
    irrun ops
    irrun MODEL.xml --input ... [--dump DIR] [--profile] [--stop-at LAYER]; --input DIR/ -o OUTDIR/
    irrun MODEL.xml --input DIR/ -o OUTDIR/ --workers N | --cluster ADDRESS   (irrun[dask])
    irrun compare MODEL.xml --input ... [--reference openvino|REF.npz] [--rtol R] [--atol A]
    irrun extract MODEL.xml --layer ID -o DIR [--input ...]
    irrun info MODEL.xml;  irrun graph MODEL.xml [--format dot|mermaid] [--layer ID]

Exit codes: 0 success / clean; 1 check found problems or unchecked layers, a layer blocks the
reshape (nothing written), or some inputs of a --workers run failed; 2 bad model, bad input or usage;
3 the model uses something irrun does not support; 4 internal error (a bug in irrun).
"""
from __future__ import annotations

import argparse
import sys
from importlib import import_module

from .errors import EXIT_INTERNAL, IrrunError, printable

#: sub-command -> (module in irrun.commands, one-line help). ``run`` is also the default.
COMMANDS = {
    "run": ("run", "run a model and print or save its outputs"),
    "check": ("check", "check declared shapes and types against inferred ones"),
    "reshape": ("reshape", "write the model for new input shapes (re-inferred port dims)"),
    "ops": ("ops", "list the ops and versions irrun implements"),
    "compare": ("compare", "find the first layer where irrun and OpenVINO (or a dump) disagree"),
    "extract": ("extract", "write one layer as its own IR, with the inputs that reach it"),
    "info": ("info", "inputs, outputs, op types and versions, opsets, weights"),
    "graph": ("graph", "draw the graph (or one layer's neighbourhood) as dot or mermaid"),
}


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    cmd = argv.pop(0) if argv and argv[0] in COMMANDS else "run"
    module = import_module(f"irrun.commands.{COMMANDS[cmd][0]}")
    p = argparse.ArgumentParser(prog="irrun" if cmd == "run" else f"irrun {cmd}",
                                description=COMMANDS[cmd][1],
                                epilog="other commands: " + ", ".join(c for c in COMMANDS if c != cmd))
    module.add_arguments(p)
    p.add_argument("--debug", action="store_true", help="show Python tracebacks")
    args = p.parse_args(argv)
    try:
        return module.main(args)
    except IrrunError as e:
        if args.debug:
            raise
        print(f"irrun: {e.kind}: {e}", file=sys.stderr)
        return e.exit_code
    except KeyboardInterrupt:
        return 130
    except Exception as e:  # a bug in irrun: say so, briefly
        if args.debug:
            raise
        print(f"irrun: internal error (a bug in irrun): {type(e).__name__}: {printable(e)}\n"
              "Run again with --debug for the traceback, and please report it.", file=sys.stderr)
        return EXIT_INTERNAL


if __name__ == "__main__":
    sys.exit(main())
