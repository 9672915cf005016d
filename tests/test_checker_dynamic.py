"""Dynamic dims, intervals and dynamic rank through every data-movement op irrun implements.

Each case is one layer fed by a Parameter with a partial shape (and Consts, or Parameters where a
value is only known at run time); the expected output shapes are written literally — from the
dynamic-shape rules and tables of data-movement-ops.md where it gives them, otherwise from what
OpenVINO's ``read_model`` reports — and every case is also checked against OpenVINO itself
(``test_cases_agree_with_openvino``), so no expectation is irrun's own output. Notation as in
the spec: ``?`` dynamic, ``a..b`` interval, ``a..`` unbounded above, ``[...]`` dynamic rank.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest

from helpers import needs_openvino
import irrun
from irrun.ir.builder import IRWriter
from irrun.ops import registry

I64_MAX = np.iinfo(np.int64).max


@dataclass
class P:
    """A Parameter input: element type and partial shape (its value known only at run time)."""

    etype: str
    shape: str


@dataclass
class Case:
    id: str
    type: str
    inputs: list
    expect: list[str]
    attrs: dict = field(default_factory=dict)
    version: str = "opset1"

    def build(self, path: Path) -> Path:
        b = IRWriter(self.id)
        ports = [b.parameter(f"in{i}", x.etype, x.shape, dims=[]) if isinstance(x, P)
                 else b.const(np.asarray(x)) for i, x in enumerate(self.inputs)]
        n = len(self.expect)
        outs = b.layer(self.type, ports, self.attrs, version=self.version, n_out=n)
        for i, o in enumerate([outs] if n == 1 else outs):
            b.result(o, f"out{i}")
        return b.save(path / f"{self.id}.xml")


F = "f32"
CASES = [
    # Split-1 (data-movement-ops.md §1 table)
    Case("split_interval", "Split", [P(F, "4..8"), np.int64(0)], ["[2..4]"] * 2, {"num_splits": 2}),
    Case("split_interval_4d", "Split", [P(F, "4,3..6,3..6,5"), np.int64(1)],
         ["[4,1..3,3..6,5]"] * 2, {"num_splits": 2}),
    Case("split_interval_floor", "Split", [P(F, "4,2..4,3,5"), np.int64(1)],
         ["[4,0..1,3,5]"] * 3, {"num_splits": 3}),
    Case("split_dynamic", "Split", [P(F, "2,?,?"), np.int64(0)], ["[1,?,?]"] * 2, {"num_splits": 2}),
    Case("split_axis_runtime", "Split", [P(F, "2,6"), P("i64", "")], ["[?,?]"] * 2, {"num_splits": 2}),
    Case("split_dynamic_rank", "Split", [P(F, "..."), np.int64(0)], ["[...]"] * 2, {"num_splits": 2}),
    # VariadicSplit-1 (§2 table)
    Case("vsplit_interval", "VariadicSplit", [P(F, "2..6,2"), np.int64(0), np.array([4, 1, -1])],
         ["[4,2]", "[1,2]", "[?,2]"]),
    Case("vsplit_other_axis", "VariadicSplit", [P(F, "2..4,?"), np.int64(1), np.array([4, 1, -1, 3])],
         ["[2..4,4]", "[2..4,1]", "[2..4,?]", "[2..4,3]"]),
    Case("vsplit_dynamic_dim", "VariadicSplit", [P(F, "12,?"), np.int64(-2), np.array([7, -1, 2])],
         ["[7,?]", "[3,?]", "[2,?]"]),
    Case("vsplit_lengths_runtime", "VariadicSplit", [P(F, "2,6"), np.int64(1), P("i64", "2")],
         ["[2,?]", "[2,?]"]),
    # Slice-8 (§3: "? sliced 2:8 -> 0..6", "[20..] sliced -7:INT_MAX -> 7", unknown start/stop)
    Case("slice_dynamic", "Slice", [P(F, "?"), np.array([2]), np.array([8]), np.array([1]), np.array([0])],
         ["[0..6]"], version="opset8"),
    Case("slice_lower_bound", "Slice", [P(F, "20.."), np.array([-7]), np.array([I64_MAX]), np.array([1]),
                                        np.array([0])], ["[7]"], version="opset8"),
    Case("slice_runtime_start", "Slice", [P(F, "10,2..5"), P("i64", "1"), np.array([4]), np.array([1]),
                                          np.array([1])], ["[10,0..5]"], version="opset8"),
    # StridedSlice-1 (§4 table: begin/end unknown)
    Case("strided_slice_runtime", "StridedSlice", [P(F, "1,200,300,3"), P("i64", "4"), P("i64", "4"),
                                                   np.array([1, 1, 1, 1])],
         ["[0..1,0..300,0..3]"], {"begin_mask": [0, 0, 0, 0], "end_mask": [0, 0, 0, 0],
                                  "shrink_axis_mask": [0, 1, 0, 0]}),
    Case("strided_slice_interval", "StridedSlice", [P(F, "2..10,3"), np.array([1]), np.array([0]),
                                                   np.array([1])],
         ["[1..9,3]"], {"begin_mask": [0], "end_mask": [1]}),
    Case("strided_slice_dynamic_rank", "StridedSlice", [P(F, "..."), np.array([1]), np.array([2]),
                                                       np.array([1])],
         ["[...]"], {"begin_mask": [0], "end_mask": [0]}),
    # ShuffleChannels-1 (§5: dynamic or interval channels pass through)
    Case("shuffle_channels", "ShuffleChannels", [P(F, "?,3..9,4,4..15")], ["[?,3..9,4,4..15]"],
         {"axis": 1, "group": 3}),
    # Concat-1: dims add up, intervals too
    Case("concat_interval", "Concat", [P(F, "2..4,3"), P(F, "?,3"), np.zeros((2, 3), np.float32)],
         ["[4..,3]"], {"axis": 0}),
    Case("concat_merges_other_dims", "Concat", [P(F, "?,3"), P(F, "2,?")], ["[2..,3]"], {"axis": 0}),
    # Gather-1/7/8 (§7 output-shape rule)
    Case("gather_dynamic_data", "Gather", [P(F, "?,5..7"), np.array([0, 0, 4]), np.int64(1)],
         ["[?,3]"], version="opset8"),
    Case("gather_dynamic_indices", "Gather", [P(F, "4,2..3"), P("i64", "?,2"), np.int64(0)],
         ["[?,2,2..3]"], version="opset8"),
    Case("gather_batch_dims", "Gather", [P(F, "2..3,5"), P("i64", "?,4"), np.int64(1)],
         ["[2..3,4]"], {"batch_dims": 1}, version="opset7"),
    Case("gather1", "Gather", [P(F, "?,6"), np.int64(1), np.int64(1)], ["[?]"]),
    # Reshape-1 (§8; interval -1 as in reshape.py's docstring example)
    Case("reshape_interval_minus_one", "Reshape", [P(F, "2..4,6"), np.array([-1, 3])], ["[4..8,3]"],
         {"special_zero": False}),
    Case("reshape_special_zero", "Reshape", [P(F, "?,3,4"), np.array([0, -1])], ["[?,12]"],
         {"special_zero": True}),
    Case("reshape_runtime_pattern", "Reshape", [P(F, "2,3"), P("i64", "3")], ["[?,?,?]"],
         {"special_zero": False}),
    # Transpose-1
    Case("transpose", "Transpose", [P(F, "2..4,?,6"), np.array([2, 0, 1])], ["[6,2..4,?]"]),
    Case("transpose_runtime_order", "Transpose", [P(F, "2..4,?,6"), P("i64", "3")], ["[?,?,?]"]),
    # Squeeze-1/15 (§10)
    Case("squeeze_dynamic", "Squeeze", [P(F, "?,3"), np.array([0])], ["[3]"]),
    Case("squeeze_interval_kept", "Squeeze", [P(F, "2..5,3"), np.array([0])], ["[2..5,3]"]),
    Case("squeeze_no_axes", "Squeeze", [P(F, "?,3")], ["[...]"]),
    Case("squeeze15", "Squeeze", [P(F, "1,?,2..4"), np.array([0])], ["[?,2..4]"], version="opset15"),
    # Unsqueeze-1
    Case("unsqueeze", "Unsqueeze", [P(F, "?,2..3"), np.array([0, -1])], ["[1,?,2..3,1]"]),
    # Tile-1
    Case("tile", "Tile", [P(F, "2..4,3"), np.array([2, 1])], ["[4..8,3]"]),
    Case("tile_longer_repeats", "Tile", [P(F, "?"), np.array([3, 2])], ["[3,?]"]),
    # Broadcast-1/3 (§13)
    Case("broadcast_numpy", "Broadcast", [P(F, "1,?"), np.array([4, 3])], ["[4,3]"]),
    Case("broadcast_bidirectional", "Broadcast", [P(F, "?,1"), np.array([1, 5])], ["[?,5]"],
         {"mode": "bidirectional"}, version="opset3"),
    Case("broadcast_runtime_target", "Broadcast", [P(F, "2,3"), P("i64", "3")], ["[?,?,?]"],
         version="opset3"),
    # Pad-1/12 (§14)
    Case("pad_interval", "Pad", [P(F, "3..5,4"), np.array([1, 0]), np.array([1, 2])], ["[5..7,6]"],
         {"pad_mode": "constant"}),
    Case("pad_crop_interval", "Pad", [P(F, "3..5,?"), np.array([-1, 1]), np.array([0, 1])],
         ["[2..4,2..]"], {"pad_mode": "constant"}, version="opset12"),
    # DepthToSpace-1 / SpaceToDepth-1 (§15)
    Case("depth_to_space", "DepthToSpace", [P(F, "1,8,2..3,?")], ["[1,2,4..6,?]"],
         {"mode": "blocks_first", "block_size": 2}),
    Case("space_to_depth", "SpaceToDepth", [P(F, "?,2,4..8,6")], ["[?,8,2..4,3]"],
         {"mode": "depth_first", "block_size": 2}),
    # ShapeOf, Convert
    Case("shape_of", "ShapeOf", [P(F, "?,3..4")], ["[2]"], {"output_type": "i32"}, version="opset3"),
    Case("shape_of_dynamic_rank", "ShapeOf", [P(F, "...")], ["[?]"]),
    Case("convert", "Convert", [P(F, "2..4,?")], ["[2..4,?]"], {"destination_type": "i32"}),
]

#: Data-movement and infrastructure ops: every one must have a case above.
COVERED = {"Split", "VariadicSplit", "Slice", "StridedSlice", "ShuffleChannels", "Concat", "Gather",
           "Reshape", "Transpose", "Squeeze", "Unsqueeze", "Tile", "Broadcast", "Pad",
           "DepthToSpace", "SpaceToDepth", "ShapeOf", "Convert"}


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_dynamic_shapes_propagate(tmp_path, case):
    model = irrun.read_model(case.build(tmp_path))
    types = model.types()
    n = next(n for n, d in model.graph.nodes(data=True) if d["layer"].type == case.type)
    assert [str(types[(n, i)].shape) for i in range(len(case.expect))] == case.expect


def test_every_data_movement_op_has_a_case():
    have = {c.type for c in CASES}
    assert COVERED <= have, f"no dynamic-shape case for {sorted(COVERED - have)}"
    implemented = {cls.type for cls in registry.all_ops()}
    assert COVERED <= implemented


@needs_openvino
def test_cases_agree_with_openvino(tmp_path):
    from tools.ovoracle import Oracle

    def text(shape) -> str:
        if shape is None:
            return "[...]"
        dims = [str(lo) if lo == hi else "?" if lo == 0 and hi is None else
                f"{lo}.." if hi is None else f"{lo}..{hi}" for lo, hi in shape]
        return "[" + ",".join(dims) + "]"

    wrong = []
    with Oracle() as ov:
        for case in CASES:
            r = ov.load(case.build(tmp_path))
            got = [text(o.shape) for o in r.outputs] if r.ok else [f"error: {r.message[-200:]}"]
            if got != case.expect:
                wrong.append(f"{case.id}: OpenVINO {got}, expected {case.expect}")
    assert not wrong, "\n".join(wrong)
