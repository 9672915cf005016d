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

* ``cpu``: makes every output port of every layer a model output (``Model.add_outputs``) and runs
  one inference on the CPU plugin with ``INFERENCE_PRECISION_HINT=f32``. (Extra outputs can keep
  the plugin from fusing layers, so a fused-layer bug may hide; see openvino#25744.)
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
from pathlib import Path

import numpy as np
from lxml import etree

from ..errors import IrrunError
from ..ops.registry import role_of
from ..ports import feeds as model_feeds
from ..types.tensor_info import Role

PREFIX = "__irrun_"
MODES = {"cpu": "OpenVINO CPU (f32)", "reference": "OpenVINO reference evaluator"}


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


def available() -> bool:
    return importlib.util.find_spec("openvino") is not None


def all_ports(model, inputs: Mapping[str, np.ndarray] | np.ndarray, mode: str = "cpu",
              timeout: float = 600) -> dict[str, np.ndarray]:
    """Every output port of every live layer of ``model`` (except Parameters and Consts) as
    OpenVINO computes it on ``inputs``, keyed ``"<layer id>:<port id>"``."""
    from ..ir.xml import parse_xml
    from .dumps import load_tensors, save_tensors

    if not available():
        raise OpenVINOError("openvino is not installed (pip install openvino), so there is no "
                            "OpenVINO reference; compare against a dump with --reference REF.npz")
    feeds = model_feeds(model, inputs)
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
            proc = subprocess.run(python_child(["-c", _BOOT, pkg, tmp, bin_path, mode]), cwd=tmp,
                                  env=child_env(), capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            raise OpenVINOError(f"no answer from OpenVINO within {timeout:g} s", file=model.path) from None
        if proc.returncode != 0:
            lines = [ln.strip() for ln in proc.stderr.splitlines() if ln.strip()]
            why = (f"OpenVINO crashed (signal {signal.Signals(-proc.returncode).name})"
                   if proc.returncode < 0 else "OpenVINO rejected the model or the inputs")
            raise OpenVINOError(f"{why}: {lines[-1] if lines else 'no message'}", file=model.path)
        return load_tensors(t / "out")[0]


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

    from .dumps import load_tensors, save_tensors
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
    if mode == "cpu":
        model.add_outputs([o for _, o in wanted])
        compiled = core.compile_model(model, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
        req = compiled.create_infer_request()
        for i, p in enumerate(params):
            req.set_input_tensor(i, _tensor(inputs[p.get_friendly_name()], p.get_element_type()))
        req.infer()
        index = {(o.get_node().get_friendly_name(), o.get_index()): i
                 for i, o in enumerate(r.input_value(0) for r in model.get_results())}
        for key, o in wanted:
            tensor = req.get_output_tensor(index[(o.get_node().get_friendly_name(), o.get_index())])
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


def child_main(argv: list[str]) -> int:
    """The child's entry point (see ``_BOOT``): ``TMP BIN MODE``."""
    os.environ["CI"] = "true"
    try:
        return _child(*argv[:3])
    except Exception as e:        # OpenVINO raises RuntimeError & co. with its check text
        print(f"{type(e).__name__}: {e}", file=sys.stderr)
        return 3
