"""BinaryConvolution-1: the spec's formula ``2 * popcount(XNOR(patch, kernel)) - bits`` by hand on
0/1 data and a u1 kernel stored as OpenVINO lays u1 out (element 0 in the most significant bit),
and OpenVINO's shape rule (opsets_expectations). OpenVINO's CPU plugin reads the kernel bits in the
other order within each byte, so its values are not the oracle here (see irrun/ops/binary_convolution.py)."""

import numpy as np
import pytest

import irrun
from irrun.ir.builder import IRWriter
from nn_cases import case_ids, replay

ATTRS = {"strides": "1,1", "pads_begin": "1,0", "pads_end": "0,1", "dilations": "1,1", "mode": "xnor-popcount",
         "pad_value": "1", "auto_pad": "explicit"}


@pytest.mark.parametrize("case", case_ids("BinaryConvolution"))
def test_openvino_shape_case(case):
    replay(case)


def binary_conv_model(x, bits, attrs, tmp_path):
    """A BinaryConvolution of a Parameter ``x`` with the u1 kernel ``bits`` (OpenVINO's layout)."""
    b = IRWriter("op")
    p = b.parameter("x", "f32", list(x.shape))
    w = b.const(None, etype="u1", raw=np.packbits(bits.reshape(-1), bitorder="big").tobytes(), shape=list(bits.shape))
    b.result(b.layer("BinaryConvolution", [p, w], attrs), "y")
    return irrun.read_model(b.save(tmp_path / "m.xml"))


def binary_conv(x, bits, attrs, tmp_path):
    return binary_conv_model(x, bits, attrs, tmp_path).run({"x": x})["y"]


def spec_case():
    """(0/1 data [1, 3, 4, 5], kernel bits [2, 3, 2, 2], the spec's output under ATTRS) by hand."""
    rng = np.random.default_rng(4)
    x = rng.integers(0, 2, (1, 3, 4, 5)).astype(np.float32)
    bits = rng.integers(0, 2, (2, 3, 2, 2)).astype(np.uint8)
    xp = np.pad(x, ((0, 0), (0, 0), (1, 0), (0, 1)), constant_values=1)     # pad_value 1 is bit 1
    want = np.zeros((1, 2, 4, 5), np.float32)
    for o in range(2):
        for i in range(4):
            for j in range(5):
                xnor = xp[0, :, i:i + 2, j:j + 2] == bits[o]
                want[0, o, i, j] = 2 * xnor.sum() - xnor.size
    return x, bits, want


def test_spec_formula(tmp_path):
    x, bits, want = spec_case()
    np.testing.assert_array_equal(binary_conv(x, bits, ATTRS, tmp_path), want)
