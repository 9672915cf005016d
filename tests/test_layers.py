"""The pipeline's layering (README "How it works"), checked on the source itself.

irrun's packages are the stages of the pipeline, and imports go one way, down it::

    errors <- types <- limits <- io <- ir <- ops <- analysis <- runtime <- model, ports, irrun
           <- debug, distributed, export <- cli, __main__

(``irrun`` itself, the public facade, sits with the model: the debugging tools and the command
line use the library through it.)

* A module imports only modules of its own layer or of layers below it — every import counts,
  also those inside functions and under ``TYPE_CHECKING``, because a lazy import still makes the
  lower layer depend on the upper one.
* No import cycle between modules (again counting every import).
* No module reads another object's private attribute (``other._name``) or imports a private
  name (``from x import _name``) from another module: a module's ``_names`` are its own.
  ``self``/``cls`` and the module's own globals are its own business.

``KNOWN`` lists what still breaks a rule on the way to none, with the reason; it may only shrink
(a listed entry that no longer occurs fails the test, so the list stays true).
"""
from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import pytest

from helpers import import_target

ROOT = Path(__file__).resolve().parent.parent
PKG = ROOT / "irrun"

LAYERS: list[set[str]] = [
    {"errors"}, {"types"}, {"limits"}, {"io"}, {"ir"}, {"ops"}, {"analysis"}, {"runtime"},
    {"model", "ports", "results", "__init__"}, {"debug", "distributed", "export"}, {"cli", "__main__"},
]
RANK = {name: i for i, names in enumerate(LAYERS) for name in names}

#: (importer module, imported module) pairs that still go up the pipeline, with the reason.
KNOWN_UPWARD: dict[tuple[str, str], str] = {
}
#: modules in a cycle, as a sorted tuple, with the reason.
KNOWN_CYCLES: dict[tuple[str, ...], str] = {
}
#: (module, what it reads) private reads across modules, with the reason.
KNOWN_PRIVATE: dict[tuple[str, str], str] = {
    ('irrun.distributed', 'job._replace'): "namedtuple's public _replace",
    ('irrun.ops._random', 'np.random.RandomState(seed & _M)._bit_generator'): "NumPy's legacy RandomState exposes its bit generator only privately",
}


def _modules() -> dict[str, Path]:
    out = {}
    for p in PKG.rglob("*.py"):
        parts = list(p.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = p
    return out


MODULES = _modules()


def _layer(module: str) -> int:
    parts = module.split(".")
    if len(parts) == 1:
        return RANK["__init__"]
    return RANK[parts[1]]


def _imports(module: str, path: Path) -> set[str]:
    """Every irrun module ``module`` imports (a package's ``__init__`` counts as the package)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            target = import_target(package, node)
            if not target.startswith("irrun"):
                continue
            for a in node.names:
                sub = f"{target}.{a.name}"
                found.add(sub if sub in MODULES else target)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("irrun"))
    found.discard(module)
    return {m for m in found if m in MODULES}


GRAPH = {m: _imports(m, p) for m, p in MODULES.items()}


def test_the_layers_name_every_package():
    for module in MODULES:
        _layer(module)      # KeyError: a package the layering does not place


def test_imports_go_down_the_pipeline():
    upward = {(m, d) for m, deps in GRAPH.items() for d in deps
              if _layer(d) > _layer(m) and not d.startswith(m + ".")}
    new = sorted(upward - set(KNOWN_UPWARD))
    assert not new, "imports up the pipeline:\n" + "\n".join(f"  {m} -> {d}" for m, d in new)
    gone = sorted(set(KNOWN_UPWARD) - upward)
    assert not gone, f"KNOWN_UPWARD lists fixed entries (remove them): {gone}"


def _cycles() -> set[tuple[str, ...]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: set[tuple[str, ...]] = set()
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in GRAPH[v]:
            # a package's __init__ importing its own submodules is how packages re-export
            if w.startswith(v + "."):
                continue
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.add(tuple(sorted(comp)))

    import sys
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10000))
    try:
        for v in sorted(GRAPH):
            if v not in index:
                visit(v)
    finally:
        sys.setrecursionlimit(limit)
    return out


def test_no_import_cycles():
    cycles = _cycles()
    new = sorted(cycles - set(KNOWN_CYCLES))
    assert not new, "import cycles:\n" + "\n".join("  " + " <-> ".join(c) for c in new)
    gone = sorted(set(KNOWN_CYCLES) - cycles)
    assert not gone, f"KNOWN_CYCLES lists fixed entries (remove them): {gone}"


def _private_reads(module: str, path: Path) -> set[tuple[str, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    own = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef))}
    own |= {t.id for n in tree.body if isinstance(n, (ast.Assign, ast.AnnAssign))
            for t in (n.targets if isinstance(n, ast.Assign) else [n.target]) if isinstance(t, ast.Name)}
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
            recv = node.value
            if isinstance(recv, ast.Name) and (recv.id in ("self", "cls", "mcs") or recv.id in own):
                continue
            if isinstance(recv, ast.Call) and isinstance(recv.func, ast.Name) and recv.func.id == "super":
                continue
            name = recv.id if isinstance(recv, ast.Name) else ast.unparse(recv)
            found.add((module, f"{name}.{node.attr}"))
        elif isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").startswith("irrun")):
            target = import_target(module if path.name == "__init__.py" else module.rpartition(".")[0], node)
            for a in node.names:
                if a.name.startswith("_") and not a.name.startswith("__") and f"{target}.{a.name}" not in MODULES:
                    found.add((module, f"import {target}.{a.name}"))
    return found


def test_no_private_reads_across_modules():
    reads = set().union(*(_private_reads(m, p) for m, p in MODULES.items()))
    new = sorted(reads - set(KNOWN_PRIVATE))
    assert not new, "private reads across modules:\n" + "\n".join(f"  {m}: {r}" for m, r in new)
    gone = sorted(set(KNOWN_PRIVATE) - reads)
    assert not gone, f"KNOWN_PRIVATE lists fixed entries (remove them): {gone}"


@pytest.mark.parametrize("top", sorted(p.name for p in PKG.glob("*.py")))
def test_few_modules_at_the_top(top):
    assert top in {"__init__.py", "__main__.py", "errors.py", "model.py", "ports.py", "results.py"}, \
        f"irrun/{top}: put it in the package of its pipeline stage"
