"""Which layer is wrong? Compare irrun's tensors with a reference's, layer by layer.

The layers are walked in execution (topological) order; the report names the first layer whose
inputs agree but whose output does not — the one to look at — with its largest absolute and
relative errors. Layers that differ after it usually differ because of it and are only listed.
Two ports agree when they have the same shape and every value is within
``|irrun - ref| <= atol + rtol * |ref|`` (integers, booleans and strings: exactly; NaN equals
NaN; an infinity only itself). A different dtype with equal values agrees (OpenVINO's CPU plugin
and IR v10 files change some element types) and is only counted.

By default the tolerance is :data:`F32_ROUNDING`: ``rtol`` 1e-4 and an ``atol`` of 1e-4 times the
reference port's RMS. Two float32 implementations of one network differ by rounding — summation
order, fused multiply-adds, another BLAS — and that error is relative to the *port's* magnitude,
not to each value's: a convolution's output of RMS 3 carries about 1e-6 of absolute error also in
its values near zero, so a fixed ``atol`` of 1e-6 called 19 of ResNet's 33 ports "different" from
OpenVINO (6 of the 12 fp32 zoo models "differed"). Measured against OpenVINO's CPU plugin over
the converted zoo (tests/fixtures/zoo/*_fp32), the worst port is off by 9e-6 of its RMS (UNet; ResNet
4e-6, BERT 1e-6): 1e-4 leaves a factor 10 above float32 rounding and stays 30 times below a real
error of 0.3% (a layer's weights off by 0.3%).
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from ..analysis.graph import inputs_of
from ..errors import InputError, printable
from ..ops.registry import role_of
from ..types.tensor_info import Role
from .tracing import LayerRun, Trace, port_key


@dataclass
class PortDiff:
    key: str
    equal: bool
    note: str = ""                     # why not comparable (shape) or what differs
    bad: int = 0                       # values outside the tolerance
    size: int = 0
    max_abs: float | None = None
    max_rel: float | None = None
    where: tuple[int, ...] | None = None
    got: object = None                 # the worst value, irrun's and the reference's
    want: object = None
    dtypes: tuple[str, str] = ("", "")


@dataclass(frozen=True)
class Tolerance:
    """When two float values agree: ``|irrun - ref| <= atol + rms_atol * RMS(ref port) + rtol * |ref|``."""

    rtol: float
    atol: float = 0.0
    rms_atol: float = 0.0              # a fraction of the reference port's root mean square

    @property
    def is_f32_rounding(self) -> bool:
        return self == F32_ROUNDING

    def text(self) -> str:
        if self.is_f32_rounding:
            return "1e-4 of the value or of the port's RMS"
        return f"rtol {self.rtol:g}, atol {self.atol:g}" + (f", {self.rms_atol:g} x RMS" if self.rms_atol else "")


#: The default: float32 rounding error, scaled to each port's magnitude (module docstring).
F32_ROUNDING = Tolerance(rtol=1e-4, rms_atol=1e-4)


def tolerance(rtol: float | None = None, atol: float | None = None) -> Tolerance:
    """:data:`F32_ROUNDING` when neither is given, else the fixed ``rtol``/``atol`` (the other
    defaulting to 1e-5 / 1e-6, the values OpenVINO's own tests use)."""
    if rtol is None and atol is None:
        return F32_ROUNDING
    return Tolerance(1e-5 if rtol is None else rtol, 1e-6 if atol is None else atol)


def compare_arrays(key: str, got: np.ndarray, want: np.ndarray, tol: Tolerance | float = F32_ROUNDING,
                   atol: float = 0.0) -> PortDiff:
    """One port: ``tol`` a :class:`Tolerance`, or a fixed ``rtol`` with ``atol`` (the zoo tools' form)."""
    if not isinstance(tol, Tolerance):
        tol = Tolerance(float(tol), atol)
    dt = (_dtype(got), _dtype(want))
    if got.shape != want.shape:
        return PortDiff(key, False, f"shape {_shape(got.shape)} here, {_shape(want.shape)} in the reference",
                        size=got.size, dtypes=dt)
    if got.dtype.kind in "TUS" or want.dtype.kind in "TUS":
        bad = got.astype(object) != want.astype(object)
        err = rel = None
    else:
        a, b = got.astype(np.float64), want.astype(np.float64)
        if got.dtype.kind in "iub" and want.dtype.kind in "iub":
            bad = got != want
        else:
            same = (a == b) | (np.isnan(a) & np.isnan(b))
            atol = tol.atol + tol.rms_atol * _rms(b)
            with np.errstate(invalid="ignore", over="ignore"):
                bad = ~same & ((np.abs(a - b) > atol + tol.rtol * np.abs(b)) | np.isnan(a) | np.isnan(b)
                               | np.isinf(a) | np.isinf(b))
        with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
            err = np.where(bad | (a != b), np.abs(a - b), 0.0)
            err = np.where(np.isnan(err), np.inf, err)
            rel = np.where(err == 0, 0.0, err / np.abs(b))
    n_bad = int(np.count_nonzero(bad))
    d = PortDiff(key, n_bad == 0, bad=n_bad, size=got.size, dtypes=dt)
    if err is not None and rel is not None and err.size:
        d.max_abs, d.max_rel = float(err.max()), float(np.nan_to_num(rel, nan=np.inf).max())
    if n_bad:
        score = np.where(bad, err if err is not None else 1.0, -1.0)
        d.where = tuple(int(i) for i in np.unravel_index(int(np.argmax(score)), got.shape))
        d.got, d.want = got[d.where], want[d.where]
    return d


@dataclass
class Comparison:
    """The outcome: every compared port, the layers in execution order, and the first bad one."""

    ports: dict[str, PortDiff]
    layers: list[LayerRun]
    culprit: LayerRun | None
    culprit_inputs: list[str] = field(default_factory=list)    # "3:4 agrees", "4:0 Const", ...
    differing: list[LayerRun] = field(default_factory=list)
    missing: int = 0                                            # irrun ports the reference lacks
    tol: Tolerance = F32_ROUNDING

    @property
    def ok(self) -> bool:
        return self.culprit is None

    def text(self, reference: str = "the reference") -> str:
        reference = printable(reference)
        compared = [r for r in self.layers if any(r.key(i) in self.ports for i in range(len(r.ports)))]
        tol = self.tol.text()
        miss = f"; {_n(self.missing, 'port')} not in the reference" if self.missing else ""
        retyped = [p for p in self.ports.values() if p.equal and p.dtypes[0] != p.dtypes[1]]
        if retyped:
            p = retyped[0]
            miss += (f"; {len(retyped)} agree in value but not dtype "
                     f"(e.g. {p.key}: {p.dtypes[0]} here, {p.dtypes[1]} there)")
        r = self.culprit
        if r is None:                   # (self.ok)
            both = "agrees" if len(compared) == 1 else "agree"
            within = "within float32 rounding " if self.tol.is_f32_rounding else ""
            return (f"irrun vs {reference}: {'all ' * (len(compared) > 1)}{_n(len(compared), 'layer')} "
                    f"{both} {within}({_n(len(self.ports), 'port')}, {tol}){miss}")
        beyond = "beyond float32 rounding " if self.tol.is_f32_rounding else ""
        lines = [f"irrun vs {reference}: {len(self.differing)} of {len(compared)} layers differ {beyond}({tol}){miss}",
                 "first layer whose inputs agree but whose output does not:",
                 f'  layer {r.id} "{printable(r.name)}" ({r.op})']
        if self.culprit_inputs:
            lines.append(f"  inputs    {', '.join(self.culprit_inputs)}")
        for i in range(len(r.ports)):
            d = self.ports.get(r.key(i))
            if d is not None and not d.equal:
                lines.append(f"  output {r.ports[i]}  {_describe(d, r.shapes[i])}")
        later = [f'{x.id} "{printable(x.name)}"' for x in self.differing if x is not r]
        if later:
            more = f", … and {len(later) - 8} more" if len(later) > 8 else ""
            lines.append(f"differing after it: {', '.join(later[:8])}{more}")
        return "\n".join(lines)


def compare(model, trace: Trace, reference: Mapping[str, np.ndarray], tol: Tolerance = F32_ROUNDING) -> Comparison:
    """Compare a :class:`~irrun.debug.Trace` (with arrays) with reference arrays keyed like a dump."""
    ours = trace.tensors()
    common = [k for k in ours if k in reference]
    if not common:
        sample = ", ".join(list(ours)[:3])
        raise InputError(f"the reference holds none of irrun's tensors (keys are \"<layer id>:<port id>\", "
                         f"e.g. {sample}; the reference has {', '.join(list(reference)[:3]) or 'nothing'})")
    ports = {k: compare_arrays(k, np.asarray(ours[k]), np.asarray(reference[k]), tol) for k in common}
    missing = sum(r.key(i) not in reference for r in trace.layers if r.arrays is not None and r.kind != "param"
                  for i in range(len(r.ports)))
    cmp = Comparison(ports, trace.layers, None, missing=missing, tol=tol)
    g = model.dag
    for r in trace.layers:
        if not any(r.key(i) in ports and not ports[r.key(i)].equal for i in range(len(r.ports))):
            continue
        cmp.differing.append(r)
        if cmp.culprit is None:
            cmp.culprit = r
            for u, sp in inputs_of(g, r.id):
                key, t = port_key(model, u, sp), g.nodes[u]["layer"].type
                cmp.culprit_inputs.append(
                    f"{key} Const" if role_of(t) is Role.CONSTANT else
                    f"{key} {'agrees' if ports[key].equal else 'differs'}" if key in ports else
                    f"{key} model input" if role_of(t) is Role.PARAMETER else f"{key} not in the reference")
    return cmp


def _n(k: int, what: str) -> str:
    return f"{k} {what}{'s' * (k != 1)}"


def _rms(b: np.ndarray) -> float:
    """The root mean square of a port's finite values (0 when it has none)."""
    finite = b[np.isfinite(b)]
    return float(np.sqrt(np.mean(np.square(finite)))) if finite.size else 0.0


def _dtype(a: np.ndarray) -> str:
    return "string" if a.dtype.kind in "TU" else str(a.dtype)


def _shape(s) -> str:
    return "[" + ",".join(map(str, s)) + "]"


def _value(v) -> str:
    v = v.item() if hasattr(v, "item") else v
    return f"{v:.7g}" if isinstance(v, float) else repr(v) if isinstance(v, str) else str(v)


def _describe(p: PortDiff, shape) -> str:
    head = f"{p.dtypes[0]}{_shape(shape)}"
    if p.note:
        return f"{head}: {p.note}"
    where = ",".join(map(str, p.where or ()))
    text = (f"{head}: {p.bad} of {p.size} values differ, worst at [{where}]: irrun {_value(p.got)}, "
            f"reference {_value(p.want)}")
    if p.max_abs is not None:
        text += f"; max abs error {p.max_abs:.4g}, max rel error {p.max_rel:.4g}"
    return text
