"""Which class implements a layer: (type, version) -> Op subclass, resolved as OpenVINO does.

A layer's ``version="opsetN"`` names an opset; OpenVINO looks the type up (case-insensitively) in
that opset's table and instantiates whatever version of the type the table holds
(ir-format.md §11). ``opsets.json`` is that table for OpenVINO 2026.4.1:
``resolve["opsetN"][Type] = "opsetK"``; implementations are registered under ``(Type, "opsetK")``.
Layers of ``version="extension"`` (openvino-tokenizers' ops, :mod:`irrun.ops.tokenizers`) are not
in any opset: they resolve by their exact type name to the class registered under
``(Type, "extension")``.
"""
from __future__ import annotations

import json
import pkgutil
from functools import cache
from importlib import import_module, resources

from ..errors import OpError, UnsupportedError
from .base import Op, Precision, Role

_REGISTRY: dict[tuple[str, str], type[Op]] = {}
_ALL_LOADED = False
#: modules of irrun.ops that hold no op (and every ``_helper`` module)
_NOT_OPS = frozenset({"base", "registry", "bounds"})

# IR spellings that differ from the C++ class names (the serializer writes the left ones).
_IR_SPELLING = {"const": "Constant", "relu": "Relu", "softmax": "Softmax", "prelu": "PRelu"}
#: how OpenVINO's serializer writes a Constant's type
# The reader's special cases (ir-format.md §11).
_OPSET1_TO_OPSET2 = {"MVN", "ROIPooling", "ReorgYolo"}
_EXPERIMENTAL = {
    "ExperimentalDetectronDetectionOutput", "ExperimentalDetectronGenerateProposalsSingleImage",
    "ExperimentalDetectronPriorGridGenerator", "ExperimentalDetectronROIFeatureExtractor",
    "ExperimentalDetectronTopKROIs", "GRUCell", "RNNCell", "Proposal",
}


@cache
def _index() -> dict[str, list[str]]:
    """Canonical type -> the op modules that register it (``index.json``; empty if missing)."""
    try:
        return json.loads(resources.files(__package__).joinpath("index.json").read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}


def load_all() -> None:
    """Import every op module (once), so that the registry holds every op."""
    global _ALL_LOADED
    if not _ALL_LOADED:
        for m in pkgutil.iter_modules(import_module(__package__).__path__):
            if m.name not in _NOT_OPS and not m.name.startswith("_"):
                import_module(f"{__package__}.{m.name}")
        _ALL_LOADED = True


def _lookup(canon: str, impl: str) -> type[Op] | None:
    """The registered class, importing its type's modules (by the index, else all) if needed."""
    cls = _REGISTRY.get((canon, impl))
    if cls is None:
        for module in _index().get(canon, ()):
            import_module(f"{__package__}.{module}")
        cls = _REGISTRY.get((canon, impl))
    if cls is None and not _ALL_LOADED:
        load_all()
        cls = _REGISTRY.get((canon, impl))
    return cls


def index() -> dict[str, list[str]]:
    """What ``index.json`` should hold: every registered type -> its modules (relative to this
    package, ``"tokenizers.bpe"`` for a sub-package's), sorted."""
    load_all()
    out: dict[str, set[str]] = {}
    for (t, _), cls in _REGISTRY.items():
        out.setdefault(t, set()).add(cls.__module__.removeprefix(f"{__package__}."))
    return {t: sorted(out[t]) for t in sorted(out)}


def register(cls: type[Op]) -> type[Op]:
    """Class decorator: register an Op subclass under ``(cls.type, cls.version)``."""
    key = (cls.type, cls.version)
    if key in _REGISTRY:
        raise RuntimeError(f"{cls.type}-{cls.version} is registered twice")
    _REGISTRY[key] = cls
    return cls


@cache
def _opsets() -> dict[str, dict[str, str]]:
    text = resources.files("irrun").joinpath("opsets.json").read_text(encoding="utf-8")
    return json.loads(text)["resolve"]


@cache
def canonical_names() -> dict[str, str]:
    """Every op type OpenVINO knows (any opset) and the IR's other spellings, lowercased -> as
    OpenVINO spells it: type names in IR files and on the command line are case-insensitive."""
    names = {t.lower(): t for table in _opsets().values() for t in table}
    names.update(_IR_SPELLING)
    return names


def canonical_type(type_name: str) -> str:
    """``"const"`` -> ``"Constant"``, ``"mvn"`` -> ``"MVN"``; unknown names are returned as given."""
    return canonical_names().get(type_name.lower(), type_name)


def resolve(type_name: str, version: str) -> type[Op]:
    """The Op class for a layer, or UnsupportedError/OpError saying what irrun has instead."""
    canon = canonical_type(type_name)
    ver = version.strip().lower()
    if ver == "opset1" and canon in _OPSET1_TO_OPSET2:
        ver = "opset2"
    elif ver in ("experimental", "extension") and canon in _EXPERIMENTAL:
        ver = "opset6"
    elif ver == "extension" and (cls := _lookup(type_name, "extension")) is not None:
        return cls
    table = _opsets().get(ver)
    impl = table.get(canon) if table is not None else None
    if impl is None:
        have = versions_of(canon)
        known = f"irrun implements {canon} as: {', '.join(have)}" if have else \
            f"irrun does not implement {type_name}"
        if table is None:
            raise UnsupportedError(f'unsupported op {type_name} version="{version}" '
                                   f"(not a standard opset; custom/extension op?); {known}")
        raise OpError(f"opset {ver} does not contain an op of type {type_name} "
                      f"(OpenVINO refuses this layer); {known}")
    cls = _lookup(canon, impl)
    if cls is None:
        have = versions_of(canon)
        raise UnsupportedError(
            f"unsupported op {canon}-{impl} (version=\"{version}\"); "
            + (f"irrun implements {canon} versions: {', '.join(have)}" if have
               else f"irrun does not implement {canon} in any version"))
    return cls


def _version_key(version: str) -> int:
    """``"opset8"`` -> 8; ``"extension"`` sorts after every opset."""
    return int(version[5:]) if version[5:].isdigit() else 1 << 30


def versions_of(canon: str) -> list[str]:
    load_all()
    return sorted((v for t, v in _REGISTRY if t == canon), key=_version_key)


def classes_of(type_name: str) -> tuple[type[Op], ...]:
    """Every registered version of a layer type as the IR spells it (empty for unknown types), for
    code that has a layer record but no op and asks what the op declares."""
    return _classes(canonical_type(type_name))


@cache
def _classes(canon: str) -> tuple[type[Op], ...]:
    """Every registered version of a canonical type (importing its modules if needed)."""
    if not any(t == canon for t, _ in _REGISTRY):
        for module in _index().get(canon, ()):
            import_module(f"{__package__}.{module}")
    if not any(t == canon for t, _ in _REGISTRY) and not _ALL_LOADED:
        load_all()
    return tuple(cls for (t, _), cls in _REGISTRY.items() if t == canon)


def role_of(type_name: str) -> Role:
    """The role (``Op.role``) of a layer type as the IR spells it (``"const"``, ``"Parameter"``...),
    for code that has a layer record but no op: :attr:`Role.COMPUTE` for unknown types."""
    roles = {cls.role for cls in classes_of(type_name)}
    return roles.pop() if len(roles) == 1 else Role.COMPUTE


def precision_of(type_name: str) -> Precision:
    """What the versions of a layer type declare as ``Op.precision`` (none for unknown types)."""
    out = Precision.NONE
    for cls in classes_of(type_name):
        out |= cls.precision
    return out


def all_ops() -> list[type[Op]]:
    """Every registered op class, sorted by type and version (for ``irrun ops``)."""
    load_all()
    return [_REGISTRY[k] for k in sorted(_REGISTRY, key=lambda k: (k[0].lower(), _version_key(k[1])))]




def write_index() -> str:
    """Rewrite ``index.json`` from the registry (``python -m tools.ops.make_op_index``); one line
    per type."""
    path = str(resources.files(__package__).joinpath("index.json"))
    body = ",\n".join(f"{json.dumps(t)}: {json.dumps(m)}" for t, m in index().items())
    with open(path, "w", encoding="utf-8") as f:
        f.write("{\n" + body + "\n}\n")
    return path
