"""The layout rules of irrun/ (README "How it works"), checked on the source itself.

* The core names no op type: outside ``irrun/ops/`` and ``irrun/export/`` (whose converter table
  maps each op type to its ONNX form, and writes ONNX op names) no string literal (docstrings
  aside) is an op type name; the core asks the op class instead (``Op.role``, ``Op.bounds``,
  ``Op.rounds_to_declared_type``...). Known exceptions are listed below with their reason; the
  ``SPEED_MEM`` list must only shrink; ``IR_FORMAT`` is the file format's own layer types, in one
  table in ``irrun/ir/``.
* An op module imports ``base``, ``registry``, ``bounds``, ``fast_paths`` and the ``_helper``
  modules, never a sibling op.
* The pipeline's layering is checked in ``tests/test_layers.py`` (it replaced the per-file line cap).
"""
from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

import pytest

from helpers import import_target

from irrun.ops import registry

ROOT = Path(__file__).resolve().parent.parent
PKG = ROOT / "irrun"

#: Occurrences (file -> literal -> count) in the modules being rewritten on another branch
#: (taking networkx off the internal path); to be replaced by ``Op.role`` there, then removed.
SPEED_MEM: dict[str, dict[str, int]] = {}

#: The IR format's own layer types, spelled where irrun reads and writes the format (ir-format.md):
#: the readers decode Const layers' bytes, the builder writes Parameter/Const/Result as OpenVINO's
#: serializer does. Knowledge of the file format, not of an op, kept in one table in irrun/ir/.
IR_FORMAT: dict[str, dict[str, int]] = {
    "irrun/ir/records.py": {"const": 1, "constant": 1, "Parameter": 1, "Const": 1, "Result": 1},
}

#: Literals that spell an op type but mean something else.
NOT_OP_TYPES: dict[str, dict[str, str]] = {
    "irrun/debug/accuracy/plot.py": {"log": "matplotlib's axis scale"},
    "irrun/cli/main.py": {"reshape": "the `irrun reshape` command"},
    "irrun/analysis/check.py": {"const": "a finding code (public, in --json output)"},
    "irrun/runtime/step.py": {"const": "the value of StepKind.CONST (a layer whose value is known)",
                              "result": "the value of StepKind.RESULT (a model output)"},
    "irrun/model.py": {"result": "a tensor key's tag"},
    "irrun/debug/describe.py": {"const": "the Mermaid class of Const boxes (output format)"},
    "irrun/debug/accuracy/nonfinite.py": {"Const": "a label in the report"},
    "irrun/debug/accuracy/match.py": {"const": "a placeholder in a structural signature"},
}

def _type_names() -> set[str]:
    registry.load_all()
    return {n.lower() for n in registry.canonical_names()} | {t.lower() for t, _ in registry._REGISTRY}


def _docstrings(tree: ast.AST) -> set[int]:
    docs = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                docs.add(id(first.value))
    return docs


def _core_modules() -> list[Path]:
    return sorted(p for p in PKG.rglob("*.py") if p.relative_to(PKG).parts[0] not in ("ops", "export"))


def _type_literals(path: Path, names: set[str]) -> Counter:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docs = _docstrings(tree)
    return Counter(n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)
                   and id(n) not in docs and n.value.lower() in names)


def test_the_core_names_no_op_type():
    names = _type_names()
    assert {"parameter", "result", "const", "readvalue", "add"} <= names      # the scan sees them
    found = {}
    for path in _core_modules():
        rel = path.relative_to(ROOT).as_posix()
        hits = _type_literals(path, names)
        for word in NOT_OP_TYPES.get(rel, {}):
            hits.pop(word, None)
        allowed = Counter(SPEED_MEM.get(rel, {})) + Counter(IR_FORMAT.get(rel, {}))
        over = hits - allowed
        if over:
            found[rel] = dict(over)
    assert not found, ("op type names outside irrun/ops/ (ask the op class: Op.role, Op.bounds...): "
                       f"{found}")


def test_the_allow_lists_are_current():
    """An exception nobody needs any more is removed from the lists (so they only shrink)."""
    names = _type_names()
    for rel, allowed in (*SPEED_MEM.items(), *IR_FORMAT.items()):
        hits = _type_literals(ROOT / rel, names)
        assert Counter(allowed) - hits == Counter(), f"{rel}: fewer occurrences now, shrink the list"
    for rel, words in NOT_OP_TYPES.items():
        hits = _type_literals(ROOT / rel, names)
        assert set(words) <= set(hits), f"{rel}: {set(words) - set(hits)} no longer used"
def test_the_ir_format_layers_are_the_registrys():
    """The builder writes Parameter/Const/Result from the IR format's table (irrun/ir/records.py);
    the op registry must read each back as an op of that role."""
    from irrun.ir.records import FORMAT_LAYERS
    from irrun.types.tensor_info import Role

    assert set(FORMAT_LAYERS) == {Role.PARAMETER, Role.CONSTANT, Role.RESULT}
    for role, (type_name, version) in FORMAT_LAYERS.items():
        assert registry.resolve(type_name, version).role is role, (role, type_name, version)


def _op_modules() -> list[Path]:
    return sorted(p for p in (PKG / "ops").rglob("*.py"))


def _is_shared(name: str) -> bool:
    """Modules an op may import: the contract, the registry, the bounds machinery, the fast-path
    tables and the ``_helper`` modules."""
    last = name.rsplit(".", 1)[-1]
    return last in ("base", "registry", "bounds", "fast_paths") or last.startswith("_")


@pytest.mark.parametrize("path", _op_modules(), ids=lambda p: p.relative_to(PKG).as_posix())
def test_an_op_module_imports_no_sibling_op(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])      # irrun.ops[.sub]
    bad = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            target = import_target(package, node)
            mods = [target] if node.module else [f"{target}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            mods = [a.name for a in node.names]
        else:
            continue
        for m in mods:
            if m.startswith("irrun.ops.") and not _is_shared(m) \
                    and not (m.startswith("irrun.ops.tokenizers") and path.parent.name == "tokenizers"
                             and m.rsplit(".", 1)[-1] == "tokenizers"):
                bad.append(m)
    assert not bad, f"{path.name} imports sibling op modules {bad}: move the shared code to a _helper module"


def test_every_op_declares_its_category():
    """``irrun graph`` colours a layer by its op's ``category``; inputs, outputs and Consts are
    drawn by their role."""
    from irrun.debug.describe import CATEGORIES
    from irrun.types.tensor_info import Role
    registry.load_all()
    bad = [f"{cls.__name__}: {cls.category!r}" for cls in registry._REGISTRY.values()
           if cls.role not in (Role.PARAMETER, Role.RESULT, Role.CONSTANT) and cls.category not in CATEGORIES]
    assert not bad, f"ops without a category of irrun.debug.describe.CATEGORIES: {bad}"


def test_one_class_naming_rule():
    """An op class is named ``<Type><N>``: its type and the opset number of its ``version``
    (``Add1``, ``Loop5``); N may instead be the version in its spec page's name (MVN-1 is
    registered under opset2, as OpenVINO reads it). Extension ops have no N."""
    registry.load_all()
    bad = []
    for (t, v), cls in registry._REGISTRY.items():
        n = v[5:] if v.startswith("opset") else ""
        page = cls.spec.rsplit("-", 1)[-1].removesuffix(".html") if cls.spec else ""
        if cls.__name__ not in {t + n, t + page}:
            bad.append(f"{cls.__module__}.{cls.__name__} ({t}-{v})")
    assert not bad, f"op classes not named <Type><N>: {bad}"


def test_the_op_contract_holds_no_fast_path_hooks():
    """``Op`` is attributes, shape rule, kernel and bounds; what the runtime does faster with a few
    ops sits in :mod:`irrun.ops.fast_paths`, keyed by op class and found through the bases."""
    from irrun.ops import fast_paths
    from irrun.ops.base import Op
    hooks = ("rows_of", "row_args", "row_gather", "gather_rows", "weight_rows", "run_blocks",
             "take_rows", "run_exact")
    assert not [h for h in hooks if hasattr(Op, h)]
    registry.load_all()
    gather8, add, matmul = (registry._REGISTRY[k] for k in
                            (("Gather", "opset8"), ("Add", "opset1"), ("MatMul", "opset1")))
    assert fast_paths.lookup(fast_paths.ROW_GATHER, gather8.from_layer({})) is not None   # Gather-1's
    assert fast_paths.lookup(fast_paths.WEIGHT_BLOCKS, matmul.from_layer({})) is not None
    assert fast_paths.lookup(fast_paths.WEIGHT_BLOCKS, gather8.from_layer({})) is None
    from irrun.types.elements import TYPES
    from irrun.types.shapes import PartialShape
    from irrun.types.tensor_info import TensorInfo
    f32 = TYPES["f32"]
    ins = [TensorInfo(f32, PartialShape((4, 3))), TensorInfo(f32, PartialShape((1, 3)))]
    out = [TensorInfo(f32, PartialShape((4, 3)))]
    numpy_rule = fast_paths.rows_rule(add.from_layer({}))
    assert numpy_rule is not None and numpy_rule.rows_of(add.from_layer({}), ins, out) == (True, False)
    pdpd = add.from_layer({"auto_broadcast": "pdpd"})
    assert fast_paths.rows_rule(pdpd).rows_of(pdpd, ins, out) is None
