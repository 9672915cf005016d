"""A model folder (issue 26, point 6): optimum-intel exports ``openvino_model.xml`` (and the
tokenizers beside it) into a directory; ``irrun DIR``, ``irrun check DIR`` and ``read_model(DIR)``
take the folder's model, and a folder of several other models lists them."""
from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

import irrun
from irrun.cli.main import main

SAMPLE = Path(__file__).resolve().parent.parent / "samples" / "shufflenet_block"


def run_cli(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def copy_model(d: Path, stem: str) -> None:
    d.mkdir(exist_ok=True)
    shutil.copy(SAMPLE / "model.xml", d / f"{stem}.xml")
    shutil.copy(SAMPLE / "model.bin", d / f"{stem}.bin")


def test_optimum_layout_takes_openvino_model(tmp_path, capsys):
    d = tmp_path / "export"
    copy_model(d, "openvino_model")
    copy_model(d, "openvino_tokenizer")
    copy_model(d, "openvino_detokenizer")
    model = irrun.read_model(d)
    assert Path(model.path) == d / "openvino_model.xml"
    x = np.load(SAMPLE / "input.npy")
    np.testing.assert_array_equal(model(x)["y"], irrun.read_model(SAMPLE / "model.xml")(x)["y"])
    code, out, err = run_cli(capsys, d, "-i", SAMPLE / "input.npy")
    assert code == 0 and out.startswith("y  float32[1,8,4,4]"), err
    code, out, err = run_cli(capsys, "check", d)
    assert code == 0 and out.strip() == f"{d / 'openvino_model.xml'}: OK, no problems found"


def test_a_folder_with_one_model_takes_it(tmp_path, capsys):
    copy_model(tmp_path / "m", "whatever")
    code, out, err = run_cli(capsys, "info", tmp_path / "m")
    assert code == 0 and out.startswith(f"{tmp_path / 'm' / 'whatever.xml'}: IR v11")


def test_several_models_are_listed(tmp_path, capsys):
    d = tmp_path / "s2s"
    copy_model(d, "openvino_encoder_model")
    copy_model(d, "openvino_decoder_model")
    code, out, err = run_cli(capsys, d, "--random-inputs")
    assert code == 2
    assert err == (f"irrun: unreadable model: {d}: is a directory holding 2 models (openvino_decoder_model.xml, "
                   f"openvino_encoder_model.xml); give one of them, e.g. {d / 'openvino_decoder_model.xml'}\n")


def test_an_empty_folder_says_so(tmp_path):
    with pytest.raises(irrun.ModelFileError, match="is a directory with no IR .xml file in it"):
        irrun.read_model(tmp_path)
