"""Op implementations, one module per op (or tight family), registered by (type, version).

Importing this package imports every op module so that the registry is complete.
"""
from importlib import import_module
from pkgutil import iter_modules

from . import registry  # noqa: F401

for _m in iter_modules(__path__):
    if _m.name not in ("base", "registry"):
        import_module(f"{__name__}.{_m.name}")
