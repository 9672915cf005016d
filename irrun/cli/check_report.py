"""How ``irrun check`` prints its findings (:mod:`irrun.analysis.check`): an aligned table per problem, a
summary line, or JSON.
"""
from __future__ import annotations

import json
from dataclasses import asdict

from ..analysis.check import SEVERITIES, Finding
from ..errors import printable

_COLUMNS = ("severity", "id", "name", "type", "port", "declared", "inferred")


def summary(findings: list[Finding]) -> str:
    counts = {s: sum(f.severity == s for f in findings) for s in SEVERITIES}
    words = {"error": "error", "warning": "warning", "unchecked": "unchecked layer"}
    return ", ".join(f"{v} {words[k]}{'s' if v > 1 else ''}" for k, v in counts.items() if v)


def format_text(path: str, findings: list[Finding]) -> str:
    """A summary line, then one aligned row per finding (columns nobody uses are left out;
    the problem text comes last, unpadded)."""
    path = printable(path)
    if not findings:
        return f"{path}: OK, no problems found"
    rows: list[tuple[str, ...]] = [_COLUMNS]
    for f in findings:
        rows.append(tuple(printable(c) for c in (
            f.severity, f.layer_id or "-", _short(f.layer_name or "-"), f.layer_type or "-",
            f.port or "-", f.declared or "-", f.inferred or "-")))
    keep = [i for i in range(len(_COLUMNS)) if i < 2 or any(r[i] != "-" for r in rows[1:])]
    widths = {i: max(len(r[i]) for r in rows) for i in keep}
    lines = ["  ".join(r[i].ljust(widths[i]) for i in keep) + "  " + (m or "problem")
             for r, m in zip(rows, [None] + [printable(f.message) for f in findings])]
    out = [f"{path}: {summary(findings)}"] + [ln.rstrip() for ln in lines]
    unchecked = sorted({printable(f.layer_type or "?") for f in findings if f.severity == "unchecked"})
    if unchecked:
        out.append(f"irrun could not check the {', '.join(unchecked)} layers above nor the layers "
                   "they feed: this is not a clean bill of health")
    return "\n".join(out)


def _short(name: str, width: int = 40) -> str:
    """Long (hierarchical) names keep their start and their distinctive end."""
    if len(name) <= width:
        return name
    head = width // 3
    return name[:head] + "…" + name[len(name) - (width - head - 1):]


def format_json(findings: list[Finding]) -> str:
    return json.dumps([asdict(f) for f in findings], indent=1)
