"""``irrun compare ... --html report.html``: the accuracy report as one self-contained page.

One file, nothing fetched (no scripts, fonts, styles or images from anywhere: it opens from a
mail attachment or an air-gapped machine): what was compared, the outputs' errors, the ranking
table (added / inherited / total error per layer, the top K marked), the candidate's graph filled
by the error each layer adds (:func:`irrun.debug.accuracy.errorgraph.error_paint`; the same
colours as ``--graph``) as inline SVG, and the error plot (:mod:`irrun.debug.accuracy.plot`) as
inline SVG.

The graph is laid out by Graphviz's ``dot`` when it is installed; without it (or with
``graphviz=False``) by :func:`layered_svg`: each layer on the row of its longest path from the
inputs, rows top to bottom, edges as straight lines — plain but readable, and with a tooltip per
box. Every name from the model is HTML-escaped (and :func:`irrun.errors.printable`: control
characters shown, not obeyed).
"""
from __future__ import annotations

import html
import math
import shutil

from ..analysis.graph import inputs_of
from ..errors import IrrunError, printable
from .accuracy.attribute import Result
from .accuracy.errorgraph import error_dot, error_paint
from .accuracy.metrics import fmt_db, fmt_rel
from .tracing import type_version

MAX_ROWS = 200            # ranking rows shown (the top K are marked)
BOX_W, BOX_H, GAP_X, GAP_Y = 170, 34, 14, 26

STYLE = """
body{font:14px/1.4 system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px;color:#222;max-width:1400px}
h1{font-size:20px;margin:0 0 4px}h2{font-size:16px;margin:28px 0 8px;border-bottom:1px solid #ddd}
table{border-collapse:collapse;font-variant-numeric:tabular-nums}
th,td{padding:3px 8px;border-bottom:1px solid #eee;text-align:right;white-space:nowrap}
th{background:#f4f4f4;position:sticky;top:0}td.l,th.l{text-align:left}
tr.top td{font-weight:600}.sw{display:inline-block;width:12px;height:12px;border:1px solid #999;vertical-align:middle}
.muted{color:#666}.scroll{max-height:520px;overflow:auto;border:1px solid #eee}
.pic{overflow:auto;border:1px solid #eee;max-height:900px}.pic svg{max-width:none}
"""


def _e(text) -> str:
    return html.escape(printable(str(text)), quote=True)


def render(model, res: Result, top: int = 10, plot_svg: bytes | None = None,
           graphviz: bool | None = None) -> bytes:
    """The page as UTF-8 bytes. ``plot_svg``: the plot (None: left out, with a note);
    ``graphviz``: None = use ``dot`` when installed."""
    ranked = res.ranking()
    paint, nodes, total = error_paint(model, res, top)
    graph, how = _graph(model, res, top, paint, nodes, graphviz)
    parts = [f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
             f"<meta name='viewport' content='width=device-width'><title>irrun compare: {_e(_name(res.candidate))}</title>"
             f"<style>{STYLE}</style></head><body>",
             f"<h1>Which layers add the error</h1><p>{_e(res.candidate)}"
             f"{' at ' + _e(res.precision) if res.precision else ''}<br>vs {_e(res.reference)}"
             f"{' at f32' if res.precision else ''}</p>",
             f"<p class='muted'>{res.steps} step{'s' * (res.steps != 1)}; {len(res.layers)} of "
             f"{res.activation_layers} layers matched. <b>added</b>: the layer run on the reference's "
             "inputs against the reference's output (what this layer does differently); "
             "<b>inherited</b>: its inputs' error; <b>total</b>: its output against the "
             "reference's.</p>"]
    parts.append(_outputs(res))
    parts.append(_ranking(res, ranked, top, paint))
    parts.append(f"<h2>The graph, filled by the error each layer adds</h2><p class='muted'>{_e(how)}; "
                 f"{len(nodes)} of {total} layers drawn.</p><div class='pic'>{graph}</div>")
    if plot_svg is not None:
        parts.append("<h2>The error along the network</h2><div class='pic'>"
                     f"{_inline_svg(plot_svg)}</div>")
    else:
        parts.append("<h2>The error along the network</h2><p class='muted'>not drawn: "
                     "matplotlib is not installed (pip install irrun[plot])</p>")
    if res.first_nonfinite is not None:
        parts.append(f"<h2>NaN / Inf</h2><pre>{_e(res.first_nonfinite.text('NaN/Inf'))}</pre>")
    parts.append("<p class='muted'>written by irrun compare --html</p></body></html>")
    return "\n".join(parts).encode("utf-8")


def _name(path: str) -> str:
    return path.replace("\\", "/").rsplit("/", 1)[-1]


def _outputs(res: Result) -> str:
    rows = "".join(f"<tr><td class='l'>{_e(name)}</td><td>{fmt_rel(s.rel_l2)}</td><td>{fmt_db(s.snr_db)}</td>"
                   f"<td>{s.cosine:.6f}</td><td>{s.max_error:.4g}</td></tr>" for name, s in res.outputs.items())
    return ("<h2>Outputs</h2><table><tr><th class='l'>output</th><th>rel L2</th><th>SNR dB</th>"
            f"<th>cosine</th><th>max abs</th></tr>{rows}</table>")


def _ranking(res: Result, ranked: list, top: int, paint) -> str:
    head = ("<tr><th>#</th><th></th><th>id</th><th class='l'>layer</th><th class='l'>op</th><th>added</th>"
            "<th>SNR dB</th><th>inherited</th><th>total</th><th>cosine</th><th>max abs</th></tr>")
    rows = []
    for k, le in enumerate(ranked[:MAX_ROWS], 1):
        a, t = le.added_worst, le.total_worst
        colour = paint.fill.get(le.node, paint.other)
        rows.append(f"<tr class='{'top' if le.node in paint.bold else ''}'><td>{k}</td>"
                    f"<td><span class='sw' style='background:{colour}'></span></td><td>{le.node}</td>"
                    f"<td class='l' title='{_e(le.name)}'>{_e(_short(le.name))}</td><td class='l'>{_e(le.op)}</td>"
                    f"<td>{fmt_rel(a.rel_l2)}</td><td>{fmt_db(a.snr_db)}</td>"
                    f"<td>{fmt_rel(res.inherited(le).rel_l2)}</td><td>{fmt_rel(t.rel_l2)}</td>"
                    f"<td>{_cos(t.cosine)}</td><td>{t.max_error:.3g}</td></tr>")
    more = f"<p class='muted'>the first {MAX_ROWS} of {len(ranked)} shown</p>" if len(ranked) > MAX_ROWS else ""
    return (f"<h2>Layers by the error they add (top {top} in bold)</h2><div class='scroll'><table>{head}"
            f"{''.join(rows)}</table></div>{more}")


def _cos(x: float) -> str:
    return "nan" if math.isnan(x) else f"{x:.5f}"


def _short(name: str, width: int = 64) -> str:
    """Both ends of a long name (the block and the op): ``__module.layers.0…linear/MatMul``."""
    if len(name) <= width:
        return name
    head = (width - 1) // 2
    return name[:head] + "…" + name[-(width - 1 - head):]


def _inline_svg(svg: bytes) -> str:
    """An SVG document as an element inside HTML: without its XML declaration and DOCTYPE."""
    text = svg.decode("utf-8")
    start = text.find("<svg")
    return text[start:] if start >= 0 else ""


def _graph(model, res: Result, top: int, paint, nodes: set, graphviz: bool | None) -> tuple[str, str]:
    if graphviz is not False and shutil.which("dot"):
        from .describe import render as dot_render
        try:
            dot, _, _ = error_dot(model, res, top)
            return _inline_svg(dot_render(dot, "svg", smaller="a smaller --top")), "laid out by Graphviz"
        except IrrunError:
            if graphviz:
                raise
    return layered_svg(model, nodes, paint), "laid out by irrun (Graphviz's dot is not installed)" \
        if graphviz is None else "laid out by irrun"


def layered_svg(model, nodes: set, paint) -> str:
    """``nodes`` drawn without Graphviz: rows by longest path from the inputs, boxes filled as
    ``paint`` says, a tooltip (``<title>``) per box, edges as lines."""
    g = model.dag
    row: dict = {}
    for n in model.order:                       # producers first: longest path from the inputs
        if n in nodes:
            row[n] = 1 + max((row[u] for u, _ in inputs_of(g, n) if u in row), default=-1)
    rows: dict[int, list] = {}
    for n in sorted(row, key=lambda n: (row[n], model.order.index(n))):
        rows.setdefault(row[n], []).append(n)
    pos = {}
    width = max((len(v) for v in rows.values()), default=1) * (BOX_W + GAP_X) + GAP_X
    for r, members in rows.items():
        span = len(members) * (BOX_W + GAP_X) - GAP_X
        x0 = (width - span) / 2
        for k, n in enumerate(members):
            pos[n] = (x0 + k * (BOX_W + GAP_X), GAP_Y + r * (BOX_H + GAP_Y))
    height = GAP_Y + len(rows) * (BOX_H + GAP_Y)
    out = [f"<svg xmlns='http://www.w3.org/2000/svg' width='{width:.0f}' height='{height:.0f}' "
           f"viewBox='0 0 {width:.0f} {height:.0f}' font-family='sans-serif' font-size='11'>"]
    for n in pos:
        x, y = pos[n]
        for u, _ in inputs_of(g, n):
            if u in pos:
                ux, uy = pos[u]
                out.append(f"<line x1='{ux + BOX_W / 2:.0f}' y1='{uy + BOX_H:.0f}' x2='{x + BOX_W / 2:.0f}' "
                           f"y2='{y:.0f}' stroke='#888' stroke-width='1'/>")
    for n, (x, y) in pos.items():
        L = g.nodes[n]["layer"]
        fill = paint.fill.get(n, paint.other)
        text = "#fff" if n in paint.dark else "#000"
        border = "3" if n in paint.bold else "1"
        note = paint.note.get(n, "")
        tip = f"{L.id} {L.name} ({type_version(model, n)})" + (f": {note}" if note else "")
        out.append(f"<g><title>{_e(tip)}</title><rect x='{x:.0f}' y='{y:.0f}' width='{BOX_W}' height='{BOX_H}' "
                   f"rx='4' fill='{fill}' stroke='#333' stroke-width='{border}'/>"
                   f"<text x='{x + BOX_W / 2:.0f}' y='{y + 14:.0f}' text-anchor='middle' fill='{text}'>"
                   f"{_e(_short(L.type + ' ' + L.name.split('/')[0], 27))}</text>"
                   f"<text x='{x + BOX_W / 2:.0f}' y='{y + 27:.0f}' text-anchor='middle' fill='{text}'>"
                   f"{_e(note or L.id)}</text></g>")
    out.append("</svg>")
    return "".join(out)
