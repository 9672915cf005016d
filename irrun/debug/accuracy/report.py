"""What ``irrun compare MODEL --reference OTHER.xml`` / ``--precision`` prints and writes: a
short aligned text report, the same as JSON, and NNCF's ignored scope.

The ignored-scope file is JSON ``{"names": [...]}``: the reference model's layer names (the node
names NNCF sees in an OpenVINO model, ``node.get_friendly_name()``) of the top layers, which
``nncf.IgnoredScope(**json.load(f))`` and optimum-intel's ``ignored_scope=`` dict both take.
"""
from __future__ import annotations

import json
import math
import os

from ...errors import printable
from ..tracing import table
from .attribute import LayerError, Result
from .metrics import fmt_db, fmt_rel

NAME_WIDTH = 56


def write_file(path: str | os.PathLike, data: bytes, protect: tuple = ()) -> None:
    """Write ``data`` to ``path`` through irrun's one writer (:mod:`irrun.io.writers`: atomic, no
    symlinks, never over the models or inputs in ``protect``)."""
    from ...io.writers import data as content
    from ...io.writers import write_files
    write_files([(path, content(data))], protect=protect)


def _short(name: str, width: int = NAME_WIDTH) -> str:
    """Long layer names (``__module.model.layers.1.mlp.down_proj/aten::linear/MatMul``) keep
    both ends, where the block and the op are."""
    if len(name) <= width:
        return name
    half = (width - 1) // 2
    return name[:half] + "…" + name[-(width - 1 - half):]


def _label(res: Result) -> tuple[str, str]:
    cand = printable(res.candidate) + (f" at {res.precision}" if res.precision else "")
    ref = printable(res.reference) + (" at f32" if res.precision else "")
    return cand, ref


def text(res: Result, top: int = 10) -> str:
    """The aligned report; the files', layers' and outputs' names escaped (:func:`printable`)."""
    cand, ref = _label(res)
    m = res.matching
    unmatched = ", ".join(printable(f"{k} {t}") for t, k in m.unmatched.most_common(4))
    lines = [f"{cand}\n  vs {ref}",
             f"{res.steps} step{'s' * (res.steps != 1)}; {len(res.layers)} of {res.activation_layers} layers "
             f"matched" + (f" (unmatched, counted in their readers: {unmatched})" if unmatched else "")]
    for name, s in res.outputs.items():
        lines.append(f'output "{printable(name)}": rel L2 {fmt_rel(s.rel_l2)} (SNR {fmt_db(s.snr_db)} dB), '
                     f"cosine {s.cosine:.6f}, max abs {s.max_error:.4g}")
    ranked = res.ranking()[:top]
    if ranked:
        lines.append("\nlayers adding the most error (added: the layer run on the reference's inputs; "
                     "inherited: its inputs' error)")
        rows: list[tuple[str, ...]] = [
            ("#", "id", "layer", "op", "added", "SNR dB", "inherited", "total", "cosine", "max abs")]
        for k, le in enumerate(ranked, 1):
            a, t = le.added_worst, le.total_worst
            rows.append((str(k), str(le.node), _short(printable(le.name)), printable(le.op), fmt_rel(a.rel_l2), fmt_db(a.snr_db),
                         fmt_rel(res.inherited(le).rel_l2), fmt_rel(t.rel_l2), f"{t.cosine:.5f}",
                         f"{t.max_error:.3g}"))
        lines += table(rows, {0, 1, 4, 5, 6, 7, 8, 9})
    if res.first_nonfinite is not None:
        what = "an overflow (inf/NaN where f32 is finite)" if res.precision else "NaN/Inf"
        lines += ["", res.first_nonfinite.text(what)]
    return "\n".join(lines)


def _layer_dict(res: Result, rank: int | None, le: LayerError) -> dict:
    return {"rank": rank, "id": le.node, "name": le.name, "op": le.op, "order": le.order,
            "reference_id": le.ref_node, "reference_name": le.ref_name,
            "added": le.added_worst.as_dict() if le.rerun else None,
            "inherited": res.inherited(le).as_dict(), "total": le.total_worst.as_dict()}


def as_json(res: Result) -> str:
    ranks = {le.node: k for k, le in enumerate(res.ranking(), 1)}
    doc = {"candidate": res.candidate, "reference": res.reference, "precision": res.precision,
           "steps": res.steps, "matched_layers": len(res.layers), "layers_with_activations": res.activation_layers,
           "matched_by": dict(res.matching.how), "unmatched": dict(res.matching.unmatched),
           "outputs": {k: s.as_dict() for k, s in res.outputs.items()},
           "first_nonfinite": res.first_nonfinite.as_dict() if res.first_nonfinite else None,
           "layers": [_layer_dict(res, ranks.get(le.node), le)
                      for le in sorted(res.layers.values(), key=lambda x: x.order)]}
    return json.dumps(doc, indent=1, allow_nan=False)


def ignored_scope(res: Result, top: int) -> dict:
    """``{"names": [...]}``: the reference's names of the ``top`` layers adding a non-zero error."""
    names = [le.ref_name for le in res.ranking() if le.added_worst.rel_l2 > 0 and not math.isnan(
        le.added_worst.rel_l2)][:top]
    return {"names": list(dict.fromkeys(names))}


def node_data(model, res: Result) -> dict:
    """Google Model Explorer's node data for one graph (``GraphNodeData``: ``results`` keyed by
    each layer's output tensor names — Model Explorer matches a node by any of them — or, when a
    layer has none, its name; ``value`` the relative L2 error the layer adds, ``bgColor`` the
    colour ``--graph`` gives it, which Model Explorer takes over its own scales). Non-finite
    values become ``1e30`` (Model Explorer takes numbers only)."""
    from .errorgraph import error_paint
    paint, _, _ = error_paint(model, res)
    results: dict = {}
    for le in res.ranking():
        v = le.added_worst.rel_l2
        layer = model.dag.nodes[le.node]["layer"]
        for k in [nm for o in layer.outputs for nm in o.names] or [le.name]:
            results[k] = {"value": v if math.isfinite(v) else 1e30,
                          "bgColor": paint.fill.get(le.node, paint.other)}
    return {"results": results}
