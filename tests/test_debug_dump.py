"""--dump, --stop-at, --profile, --input DIR/ and the executor's observer hook (irrun.debug).

The dump is checked against OpenVINO's own intermediate outputs: the CPU plugin at f32 with every
output port of every layer made a model output (``Model.add_outputs``), matched by layer name and
output index — written here independently of ``irrun.debug.openvino_reference`` — on every fixture.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from helpers import needs_openvino
import irrun
from irrun import debug
from irrun.cli.main import main
from irrun.errors import InputError
from irrun.ir.builder import IRWriter
from irrun.runtime.step import StepKind
from test_fixtures import CASES, FIXTURES, assert_same, load_arrays, meta_of

BLOCK = FIXTURES / "shufflenet_block"     # x[1,8,4,4] -> VariadicSplit(3) -> Transpose(5) ... -> p, q


def block():
    return irrun.read_model(BLOCK / "model.xml"), load_arrays(BLOCK / "inputs.npz", meta_of("shufflenet_block")["inputs"])


def run_cli(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


# ---------------------------------------------------------------------------------------------
# The dump against OpenVINO


def ov_every_port(xml: str, inputs: dict) -> dict:
    """Runs in the oracle worker: {(layer name, output index): array} for every non-Constant,
    non-Parameter port, from the CPU plugin at f32 with all of them made outputs."""
    import openvino as ov
    from tools.ovoracle import _match_inputs, _ov_tensor, _to_numpy
    core = ov.Core()
    model = core.read_model(xml)
    ports = [o for n in model.get_ordered_ops() if n.get_type_name() not in ("Parameter", "Constant", "Result")
             for o in n.outputs()]
    model.add_outputs(ports)
    compiled = core.compile_model(model, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    req = compiled.create_infer_request()
    for i, (p, arr) in enumerate(_match_inputs(model, inputs)):
        req.set_input_tensor(i, _ov_tensor(arr))
    req.infer()
    out = {}
    for i, r in enumerate(model.get_results()):
        src = r.input_value(0)
        t = req.get_output_tensor(i)
        out[(src.get_node().get_friendly_name(), src.get_index())] = _to_numpy(
            t.element_type, lambda t=t: t.data, lambda t=t: t.str_data)
    return out


@pytest.fixture(scope="module")
def oracle():
    from tools.ovoracle import Oracle
    with Oracle() as o:
        yield o


@needs_openvino
@pytest.mark.parametrize("case", CASES)
def test_dump_matches_openvino_intermediate_outputs(case, oracle, tmp_path):
    d = FIXTURES / case
    model = irrun.read_model(d / "model.xml")
    inputs = load_arrays(d / "inputs.npz", meta_of(case)["inputs"])
    model.run(inputs, dump=tmp_path)
    tensors, manifest = debug.load_tensors(tmp_path)
    r = oracle.call(ov_every_port, str(d / "model.xml"), inputs)
    assert r.ok, r.message
    ov = r.value
    seen = set()
    for t in manifest["tensors"]:
        if t["type"] == "Parameter":
            continue
        layer = model.graph.nodes[t["id"]]["layer"]
        index = [p.id for p in layer.outputs].index(t["port"])
        assert (t["name"], index) in ov, f"{case}: OpenVINO has no output {t['name']}.{index}"
        got, want = tensors[t["key"]], ov[(t["name"], index)]
        if got.dtype == np.float32 and want.dtype == np.float16:   # an f16 port computed in f32, as OpenVINO's
            got = got.astype(np.float16)   # CPU plugin does; made an output, OpenVINO rounds it to f16
        assert_same(got, want, False, f"{case}: {t['key']} {t['name']}")
        seen.add((t["name"], index))
    assert seen == set(ov), f"{case}: not dumped: {set(ov) - seen}"


# ---------------------------------------------------------------------------------------------
# Dump format


def test_dump_files_keys_and_manifest(tmp_path, capsys):
    code, out, err = run_cli(capsys, BLOCK / "model.xml", "-i", BLOCK / "inputs.npz", "--dump", tmp_path / "d")
    assert code == 0, err
    assert out.splitlines()[-1] == f"dumped 8 tensors of 6 layers to {tmp_path / 'd'}/ (tensors.npz, manifest.json)"
    with np.load(tmp_path / "d" / "tensors.npz") as f:
        keys = list(f.keys())
    # every output port of every executed layer, by the XML's layer and port ids, Consts excluded
    assert keys == ["0:0", "3:3", "3:4", "5:2", "6:2", "7:1", "9:2", "9:3"]
    manifest = json.loads((tmp_path / "d" / "manifest.json").read_text())
    assert manifest["model"] == str(BLOCK / "model.xml")
    t = manifest["tensors"][3]
    assert t == {"key": "5:2", "id": 5, "name": "Transpose_182", "type": "Transpose", "version": "opset1",
                 "port": 2, "element_type": "f32", "shape": [1, 4, 4, 4], "dtype": "float32",
                 "min": 64.0, "max": 127.0, "mean": 95.5, "nan": 0, "inf": 0}


def _convert_model(tmp_path, dst: str) -> Path:
    b = IRWriter("conv")
    x = b.parameter("x", "f32", [6])
    b.result(b.layer("Convert", [x], {"destination_type": dst}, name="to_" + dst), "y")
    return b.save(tmp_path / f"{dst}.xml")


def test_manifest_stats_count_nan_and_inf_and_skip_them(tmp_path):
    model = irrun.read_model(_convert_model(tmp_path, "f16"))
    x = np.array([1, np.nan, np.inf, -2, 0.5, -np.inf], np.float32)
    model.run({"x": x}, dump=tmp_path / "d")
    t = json.loads((tmp_path / "d" / "manifest.json").read_text())["tensors"][1]
    assert (t["name"], t["dtype"], t["element_type"]) == ("to_f16", "float16", "f16")
    assert (t["min"], t["max"], t["mean"], t["nan"], t["inf"]) == (-2.0, 1.0, -0.5 / 3, 1, 2)   # over 1, -2, 0.5


def test_integer_stats_are_exact(tmp_path):
    model = irrun.read_model(_convert_model(tmp_path, "i64"))
    model.run({"x": np.array([3, -7, 0, 1, 2, 5], np.float32)}, dump=tmp_path / "d")
    t = json.loads((tmp_path / "d" / "manifest.json").read_text())["tensors"][1]
    assert (t["min"], t["max"], t["mean"], t["nan"], t["inf"]) == (-7, 5, 4 / 6, 0, 0)
    assert isinstance(t["min"], int)


def test_bf16_and_strings_round_trip(tmp_path):
    model = irrun.read_model(_convert_model(tmp_path, "bf16"))
    model.run({"x": np.array([1, 2.5, -3, 0, 2.0 ** 17, -0.0], np.float32)}, dump=tmp_path / "b")
    tensors, _ = debug.load_tensors(tmp_path / "b" / "tensors.npz")
    got = tensors["1:1"]
    assert got.dtype == ml_dtypes.bfloat16
    assert got.view(np.uint16).tolist() == [0x3F80, 0x4020, 0xC040, 0x0000, 0x4800, 0x8000]

    d = FIXTURES / "string_data"
    model = irrun.read_model(d / "model.xml")
    inputs = load_arrays(d / "inputs.npz", meta_of("string_data")["inputs"])
    t = debug.trace(model, inputs)
    t.save(tmp_path / "s")
    back, _ = debug.load_tensors(tmp_path / "s")
    assert back.keys() == t.tensors().keys()
    for k, v in t.tensors().items():
        assert back[k].dtype == v.dtype and np.array_equal(back[k], v)


@pytest.mark.parametrize("flags,keys", [
    (["--dump-ops", "Transpose,concat"], ["5:2", "6:2"]),
    (["--dump-ops", "Transpose", "--dump-ops", "Split"], ["5:2", "9:2", "9:3"]),
    (["--dump-names", "*Split_*"], ["3:3", "3:4", "9:2", "9:3"]),
    (["--dump-names", "Split*"], ["9:2", "9:3"]),
    (["--dump-ops", "Split", "--dump-names", "Variadic*"], []),
])
def test_dump_filters(tmp_path, capsys, flags, keys):
    code, out, err = run_cli(capsys, BLOCK / "model.xml", "-i", BLOCK / "inputs.npz", "--dump", tmp_path, *flags)
    assert code == 0, err
    with np.load(tmp_path / "tensors.npz") as f:
        assert list(f.keys()) == keys


# ---------------------------------------------------------------------------------------------
# --stop-at and the observer


def test_stop_at_runs_only_what_the_layer_needs():
    model, inputs = block()
    ran = []
    out = model.run(inputs, stop_at="Transpose_182", observe=lambda s, a, o, t: ran.append(s.node))
    x = inputs["x"]
    assert list(out) == ["Transpose_182"]
    np.testing.assert_array_equal(out["Transpose_182"], x[:, 4:8].transpose(0, 1, 3, 2))
    assert ran == [0, 1, 2, 3, 4, 5]             # Parameter, the split's Consts, split, order, Transpose


@pytest.mark.parametrize("spec,names", [
    (3, ["VariadicSplit_180.0", "VariadicSplit_180.1"]),      # by id; several outputs
    ("3", ["VariadicSplit_180.0", "VariadicSplit_180.1"]),
    ("Result_188", ["q"]),                                     # a Result gives the model output
    ("x", ["x"]),                                              # the Parameter itself
])
def test_stop_at_names(spec, names):
    model, inputs = block()
    assert list(model.run(inputs, stop_at=spec)) == names


@pytest.mark.parametrize("spec,fragment", [
    ("Transpose_18", "no layer with id or name \"Transpose_18\"; did you mean 'Transpose_182'?"),
    ("99", 'no layer with id or name "99"'),
])
def test_stop_at_unknown_layer(spec, fragment):
    model, inputs = block()
    with pytest.raises(InputError) as e:
        model.run(inputs, stop_at=spec)
    assert fragment in str(e.value)


def test_stop_at_dead_and_ambiguous_layers(tmp_path):
    b = IRWriter("m")
    x = b.parameter("x", "f32", [2])
    b.layer("Convert", [x], {"destination_type": "i32"}, name="twin")
    b.result(b.layer("Convert", [x], {"destination_type": "i8"}, name="twin"), "y")
    b.layer("Convert", [x], {"destination_type": "f16"}, name="dead")
    model = irrun.read_model(b.save(tmp_path / "m.xml"))
    with pytest.raises(InputError) as e:
        model.run({"x": np.ones(2, np.float32)}, stop_at="twin")
    assert '2 layers are named "twin" (ids 1, 2); give the id' in str(e.value)
    with pytest.raises(InputError) as e:
        model.run({"x": np.ones(2, np.float32)}, stop_at="dead")
    assert 'layer 4 "dead" (Convert-opset1) feeds no Result' in str(e.value)
    assert model.run({"x": np.ones(2, np.float32)}, stop_at=2)["twin"].dtype == np.int8


def test_stop_at_cli_prints_and_saves_the_layer(tmp_path, capsys):
    code, out, err = run_cli(capsys, BLOCK / "model.xml", "-i", BLOCK / "inputs.npz", "--stop-at", "6")
    assert code == 0, err
    assert out.split()[:2] == ["Concat_183", "float32[1,8,4,4]"]
    code, out, err = run_cli(capsys, BLOCK / "model.xml", "-i", BLOCK / "inputs.npz", "--stop-at", "6",
                             "-o", tmp_path / "c.npz")
    assert code == 0, err
    with np.load(tmp_path / "c.npz") as f:
        assert list(f.keys()) == ["Concat_183"]


def test_observer_sees_every_step_and_changes_nothing():
    model, inputs = block()
    plain = model.run(inputs)
    calls = []
    seen = model.run(inputs, observe=lambda step, ins, outs, secs: calls.append((step.node, step.kind, len(ins), len(outs), secs)))
    assert all(np.array_equal(plain[k], seen[k]) for k in plain)
    assert [c[0] for c in calls] == model.order
    kinds = {c[0]: c[1:4] for c in calls}
    assert kinds[0] == (StepKind.PARAM, 0, 1) and kinds[3] == (StepKind.OP, 3, 2) \
        and kinds[10] == (StepKind.RESULT, 1, 0)
    assert all(c[4] >= 0 for c in calls)


def test_a_dump_and_an_observer_both_see_the_run(tmp_path):
    """``dump=`` records through the runtime's own recorder and still shows every step to
    ``observe``: the dump holds each executed layer's outputs as the observer saw them, and
    the run's outputs are the plain run's."""
    model, inputs = block()
    plain = model.run(inputs)
    shown = {}

    def observe(step, ins, outs, secs):
        for i, a in enumerate(outs):
            shown[debug.port_key(model, step.node, i)] = a.copy()
    out = model.run(inputs, dump=tmp_path, observe=observe)
    assert all(np.array_equal(plain[k], out[k]) for k in plain) and list(out) == list(plain)
    tensors, manifest = debug.load_tensors(tmp_path)
    assert [t["key"] for t in manifest["tensors"]] == list(tensors) and tensors
    for k, a in tensors.items():                     # (the observer sees Results and Consts too)
        np.testing.assert_array_equal(a, shown[k])


def test_model_run_with_dump_and_stop_at_loads_no_debugging_code(tmp_path):
    """The library does not depend on its debugging tools: a run with ``dump=`` and ``stop_at=``
    imports no module of ``irrun.debug`` (observation is the runtime's)."""
    code = ("import sys, numpy as np, irrun\n"
            f"m = irrun.read_model({str(BLOCK / 'model.xml')!r})\n"
            f"x = np.load({str(BLOCK / 'inputs.npz')!r})\n"
            "feeds = {k: x[k] for k in x.files}\n"
            f"m.run(feeds, dump={str(tmp_path / 'd')!r})\n"
            "got = m.run(feeds, stop_at=6)\n"
            "print(sorted(got), sorted(n for n in sys.modules if n.startswith('irrun.debug')))\n")
    p = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True, cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split("\n")[0] == "['Concat_183'] []"
    assert (tmp_path / "d" / "manifest.json").exists()


# ---------------------------------------------------------------------------------------------
# --profile


def test_profile_table_lists_each_layer_with_shapes(capsys):
    code, out, err = run_cli(capsys, BLOCK / "model.xml", "-i", BLOCK / "inputs.npz", "--profile",
                             "--iterations", "3")
    assert code == 0, err
    lines = out.splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.split()[:2] == ["id", "name"])
    table = lines[start:start + 7]
    assert table[0].split() == ["id", "name", "op", "inputs", "->", "outputs", "median", "ms", "min", "max"]
    rows = [ln.split() for ln in table[1:6]]
    assert [r[:3] for r in rows] == [["3", "VariadicSplit_180", "VariadicSplit-1"],
                                     ["5", "Transpose_182", "Transpose-1"], ["6", "Concat_183", "Concat-1"],
                                     ["7", "ShuffleChannels_184", "ShuffleChannels-1"], ["9", "Split_186", "Split-1"]]
    assert rows[0][3:-3] == ["[1,8,4,4]", "[]", "[2]", "->", "[1,4,4,4]", "[1,4,4,4]"]
    assert all(float(r[-2]) <= float(r[-3]) <= float(r[-1]) for r in rows), "min <= median <= max"
    assert len({len(ln.rstrip()) for ln in table[:6]}) == 1, "columns must be aligned (ms right-aligned)"
    assert table[6].startswith("total: median ") and table[6].endswith(
        "in 5 layers over 3 runs after 1 warm-up")
    assert lines[start + 8] == "per op type (median of each run's total)"
    per_type = lines[start + 9:]
    assert per_type[0].split() == ["op", "layers", "ms", "%"] and per_type[6] == ""   # then benchmark_app's summary
    assert per_type[7].startswith("latency (wall time per run, 3 runs): median ") and len(per_type) == 9
    assert sorted(ln.split()[0] for ln in per_type[1:6]) == sorted(r[2] for r in rows)


def test_profile_json_has_every_run(capsys):
    code, out, err = run_cli(capsys, BLOCK / "model.xml", "-i", BLOCK / "inputs.npz", "--profile",
                             "-n", "4", "--warmup", "0", "--json")
    assert code == 0, err
    prof = json.loads(out)                       # stdout is the JSON alone
    assert (prof["iterations"], prof["warmup"]) == (4, 0)
    assert [r["name"] for r in prof["layers"]] == ["VariadicSplit_180", "Transpose_182", "Concat_183",
                                                   "ShuffleChannels_184", "Split_186"]
    assert prof["layers"][0]["inputs"] == [[1, 8, 4, 4], [], [2]]
    assert all(r["min_ms"] <= r["median_ms"] <= r["max_ms"] for r in prof["layers"])
    assert {r["op"] for r in prof["ops"]} == {r["op"] for r in prof["layers"]}


@pytest.mark.parametrize("args, fragment", [
    (["--iterations", "3"], "--iterations goes"), (["--json"], "--json goes"), (["-n", "5", "--warmup", "1"], "--iterations, --warmup go"),
    (["--profile", "-n", "0"], "--iterations must be >= 1"),
    (["--dump-ops", "Concat"], "--dump-ops chooses what --dump writes"),
])
def test_profile_and_dump_options_that_would_do_nothing(capsys, args, fragment):
    code, out, err = run_cli(capsys, BLOCK / "model.xml", "-i", BLOCK / "inputs.npz", *args)
    assert code == 2 and fragment in err and "Traceback" not in err


def test_random_inputs_fill_dynamic_dims_and_are_seeded(tmp_path, capsys):
    sample = Path(__file__).parent.parent / "samples" / "shufflenet_block" / "model.xml"   # x: f32[?,8,4,4]
    outs = []
    for seed in ("0", "0", "1"):
        out_file = tmp_path / f"o{len(outs)}.npz"
        code, out, err = run_cli(capsys, sample, "--random-inputs", "--seed", seed, "-o", out_file)
        assert code == 0, err
        outs.append(np.load(out_file)["y"])
    assert outs[0].shape == (1, 8, 4, 4), "a ? dim takes 1"
    np.testing.assert_array_equal(outs[0], outs[1])
    assert not np.array_equal(outs[0], outs[2])
    assert -1 <= outs[0].min() and outs[0].max() < 1, "a channel shuffle keeps the uniform [-1, 1) values"


def profile_of(case: str, top: int) -> list[str]:
    model = irrun.read_model(FIXTURES / case / "model.xml")
    inputs = load_arrays(FIXTURES / case / "inputs.npz", meta_of(case)["inputs"])
    return debug.trace(model, inputs, arrays=False).profile(top=top).splitlines()


def test_profile_notes_layers_folded_before_running():
    # ShapeOf(y) -> Gather -> Concat are known once y's shape is: only VariadicSplit runs
    lines = profile_of("variadic_split_shapeof", 10)
    assert "total" in lines[2] and lines[2].endswith(
        "ms in 1 layers, 3 folded before running (ShapeOf-3, Gather-8, Concat-1)")


def test_profile_top_layers_when_there_are_more():
    lines = profile_of("convert_chain", 3)        # 7 Converts
    i = lines.index("slowest 3")
    assert lines[i + 1].split() == ["id", "name", "op", "ms", "%"]
    ms = [float(ln.split()[-2]) for ln in lines[i + 2:i + 5]]
    assert ms == sorted(ms, reverse=True) and lines[i + 5] == ""
    assert "slowest" not in "\n".join(profile_of("convert_chain", 7))


# ---------------------------------------------------------------------------------------------
# --input DIR/


def test_input_directory_runs_once_per_file(tmp_path, capsys):
    src = tmp_path / "in"
    src.mkdir()
    xs = [np.random.default_rng(i).random((1, 8, 4, 4), dtype=np.float32) for i in range(3)]
    for i, x in enumerate(xs):
        np.save(src / f"img{i}.npy", x)
    np.savez(src / "zz.npz", x=xs[0])
    (src / "notes.txt").write_text("ignored")
    code, out, err = run_cli(capsys, BLOCK / "model.xml", "--input", src, "-o", tmp_path / "out")
    assert code == 0, err
    assert err == ""                                   # no progress bar when stderr is not a terminal
    assert out.strip() == f"ran 4 input files from {src}: one .npz each in {tmp_path / 'out'}"
    model = irrun.read_model(BLOCK / "model.xml")
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["img0.npz", "img1.npz", "img2.npz", "zz.npz"]
    for i, x in enumerate(xs):
        with np.load(tmp_path / "out" / f"img{i}.npz") as f:
            want = model.run(x)
            assert list(f.keys()) == ["p", "q"] and all(np.array_equal(f[k], want[k]) for k in want)


def test_input_directory_needs_an_output_and_names_a_bad_file(tmp_path, capsys):
    src = tmp_path / "in"
    src.mkdir()
    code, out, err = run_cli(capsys, BLOCK / "model.xml", "--input", src)
    assert code == 2 and "give --output OUTDIR/" in err
    code, out, err = run_cli(capsys, BLOCK / "model.xml", "--input", src, "-o", tmp_path / "o")
    assert code == 2 and "no .npy or .npz files in the directory" in err
    np.save(src / "a.npy", np.ones((1, 8, 4, 4), np.float32))
    np.save(src / "b.npy", np.ones((2, 8, 4, 4), np.float32))
    code, out, err = run_cli(capsys, BLOCK / "model.xml", "--input", src, "-o", tmp_path / "o")
    assert code == 2 and "b.npy" in err and "shape [2,8,4,4]" in err


def test_trace_sees_outputs_nobody_reads(tmp_path):
    # MaxPool-8 skips its indices when no layer reads them; a trace (and so --dump and compare)
    # must still see them. Spec max-pool-8: indices are flat over the whole input tensor.
    from irrun import debug, read_model
    from irrun.ir.builder import IRWriter

    b = IRWriter()
    x = b.parameter("x", "f32", [1, 1, 2, 3])
    values, _ = b.layer("MaxPool", [x], {"strides": [1, 1], "pads_begin": [0, 0], "pads_end": [0, 0],
                                         "kernel": [2, 2], "dilations": [1, 1], "index_element_type": "i64"},
                        version="opset8", n_out=2)
    b.result(values)
    m = read_model(b.save(tmp_path / "m.xml"))
    t = debug.trace(m, np.array([[[[1, 9, 2], [3, 4, 8]]]], np.float32))
    pool = next(r for r in t.layers if r.type == "MaxPool")
    np.testing.assert_array_equal(pool.arrays[0], [[[[9, 9]]]])
    np.testing.assert_array_equal(pool.arrays[1], [[[[1, 1]]]])
