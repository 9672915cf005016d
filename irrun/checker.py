"""``irrun check``: infer every port and report where the file disagrees or cannot run.

OpenVINO ignores the dims and precisions an IR declares on its ports; irrun compares them with
what it infers. Findings are keyed by layer (id, name, type) and port, with the declared and the
inferred value. Severities: ``error`` (the file is wrong or cannot run), ``warning`` (suspicious
but harmless, e.g. a layer that feeds no Result), ``unchecked`` (an op irrun does not implement:
named, never silently trusted). Layers downstream of an unchecked or failing layer are not guessed.
"""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass

from .errors import IrrunError, UnsupportedError
from .graph import inputs_of
from .infer import infer_types
from .model import Model
from .ops.base import TensorInfo
from .reader import PortDecl, read_ir
from .shapes import PartialShape


@dataclass
class Finding:
    severity: str          # "error" | "warning" | "unchecked"
    code: str              # short kind, e.g. "dims", "precision", "input-dims", "graph", "op"
    layer_id: str | None
    layer_name: str | None
    layer_type: str | None
    port: str | None
    declared: str | None
    inferred: str | None
    message: str

    @staticmethod
    def from_error(err: IrrunError, code: str, severity: str = "error") -> "Finding":
        L = err.layer
        return Finding(severity, code, L.id if L else None, L.name if L else None,
                       L.type if L else None, err.port, None, None, err.message)


def _dims_fit(declared: tuple[int, ...], inferred: PartialShape) -> bool:
    if inferred.rank is None:
        return True
    return len(declared) == inferred.rank and all(
        d == -1 or dim.contains(d) for d, dim in zip(declared, inferred))


def _compare(decl: PortDecl, info: TensorInfo, layer, port: str, code: str, out: list,
             dims: bool = True) -> None:
    decl_dims = "[" + ",".join("?" if d == -1 else str(d) for d in decl.dims) + "]"
    if dims and not _dims_fit(decl.dims, info.shape):
        what = "rank" if info.shape.rank is not None and len(decl.dims) != info.shape.rank else "dims"
        out.append(Finding("error", f"{code}{'-rank' if what == 'rank' else ''}", str(layer.id),
                           layer.name, layer.type, port, decl_dims, str(info.shape),
                           "declared rank differs from the inferred rank" if what == "rank"
                           else "declared dims differ from the inferred dims"))
    if decl.etype is not None and not decl.etype.is_dynamic and not info.etype.is_dynamic \
            and decl.etype.name != info.etype.name:
        out.append(Finding("error", f"{code}-precision", str(layer.id), layer.name, layer.type,
                           port, decl.precision, info.etype.name,
                           "declared precision differs from the inferred element type"))


def check_model(path, shapes=None) -> list[Finding]:
    """All findings for the IR at ``path``. With ``shapes`` (input name -> dims) the model is
    checked as if its inputs had those shapes: the declared dims, which describe the original
    shapes, are then not compared, only whether every layer can take the new shapes.
    Raises :class:`IrrunError` only when the file cannot be read at all."""
    model = Model(read_ir(path), strict=False)
    findings = [Finding.from_error(p, "graph") for p in model.problems]
    g = model.graph
    for n, err in model.op_errors.items():
        if isinstance(err, UnsupportedError):
            findings.append(Finding.from_error(err, "unsupported", "unchecked"))
        else:
            findings.append(Finding.from_error(err, "attribute"))
    for n, op in model.ops.items():
        L = g.nodes[n]["layer"]
        notes = list(op.warnings) + [f'unknown attribute {k}="{v}" (OpenVINO ignores it)'
                                     for k, v in L.data.items() if k not in op.attrs]
        findings += [Finding("warning", "attribute", str(L.id), L.name, L.type, None, None, None, m)
                     for m in notes]
    if not model.order and model.problems:
        return findings
    overrides = {}
    if shapes:
        base = infer_types(g, model.order, model.ops, model.path,
                           on_error=lambda n, e: None)
        for name, shape in shapes.items():
            n = model._find_input(name)
            ps = PartialShape.parse(shape) if isinstance(shape, str) else PartialShape(shape)
            overrides[n] = TensorInfo(base[(n, 0)].etype, ps)
    types = infer_types(g, model.order, model.ops, model.path, overrides,
                        on_error=lambda n, e: findings.append(Finding.from_error(e, "shape-rule")))
    live = set(model.order)
    for n in model.order:
        layer = g.nodes[n]["layer"]
        for i, decl in enumerate(layer.outputs):
            info = types.get((n, i))
            if info is not None:
                _compare(decl, info, layer, f"out {decl.id}", "dims", findings, dims=not shapes)
        for (u, sp), decl in zip(inputs_of(g, n), layer.inputs):
            info = types.get((u, sp))
            if info is not None:
                _compare(decl, info, layer, f"in {decl.id}", "input-dims", findings, dims=not shapes)
    for n, data in g.nodes(data=True):
        if n not in live and model.order:
            L = data["layer"]
            findings.append(Finding("warning", "dead-layer", str(L.id), L.name, L.type, None, None,
                                    None, "the layer feeds no Result; OpenVINO drops it"))
    return findings


# ---------------------------------------------------------------------------------------------
# Reports

def format_text(path: str, findings: list[Finding]) -> str:
    if not findings:
        return f"{path}: OK, no problems found"
    rows = [("severity", "id", "name", "type", "port", "declared", "inferred", "problem")]
    for f in findings:
        rows.append((f.severity, f.layer_id or "-", _short(f.layer_name or "-"), f.layer_type or "-",
                     f.port or "-", f.declared or "-", f.inferred or "-", f.message))
    widths = [max(len(r[i]) for r in rows) for i in range(7)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r[:7], widths)) + "  " + r[7] for r in rows]
    counts = {}
    for f in findings:
        counts[f.severity] = counts.get(f.severity, 0) + 1
    summary = ", ".join(f"{v} {k}{'s' if v > 1 and k != 'unchecked' else ''}" for k, v in counts.items())
    return f"{path}: {summary}\n" + "\n".join(l.rstrip() for l in lines)


def _short(name: str, width: int = 32) -> str:
    return name if len(name) <= width else name[: width - 1] + "…"


def format_json(findings: list[Finding]) -> str:
    return json.dumps([asdict(f) for f in findings], indent=1)
