"""The candidate's graph filled by the error each layer adds (``irrun compare ... --graph g.svg``).

Drawn by the same code as ``irrun graph`` (:func:`irrun.debug.describe.to_dot`, Graphviz's ``dot``
through :func:`irrun.debug.describe.render`), with a :class:`~irrun.debug.describe.Paint` instead of the op
categories:

* each matched layer with a float output is filled on a sequential scale (ColorBrewer YlOrRd,
  pale = adds nothing, dark red = adds the most) by the relative L2 error it *adds* — the figure
  the report ranks by — in log steps between the smallest non-zero and the largest value;
* other ops (unmatched, or integer/boolean outputs) are grey; Parameters and Results keep their
  ellipses;
* the top K layers (``--top``) that add error get a thick border and a line ``#k adds 3.1e-02``;
* a legend gives the scale.

Only the activation graph is drawn: Consts and the constant sub-graphs folded before running
(NNCF's decompression chains) add no error and would double a compressed model's picture.
Beyond :data:`MAX_LAYERS` layers (an LLM) the picture would be unreadable and slow to lay out,
so only the neighbourhoods (:data:`DEPTH` edges) of the top K layers are drawn, as
``irrun graph --layer ID --depth N`` draws one.
"""
from __future__ import annotations

import math

from ...ops.registry import role_of
from ...types.tensor_info import Role
from ..describe import Paint, to_dot
from .attribute import Result
from .metrics import fmt_rel

#: ColorBrewer YlOrRd, 9 classes: index 0 for layers adding no error, 1..8 log steps
SCALE = ("#ffffcc", "#ffeda0", "#fed976", "#feb24c", "#fd8d3c", "#fc4e2a", "#e31a1c", "#bd0026", "#800026")
DARK = 6                  # from this index on the fill takes white text
GREY = "#d9d9d9"
MAX_DECADES = 8           # errors more than this many decades below the largest share the lightest step
MAX_LAYERS = 300          # larger activation graphs: only the top layers' neighbourhoods
DEPTH = 3


def _bounds(values: list[float]) -> tuple[float, float]:
    """log10 of the scale's ends: the smallest and largest finite non-zero value, at least one
    decade apart and at most MAX_DECADES."""
    pos = [v for v in values if 0 < v < math.inf]
    if not pos:
        return -1.0, 0.0
    hi = math.log10(max(pos))
    lo = max(math.log10(min(pos)), hi - MAX_DECADES)
    return min(lo, hi - 1), hi


def step_of(v: float, lo: float, hi: float) -> int:
    """The scale index of an added error ``v`` (0: none; inf: the darkest)."""
    if math.isnan(v) or v <= 0:
        return 0
    if v == math.inf:
        return len(SCALE) - 1
    k = len(SCALE) - 1
    return max(1, min(k, 1 + int((math.log10(v) - lo) / (hi - lo) * k)))


def _legend(lo: float, hi: float, top: int) -> str:
    k = len(SCALE) - 1
    cells = ['<tr><td colspan="2"><b>relative L2 error the layer adds</b><br/>(log scale, darkest = most)</td></tr>']
    for i in range(k, 0, -1):
        a, b = 10 ** (lo + (i - 1) * (hi - lo) / k), 10 ** (lo + i * (hi - lo) / k)
        span = f"{fmt_rel(a)} – {fmt_rel(b)}" if i > 1 else f"≤ {fmt_rel(b)}"
        cells.append(f'<tr><td bgcolor="{SCALE[i]}" width="24"></td><td align="left">{span}</td></tr>')
    cells.append(f'<tr><td bgcolor="{SCALE[0]}"></td><td align="left">0 (adds nothing)</td></tr>')
    cells.append(f'<tr><td bgcolor="{GREY}"></td><td align="left">not compared (unmatched,<br/>'
                 'or not a float output)</td></tr>')
    cells.append(f'<tr><td colspan="2">thick border, "#k adds": the top {top}</td></tr>')
    return "".join(cells)


def _title(res: Result) -> str:
    short = lambda p: "/".join(p.replace("\\", "/").rsplit("/", 2)[-2:])   # noqa: E731
    versus = f"at {res.precision} vs f32" if res.precision else f"vs {short(res.reference)}"
    return f"{short(res.candidate)} {versus}: the error each layer adds"


def drawn_layers(model, res: Result) -> set:
    """The activation layers and the outputs/state writes they feed."""
    g = model.graph
    live = {n for n in res.live if n in g}
    return live | {v for u in live for v in g.successors(u) if g.out_degree(v) == 0}


def error_dot(model, res: Result, top: int = 10) -> tuple[str, int, int]:
    """(DOT text, layers drawn, layers in the activation graph) for the candidate ``model``."""
    paint, nodes, total = error_paint(model, res, top)
    return to_dot(model, nodes, paint=paint), len(nodes), total


def error_paint(model, res: Result, top: int = 10) -> tuple[Paint, set, int]:
    """The colours, labels and borders of the picture, the layers to draw, and how many layers
    the activation graph has (also what the HTML report's own layout draws)."""
    ranked = [le for le in res.ranking() if le.floating]
    values = [le.added_worst.rel_l2 for le in ranked]
    lo, hi = _bounds(values)
    worst = [le for le in ranked if le.added_worst.rel_l2 > 0][:max(top, 0)]
    paint = Paint(other=GREY, legend=_legend(lo, hi, len(worst)), title=_title(res))
    for le in ranked:
        s = step_of(le.added_worst.rel_l2, lo, hi)
        paint.fill[le.node] = SCALE[s]
        if s >= DARK:
            paint.dark.add(le.node)
    for k, le in enumerate(worst, 1):
        paint.note[le.node] = f"#{k} adds {fmt_rel(le.added_worst.rel_l2)}"
        paint.bold.add(le.node)
    nodes = drawn_layers(model, res)
    total = len(nodes)
    if total > MAX_LAYERS and worst:
        nodes = _near(model, nodes, [le.node for le in worst])
    return paint, nodes, total


def _near(model, nodes: set, centres: list) -> set:
    """The layers within DEPTH edges of ``centres`` inside ``nodes`` (plus the model's inputs
    and outputs they reach, so that the picture keeps its ends)."""
    import networkx as nx  # only for drawing a part of the graph
    und = model.graph.subgraph(nodes).to_undirected(as_view=True)
    near: set = set()
    for c in centres:
        near |= set(nx.single_source_shortest_path_length(und, c, cutoff=DEPTH))
    ends = (Role.PARAMETER, Role.RESULT)
    return near | {n for n in nodes if role_of(model.dag.nodes[n]["layer"].type) in ends
                   and any(m in near for m in und.neighbors(n))}
