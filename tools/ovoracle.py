"""OpenVINO as a test oracle, isolated in a worker process that may crash without harm.

OpenVINO is the reference irrun is measured against, but its CPU plugin (and now and then its
reference kernels) can kill the process (SIGSEGV/SIGFPE/abort) or return garbage on degenerate
shapes (data-movement-ops.md §0). So every OpenVINO call happens in one long-lived worker process;
each request has a timeout, and a crash or timeout is reported for that request only — the worker
is restarted for the next one. The worker runs with ``CI=true`` (telemetry otherwise stalls).

    with Oracle() as ov:
        ref = ov.reference("m.xml", {"x": x})      # ConstantFolding with the inputs as Constants
        cpu = ov.cpu("m.xml", {"x": x})            # CPU plugin, INFERENCE_PRECISION_HINT=f32
        if ref.ok: ref.outputs[0].array, ref.outputs[0].names
        ov.load("m.xml")                           # read_model only: output types/partial shapes
        ov.call(some_function, arg)                # run any importable function in the worker

Two evaluators, two answers (they differ: data-movement-ops.md §0, and the docstring of
tests/test_differential.py for what was measured with it):
  * ``reference``: read the IR, replace every Parameter by a Constant holding the input, re-infer,
    run ``openvino.passes.ConstantFolding`` and read the Constants that feed the Results. These
    are OpenVINO's reference (template-plugin) kernels, which follow the spec; the default oracle.
    Where it has no kernel for an element type (e.g. Gather on f64 data or with i8 indices) the
    node stays unfolded: status ``unfolded``, no answer.
  * ``cpu``: compile for the CPU plugin with f32 inference precision and run one infer request.

Inputs are matched to Parameters by tensor name or friendly name, or by position when given as a
list. Element types: every byte-aligned type incl. bf16 (ml_dtypes) and strings.
Also usable as a script:  ``python -m tools.ovoracle model.xml [name=file.npy ...]``.
"""
from __future__ import annotations

import atexit
import importlib.util
import os
import pickle
import select
import signal
import struct
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import numpy as np

__all__ = ["Oracle", "OracleResult", "Output", "reference", "cpu", "load", "short_message"]

DEFAULT_TIMEOUT = 60.0


@dataclass
class Output:
    """One model output as OpenVINO reports it: tensor names, element type name, value/shape."""

    names: tuple[str, ...]
    etype: str
    array: np.ndarray | None = None
    shape: list[tuple[int, int | None]] | None = None   # (lo, hi) per dim; None = dynamic rank

    @property
    def name(self) -> str:
        return sorted(self.names)[0] if self.names else ""


@dataclass
class OracleResult:
    """``status``: ok | error (OpenVINO raised) | crash (worker killed by a signal) | timeout |
    unfolded (the reference evaluator has no kernel for some node, e.g. Gather with i8 indices:
    OpenVINO gives no answer, which is not a rejection).
    ``stage`` says where an error happened: read (read_model), infer (re-validation with the
    inputs), eval (folding/compile/infer), call."""

    status: str
    stage: str = ""
    message: str = ""
    outputs: list[Output] = field(default_factory=list)
    value: Any = None

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    def by_name(self) -> dict[str, np.ndarray]:
        return {n: o.array for o in self.outputs for n in o.names}


def short_message(message: str) -> str:
    """OpenVINO's error text without the 'Check ... failed at file:line' / 'While validating
    node ...' preamble: the last non-empty line."""
    lines = [ln.strip() for ln in message.strip().splitlines() if ln.strip()]
    return lines[-1] if lines else ""


# =============================================================================================
# Parent side


class Oracle:
    """A handle on one OpenVINO worker process (started lazily, restarted after a crash)."""

    def __init__(self, timeout: float = DEFAULT_TIMEOUT):
        self.timeout = timeout
        self._proc: subprocess.Popen | None = None
        self._stderr = None

    # -- lifecycle ----------------------------------------------------------------------------
    def __enter__(self) -> "Oracle":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _start(self) -> subprocess.Popen:
        """An isolated worker (``python -I``, its own temporary cwd, a minimal environment: see
        irrun.debug.openvino_reference), started by this file's path; our import path minus the current
        directory is appended to its own (:func:`_worker_import_path`, which also adds this checkout so
        the ``tools`` package imports), so that ``call`` finds the tools' and tests' modules but a stray
        numpy.py in the cwd is never run."""
        from irrun.debug.openvino_reference import child_env, python_child
        here = os.getcwd()
        path = os.pathsep.join(p for p in sys.path if p and os.path.abspath(p) != here)
        if self._stderr is not None:
            self._stderr.close()
        self._stderr = tempfile.TemporaryFile()
        self._cwd = tempfile.TemporaryDirectory(prefix="irrun-oracle-")
        self._proc = subprocess.Popen(python_child([os.path.abspath(__file__), "--worker"]),
                                      stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=self._cwd.name,
                                      stderr=self._stderr, env=child_env(IRRUN_ORACLE_PATH=path))
        return self._proc

    def close(self) -> None:
        p, self._proc = self._proc, None
        if p is not None and p.poll() is None:
            try:
                p.stdin.close()
                p.wait(timeout=5)
            except Exception:
                p.kill()
                p.wait()

    def _stderr_tail(self, n: int = 600) -> str:
        if self._stderr is None:
            return ""
        self._stderr.seek(0)
        return self._stderr.read().decode("utf-8", "replace")[-n:].strip()

    # -- one request --------------------------------------------------------------------------
    def _request(self, req: tuple, timeout: float | None) -> OracleResult:
        proc = self._proc if self._proc is not None and self._proc.poll() is None else self._start()
        data = pickle.dumps(req, protocol=pickle.HIGHEST_PROTOCOL)
        try:
            proc.stdin.write(struct.pack("<Q", len(data)) + data)
            proc.stdin.flush()
            head = self._read(proc, 8, timeout)
            body = self._read(proc, struct.unpack("<Q", head)[0], timeout)
        except TimeoutError:
            proc.kill()
            proc.wait()
            self._proc = None
            return OracleResult("timeout", req[0], f"no answer within {timeout} s")
        except (EOFError, BrokenPipeError):
            rc = proc.wait()
            self._proc = None
            sig = f"signal {signal.Signals(-rc).name}" if rc < 0 else f"exit code {rc}"
            tail = self._stderr_tail()
            return OracleResult("crash", req[0], f"OpenVINO worker died ({sig})"
                                + (f"; stderr: {tail}" if tail else ""))
        d = pickle.loads(body)                      # plain dicts on the wire (see _worker)
        d["outputs"] = [Output(**o) for o in d["outputs"]]
        return OracleResult(**d)

    @staticmethod
    def _read(proc: subprocess.Popen, n: int, timeout: float | None) -> bytes:
        fd = proc.stdout.fileno()
        buf = bytearray()
        deadline = None if timeout is None else time.monotonic() + timeout
        while len(buf) < n:
            wait = None if deadline is None else max(0.0, deadline - time.monotonic())
            if not select.select([fd], [], [], wait)[0]:
                raise TimeoutError
            chunk = os.read(fd, n - len(buf))
            if not chunk:
                raise EOFError
            buf += chunk
        return bytes(buf)

    # -- the public requests ------------------------------------------------------------------
    def reference(self, xml: str | os.PathLike, inputs: Mapping[str, np.ndarray] | Sequence[np.ndarray] = (),
                  timeout: float | None = None) -> OracleResult:
        """Outputs of OpenVINO's reference evaluator (ConstantFolding over Constant inputs)."""
        return self._request(("reference", os.path.abspath(xml), _inputs(inputs)), timeout or self.timeout)

    def cpu(self, xml: str | os.PathLike, inputs: Mapping[str, np.ndarray] | Sequence[np.ndarray] = (),
            timeout: float | None = None) -> OracleResult:
        """Outputs of the CPU plugin (INFERENCE_PRECISION_HINT f32)."""
        return self._request(("cpu", os.path.abspath(xml), _inputs(inputs)), timeout or self.timeout)

    def load(self, xml: str | os.PathLike, timeout: float | None = None) -> OracleResult:
        """read_model only: ``outputs`` carry names, element types and partial shapes;
        ``value`` = the same for the inputs."""
        r = self._request(("load", os.path.abspath(xml), None), timeout or self.timeout)
        r.value = [Output(**o) for o in r.value] if r.ok else None
        return r

    def call(self, func: Callable, *args: Any, timeout: float | None = None) -> OracleResult:
        """Run ``func(*args)`` in the worker, which imports ``func``'s source file by path (so
        keep OpenVINO imports inside functions there); the return value, made of plain picklable
        data, is in ``.value``."""
        code = func.__code__.co_filename
        return self._request(("call", (code, func.__name__), args), timeout or self.timeout)


def _inputs(inputs) -> Any:
    if isinstance(inputs, Mapping):
        return {k: np.asarray(v) for k, v in inputs.items()}
    return [np.asarray(v) for v in inputs]


_DEFAULT: Oracle | None = None


def _default() -> Oracle:
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = Oracle()
        atexit.register(_DEFAULT.close)
    return _DEFAULT


def reference(xml, inputs=(), timeout=None) -> OracleResult:
    return _default().reference(xml, inputs, timeout)


def cpu(xml, inputs=(), timeout=None) -> OracleResult:
    return _default().cpu(xml, inputs, timeout)


def load(xml, timeout=None) -> OracleResult:
    return _default().load(xml, timeout)


# =============================================================================================
# Worker side (imports OpenVINO; never imported by the parent)


# OpenVINO element types whose tensors hold raw bytes in Python -> the ml_dtypes type of the values
_RAW_NAMES = {"f8e4m3": "float8_e4m3fn", "f8e5m2": "float8_e5m2", "f8e8m0": "float8_e8m0fnu",
              "f4e2m1": "float4_e2m1fn", "u4": "uint4", "i4": "int4"}
_NIBBLE_TYPES = frozenset({"f4e2m1", "u4", "i4"})


def _ov_tensor(arr: np.ndarray, ov_type=None):
    import ml_dtypes
    import openvino as ov
    arr = np.asarray(arr)
    if not arr.flags.c_contiguous:
        arr = arr.copy()                    # (not ascontiguousarray: it turns 0-d into [1])
    if arr.dtype == ml_dtypes.bfloat16:
        return ov.Tensor(arr.view(np.uint16), list(arr.shape), ov.Type.bf16)
    raw = {v: k for k, v in _RAW_NAMES.items()}.get(arr.dtype.name)   # f8 / 4-bit: OpenVINO takes bytes
    if raw is not None:
        codes = arr.view(np.uint8).reshape(-1)
        if raw in _NIBBLE_TYPES:                  # two per byte, low nibble first
            codes = codes & 0xF
            codes = np.concatenate([codes, np.zeros(len(codes) % 2, np.uint8)])
            codes = codes[0::2] | (codes[1::2] << 4)
        return ov.Tensor(np.ascontiguousarray(codes), list(arr.shape), getattr(ov.Type, raw))
    if arr.dtype.kind in "TUSO":                          # strings (StringDType, <U, bytes)
        return ov.Tensor(arr.astype(object).astype(str))
    return ov.Tensor(arr)


def _to_numpy(etype, get_array, get_strings, shape: Sequence[int] = ()) -> np.ndarray:
    """An OpenVINO buffer as a NumPy array of irrun's dtype for that element type."""
    import ml_dtypes
    name = etype.get_type_name()
    if name == "string":
        from numpy.dtypes import StringDType
        return np.array(get_strings(), dtype=object).astype(StringDType())
    arr = np.array(get_array(), copy=True)
    if name == "bf16":                                    # OpenVINO hands out the bits as f16
        arr = arr.view(np.uint16).view(ml_dtypes.bfloat16)
    elif name in _RAW_NAMES:                              # ... and f8 / 4-bit types as raw bytes
        dt = np.dtype(getattr(ml_dtypes, _RAW_NAMES[name]))
        if name not in _NIBBLE_TYPES:
            return arr.view(dt)
        b = arr.reshape(-1)
        codes = np.stack([b & 0xF, b >> 4], -1).reshape(-1)[: int(np.prod(shape, dtype=np.int64))]
        if name == "i4":                                  # sign-extend the nibble
            return ((codes.astype(np.int8) ^ 8) - 8).astype(dt).reshape(shape)
        return codes.view(dt).reshape(shape)
    return arr


def _np_type(ov_type) -> np.dtype | None:
    import ml_dtypes
    name = ov_type.get_type_name()
    if name == "bf16":
        return np.dtype(ml_dtypes.bfloat16)
    if name in _RAW_NAMES:
        return np.dtype(getattr(ml_dtypes, _RAW_NAMES[name]))
    if name in ("string", "dynamic", "undefined"):
        return None
    return np.dtype(ov_type.to_dtype())


def _match_inputs(model, inputs) -> list:
    params = list(model.get_parameters())
    if isinstance(inputs, list):
        if len(inputs) != len(params):
            raise ValueError(f"model has {len(params)} inputs, {len(inputs)} given")
        return list(zip(params, inputs))
    out = []
    for p in params:
        keys = set(p.output(0).get_names()) | {p.get_friendly_name()}
        hit = [k for k in inputs if k in keys]
        if not hit:
            raise ValueError(f"no input given for Parameter {p.get_friendly_name()} ({sorted(keys)})")
        out.append((p, inputs[hit[0]]))
    return out


def _shape(pshape) -> list[tuple[int, int | None]] | None:
    """(lo, hi) per dim, hi None when unbounded. OpenVINO keeps "unbounded" as INT64_MAX and does
    arithmetic on it (a SpaceToDepth by 3 gives 3074457345618258432), so hi >= 2**48 is None."""
    if pshape.rank.is_dynamic:
        return None
    return [(d.get_min_length(), None if not 0 <= d.get_max_length() < 1 << 48 else d.get_max_length())
            for d in pshape]


def _run_reference(core, xml, inputs) -> OracleResult:
    import openvino as ov
    from openvino import passes
    stage = "read"
    try:
        model = core.read_model(xml)
        stage = "infer"
        for p, arr in _match_inputs(model, inputs):
            want = _np_type(p.get_element_type())
            if want is not None and arr.dtype != want:
                arr = arr.astype(want)
            c = ov.op.Constant(_ov_tensor(arr))
            c.set_friendly_name(p.get_friendly_name())
            p.output(0).replace(c.output(0))
        model.validate_nodes_and_infer_types()
        stage = "eval"
        m = passes.Manager()
        m.register_pass(passes.ConstantFolding())
        m.run_passes(model)
        outs = []
        for r in model.get_results():
            src = r.input_value(0).get_node()
            if src.get_type_name() != "Constant":
                return OracleResult("unfolded", "eval", "the reference evaluator did not fold "
                                    f"{src.get_type_name()} '{src.get_friendly_name()}' (it has no "
                                    "kernel for these element types; no answer, not a rejection)")
            outs.append(Output(tuple(sorted(r.output(0).get_names())), src.get_element_type().get_type_name(),
                               _to_numpy(src.get_element_type(), src.get_data,
                                         lambda s=src: s.get_tensor_view().str_data,
                                         list(src.get_output_shape(0)))))
        return OracleResult("ok", outputs=outs)
    except Exception as e:  # OpenVINO raises RuntimeError/TypeError/... with its check text
        return OracleResult("error", stage, str(e))


def _run_cpu(core, xml, inputs) -> OracleResult:
    stage = "read"
    try:
        model = core.read_model(xml)
        pairs = _match_inputs(model, inputs)
        stage = "eval"
        compiled = core.compile_model(model, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
        req = compiled.create_infer_request()
        for i, (p, arr) in enumerate(pairs):
            want = _np_type(p.get_element_type())
            if want is not None and arr.dtype != want:
                arr = arr.astype(want)
            req.set_input_tensor(i, _ov_tensor(arr))
        req.infer()
        outs = []
        for i, port in enumerate(compiled.outputs):
            t = req.get_output_tensor(i)
            outs.append(Output(tuple(sorted(port.get_names())), t.element_type.get_type_name(),
                               _to_numpy(t.element_type, lambda t=t: t.data, lambda t=t: t.str_data,
                                         list(t.shape))))
        return OracleResult("ok", outputs=outs)
    except Exception as e:
        return OracleResult("error", stage, str(e))


def _run_load(core, xml) -> OracleResult:
    try:
        model = core.read_model(xml)
    except Exception as e:
        return OracleResult("error", "read", str(e))
    outs = [Output(tuple(sorted(o.get_names())), o.get_element_type().get_type_name(),
                   shape=_shape(o.get_partial_shape())) for o in model.outputs]
    ins = [dict(names=tuple(sorted(o.get_names())), etype=o.get_element_type().get_type_name(),
                shape=_shape(o.get_partial_shape())) for o in model.inputs]
    return OracleResult("ok", outputs=outs, value=ins)


_MODULES: dict[str, Any] = {}


def _run_call(where, args) -> OracleResult:
    file, name = where
    mod = _MODULES.get(file)
    if mod is None:
        spec = importlib.util.spec_from_file_location(f"_oracle_mod_{len(_MODULES)}", file)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        _MODULES[file] = mod
    try:
        return OracleResult("ok", value=getattr(mod, name)(*args))
    except Exception as e:
        return OracleResult("error", "call", f"{type(e).__name__}: {e}")


def _worker() -> None:
    os.environ["CI"] = "true"
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)                                   # stray prints must not corrupt the protocol
    import openvino as ov
    core = ov.Core()
    inp = sys.stdin.buffer
    while True:
        head = inp.read(8)
        if len(head) < 8:
            return
        kind, xml, arg = pickle.loads(inp.read(struct.unpack("<Q", head)[0]))
        if kind == "reference":
            res = _run_reference(core, xml, arg)
        elif kind == "cpu":
            res = _run_cpu(core, xml, arg)
        elif kind == "load":
            res = _run_load(core, xml)
        else:
            res = _run_call(xml, arg)
        wire = dict(vars(res), outputs=[vars(o) for o in res.outputs])
        try:   # plain dicts: the parent imports this module under another name than __main__
            data = pickle.dumps(wire, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception as e:
            data = pickle.dumps(dict(status="error", stage=kind, message=f"unpicklable result: {e}",
                                     outputs=[], value=None))
        out.write(struct.pack("<Q", len(data)) + data)
        out.flush()


def _worker_import_path() -> None:
    """The worker's import path, the one place tools/ sets one: it runs by file path under
    ``python -I`` (so neither its cwd nor its own folder is on the path), yet ``call`` loads modules
    that import ``tools.*`` (and tests' helpers): the checkout holding this file's package, then the
    parent's path (IRRUN_ORACLE_PATH, its cwd already left out); never the worker's cwd."""
    checkout = str(Path(__file__).resolve().parents[1])
    sys.path[:] = [p for p in sys.path if p not in ("", ".", os.getcwd())]
    sys.path += [checkout] + [p for p in os.environ.get("IRRUN_ORACLE_PATH", "").split(os.pathsep)
                              if p and p not in sys.path and p != checkout]


def _main(argv: list[str]) -> int:
    if argv[:1] == ["--worker"]:
        _worker_import_path()
        _worker()
        return 0
    if not argv:
        print(__doc__)
        return 2
    xml, rest = argv[0], argv[1:]
    inputs = {k: np.load(v) for k, v in (a.split("=", 1) for a in rest)}
    with Oracle() as o:
        for kind in ("reference", "cpu"):
            r = getattr(o, kind)(xml, inputs)
            print(f"== {kind}: {r.status} {r.stage} {short_message(r.message)}")
            for out in r.outputs:
                print(f"{out.name} {out.etype}{list(out.array.shape)}\n{out.array}")
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
