"""The support matrix: docs/ops.md is what ``irrun ops --markdown`` prints, and every op type of
the tier-1 and warm lists (docs/opsets.md, the ops real models use most) is registered
and exercised by some test."""
from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pytest

from irrun.cli.ops import markdown, matrix

ROOT = Path(__file__).resolve().parents[1]

#: opsets.md "Tier-1 checklist" and "Warm (next 30)", OpenVINO's class names
TIER1 = """Parameter Result Constant Convert ReadValue Assign Add Subtract Multiply Divide Power Sqrt Exp
Negative Maximum Minimum Floor FloorMod Erf Tanh Sin Cos Relu Sigmoid Clamp Swish HSwish HSigmoid Gelu
Softmax Mish PRelu Equal NotEqual Less LessEqual Greater GreaterEqual LogicalAnd LogicalOr LogicalNot
Select MatMul Convolution GroupConvolution ConvolutionBackpropData MaxPool AvgPool MVN NormalizeL2
GroupNormalization ReduceMean ReduceSum ReduceMax ReduceProd Concat Reshape Transpose Squeeze Unsqueeze
Gather Slice StridedSlice Split VariadicSplit Broadcast Tile Pad ScatterUpdate ScatterNDUpdate
ShuffleChannels DepthToSpace ShapeOf Range ScaledDotProductAttention TopK CumSum Interpolate
FakeQuantize NonMaxSuppression""".split()
WARM = """Abs Log Ceiling Round Sign Elu LogSoftmax SquaredDifference ReduceMin ReduceL2 GatherElements
GatherND ScatterElementsUpdate SpaceToDepth AdaptiveAvgPool BatchNormInference ConvertLike Einsum
NonZero OneHot Roll IsNaN IsInf Loop If TensorIterator LSTMSequence GRUSequence DetectionOutput
PriorBox PriorBoxClustered RegionYolo""".split()
#: the versions opsets.md names for the hot types (old MO-era and new front ends)
VERSIONS = {"Gather": (1, 7, 8), "Softmax": (1, 8), "MaxPool": (1, 8, 14), "AvgPool": (1, 14, 16),
            "Interpolate": (1, 4, 11), "TopK": (1, 3, 11), "MVN": (2, 6), "Broadcast": (1, 3),
            "Pad": (1, 12), "ShapeOf": (1, 3), "Range": (1, 4), "Squeeze": (1, 15),
            "ScatterNDUpdate": (4, 15), "ReadValue": (3, 6), "Assign": (3, 6), "Gelu": (2, 7),
            "NonMaxSuppression": (5, 9)}
#: how IR files spell a type where it differs from the class name
WRITTEN = {"Constant": "Const", "Relu": "ReLU", "Softmax": "SoftMax", "PRelu": "PReLU"}


def test_docs_ops_md_is_current():
    assert (ROOT / "docs/ops.md").read_text(encoding="utf-8") == markdown(), \
        "regenerate it: irrun ops --markdown > docs/ops.md"


@cache
def _tested_text() -> str:
    parts = [p.read_text(encoding="utf-8", errors="replace") for p in (ROOT / "tests").rglob("*")
             if p.suffix in (".py", ".json", ".xml") and p.is_file() and p.name != Path(__file__).name]
    return "\n".join(parts)


@pytest.mark.parametrize("op", TIER1 + WARM)
def test_tier1_and_warm_ops_are_supported_and_tested(op):
    versions = {t: v for t, v, _, _ in matrix()}
    assert op in versions, f"{op} is not in `irrun ops`"
    have = {int(v.strip()[5:]) for v in versions[op].split(",")}
    missing = set(VERSIONS.get(op, ())) - have
    assert not missing, f"{op}: versions {sorted(missing)} missing"
    names = {op, WRITTEN.get(op, op)}
    assert any(re.search(rf'\b{n}\b', _tested_text()) for n in names), f"no test mentions {op}"

