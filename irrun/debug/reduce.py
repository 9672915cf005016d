"""``irrun reduce``: shrink a model to the smallest sub-graph that still shows a disagreement —
something a user can attach to a bug report (Polygraphy's ``debug reduce``, for OpenVINO IR).

The **subject** is what is suspected, the **trusted** side what it is measured against:

* ``--reference OTHER.xml``: the subject is MODEL run in irrun, trusted is OTHER run in irrun
  (ports paired as ``irrun compare`` pairs them, :mod:`irrun.debug.accuracy.match`);
* ``--reference openvino:DEVICE[,KEY=VALUE...]``: the subject is MODEL on that OpenVINO device
  configuration, run as it is (no outputs added, so the plugin fuses as it would for a user);
  trusted is irrun's f32 run of MODEL;
* ``--check "CMD"``: the subject is whatever CMD runs; its exit status says "still bad"
  (non-zero, a crash or a timeout) or "good" (0).

A candidate sub-graph is a set of MODEL's activation layers (those that depend on its inputs).
It becomes a standalone IR: the layers with their weights (every constant sub-graph they read,
with the original bytes), a Parameter for each floating-point tensor that reaches them from
outside the set, fed with the *trusted* value recorded there (so error made upstream does not
come in) — and for each of MODEL's own inputs it reads, whatever its type (were token ids a
Const, OpenVINO would fold the whole model at compile time) — a Const for each other integer or
boolean one (shapes, indices, masks: their recorded value), and a Result for each output no
layer of the set reads. It is *bad* when its worst output is at least ``threshold`` (relative
L2) away from the trusted value recorded at that port (default threshold: half the whole model's
disagreement), or when CMD says so.

The search, each step keeping a bad sub-graph: the shortest prefix of the execution order that is
bad (bisection), then the shortest suffix of that prefix (bisection), then delta debugging
(Zeller's ddmin complement step: remove halves, quarters, ... down to single layers while the rest
stays bad). Bisection assumes the disagreement, once made, stays visible downstream; when it does
not, delta debugging still shrinks from whatever the bisection kept.
"""
from __future__ import annotations

import json
import math
import os
import shlex
import subprocess
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..analysis.graph import inputs_of
from ..errors import InputError, printable
from ..io import writers
from ..ir.builder import IRWriter
from ..ops.registry import role_of
from ..types import elements
from ..types.tensor_info import Role
from .accuracy.capture import Recording, record
from .accuracy.metrics import ErrorStats, comparable
from .dumps import storable
from .extract import raw_const, unique_name
from .openvino_reference import Device, all_ports
from .tracing import port_name, type_version

FILES = ("model.xml", "model.bin", "inputs.npz", "expected.npz", "report.json", "repro.py")
MAX_CHECKS = 400          # evaluations before the search stops with what it has


@dataclass
class SubGraph:
    """One candidate written as IR: the builder, what feeds its Parameters, what its Results
    should hold (trusted values), and which original port each Result is."""

    writer: IRWriter
    feeds: dict[str, np.ndarray] = field(default_factory=dict)
    expected: dict[str, np.ndarray] = field(default_factory=dict)
    result_ports: dict[str, tuple] = field(default_factory=dict)

    @property
    def compute_layers(self) -> int:
        """Layers that compute something (not Const, Parameter or Result)."""
        skip = (Role.CONSTANT, Role.PARAMETER, Role.RESULT)
        return sum(role_of(L["type"]) not in skip for L in self.writer.layers)


@dataclass
class Outcome:
    bad: bool
    score: float               # worst output relative L2 (nan: decided by --check)
    detail: str = ""


@dataclass
class Reduction:
    layers: list[int]                      # the kept layers, in execution order
    sub: SubGraph
    before: Outcome
    after: Outcome
    threshold: float
    start_layers: int
    checks: int
    seconds: float
    subject: str
    trusted: str
    log: list[str] = field(default_factory=list)


class Reducer:
    """Holds the recordings and evaluates candidate sub-graphs (see the module docstring)."""

    def __init__(self, model, feeds: dict, trusted: dict, subject: str, trusted_label: str,
                 run_subject: Callable[[Path, SubGraph], dict[str, np.ndarray]] | None = None,
                 check: list[str] | None = None, check_timeout: float = 120.0,
                 threshold: float | None = None, max_checks: int = MAX_CHECKS,
                 progress: Callable[[str], None] | None = None):
        self.model, self.feeds = model, feeds
        with np.errstate(all="ignore"):
            self.ours: Recording = record(model, feeds)
        self.trusted = trusted                     # port -> array (None: our own run's)
        self.subject, self.trusted_label = subject, trusted_label
        self.run_subject, self.check, self.check_timeout = run_subject, check, check_timeout
        self.threshold, self.max_checks, self.checks = threshold, max_checks, 0
        self.progress = progress or (lambda s: None)
        self.static = model.types()
        g = model.dag
        self.candidates = [n for n in self.ours.order if n in self.ours.live
                           and self.ours.steps[n].kind == "op" and not g.nodes[n]["layer"].bodies
                           and role_of(g.nodes[n]["layer"].type) is not Role.RESULT]

    # -- the trusted value of a port ---------------------------------------------------------
    def value(self, port: tuple) -> np.ndarray:
        got = self.trusted.get(port)
        return got if got is not None else self.ours.arrays[port]

    # -- one candidate as IR -----------------------------------------------------------------
    def build(self, keep: list[int]) -> SubGraph:
        g, model = self.model.dag, self.model
        b = IRWriter(f"{Path(str(model.path)).stem}_reduced")
        sub = SubGraph(b)
        taken: set[str] = {g.nodes[n]["layer"].name for n in keep}   # layer (friendly) names
        tensors: set[str] = set()                                       # output tensor names
        made: dict[tuple, tuple[int, int]] = {}     # original port -> builder port

        def source(port: tuple) -> tuple[int, int]:
            if port in made:
                return made[port]
            u, i = port
            if u not in self.ours.live:                       # weights: the constant sub-graph
                made[port] = self._constant(b, u, i, source)
            else:                                             # a cut: trusted value
                arr = self.value(port)
                if arr.dtype.kind == "f" or arr.dtype.name.startswith(("bfloat", "float")) \
                        or role_of(g.nodes[u]["layer"].type) is Role.PARAMETER:
                    name = unique_name(port_name(model, u, i), taken | tensors)
                    taken.add(name)
                    tensors.add(name)
                    et = elements.from_dtype(arr.dtype).name
                    made[port] = b.parameter(name, et, list(arr.shape))
                    sub.feeds[name] = arr
                else:
                    made[port] = b.const(arr)
            return made[port]

        for n in keep:
            L = g.nodes[n]["layer"]
            srcs = [source(p) for p in inputs_of(g, n)]
            self._copy(b, n, srcs)
            for i in range(len(L.outputs)):
                made[(n, i)] = (len(b.layers) - 1, i)
        read = {p for n in keep for p in inputs_of(g, n)}
        for n in keep:
            if role_of(g.nodes[n]["layer"].type) is Role.VARIABLE_WRITE:
                continue                        # an Assign stores its input: OpenVINO has no output there
            for i in range(len(g.nodes[n]["layer"].outputs)):
                if (n, i) in read or (n, i) not in self.ours.arrays:
                    continue
                name = unique_name(port_name(model, n, i), tensors)
                b.layers[b.result(made[(n, i)], name)]["name"] = unique_name(f"{name}/result", taken)
                sub.expected[name] = self.value((n, i))
                sub.result_ports[name] = (n, i)
        return sub

    def _copy(self, b: IRWriter, n: int, srcs: list) -> None:
        """Layer ``n`` as it is in the model (type, version, name, attributes), its output ports
        with the recorded shapes and the inferred element types."""
        L = self.model.dag.nodes[n]["layer"]
        outs = []
        for i in range(len(L.outputs)):
            arr = self.ours.arrays.get((n, i))
            info = self.static.get((n, i))
            prec = info.etype.precision if info is not None else \
                elements.from_dtype(arr.dtype).precision if arr is not None else "UNSPECIFIED"
            dims = list(arr.shape) if arr is not None else \
                [d.lo if d.is_static else -1 for d in info.shape] if info is not None and info.shape.rank is not None else None
            outs.append((prec, dims, None))
        b.layer(L.type, srcs, dict(L.data), version=L.version, n_out=len(L.outputs), name=L.name)
        b.layers[-1]["out"] = outs

    def _constant(self, b: IRWriter, u: int, i: int, source) -> tuple[int, int]:
        L = self.model.dag.nodes[u]["layer"]
        if role_of(L.type) is Role.CONSTANT:
            raw, et, shape = raw_const(self.model, L)
            return b.const(None, etype=et, raw=raw, shape=shape)
        if L.bodies:
            return b.const(self.ours.arrays[(u, i)])
        srcs = [source(p) for p in inputs_of(self.model.dag, u)]
        self._copy(b, u, srcs)
        return (len(b.layers) - 1, i)

    # -- is it still bad? --------------------------------------------------------------------
    def evaluate(self, keep: list[int]) -> Outcome:
        self.checks += 1
        sub = self.build(keep)
        with tempfile.TemporaryDirectory(prefix="irrun-reduce-") as tmp:
            d = Path(tmp)
            files = sub.writer.files(d / "model.xml")
            files += [(d / "inputs.npz", writers.npz({k: storable(v) for k, v in sub.feeds.items()})),
                      (d / "expected.npz", writers.npz({k: storable(v) for k, v in sub.expected.items()}))]
            writers.write_files(files)
            if self.check is not None:
                return self._run_check(d)
            assert self.run_subject is not None
            try:
                got = self.run_subject(d, sub)
            except Exception as e:              # the subject cannot run this cut: not a repro
                return Outcome(False, math.nan, f"does not run: {printable(str(e))}")
        return self.score(got, sub)

    def score(self, got: dict[str, np.ndarray], sub: SubGraph) -> Outcome:
        worst, where = 0.0, ""
        for name, want in sub.expected.items():
            have = got.get(name)
            if have is None or not comparable(np.asarray(have), want):
                continue
            s = ErrorStats()
            with np.errstate(all="ignore"):
                s.add(np.asarray(have), want)
            if s.rel_l2 > worst or not where:
                worst, where = s.rel_l2, name
        limit = self.threshold if self.threshold is not None else 0.0
        return Outcome(worst >= limit and worst > 0, worst, where)

    def _run_check(self, d: Path) -> Outcome:
        assert self.check is not None
        files = {"{model}": str(d / "model.xml"), "{inputs}": str(d / "inputs.npz"),
                 "{expected}": str(d / "expected.npz")}
        argv = list(self.check)
        for key, path in files.items():
            argv = [a.replace(key, path) for a in argv]
        if argv == self.check:                      # no placeholder: the model's path last
            argv.append(files["{model}"])
        try:
            proc = subprocess.run(argv, capture_output=True, timeout=self.check_timeout, cwd=d)
        except subprocess.TimeoutExpired:
            return Outcome(True, math.nan, f"--check timed out after {self.check_timeout:g} s")
        except OSError as e:
            raise InputError(f"--check cannot start {printable(argv[0])}: {e.strerror}") from None
        return Outcome(proc.returncode != 0, math.nan, f"--check exit status {proc.returncode}")

    # -- the search --------------------------------------------------------------------------
    def reduce(self) -> Reduction:
        t0 = time.perf_counter()
        full = list(self.candidates)
        if not full:
            raise InputError("the model has no layer that depends on its inputs: nothing to reduce",
                             file=self.model.path)
        limit_given = self.threshold
        self.threshold = 0.0 if limit_given is None else limit_given
        before = self.evaluate(full)
        if self.check is None:
            self.threshold = limit_given if limit_given is not None else before.score / 2
            before.bad = before.score > 0 and before.score >= self.threshold
        if not before.bad and before.detail.startswith("does not run"):
            raise InputError(f"the whole model, written as reduce writes its candidates, {before.detail}",
                             file=self.model.path)
        if not before.bad:
            why = before.detail if self.check is not None else \
                f"worst output relative L2 {before.score:.3g} (threshold {self.threshold:.3g})"
            raise InputError(f"{self.subject} and {self.trusted_label} agree on the whole model "
                             f"({why}): there is no disagreement to reduce", file=self.model.path)
        log = [f"whole model: {len(full)} layers, {describe(before)}"]
        self.progress(log[-1])
        memo: dict[tuple, Outcome] = {}

        def bad(keep: list[int]) -> bool:
            key = tuple(keep)
            if key not in memo:
                if self.checks >= self.max_checks:
                    return False
                memo[key] = self.evaluate(keep)
            return memo[key].bad

        lo, hi = 0, len(full) - 1                       # shortest bad prefix full[:end+1]
        while lo < hi:
            mid = (lo + hi) // 2
            if bad(full[:mid + 1]):
                hi = mid
            else:
                lo = mid + 1
        end = hi
        lo, hi = 0, end                                 # shortest bad suffix of that prefix
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if bad(full[mid:end + 1]):
                lo = mid
            else:
                hi = mid - 1
        keep = full[lo:end + 1]
        if not bad(keep):                              # bisection's assumption failed: start wide
            keep = full[:end + 1] if bad(full[:end + 1]) else full
        log.append(f"bisection: layers {lo}..{end} of the execution order ({_layers(len(keep))})")
        self.progress(log[-1])
        keep = self._ddmin(keep, bad)
        log.append(f"delta debugging: {_layers(len(keep))}")
        self.progress(log[-1])
        after = memo.get(tuple(keep)) or self.evaluate(keep)
        return Reduction(keep, self.build(keep), before, after, self.threshold or 0.0, len(full),
                         self.checks, time.perf_counter() - t0, self.subject, self.trusted_label, log)

    def _ddmin(self, keep: list[int], bad: Callable[[list[int]], bool]) -> list[int]:
        """Remove chunks (halves, then quarters, ... single layers) while what is left stays bad."""
        chunk = max(len(keep) // 2, 1)
        while self.checks < self.max_checks:
            start = 0
            while start < len(keep) and len(keep) > 1 and self.checks < self.max_checks:
                rest = keep[:start] + keep[start + chunk:]
                if bad(rest):
                    keep = rest
                else:
                    start += chunk
            if chunk == 1:
                break
            chunk //= 2
        return keep


def _layers(k: int) -> str:
    return f"{k} layer{'s' * (k != 1)}"


def describe(o: Outcome) -> str:
    if math.isnan(o.score):
        return ("still bad" if o.bad else "good") + f" ({o.detail})"
    return f"worst output relative L2 {o.score:.3g} at {printable(o.detail)}"


# =============================================================================================
# The subjects

def irrun_subject(directory: Path, sub: SubGraph) -> dict[str, np.ndarray]:
    """Run the written sub-graph in irrun."""
    from .. import read_model
    m = read_model(directory / "model.xml")
    with np.errstate(all="ignore"):
        return m.run(sub.feeds)


def device_subject(device: Device, timeout: float = 600) -> Callable[[Path, SubGraph], dict]:
    """Run the written sub-graph on an OpenVINO device as it is (no outputs added)."""
    def run(directory: Path, sub: SubGraph) -> dict[str, np.ndarray]:
        from .. import read_model
        m = read_model(directory / "model.xml")
        got = all_ports(m, sub.feeds, device, timeout=timeout, every_port=False)
        out = {}
        for spec in m.outputs:
            (u, sp), = inputs_of(m.dag, spec.node)
            key = f"{u}:{m.dag.nodes[u]['layer'].outputs[sp].id}"
            if key in got:
                out[spec.name] = got[key]
        return out
    return run


def trusted_from(model, ours_feeds: dict, reference, ref_feeds: dict) -> dict:
    """The reference model's values at MODEL's ports, paired as ``irrun compare`` pairs them."""
    from .accuracy.match import match
    with np.errstate(all="ignore"):
        ours = record(model, ours_feeds)
        theirs = record(reference, ref_feeds)
    m = match(ours, theirs)
    return {p: theirs.arrays[q] for p, q in m.pairs.items() if q in theirs.arrays}


# =============================================================================================
# What reduce writes

REPRO = '''"""Reproduce irrun reduce's finding in OpenVINO: {what}.

Runs model.xml on inputs.npz {how} and compares each output with expected.npz
({trusted}). Exit status 1: the disagreement is still there (worst relative L2 >= {threshold:.3g}).
Needs: pip install openvino numpy
"""
import json
import sys

import numpy as np
import openvino as ov

DEVICE = {device!r}
PROPERTIES = json.loads({properties!r})
THRESHOLD = {threshold!r}


def run(device, properties):
    core = ov.Core()
    compiled = core.compile_model(core.read_model("model.xml"), device, properties)
    feeds = dict(np.load("inputs.npz"))
    result = compiled({{p.get_any_name(): feeds[p.get_any_name()] for p in compiled.inputs}})
    return {{o.get_any_name(): result[o] for o in compiled.outputs}}


def rel_l2(a, b):
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return float(np.linalg.norm(a - b) / (np.linalg.norm(b) or 1.0))


expected = dict(np.load("expected.npz"))
got = run(DEVICE, PROPERTIES)
worst = 0.0
for name, want in expected.items():
    err = rel_l2(got[name], want)
    worst = max(worst, err)
    print(f"{{name}}: relative L2 {{err:.3g}} vs expected.npz")
if {compare_f32!r}:
    f32 = run("CPU", {{"INFERENCE_PRECISION_HINT": "f32"}})
    for name in expected:
        print(f"{{name}}: relative L2 {{rel_l2(got[name], f32[name]):.3g}} vs OpenVINO CPU at f32")
print(("still bad" if worst >= THRESHOLD else "agrees") + f": worst {{worst:.3g}}, threshold {{THRESHOLD:.3g}}")
sys.exit(1 if worst >= THRESHOLD else 0)
'''


def targets(directory: str | os.PathLike, protect=()) -> Path:
    """Check before any work that ``directory`` and the files reduce writes there may be written."""
    return writers.directory_of(directory, FILES, protect=protect)


def write(red: Reduction, model, directory: str | os.PathLike, device: Device | None,
          protect=()) -> Path:
    """DIR/model.xml + .bin, inputs.npz, expected.npz, report.json and repro.py, all or nothing."""
    d = targets(directory, protect)
    g = model.dag
    report = {
        "model": str(model.path), "subject": red.subject, "trusted": red.trusted,
        "threshold": red.threshold,
        "before": {"layers": red.start_layers, "worst_rel_l2": _num(red.before.score),
                   "detail": red.before.detail},
        "after": {"layers": len(red.layers), "compute_layers": red.sub.compute_layers,
                  "worst_rel_l2": _num(red.after.score), "detail": red.after.detail},
        "layers": [{"id": n, "name": g.nodes[n]["layer"].name, "op": type_version(model, n)}
                   for n in red.layers],
        "inputs": sorted(red.sub.feeds), "outputs": sorted(red.sub.expected),
        "checks": red.checks, "seconds": round(red.seconds, 2), "search": red.log,
    }
    dev, props = (device.name, dict(device.properties)) if device else \
        ("CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    repro = REPRO.format(what=f"{red.subject} vs {red.trusted}", trusted=red.trusted,
                         how=f"on OpenVINO {dev} {props}", device=dev,
                         properties=json.dumps(props), threshold=red.threshold or 0.0,
                         compare_f32=device is not None and (dev, props) != ("CPU", {"INFERENCE_PRECISION_HINT": "f32"}))
    files = red.sub.writer.files(d / "model.xml")
    files += [(d / "inputs.npz", writers.npz({k: storable(v) for k, v in red.sub.feeds.items()})),
              (d / "expected.npz", writers.npz({k: storable(v) for k, v in red.sub.expected.items()})),
              (d / "report.json", writers.data(json.dumps(report, indent=1, allow_nan=False) + "\n")),
              (d / "repro.py", writers.data(repro))]
    writers.write_files(files, protect=[*protect, *writers.model_files(model)])
    return d


def _num(x: float):
    return x if math.isfinite(x) else str(x)


def check_argv(cmd: str) -> list[str]:
    """``--check "CMD"`` as an argument list (no shell: pipes and ``;`` are not interpreted)."""
    try:
        argv = shlex.split(cmd)
    except ValueError as e:
        raise InputError(f"--check {printable(cmd)}: {e}") from None
    if not argv:
        raise InputError("--check needs a command, e.g. --check 'python my_check.py {model}'")
    return argv

