"""``--verify``: run the exported ONNX model in onnxruntime and the IR in irrun on the same
inputs and compare every output (max abs / rel difference; integers and booleans exactly).

onnxruntime is not a dependency of irrun: it is imported here, when a verification runs, and
a missing one is exit 3 with the pip command.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import UnsupportedError
from ..types.tensor_info import Role

#: f32 agreement bound: |onnx - irrun| <= ATOL + RTOL * |irrun|
ATOL = 1e-4
RTOL = 1e-4


@dataclass
class Agreement:
    """One output: its name, dtype and shape, and how far onnxruntime is from irrun."""

    name: str
    dtype: str
    shape: tuple[int, ...]
    max_abs: float
    max_rel: float
    ok: bool
    problem: str = ""


def require_onnxruntime() -> Any:
    try:
        import onnxruntime
    except ImportError:
        raise UnsupportedError("--verify runs the export in onnxruntime: pip install onnxruntime") from None
    return onnxruntime


def run_onnx(path: str | os.PathLike | bytes, feeds: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The ONNX model's outputs in onnxruntime (CPU), by output name."""
    ort = require_onnxruntime()
    ort.set_default_logger_severity(4)
    options = ort.SessionOptions()
    options.log_severity_level = 4
    session = ort.InferenceSession(path if isinstance(path, bytes) else os.fspath(path), options,
                                   providers=["CPUExecutionProvider"])
    wanted = {i.name for i in session.get_inputs()}
    missing = wanted - set(feeds)
    if missing:
        raise UnsupportedError(f"--verify cannot feed the export's inputs {', '.join(sorted(missing))} "
                               "(state inputs without irrun's state_input metadata?)")
    names = [o.name for o in session.get_outputs()]
    try:
        return dict(zip(names, session.run(names, {k: v for k, v in feeds.items() if k in wanted})))
    except _run_errors(ort) as e:
        raise OnnxRunError(str(e)) from None


def _run_errors(ort: Any) -> tuple[type[BaseException], ...]:
    """onnxruntime's run-time error classes (not one hierarchy: Fail, InvalidArgument...)."""
    m = ort.capi.onnxruntime_pybind11_state
    return tuple(getattr(m, n) for n in ("Fail", "InvalidArgument", "RuntimeException", "EPFail")
                 if isinstance(getattr(m, n, None), type))


class OnnxRunError(Exception):
    """onnxruntime refused to run the export on these inputs (e.g. an index out of range, which
    OpenVINO and irrun answer with zeros): a disagreement, not an irrun bug."""


def reference(model, feeds: dict[str, np.ndarray], metadata: dict[str, str]
              ) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """irrun's outputs on ``feeds`` from the model's initial state, and the ONNX feeds: the
    inputs plus each state input (``irrun.state_input.*`` metadata) holding what irrun's ReadValue
    read. The state outputs are compared with what irrun's Assign layers wrote."""
    state_in = {k.split(".", 2)[2]: v for k, v in metadata.items() if k.startswith("irrun.state_input.")}
    state_out = {k.split(".", 2)[2]: v for k, v in metadata.items() if k.startswith("irrun.state_output.")}
    model.reset_state()
    if not state_in:
        return dict(model.run(feeds)), dict(feeds)
    from ..debug.tracing import trace
    t = trace(model, feeds, ops=["ReadValue"])
    variable_of = {model.dag.nodes[n]["layer"].id: model.ops[n].variable_id for n in model.order
                   if model.ops[n].role == Role.VARIABLE_READ}
    read = {variable_of[run.id]: run.arrays[0] for run in t.layers
            if run.arrays is not None and run.id in variable_of}
    onnx_feeds = dict(feeds) | {name: read[var] for name, var in state_in.items() if var in read}
    outputs = dict(t.outputs) | {name: model.state[var] for name, var in state_out.items()}
    model.reset_state()
    return outputs, onnx_feeds


def compare(reference: dict[str, np.ndarray], got: dict[str, np.ndarray], *, atol: float = ATOL,
            rtol: float = RTOL) -> list[Agreement]:
    """Per output of ``reference`` (irrun's), how ``got`` (onnxruntime's) agrees with it."""
    rows = []
    for name, want in reference.items():
        want = np.asarray(want)
        if name not in got:
            rows.append(Agreement(name, str(want.dtype), want.shape, np.inf, np.inf, False, "missing in the export"))
            continue
        have = np.asarray(got[name])
        if have.shape != want.shape or have.dtype != want.dtype:
            rows.append(Agreement(name, str(want.dtype), want.shape, np.inf, np.inf, False,
                                  f"onnxruntime gave {have.dtype}{list(have.shape)}"))
            continue
        if want.dtype.kind not in "fc":
            exact = bool(np.array_equal(have, want))
            diff = 0.0 if exact or want.dtype.kind not in "iu" else \
                float(np.max(np.abs(have.astype(np.float64) - want.astype(np.float64))))
            rows.append(Agreement(name, str(want.dtype), want.shape, diff, 0.0 if exact else np.inf, exact))
            continue
        w, h = want.astype(np.float64), have.astype(np.float64)
        same_nan = np.array_equal(np.isnan(w), np.isnan(h))
        finite = np.isfinite(w) & np.isfinite(h)
        d = np.abs(h - w)[finite]
        max_abs = float(d.max()) if d.size else 0.0
        max_rel = float((d / np.maximum(np.abs(w[finite]), np.finfo(np.float32).tiny)).max()) if d.size else 0.0
        ok = same_nan and bool(np.all(np.abs(h - w)[finite] <= atol + rtol * np.abs(w[finite]))) and \
            bool(np.array_equal(w[~finite & ~np.isnan(w)], h[~finite & ~np.isnan(w)]))
        rows.append(Agreement(name, str(want.dtype), want.shape, max_abs, max_rel, ok,
                              "" if same_nan else "NaN in other places"))
    return rows


def relative_l2(got: np.ndarray, want: np.ndarray) -> float:
    """norm(got - want) / norm(want) in f64 (0 / 0 is 0): how far a quantized model's outputs are,
    where single elements may differ by whole quantization steps."""
    got64, want64 = np.asarray(got, np.float64), np.asarray(want, np.float64)
    return float(np.linalg.norm(got64 - want64) / (np.linalg.norm(want64) or 1.0))


def quantizer_count(model) -> int:
    """How many FakeQuantize layers ``model`` has (its outputs are then judged by
    :func:`relative_l2` too)."""
    return sum(op.type == "FakeQuantize" for op in model.ops.values())
