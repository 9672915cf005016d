"""Where a run's outputs go: ``--output OUT.npz`` (or ``OUT.npy`` for one output), checked
before the run and written after it through :mod:`irrun.io.writers`, in a form other programs
read (:func:`storable`). Used by the command line and by ``irrun.distributed``'s client, which
writes each input's outputs as they come back."""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from ..errors import OutputError, printable
from ..limits import memory as budget
from .writers import destination, npy, npz, write_files


def storable(a: np.ndarray, what: str = "a string array") -> np.ndarray:
    """What an .npz for other programs holds: strings as fixed-width unicode (refused when that
    widening exceeds the memory budget), ml_dtypes types as their bits."""
    if a.dtype.kind == "T":
        width = max(int(np.strings.str_len(a).max()) if a.size else 1, 1)
        need = budget.nbytes(a.shape, np.dtype(f"<U{width}"))
        if need > budget.current():
            raise budget.MemoryBudgetError(budget.over_message(
                f"{what} as fixed-width unicode ({width} characters each)", need, budget.current()))
        return a.astype(np.dtypes.StrDType(width))
    if a.dtype.kind == "V":
        return a.view(f"u{a.dtype.itemsize}")
    return a


def output_file(arg: str, count: int | None, protect) -> Path:
    """Where ``--output ARG`` writes, checked before the run: ``OUT.npz`` as given, ``OUT`` (no
    suffix) as ``OUT.npz``, ``OUT.npy`` only for one output (``count``; None: not known yet);
    another suffix, a directory or a path ending in a separator is refused."""
    p = Path(arg)
    if arg.endswith(("/", os.sep)) or p.is_dir():
        raise OutputError("is a directory; --output takes a file name such as out.npz (a directory "
                          "only with --input DIR/)", file=arg)
    if p.suffix == "":
        p = p.with_name(p.name + ".npz")
    elif p.suffix not in (".npz", ".npy"):
        raise OutputError(f'--output must end in .npz (or .npy for a one-output model), not "{p.suffix}"',
                          file=arg)
    if p.suffix == ".npy" and count is not None and count != 1:
        raise OutputError(f"a .npy holds one array, but there are {count} outputs; use .npz", file=arg)
    return destination(p, protect=protect)


def write_outputs(path: Path, outputs: dict[str, np.ndarray], protect) -> Path:
    """The outputs as .npz (keyed by output name) or, for one output, .npy."""
    arrays = {k: storable(v, f'output "{printable(k)}"') for k, v in outputs.items()}
    if path.suffix == ".npy":
        if len(arrays) != 1:
            raise OutputError(f"a .npy holds one array, but there are {len(arrays)} outputs; use .npz",
                              file=str(path))
        return write_files([(path, npy(next(iter(arrays.values()))))], protect=protect)[0]
    return write_files([(path, npz(arrays))], protect=protect)[0]
