"""Multinomial-13 by OpenVINO's reference kernel: the uniform samples are RandomUniform-8's Philox
stream with the same seeds, taken from OpenVINO's own RandomUniform output (opsets_expectations),
and searched in each row's normalised cdf here by hand. OpenVINO's CPU plugin draws from
std::mt19937 instead (see irrun/ops/multinomial.py), so its sample values are not the oracle; its
shapes, types and rejections are."""

import numpy as np
import pytest

from helpers import run_op
from nn_cases import array, case_ids, entry, inputs_of, replay, run_case


@pytest.mark.parametrize("case", case_ids("Multinomial", kind="shape") + case_ids("Multinomial", status="error"))
def test_openvino_shape_case(case):
    replay(case)


@pytest.mark.parametrize("case", case_ids("Multinomial", kind="run", status="ok"))
def test_openvino_run_case_shapes(case):
    got = run_case(case)[0]
    want = array(entry(case)["outputs"][0]["array"], "i64", "opsets_expectations")
    assert got.shape == want.shape and got.dtype == want.dtype
    probs = inputs_of(case)[0][0]
    assert (got >= 0).all() and (got < probs.shape[-1]).all()


def reference_answer(replace: bool = True) -> np.ndarray:
    """Case Multinomial-rep-True (-False: without replacement) by the reference rule, its
    samples OpenVINO's own RandomUniform stream under the same seeds, searched here by hand;
    without replacement the chosen class leaves the cdf, which is renormalised."""
    e = entry("RandomUniform-multinomial-stream")
    u = array(e["outputs"][0]["array"], "f32", "opsets_expectations")           # [3, 5] in [0, 1)
    probs = inputs_of("Multinomial-rep-True")[0][0]                            # [3, 6], seeds 7/11
    cdf = np.cumsum(probs, axis=1, dtype=np.float32)
    cdf = cdf / cdf[:, -1:]
    out = np.zeros((3, 5), np.int64)
    for b in range(3):
        c = cdf[b].copy()
        for j in range(5):
            k = int(np.argmax(u[b, j] <= c))
            out[b, j] = k
            if not replace:      # (the last class left has p = 1: 0 / 0, as the reference kernel)
                p = c[k] - (c[k - 1] if k else np.float32(0))
                c[k:] -= p
                with np.errstate(invalid="ignore", divide="ignore"):
                    c /= np.float32(1) - p
    return out


def test_reference_rule_with_openvinos_stream():
    np.testing.assert_array_equal(run_case("Multinomial-rep-True")[0], reference_answer())
    np.testing.assert_array_equal(run_case("Multinomial-rep-False")[0], reference_answer(replace=False))


def sample(probs, n, replace):
    a = {"convert_type": "i64", "with_replacement": str(replace).lower(), "log_probs": "false",
         "global_seed": "3", "op_seed": "4"}
    return run_op("Multinomial", [probs, np.int64(n)], a, "opset13", params=())[0]


def test_zero_probability_never_drawn_and_no_repeats():
    probs = np.float32([[0.5, 0, 0.25, 0.25]])
    assert 1 not in sample(probs, 200, True)
    assert sorted(sample(probs, 3, False)[0]) == [0, 2, 3]
