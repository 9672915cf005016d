"""The input files of a run, as the command line and ``irrun.distributed`` name them: ``NAME=FILE``
specs, an ``--input DIR/`` of .npy/.npz files (one run each), and loading them for a model with
every header checked against its input (name, dtype, shape) and the memory budget before any data
is read. The model is used only through its public interface (``inputs``, ``find_input``,
``check_signature``): this module sits below the model layer, so the Dask workers can load their
inputs without importing the command line."""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from ..errors import InputError
from .npy import load_npy, load_npz


def split_named(arg: str, what: str) -> tuple[str | None, str]:
    """``"NAME=VALUE"`` -> (NAME, VALUE); an existing path or a bare value -> (None, arg)."""
    if os.path.exists(arg) or "=" not in arg:
        return None, arg
    name, _, value = arg.partition("=")
    if not name:
        raise InputError(f'bad {what} "{arg}": expected NAME=VALUE')
    return name, value


def input_files(specs: list[str]) -> list[str]:
    """The files ``--input`` options name (protected from every writer): for an ``--input DIR/``,
    each .npy/.npz file in it (what is read), not the directory. Files opened later are protected
    too (:mod:`irrun.io.files`); this list lets outputs be checked before anything is read."""
    out = []
    for s in specs:
        path = split_named(s, "--input")[1]
        if os.path.isdir(path):
            out += [str(f) for f in sorted(Path(path).iterdir()) if f.suffix in (".npy", ".npz")]
        else:
            out.append(path)
    return out


def input_dir_files(directory: str | os.PathLike) -> list[Path]:
    """The .npy and .npz files of an ``--input DIR/``, in name order (one run or step each). A
    FIFO, device or dangling link named like one is kept, not skipped: reading it then fails
    naming it (:func:`irrun.io.files.open_regular`) instead of the run silently leaving it out."""
    d = Path(directory)
    files = sorted(f for f in d.iterdir() if f.suffix in (".npy", ".npz") and not f.is_dir())
    if not files:
        raise InputError("no .npy or .npz files in the directory", file=str(d))
    return files


def load_inputs(model, specs: list[str], partial: bool = False) -> dict[str, np.ndarray]:
    """The arrays named by ``--input`` options, keyed by input name. Each file's header is checked
    against the model's input (name, dtype, shape) and the memory budget before its data is read.
    ``partial``: some inputs may be left out (``--random-inputs`` makes them)."""
    def expect(name):
        return lambda key, dtype, shape: model.check_signature(model.find_input(key or name), dtype, shape)

    feeds: dict[str, np.ndarray] = {}
    names = [p.name for p in model.inputs]
    if not specs and names and not partial:
        raise InputError(f"no input given; the model's inputs are: {', '.join(names)} "
                         "(use --input NAME=FILE.npy or --input inputs.npz)", file=model.path)
    for spec in specs:
        name, path = split_named(spec, "--input")
        if path.endswith(".npz") and name is None:
            for k, v in load_npz(path, expect(None)).items():
                if k in feeds:
                    raise InputError(f'input "{k}" is given twice', file=path)
                feeds[k] = v
            continue
        if name is None:
            if len(names) == 1 and len(specs) > 1:
                raise InputError(f'the model has one input ("{names[0]}"), but {len(specs)} --input '
                                 "options are given", file=path)
            if len(names) != 1:
                raise InputError(f"the model has {len(names)} inputs ({', '.join(names)}); name "
                                 f"each one: --input NAME={path}", file=path)
            name = names[0]
        if name in feeds:
            raise InputError(f'input "{name}" is given twice', file=path)
        feeds[name] = load_npy(path, expect(name))
    return feeds


