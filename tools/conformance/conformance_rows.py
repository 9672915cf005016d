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
