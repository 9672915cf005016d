"""Op implementations, one module per op (or tight family), registered by (type, version).

Modules are imported when a model first needs one of their types: :func:`registry.resolve` finds
the modules of a type in the checked-in ``index.json`` (``python -m tools.ops.make_op_index``
rewrites it; a test keeps it current). A type the index does not know, and ``irrun ops``, which
lists everything, import every module (:func:`registry.load_all`), so no op is ever missed; the
index only keeps ``import irrun`` and a model's first read lean.

Code several ops share lives in the ``_helper`` modules (``_numerics``, ``_broadcast``, ``_window``,
``_slicing``, ``_indices``...), which hold no op; an op module imports ``base``, ``registry`` and
those, never a sibling op (tests/test_architecture.py).
"""
from . import registry  # noqa: F401
