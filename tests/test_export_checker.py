"""The export never writes an ONNX file that ONNX's checker (strict type and shape inference,
``full_check``) refuses, since onnxruntime would not load it either (issue 24): such an export is
refused like a layer with no ONNX form (UnsupportedError, exit 3, nothing written), naming the IR
layer whose ONNX node the checker refused. The one-layer models are the opset fixtures' cases
(tests/fixtures/*_expectations), the refusals ONNX's own operator schemas (Elu, HardSigmoid, Pow,
ReduceSum, Conv take float tensors only).
"""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import irrun  # noqa: E402
from irrun.cli.main import main  # noqa: E402
from tools.conformance import export_suite  # noqa: E402

onnx = pytest.importorskip("onnx", reason="onnx is not installed: pip install -e '.[test]' (or irrun[onnx])")

#: fixture case -> the layer (name, type-version) and the ONNX op whose schema refuses its input type
REFUSED = {
    "Elu-i32": ("Elu_1 (Elu-opset1)", "Elu", "tensor(int32)"),
    "HSigmoid-u8": ("HSigmoid_1 (HSigmoid-opset5)", "HardSigmoid", "tensor(uint8)"),
    "Power-i8": ("Power_2 (Power-opset1)", "Pow", "tensor(int8)"),
    "ReduceSum-u8": ("ReduceSum_2 (ReduceSum-opset1)", "ReduceSum", "tensor(uint8)"),
    "Convolution-i32": ("Convolution_2 (Convolution-opset1)", "Conv", "tensor(int32)"),
}


def op_case(case: str) -> export_suite.OpCase:
    return next(c for c in export_suite.op_cases(case) if c.id == case)


def one_layer(case: str, directory: Path) -> irrun.Model:
    """The fixture case's layer as a one-layer IR in ``directory`` (export_suite's builder)."""
    xml, _ = export_suite._one_layer_ir(op_case(case), directory)
    return irrun.read_model(xml)


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_export_the_checker_refuses_is_refused_naming_the_layer(case, tmp_path):
    layer, onnx_op, etype = REFUSED[case]
    model = one_layer(case, tmp_path)
    target = tmp_path / "refused.onnx"
    with pytest.raises(irrun.errors.UnsupportedError) as refused:
        irrun.export_onnx(model, target)
    message = refused.value.message
    assert "nothing written" in message and layer in message, message
    assert f"op_type:{onnx_op}" in message and etype in message, message
    assert "\n" not in message
    assert not target.exists()
    assert refused.value.exit_code == 3


def test_cli_refusal_exits_3_and_writes_nothing(tmp_path, capsys):
    model = one_layer("Elu-i8", tmp_path)
    target = tmp_path / "elu.onnx"
    code = main(["export", str(model.path), "-o", str(target)])
    err = capsys.readouterr().err
    assert code == 3, err
    assert "Elu_1 (Elu-opset1)" in err and "Traceback" not in err
    assert not target.exists()


def test_external_data_export_is_checked_strictly_too(tmp_path):
    model = one_layer("ReduceSum-u8", tmp_path)
    target = tmp_path / "external.onnx"
    with pytest.raises(irrun.errors.UnsupportedError, match=r"ReduceSum_2 \(ReduceSum-opset1\)"):
        irrun.export_onnx(model, target, external_data=True)
    assert not target.exists() and not (tmp_path / "external.onnx.data").exists()


@pytest.mark.parametrize("case", ["MaxPool14-k2s3p1-ceil_torch", "AvgPool14-incl-k2s3p1-ceil_torch",
                                  "Einsum-bcast-label-out"])
def test_shapes_onnx_infers_otherwise_are_made_explicit(case, tmp_path):
    """ceil_torch pools (onnxruntime drops a last window ONNX's inference keeps) and Einsum labels
    broadcast from 1 (ONNX infers the first input's size) pass the strict checker with OpenVINO's
    output shape; tests/test_export_op_replay.py holds their values to OpenVINO's."""
    model = one_layer(case, tmp_path)
    proto = onnx.load(irrun.export_onnx(model, tmp_path / "model.onnx"))
    inferred = onnx.shape_inference.infer_shapes(proto, strict_mode=True)
    dims = [d.dim_value for d in inferred.graph.output[0].type.tensor_type.shape.dim]
    assert dims == list(op_case(case).expected[0][0].shape)
