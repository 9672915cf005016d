"""Einsum-7: Einstein summation over the inputs as ``equation`` says (``np.einsum``).

The equation is parsed as OpenVINO parses it (einsum.cpp, measured on 2026.4.1): subscripts split
at ``->`` and ``,``; letters and at most one ``...`` per subscript; **no blanks** (the spec allows
them, but only OpenVINO's C++ constructor strips them, not its IR reader: a blank is refused);
implicit mode outputs the labels that no *other* subscript has, sorted by character code,
``...`` first — so a label repeated inside one subscript stays twice: the spec's ``dbbc,ca`` (which
it equates with ``dbbc,ca->ad``) becomes ``abbd``, which OpenVINO cannot evaluate; irrun refuses it.
Shapes follow OpenVINO's rule: a label repeated inside one input takes the diagonal
(dims merge), the same label in different inputs and the ellipsis dims broadcast (NumPy rules).
An output ellipsis that covers nothing is dropped; ellipsis dims missing from an explicit output
are summed (what the CPU plugin does). A label repeated in the output is refused (OpenVINO infers
a shape but cannot evaluate it).

Floats f16/bf16 are summed in f32 (as the CPU plugin does: 3000 x 0.01 in f16 gives 29.98);
integers are summed exactly in 64 bits and saturated to the element type (the CPU plugin
saturates i8/u8 alike; it computes integers in f32, so it loses digits past 2**24 where irrun
does not). OpenVINO's reference evaluator has no Einsum kernel; the CPU plugin is the oracle.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import OpError
from ..limits.memory import check_alloc
from ..types.shapes import DYN, Dim, PartialShape
from ._broadcast import broadcast_shapes
from .base import Attr, Op, TensorInfo, spec_url
from .registry import register

ELLIPSIS = "..."
_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
_BAD_INPUT = ("Input subscript of Einsum equation must consist of either only alphabetic letters or "
              "alphabetic letters with one ellipsis.")


def _correct(sub: str) -> bool:
    """OpenVINO's ``is_subscript_correct``: ASCII letters and at most one ``...``."""
    i, met = 0, False
    while i < len(sub):
        if not met and sub.startswith(ELLIPSIS, i):
            met, i = True, i + 3
        elif sub[i] in _LETTERS:
            i += 1
        else:
            return False
    return True


def labels_of(sub: str) -> list[str]:
    """``"a...bb"`` -> ``["a", "...", "b", "b"]`` (the subscript is already checked)."""
    out, i = [], 0
    while i < len(sub):
        if sub.startswith(ELLIPSIS, i):
            out.append(ELLIPSIS)
            i += 3
        else:
            out.append(sub[i])
            i += 1
    return out


@dataclass(frozen=True)
class Equation:
    inputs: tuple[tuple[str, ...], ...]   # the labels of each input
    output: tuple[str, ...]


def parse_equation(equation: str) -> Equation:
    """Split and check ``equation``; recover the output of an implicit one."""
    lhs, arrow, rhs = equation.partition("->")
    subs = lhs.split(",")     # "ij," has two subscripts (measured: the count check fails)
    for s in subs:
        if not _correct(s):
            raise OpError(_BAD_INPUT)
    if arrow:
        if not _correct(rhs):
            raise OpError("Output subscript of Einsum equation must consist of either only alphabetic "
                          "letters or alphabetic letters with one ellipsis.")
        out = labels_of(rhs)
    else:
        out = sorted((lab for i, s in enumerate(subs) for lab in labels_of(s)
                      if lab != ELLIPSIS and not any(lab in t for j, t in enumerate(subs) if j != i)))
        if any(ELLIPSIS in s for s in subs):
            out = [ELLIPSIS] + out
    return Equation(tuple(tuple(labels_of(s)) for s in subs), tuple(out))


def einsum_shape(eq: Equation, shapes: list[PartialShape]) -> PartialShape:
    """OpenVINO's Einsum shape rule (einsum_shape_inference.hpp), shared by infer and run."""
    if len(eq.inputs) != len(shapes):
        raise OpError("Equation must contain a number of subscripts equal to a number of Einsum inputs.")
    out_ellipsis = ELLIPSIS in eq.output
    known: dict[str, PartialShape] = {}
    for labels, shape in zip(eq.inputs, shapes):
        has_ellipsis = ELLIPSIS in labels
        if shape.dims is None:              # a dynamic rank
            if has_ellipsis and out_ellipsis:
                return PartialShape(None)
            for lab in labels:
                known.setdefault(lab, PartialShape([DYN]))
            continue
        rank = len(shape.dims)
        if not (rank >= len(labels) - 1 if has_ellipsis else rank == len(labels)):
            raise OpError("Input rank must be greater or equal to a number of labels in the "
                          "corresponding input subscript.")
        own: dict[str, Dim] = {}
        pos = 0
        for lab in labels:
            if lab == ELLIPSIS:
                n = rank - len(labels) + 1
                sub = PartialShape(shape.dims[pos:pos + n])
                known[lab] = sub if lab not in known else broadcast_shapes(
                    known[lab], sub, "numpy", "Input dimensions labeled with ellipsis for Einsum must be broadcastable.")
                pos += n
                continue
            d = shape[pos]
            if lab in own:
                d = own[lab].intersect(d)
                if d is None:
                    raise OpError("Different input dimensions indicated by the repeated labels within "
                                  "single input node for Einsum must be compatible.")
            own[lab] = d
            pos += 1
        for lab, d in own.items():
            known[lab] = PartialShape([d]) if lab not in known else broadcast_shapes(
                known[lab], PartialShape([d]), "numpy",
                "Different input dimensions indicated by the same labels for Einsum must be broadcastable.")
    dims: list[Dim] = []
    for lab in eq.output:
        if lab == ELLIPSIS and lab not in known:
            continue
        if lab not in known:
            raise OpError("Label in output subscript of Einsum equation must enter at least one input subscript.")
        dims.extend(known[lab])
    return PartialShape(dims)


def numpy_equation(eq: Equation, ranks: list[int]) -> str:
    """The equation for ``np.einsum`` with every ellipsis dim given a letter of its own (right-
    aligned across inputs), so that an output without ``...`` sums those dims as OpenVINO does."""
    free = [c for c in _LETTERS if not any(c in labels for labels in (*eq.inputs, eq.output))]
    covered = [r - len(labels) + 1 if ELLIPSIS in labels else 0 for labels, r in zip(eq.inputs, ranks)]
    width = max(covered, default=0)
    if width > len(free):
        raise OpError(f"irrun's Einsum runs out of letters for {width} ellipsis dims", unsupported=True)
    dots = "".join(free[:width])
    subs = ["".join(dots[width - n:] if lab == ELLIPSIS else lab for lab in labels)
            for labels, n in zip(eq.inputs, covered)]
    return ",".join(subs) + "->" + "".join(dots if lab == ELLIPSIS else lab for lab in eq.output)


def einsum(eq: Equation, *xs: np.ndarray) -> np.ndarray:
    dtype = xs[0].dtype
    work: type[np.generic] | np.dtype
    if dtype.kind in "iu":
        work = np.uint64 if dtype == np.uint64 else np.int64
    else:
        work = np.float32 if dtype.itemsize < 4 or dtype.kind == "V" else dtype
    r = np.einsum(numpy_equation(eq, [x.ndim for x in xs]), *(x.astype(work, copy=False) for x in xs),
                  optimize=len(xs) > 1)
    if dtype.kind in "iu" and dtype.itemsize < 8:
        info = np.iinfo(dtype)
        r = np.clip(r, info.min, info.max)
    return np.asarray(r).astype(dtype, copy=False)


@register
class Einsum7(Op):
    """Any number of inputs of one numeric type."""
    category = "linear"

    type, version = "Einsum", "opset7"
    spec = spec_url("matrix/einsum-7")
    attrs = {"equation": Attr("str", required=True)}
    num_inputs = (1, None)
    restrictions = "at most 52 labels in all (NumPy's letters)"

    def __init__(self, **attrs):
        super().__init__(**attrs)
        self.eq = parse_equation(self.equation)

    def infer(self, inputs):
        et = inputs[0].etype
        if not (et.is_float or et.is_integer):
            raise OpError("The input type for Einsum operation must be numeric.", port="input 0")
        for i, x in enumerate(inputs[1:], 1):
            if not (x.etype == et or x.etype.is_dynamic):
                raise OpError("Inputs to Einsum operation must have the same type.", port=f"input {i}")
        shape = einsum_shape(self.eq, [x.shape for x in inputs])
        if len(set(self.eq.output) - {ELLIPSIS}) < len([lab for lab in self.eq.output if lab != ELLIPSIS]):
            raise OpError(f"output subscript {''.join(self.eq.output)} repeats a label (OpenVINO infers a shape "
                          "but cannot evaluate it)", openvino_loads=True)
        return [TensorInfo(et, shape)]

    def run(self, *xs):
        shape = einsum_shape(self.eq, [PartialShape(x.shape) for x in xs])   # run-time shapes obey the rule
        check_alloc(shape.to_tuple(), xs[0].dtype)
        return [einsum(self.eq, *xs)]
