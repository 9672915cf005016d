"""ConvertPromoteTypes-14: OpenVINO's measured promotions (opsets_expectations: the common type of
each pair, safe and unsafe, PyTorch scalar rule; its values) and the rules' refusals.

OpenVINO has no reference kernel for it; its CPU plugin computes i64 in i32, so where the common
type is i64 its values wrap (u32 4e9 -> -294967296, 2**40 -> 0). There the expected values are
Convert-1's rule, written here as NumPy's cast (exact for these integer widenings)."""

import numpy as np
import pytest

from helpers import Param, infer_op, raises_for
from irrun.errors import ShapeError
from nn_cases import case_ids, entry, inputs_of, replay, run_case

CPU_I64 = [c for c in case_ids("ConvertPromoteTypes", status="ok")
           if entry(c)["outputs"][0]["etype"] == "i64"]


@pytest.mark.parametrize("case", [c for c in case_ids("ConvertPromoteTypes") if c not in CPU_I64])
def test_openvino_case(case):
    replay(case)


@pytest.mark.parametrize("case", CPU_I64)
def test_i64_promotions_convert_exactly(case):
    ins, _ = inputs_of(case)
    for got, x in zip(run_case(case), ins, strict=True):
        assert got.dtype == np.int64
        np.testing.assert_array_equal(got, x.astype(np.int64))


@pytest.mark.parametrize("x, y, want", [("u8", "i8", "i16"), ("u32", "i8", "i64"), ("f16", "i8", "f16"),
                                        ("boolean", "u16", "u16"), ("i16", "i32", "i32")])
def test_promotions(x, y, want):
    out = infer_op("ConvertPromoteTypes", [Param(x, "2"), Param(y, "3")], {"promote_unsafe": "true"}, "opset14",
                   n_out=2, params=(0, 1))
    assert [o.etype.name for o in out] == [want, want]
    assert [str(o.shape) for o in out] == ["[2]", "[3]"]


def test_safe_mode_refuses_lossy_pairs():
    raises_for("ConvertPromoteTypes", ShapeError, "cannot be safely promoted", infer_op, "ConvertPromoteTypes",
               [Param("f16", "2"), Param("i32", "2")], None, "opset14", 2, (0, 1))
