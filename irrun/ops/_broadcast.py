"""The one broadcasting rule of the element-wise ops (``auto_broadcast`` numpy / none / pdpd),
OpenVINO's ``broadcast_merge`` on intervals, used by ``infer`` on partial shapes and by ``run`` on
concrete ones so that a run-time mismatch fails with the same text."""
from __future__ import annotations

import numpy as np

from ..errors import OpError
from ..types.shapes import Dim, PartialShape, broadcast_merge
from .base import Attr

ONE = Dim(1, 1)


#: ``auto_broadcast`` (OpenVINO's AutoBroadcastType names; "explicit" is a synonym of "none").
AUTO_BROADCAST = Attr("enum", "numpy", choices=("numpy", "none", "explicit", "pdpd"))


def broadcast_shapes(a: PartialShape, b: PartialShape, mode: str,
                     message: str = "Argument shapes are inconsistent.") -> PartialShape:
    """The output shape of an element-wise op on shapes ``a`` and ``b`` (OpenVINO's
    ``broadcast_merge_into(a, b)``), raising ``message`` when they do not broadcast.

    * numpy: right-aligned, per dim :func:`~irrun.types.shapes.broadcast_merge`; a dynamic rank gives a dynamic rank.
    * none (explicit): same rank, dims intersect.
    * pdpd: ``b`` aligned at axis 0 of ``a`` (what OpenVINO's IR reader builds: the attribute has
      no axis), missing trailing dims are 1; ``b`` must not be bigger than ``a``; the output is
      ``a`` refined by ``b``.
    """
    if mode in ("none", "explicit"):
        if a.rank is None or b.rank is None:
            return b if a.rank is None else a
        dims = [x.intersect(y) for x, y in zip(a, b)] if a.rank == b.rank else [None]
    elif mode == "numpy":
        if a.rank is None or b.rank is None:
            return PartialShape(None)
        n = max(a.rank, b.rank)
        ad = [ONE] * (n - a.rank) + list(a)
        bd = [ONE] * (n - b.rank) + list(b)
        dims = [broadcast_merge(x, y) for x, y in zip(ad, bd)]
    else:
        if a.rank is None or b.rank is None:
            return PartialShape(None)
        if b.rank > a.rank:
            raise OpError(message)
        dims = list(a)
        for i, y in enumerate(b):
            x = a[i]
            dims[i] = None if x.is_static and y.is_static and y.lo > x.lo else broadcast_merge(x, y)
    known = [d for d in dims if d is not None]
    if len(known) < len(dims):
        raise OpError(message)
    return PartialShape(known)


def numpy_shape(*shapes: tuple[int, ...]) -> tuple[int, ...] | None:
    """``np.broadcast_shapes(*shapes)`` for concrete shapes, on plain ints (NumPy's version builds
    arrays: several times slower for a kernel's small shapes); None when they do not broadcast."""
    out = shapes[0]
    for b in shapes[1:]:
        a = out
        if len(a) < len(b):
            a, b = b, a
        k = len(a) - len(b)
        merged = list(a)
        for i, y in enumerate(b):
            x = a[k + i]
            if x != y:
                if x == 1:
                    merged[k + i] = y
                elif y != 1:
                    return None
        out = tuple(merged)
    return out


def align_pdpd(b: np.ndarray, rank: int) -> np.ndarray:
    """View ``b`` with trailing 1s up to ``rank`` dims, for pdpd broadcasting against axis 0."""
    return b.reshape(b.shape + (1,) * (rank - b.ndim))
