"""ONNX forms of OpenVINO's seeded random ops, RandomUniform-8 and Multinomial-13.

ONNX's random ops cannot draw OpenVINO's stream (Philox-4x32-10 under the seeds, or PyTorch's
MT19937), but with the seeds fixed and the shape a constant the draws are a constant: the
numbers irrun draws, which are OpenVINO's first inference (irrun.ops._random; OpenVINO's
evaluator continues the stream on later calls of one compiled model, irrun and this export start
it afresh each run — noted in the model's metadata). Seeds 0/0 ask OpenVINO for a
non-deterministic stream and are refused by name.
"""
from __future__ import annotations

import numpy as np

from ..ops._random import uniform
from ..types import elements
from .emitter import Call, Emitter, Unexpressible, onnx_type
from .table import converts

_NOTE = ("{op}: OpenVINO's seeded random stream is written as the numbers of its first inference "
         "(OpenVINO's evaluator continues the stream on later calls of one compiled model)")


def _seeds(c: Call) -> tuple[int, int]:
    g, o = c.op.global_seed & ((1 << 64) - 1), c.op.op_seed & ((1 << 64) - 1)
    if g == 0 and o == 0:
        raise Unexpressible("global_seed = op_seed = 0 asks OpenVINO for a non-deterministic stream")
    return g, o


@converts("RandomUniform")
def random_uniform(e: Emitter, c: Call) -> None:
    """The draws as a constant in [min, max) (shape, min and max constants, seeds not both 0):
    irrun's kernel run at export time, bit for bit OpenVINO's stream."""
    _seeds(c)
    try:
        values = c.op.run(np.asarray(c.const(0)), np.asarray(c.const(1)), np.asarray(c.const(2)))[0]
    except Unexpressible:
        raise Unexpressible("the shape, min and max must be constants (the draws are written as one)") from None
    e.notes.append(_NOTE.format(op="RandomUniform"))
    e.one("Identity", [e.const(values, "draws")], c.outputs[0])


@converts("Multinomial")
def multinomial(e: Emitter, c: Call) -> None:
    """The uniform draws (a constant: RandomUniform's stream in the probabilities' type) searched
    in each row's cdf (CumSum of the probabilities, exp'd with log_probs, divided by the total):
    a sample is the number of classes whose cdf is below it, 0 when it is above them all
    (OpenVINO's reference kernel). Without replacement the samples are unrolled: after each,
    the chosen class's probability p leaves the cdf (c[k:] - p, then / (1 - p))."""
    g, o = _seeds(c)
    shape = c.in_info[0].shape
    try:
        count = int(np.ravel(c.const(1))[0])
    except Unexpressible:
        raise Unexpressible("num_samples must be a constant (the draws are written as one)") from None
    if shape.rank != 2 or not shape[0].is_static:
        raise Unexpressible("the batch dim of the probabilities must be static (the draws are a constant)")
    et = c.in_info[0].etype
    i64 = elements.TYPES["i64"]
    draws = uniform((shape[0].lo, count), et.name, 0, 1, g, o)
    e.notes.append(_NOTE.format(op="Multinomial"))
    probs = e.one("Exp", [c.inputs[0]]) if c.op.log_probs else c.inputs[0]
    cdf = e.one("CumSum", [probs, e.scalar(1, i64)])
    classes = e.one("Slice", [e.one("Shape", [cdf]), e.ints([1]), e.ints([2])])
    total = e.one("Slice", [cdf, e.ints([-1]), e.ints([np.iinfo(np.int64).max]), e.ints([1])])
    cdf = e.one("Div", [cdf, total])

    def search(cdf: str, u: str) -> tuple[str, str]:
        """(how many classes lie below each draw of ``u`` [B, m], whether one is found)."""
        below = e.one("Less", [e.one("Unsqueeze", [cdf, e.ints([1])]), e.one("Unsqueeze", [u, e.ints([2])])])
        found = e.one("ReduceSum", [e.cast(below, i64), e.ints([2])], keepdims=0)
        return found, e.one("Less", [found, classes])

    if c.op.with_replacement:
        found, hit = search(cdf, e.const(draws, "draws"))
        picked = e.one("Where", [hit, found, e.scalar(0, i64)])
    else:
        columns = e.one("Unsqueeze", [e.one("Range", [e.scalar(0, i64), e.one("Squeeze", [classes, e.ints([0])]),
                                                      e.scalar(1, i64)]), e.ints([0])])
        samples = []
        for j in range(count):
            found, hit = search(cdf, e.const(draws[:, j:j + 1], "draw"))               # [B, 1]
            samples.append(e.one("Where", [hit, found, e.scalar(0, i64)]))
            k = e.one("Min", [found, e.one("Sub", [classes, e.ints([1])])])
            upper = e.one("GatherElements", [cdf, k], axis=1)
            lower = e.one("GatherElements", [cdf, e.one("Max", [e.one("Sub", [k, e.ints([1])]), e.ints([0])])], axis=1)
            p = e.where(e.one("Greater", [k, e.ints([0])]), e.one("Sub", [upper, lower]), upper, et)
            moved = e.one("Div", [e.where(e.one("GreaterOrEqual", [columns, k]), e.one("Sub", [cdf, p]), cdf, et),
                                  e.one("Sub", [e.scalar(1, et), p])])
            cdf = e.where(hit, moved, cdf, et)
        picked = e.one("Concat", samples, axis=1) if count else e.one("Cast", [e.const(draws, "draws")], to=onnx_type(i64))
    e.one("Cast", [picked], c.outputs[0], to=onnx_type(c.out_info[0].etype))
