"""One result row of the conformance tool (tools/conformance/conformance.py), shared by its suites.

Each suite module (tools/zoo/zoo.py, tools/conformance/onnx_suite.py) exposes
``run(workdir: Path, k: str = "") -> list[Row]``; the driver only tabulates rows.

``detail`` says why a row is not a pass, as ``"<reason> — <specifics>"``: the driver groups the
rows by the text before the first " — " (the whole detail when there is none), so put what many
cases share first (e.g. ``"unsupported op TopK-11 — layer 12 'topk'"`` or
``"OpenVINO cannot convert — <its message>"``) and what is particular to the case after it.
"""
from __future__ import annotations

from dataclasses import dataclass

STATUSES = ("pass", "fail", "unsupported", "excluded")
SEP = " — "


@dataclass
class Row:
    suite: str
    case: str
    status: str  # "pass" | "fail" | "unsupported" | "excluded"
    detail: str = ""

    @property
    def reason(self) -> str:
        """What the driver groups by: ``detail`` up to the first " — "."""
        return self.detail.split(SEP, 1)[0].strip()


def error_row(suite: str, case: str, e: Exception) -> Row:
    """The row of a case irrun raised on: ``unsupported`` for an op it lacks (named), ``fail``
    for any other IrrunError, and ``fail`` as a crash — an irrun bug — for anything else."""
    from irrun.errors import IrrunError, UnsupportedError
    if isinstance(e, UnsupportedError):
        op = f"{e.layer.type}-{e.layer.version}" if e.layer else "(no layer named)"
        return Row(suite, case, "unsupported", f"unsupported op {op}{SEP}{e}")
    if isinstance(e, IrrunError):
        return Row(suite, case, "fail", f"{type(e).__name__}{SEP}{e}")
    return Row(suite, case, "fail", f"crash {type(e).__name__}{SEP}{e}")
