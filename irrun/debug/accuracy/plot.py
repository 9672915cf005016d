"""The error along the network as a picture (PNG or SVG, by the file's suffix).

x: the candidate's layers in execution order; y (log): each matched layer's relative L2 error —
the total error as a line, the error the layer adds as dots — so a step up in the line with a
tall dot under it is a layer that loses accuracy, and a line that climbs without dots is error
being carried. The top layers by added error are labelled with their short names.
Needs matplotlib (``pip install irrun[plot]``); irrun itself does not.
"""
from __future__ import annotations

import io
import math
import re

from ...errors import UnsupportedError
from .attribute import Result

FLOOR = 1e-12         # errors at or below this are "exact": no point drawn


def _label(name: str) -> str:
    """``__module.model.layers.1.mlp.down_proj/aten::linear/MatMul`` -> ``layers.1.mlp.down_proj``."""
    core = name.split("/")[0].removeprefix("__module.").removeprefix("model.")
    core = re.sub(r"^model\.", "", core)
    return core if len(core) <= 32 else "…" + core[-31:]


def pyplot():
    """matplotlib.pyplot on the file-only Agg backend, or an UnsupportedError saying how to get it."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise UnsupportedError("the error plot needs matplotlib: pip install irrun[plot] "
                               "(or pip install matplotlib)") from None
    return plt


def render(res: Result, fmt: str, top: int = 5) -> bytes:
    plt = pyplot()
    layers = sorted((le for le in res.layers.values() if le.floating), key=lambda le: le.order)
    if not layers:
        raise UnsupportedError("no matched layer has a floating-point output: nothing to plot")
    xs = list(range(len(layers)))
    clip = lambda v: FLOOR if v <= 0 or math.isnan(v) else min(v, 1e3)   # noqa: E731
    total = [clip(le.total_worst.rel_l2) for le in layers]
    line = [t if t > FLOOR else math.nan for t in total]        # exact layers leave a gap
    added = [clip(le.added_worst.rel_l2) for le in layers]
    fig, ax = plt.subplots(figsize=(12, 4.2), dpi=110)
    ax.plot(xs, line, color="#4c72b0", lw=1.2, marker=".", ms=2,
            label="total error (vs reference; exact layers: gap)")
    dots = [(x, a) for x, a in zip(xs, added) if a > FLOOR]
    ax.scatter([x for x, _ in dots], [a for _, a in dots], s=12, color="#dd8452", zorder=3,
               label="error the layer adds (layers adding none: no dot)")
    ax.set_yscale("log")
    shown = [v for v in total + added if v > FLOOR] or [1.0]
    ax.set_ylim(min(shown) / 10, max(shown) * 30)
    ax.set_xlabel("layer with a float output (execution order of the candidate)")
    ax.set_ylabel("relative L2 error")
    cand = "/".join(res.candidate.replace("\\", "/").rsplit("/", 2)[-2:])
    title = cand + (f" at {res.precision}" if res.precision else f" vs {'/'.join(res.reference.rsplit('/', 2)[-2:])}")
    ax.set_title(f"{title}: error along the network", fontsize=10)
    ax.grid(True, which="major", axis="y", alpha=0.3)
    pos = {le.node: k for k, le in enumerate(layers)}
    ranked = [le for le in res.ranking() if le.node in pos][:top]
    for k, le in enumerate(ranked, 1):
        x = pos[le.node]
        ax.annotate(str(k), (x, added[x]), xytext=(0, 7), textcoords="offset points", ha="center",
                    fontsize=8, fontweight="bold", color="#8c2d04")
    if ranked:
        key = "\n".join(f"{k}. {_label(le.name)} ({le.op})" for k, le in enumerate(ranked, 1))
        ax.text(1.01, 1.0, "adding the most\n" + key, transform=ax.transAxes, fontsize=7.5,
                va="top", family="monospace", color="#8c2d04")
    if res.first_nonfinite is not None and res.first_nonfinite.layer in pos:
        ax.axvline(pos[res.first_nonfinite.layer], color="#c44e52", ls="--", lw=0.8,
                   label="first non-finite")
    ax.legend(loc="upper left", fontsize=8)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format=fmt)
    plt.close(fig)
    return buf.getvalue()
