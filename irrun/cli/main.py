"""The ``irrun`` command line: picks the sub-command module and turns errors into exit codes.

    irrun [run] MODEL.xml [--input x.npy | --input NAME=x.npy ... | --input inputs.npz] [-o out.npz]
    irrun check | reshape | info | graph | compare | extract | reduce | export MODEL.xml ...;  irrun ops
    irrun MODEL.xml -i DIR/ -o OUTDIR/ --workers N | --cluster ADDRESS   (needs irrun[dask])
    irrun --help (every command, one line each);  irrun COMMAND --help;  irrun --version

``-m MODEL`` / ``--model MODEL`` (benchmark_app's habit) stands for the MODEL argument. The global
options (``--debug``, ``--quiet``, ``--threads N``, ``--max-memory SIZE``) go before or after the command.

Exit codes: 0 success / clean; 1 check found problems or unchecked layers, a layer blocks the
reshape (nothing written), or some inputs of a --workers run failed; 2 bad model, bad input or usage;
3 the model uses something irrun does not support (or, for export, that ONNX cannot express); 4 internal error (a bug in irrun).
"""
from __future__ import annotations

import argparse
import difflib
import os
import sys
from importlib import import_module
from types import ModuleType

from ..errors import EXIT_ERROR, EXIT_INTERNAL, EXIT_OK, IrrunError, printable

#: sub-command -> (module in irrun.cli, one-line help). ``run`` is also the default.
COMMANDS = {
    "run": ("run", "run a model and print or save its outputs (also: irrun MODEL.xml ...)"),
    "check": ("check", "check declared shapes and types against inferred ones"),
    "reshape": ("reshape", "write the model for new input shapes (re-inferred port dims)"),
    "info": ("info", "inputs, outputs, op types and versions, opsets, weights"),
    "graph": ("graph", "draw the graph (or one layer's neighbourhood): svg/png via Graphviz, dot, mermaid"),
    "compare": ("compare", "where irrun and OpenVINO, a dump or another IR disagree; which layer adds the error"),
    "extract": ("extract", "write one layer as its own IR, with the inputs that reach it"),
    "reduce": ("reduce", "shrink a model to the smallest sub-graph still disagreeing, as a repro"),
    "export": ("export", "write the model as ONNX (needs irrun[onnx]) or as IR v10; --verify runs it in onnxruntime"),
    "ops": ("ops", "list the ops and versions irrun implements"),
}

#: options every command takes, before or after the command: flag -> takes a value
GLOBAL_OPTIONS = {"--debug": False, "--quiet": False, "--threads": True, "--max-memory": True}
MODEL_OPTIONS = ("-m", "--model")


def version() -> str:
    from .. import __version__
    return __version__


def _size(text: str) -> int:
    from ..limits.memory import parse_size
    try:
        return parse_size(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def add_global_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("global options (before or after the command)")
    g.add_argument("--debug", action="store_true", help="show Python tracebacks")
    g.add_argument("--quiet", action="store_true",
                   help="no progress lines and no notes on stderr (errors and warnings still)")
    g.add_argument("--threads", type=int, metavar="N",
                   help="threads for MatMul and convolutions (BLAS) and for big element-wise and "
                        "FakeQuantize work (default: OMP_NUM_THREADS / "
                        "OPENBLAS_NUM_THREADS / MKL_NUM_THREADS, else every core)")
    g.add_argument("--max-memory", type=_size, metavar="SIZE",
                   help="refuse (before allocating) any tensor or input bigger than SIZE, e.g. "
                        "2G, 512MiB (default: half the machine's memory)")


def overview() -> str:
    """``irrun --help``: every command with its one line, the global options, the exit codes."""
    w = max(map(len, COMMANDS))
    lines = [f"usage: irrun [COMMAND] MODEL.xml [options]     (irrun {version()})", "",
             "Read, shape-check and run OpenVINO IR models (model.xml + model.bin) with NumPy.", "",
             "commands:"]
    lines += [f"  {c.ljust(w)}  {h}" for c, (_, h) in COMMANDS.items()]
    lines += ["", "irrun MODEL.xml ... is irrun run MODEL.xml ...; -m/--model MODEL works too.",
              "irrun COMMAND --help shows a command's options.", "",
              "global options (before or after the command):",
              "  --debug            show Python tracebacks",
              "  --quiet            no progress lines or notes on stderr",
              "  --threads N        threads: BLAS and irrun's own element-wise work",
              "  --max-memory SIZE  refuse any tensor bigger than SIZE (e.g. 2G)",
              "  --version          print irrun's version", "",
              "exit codes: 0 ok; 1 check found problems / reshape blocked; 2 bad model, input or usage;",
              "            3 unsupported op or feature; 4 internal error (a bug in irrun)"]
    return "\n".join(lines)


def _hoist_globals(argv: list[str]) -> tuple[list[str], list[str]]:
    """Split the global options that come before the command off ``argv``: (globals, rest)."""
    front: list[str] = []
    while argv:
        flag = argv[0].split("=", 1)[0]
        if flag not in GLOBAL_OPTIONS:
            break
        takes = GLOBAL_OPTIONS[flag] and "=" not in argv[0]
        front += argv[:1 + takes]
        argv = argv[1 + takes:]
    return front, argv


def _model_option(argv: list[str]) -> list[str]:
    """``-m X`` / ``--model X`` / ``--model=X`` -> ``X`` (the MODEL positional)."""
    out: list[str] = []
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in MODEL_OPTIONS and i + 1 < len(argv):
            out.append(argv[i + 1])
            i += 2
            continue
        out.append(a[len("--model="):] if a.startswith("--model=") else a)
        i += 1
    return out


class UsageError(Exception):
    """A bad command line found before argparse sees it (exit 2)."""


def pick_command(argv: list[str]) -> tuple[str, list[str]]:
    """(command, its arguments). A first word that is no command, no option and no file is a
    mistyped command; anything else is ``run``'s."""
    if argv and argv[0] in COMMANDS:
        return argv[0], argv[1:]
    first = argv[0] if argv else ""
    if first and not first.startswith("-") and not os.path.exists(first) \
            and "." not in first and os.sep not in first and "/" not in first:
        close = difflib.get_close_matches(first, list(COMMANDS), n=1, cutoff=0.6)
        hint = f"; did you mean '{close[0]}'?" if close else \
            f" (commands: {', '.join(COMMANDS)}; a model is a path to an .xml file)"
        raise UsageError(f"unknown command '{first}'{hint}")
    return "run", argv


def parser_for(cmd: str) -> tuple[argparse.ArgumentParser, ModuleType]:
    module = import_module(f"irrun.cli.{COMMANDS[cmd][0]}")
    p = argparse.ArgumentParser(prog=f"irrun {cmd}", description=COMMANDS[cmd][1],
                                epilog="-m/--model MODEL is accepted for MODEL. "
                                       "irrun --help lists every command.")
    module.add_arguments(p)
    add_global_options(p)
    return p, module


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    front, rest = _hoist_globals(argv)
    if "--version" in argv:
        print(f"irrun {version()}")
        return EXIT_OK
    if rest[:1] == ["help"]:                  # irrun help [COMMAND]
        rest = [rest[1], "--help"] if len(rest) > 1 and rest[1] in COMMANDS else ["--help"]
    if not rest or rest[0] in ("-h", "--help"):
        print(overview(), file=sys.stdout if rest else sys.stderr)
        return EXIT_OK if rest else EXIT_ERROR
    try:
        cmd, rest = pick_command(_model_option(rest))
    except UsageError as e:
        print(f"irrun: error: {e}", file=sys.stderr)
        return EXIT_ERROR
    p, module = parser_for(cmd)
    args = p.parse_args(rest + front)
    try:
        from ..io.progress import set_quiet
        from ..limits import memory as budget
        set_quiet(args.quiet)
        if args.threads is not None:
            from ..limits.threads import set_threads
            set_threads(args.threads)
        from ..io.files import command
        from ..types.conversion import strict
        with budget.limit(args.max_memory), command(), strict(getattr(args, "strict_inputs", False)):
            return module.main(args)                          # (command: files read, protected from outputs)
    except IrrunError as e:
        if args.debug:
            raise
        print(f"irrun: {e.kind}: {e}", file=sys.stderr)
        return e.exit_code
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:           # irrun ops | head: the reader left, nothing is wrong
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
    except Exception as e:  # a bug in irrun: say so, briefly
        if args.debug:
            raise
        print(f"irrun: internal error (a bug in irrun): {type(e).__name__}: {printable(e)}\n"
              "Run again with --debug for the traceback, and please report it.", file=sys.stderr)
        return EXIT_INTERNAL


if __name__ == "__main__":
    sys.exit(main())
