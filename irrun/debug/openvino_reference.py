"""OpenVINO as the reference of ``irrun compare``: every port of a model, as OpenVINO computes it.

irrun never imports openvino. This module starts a child process that does, because OpenVINO's
CPU plugin can crash the process that hosts it. The child is isolated (:func:`python_child`):
``python -I`` (no current directory, script directory, user site or ``PYTHON*`` variables on its
import path), a private temporary working directory, and a minimal environment (``CI=true``,
which keeps OpenVINO's telemetry from stalling, plus PATH, HOME, locale and thread counts). It
loads irrun from the directory this module lives in, by path: a ``numpy.py`` or ``openvino.py``
in the user's working directory or beside the model is never imported. To tell the layers apart whatever their
names, the child reads a copy of the XML in which every top-level layer is renamed
``__irrun_<id>`` (friendly names change no computation), then:

* a :class:`Device` (``cpu`` is ``CPU`` with ``INFERENCE_PRECISION_HINT=f32``; ``irrun compare
  --reference openvino:GPU,INFERENCE_PRECISION_HINT=f16`` names any other): makes every output
  port of every layer a model output (``Model.add_outputs``) and runs one inference on that device
  with those properties. (Extra outputs can keep the plugin from fusing layers, so a fused-layer
  bug may hide; see openvino#25744.) A device the child's ``Core`` does not list is refused with
  the list (:class:`DeviceMissing`).
* ``reference``: puts a Result on every port, replaces the Parameters by Constants holding the
  inputs and each ReadValue by its initial value, and runs ``ConstantFolding``: OpenVINO's
  reference kernels.

Stateful models (ReadValue/Assign) are compared on one inference from the initial state; an
Assign's output is read from its input, as the CPU plugin gives Assign no output port.

Results come back in the dump format (:mod:`irrun.debug`), keyed ``"<layer id>:<port id>"``.
"""
from __future__ import annotations

import importlib.util
import json
import os
import signal
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from lxml import etree

from ..errors import EXIT_UNSUPPORTED, InputError, IrrunError, printable
from ..ops.registry import role_of
from ..ports import feeds as model_feeds
from ..types.tensor_info import Role

PREFIX = "__irrun_"
#: The float types a plugin lowers f32 to (``INFERENCE_PRECISION_HINT``), which ``--keep-f32``'s
#: marks are meant to keep a layer out of.
LOWER_FLOATS = ("bf16", "f16")
MODES = {"cpu": "OpenVINO CPU (f32)", "reference": "OpenVINO reference evaluator"}
DEVICE_SCHEME = "openvino:"
_DEVICE_MISSING = 5          # the child's exit status for a device its Core does not list
_VIRTUAL = ("AUTO", "HETERO", "MULTI", "BATCH")   # devices made of others: OpenVINO checks those


@dataclass(frozen=True)
class Device:
    """An OpenVINO device and the properties it compiles with, e.g. ``CPU`` with
    ``INFERENCE_PRECISION_HINT=bf16`` — the configuration whose every layer is compared."""

    name: str = "CPU"
    properties: tuple[tuple[str, str], ...] = (("INFERENCE_PRECISION_HINT", "f32"),)

    @property
    def label(self) -> str:
        props = ", ".join(f"{k}={v}" for k, v in self.properties)
        return f"OpenVINO {self.name}" + (f" ({props})" if props else "")

    @property
    def spec(self) -> str:
        return DEVICE_SCHEME + ",".join([self.name, *(f"{k}={v}" for k, v in self.properties)])


def parse_device(spec: str) -> Device:
    """``openvino:DEVICE[,KEY=VALUE...]`` as a :class:`Device` (no properties: the device's
    defaults — on CPU that is its own inference precision, e.g. bf16 where the CPU has it)."""
    body = spec[len(DEVICE_SCHEME):] if spec.lower().startswith(DEVICE_SCHEME) else spec
    name, *pairs = [p.strip() for p in body.split(",")]
    bad = [p for p in pairs if p.count("=") != 1 or not p.split("=")[0].strip() or not p.split("=")[1].strip()]
    if not name or not all(c.isalnum() or c in ".:_-" for c in name) or bad:
        raise InputError(f"--reference {printable(spec)}: expected openvino:DEVICE[,KEY=VALUE...], "
                         "e.g. openvino:CPU,INFERENCE_PRECISION_HINT=bf16 or openvino:GPU")
    props = tuple((k.strip(), v.strip()) for k, v in (p.split("=") for p in pairs))
    return Device(name.upper() if name.isalpha() else name, props)


def is_device_spec(spec: str | None) -> bool:
    return spec is not None and spec.lower().startswith(DEVICE_SCHEME)


#: The only environment variables a child process inherits (PYTHONPATH, PYTHONSTARTUP, LD_PRELOAD,
#: LD_LIBRARY_PATH... are dropped): where programs are, home, locale, temp dir, thread counts.
KEEP_ENV = ("PATH", "HOME", "USER", "LOGNAME", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "TMPDIR",
            "SYSTEMROOT", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")

#: Run in the child with ``python -I -c``: import irrun from its own directory (argv[1]) by path,
#: without putting any directory on sys.path, then hand over to :func:`_child`.
_BOOT = """
import importlib.util, os, sys
pkg = sys.argv[1]
sys.path[:] = [p for p in sys.path if p not in ("", ".", os.getcwd())]
spec = importlib.util.spec_from_file_location("irrun", os.path.join(pkg, "__init__.py"),
                                              submodule_search_locations=[pkg])
mod = importlib.util.module_from_spec(spec)
sys.modules["irrun"] = mod
spec.loader.exec_module(mod)
from irrun.debug.openvino_reference import child_main
sys.exit(child_main(sys.argv[2:]))
"""


def child_env(**extra: str) -> dict[str, str]:
    """The environment of a child process: :data:`KEEP_ENV` from ours, ``CI=true``, ``extra``."""
    return {**{k: os.environ[k] for k in KEEP_ENV if k in os.environ}, "CI": "true", **extra}


def python_child(args: list[str]) -> list[str]:
    """The command line of an isolated Python child (``-I``: see the module docstring)."""
    return [sys.executable, "-I", *args]


class OpenVINOError(IrrunError):
    """OpenVINO is missing, rejected the model, crashed or timed out."""

    kind = "OpenVINO failed"


class DeviceMissing(OpenVINOError):
    """The OpenVINO device asked for is not on this machine (exit code 3: not supported here)."""

    kind = "OpenVINO device not available"
    exit_code = EXIT_UNSUPPORTED


def available() -> bool:
    return importlib.util.find_spec("openvino") is not None


def all_ports(model, inputs: Mapping[str, np.ndarray] | np.ndarray, mode: str | Device = "cpu",
              timeout: float = 600, every_port: bool = True,
              executed: dict[int, tuple[str, str]] | None = None) -> dict[str, np.ndarray]:
    """Every output port of every live layer of ``model`` (except Parameters and Consts) as
    OpenVINO computes it on ``inputs``, keyed ``"<layer id>:<port id>"``; ``mode``: ``"cpu"``,
    ``"reference"`` or a :class:`Device`. ``every_port=False`` (a device only): the model as it
    is, no outputs added, so the plugin fuses as it would for a user — only the ports that feed
    Results come back. ``executed`` (a device only) is filled from the compiled model's runtime
    graph: {layer id: (the precision OpenVINO ran it in — a :data:`LOWER_FLOATS` type when the
    plugin node's runtime or output precision is one —, the type of the plugin node that ran it)},
    for the layers the plugin names as a node's original layers (how ``--keep-f32`` sees which of
    its marks the plugin honoured)."""
    from ..io.dumps import load_tensors, save_tensors
    from ..ir.xml import parse_xml

    if not available():
        raise OpenVINOError("openvino is not installed (pip install openvino), so there is no "
                            "OpenVINO reference; compare against a dump with --reference REF.npz")
    feeds = model_feeds(model, inputs)
    _require_tokenizers_extension(model)
    root = parse_xml(model.path)
    for le in root.find("layers").iterfind("layer"):
        le.set("name", f"{PREFIX}{le.get('id')}")
    g = model.dag
    ports = {str(n): [p.id for p in g.nodes[n]["layer"].outputs] for n in model.order
             if role_of(g.nodes[n]["layer"].type) not in (Role.PARAMETER, Role.CONSTANT, Role.RESULT)}
    with tempfile.TemporaryDirectory(prefix="irrun-ov-") as tmp:
        t = Path(tmp)
        (t / "model.xml").write_bytes(etree.tostring(root, xml_declaration=True, encoding="utf-8"))
        (t / "ports.json").write_text(json.dumps(ports))
        save_tensors(t / "in", [(dict(key=f"{PREFIX}{n}"), a) for n, a in feeds.items()])
        bin_path = model.ir.bin_path if model.ir.bin_path and os.path.isfile(model.ir.bin_path) else ""
        pkg = str(Path(__file__).resolve().parents[1])   # irrun/
        bin_path = os.path.abspath(bin_path) if bin_path else ""
        try:
            proc = subprocess.run(python_child(["-c", _BOOT, pkg, tmp, bin_path, _mode_arg(mode, every_port)]),
                                  cwd=tmp,
                                  env=child_env(), capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            raise OpenVINOError(f"no answer from OpenVINO within {timeout:g} s", file=model.path) from None
        if proc.returncode == _DEVICE_MISSING:
            raise DeviceMissing(printable(proc.stderr.strip()) or "the device is not available", file=model.path)
        if proc.returncode != 0:
            lines = [ln.strip() for ln in proc.stderr.splitlines() if ln.strip()]
            why = (f"OpenVINO crashed (signal {signal.Signals(-proc.returncode).name})"
                   if proc.returncode < 0 else "OpenVINO rejected the model or the inputs")
            raise OpenVINOError(f"{why}: {lines[-1] if lines else 'no message'}", file=model.path)
        if executed is not None and (t / "runtime.json").is_file():
            executed.update({int(k): (v[0], v[1]) for k, v in json.loads((t / "runtime.json").read_text()).items()})
        return load_tensors(t / "out")[0]


def _mode_arg(mode: str | Device, every_port: bool = True) -> str:
    if isinstance(mode, Device):
        return json.dumps({"device": mode.name, "properties": dict(mode.properties),
                           "every_port": every_port})
    if mode not in MODES:
        raise ValueError(f"unknown OpenVINO mode {mode!r}")
    return mode


def extension_ops(model) -> list[str]:
    """The op types of the model's ``version="extension"`` layers (openvino-tokenizers' ops)."""
    g = model.dag
    return sorted({g.nodes[n]["layer"].type for n in g if g.nodes[n]["layer"].version == "extension"})


def _require_tokenizers_extension(model) -> None:
    """OpenVINO runs openvino-tokenizers' ops only with that package imported (the child does);
    without it OpenVINO says "Cannot create SpecialTokensSplit layer __irrun_20 ... from unsupported
    opset: extension", naming irrun's renamed layer. Say what to install instead, before the child."""
    ops = extension_ops(model)
    if ops and importlib.util.find_spec("openvino_tokenizers") is None:
        shown = ", ".join(ops[:5]) + (f" and {len(ops) - 5} more" if len(ops) > 5 else "")
        raise OpenVINOError(f"the model uses openvino-tokenizers ops ({shown}), which OpenVINO runs only with "
                            "the openvino-tokenizers package: pip install openvino-tokenizers (the release "
                            "matching your openvino), or compare against a dump with --reference REF.npz",
                            file=model.path)


# =============================================================================================
# The child process (the only code that imports openvino)

def _tensor(arr: np.ndarray, ov_type):
    import openvino as ov
    if arr.dtype.kind in "TU":
        return ov.Tensor(arr.astype(object).astype(str))
    want = None if ov_type.is_dynamic() or ov_type.get_type_name() in ("string", "bf16") \
        else np.dtype(ov_type.to_dtype())
    if want is not None and arr.dtype != want:        # an IR v10 f16 input is exposed as f32
        arr = arr.astype(want)
    if arr.dtype.kind == "V":                            # bf16: OpenVINO takes the bits
        return ov.Tensor(np.ascontiguousarray(arr).view(np.uint16), list(arr.shape), ov.Type.bf16)
    return ov.Tensor(arr.copy() if not arr.flags.c_contiguous else arr)


def _array(etype, data, strings) -> np.ndarray:
    import ml_dtypes

    from ..types.elements import STRING_DTYPE
    if etype.get_type_name() == "string":
        return np.array(strings(), dtype=object).astype(STRING_DTYPE)
    arr = np.array(data(), copy=True)
    return arr.view(np.uint16).view(ml_dtypes.bfloat16) if etype.get_type_name() == "bf16" else arr


def _readable(node, output):
    """Where OpenVINO can give ``output`` of ``node``: an Assign's output is its input (the value it
    stores), and the CPU plugin has no output port on Assign ("Incorrect output port number")."""
    return node.input_value(0) if role_of(node.get_type_name()) is Role.VARIABLE_WRITE else output


def _initial_state(read_value):
    """The value a ReadValue gives on a fresh inference request, for the reference evaluator (which
    cannot fold a stateful op): its initializing input, or zeros of the variable's shape with each
    dynamic dimension 0 (what the CPU plugin starts from)."""
    import openvino as ov
    if read_value.get_input_size():
        return read_value.input_value(0)
    ps = read_value.get_output_partial_shape(0)        # the variable's (the Python Node has no get_variable)
    shape = [d.get_length() if d.is_static else 0 for d in ps] if ps.rank.is_static else [0]
    etype = read_value.get_output_element_type(0)
    return ov.op.Constant(np.zeros(shape, dtype=etype.to_dtype())).output(0)


def _child(tmp: str, bin_path: str, mode: str) -> int:
    import openvino as ov
    if importlib.util.find_spec("openvino_tokenizers") is not None:
        import openvino_tokenizers  # noqa: F401  (registers the tokenizer ops with every Core)

    from ..io.dumps import load_tensors, save_tensors
    t = Path(tmp)
    ports = {PREFIX + k: v for k, v in json.loads((t / "ports.json").read_text()).items()}
    inputs = load_tensors(t / "in")[0]
    core = ov.Core()
    model = core.read_model(str(t / "model.xml"), bin_path) if bin_path else core.read_model(str(t / "model.xml"))
    wanted = [(f"{n.get_friendly_name()[len(PREFIX):]}:{ports[n.get_friendly_name()][o.get_index()]}",
               _readable(n, o))
              for n in model.get_ordered_ops() if n.get_friendly_name() in ports
              and role_of(n.get_type_name()) not in (Role.PARAMETER, Role.CONSTANT, Role.RESULT)
              for o in n.outputs()]
    params = list(model.get_parameters())
    out = []
    if mode != "reference":
        device = json.loads(mode) if mode.startswith("{") else \
            {"device": "CPU", "properties": {"INFERENCE_PRECISION_HINT": "f32"}}
        if not _device_present(device["device"], list(core.available_devices)):
            return _DEVICE_MISSING
        if device.get("every_port", True):
            model.add_outputs([o for _, o in wanted])
        compiled = core.compile_model(model, device["device"], device["properties"])
        req = compiled.create_infer_request()
        for i, p in enumerate(params):
            req.set_input_tensor(i, _tensor(inputs[p.get_friendly_name()], p.get_element_type()))
        req.infer()
        _write_runtime_precisions(compiled, t / "runtime.json")
        index = {(o.get_node().get_friendly_name(), o.get_index()): i
                 for i, o in enumerate(r.input_value(0) for r in model.get_results())}
        for key, o in wanted:
            at = index.get((o.get_node().get_friendly_name(), o.get_index()))
            if at is None:                                  # every_port off: not a model output
                continue
            tensor = req.get_output_tensor(at)
            out.append((dict(key=key), _array(tensor.element_type, lambda: tensor.data, lambda: tensor.str_data)))
    else:
        from openvino import passes
        results = [(key, ov.op.Result(o)) for key, o in wanted]
        model.add_results([r for _, r in results])
        for p in params:
            c = ov.op.Constant(_tensor(inputs[p.get_friendly_name()], p.get_element_type()))
            p.output(0).replace(c.output(0))
        for n in model.get_ordered_ops():
            if role_of(n.get_type_name()) is Role.VARIABLE_READ:
                n.output(0).replace(_initial_state(n))
        model.validate_nodes_and_infer_types()
        m = passes.Manager()
        m.register_pass(passes.ConstantFolding())
        m.run_passes(model)
        for key, r in results:
            src = r.input_value(0).get_node()
            if role_of(src.get_type_name()) is not Role.CONSTANT:
                raise RuntimeError(f"the reference evaluator did not compute {src.get_type_name()} "
                                   f"layer {key.split(':')[0]} (no kernel for its element types)")
            out.append((dict(key=key), _array(src.get_element_type(), src.get_data,
                                               lambda s=src: s.get_tensor_view().str_data)))
    save_tensors(t / "out", out)
    return 0


def _write_runtime_precisions(compiled, path: Path) -> None:
    """{layer id: [runtimePrecision, layerType]} of the plugin nodes in ``compiled``'s runtime graph
    that name our renamed layers among their ``originalLayersNames`` (Reorders and other nodes the
    plugin adds name none). A plugin without a runtime graph writes nothing."""
    try:
        ops = compiled.get_runtime_model().get_ordered_ops()
    except RuntimeError:
        return
    found: dict[str, list[str]] = {}
    for op in ops:
        rt = op.get_rt_info()
        kind = rt["layerType"].astype(str) if "layerType" in rt else op.get_type_name()
        if "originalLayersNames" not in rt or op.get_input_size() == 0:
            continue      # constants folded from a layer name it too; the layer itself ran elsewhere
        precisions = [rt[k].astype(str) for k in ("runtimePrecision", "outputPrecisions") if k in rt]
        types = [p for text in precisions for p in text.split(",") if p]
        lowered = [p for p in types if p in LOWER_FLOATS]
        for name in rt["originalLayersNames"].astype(str).split(","):
            if name.startswith(PREFIX) and name[len(PREFIX):].isdigit() and types:
                found.setdefault(name[len(PREFIX):], [(lowered or types)[0], kind])
    path.write_text(json.dumps(found))


def _device_present(name: str, devices: list[str]) -> bool:
    """Whether ``name`` is one of ``devices`` (``GPU`` also matches ``GPU.0``); virtual devices
    (AUTO, HETERO:..., MULTI:...) are left to OpenVINO. Missing: says so on stderr."""
    base = name.split(":")[0].split(".")[0].upper()
    if base in _VIRTUAL or name in devices or base in {d.split(".")[0] for d in devices}:
        return True
    print(f"OpenVINO has no device {name!r} on this machine; its devices: "
          f"{', '.join(devices) or 'none'} (openvino.Core().available_devices)", file=sys.stderr)
    return False


def child_main(argv: list[str]) -> int:
    """The child's entry point (see ``_BOOT``): ``TMP BIN MODE``."""
    os.environ["CI"] = "true"
    try:
        return _child(*argv[:3])
    except Exception as e:        # OpenVINO raises RuntimeError & co. with its check text
        print(f"{type(e).__name__}: {e}", file=sys.stderr)
        return 3
