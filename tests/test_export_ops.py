"""Single-op ONNX converters (issue 24) held to OpenVINO: every ``run`` case OpenVINO answered in
the opset expectation fixtures (tests/fixtures/*_expectations.*, replayed through irrun by
tests/ops/nn_cases.py) is built as a one-layer IR, exported, checked by ``onnx.checker`` and run
in onnxruntime; its outputs must equal OpenVINO's recorded ones (floats within the fixture's
tolerance: f32 1e-4, integers exactly).

Expected values are OpenVINO's, never irrun's. Without onnx and onnxruntime the module skips,
saying so (``pip install -e '.[test]'`` has both).
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent / "ops"))
from helpers import _build, _tmp  # noqa: E402
from nn_cases import TOL, array, case_ids, entry, inputs_of  # noqa: E402
from test_binary_convolution import ATTRS as BINARY_ATTRS  # noqa: E402
from test_binary_convolution import binary_conv_model, spec_case  # noqa: E402
from test_bitwise import CPU_DEVIATIONS as BITWISE_RULES  # noqa: E402
from test_bitwise import _shift as shift_rule  # noqa: E402
from test_convert_promote_types import CPU_I64 as PROMOTIONS_TO_I64  # noqa: E402
from test_dft import BY_NUMPY, numpy_answer  # noqa: E402
from test_multinomial import reference_answer as multinomial_reference  # noqa: E402
from test_unique import CPU_WRONG as UNIQUE_BY_HAND  # noqa: E402

import irrun  # noqa: E402
from irrun.ir.builder import IRWriter  # noqa: E402
from irrun.types import elements  # noqa: E402
from tools.conformance.export_suite import op_cases  # noqa: E402

onnx = pytest.importorskip("onnx", reason="onnx is not installed: pip install -e '.[test]' (or irrun[onnx])")
ort = pytest.importorskip("onnxruntime", reason="onnxruntime is not installed: pip install -e '.[test]'")
ort.set_default_logger_severity(4)

BF16 = elements.TYPES["bf16"].dtype
#: the op types whose converters this module covers (issue 24, single ops)
OPS = ("DFT", "IDFT", "RDFT", "IRDFT", "STFT", "ISTFT", "BatchToSpace", "SpaceToBatch",
       "ExtractImagePatches", "EmbeddingBagOffsets", "EmbeddingBagOffsetsSum",
       "EmbeddingSegmentsSum", "SegmentMax", "SparseFillEmptyRows", "SliceScatter", "Unique", "GatherTree",
       "Inverse", "CTCGreedyDecoder", "CTCGreedyDecoderSeqLen", "CTCLoss", "NV12toRGB", "NV12toBGR", "I420toRGB",
       "I420toBGR", "Interpolate", "FakeConvert", "RandomUniform")

#: cases whose export irrun refuses on purpose (case id -> a fragment of the reason)
REFUSED: dict[str, str] = {
    **dict.fromkeys(("DFT-params", "IDFT-params", "SpaceToBatch-params", "BatchToSpace-params"),
                    "input 1 must be a constant"),
    "RandomUniform-shape-param": "the shape, min and max must be constants",
    **dict.fromkeys(("Interpolate1-linear-5d", "Interpolate4-5d-linear"), 'mode="linear" over more than 2 spatial axes'),
}
#: cases irrun itself refuses although OpenVINO runs them (tests/ops say why): no model to export
IRRUN_REFUSES = {"SpaceToBatch-pad0", "SpaceToBatch-block0", "SpaceToBatch-negative-pad", "BatchToSpace-block0",
                 "BatchToSpace-crop0", "Interpolate11-bilinear_pillow-3-axes"}
#: the issue's f32 agreement (1e-4, relative and absolute: transforms sum many terms, so a
#: near-zero output carries the rounding of the large ones); other types as the fixtures'
TOLERANCE = dict(TOL, f32=(1e-4, 1e-4))


def export_case(case: str):
    """The case's one-layer model, its ONNX export (checked) and the feeds of its Parameters."""
    e = entry(case)
    ins, params = inputs_of(case)
    tmp = _tmp()
    model, feeds = _build(tmp, e["type"], ins, e["attrs"], e["version"], len(e["outputs"]), params)
    path = irrun.export_onnx(model, tmp / "model.onnx")
    proto = onnx.load(path)
    onnx.checker.check_model(proto, full_check=True)
    return path, feeds


def run_onnx(path: Path, feeds: dict) -> dict[str, np.ndarray]:
    """The model's outputs in onnxruntime. numpy has no bfloat16, so bf16 inputs are fed as
    OrtValues of their bits and bf16 outputs read through an exact Cast to f32 added here
    (returned as bf16 arrays again)."""
    proto = onnx.load(path)
    bf16 = onnx.TensorProto.BFLOAT16
    wide = [o.name for o in proto.graph.output if o.type.tensor_type.elem_type == bf16]
    for o in proto.graph.output:
        if o.name in wide:
            proto.graph.node.append(onnx.helper.make_node("Cast", [o.name], [o.name + ".f32"],
                                                          to=onnx.TensorProto.FLOAT))
            o.name, o.type.tensor_type.elem_type = o.name + ".f32", onnx.TensorProto.FLOAT
    options = ort.SessionOptions()
    options.log_severity_level = 4
    session = ort.InferenceSession(proto.SerializeToString(), options, providers=["CPUExecutionProvider"])
    values = {k: ort.OrtValue.ortvalue_from_numpy_with_onnx_type(v.view(np.uint16), bf16)
              if v.dtype == BF16 else ort.OrtValue.ortvalue_from_numpy(v) for k, v in feeds.items()}
    names = [o.name for o in session.get_outputs()]
    out = {n.removesuffix(".f32") if n.removesuffix(".f32") in wide else n: v.numpy()
           for n, v in zip(names, session.run_with_ort_values(names, values))}
    return {k: v.astype(BF16) if k in wide else v for k, v in out.items()}


CASES = case_ids(*OPS, kind="run", status="ok")
#: case-id fragments of Interpolate cases refused by name -> a fragment of the reason
INTERPOLATE_REFUSED = {"_pillow": "has no ONNX Resize form", "linear-antialias": "with antialias",
                       "-pads": "pads_begin/pads_end"}


def refusal(case: str) -> str | None:
    """Why the export of ``case`` is refused by name (None: it exports)."""
    if case in REFUSED:
        return REFUSED[case]
    if case.startswith("Interpolate"):
        return next((why for part, why in INTERPOLATE_REFUSED.items() if part in case), None)
    return None


@pytest.mark.parametrize("case", CASES)
def test_export_matches_openvino_in_onnxruntime(case):
    e = entry(case)
    if case in IRRUN_REFUSES:
        with pytest.raises(irrun.errors.ShapeError):
            export_case(case)
        return
    why = refusal(case)
    if why is not None:
        with pytest.raises(irrun.errors.UnsupportedError) as refused:
            export_case(case)
        assert why in refused.value.message
        return
    path, feeds = export_case(case)
    got = run_onnx(path, feeds)
    if case in UNIQUE_BY_HAND:       # the CPU plugin errs there: the spec's answer, worked by hand
        first, inverse, counts = UNIQUE_BY_HAND[case]
        data = inputs_of(case)[0][0]
        for j, want in enumerate((data[:, first], first, inverse, counts)):
            np.testing.assert_array_equal(got[f"out{j}"], want, err_msg=f"{case} output {j}")
        return
    for j, want in enumerate(e["outputs"]):
        have, expected = got[f"out{j}"], array(want["array"], want["etype"], e["fixture"])
        if case in BY_NUMPY:       # the CPU plugin errs there (tests/ops/test_dft.py): the spec's answer
            expected = numpy_answer(case).astype(expected.dtype)
        what = f"{case} output {j} (onnxruntime vs OpenVINO)"
        assert have.shape == expected.shape and have.dtype == expected.dtype, \
            f"{what}: {have.dtype}{list(have.shape)}, OpenVINO {expected.dtype}{list(expected.shape)}"
        if want["etype"] in TOLERANCE:
            rtol, atol = TOLERANCE[want["etype"]]
            np.testing.assert_allclose(have.astype(np.float64), expected.astype(np.float64), rtol=rtol,
                                       atol=atol, equal_nan=True, err_msg=what)
        else:
            np.testing.assert_array_equal(have, expected, err_msg=what)


def test_binary_convolution_exports_as_the_spec_formula(tmp_path):
    """OpenVINO's CPU plugin reads u1 kernel bits in the other order (tests/ops/
    test_binary_convolution.py): the spec's 2 * popcount(XNOR) - bits, by hand, is the oracle."""
    x, bits, want = spec_case()
    path = irrun.export_onnx(binary_conv_model(x, bits, BINARY_ATTRS, tmp_path), tmp_path / "m.onnx")
    onnx.checker.check_model(onnx.load(path), full_check=True)
    np.testing.assert_array_equal(run_onnx(path, {"x": x})["y"], want)


def _export_dynamic(b, tmp_path: Path) -> Path:
    path = irrun.export_onnx(irrun.read_model(b.save(tmp_path / "m.xml")), tmp_path / "m.onnx")
    proto = onnx.load(path)
    onnx.checker.check_model(proto, full_check=True)
    assert any(d.dim_param for d in proto.graph.input[0].type.tensor_type.shape.dim)
    return path


def test_block_layouts_stay_dynamic(tmp_path):
    """SpaceToBatch and BatchToSpace on dynamic dims: their Reshape targets come from Shape in
    the graph, so one export runs at every size. Expected: the spec's reshape -> transpose ->
    reshape by numpy, and BatchToSpace(SpaceToBatch(x)) with crops = pads is x itself."""
    from irrun.ir.builder import IRWriter
    block, pads = np.int64([1, 2, 3, 1]), np.int64([0, 1, 0, 0])
    b = IRWriter("blocks")
    x = b.parameter("x", "f32", [-1, -1, -1, 2])
    moved = b.layer("SpaceToBatch", [x, b.const(block), b.const(pads), b.const(pads)], version="opset2")
    back = b.layer("BatchToSpace", [moved, b.const(block), b.const(pads), b.const(pads)], version="opset2")
    b.result(moved, "moved")
    b.result(back, "back")
    path = _export_dynamic(b, tmp_path)
    for n, h, w in ((1, 2, 3), (2, 4, 6)):
        xv = np.arange(n * h * w * 2, dtype=np.float32).reshape(n, h, w, 2)
        got = run_onnx(path, {"x": xv})
        xp = np.pad(xv, ((0, 0), (1, 1), (0, 0), (0, 0)))
        split = xp.reshape(n, (h + 2) // 2, 2, w // 3, 3, 2, 1)       # [N, q1, b1, q2, b2, q3, b3]
        want = split.transpose(2, 4, 6, 0, 1, 3, 5).reshape(n * 6, (h + 2) // 2, w // 3, 2)
        np.testing.assert_array_equal(got["moved"], want)
        np.testing.assert_array_equal(got["back"], xv)


def test_embedding_bags_stay_dynamic(tmp_path):
    """EmbeddingBagOffsetsSum with run-time counts of indices and bags: the bag of each index
    and the bag count come from the inputs in the graph. Expected: the spec's per-bag sums by
    hand (an empty bag gets the default_index row)."""
    from irrun.ir.builder import IRWriter
    table = np.arange(12, dtype=np.float32).reshape(4, 3)
    b = IRWriter("bags")
    idx = b.parameter("indices", "i64", [-1])
    off = b.parameter("offsets", "i64", [-1])
    b.result(b.layer("EmbeddingBagOffsetsSum", [b.const(table), idx, off, b.const(np.int64(3))],
                     version="opset3"), "bags")
    path = _export_dynamic(b, tmp_path)
    got = run_onnx(path, {"indices": np.int64([0, 2, 1]), "offsets": np.int64([0, 2])})["bags"]
    np.testing.assert_array_equal(got, [table[0] + table[2], table[1]])
    got = run_onnx(path, {"indices": np.int64([1, 1, 0, 3]), "offsets": np.int64([0, 0, 1, 4])})["bags"]
    np.testing.assert_array_equal(got, [table[3], table[1], table[1] + table[0] + table[3], table[3]])


@pytest.mark.parametrize("replace", [True, False])
def test_multinomial_samples_openvinos_stream_from_run_time_probabilities(tmp_path, replace):
    """Multinomial with the probabilities a Parameter: the draws (OpenVINO's seeded stream) are
    a constant, the search in the cdf runs in the graph. OpenVINO's CPU plugin draws from
    another stream (tests/ops/test_multinomial.py): the reference rule over OpenVINO's own
    RandomUniform numbers, worked by hand, is the oracle."""
    case = "Multinomial-rep-True" if replace else "Multinomial-rep-False"
    e = entry(case)
    model, feeds = _build(tmp_path, "Multinomial", inputs_of(case)[0], e["attrs"], e["version"], 1, (0,))
    path = irrun.export_onnx(model, tmp_path / "m.onnx")
    proto = onnx.load(path)
    onnx.checker.check_model(proto, full_check=True)
    assert "random stream" in " ".join(p.value for p in proto.metadata_props)
    np.testing.assert_array_equal(run_onnx(path, feeds)["out0"], multinomial_reference(replace))


@pytest.mark.parametrize("case", case_ids(*OPS, "Multinomial", kind="shape", status="ok"))
def test_shape_case_exports_or_is_refused_by_name(case):
    """OpenVINO's shape cases (dynamic dims, run-time attributes-as-inputs): the export passes
    onnx.checker, or names why not (irrun's own refusal of the layer, or no ONNX form, exit 3);
    it never fails otherwise."""
    e = entry(case)
    ins, params = inputs_of(case)
    tmp = _tmp()
    try:
        model, _ = _build(tmp, e["type"], ins, e["attrs"], e["version"], len(e["outputs"]), params)
        path = irrun.export_onnx(model, tmp / "model.onnx")
    except irrun.errors.IrrunError as refused:
        assert refused.exit_code in (2, 3), refused.message
        named = refused.layer is not None and refused.layer.type == e["type"]
        assert named or e["type"] in refused.message or "has a dynamic rank" in refused.message, refused.message
        return
    onnx.checker.check_model(onnx.load(path), full_check=True)


def _export_layer(tmp_path: Path, op_type: str, inputs: list, attrs: dict, version: str, params=(0,),
                  n_out: int = 1) -> tuple[dict[str, np.ndarray], dict]:
    """One layer built from ``inputs`` (Parameters at ``params``, Consts elsewhere), exported,
    checked and run in onnxruntime: (its outputs, the feeds)."""
    model, feeds = _build(tmp_path, op_type, inputs, attrs, version, n_out, params)
    path = irrun.export_onnx(model, tmp_path / "m.onnx")
    onnx.checker.check_model(onnx.load(path), full_check=True)
    return run_onnx(path, feeds), feeds


def _openvino_case(case_id: str):
    """The op replay's case (tools/conformance/export_suite.py): OpenVINO's inputs and outputs."""
    (case,) = [c for c in op_cases(case_id) if c.id == case_id]
    return case


@pytest.mark.parametrize("case", sorted(BITWISE_RULES) + PROMOTIONS_TO_I64)
def test_64_bit_integer_cases_export_the_rule_not_the_cpu_plugins_32_bits(case, tmp_path):
    """Bitwise ops and ConvertPromoteTypes on 64-bit integers (and u32 right shifts): OpenVINO has
    no reference kernel, its CPU plugin computes them in 32 bits (the op tests say so per case);
    the export, like irrun, must give the op's rule: NumPy's / Python integers' answer."""
    e = entry(case)
    ins, params = inputs_of(case)
    if "Shift-i" in case:        # signed shifts: ONNX BitShift has none, refused by name
        with pytest.raises(irrun.errors.UnsupportedError, match="unsigned integers only"):
            _export_layer(tmp_path, e["type"], ins, e["attrs"], e["version"], params)
        return
    got, _ = _export_layer(tmp_path, e["type"], ins, e["attrs"], e["version"], params, len(e["outputs"]))
    if case in BITWISE_RULES:
        wants = [BITWISE_RULES[case][1](*ins)]
    else:                        # a widening Convert: NumPy's cast is exact
        wants = [x.astype(np.int64) for x in ins]
    for j, want in enumerate(wants):
        np.testing.assert_array_equal(got[f"out{j}"], want, err_msg=f"{case} output {j}")


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.uint32, np.uint64])
@pytest.mark.parametrize("op", ["BitwiseLeftShift", "BitwiseRightShift"])
def test_shift_counts_past_the_width_are_taken_modulo_it(op, dtype, tmp_path):
    """BitwiseLeftShift/RightShift-15 count modulo the width the value is shifted in (the type's,
    at least 32 bits); ONNX BitShift leaves such counts undefined (onnxruntime: 1 << 33 on u32
    is 0, the rule's is 2). Expected: the rule written with Python integers (tests/ops/test_bitwise.py)."""
    a = np.array([1, 3, 200, 77, 5, 6], dtype)
    b = np.array([9, 33, 65, 31, 64, 0], dtype)
    got, _ = _export_layer(tmp_path, op, [a, b], {}, "opset15", params=(0, 1))
    np.testing.assert_array_equal(got["out0"], shift_rule(op == "BitwiseLeftShift")(a, b))


@pytest.mark.parametrize("case", [c.id for c in op_cases("-no-axes-param")])
def test_reductions_over_no_constant_axes_leave_the_data(case, tmp_path):
    """Reduce* over an empty constant axes input reduces over nothing (OpenVINO's answer: the data,
    |x| for ReduceL1/L2), where ONNX's default (noop_with_empty_axes=0) would reduce every axis.
    The math fixture feeds the axes; here they are a Const, so the output keeps a static rank."""
    c = _openvino_case(case)
    (x, _), (axes, _) = c.inputs
    got, _ = _export_layer(tmp_path, c.type, [x, axes], c.attrs, c.version)
    np.testing.assert_allclose(got["out0"], c.expected[0][0], rtol=1e-6)


def test_normalize_l2_with_run_time_axes_handles_none(tmp_path):
    """NormalizeL2 whose axes arrive at run time: with none, every non-zero element becomes 1
    (OpenVINO's NormalizeL2-empty-axes), with [1] the usual norm over axis 1 (OpenVINO's
    NormalizeL2-scalar-axis; its eps 1e-12 against 1e-6 here changes nothing on these sums)."""
    empty, one = _openvino_case("NormalizeL2-empty-axes"), _openvino_case("NormalizeL2-scalar-axis")
    x = empty.inputs[0][0]
    np.testing.assert_array_equal(x, one.inputs[0][0])
    b = IRWriter("norm")
    data, axes = b.parameter("x", "f32", list(x.shape)), b.parameter("axes", "i64", [-1])
    b.result(b.layer("NormalizeL2", [data, axes], empty.attrs), "y")
    path = irrun.export_onnx(irrun.read_model(b.save(tmp_path / "m.xml")), tmp_path / "m.onnx")
    onnx.checker.check_model(onnx.load(path), full_check=True)
    for axes_value, case in ((np.int64([]), empty), (np.int64([1]), one)):
        got = run_onnx(path, {"x": x, "axes": axes_value})["y"]
        np.testing.assert_allclose(got, case.expected[0][0], rtol=1e-5, atol=1e-6, err_msg=case.id)


def test_integers_converted_to_f16_saturate(tmp_path):
    """Convert-1 to f16 from i32: OpenVINO saturates to f16's range (its ConvertLike-i32-to-f16:
    -70000 -> -65504), ONNX Cast gives inf. The same values through Convert and ConvertLike."""
    c = _openvino_case("ConvertLike-i32-to-f16")
    x, want = c.inputs[0][0], c.expected[0][0]
    got, _ = _export_layer(tmp_path, "Convert", [x], {"destination_type": "f16"}, "opset1")
    np.testing.assert_array_equal(got["out0"], want)
    assert np.isfinite(want).all()
