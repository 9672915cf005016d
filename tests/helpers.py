"""Build one-layer models through the whole pipeline (IR writer -> reader -> inference -> run).

    run_op("VariadicSplit", [x, np.int64(1), np.array([2, -1])], n_out=2)
        -> list of output arrays; input 0 is fed as a Parameter, the others are Consts.
    infer_op("Split", [Param("f32", "2..6,2"), np.int64(0)], {"num_splits": 2}, n_out=2)
        -> list of TensorInfo (element type, partial shape, value)

Use ``params=(0, 2)`` to make several inputs Parameters (their values then only reach the kernel
at run time), ``params=()`` to make every input a Const (the op is folded during inference).
Error tests use ``raises_for(op_type, exc, fragment, fn, *args)``. ``assert_fixture_matches(d)``
runs a checked-in zoo case (tests/fixtures/zoo/, tests/fixtures/encoder_zoo/) against OpenVINO's
recorded outputs.
"""
from __future__ import annotations

import importlib.util
import json
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

import irrun
from irrun.types import elements
from irrun.ir.builder import IRWriter

#: OpenVINO is the oracle of the tests that run it. Without it they skip (and say why), unless
#: IRRUN_REQUIRE_ORACLE=1 (set by .ci/run, which installs it): there a missing openvino fails them,
#: so that the oracle tests never skip unnoticed. When openvino is installed they always run.
HAVE_OPENVINO = importlib.util.find_spec("openvino") is not None
REQUIRE_ORACLE = os.environ.get("IRRUN_REQUIRE_ORACLE", "") not in ("", "0")
needs_openvino = pytest.mark.skipif(not HAVE_OPENVINO and not REQUIRE_ORACLE,
                                    reason="openvino (the test oracle) is not installed: "
                                           "pip install openvino, or pip install -e '.[test]'")
#: Graphviz's ``dot`` draws ``irrun graph`` pictures; the same switch makes its absence a failure
#: where .ci/run installed it.
needs_dot = pytest.mark.skipif(shutil.which("dot") is None and not REQUIRE_ORACLE,
                               reason="Graphviz's dot is not installed (apt install graphviz)")
#: Dask runs ``--workers``/``--cluster``: an extra (irrun[dask], in the test extra). The no-OpenVINO
#: route of README command 2 (``pip install -e . pytest hypothesis``) has no Dask: those tests skip
#: there, saying so; where .ci/run installed the test extra its absence is a failure.
HAVE_DASK = importlib.util.find_spec("distributed") is not None
needs_dask = pytest.mark.skipif(not HAVE_DASK and not REQUIRE_ORACLE,
                                reason="Dask is not installed (pip install 'irrun[dask]', or pip install -e '.[test]')")

#: Every element type a data-movement op must carry (NumPy dtypes, strings included).
ALL_DTYPES = [np.float64, np.float32, np.float16, elements.TYPES["bf16"].dtype, np.int64, np.int32,
              np.int16, np.int8, np.uint64, np.uint32, np.uint16, np.uint8, np.bool_,
              elements.STRING_DTYPE]


def sample(shape, dtype) -> np.ndarray:
    """0..N-1 in ``dtype`` (booleans alternate, strings are the numbers' text)."""
    n = int(np.prod(shape, dtype=np.int64))
    base = np.arange(n).reshape(shape)
    if np.dtype(dtype) == np.bool_:
        return (base % 2).astype(np.bool_)
    if np.dtype(dtype) == elements.STRING_DTYPE:
        return base.astype(str).astype(elements.STRING_DTYPE)
    return (base % 100).astype(dtype) if np.dtype(dtype).itemsize == 1 else base.astype(dtype)


@dataclass
class Param:
    """An input known only by element type and (partial) shape string, e.g. Param("f32", "?,3")."""

    etype: str
    shape: str


def _build(tmp_path, type_, inputs, attrs, version, n_out, params):
    b = IRWriter("op")
    feeds = {}
    ports = []
    for i, x in enumerate(inputs):
        if isinstance(x, Param):
            ports.append(b.parameter(f"in{i}", x.etype, x.shape, dims=[]))
        elif i in params:
            x = np.asarray(x)
            ports.append(b.parameter(f"in{i}", elements.from_dtype(x.dtype).name, list(x.shape)))
            feeds[f"in{i}"] = x
        else:
            ports.append(b.const(np.asarray(x)))
    outs = b.layer(type_, ports, attrs, version=version, n_out=n_out)
    outs = [outs] if n_out == 1 else outs
    for i, o in enumerate(outs):
        b.result(o, f"out{i}")
    path = b.save(tmp_path / f"{type_}.xml")
    return irrun.read_model(path), feeds


_ROOT = tempfile.TemporaryDirectory(prefix="irrun-op-")   # removed when the test run ends


def _tmp() -> Path:
    return Path(tempfile.mkdtemp(dir=_ROOT.name))


def run_op(type_, inputs, attrs=None, version="opset1", n_out=1, params=(0,)):
    model, feeds = _build(_tmp(), type_, inputs, attrs, version, n_out, params)
    out = model.run(feeds)
    return [out[f"out{i}"] for i in range(n_out)]


def infer_op(type_, inputs, attrs=None, version="opset1", n_out=1, params=(0,)):
    model, _ = _build(_tmp(), type_, inputs, attrs, version, n_out, params)
    types = model.types()
    layer = next(n for n, d in model.graph.nodes(data=True) if d["layer"].type == type_)
    return [types[(layer, i)] for i in range(n_out)]


def raises_for(op_type, exc, fragment, fn, *args, **kw):
    """``fn(*args, **kw)`` must raise ``exc`` whose message contains ``fragment`` and which names
    a layer of type ``op_type``; returns the exception. A test module binds its op once:
    ``rejects = functools.partial(raises_for, "Gather")``."""
    with pytest.raises(exc) as e:
        fn(*args, **kw)
    assert fragment in e.value.message
    assert e.value.layer is not None and e.value.layer.type == op_type
    return e.value


def shape_str(info) -> str:
    """``TensorInfo`` -> the spec tables' notation, e.g. ``[2..4,?]``."""
    return str(info.shape)


def _input_sets(d: Path):
    """(inputs, expected) per input set: inputs.npz/expected.npz, then inputs_2.npz/... ."""
    from tools.conformance.export_suite import input_sets
    return input_sets(d)


def assert_fixture_matches(d: Path) -> None:
    """irrun's outputs on every input set of the checked-in case ``d`` equal OpenVINO's recorded
    ones: same dtype and shape, integers exactly, floats within case.json's rtol/atol."""
    case = d.name
    meta = json.loads((d / "case.json").read_text(encoding="utf-8"))
    model = irrun.read_model(d / "model.xml")
    sets = list(_input_sets(d))
    assert sets, f"{case}: no inputs.npz"
    for n, (inputs, expected) in enumerate(sets, 1):
        got = model.run(inputs)
        by_name = {name: got[p.name] for p in model.outputs for name in p.names}
        assert expected, f"{case}, input set {n}: no expected outputs"
        for name, want in expected.items():
            assert name in by_name, f"{case}: no output named {name}"
            have = np.asarray(by_name[name])
            what = f"{case}, input set {n}, output {name}"
            assert have.dtype == want.dtype and have.shape == want.shape, \
                f"{what}: {have.dtype}{list(have.shape)}, OpenVINO {want.dtype}{list(want.shape)}"
            if want.dtype.kind == "f":
                np.testing.assert_allclose(have, want, rtol=meta["rtol"], atol=meta["atol"], err_msg=what)
            else:
                np.testing.assert_array_equal(have, want, err_msg=what)


def import_target(package: str, node) -> str:
    """The absolute module an ``ast.ImportFrom`` in a module of ``package`` names (relative
    levels resolved as Python does); the layering tests read imports with it."""
    if not node.level:
        return node.module or ""
    base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
    return f"{base}.{node.module}" if node.module else base
