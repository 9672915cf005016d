"""Write docs/api.md, the Python API reference, from the public objects' signatures and docstrings.

    python -m tools.docs.make_api_docs          # rewrites docs/api.md (tests/test_api.py fails while it is stale)

The public API is what ``irrun.__all__`` names, the public methods and properties of
:class:`irrun.Model`, :mod:`irrun.debug`'s ``trace``/``load_tensors``, and :mod:`irrun.distributed`'s
``run_many``/``local_cluster`` with their results.
"""
from __future__ import annotations

import inspect
import re

from tools import ROOT

OUT = ROOT / "docs" / "api.md"

HEAD = """# Python API reference

Generated from the docstrings by `python -m tools.docs.make_api_docs`; a test keeps it current.
README.md's *Library* section shows the API at work.

"""


def _doc(obj) -> str:
    return inspect.cleandoc(obj.__doc__ or "(no docstring)")


def _sig(name: str, fn) -> str:
    try:
        text = f"{name}{inspect.signature(fn)}"
    except (TypeError, ValueError):
        return name
    return re.sub(r"(: |-> )'([^']*)'", r"\1\2", text)     # postponed annotations are strings


def _section(title: str, body: str) -> str:
    return f"### `{title}`\n\n{body}\n"


def generate() -> str:
    import irrun
    from irrun import debug

    parts = [HEAD, "## Functions\n"]
    for name in ("read_model", "check", "set_threads"):
        parts.append(_section(_sig(f"irrun.{name}", getattr(irrun, name)), _doc(getattr(irrun, name))))
    parts.append("## `irrun.Model`\n\n" + _doc(irrun.Model) + "\n")
    for name, member in inspect.getmembers(irrun.Model):
        if name.startswith("_") and name != "__repr__" or name in ("check_input", "check_signature"):
            continue
        if isinstance(member, property):
            parts.append(_section(f"Model.{name}", _doc(member)))
        elif inspect.isfunction(member) and name != "__repr__":
            parts.append(_section(_sig(f"Model.{name}", member).replace("(self, ", "(").replace("(self)", "()"),
                                  _doc(member)))
    parts.append("## `irrun.PortSpec`\n\n" + _doc(irrun.PortSpec) + "\n")
    parts.append("## `irrun.debug`\n")
    for name in ("trace", "load_tensors"):
        fn = getattr(debug, name)
        parts.append(_section(_sig(f"irrun.debug.{name}", fn), _doc(fn)))
    from irrun import distributed
    parts.append("## `irrun.distributed` (many inputs on Dask: `pip install 'irrun[dask]'`)\n")
    for name in ("run_many", "local_cluster"):
        fn = getattr(distributed, name)
        parts.append(_section(_sig(f"irrun.distributed.{name}", fn), _doc(fn)))
    for name in ("BatchResult", "Failure"):
        parts.append(_section(f"irrun.distributed.{name}", _doc(getattr(distributed, name))))
    parts.append("## Errors\n")
    for name in ("IrrunError", "ModelFileError", "GraphError", "ShapeError", "ExecutionError",
                 "MemoryBudgetError", "InputError", "UnsupportedError", "InternalError"):
        cls = getattr(irrun, name)
        base = cls.__mro__[1].__name__
        parts.append(_section(f"irrun.{name}({base})", f"{_doc(cls)} Exit code {cls.exit_code}."))
    return "\n".join(parts)


if __name__ == "__main__":
    OUT.write_text(generate(), encoding="utf-8")
    print(f"wrote {OUT}")
