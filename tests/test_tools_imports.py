"""tools/ is a package run with ``python -m tools.<group>.<name>`` from the checkout: its modules
import one another as ``from tools.x import y`` and never edit ``sys.path`` (32 scripts once did, so a
renamed script left its importers broken until someone ran them). Checked three ways: statically
(no bare sibling import, every ``tools.*`` import names a module that exists, no ``sys.path`` edit
but the oracle worker's own), by importing every module the way ``python -m`` does in a child
without PYTHONPATH or user site, and by an oracle worker finding a tools module from its own cwd."""
from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TOOLS = ROOT / "tools"
#: The one place allowed to set an import path: the oracle worker, run by file path under
#: ``python -I``, makes the checkout importable for the modules ``Oracle.call`` loads.
PATH_SETTER = ("ovoracle.py", "_worker_import_path")


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


FILES = sorted(TOOLS.rglob("*.py"))
MODULES = {_module_name(p) for p in FILES}


def _imports(tree: ast.AST) -> list[str]:
    """Every absolutely imported module name (``from tools.x import y`` yields ``tools.x``; whether
    ``y`` is there is left to the import test below)."""
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.append(node.module)
    return names


def test_tools_are_grouped_in_packages():
    assert (TOOLS / "__init__.py").is_file()
    loose = [p.name for p in TOOLS.glob("*.py") if p.name not in ("__init__.py", "ovoracle.py")]
    assert not loose, f"put {loose} in a group of tools/ (see tools/__init__.py)"
    for d in (d for d in TOOLS.iterdir() if d.is_dir() and d.name != "__pycache__"):
        assert (d / "__init__.py").is_file(), f"tools/{d.name}/ has no __init__.py"


def test_every_import_of_a_tool_goes_through_the_package():
    stems = {p.stem for p in FILES} - {"__init__"}
    broken = []
    for path in FILES:
        for name in _imports(ast.parse(path.read_text(encoding="utf-8"))):
            top = name.split(".")[0]
            if top in stems and top not in sys.stdlib_module_names:
                broken.append(f"{path.relative_to(ROOT)}: import {name} (a sibling by bare name: use tools.…)")
            elif top == "tools" and name not in MODULES:
                broken.append(f"{path.relative_to(ROOT)}: import {name} (no such module under tools/)")
    assert not broken, broken


def _edits_sys_path(node: ast.AST) -> bool:
    def is_sys_path(n: ast.AST) -> bool:
        while isinstance(n, ast.Subscript):
            n = n.value
        return isinstance(n, ast.Attribute) and n.attr == "path" and \
            isinstance(n.value, ast.Name) and n.value.id == "sys"
    if isinstance(node, (ast.Assign, ast.AugAssign)):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        return any(is_sys_path(t) for t in targets)
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and is_sys_path(node.func.value)


def test_no_tool_edits_sys_path():
    edits = []
    for path in FILES:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        allowed = set()
        for fn in ast.walk(tree):
            if isinstance(fn, ast.FunctionDef) and (path.name, fn.name) == PATH_SETTER:
                allowed |= {id(n) for n in ast.walk(fn)}
        edits += [f"{path.relative_to(ROOT)}:{n.lineno}" for n in ast.walk(tree)
                  if _edits_sys_path(n) and id(n) not in allowed]
    assert not edits, f"sys.path edited at {edits}: import through the tools package instead"


def _starts_itself_by_path(tree: ast.AST) -> bool:
    """A command line holding ``__file__``: ``[sys.executable, ..., __file__, ...]`` or an argument
    of ``worker_cmd``/``python_child`` (the isolated ``python -I`` workers)."""
    def has_file(n: ast.AST) -> bool:
        return any(isinstance(x, ast.Name) and x.id == "__file__" for x in ast.walk(n))
    for n in ast.walk(tree):
        if isinstance(n, ast.List) and has_file(n) and any(
                isinstance(e, ast.Attribute) and e.attr == "executable" for e in n.elts):
            return True
        if isinstance(n, ast.Call) and getattr(n.func, "id", getattr(n.func, "attr", "")) in (
                "worker_cmd", "python_child") and any(has_file(a) for a in n.args):
            return True
    return False


def test_a_tool_that_runs_itself_by_path_imports_tools_only_inside_functions():
    """A worker started as ``python [-I] /path/to/tool.py`` has the tool's folder (or, under -I,
    nothing of the checkout) on its path, not the checkout: an import of ``tools.*`` at the top of
    such a file would fail in the worker, so it belongs in the functions the parent runs."""
    starters, wrong = [], []
    for path in FILES:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        if not _starts_itself_by_path(tree):
            continue
        starters.append(path.name)
        top = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
        wrong += [f"{path.relative_to(ROOT)}:{n.lineno}" for n in top if any(
            name.split(".")[0] == "tools" for name in _imports(n))]
    assert {"ovoracle.py", "bench.py", "make_seq2seq.py"} <= set(starters), starters
    assert not wrong, f"top-level tools imports in tools that start themselves by path: {wrong}"


# Imports every module as `python -m` would (the cwd, the checkout, first on the path; -E -s: no
# PYTHONPATH, no user site), checks it came from this checkout and that no import touched sys.path.
IMPORT_ALL = """
import importlib, importlib.util, json, sys
before, report = list(sys.path), {}
for name in sys.argv[1:]:
    try:
        mod = importlib.import_module(name)
        report[name] = ["ok", mod.__file__]
    except ModuleNotFoundError as e:
        top = (e.name or "").split(".")[0]
        optional = top not in ("tools", "irrun") and importlib.util.find_spec(top) is None
        report[name] = ["needs " + top if optional else "error", repr(e)]
    except Exception as e:
        report[name] = ["error", repr(e)]
print(json.dumps({"modules": report, "path_unchanged": sys.path == before}))
"""


def test_every_tools_module_imports_as_python_m_runs_it():
    r = subprocess.run([sys.executable, "-E", "-s", "-c", IMPORT_ALL, *sorted(MODULES)],
                       capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout.splitlines()[-1])
    assert out["path_unchanged"], "importing a tools module changed sys.path"
    report = out["modules"]
    assert set(report) == MODULES
    errors = {m: v for m, v in report.items() if v[0] == "error"}
    assert not errors, errors
    for name, (status, where) in report.items():
        if status == "ok":
            assert Path(where).resolve().is_relative_to(TOOLS), f"{name} imported from {where}, not this checkout"
    # only a third-party package that is not installed may stop a module (torch for the zoo's models)
    assert sum(v[0] == "ok" for v in report.values()) >= len(MODULES) - 3, report


def test_oracle_worker_finds_tools_without_the_parents_cwd(tmp_path):
    """The worker runs isolated (``python -I``, its own temporary cwd) and is given the parent's
    import path minus the parent's cwd; here the parent's cwd is the checkout and ``-c`` puts it on
    the path only as the current directory, so the worker must find ``tools`` by its own location.
    make_nn_expectations imports ``tools.ovoracle`` at the top, so loading it needs the package."""
    pytest.importorskip("openvino")
    code = ("import json\nfrom tools.ovoracle import Oracle\n"
            "from tools.expectations.make_nn_expectations import ov_version\n"
            "with Oracle() as o:\n    r = o.call(ov_version)\n"
            "print(json.dumps([r.status, r.message, r.value]))\n")
    r = subprocess.run([sys.executable, "-E", "-s", "-c", code], capture_output=True, text=True, cwd=ROOT,
                       timeout=300)
    assert r.returncode == 0, r.stderr
    status, message, value = json.loads(r.stdout.splitlines()[-1])
    import importlib.metadata
    assert (status, value) == ("ok", importlib.metadata.version("openvino")), message


def test_every_conformance_suite_is_found_in_the_suite_packages():
    """The conformance run names its suites by module name; each must be found (in tools.zoo or
    tools.conformance) and offer ``run(workdir, k)``, or ``--suite NAME`` would skip it silently."""
    from tools.conformance.conformance import SUITES, load_suite
    found = {suite: load_suite(suite) for suite in SUITES}
    assert all(callable(getattr(mod, "run", None)) for mod in found.values()), found
    assert {s: m.__name__ for s, m in found.items()}["onnx"] == "tools.conformance.onnx_suite"
