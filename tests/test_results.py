"""Results and calls as OpenVINO users write them (issue 26, point 5): ``model(x)``, and outputs
indexed by position, any tensor name and output port like OpenVINO's ``OVDict`` — while staying a
dict keyed by output name. OpenVINO is the oracle for what each index means."""
from __future__ import annotations

import pickle
from pathlib import Path

import numpy as np
import pytest

import irrun
from helpers import needs_openvino

ROOT = Path(__file__).resolve().parent.parent
BERT = ROOT / "tests" / "fixtures" / "zoo" / "bert_fp32"            # outputs: last_hidden_state, pooler_output
SAMPLE = ROOT / "samples" / "shufflenet_block" / "model.xml"


def bert_inputs() -> dict[str, np.ndarray]:
    return dict(np.load(BERT / "inputs.npz"))


def test_call_is_run_and_results_stay_a_dict():
    model = irrun.read_model(SAMPLE)
    x = np.load(SAMPLE.parent / "input.npy")
    res = model(x)
    assert isinstance(res, dict) and isinstance(res, irrun.Results)
    assert list(res) == ["y"] and list(res.keys()) == [p.name for p in model.outputs]
    np.testing.assert_array_equal(res["y"], model.run(x)["y"])
    assert dict(res).keys() == {"y"} and res.to_dict()["y"] is res["y"]
    assert pickle.loads(pickle.dumps(res)).keys() == res.keys()


def test_index_by_position_alias_and_port():
    model = irrun.read_model(BERT / "model.xml")
    res = model(bert_inputs())
    names = list(res)
    assert names == ["last_hidden_state", "pooler_output"]
    assert res[0] is res["last_hidden_state"] and res[1] is res["pooler_output"] and res[-1] is res[1]
    assert res[model.outputs[1]] is res["pooler_output"]
    for port in model.outputs:
        for alias in port.names:                                     # every tensor name of the output
            assert res[alias] is res[port.name]
    assert [a.shape for a in res.to_tuple()] == [res[0].shape, res[1].shape]
    with pytest.raises(KeyError, match=r"output index 2 is out of range: the model has 2 outputs"):
        res[2]
    with pytest.raises(KeyError, match=r"nope is no output of this run \(outputs: last_hidden_state, pooler_output"):
        res["nope"]
    assert res.get("nope") is None and res.get(1) is res[1]


@needs_openvino
def test_positions_mean_what_they_mean_in_openvino(tmp_path):
    """OpenVINO's ``compiled_model(x)[i]``, run in a child, against ``model(x)[i]``."""
    import json
    import os
    import subprocess
    import sys
    feeds = bert_inputs()
    np.savez(tmp_path / "in.npz", **feeds)
    code = ("import sys, json, numpy as np, openvino as ov\n"
            "cm = ov.Core().compile_model(sys.argv[1], 'CPU', {'INFERENCE_PRECISION_HINT': 'f32'})\n"
            "res = cm(dict(np.load(sys.argv[2])))\n"
            "np.savez(sys.argv[3], *[res[i] for i in range(len(cm.outputs))])\n"
            "print(json.dumps([sorted(o.get_names()) for o in cm.outputs]))\n")
    proc = subprocess.run([sys.executable, "-I", "-c", code, str(BERT / "model.xml"), str(tmp_path / "in.npz"),
                           str(tmp_path / "out.npz")], cwd=tmp_path, capture_output=True, text=True,
                          env={**os.environ, "CI": "true"}, timeout=300)
    assert proc.returncode == 0, proc.stderr
    ov_names = json.loads(proc.stdout.strip().splitlines()[-1])
    ov = np.load(tmp_path / "out.npz")
    res = irrun.read_model(BERT / "model.xml")(feeds)
    for i, names in enumerate(ov_names):
        np.testing.assert_allclose(res[i], ov[f"arr_{i}"], rtol=1e-4, atol=1e-5)
        for name in names:
            assert res[name] is res[i]
