"""benchmark_app's habits (issue 26, point 7): ``-niter N``, ``-d CPU`` (another device refused by
name, exit 3), ``-shape``, and a latency/throughput summary at the end of ``--profile``."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from irrun.cli.main import main
from irrun.errors import EXIT_UNSUPPORTED

ZOO = Path(__file__).parent / "fixtures" / "zoo"
RESNET = ZOO / "resnet_fp32" / "model.xml"
BERT = ZOO / "bert_fp32" / "model.xml"


def run_cli(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def test_niter_profiles_and_ends_with_latency_and_throughput(capsys):
    code, out, err = run_cli(capsys, "-m", RESNET, "--random-inputs", "-niter", "3", "-d", "CPU")
    assert code == 0, err
    lines = out.rstrip().splitlines()
    assert "over 3 runs after 1 warm-up" in out
    lat = re.fullmatch(r"latency \(wall time per run, 3 runs\): median ([\d.]+) ms, average ([\d.]+), "
                       r"min ([\d.]+), max ([\d.]+)", lines[-2])
    assert lat, lines[-2]
    med, avg, lo, hi = map(float, lat.groups())
    assert lo <= med <= hi and lo <= avg <= hi
    thr = re.fullmatch(r"throughput: ([\d.]+) inferences/s \(one at a time: 1 / median latency\)", lines[-1])
    assert thr and float(thr[1]) == pytest.approx(1000 / med, rel=0.01)


def test_profile_json_has_the_summary(capsys):
    code, out, err = run_cli(capsys, RESNET, "--random-inputs", "--profile", "-n", "2", "--json")
    assert code == 0, err
    j = json.loads(out)
    assert set(j["latency_ms"]) == {"median", "average", "min", "max"}
    assert j["throughput_per_s"] == pytest.approx(1000 / j["latency_ms"]["median"], rel=0.01)


@pytest.mark.parametrize("device", ["GPU", "NPU", "AUTO"])
def test_another_device_is_refused_by_name(capsys, device):
    code, out, err = run_cli(capsys, "-m", RESNET, "--random-inputs", "-d", device)
    assert code == EXIT_UNSUPPORTED
    assert err.startswith(f'irrun: unsupported: device "{device}": irrun runs models with NumPy on the CPU only')


def test_shape_like_benchmark_app(capsys, tmp_path):
    code, out, err = run_cli(capsys, "-m", BERT, "--random-inputs", "-shape", "input_ids=1,8", "-shape",
                             "attention_mask=1,8", "-shape", "token_type_ids=1,8", "-o", tmp_path / "o.npz")
    assert code == 0, err
    import numpy as np
    assert np.load(tmp_path / "o.npz")["last_hidden_state"].shape == (1, 8, 32)


def test_niter_and_iterations_must_agree(capsys):
    code, out, err = run_cli(capsys, RESNET, "--random-inputs", "-niter", "3", "--iterations", "4")
    assert code == 2 and "-niter 3 and --iterations 4 disagree" in err
