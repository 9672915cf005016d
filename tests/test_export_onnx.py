"""``irrun export`` / ``irrun.export_onnx`` (issue 24): the IR as ONNX, checked by
``onnx.checker`` and run in onnxruntime against OpenVINO's recorded outputs.

Expected values come from OpenVINO (the fixtures' expected.npz) or from the op specs, never
from irrun. Without onnx and onnxruntime (``pip install -e '.[test]'`` has both) the module
skips, saying so.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest
from helpers import _input_sets

import irrun
from irrun.cli.main import main
from irrun.ir.builder import IRWriter

onnx = pytest.importorskip("onnx", reason="onnx is not installed: pip install -e '.[test]' (or irrun[onnx])")
ort = pytest.importorskip("onnxruntime", reason="onnxruntime is not installed: pip install -e '.[test]'")
ort.set_default_logger_severity(4)

FIXTURES = Path(__file__).parent / "fixtures"
ZOO = sorted(p for p in (FIXTURES / "zoo").iterdir() if (p / "model.xml").exists())
#: quantized encoders (NNCF PTQ int8 BERT, int8 HuBERT, MXFP4 BERT): FakeQuantize, compressed weights
ENCODERS = sorted(p for p in (FIXTURES / "encoder_zoo").iterdir() if (p / "model.xml").exists())
#: compressed-weight cases (tests/test_compressed.py): u8/i8/u4/i4/nf4/f16 decompression patterns
COMPRESSED = sorted(p for p in (FIXTURES / "compressed").iterdir() if (p / "model.xml").exists())
#: f32 agreement with OpenVINO's outputs in onnxruntime (issue 24: 1e-4)
ATOL = RTOL = 1e-4


def run_onnx(path: Path, feeds: dict) -> dict[str, np.ndarray]:
    options = ort.SessionOptions()
    options.log_severity_level = 4
    s = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    names = [o.name for o in s.get_outputs()]
    return dict(zip(names, s.run(names, feeds)))


def export_and_compare(case: Path, tmp_path: Path) -> None:
    """Export ``case``, check it, run each input set in onnxruntime, compare with expected.npz."""
    model = irrun.read_model(case / "model.xml")
    out = irrun.export_onnx(model, tmp_path / f"{case.name}.onnx")
    proto = onnx.load(out)
    onnx.checker.check_model(proto, full_check=True)
    assert proto.opset_import[0].version == 21
    alias = {name: spec.name for spec in model.inputs for name in spec.names}
    out_alias = {name: spec.name for spec in model.outputs for name in spec.names}
    sets = list(_input_sets(case))
    assert sets, case
    for n, (inputs, expected) in enumerate(sets, 1):
        got = run_onnx(out, {alias[k]: v for k, v in inputs.items()})
        for name, want in expected.items():
            have = got[out_alias[name]]
            what = f"{case.name}, set {n}, output {name}"
            assert have.dtype == want.dtype and have.shape == want.shape, \
                f"{what}: {have.dtype}{list(have.shape)}, OpenVINO {want.dtype}{list(want.shape)}"
            if want.dtype.kind == "f":
                np.testing.assert_allclose(have, want, rtol=RTOL, atol=ATOL, err_msg=what)
            else:
                np.testing.assert_array_equal(have, want, err_msg=what)


@pytest.mark.parametrize("case", ZOO + ENCODERS, ids=lambda p: p.name)
def test_zoo_model_exports_and_matches_openvino_in_onnxruntime(case, tmp_path):
    export_and_compare(case, tmp_path)


def _compressed_sets(case: Path):
    meta = json.loads((case / "meta.json").read_text(encoding="utf-8"))
    return meta


@pytest.mark.parametrize("case", COMPRESSED, ids=lambda p: p.name)
def test_compressed_weights_export_and_match_openvino(case, tmp_path):
    """The decompression patterns (Convert/Subtract/Multiply of u8/i8/u4/i4/nf4 Consts) keep
    the weights in their packed ONNX type (INT4/UINT4/INT8/UINT8) and match the CPU plugin."""
    model = irrun.read_model(case / "model.xml")
    out = irrun.export_onnx(model, tmp_path / "m.onnx")
    proto = onnx.load(out)
    onnx.checker.check_model(proto, full_check=True)
    weight = _compressed_sets(case)["weight"]
    onnx_type = {"u8": "UINT8", "i8": "INT8", "u4": "UINT4", "i4": "INT4", "nf4": "UINT8", "f16": "FLOAT16"}[weight]
    types = {onnx.TensorProto.DataType.Name(t.data_type) for t in proto.graph.initializer}
    assert onnx_type in types, f"{case.name}: the {weight} weights were not kept ({sorted(types)})"
    if weight in ("u8", "i8", "u4", "i4"):
        assert "DequantizeLinear" in {n.op_type for n in proto.graph.node}, case.name
    with np.load(case / "inputs.npz") as f, np.load(case / "expected.npz") as e:
        inputs, expected = {k: f[k] for k in f.files}, {k: e[k] for k in e.files}
    alias = {name: spec.name for spec in model.inputs for name in spec.names}
    got = run_onnx(out, {alias[k]: v for k, v in inputs.items()})
    (want,) = expected.values()
    (have,) = got.values()
    np.testing.assert_allclose(have, want, rtol=RTOL, atol=ATOL)


LLM_ZOO = sorted(p for p in (FIXTURES / "llm_zoo").iterdir() if (p / "model.xml").exists())


@pytest.mark.parametrize("case", LLM_ZOO, ids=lambda p: p.name)
def test_stateful_llm_decodes_like_openvino_in_onnxruntime(case, tmp_path):
    """optimum-intel's stateful int4/int8 decoders: the KV cache becomes past_key_values.N.key/
    value inputs and present.N.key/value outputs; fed back step by step (from an empty cache),
    onnxruntime's logits match OpenVINO's (the case's rtol/atol) and pick the same greedy token."""
    from test_llm_zoo import _steps
    meta = json.loads((case / "case.json").read_text(encoding="utf-8"))
    out = irrun.export_onnx(irrun.read_model(case / "model.xml"), tmp_path / "m.onnx")
    onnx.checker.check_model(onnx.load(out), full_check=True)
    s = ort.InferenceSession(str(out), providers=["CPUExecutionProvider"])
    state_inputs = [i for i in s.get_inputs() if i.name.startswith("past_key_values.")]
    assert [i.name for i in state_inputs][:2] == ["past_key_values.0.key", "past_key_values.0.value"]
    outputs = [o.name for o in s.get_outputs()]
    assert {o.replace("present.", "past_key_values.") for o in outputs if o.startswith("present.")} == \
        {i.name for i in state_inputs}
    state = {i.name: np.zeros([1, i.shape[1], 0, i.shape[3]], np.float32) for i in state_inputs}
    steps = _steps(case)
    with np.load(case / "expected.npz") as e:
        want = [e[str(i)] for i in range(len(steps))]
    for i, (feeds, ref) in enumerate(zip(steps, want)):
        got = dict(zip(outputs, s.run(None, {**feeds, **state})))
        np.testing.assert_allclose(got["logits"], ref, rtol=meta["rtol"], atol=meta["atol"], err_msg=f"step {i}")
        assert int(got["logits"][0, -1].argmax()) == int(ref[0, -1].argmax()), i
        state = {k.replace("present.", "past_key_values."): v for k, v in got.items() if k.startswith("present.")}


def test_seq2seq_decoder_decodes_like_openvino_from_empty_state(tmp_path):
    """optimum-intel's stateful seq2seq decoder (int8 BART): its cross-attention caches are
    initialized from the encoder's output by ReadValue sub-graphs, which the export keeps behind
    an If: an empty state input means "not set". Fed empty states on the first step and its own
    outputs after, onnxruntime's logits match OpenVINO's greedy steps."""
    case = FIXTURES / "seq2seq_zoo" / "mini_bart-int8"
    out = irrun.export_onnx(case / "openvino_decoder_model.xml", tmp_path / "d.onnx")
    onnx.checker.check_model(onnx.load(out), full_check=True)
    s = ort.InferenceSession(str(out), providers=["CPUExecutionProvider"])
    meta = onnx.load(out).metadata_props
    state_in = {p.value: p.key.split(".", 2)[2] for p in meta if p.key.startswith("irrun.state_input.")}
    state_out = {p.value: p.key.split(".", 2)[2] for p in meta if p.key.startswith("irrun.state_output.")}
    assert set(state_in) == set(state_out) and len(state_in) == 5
    shapes = {i.name: [d if isinstance(d, int) else 0 for d in i.shape] for i in s.get_inputs()}
    state = {name: np.zeros(shapes[name], np.float32) for name in state_in.values()}
    outputs = [o.name for o in s.get_outputs()]
    tol = json.loads((case / "case.json").read_text(encoding="utf-8"))
    with np.load(case / "greedy.npz") as f:
        trace = {k: f[k] for k in f.files}
    for i in range(4):
        feeds = {k.split(".", 1)[1]: v for k, v in trace.items() if k.startswith(f"{i}.")}
        got = dict(zip(outputs, s.run(None, {**feeds, **state})))
        want = trace[f"expected.{i}"]
        np.testing.assert_allclose(got["logits"], want, rtol=tol.get("rtol", RTOL), atol=tol.get("atol", ATOL),
                                   err_msg=f"step {i}")
        assert int(got["logits"][0, -1].argmax()) == int(want[0, -1].argmax()), i
        state = {state_in[var]: got[state_out[var]] for var in state_in}


# --- the command line ---------------------------------------------------------------------------

def cli(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_export_verify_prints_agreement(tmp_path, capsys):
    case = FIXTURES / "zoo" / "resnet_fp32"
    code, out, err = cli(capsys, "export", case / "model.xml", "-o", tmp_path / "r.onnx", "--verify",
                         "--input", case / "inputs.npz")
    assert code == 0, err
    assert out.startswith(f"wrote {tmp_path / 'r.onnx'}: ONNX opset 21")
    assert "onnxruntime and irrun agree on 2 of 2 outputs" in out
    assert (tmp_path / "r.onnx").is_file()


def test_cli_verify_of_a_stateful_llm_compares_logits_and_the_new_cache(tmp_path, capsys):
    case = FIXTURES / "llm_zoo" / "tiny_llama-int4"
    with np.load(case / "steps.npz") as f:
        np.savez(tmp_path / "prefill.npz", **{k.split(".", 1)[1]: f[k] for k in f.files if k.startswith("0.")})
    code, out, err = cli(capsys, "export", case / "model.xml", "-o", tmp_path / "l.onnx", "--verify",
                         "--input", tmp_path / "prefill.npz")
    assert code == 0, err
    assert "onnxruntime and irrun agree on 5 of 5 outputs" in out
    assert [line.split()[0] for line in out.splitlines() if line.startswith("present.")] == \
        ["present.0.key", "present.0.value", "present.1.key", "present.1.value"]


def _unsupported_model(tmp_path: Path) -> Path:
    """Two Multinomial layers between exportable ones, unseeded (OpenVINO then draws a
    non-deterministic stream: no ONNX form)."""
    b = IRWriter("draws")
    x = b.parameter("x", "f32", [1, 3])
    y = b.layer("Relu", [x], out_dims=[[1, 3]])
    attrs = {"convert_type": "i64", "with_replacement": True, "log_probs": False, "global_seed": 0, "op_seed": 0}
    d1 = b.layer("Multinomial", [y, b.const(np.int64(4))], attrs, version="opset13", out_dims=[[1, 4]],
                 name="draw_a")
    d2 = b.layer("Multinomial", [x, b.const(np.int64(4))], attrs, version="opset13", out_dims=[[1, 4]],
                 name="draw_b")
    b.result(d1, "a")
    b.result(d2, "b")
    return b.save(tmp_path / "draws.xml")


def test_unexportable_op_names_every_layer_and_writes_nothing(tmp_path, capsys):
    xml = _unsupported_model(tmp_path)
    code, out, err = cli(capsys, "export", xml, "-o", tmp_path / "draws.onnx")
    assert code == 3
    assert "nothing written: 2 layer(s) have no ONNX form: Multinomial-opset13 (global_seed = op_seed = 0" in err
    assert "draw_a" in err and "draw_b" in err
    assert not (tmp_path / "draws.onnx").exists()
    assert [p.name for p in tmp_path.iterdir()] == [] or not any(p.suffix == ".onnx" or "irrun-tmp" in p.name
                                                                   for p in tmp_path.iterdir())


def test_export_refuses_to_write_over_the_model(tmp_path, capsys):
    case = FIXTURES / "zoo" / "resnet_fp32"
    xml = tmp_path / "model.xml"
    xml.write_bytes((case / "model.xml").read_bytes())
    (tmp_path / "model.bin").write_bytes((case / "model.bin").read_bytes())
    code, out, err = cli(capsys, "export", xml, "-o", tmp_path / "model.bin")
    assert code == 2 and "one of the files this command reads" in err
    assert (tmp_path / "model.bin").read_bytes() == (case / "model.bin").read_bytes()


def test_missing_onnx_extra_is_exit_3_with_the_pip_command(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "onnx", None)          # import onnx -> ImportError
    code, out, err = cli(capsys, "export", FIXTURES / "zoo" / "resnet_fp32" / "model.xml", "-o",
                         tmp_path / "r.onnx")
    assert code == 3 and "pip install 'irrun[onnx]'" in err
    assert not (tmp_path / "r.onnx").exists()


def test_bad_opset_is_a_usage_error(tmp_path, capsys):
    code, out, err = cli(capsys, "export", FIXTURES / "zoo" / "resnet_fp32" / "model.xml", "-o",
                         tmp_path / "r.onnx", "--opset", "13")
    assert code == 2 and "--opset 13" in err


# --- semantics the converters must keep (expected values from the specs) ------------------------

def _export_run(tmp_path, b: IRWriter, feeds: dict) -> dict[str, np.ndarray]:
    xml = b.save(tmp_path / "m.xml")
    out = irrun.export_onnx(irrun.read_model(xml), tmp_path / "m.onnx")
    onnx.checker.check_model(onnx.load(out), full_check=True)
    return run_onnx(out, feeds)


def test_integer_divide_floors_like_python(tmp_path):
    """Divide-1 with m_pythondiv (the default) floors integers (spec: "Python division");
    ONNX Div truncates."""
    b = IRWriter("div")
    a = b.parameter("a", "i32", [6])
    d = b.parameter("d", "i32", [6])
    b.result(b.layer("Divide", [a, d], out_dims=[[6]], out_precision="I32"), "q")
    a_v = np.array([7, -7, 7, -7, 6, -6], np.int32)
    d_v = np.array([2, 2, -2, -2, 3, 3], np.int32)
    got = _export_run(tmp_path, b, {"a": a_v, "d": d_v})["q"]
    np.testing.assert_array_equal(got, [3, -4, -4, 3, 2, -2])


def test_tile_with_more_repeats_than_dims_pads_the_data_with_leading_ones(tmp_path):
    """Tile-1 spec: with more repeats than data dims the data shape is padded with leading 1s
    (GPT-J's sin/cos table [512, 8] tiled by [b, 1, 1]); ONNX Tile wants equal ranks. The
    expected values are numpy's tile, which pads the same way."""
    b = IRWriter("tile")
    x = b.parameter("x", "f32", [2, 3])
    b.result(b.layer("Tile", [x, b.const(np.array([2, 1, 2], np.int64))], out_dims=[[2, 2, 6]]), "y")
    x_v = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_array_equal(_export_run(tmp_path, b, {"x": x_v})["y"], np.tile(x_v, (2, 1, 2)))


def test_squeeze_of_an_axis_that_is_not_1_keeps_every_dim(tmp_path):
    """Qwen3-MoE's router: Squeeze([2, ?], axis 0), which OpenVINO's own IR types as [2, ?] (the
    axis is skipped). No axis is left to squeeze; an empty ONNX axes input would squeeze every 1
    (here the one token of a decode step)."""
    b = IRWriter("squeeze")
    x = b.parameter("x", "i64", [2, -1])
    b.result(b.layer("Squeeze", [x, b.const(np.array(0, np.int64))], out_dims=[[2, -1]], out_precision="I64"), "y")
    x_v = np.array([[3], [5]], np.int64)
    np.testing.assert_array_equal(_export_run(tmp_path, b, {"x": x_v})["y"], x_v)


def test_roll_along_a_static_axis_of_a_dynamic_shape(tmp_path):
    """Mamba's and LFM2's conv state [?, C, K] rolled along K (Roll-7 spec: numpy's roll)."""
    b = IRWriter("roll")
    x = b.parameter("x", "f32", [-1, 3, 4])
    b.result(b.layer("Roll", [x, b.const(np.array([-1], np.int64)), b.const(np.array([2], np.int64))],
                     out_dims=[[-1, 3, 4]], version="opset7"), "y")
    x_v = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    np.testing.assert_array_equal(_export_run(tmp_path, b, {"x": x_v})["y"], np.roll(x_v, -1, axis=2))


def test_dynamic_dims_become_symbolic(tmp_path):
    b = IRWriter("dyn")
    x = b.parameter("x", "f32", [-1, 3, -1])
    b.result(b.layer("Relu", [x], out_dims=[[-1, 3, -1]]), "y")
    xml = b.save(tmp_path / "m.xml")
    proto = onnx.load(irrun.export_onnx(irrun.read_model(xml), tmp_path / "m.onnx"))
    dims = proto.graph.input[0].type.tensor_type.shape.dim
    assert [d.dim_param or d.dim_value for d in dims] == ["x_d0", 3, "x_d2"]
    assert {p.key: p.value for p in proto.metadata_props}["source"] == "m.xml"


def test_state_variables_become_optimum_named_inputs_and_outputs(tmp_path):
    """ReadValue/Assign of optimum-intel's KV-cache variable: input past_key_values.0.key,
    output present.0.key = the state read plus the new entry (ReadValue + x, concatenated)."""
    b = IRWriter("kv")
    x = b.parameter("x", "f32", [1, 2, 1, 4])
    init = b.const(np.zeros((1, 2, 0, 4), np.float32))
    var = "past_key_values.0.keypresent.0.key"
    rv = b.layer("ReadValue", [init], {"variable_id": var, "variable_type": "f32", "variable_shape": "1,2,?,4"},
                 version="opset6", out_dims=[[1, 2, -1, 4]])
    cat = b.layer("Concat", [rv, x], {"axis": 2}, out_dims=[[1, 2, -1, 4]])
    b.layer("Assign", [cat], {"variable_id": var}, version="opset6", out_dims=[[1, 2, -1, 4]])
    b.result(b.layer("ReduceSum", [cat, b.const(np.array([2], np.int64))], {"keep_dims": False},
                     out_dims=[[1, 2, 4]]), "y")
    past = np.arange(24, dtype=np.float32).reshape(1, 2, 3, 4)
    xv = np.full((1, 2, 1, 4), 0.5, np.float32)
    got = _export_run(tmp_path, b, {"x": xv, "past_key_values.0.key": past})
    np.testing.assert_array_equal(got["present.0.key"], np.concatenate([past, xv], axis=2))
    np.testing.assert_allclose(got["y"], past.sum(2) + 0.5)


def test_op_support_table_is_current():
    from tools.docs.make_export_docs import OUT, generate
    assert OUT.read_text(encoding="utf-8") == generate(), "regenerate it: python -m tools.docs.make_export_docs"


def test_every_op_without_a_converter_says_why():
    """The support table's "why not" is recorded for every op type that has no converter."""
    from irrun.export.onnx import load_converters
    from irrun.export.table import NOT_EXPORTED, converter_for
    from irrun.ops import registry
    load_converters()
    silent = sorted({c.type for c in registry.all_ops() if c.version != "extension" and
                     c.type not in ("Parameter", "Result", "Interpolate") and
                     converter_for(c.type, c.version) is None and c.type not in NOT_EXPORTED})
    assert silent == []


def test_gather_with_u8_indices_casts_them(tmp_path):
    """Gather-8 takes any integer indices (nncf's codebook weights index with u8); ONNX Gather
    only int32/int64. Expected: the spec's gather along the axis (numpy take)."""
    b = IRWriter("gather")
    data = b.parameter("data", "f32", [5, 3])
    idx = b.parameter("idx", "u8", [4])
    axis = b.const(np.array(0, np.int64))
    b.result(b.layer("Gather", [data, idx, axis], {"batch_dims": "0"}, version="opset8",
                     out_dims=[[4, 3]], out_precision="FP32"), "y")
    d_v = np.arange(15, dtype=np.float32).reshape(5, 3)
    i_v = np.array([4, 0, 4, 2], np.uint8)
    np.testing.assert_array_equal(_export_run(tmp_path, b, {"data": d_v, "idx": i_v})["y"], d_v[[4, 0, 4, 2]])


def test_variadic_split_with_run_time_lengths_resolves_minus_one_in_the_graph(tmp_path):
    """VariadicSplit-1 spec: split_lengths may hold one -1 (the rest of the axis); here the
    lengths are a graph input (flux's split_with_sizes), so the -1 is computed at run time."""
    b = IRWriter("split")
    x = b.parameter("x", "f32", [2, 7])
    lengths = b.parameter("lengths", "i64", [3])
    axis = b.const(np.array(1, np.int64))
    outs = b.layer("VariadicSplit", [x, axis, lengths], n_out=3, out_dims=[[2, -1]] * 3, out_precision="FP32")
    for i, o in enumerate(outs):
        b.result(o, f"y{i}")
    x_v = np.arange(14, dtype=np.float32).reshape(2, 7)
    got = _export_run(tmp_path, b, {"x": x_v, "lengths": np.array([2, -1, 1], np.int64)})
    for i, want in enumerate(np.split(x_v, [2, 6], axis=1)):
        np.testing.assert_array_equal(got[f"y{i}"], want)


@pytest.mark.parametrize("slope", [np.array(0.25, np.float32), np.array([0.5, -1.0, 2.0], np.float32)])
def test_prelu_on_dynamic_data_with_a_scalar_or_channel_slope(slope, tmp_path):
    """PRelu-1 spec: x where x >= 0, else slope * x; a 1-D slope of the channel count applies along
    axis 1. The data's batch and spatial dims are dynamic (swin2sr's upsampler), the slope static."""
    b = IRWriter("prelu")
    x = b.parameter("x", "f32", [-1, 3, -1])
    b.result(b.layer("PReLU", [x, b.const(slope)], out_dims=[[-1, 3, -1]], out_precision="FP32"), "y")
    x_v = np.random.default_rng(0).standard_normal((2, 3, 5)).astype(np.float32)
    k = slope.reshape(1, -1, 1) if slope.ndim else slope
    np.testing.assert_allclose(_export_run(tmp_path, b, {"x": x_v})["y"], np.where(x_v >= 0, x_v, k * x_v), rtol=1e-6)


def test_nearest_upsample_by_whole_scales_repeats_each_pixel(tmp_path):
    """Interpolate-11, scales mode, nearest "floor" with "asymmetric" coordinates (torch's
    upsample_nearest2d, VAE decoders): by the spec's formulas output pixel i reads input pixel
    floor(i / 2), i.e. each pixel repeated twice (numpy repeat)."""
    b = IRWriter("up")
    x = b.parameter("x", "f32", [1, 1, -1, 3])
    scales = b.const(np.array([2.0, 2.0], np.float32))
    axes = b.const(np.array([2, 3], np.int64))
    attrs = {"mode": "nearest", "shape_calculation_mode": "scales", "coordinate_transformation_mode": "asymmetric",
             "nearest_mode": "floor", "antialias": "false", "pads_begin": "0,0,0,0", "pads_end": "0,0,0,0",
             "cube_coeff": "-0.75"}
    b.result(b.layer("Interpolate", [x, scales, axes], attrs, version="opset11", out_dims=[[1, 1, -1, 6]],
                     out_precision="FP32"), "y")
    x_v = np.arange(12, dtype=np.float32).reshape(1, 1, 4, 3)
    want = x_v.repeat(2, axis=2).repeat(2, axis=3)
    np.testing.assert_array_equal(_export_run(tmp_path, b, {"x": x_v})["y"], want)


def test_nf4_weights_decompress_in_f32_like_openvino(tmp_path):
    """OpenVINO computes a constant decompression chain Convert(nf4 -> f16) -> Multiply(f16 scale)
    -> Convert(f32) in f32: the f16 codebook value times the f16 scale, the product not rounded to
    f16 (irrun.analysis.constant_precision). The export keeps the nf4 codes packed and multiplies in
    f32; written op by op in f16 the products were rounded (a ViT with nf4/nvfp4/codebook weights
    was 5e-5 off OpenVINO). Expected: that rule computed here from the IR's codes and scales."""
    from irrun.types.elements import NF4_TABLE
    case = FIXTURES / "compressed" / "nf4_group"
    model = irrun.read_model(case / "model.xml")
    types = model.types()
    consts = [n for n in model.order if model.ops[n].type == "Constant"]
    codes = next(types[(n, 0)].value for n in consts if types[(n, 0)].etype.name == "nf4")
    scale = next(types[(n, 0)].value for n in consts if types[(n, 0)].etype.name == "f16")
    table = np.asarray(NF4_TABLE, np.float32).astype(np.float16).astype(np.float32)
    want = (table[codes] * scale.astype(np.float32)).reshape(codes.shape[0], -1)
    out = irrun.export_onnx(model, tmp_path / "m.onnx")
    proto = onnx.load(out)
    assert "UINT8" in {onnx.TensorProto.DataType.Name(t.data_type) for t in proto.graph.initializer}
    weight = next(node for node in proto.graph.node if node.op_type == "MatMul").input[1]
    producer = {o: node for node in proto.graph.node for o in node.output}
    if producer[weight].op_type == "Transpose":      # MatMul's transpose_b
        weight = producer[weight].input[0]
    proto.graph.output.append(onnx.helper.make_tensor_value_info(weight, onnx.TensorProto.FLOAT, None))
    onnx.save(proto, tmp_path / "w.onnx")
    s = ort.InferenceSession(str(tmp_path / "w.onnx"), providers=["CPUExecutionProvider"])
    with np.load(case / "inputs.npz") as f:
        feeds = {s.get_inputs()[0].name: f[f.files[0]]}
    have = s.run([weight], feeds)[0]
    assert have.dtype == np.float32
    np.testing.assert_array_equal(have, want)
