"""``irrun ops``: the support matrix (op type, versions, restrictions)."""
from __future__ import annotations

from ..errors import EXIT_OK


def add_arguments(p) -> None:
    pass


def main(args) -> int:
    from ..ops.registry import all_ops

    rows = [("type", "versions", "restrictions")]
    by_type: dict[str, list] = {}
    for cls in all_ops():
        by_type.setdefault(cls.type, []).append(cls)
    for t, classes in by_type.items():
        rows.append((t, ", ".join(c.version for c in classes),
                     "; ".join(dict.fromkeys(c.restrictions for c in classes if c.restrictions))))
    w = [max(len(r[i]) for r in rows) for i in range(2)]
    print("\n".join(f"{r[0].ljust(w[0])}  {r[1].ljust(w[1])}  {r[2]}".rstrip() for r in rows))
    return EXIT_OK
