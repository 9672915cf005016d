"""The scripts of tools/ import one another by bare module name (``sys.path.insert(0, TOOLS)``), so
renaming one leaves its importers broken until someone runs them (tools/make_opsets_expectations.py
imported the renamed make_misc_expectations). Checked statically: every such import names a file
of tools/ (importing the scripts themselves would need their heavy dependencies)."""
from __future__ import annotations

import ast
import sys
from pathlib import Path

TOOLS = Path(__file__).resolve().parent.parent / "tools"


def _imported(tree: ast.AST) -> set[str]:
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module.split(".")[0])
    return names


def test_every_sibling_import_of_a_tool_names_a_file_of_tools():
    scripts = {p.stem for p in TOOLS.glob("*.py")}
    known = scripts | set(sys.stdlib_module_names)
    broken = []
    for path in sorted(TOOLS.glob("*.py")):
        for name in _imported(ast.parse(path.read_text(encoding="utf-8"))):
            # a tool-like name (make_*, *_zoo, *_expectations, *_cases) must be one of tools/'s files
            looks_local = name.startswith(("make_", "bench", "zoo", "ovoracle", "conformance")) or \
                name.endswith(("_zoo", "_expectations", "_cases", "_models", "_rows"))
            if looks_local and name not in known:
                broken.append(f"{path.name}: import {name}")
    assert not broken, broken
