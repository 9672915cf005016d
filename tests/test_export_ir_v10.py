"""``irrun export MODEL.xml --ir-version 10 -o OUT.xml`` (issue 24, openvinotoolkit/openvino#29324):
an IR v10 file for the runtimes that read only v10. OpenVINO (the oracle, in an isolated child:
irrun.debug.openvino_reference) must read the written file and compute, at every port, what it
computes for the original; what has no v10 form is refused by name with nothing written.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from helpers import needs_openvino

import irrun
from irrun.cli.main import main
from irrun.errors import UnsupportedError

FIXTURES = Path(__file__).parent / "fixtures"
CASES = {
    "mobilenet_v2_fp32": FIXTURES / "zoo" / "mobilenet_v2_fp32",
    "resnet_fp16": FIXTURES / "zoo" / "resnet_fp16",               # MaxPool-14 written as MaxPool-8
    "public_v10_fp16": FIXTURES / "public" / "landmarks-regression-retail-0009-fp16-v10",
    "u4_asym_group": FIXTURES / "compressed" / "u4_asym_group",
}


def _layers_text(xml: Path) -> str:
    text = xml.read_text(encoding="utf-8")
    return text[text.index("<layers>"):text.rindex("</edges>")]     # the model-level rt_info stays


@needs_openvino
@pytest.mark.parametrize("case", CASES, ids=str)
def test_openvino_reads_the_v10_file_and_computes_every_port_as_for_the_original(case, tmp_path):
    from irrun.debug.openvino_reference import all_ports
    src = CASES[case] / "model.xml"
    out = tmp_path / "v10.xml"
    assert main(["export", str(src), "--ir-version", "10", "-o", str(out)]) == 0
    assert '<net name=' in out.read_text(encoding="utf-8") and ' version="10"' in out.read_text(encoding="utf-8")[:400]
    assert "<rt_info" not in _layers_text(out)
    assert 'version="opset14"' not in out.read_text(encoding="utf-8")
    assert out.with_suffix(".bin").read_bytes() == src.with_suffix(".bin").read_bytes()
    original, v10 = irrun.read_model(src), irrun.read_model(out)
    rng = np.random.default_rng(0)
    feeds = {s.name: rng.standard_normal([d.lo for d in s.shape]).astype(np.float32) for s in original.inputs}
    want, got = all_ports(original, feeds), all_ports(v10, feeds)
    assert set(got) == set(want) and want
    for key in want:
        np.testing.assert_array_equal(got[key].astype(np.float64), want[key].astype(np.float64), err_msg=key)


def test_what_v10_runtimes_lack_is_refused_by_name_and_nothing_written(tmp_path, capsys):
    out = tmp_path / "g.xml"
    code = main(["export", str(FIXTURES / "zoo" / "gpt2_sdpa_fp32" / "model.xml"), "--ir-version", "10", "-o", str(out)])
    err = capsys.readouterr().err
    assert code == 3
    assert "input input_ids has the dynamic shape [?,?]" in err and "irrun reshape" in err
    assert err.count("(ScaledDotProductAttention-opset13): an op version OpenVINO 2021.4 and older do not know") == 2
    assert list(tmp_path.iterdir()) == []


def test_new_element_types_are_refused(tmp_path):
    from irrun.export.ir_v10 import write_ir_v10
    with pytest.raises(UnsupportedError, match="element type nf4, which IR v10 runtimes do not know"):
        write_ir_v10(FIXTURES / "compressed" / "nf4_group" / "model.xml", tmp_path / "n.xml")
    assert list(tmp_path.iterdir()) == []


def test_a_newer_op_option_keeps_the_newer_version_and_is_refused(tmp_path):
    """MaxPool-14 with rounding_type ceil_torch has no MaxPool-8 form."""
    from irrun.export.ir_v10 import write_ir_v10
    from irrun.ir.builder import IRWriter
    b = IRWriter("pool")
    x = b.parameter("x", "f32", [1, 1, 5, 5])
    y = b.layer("MaxPool", [x], {"strides": "2,2", "dilations": "1,1", "pads_begin": "0,0", "pads_end": "0,0",
                                 "kernel": "2,2", "rounding_type": "ceil_torch", "auto_pad": "explicit",
                                 "index_element_type": "i64", "axis": "0"}, version="opset14", n_out=2)
    b.result(y[0], "y")
    xml = b.save(tmp_path / "pool.xml")
    with pytest.raises(UnsupportedError, match=r"\(MaxPool-opset14\): an op version"):
        write_ir_v10(xml, tmp_path / "out.xml")
    assert not (tmp_path / "out.xml").exists()


def test_onnx_options_are_a_usage_error_with_ir_version(tmp_path, capsys):
    code = main(["export", str(CASES["mobilenet_v2_fp32"] / "model.xml"), "--ir-version", "10", "-o",
                 str(tmp_path / "m.xml"), "--verify"])
    assert code == 2 and "--verify: for the ONNX export" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_the_v10_file_is_written_beside_never_over_the_model(tmp_path, capsys):
    src = CASES["mobilenet_v2_fp32"]
    xml = tmp_path / "model.xml"
    xml.write_bytes((src / "model.xml").read_bytes())
    (tmp_path / "model.bin").write_bytes((src / "model.bin").read_bytes())
    code = main(["export", str(xml), "--ir-version", "10", "-o", str(xml)])
    assert code == 2 and "one of the files this command reads" in capsys.readouterr().err
    assert xml.read_bytes() == (src / "model.xml").read_bytes()
