"""Value bounds (irrun/ops/bounds.py): partially known shape values through small integer sub-graphs.

Each case is a small graph — Parameters with partial shapes, ShapeOf, the ops that carry bounds,
and one consumer that turns values into a shape — with the output shapes OpenVINO 2026.4.1's
``read_model`` reports written literally as the expectation (``test_cases_agree_with_openvino``
re-measures all of them). Where OpenVINO's answer is narrower than what can happen at run time,
irrun stays sound: such a case gives both answers, and ``RUNS`` shows a run whose output shape
lies outside OpenVINO's interval and inside irrun's (the shape is written from the op semantics and
checked against OpenVINO's own reference evaluator). Where irrun is wider or narrower for another
reason (it does not bound floats; OpenVINO wraps an unbounded i8 into a negative bound), the case
says so. The property test at the end draws random shape sub-graphs and checks that every run-time
value and shape lies within what inference promised.
"""
from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers import needs_openvino
import irrun
from irrun.ops import bounds
from irrun.types import elements
from irrun.errors import IrrunError, OpError, ShapeError
from irrun.analysis.graph import inputs_of
from irrun.ir.builder import IRWriter
from irrun.ops.base import TensorInfo
from irrun.types.shapes import PartialShape

F32 = np.float32
INF = bounds.UNBOUNDED


class G:
    """A tiny graph builder: ``g.p("?,3")`` adds Parameter ``p1``, ``p2``...; ``g(type, *inputs,
    v=version, n_out=n, **attrs)`` adds a layer, inputs that are not ports becoming i64 Consts."""

    def __init__(self) -> None:
        self.b, self.n = IRWriter("bounds"), 0

    def p(self, shape: str, etype: str = "f32"):
        self.n += 1
        return self.b.parameter(f"p{self.n}", etype, shape, dims=[])

    def c(self, value, dtype=np.int64):
        return self.b.const(np.asarray(value, dtype))

    def __call__(self, type_: str, *inputs, v: str = "opset1", n_out: int = 1, **attrs):
        ports = [i if isinstance(i, tuple) else self.c(i) for i in inputs]
        return self.b.layer(type_, ports, attrs, version=v, n_out=n_out)

    def shape(self, x, etype: str | None = None):
        return self("ShapeOf", x, v="opset3", output_type=etype) if etype else self("ShapeOf", x)

    def dims(self, x, idx, etype: str | None = None):
        """Gather(ShapeOf(x), idx)."""
        return self("Gather", self.shape(x, etype), idx, 0, v="opset8", batch_dims=0)

    def cat(self, *parts):
        return self("Concat", *parts, axis=0)

    def save(self, outs, path: Path) -> Path:
        for i, o in enumerate(outs if isinstance(outs, list) else [outs]):
            self.b.result(o, f"out{i}")
        return self.b.save(path)


@dataclass
class Case:
    id: str
    build: Callable[[G], object]
    expect: list[str]              # irrun's output shapes (or "error: <fragment>")
    openvino: list[str] | None     # OpenVINO's, where they differ
    why: str

    def xml(self, tmp: Path) -> Path:
        g = G()
        return g.save(self.build(g), tmp / f"{self.id}.xml")


CASES: list[Case] = []


def case(expect: list[str], openvino: list[str] | None = None, why: str = ""):
    def add(fn):
        CASES.append(Case(fn.__name__, fn, expect, openvino, why))
        return fn
    return add


def bcast(g: G, target):
    return g("Broadcast", g.c(0, F32), target)


# --- Reshape (the known gaps: shapeof_reshape_dynamic_batch, BERT's attention output) -----------

@case(["[?,12]"])
def reshape_batch(g):
    x = g.p("?,3,4")
    return g("Reshape", x, g.cat(g.dims(x, [0]), [12]), special_zero=False)


@case(["[2..5,12]"])
def reshape_interval_batch(g):
    x = g.p("2..5,3,4")
    return g("Reshape", x, g.cat(g.dims(x, [0]), [12]), special_zero=False)


@case(["[?,?,4,8]"])
def reshape_bert_heads(g):     # i32 pieces, as the PyTorch front end writes them
    x = g.p("?,?,32")
    return g("Reshape", x, g.cat(g.dims(x, g.c([0, 1], np.int32), "i32"), g.c([4, 8], np.int32)),
             special_zero=False)


@case(["[?,?,32]"])
def reshape_to_shape_of(g):
    x, y = g.p("?,?,32"), g.p("?,?,4,8")
    return g("Reshape", y, g.shape(x), special_zero=False)


@case(["[2..4,3..12]"], why="OpenVINO's read_model has no symbols: the -1 is an interval")
def reshape_minus_one_interval(g):
    x = g.p("2..4,6")
    return g("Reshape", x, g.cat(g.dims(x, [0]), [-1]), special_zero=False)


@case(["[?,?]"])
def reshape_minus_one_dynamic(g):
    x = g.p("?,6")
    return g("Reshape", x, g.cat(g.dims(x, [0]), [-1]), special_zero=False)


@case(["[1..,?,3..5,1]"])
def reshape_minus_one_positive(g):      # a product >= 16 divided by anything finite is >= 1
    x, y = g.p("1..,5..9,1..4"), g.p("2..,2..,4")
    size = g("Add", g("Divide", g.shape(x), [3]), [2])
    return g("Reshape", y, g("Select", g.c([True, True, True, False], np.bool_), g.cat([-1], size), [1]),
             special_zero=False)


@case(["[?,7]"])
def reshape_maybe_special_zero_dynamic(g):
    x, y = g.p("?,7"), g.p("9,7")
    return g("Reshape", y, g.cat(g.dims(x, [0]), [7]), special_zero=True)


@case(["[1..5,7]"])
def reshape_never_zero(g):
    x, y = g.p("1..5,7"), g.p("9,7")
    return g("Reshape", y, g.cat(g.dims(x, [0]), [7]), special_zero=True)


@case(["[0..9,7]"], ["[0..5,7]"], "a 0 copies the data's 9: OpenVINO reads 0..5 as a plain dim")
def reshape_maybe_special_zero(g):
    x, y = g.p("0..5,7"), g.p("9,7")
    return g("Reshape", y, g.cat(g.dims(x, [0]), [7]), special_zero=True)


@case(["[0..6,4..]"], ["[0..2,12..]"], "a 0 copies the data's 6, and the -1 becomes 4")
def reshape_maybe_special_zero_minus_one(g):
    x, y = g.p("0..2"), g.p("6,4")
    return g("Reshape", y, g.cat(g.shape(x), [-1]), special_zero=True)


@case(["[3,0..5]"])
def reshape_zero_beyond_rank(g):        # a 0 there would fail: only the literal values remain
    x, y = g.p("0..5"), g.p("12")
    return g("Reshape", y, g.cat([3], g.shape(x)), special_zero=True)


@case(["[3,?]"], ["[3,0..5]"], "a 0 copies a dim of a dynamic-rank input")
def reshape_maybe_special_zero_dynamic_rank(g):
    x, y = g.p("0..5"), g.p("...")
    return g("Reshape", y, g.cat([3], g.shape(x)), special_zero=True)


@case(["[3,2..5,?]"], ["[3,2..5,1..]"], "an empty input makes the -1 a 0")
def reshape_minus_one_dynamic_rank(g):
    x, y = g.p("2..5"), g.p("...")
    return g("Reshape", y, g.cat([3], g.shape(x), [-1]), special_zero=False)


@case(["[?,3]"], ["[0..5,3]"], "an element -1..5 may be the -1, which can be anything")
def reshape_maybe_minus_one(g):
    x, y = g.p("0..6"), g.p("?")
    return g("Reshape", y, g.cat(g("Subtract", g.shape(x), [1]), [3]), special_zero=False)


@case(["error: Output pattern dim[0] has invalid bounds: -9,-3"])
def reshape_negative_bounds(g):
    x, y = g.p("0..6"), g.p("?")
    return g("Reshape", y, g.cat(g("Subtract", g.shape(x), [9]), [3]), special_zero=False)


@case(["error: Output pattern dim[0] has invalid bounds: -3,-1"])
def reshape_bounds_reaching_minus_one(g):   # refused by OpenVINO although -1 could work
    x, y = g.p("0..2"), g.p("?")
    return g("Reshape", y, g.cat(g("Subtract", g.shape(x), [3]), [3]), special_zero=False)


@case(["error: Requested output shape [3,3] is incompatible with input shape"])
def reshape_bounds_meet(g):             # ShapeOf([?,3])[1] is the constant 3
    x, y = g.p("?,3"), g.p("5,4")
    return g("Reshape", y, g.cat(g.dims(x, [1]), [3]), special_zero=False)


# --- Broadcast (the other known gap: the LSTM/GRU zero initial states) --------------------------

@case(["[2,?,16]"])
def broadcast_lstm_state(g):
    x = g.p("?,?,?")
    return bcast(g, g.cat([2], g.dims(x, [0]), [16]))


@case(["[1..8,6]"])
def broadcast_numpy(g):
    x = g.p("1..8,6")
    return g("Broadcast", g.c(np.zeros(6), F32), g.cat(g.dims(x, [0]), [6]))


@case(["[2..4]"])
def broadcast_numpy_unchecked(g):       # OpenVINO checks static target dims only
    x = g.p("2..4")
    return g("Broadcast", g.c(np.zeros(5), F32), g.shape(x))


@case(["[4,3]"])
def broadcast_bidirectional(g):
    x = g.p("?,3")
    return g("Broadcast", g.c(np.zeros((4, 1)), F32), g.shape(x), v="opset3", mode="bidirectional")


@case(["[?,?,2..6]"])
def broadcast_bidirectional_shorter_target(g):
    x, y = g.p("2..6"), g.p("?,?,1")
    return g("Broadcast", y, g.shape(x), v="opset3", mode="bidirectional")


@case(["[2..6,3]"])
def broadcast_explicit(g):
    x = g.p("2..6,3")
    return g("Broadcast", g.c(np.zeros(3), F32), g.shape(x), [1], v="opset3", mode="explicit")


@case(["error: Broadcast target[axes_mapping[0]] Expected 3. Got 4"])
def broadcast_explicit_mismatch(g):
    x = g.p("2..6,4")
    return g("Broadcast", g.c(np.zeros(3), F32), g.shape(x), [1], v="opset3", mode="explicit")


@case(["[4,2]"])
def broadcast_pdpd(g):
    x = g.p("2..6,1..3")
    return g("Broadcast", g.c(np.zeros((4, 2)), F32), g.shape(x), v="opset3", mode="pdpd")


@case(["error: Value for partial shape evaluation can't be lower than zero."])
def broadcast_negative_lower_bound(g):
    x = g.p("0..6")
    return bcast(g, g("Subtract", g.shape(x), [2]))


@case(["[?,?]"])
def broadcast_unknown_piece(g):         # a Parameter's value has no bounds: nothing is known
    x, q = g.p("2..4,5"), g.p("1", "i64")
    return bcast(g, g.cat(q, g.dims(x, [1])))


# --- ops that move bounds -------------------------------------------------------------------------

@case(["[2..3,4]"])
def squeeze_unsqueeze(g):
    x, y = g.p("2..3,4"), g.p("?")
    return g("Reshape", y, g.cat(g("Unsqueeze", g("Squeeze", g.dims(x, [0]), [0]), [0]), [4]),
             special_zero=False)


@case(["[5,?,3..9]"])
def slice_of_shape(g):
    x = g.p("2,?,3..9")
    return bcast(g, g.cat([5], g("Slice", g.shape(x), [1], [3], [1], v="opset8")))


@case(["[5,?,3..9]"])
def strided_slice_of_shape(g):
    x = g.p("2,?,3..9")
    return bcast(g, g.cat([5], g("StridedSlice", g.shape(x), [1], [3], [1], begin_mask=[0], end_mask=[0])))


@case(["[3..9,1,2,?]"])
def split_of_shape(g):
    x = g.p("2,?,3..9,1")
    a, b = g("Split", g.shape(x), 0, n_out=2, num_splits=2)
    return bcast(g, g.cat(b, a))


@case(["[5..6,2..4]"])
def gather_negative_indices(g):
    x = g.p("2..4,5..6")
    return bcast(g, g.dims(x, [-1, 0]))


@case(["[2..4,8]"])
def select_known_condition(g):
    x = g.p("2..4,5")
    return bcast(g, g("Select", g.c([True, False], np.bool_), g.shape(x), [7, 8]))


@case(["[?,?]"])
def select_unknown_condition(g):
    x, cond = g.p("2..4,5"), g.p("2", "boolean")
    return bcast(g, g("Select", cond, g.shape(x), [7, 8]))


@case(["[2..4,2..4]"])
def tile_of_shape(g):
    x = g.p("2..4")
    return bcast(g, g("Tile", g.shape(x), [2]))


@case(["[2..4,1,5]"])
def scatter_update(g):
    x = g.p("2..4,5")
    return bcast(g, g("ScatterUpdate", g.c([1, 1, 1]), [0, 2], g.shape(x), 0, v="opset3"))


@case(["[1,2..4,1]"])
def scatter_nd_update(g):
    x = g.p("2..4")
    return bcast(g, g("ScatterNDUpdate", g.c([1, 7, 1]), [[1]], g.shape(x), v="opset4"))


@case(["[3..4]"])
def reduce_max(g):
    x = g.p("2..4,3")
    return bcast(g, g("ReduceMax", g.shape(x), [0], keep_dims=True))


@case(["[0..3]"])
def reduce_min_unbounded(g):
    x = g.p("?,3")
    return bcast(g, g("ReduceMin", g.shape(x), [0], keep_dims=True))


@case(["[?]"])
def reduce_sum_not_bounded(g):          # OpenVINO has no bounds for ReduceSum
    x = g.p("2..4,3")
    return bcast(g, g("ReduceSum", g.shape(x), [0], keep_dims=True))


@case(["[?,15..20]"])
def reduce_prod(g):                     # x.view(x.size(0), -1) as some exports write it
    x = g.p("?,3..4,5")
    return bcast(g, g.cat(g.dims(x, [0]), g("ReduceProd", g("Slice", g.shape(x), [1], [3], [1], v="opset8"),
                                           [0], keep_dims=True)))


@case(["[0]"])
def reduce_prod_zero_factor(g):
    x = g.p("?,0")
    return bcast(g, g("ReduceProd", g.shape(x), [0], keep_dims=True))


# --- Convert ----------------------------------------------------------------------------------------

@case(["[?,3..5]"])
def convert_i32(g):
    x, y = g.p("?,3..5"), g.p("?")
    return g("Reshape", y, g("Convert", g.shape(x), destination_type="i32"), special_zero=False)


@case(["[5..]"])
def shape_of_i32_beyond_i32(g):
    x, y = g.p("5..3000000000"), g.p("?")
    return g("Reshape", y, g.shape(x, "i32"), special_zero=False)


@case(["[44..144]"])
def convert_u8_wraps_whole(g):
    x, y = g.p("300..400"), g.p("?")
    to_u8 = g("Convert", g.shape(x), destination_type="u8")
    return g("Reshape", y, g("Convert", to_u8, destination_type="i64"), special_zero=False)


@case(["error: Output pattern dim[0] has invalid bounds: -1294967296,-294967296"])
def convert_i32_wraps_negative(g):
    x, y = g.p("3000000000..4000000000"), g.p("?")
    return g("Reshape", y, g("Convert", g.shape(x), destination_type="i32"), special_zero=False)


@case(["[0..255,2..5]"], ["[3..255,2..5]"], "256 wraps to 0 in u8")
def convert_u8_unbounded(g):
    x, y = g.p("3..,2..5"), g.p("?")
    to_u8 = g("Convert", g.shape(x), destination_type="u8")
    return g("Reshape", y, g("Convert", to_u8, destination_type="i64"), special_zero=False)


@case(["[?,2..5]"], ["error: Value for partial shape evaluation can't be lower than zero."],
      "OpenVINO wraps the unbounded upper bound into i8's -1 and refuses the model; irrun knows "
      "nothing of that element")
def convert_i8_unbounded(g):
    x = g.p("3..,2..5")
    return bcast(g, g("Convert", g.shape(x), destination_type="i8"))


@case(["[?,?]"], ["[?,3..5]"], "irrun keeps no bounds for floating-point values")
def convert_through_f32(g):
    x, y = g.p("?,3..5"), g.p("?")
    f = g("Convert", g.shape(x), destination_type="f32")
    return g("Reshape", y, g("Convert", f, destination_type="i64"), special_zero=False)


# --- arithmetic (OpenVINO's interval evaluator: the four corners; an unbounded input gives ?) ---

@case(["[3..5,7]"])
def add(g):
    x, y = g.p("2..4,5"), g.p("?")
    return g("Reshape", y, g("Add", g.shape(x), [1, 2]), special_zero=False)


@case(["[3..9]"])
def add_two_shapes(g):
    x, z, y = g.p("2..4"), g.p("1..5"), g.p("?")
    return g("Reshape", y, g("Add", g.shape(x), g.shape(z)), special_zero=False)


@case(["[3..5,4..6,5..7]"])
def add_broadcasting(g):
    x = g.p("2..4")
    return bcast(g, g("Add", g.shape(x), [1, 2, 3]))


@case(["[3..8]"])
def subtract_two_shapes(g):
    x, z, y = g.p("5..9"), g.p("1..2"), g.p("?")
    return g("Reshape", y, g("Subtract", g.shape(x), g.shape(z)), special_zero=False)


@case(["[2..4,3]"])
def subtract_from_constant(g):
    x, y = g.p("1..3"), g.p("?")
    return g("Reshape", y, g.cat(g("Subtract", [5], g.shape(x)), [3]), special_zero=False)


@case(["[4..8,?]"])
def multiply(g):
    x, y = g.p("2..4,?"), g.p("?")
    return g("Reshape", y, g("Multiply", g.shape(x), [2, 3]), special_zero=False)


@case(["[6..20]"])
def multiply_two_dims(g):
    x, y = g.p("2..4,3..5"), g.p("?")
    return g("Reshape", y, g("Multiply", g.dims(x, [0]), g.dims(x, [1])), special_zero=False)


@case(["error: Output pattern dim[0] has invalid bounds: -4,-2"])
def multiply_negative(g):
    x, y = g.p("2..4"), g.p("?")
    return g("Reshape", y, g("Multiply", g.shape(x), [-1]), special_zero=False)


@case(["[1..4,5]"])
def divide(g):
    x, y = g.p("3..9,5"), g.p("?")
    return g("Reshape", y, g("Divide", g.shape(x), [2, 1]), special_zero=False)


@case(["[6..12]"])
def divide_by_shape(g):
    x, y = g.p("2..4"), g.p("?")
    return g("Reshape", y, g("Divide", [24], g.shape(x)), special_zero=False)


@case(["[3..4,5]"])
def maximum(g):
    x, y = g.p("2..4,5"), g.p("?")
    return g("Reshape", y, g("Maximum", g.shape(x), [3, 1]), special_zero=False)


@case(["[2..3,?]"])
def minimum(g):
    x, y = g.p("2..4,?"), g.p("?")
    return g("Reshape", y, g("Minimum", g.shape(x), [3, 10]), special_zero=False)


@case(["[?,5]"])
def add_unbounded(g):                   # 3.. would be sound; OpenVINO's rule makes it ?
    x = g.p("?")
    return bcast(g, g.cat(g("Add", g.shape(x), [3]), [5]))


@case(["[?,5]"])
def multiply_unbounded_by_zero(g):
    x = g.p("?")
    return bcast(g, g.cat(g("Multiply", g.shape(x), [0]), [5]))


@case(["[?]"], ["[1]"], "6 mod 4 is 2: OpenVINO evaluates FloorMod on the two bounds only")
def floor_mod_not_bounded(g):
    x, y = g.p("5..9"), g.p("?")
    return g("Reshape", y, g("FloorMod", g.shape(x), [4]), special_zero=False)


@case(["[?]"], ["[4..16]"], "irrun has no bounds rule for Power")
def power_not_bounded(g):
    x, y = g.p("2..4"), g.p("?")
    return g("Reshape", y, g("Power", g.shape(x), [2]), special_zero=False)


# --- other consumers ----------------------------------------------------------------------------------

@case(["[6..12,5]"])
def tile_repeats(g):
    x, y = g.p("2..4,5"), g.p("3,1")
    return g("Tile", y, g.shape(x))


@case(["[3..7,?]"])
def tile_bounded_repeats_keep_leading_dims(g):
    x, y = g.p("2.."), g.p("3..7,?")
    return g("Tile", y, g("Convert", g.shape(x), destination_type="u8"))


@case(["[?,?]"])
def tile_unknown_repeats(g):
    y, repeats = g.p("3..7,?"), g.p("1", "i64")
    return g("Tile", y, repeats)


@case(["error: Value for partial shape evaluation can't be lower than zero."])
def tile_negative_lower_bound(g):
    x, y = g.p("0..6"), g.p("3")
    return g("Tile", y, g("Subtract", g.shape(x), [2]))


@case(["[5..7,8]"])
def pad(g):
    x, y = g.p("2..4,5"), g.p("3,3")
    return g("Pad", y, g.shape(x), [0, 0], pad_mode="constant")


@case(["[9..15]"])
def pad_negative_lower_bound(g):        # Pad reads bounds without that check
    x, y = g.p("0..6"), g.p("10")
    return g("Pad", y, g("Subtract", g.shape(x), [2]), [1], pad_mode="constant")


@case(["[2..4,3]"])
def slice_stop(g):
    x, y = g.p("2..4"), g.p("10,3")
    return g("Slice", y, [0], g.shape(x), [1], [0], v="opset8")


@case(["[5..7,3]"])
def slice_start(g):
    x, y = g.p("2..4"), g.p("10,3")
    return g("Slice", y, g.shape(x), [9], [1], [0], v="opset8")


@case(["[4..6,3]"])
def slice_negative_step(g):
    x, y = g.p("2..4"), g.p("10,3")
    return g("Slice", y, [8], g.shape(x), [-1], [0], v="opset8")


@case(["[2..4,3]"])
def slice_negative_start(g):
    x, y = g.p("2..4"), g.p("10,3")
    return g("Slice", y, g("Subtract", [0], g.shape(x)), [10], [1], [0], v="opset8")


@case(["[0..9,3]"])
def slice_start_either_sign(g):         # -1..5: split at 0
    x, y = g.p("0..6"), g.p("10,3")
    return g("Slice", y, g("Subtract", g.shape(x), [1]), [9], [1], [0], v="opset8")


@case(["[1..3,3]"])
def slice_interval_data(g):
    x, y = g.p("2..4"), g.p("5..12,3")
    return g("Slice", y, [1], g.shape(x), [1], [0], v="opset8")


@case(["[2..4,3]"])
def strided_slice_end(g):
    x, y = g.p("2..4"), g.p("10,3")
    return g("StridedSlice", y, [0], g.shape(x), [1], begin_mask=[0], end_mask=[0])


@case(["[6..8,3]"])
def strided_slice_end_mask(g):
    x, y = g.p("2..4"), g.p("10,3")
    return g("StridedSlice", y, g.shape(x), [0], [1], begin_mask=[0], end_mask=[1])


@case(["[0..3]"])
def strided_slice_unknown_begin(g):     # any begin, stride 2: at most ceil(5 / 2) elements
    y, begin = g.p("2..5"), g.p("1", "i32")
    return g("StridedSlice", y, begin, g.c([1], np.int32), g.c([2], np.int32), begin_mask=[0], end_mask=[1])


@case(["[0..1]"], ["[0..3]"], "irrun is narrower, still sound: [?:1:2] takes element 0 at most")
def strided_slice_unknown_begin_known_end(g):
    y, begin = g.p("2..5"), g.p("1", "i64")
    return g("StridedSlice", y, begin, [1], [2], begin_mask=[0], end_mask=[0])


@case(["[0..5]"])
def slice_unknown_start(g):             # Slice-8 does not narrow by the step
    y, start = g.p("2..5"), g.p("1", "i64")
    return g("Slice", y, start, [5], [2], v="opset8")


@case(["[1,1,2..4,5..6]"])
def interpolate4_sizes(g):
    x, y = g.p("2..4,5..6"), g.p("1,1,8,8")
    return g("Interpolate", y, g.shape(x), g.c([1.0, 1.0], F32), [2, 3], v="opset4", mode="nearest",
             shape_calculation_mode="sizes")


@case(["[1,1,2..4,5..6]"])
def interpolate11_sizes(g):
    x, y = g.p("2..4,5..6"), g.p("1,1,8,8")
    return g("Interpolate", y, g.shape(x), [2, 3], v="opset11", mode="nearest", shape_calculation_mode="sizes")


@case(["[1,1,2..4,5..6]"])
def interpolate1_target(g):
    x, y = g.p("2..4,5..6"), g.p("1,1,8,8")
    return g("Interpolate", y, g.shape(x), axes=[2, 3], mode="nearest")


@case(["[3,2..4]"])
def one_hot_depth(g):
    x, y = g.p("2..4"), g.p("3", "i64")
    return g("OneHot", y, g("Squeeze", g.shape(x), [0]), g.c(1, F32), g.c(0, F32), axis=-1)


@case(["[?]"])
def range_not_narrowed(g):              # OpenVINO does not bound Range's length either
    x = g.p("2..4,5")
    return g("Range", 0, g("Squeeze", g.dims(x, [0]), [0]), 1, v="opset4", output_type="i64")


@case(["[?,3]", "[?,3]"])
def variadic_split_lengths_not_narrowed(g):
    x, y = g.p("2..4"), g.p("10,3")
    return g("VariadicSplit", y, 0, g.cat(g.shape(x), [-1]), n_out=2)


@case(["[3,4]", "[0,4]"])
def variadic_split_bounds_meet(g):
    x, y = g.p("?,3"), g.p("3,4")
    return g("VariadicSplit", y, 0, g.cat(g.dims(x, [1]), [-1]), n_out=2)


# ---------------------------------------------------------------------------------------------------

def irrun_shapes(xml: Path) -> list[str]:
    try:
        model = irrun.read_model(xml)
        types = model.types()
    except ShapeError as e:
        return [f"error: {e.message}"]
    results = [n for n in model.order if model.graph.nodes[n]["layer"].type == "Result"]
    return [str(types[inputs_of(model.graph, n)[0]].shape) for n in results]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_value_bounds_give_interval_dims(tmp_path, case):
    got = irrun_shapes(case.xml(tmp_path))
    if case.expect[0].startswith("error: "):
        assert got[0].startswith("error: ") and case.expect[0][7:] in got[0], got
    else:
        assert got == case.expect


def test_every_difference_from_openvino_says_why():
    assert all(c.why for c in CASES if c.openvino is not None)


@needs_openvino
def test_cases_agree_with_openvino(tmp_path):
    from tools.ovoracle import Oracle, short_message

    def text(shape) -> str:
        if shape is None:
            return "[...]"
        return "[" + ",".join(str(lo) if lo == hi else "?" if lo == 0 and hi is None else
                              f"{lo}.." if hi is None else f"{lo}..{hi}" for lo, hi in shape) + "]"

    wrong = []
    with Oracle() as ov:
        for c in CASES:
            r = ov.load(c.xml(tmp_path))
            got = [text(o.shape) for o in r.outputs] if r.ok else [f"error: {short_message(r.message)}"]
            want = c.openvino or c.expect
            ok = (got[0].startswith("error: ") and want[0][7:] in got[0]) if want[0].startswith("error: ") \
                else got == want
            if not ok:
                wrong.append(f"{c.id}: OpenVINO {got}, expected {want}")
    assert not wrong, "\n".join(wrong)


# --- where OpenVINO is narrower than sound: a run shows the shape it excludes ------------------------

#: case id -> (input shapes by Parameter name, the output shape that run gives)
RUNS = {
    "reshape_maybe_special_zero": ({"p1": [0, 7], "p2": [9, 7]}, (9, 7)),               # [0, 7]
    "reshape_maybe_special_zero_minus_one": ({"p1": [0], "p2": [6, 4]}, (6, 4)),        # [0, -1]
    "reshape_maybe_special_zero_dynamic_rank": ({"p1": [0], "p2": [1, 7, 3]}, (3, 7)),  # [3, 0]
    "reshape_minus_one_dynamic_rank": ({"p1": [2], "p2": [0]}, (3, 2, 0)),              # [3, 2, -1]
    "reshape_maybe_minus_one": ({"p1": [0], "p2": [30]}, (10, 3)),                      # [-1, 3]
    "convert_u8_unbounded": ({"p1": [256, 2], "p2": [0]}, (0, 2)),                      # u8(256) = 0
    "floor_mod_not_bounded": ({"p1": [6], "p2": [2]}, (2,)),                            # 6 mod 4
}


def _inputs(shapes: dict) -> dict:
    return {k: np.zeros(s, F32) for k, s in shapes.items()}


def _interval_holds(text: str, shape: tuple) -> bool:
    return PartialShape.parse(text).accepts(shape)


@pytest.mark.parametrize("name", sorted(RUNS))
def test_irrun_holds_what_openvino_excludes(tmp_path, name):
    c = next(c for c in CASES if c.id == name)
    shapes, out = RUNS[name]
    model = irrun.read_model(c.xml(tmp_path))
    (y,) = model.run(_inputs(shapes)).values()
    assert y.shape == out
    assert _interval_holds(c.expect[0], out) and not _interval_holds(c.openvino[0], out)


@needs_openvino
def test_openvino_runs_give_those_shapes(tmp_path):
    from tools.ovoracle import Oracle
    with Oracle() as ov:
        for name, (shapes, out) in sorted(RUNS.items()):
            c = next(c for c in CASES if c.id == name)
            r = ov.reference(c.xml(tmp_path), _inputs(shapes))
            assert r.ok and r.outputs[0].array.shape == out, (name, r.status, r.message[-300:])


# --- the fixtures the known gaps came from ---------------------------------------------------------

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.mark.parametrize("fixture, layer, shape", [
    ("shapeof_reshape_dynamic_batch", 7, "[?,12]"),
    ("zoo/bert_fp32", 57, "[?,?,32]"),
    ("zoo/lstm_gru_fp32", 9, "[2,?,16]"),
    ("rnn_models/lstm", 9, "[4,?,4]"),
])
def test_fixture_shapes(fixture, layer, shape):
    types = irrun.read_model(FIXTURES / fixture / "model.xml").types()
    assert str(types[(layer, 0)].shape) == shape


# --- the rules of irrun/ops/bounds.py ------------------------------------------------------------------

def _info(etype: str, lo, hi) -> TensorInfo:
    lo, hi = np.array(lo, np.int64), np.array(hi, np.int64)
    return TensorInfo(elements.TYPES[etype], PartialShape(lo.shape), lower=lo, upper=hi)


def test_bounds_that_meet_become_a_value():
    t = bounds.with_bounds(TensorInfo(elements.TYPES["i32"], PartialShape([2])), np.array([3, 4]), np.array([3, 4]))
    assert t.lower is None and t.value.dtype == np.int32 and t.value.tolist() == [3, 4]
    t = bounds.with_bounds(TensorInfo(elements.TYPES["i64"], PartialShape([1])), np.array([3]), np.array([INF]))
    assert t.value is None and t.lower.tolist() == [3] and t.upper.tolist() == [INF]


def test_bounds_stay_on_small_integer_tensors():
    for etype, shape in (("f32", [2]), ("boolean", [2]), ("i64", [bounds.MAX_ELEMENTS + 1])):
        info = TensorInfo(elements.TYPES[etype], PartialShape(shape))
        lo = np.zeros(shape, np.int64)
        assert bounds.with_bounds(info, lo, lo + 1) is info


def test_pairs_and_dims():
    t = _info("i64", [2, 0, bounds.NEG_UNBOUNDED], [4, INF, INF])
    assert bounds.pairs(t) == [(2, 4), (0, None), (bounds.NEG_UNBOUNDED, None)]
    assert [str(d) for d in bounds.dims(t, "input 1")] == ["2..4", "?", "?"]
    with pytest.raises(OpError, match="lower than zero"):
        bounds.dims(_info("i64", [-1], [3]), "input 1")


@pytest.mark.parametrize("src, etype, want", [
    (([3], [40]), "u8", ([3], [40])),
    (([300], [400]), "u8", ([44], [144])),               # wraps as a whole
    (([250], [260]), "u8", ([0], [255])),                # crosses the wrap: any u8
    (([250], [260]), "i8", ([-6], [4])),                 # wraps as a whole, signed
    (([120], [130]), "i8", ([bounds.NEG_UNBOUNDED], [INF])),   # crosses: unknown
    (([5], [INF]), "i32", ([5], [INF])),                 # unbounded stays, for 32/64 bits
    (([5], [INF]), "u16", ([0], [65535])),
    (([-5], [-1]), "u64", ([0], [INF])),
])
def test_convert_rule(src, etype, want):
    (lo, hi), = bounds.cast(_info("i64", *src), TensorInfo(elements.TYPES[etype], PartialShape([1])))
    assert (lo.tolist(), hi.tolist()) == want


def test_arithmetic_corners_and_unbounded_inputs():
    from irrun.ops.binary import Divide1, Multiply1          # each op declares its interval rule
    mul, div = Multiply1.row.interval, Divide1.row.interval
    assert mul(None, (-2, 3), (4, 5)) == (-10, 15)
    assert div(None, (3, 9), (2, 2)) == (1, 4)
    assert div(None, (3, 9), (-1, 1)) is None            # the divisor may be 0

    class Trunc:
        m_pythondiv = False
    assert div(Trunc(), (-7, 7), (2, 2)) == (-3, 3)
    assert div(None, (-7, 7), (2, 2)) == (-4, 3)


# --- property: whatever inference promises holds at run time ----------------------------------------

def _dim(rng: random.Random) -> str:
    k = rng.random()
    if k < 0.3:
        return str(rng.randint(0, 6))
    if k < 0.6:
        a = rng.randint(0, 6)
        return f"{a}..{a + rng.randint(1, 5)}"
    return f"{rng.randint(0, 4)}.." if k < 0.8 else "?"


def _concrete(d: str, rng: random.Random) -> int:
    if d == "?":
        return rng.randint(0, 9)
    if d.endswith(".."):
        return int(d[:-2]) + rng.randint(0, 6)
    if ".." in d:
        a, b = map(int, d.split(".."))
        return rng.randint(a, b)
    return int(d)


def _random_graph(rng: random.Random):
    """ShapeOf of a random partial shape, 1-4 random bound-carrying ops (on i64 values), one
    consumer; None for a combination that cannot be built."""
    g = G()
    xs = [_dim(rng) for _ in range(rng.randint(1, 3))]
    x = g.p(",".join(xs))
    v = g.shape(x) if rng.random() < 0.5 else g("Convert", g.shape(x, "i32"), destination_type="i64")
    n = len(xs)
    for _ in range(rng.randint(1, 4)):
        k = rng.randrange(10)
        if k == 0:
            idx = [rng.randint(-n, n - 1) for _ in range(rng.randint(1, 3))]
            v, n = g("Gather", v, idx, 0, v="opset8", batch_dims=0), len(idx)
        elif k == 1:
            c = [rng.randint(-1, 6) for _ in range(rng.randint(1, 2))]
            v, n = (g.cat(v, c) if rng.random() < 0.5 else g.cat(c, v)), n + len(c)
        elif k in (2, 3):
            op = rng.choice(["Add", "Subtract", "Multiply", "Divide", "Maximum", "Minimum"])
            c = [rng.randint(1, 4) if op == "Divide" else rng.randint(-2, 4)]
            v = g(op, v, c) if rng.random() < 0.7 or op == "Divide" else g(op, c, v)
        elif k == 4:
            narrow = g("Convert", v, destination_type=rng.choice(["i32", "u8", "i8", "u16"]))
            v = g("Convert", narrow, destination_type="i64")
        elif k == 5 and n > 1:
            a, b = rng.randint(-n, n - 1), rng.randint(-n, n)
            n = len(range(n)[a:b])
            if n == 0:
                return None
            v = g("Slice", v, [a], [b], [1], v="opset8")
        elif k == 6:
            v = g("Squeeze", g("Unsqueeze", v, [0]), [0])
        elif k == 7:
            v, n = g(rng.choice(["ReduceProd", "ReduceMax", "ReduceMin"]), v, [0], keep_dims=True), 1
        elif k == 8:
            v = g("Select", g.c([rng.random() < 0.5 for _ in range(n)], np.bool_), v, [rng.randint(0, 5)])
        else:
            v, n = g("Tile", v, [2]), 2 * n
    ys = [_dim(rng) for _ in range(rng.randint(1, 3))]
    y = g.p(",".join(ys))
    kind = rng.randrange(7)
    if kind == 0:
        out = g("Reshape", y, v, special_zero=rng.random() < 0.5)
    elif kind == 1:
        out = bcast(g, v)
    elif kind == 2:
        out = g("Broadcast", y, v, v="opset3", mode="bidirectional")
    elif kind == 3:
        out = g("Tile", y, v)
    elif kind == 4 and n == len(ys):
        out = g("Pad", y, v, [rng.randint(-1, 2) for _ in ys], pad_mode="constant")
    elif kind == 5 and n <= len(ys):
        out = g("Slice", y, [rng.randint(-3, 3) for _ in range(n)], v,
                [rng.choice([1, 2, -1]) for _ in range(n)], v="opset8")
    elif kind == 6 and n <= len(ys):
        out = g("StridedSlice", y, v, [rng.randint(-3, 9) for _ in range(n)], [rng.choice([1, -1]) for _ in range(n)],
                begin_mask=[rng.randint(0, 1) for _ in range(n)], end_mask=[rng.randint(0, 1) for _ in range(n)])
    else:
        return None
    return g, out, xs, ys


def _holds(promised: TensorInfo | None, actual: TensorInfo | None) -> str | None:
    """Why the run-time ``actual`` (inferred from concrete shapes) breaks ``promised``, if it does."""
    if promised is None or actual is None:
        return None
    if actual.shape.is_static and not promised.shape.accepts(actual.shape.to_tuple()):
        return f"shape {actual.shape} outside {promised.shape}"
    if actual.value is None:
        return None
    if promised.value is not None:
        return None if np.array_equal(promised.value, actual.value) else f"value {actual.value} != {promised.value}"
    if promised.lower is not None:
        v = actual.value.astype(np.int64)
        if np.any(v < promised.lower) or np.any((v > promised.upper) & (promised.upper != INF)):
            return f"value {v} outside {promised.lower}..{promised.upper}"
    return None


@settings(max_examples=150, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1))
def test_run_time_values_and_shapes_lie_within_the_bounds(tmp_path_factory, seed):
    """Inference with partial shapes promises bounds and intervals; inference with concrete shapes
    drawn from those partial shapes (what a run computes: every value folds) must keep them."""
    rng = random.Random(seed)
    built = _random_graph(rng)
    if built is None:
        return
    g, out, xs, ys = built
    model = irrun.read_model(g.save([out], tmp_path_factory.mktemp("g") / "m.xml"))
    try:
        promised = model.types()
    except IrrunError:
        return                      # refused (OpenVINO refuses most of these too)
    for _ in range(3):
        shapes = {"p1": [_concrete(d, rng) for d in xs], "p2": [_concrete(d, rng) for d in ys]}
        try:
            actual = model.infer_shapes(shapes)
        except IrrunError:
            continue                # these shapes cannot run
        for port, info in actual.items():
            why = _holds(promised.get(port), info)
            assert why is None, f"seed {seed}, shapes {shapes}, layer {port}: {why}"
