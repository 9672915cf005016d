"""Break a valid IR in exactly one place, in a way ``irrun check`` must report.

    python -m tools.fuzz.mutate_ir MODEL.xml --kind dim --seed 3 -o OUT.xml   # writes OUT.xml + OUT.bin
    python -m tools.fuzz.mutate_ir --survey 20 tests/fixtures                 # detection rate per kind

The tool works on the XML alone (lxml, no irrun), so what it breaks is defined by the file, not
by irrun's inference. Each kind is defined so that the mutant is *wrong* whenever the original
was right (an IR written by OpenVINO) — some naive mutations are legitimately invisible and are
excluded by construction:

* ``dim``: one declared dim of one port of a live layer, that was static, gets another
  non-negative value. Not a ``-1`` target (a declared -1 fits any dim), not a ``-1`` source
  (OpenVINO writes every dynamic or interval dim as -1, so the true size is unknown and a new
  value may be right).
* ``rank``: a port with at least one dim loses its last dim or repeats it. Ports without dims are
  not used: OpenVINO writes a dynamic-rank port the same way as a scalar one.
* ``precision``: a port's precision becomes another concrete element type. Ports declared
  UNSPECIFIED (dynamic) are not used, and UNSPECIFIED is never the new value (it fits anything);
  nor are output ports that only Results read, or nothing (``check`` warns of those: OpenVINO
  ignores declared precisions, and nothing computes with the value).
* ``edge-source``: an edge is re-pointed to an output port of another layer whose declared dims
  or precision are *incompatible* with the consumer's declared input (a different rank, a static
  dim that differs, or a different precision): moving it to an identically declared port would
  change nothing the file can show. The new producer is never fed by the consumer (no cycle).
* ``edge-target``: an edge is moved to another input port of the same consumer, which is then
  fed twice while the original port is fed by nothing.
* ``const-offset``: a Const with bytes (size > 0) gets an offset that puts them past the end of
  the .bin.

In every case the checker must report an *error* naming ``Mutant.layer_id``: the consumer for
the port and edge kinds (its declared input no longer matches what feeds it), the layer itself
for ``dim``/``rank``/``precision`` on an output port, the Const for ``const-offset``. For ``dim``
and ``edge-source`` the detection also needs the checker to know the affected dims as exactly as
OpenVINO did when it wrote the file (``Mutant.relies_on`` names those output ports): a dim that
OpenVINO derives through value bounds of a ShapeOf sub-graph is static in the file, and a
checker that only knows ``?`` there cannot tell 12 from 2.
"""
from __future__ import annotations

import argparse
import json
import random
import shutil
import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from lxml import etree

KINDS = ("dim", "rank", "precision", "edge-source", "edge-target", "const-offset")
SINKS = ("result", "assign")
PRECISIONS = ("FP64", "FP32", "FP16", "BF16", "I64", "I32", "I16", "I8", "U64", "U32", "U16",
              "U8", "BOOL")
_CANON = {"f64": "FP64", "f32": "FP32", "f16": "FP16", "bf16": "BF16", "boolean": "BOOL",
          "u1": "BIN", "dynamic": "UNSPECIFIED", "undefined": "UNSPECIFIED"}


def canon(precision: str | None) -> str | None:
    return None if precision is None else _CANON.get(precision.lower(), precision.upper())


@dataclass
class Mutant:
    kind: str
    layer_id: str          # the layer the checker must name in an error
    description: str
    xml: bytes
    #: (layer id, output port id) whose exact dims the detection of a ``dim`` or ``edge-source``
    #: mutant relies on: irrun must infer them as precisely as OpenVINO declared them
    relies_on: tuple[tuple[str, str], ...] = ()


class _IR:
    """The top-level graph of an IR file as lxml elements, with liveness and reachability."""

    def __init__(self, xml_path: Path):
        parser = etree.XMLParser(resolve_entities=False, load_dtd=False, no_network=True)
        self.root = etree.parse(str(xml_path), parser).getroot()
        self.layers = {le.get("id"): le for le in self.root.find("layers").iterfind("layer")}
        self.edges = list(self.root.find("edges").iterfind("edge"))
        self.succ, self.pred = defaultdict(set), defaultdict(set)
        for e in self.edges:
            self.succ[e.get("from-layer")].add(e.get("to-layer"))
            self.pred[e.get("to-layer")].add(e.get("from-layer"))
        sinks = [i for i, le in self.layers.items() if le.get("type", "").lower() in SINKS]
        self.live = self.closure(sinks, self.pred)

    @staticmethod
    def closure(start, step) -> set:
        seen, todo = set(start), list(start)
        while todo:
            for m in step[todo.pop()]:
                if m not in seen:
                    seen.add(m)
                    todo.append(m)
        return seen

    def ports(self, lid: str, tag: str) -> list:
        sect = self.layers[lid].find(tag)
        return list(sect.iterfind("port")) if sect is not None else []

    def port(self, lid: str, pid: str):
        return next((p for t in ("input", "output") for p in self.ports(lid, t) if p.get("id") == pid), None)

    def computed_with(self, lid: str, pid: str) -> bool:
        """Does a layer other than a Result read output port ``pid`` of layer ``lid``? (A stale
        precision on any other output is a warning: ``irrun check``'s rule in the README.)"""
        return any(e.get("from-layer") == lid and e.get("from-port") == pid
                   and self.layers[e.get("to-layer")].get("type", "").lower() != "result"
                   for e in self.edges if e.get("to-layer") in self.layers)

    def live_ports(self):
        for lid in sorted(self.live, key=int):
            for tag in ("input", "output"):
                for p in self.ports(lid, tag):
                    yield lid, tag, p

    def text(self) -> bytes:
        return etree.tostring(self.root, xml_declaration=True, encoding="UTF-8")


def _dims(port) -> list[int]:
    return [int(d.text) for d in port.iterfind("dim")]


def _incompatible(a, b) -> bool:
    """Can no tensor match both port declarations?"""
    da, db = _dims(a), _dims(b)
    pa, pb = canon(a.get("precision")), canon(b.get("precision"))
    return (len(da) != len(db) or any(x != -1 and y != -1 and x != y for x, y in zip(da, db))
            or (pa not in (None, "UNSPECIFIED") and pb not in (None, "UNSPECIFIED") and pa != pb))


def _where(ir: _IR, lid: str) -> str:
    le = ir.layers[lid]
    return f'layer {lid} "{le.get("name")}" ({le.get("type")})'


def mutate(xml_path: str | Path, kind: str, rng: random.Random, bin_size: int | None = None) -> Mutant | None:
    """One mutation of ``kind`` chosen with ``rng``, or None when the file offers no place for it."""
    xml_path = Path(xml_path)
    ir = _IR(xml_path)
    if kind == "dim":
        spots = [(lid, tag, p, i) for lid, tag, p in ir.live_ports()
                 for i, d in enumerate(_dims(p)) if d >= 0]
        if not spots:
            return None
        lid, tag, p, i = rng.choice(spots)
        dim = list(p.iterfind("dim"))[i]
        old = int(dim.text)
        new = rng.choice([v for v in range(0, old + 4) if v != old])
        dim.text = str(new)
        src = (lid, p.get("id")) if tag == "output" else next(
            (e.get("from-layer"), e.get("from-port")) for e in ir.edges
            if e.get("to-layer") == lid and e.get("to-port") == p.get("id"))
        return Mutant(kind, lid, f"{_where(ir, lid)} {tag} port {p.get('id')}: dim {i} {old} -> {new}",
                      ir.text(), (src,))
    if kind == "rank":
        spots = [(lid, tag, p) for lid, tag, p in ir.live_ports() if _dims(p)]
        if not spots:
            return None
        lid, tag, p = rng.choice(spots)
        dims = list(p.iterfind("dim"))
        if rng.random() < 0.5:
            last = dims[-1]
            p.remove(last)
            what = f"last dim {last.text} dropped"
        else:
            p.insert(p.index(dims[-1]) + 1, etree.fromstring(etree.tostring(dims[-1])))
            what = f"last dim {dims[-1].text} repeated"
        return Mutant(kind, lid, f"{_where(ir, lid)} {tag} port {p.get('id')}: {what}", ir.text())
    if kind == "precision":
        spots = [(lid, tag, p) for lid, tag, p in ir.live_ports()
                 if canon(p.get("precision")) not in (None, "UNSPECIFIED")
                 and (tag == "input" or ir.computed_with(lid, p.get("id")))]
        if not spots:
            return None
        lid, tag, p = rng.choice(spots)
        old = p.get("precision")
        new = rng.choice([q for q in PRECISIONS if q != canon(old)])
        p.set("precision", new)
        return Mutant(kind, lid, f"{_where(ir, lid)} {tag} port {p.get('id')}: precision {old} -> {new}",
                      ir.text())
    if kind == "edge-source":
        outs = [(lid, p) for lid in ir.layers for p in ir.ports(lid, "output")]
        edges = [e for e in ir.edges if e.get("to-layer") in ir.live]
        rng.shuffle(edges)
        for e in edges:
            v, q = e.get("to-layer"), e.get("to-port")
            dst = ir.port(v, q)
            if dst is None:
                continue
            below = ir.closure([v], ir.succ)          # v and everything it feeds
            cands = [(w, p) for w, p in outs if w not in below and _incompatible(p, dst)]
            if cands:
                w, p = rng.choice(cands)
                old = f"{e.get('from-layer')}:{e.get('from-port')}"
                e.set("from-layer", w)
                e.set("from-port", p.get("id"))
                return Mutant(kind, v, f"edge {old} -> {v}:{q} now comes from {w}:{p.get('id')}",
                              ir.text(), ((w, p.get("id")),))
        return None
    if kind == "edge-target":
        edges = [e for e in ir.edges if e.get("to-layer") in ir.live
                 and len(ir.ports(e.get("to-layer"), "input")) > 1]
        if not edges:
            return None
        e = rng.choice(edges)
        v, q = e.get("to-layer"), e.get("to-port")
        q2 = rng.choice([p.get("id") for p in ir.ports(v, "input") if p.get("id") != q])
        e.set("to-port", q2)
        return Mutant(kind, v, f"edge into {_where(ir, v)} moved from input port {q} to {q2}",
                      ir.text())
    if kind == "const-offset":
        if bin_size is None:
            b = xml_path.with_suffix(".bin")
            bin_size = b.stat().st_size if b.exists() else 0
        spots = [lid for lid in sorted(ir.live, key=int)
                 if ir.layers[lid].get("type", "").lower() in ("const", "constant")
                 and ir.layers[lid].find("data") is not None
                 and int(ir.layers[lid].find("data").get("size", "0")) > 0]
        if not spots:
            return None
        lid = rng.choice(spots)
        data = ir.layers[lid].find("data")
        size, old = int(data.get("size")), data.get("offset")
        new = bin_size - size + rng.randint(1, size + 64)
        data.set("offset", str(new))
        return Mutant(kind, lid, f"{_where(ir, lid)}: offset {old} -> {new} (size {size}, "
                                 f".bin {bin_size} bytes)", ir.text())
    raise ValueError(f"unknown mutation kind {kind!r} (kinds: {', '.join(KINDS)})")


def write(mutant: Mutant, src_xml: str | Path, out_xml: str | Path) -> Path:
    """Write the mutant's XML and a copy of the original .bin beside it."""
    out_xml = Path(out_xml)
    out_xml.write_bytes(mutant.xml)
    src_bin = Path(src_xml).with_suffix(".bin")
    if src_bin.exists():
        shutil.copyfile(src_bin, out_xml.with_suffix(".bin"))
    return out_xml


def survey(root: Path, per_kind: int, seed: int) -> int:
    """Mutate every IR under ``root`` ``per_kind`` times per kind; print what irrun missed."""
    import tempfile

    import irrun
    rng = random.Random(seed)
    stats = {k: [0, 0] for k in KINDS}
    missed = []
    with tempfile.TemporaryDirectory() as tmp:
        for xml in sorted(root.rglob("*.xml")):
            for kind in KINDS:
                for _ in range(per_kind):
                    m = mutate(xml, kind, rng)
                    if m is None:
                        continue
                    out = write(m, xml, Path(tmp) / "m.xml")
                    errors = [f for f in irrun.check(str(out)) if f.severity == "error"]
                    stats[kind][0] += 1
                    if any(f.layer_id == m.layer_id for f in errors):
                        stats[kind][1] += 1
                    else:
                        missed.append(f"{xml}: {m.description}")
    for k, (n, hit) in stats.items():
        print(f"{k:13} {hit}/{n} mutants reported with the mutated layer named")
    for line in missed:
        print("MISSED", line)
    return 1 if missed else 0


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("model", help="an IR .xml (or, with --survey, a directory of them)")
    p.add_argument("--kind", choices=KINDS, default="dim")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("-o", "--output", help="where to write the mutant (OUT.xml + OUT.bin)")
    p.add_argument("--survey", type=int, metavar="N", help="N mutants per kind per IR; report misses")
    a = p.parse_args(argv)
    if a.survey:
        return survey(Path(a.model), a.survey, a.seed)
    m = mutate(a.model, a.kind, random.Random(a.seed))
    if m is None:
        print(f"{a.model} offers no place for a {a.kind} mutation", file=sys.stderr)
        return 1
    if a.output:
        write(m, a.model, a.output)
    print(json.dumps({"kind": m.kind, "layer_id": m.layer_id, "description": m.description}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
