"""``irrun ops``: the support matrix (op type, versions, restrictions)."""
from __future__ import annotations

from ..errors import EXIT_OK


def add_arguments(p) -> None:
    p.add_argument("--markdown", action="store_true",
                   help="print the table as Markdown with spec links (what docs/ops.md holds)")
    p.add_argument("--json", action="store_true",
                   help="print the table as JSON: type, versions, restrictions, spec per op type")


MARKDOWN_HEAD = """# Supported operations

What `irrun ops` prints, one row per op type: the IR `version` strings irrun implements (a layer
whose version resolves to another implementation is refused by name, listing these) and what irrun
does not support of the op. Generated with `irrun ops --markdown > docs/ops.md`; a test keeps it
current.

"""


def matrix() -> list[tuple[str, str, str, str]]:
    """(type, versions, restrictions, spec URL of the newest version) per registered op type."""
    from ..ops.registry import all_ops

    by_type: dict[str, list] = {}
    for cls in all_ops():
        by_type.setdefault(cls.type, []).append(cls)
    return [(t, ", ".join(c.version for c in classes),
             "; ".join(dict.fromkeys(c.restrictions for c in classes if c.restrictions)),
             next((c.spec for c in reversed(classes) if c.spec), ""))
            for t, classes in sorted(by_type.items(), key=lambda kv: kv[0].lower())]


def markdown() -> str:
    lines = ["| type | versions | restrictions |", "|---|---|---|"]
    for t, versions, restrictions, spec in matrix():
        name = f"[{t}]({spec})" if spec else t
        lines.append(f"| {name} | {versions} | {restrictions.replace('|', '/')} |")
    return MARKDOWN_HEAD + "\n".join(lines) + f"\n\n{len(lines) - 2} op types.\n"


def main(args) -> int:
    if args.json:
        import json
        print(json.dumps([{"type": t, "versions": v.split(", "), "restrictions": r, "spec": u}
                          for t, v, r, u in matrix()], indent=1))
        return EXIT_OK
    if args.markdown:
        print(markdown(), end="")
        return EXIT_OK
    rows = [("type", "versions", "restrictions")] + [r[:3] for r in matrix()]
    w = [max(len(r[i]) for r in rows) for i in range(2)]
    print("\n".join(f"{r[0].ljust(w[0])}  {r[1].ljust(w[1])}  {r[2]}".rstrip() for r in rows))
    return EXIT_OK
