"""``irrun MODEL.xml --input ...``: run a model and print or save its outputs."""
from __future__ import annotations

import numpy as np

from ..errors import EXIT_OK, InputError
from . import load_inputs


def add_arguments(p) -> None:
    p.add_argument("model", help="the IR .xml file (its .bin is read from beside it)")
    p.add_argument("--input", "-i", action="append", default=[], metavar="[NAME=]FILE",
                   help="x.npy for a one-input model, NAME=x.npy per input, or inputs.npz "
                        "keyed by input name (repeatable)")
    p.add_argument("--output", "-o", metavar="OUT.npz",
                   help="write the outputs to an .npz keyed by output name")


def _summary_row(name: str, arr: np.ndarray) -> tuple[str, ...]:
    """name, dtype[shape], min, max, mean, and the first values (flattened)."""
    flat = arr.reshape(-1)
    numeric = arr.dtype.kind in "fiub" or str(arr.dtype).startswith(("bfloat", "float"))
    stats = ["", "", ""]
    if numeric and arr.size:
        a = flat.astype(np.float64)
        stats = [f"min {a.min():.6g}", f"max {a.max():.6g}", f"mean {a.mean():.6g}"]
    head = flat[:8].tolist()
    values = "[" + ", ".join(f"{v:.6g}" if isinstance(v, float) else repr(v) if isinstance(v, str)
                             else str(v) for v in head) + (", …]" if flat.size > 8 else "]")
    dtype = "string" if arr.dtype.kind == "T" else str(arr.dtype)
    return (name, f"{dtype}[{','.join(map(str, arr.shape))}]", *stats, values)


def _summary(outputs: dict[str, np.ndarray]) -> str:
    rows = [_summary_row(k, v) for k, v in outputs.items()]
    widths = [max(len(r[i]) for r in rows) for i in range(5)]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r[:5], widths)) + "  " + r[5] for r in rows)


def main(args) -> int:
    from .. import read_model

    model = read_model(args.model)
    feeds = load_inputs(model, args.input)
    outputs = model.run(feeds)
    if args.output:
        try:
            np.savez(args.output, **outputs)
        except OSError as e:
            raise InputError(f"cannot write the outputs: {e.strerror or e}", file=args.output) from None
        print(f"wrote {len(outputs)} output(s) to {args.output}: {', '.join(outputs)}")
    else:
        print(_summary(outputs))
    return EXIT_OK
