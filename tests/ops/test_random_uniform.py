"""RandomUniform-8: OpenVINO's own Philox stream, bit for bit (opsets_expectations: the CPU plugin,
which agrees with the reference kernel), for every output type and both alignments irrun has (tensorflow, pytorch)."""

import numpy as np
import pytest

from helpers import run_op
from nn_cases import case_ids, replay


@pytest.mark.parametrize("case", case_ids("RandomUniform"))
def test_openvino_case(case):
    replay(case)


def ru(shape, lo, hi, **attrs):
    a = {"output_type": "f32", "global_seed": "7", "op_seed": "3", **attrs}
    return run_op("RandomUniform", [np.int64(shape), np.float32(lo), np.float32(hi)], a, "opset8", params=())[0]


def test_range_and_determinism():
    x = ru([1000], -2, 3)
    assert x.min() >= -2 and x.max() < 3 and x.std() > 1         # spread over the range
    np.testing.assert_array_equal(x, ru([1000], -2, 3))            # same seeds, same numbers
    np.testing.assert_array_equal(x[:10], ru([10], -2, 3))         # a prefix of the same stream
    assert not np.array_equal(x, ru([1000], -2, 3, op_seed="4"))


def test_unseeded_runs_differ():
    a = ru([64], 0, 1, global_seed="0", op_seed="0")
    assert not np.array_equal(a, ru([64], 0, 1, global_seed="0", op_seed="0"))


def test_pytorch_alignment_is_torchs_cpu_stream():
    # torch.manual_seed(42); torch.rand(3): the MT19937 words' low 24 bits / 2**24
    words = np.random.RandomState(42).randint(0, 2 ** 32, 3, dtype=np.uint64)
    np.testing.assert_array_equal(ru([3], 0, 1, global_seed="42", alignment="pytorch"),
                                  ((words & 0xFFFFFF) / 2.0 ** 24).astype(np.float32))
