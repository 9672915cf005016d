"""Which port of the reference model holds the value a port of the candidate model holds.

The two IRs are usually the same network converted twice — e.g. an fp32 export and an NNCF
int4/int8 export — so most layers keep their output tensor names and layer names, but the
candidate has extra layers: the decompression chain NNCF puts on each weight (Const u4/u8 ->
Convert -> Subtract zero point -> Multiply scale -> Reshape -> Convert, where the fp32 model has
one Const) and FakeQuantize layers on activations. Only *activations* are matched (ports that
depend on a model input or the state); constant-derived ports are a layer's own weights, which is
exactly what the candidate is allowed to change.

Matching, in order:

1. by output tensor name (``<port names="...">``), unique on both sides;
2. by layer name and output index, when both layers have the same type;
3. structurally, in execution order: a still unmatched candidate port matches the unmatched
   reference port of the same layer type and output index whose activation inputs are the
   matched ones, skipping unmatched FakeQuantize/Convert layers in the candidate (quantization
   inserted between two matched layers).

A pair must have the same shape in the first run. Unmatched candidate layers (FakeQuantize, or
layers a converter fused differently) are not reported on their own: their error is added to
the matched layer that reads them (see :mod:`irrun.debug.accuracy.attribute`).
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from ...analysis.graph import inputs_of
from ...ops.registry import precision_of
from ...types.tensor_info import Precision
from .capture import Recording


def _inserted(rec, node) -> bool:
    """A layer conversion or quantization tools insert (Convert, FakeQuantize: ``Op.precision``),
    looked through when matching a candidate IR to its reference."""
    return bool(precision_of(_layer(rec, node).type) & Precision.INSERTED)


@dataclass
class Matching:
    pairs: dict = field(default_factory=dict)          # candidate port -> reference port
    how: Counter = field(default_factory=Counter)       # "tensor name" / "layer name" / "structure"
    unmatched: Counter = field(default_factory=Counter)  # candidate op type -> unmatched layers

    def layers(self) -> set:
        return {p[0] for p in self.pairs}


def _layer(rec: Recording, n):
    return rec.model.dag.nodes[n]["layer"]


def _ports(rec: Recording) -> list:
    """Activation ports in execution order."""
    return [(n, i) for n in rec.order for i in range(len(_layer(rec, n).outputs))
            if (n, i) in rec.arrays and rec.is_activation((n, i))]


def _shape_ok(cand: Recording, ref: Recording, c, r) -> bool:
    return cand.arrays[c].shape == ref.arrays[r].shape


def match(cand: Recording, ref: Recording, same_model: bool = False) -> Matching:
    """Pair the activation ports of two recordings (of two models run on the same inputs).
    ``same_model``: the two are the same file (precision simulation): every port with itself."""
    m = Matching()
    cports, rports = _ports(cand), _ports(ref)
    if same_model:
        m.pairs = {p: p for p in cports if p in ref.arrays}
        m.how["same model"] = len(m.pairs)
        return m
    taken: set = set()

    def pair(c, r, how: str) -> None:
        if r not in taken and _shape_ok(cand, ref, c, r):
            m.pairs[c] = r
            taken.add(r)
            m.how[how] += 1

    def unique_index(rec, ports, keys) -> dict:
        index: dict = {}
        for p in ports:
            for k in keys(rec, p):
                index.setdefault(k, []).append(p)
        return {k: v[0] for k, v in index.items() if len(v) == 1}

    by_tensor = lambda rec, p: [("t", nm) for nm in _layer(rec, p[0]).outputs[p[1]].names]   # noqa: E731
    by_layer = lambda rec, p: [(_layer(rec, p[0]).name, _layer(rec, p[0]).type.lower(), p[1])]  # noqa: E731
    for keys, how in ((by_tensor, "tensor name"), (by_layer, "layer name")):
        rindex, cindex = unique_index(ref, rports, keys), unique_index(cand, cports, keys)
        for k, c in cindex.items():
            if c not in m.pairs and k in rindex:
                pair(c, rindex[k], how)
    _structural(cand, ref, cports, rports, m, taken, pair)
    matched = m.layers()
    for n in {c[0] for c in cports} - matched:
        m.unmatched[_layer(cand, n).type] += 1
    return m


def _structural(cand, ref, cports, rports, m: Matching, taken: set, pair) -> None:
    """Pass 3: same type, same output index, same matched activation inputs."""
    def signature(rec, p, resolve):
        ins = []
        for r in inputs_of(rec.model.dag, p[0]):
            if not rec.is_activation(r):
                ins.append("const")
                continue
            got = resolve(r)
            if got is None:
                return None
            ins.append(got)
        return (_layer(rec, p[0]).type.lower(), p[1], tuple(ins))

    def resolve_cand(r, depth: int = 0):
        if r in m.pairs:
            return m.pairs[r]
        if depth < 8 and _inserted(cand, r[0]):
            acts = [x for x in inputs_of(cand.model.dag, r[0]) if cand.is_activation(x)]
            if len(acts) == 1:
                return resolve_cand(acts[0], depth + 1)
        return None

    index: dict = {}
    for p in rports:
        if p not in taken:
            sig = signature(ref, p, lambda r: r)
            if sig is not None:
                index.setdefault(sig, []).append(p)
    for c in cports:
        if c in m.pairs or _inserted(cand, c[0]):
            continue
        sig = signature(cand, c, resolve_cand)
        hits = [r for r in index.get(sig, ()) if r not in taken] if sig is not None else []
        if len(hits) == 1:
            pair(c, hits[0], "structure")
