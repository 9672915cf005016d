"""The CTC ops: greedy decoding (CTCGreedyDecoder-1, CTCGreedyDecoderSeqLen-6) and the CTC loss
(CTCLoss-4).

Greedy decoding takes the arg-max class of every frame (the first on ties) within the sequence's
length, drops a class equal to the previous frame's when merging repeats, drops blanks, and pads
the rest of the row with -1. CTCLoss is ``-log p(labels | logits)`` over every alignment, the
standard forward recursion in log space on log-softmaxed logits (f64, then the logits' type);
without ``ctc_merge_repeated`` a label cannot span several frames (paths are decoded by removing
blanks only). A label sequence no alignment can produce has loss +inf; one longer than its
logits is refused, as by the CPU plugin ("Logit len: 2; Label len: 4"). An empty label sequence
has the loss of all-blank frames (the CPU plugin crashes on it, measured; the reference evaluator
has no CTCLoss kernel).
"""
from __future__ import annotations

import numpy as np

from ..errors import OpError
from ..types.elements import TYPES
from ..types.shapes import DYN, PartialShape
from .base import Attr, Op, TensorInfo, as_int64, spec_url
from .registry import register


def _dim(shapes: list[tuple[PartialShape, int]], what: str):
    """The merge of the dims that must agree (``(shape, axis)`` pairs of known ranks)."""
    out = DYN
    for s, axis in shapes:
        if s.rank is None:
            continue
        merged = out.intersect(s[axis])
        if merged is None:
            raise OpError(f"The {what} dimensions of the inputs do not match.")
        out = merged
    return out


def _rank(info: TensorInfo, rank: int, what: str, port: int) -> None:
    if info.shape.rank not in (None, rank):
        raise OpError(f"The rank of {what} must be {rank}. Got: {info.shape.rank}", port=f"input {port}")


def _int_type(info: TensorInfo, what: str, port: int) -> None:
    if not (info.etype.is_dynamic or info.etype.name in ("i32", "i64")):
        raise OpError(f"The {what} must be of i32 or i64 type. Got: {info.etype}", port=f"input {port}")


def _float_type(info: TensorInfo, port: int = 0) -> None:
    if not (info.etype.is_dynamic or info.etype.is_float):
        raise OpError(f"The data input must be floating-point. Got: {info.etype}", port=f"input {port}")


def greedy(scores: np.ndarray, blank: int, merge: bool) -> list[int]:
    """The classes of one sequence ``[T, C]``: arg-max per frame, repeats merged, blanks dropped."""
    out, prev = [], -1
    for c in (np.argmax(scores, axis=-1) if scores.size else []):
        c = int(c)
        if c != blank and not (merge and c == prev):
            out.append(c)
        prev = c
    return out


@register
class CTCGreedyDecoder1(Op):
    """CTCGreedyDecoder-1: data ``[T, N, C]`` and sequence_mask ``[T, N]`` (a frame counts while
    its mask is non-zero; decoding stops at the first zero) -> ``[N, T, 1, 1]`` classes in the
    data's type; the blank is class C-1."""
    category = "detection"

    type, version = "CTCGreedyDecoder", "opset1"
    spec = spec_url("sequence/ctc-greedy-decoder-1")
    attrs = {"ctc_merge_repeated": Attr("bool", True)}
    num_inputs = (2, 2)

    def infer(self, inputs):
        data, mask = inputs
        _float_type(data)
        _rank(data, 3, "data", 0)
        _rank(mask, 2, "sequence_mask", 1)
        T = _dim([(data.shape, 0), (mask.shape, 0)], "time")
        N = _dim([(data.shape, 1), (mask.shape, 1)], "batch")
        return [TensorInfo(data.etype, PartialShape([N, T, 1, 1]))]

    def run(self, data, mask):
        T, N, C = data.shape
        out = np.full((N, T, 1, 1), -1, data.dtype)
        for n in range(N):
            stop = np.flatnonzero(mask[:, n] == 0)
            length = int(stop[0]) if stop.size else T
            dec = greedy(data[:length, n].astype(np.float64), C - 1, self.ctc_merge_repeated)
            out[n, :len(dec), 0, 0] = dec
        return [out]


@register
class CTCGreedyDecoderSeqLen6(Op):
    """CTCGreedyDecoderSeqLen-6: data ``[N, T, C]``, sequence_length ``[N]``, optional blank_index
    (default C-1) -> decoded classes ``[N, T]`` (-1 padded) and their counts ``[N]``."""
    category = "detection"

    type, version = "CTCGreedyDecoderSeqLen", "opset6"
    spec = spec_url("sequence/ctc-greedy-decoder-seq-len-6")
    attrs = {"merge_repeated": Attr("bool", True), "classes_index_type": Attr("etype", TYPES["i32"]),
             "sequence_length_type": Attr("etype", TYPES["i32"])}
    num_inputs = (2, 3)

    def infer(self, inputs):
        data, lengths, *blank = inputs
        for t, what in ((self.classes_index_type, "classes_index_type"), (self.sequence_length_type,
                                                                          "sequence_length_type")):
            if t.name not in ("i32", "i64"):
                raise OpError(f"{what} must be i32 or i64. Got: {t}")
        _float_type(data)
        _rank(data, 3, "data", 0)
        _rank(lengths, 1, "sequence_length", 1)
        _int_type(lengths, "sequence_length", 1)
        if blank:
            _int_type(blank[0], "blank_index", 2)
            if blank[0].shape.rank not in (None, 0) and not (blank[0].shape.rank == 1 and blank[0].shape[0].hi == 1):
                raise OpError("The blank_index must be a scalar or have one element.", port="input 2")
        N = _dim([(data.shape, 0), (lengths.shape, 0)], "batch")
        T = data.shape[1] if data.shape.rank is not None else DYN
        return [TensorInfo(self.classes_index_type, PartialShape([N, T])),
                TensorInfo(self.sequence_length_type, PartialShape([N]))]

    def run(self, data, lengths, blank=None):
        N, T, C = data.shape
        b = int(as_int64(blank).reshape(-1)[0]) if blank is not None else C - 1
        lens = as_int64(lengths)
        if np.any((lens < 0) | (lens > T)):
            raise OpError(f"a sequence_length is outside [0, {T}]", port="input 1")
        out = np.full((N, T), -1, self.classes_index_type.dtype)
        counts = np.zeros(N, self.sequence_length_type.dtype)
        for n in range(N):
            dec = greedy(data[n, :lens[n]].astype(np.float64), b, self.merge_repeated)
            out[n, :len(dec)] = dec
            counts[n] = len(dec)
        return [out, counts]


def _log_softmax(x: np.ndarray) -> np.ndarray:
    m = np.max(x, axis=-1, keepdims=True)
    return x - m - np.log(np.sum(np.exp(x - m), axis=-1, keepdims=True))


def ctc_loss(logp: np.ndarray, labels: list[int], blank: int, merge: bool) -> float:
    """``-log`` of the probability of ``labels`` summed over alignments (``logp``: ``[T, C]``)."""
    ext = [blank]
    for c in labels:
        ext += [c, blank]
    S, T = len(ext), logp.shape[0]
    if T == 0:
        return 0.0 if not labels else np.inf
    alpha = np.full(S, -np.inf)
    alpha[0] = logp[0, blank]
    if S > 1:
        alpha[1] = logp[0, ext[1]]
    for t in range(1, T):
        prev = alpha
        alpha = np.full(S, -np.inf)
        for s in range(S):
            terms = [prev[s - 1]] if s else []
            if ext[s] == blank or merge:
                terms.append(prev[s])
            if s >= 2 and ext[s] != blank and (ext[s] != ext[s - 2] or not merge):
                terms.append(prev[s - 2])
            alpha[s] = np.logaddexp.reduce(terms) + logp[t, ext[s]] if terms else -np.inf
    total = np.logaddexp(alpha[-1], alpha[-2]) if S > 1 else alpha[-1]
    return float(-total)


@register
class CTCLoss4(Op):
    """CTCLoss-4: logits ``[N, T, C]``, logit_length ``[N]``, labels ``[N, T]``, label_length
    ``[N]``, optional blank_index (default C-1) -> loss ``[N]``; see the module docstring."""
    category = "detection"

    type, version = "CTCLoss", "opset4"
    spec = spec_url("sequence/ctc-loss-4")
    attrs = {"preprocess_collapse_repeated": Attr("bool", False), "ctc_merge_repeated": Attr("bool", True),
             "unique": Attr("bool", False)}
    num_inputs = (4, 5)

    def infer(self, inputs):
        logits, logit_len, labels, label_len, *blank = inputs
        _float_type(logits)
        _rank(logits, 3, "logits", 0)
        for i, (t, what, r) in enumerate([(logit_len, "logit_length", 1), (labels, "labels", 2),
                                          (label_len, "label_length", 1)], 1):
            _int_type(t, what, i)
            _rank(t, r, what, i)
        if blank:
            _int_type(blank[0], "blank_index", 4)
            _rank(blank[0], 0, "blank_index", 4)
        N = _dim([(logits.shape, 0), (logit_len.shape, 0), (labels.shape, 0), (label_len.shape, 0)], "batch")
        _dim([(logits.shape, 1), (labels.shape, 1)], "time")
        return [TensorInfo(logits.etype, PartialShape([N]))]

    def run(self, logits, logit_len, labels, label_len, blank=None):
        N, T, C = logits.shape
        b = int(as_int64(blank)) if blank is not None else C - 1
        if not 0 <= b < C:
            raise OpError(f"blank_index {b} is outside [0, {C})", port="input 4")
        ll, lab, lablen = as_int64(logit_len), as_int64(labels), as_int64(label_len)
        if np.any((ll < 0) | (ll > T)):
            raise OpError(f"a logit_length is outside [0, {T}]", port="input 1")
        if np.any((lablen < 0) | (lablen > T)):
            raise OpError(f"a label_length is outside [0, {T}]", port="input 3")
        out = np.zeros(N, logits.dtype)
        for n in range(N):
            seq = [int(c) for c in lab[n, :lablen[n]]]
            if any(not 0 <= c < C for c in seq):
                raise OpError(f"a label is outside [0, {C})", port="input 2")
            if self.preprocess_collapse_repeated:
                seq = [c for i, c in enumerate(seq) if i == 0 or c != seq[i - 1]]
            if self.unique:
                seq = list(dict.fromkeys(seq))
            if lablen[n] > ll[n]:
                raise OpError(f"Logit len: {ll[n]}; Label len: {lablen[n]} (batch {n}): the labels are longer "
                              "than the logits", port="input 3")
            logp = _log_softmax(logits[n, :ll[n]].astype(np.float64))
            with np.errstate(all="ignore"):
                out[n] = ctc_loss(logp, seq, b, self.ctc_merge_repeated)
        return [out]
