"""Truncate, CombineSegments and RaggedToDense (openvino-tokenizers): from ragged token ids to
the padded ``input_ids`` / ``attention_mask`` / ``token_type_ids`` matrices.

Sources: src/truncate.cpp, src/combine_segments.cpp, src/ragged_to_dense.cpp.

* Truncate: one or two ragged inputs, then ``max_length`` (i32 scalar), side (``right``/``left``)
  and mode (``longest_first``/``only_first``/``only_second``) as u8 Consts; shortens the rows.
* CombineSegments: N ragged inputs (each a row per batch item, or one row broadcast to all) and
  one id per input; concatenates the rows item by item and gives each element its input's id.
* RaggedToDense: pads (or, with ``m_pad_max_length``, always sizes) rows to ``max_length``
  (an integer scalar input) with a default value, right or left (``pad_right`` or a 6th input),
  and returns the mask of real elements.
"""
from __future__ import annotations

import numpy as np

from ...errors import OpError
from ...limits.memory import check_alloc
from ...types.elements import TYPES
from ...types.shapes import DYN, PartialShape
from ..base import Attr, Op, TensorInfo
from ..registry import register
from ._ragged import BOOL, I32, check_spans, expect_types, ragged_out, scalar, scalar_text


@register
class Truncate(Op):
    category = "text"
    type, version = "Truncate", "extension"
    spec = "https://github.com/openvinotoolkit/openvino_tokenizers/blob/master/src/truncate.cpp"
    attrs = {"m_num_inputs": Attr("int", 1)}
    num_inputs = (5, 9)

    def _count(self, n: int) -> int:
        k = (n - 2) // 3 if n in (5, 6, 8, 9) else 0
        if k not in (1, 2):
            raise OpError("Only single or pair inputs are supported in Truncation op")
        return k

    def infer(self, inputs):
        k = self._count(len(inputs))
        expect_types(inputs, 0, "ii." * k + "i" + "u" * (len(inputs) - 3 * k - 1), "Truncate inputs")
        if inputs[3 * k].shape.rank not in (None, 0):
            raise OpError("Expected a scalar tensor as the max_length input", port=f"input {3 * k}")
        out = []
        for i in range(k):
            out += ragged_out(inputs[3 * i].shape, inputs[3 * i + 2].etype)
        return out

    def run(self, *inputs):
        k = self._count(len(inputs))
        max_length = scalar(inputs[3 * k], 3 * k)
        side = scalar_text(inputs[3 * k + 1], "side").decode("utf-8", "replace")
        mode = scalar_text(inputs[3 * k + 2], "mode").decode("utf-8", "replace") if len(inputs) > 3 * k + 2 else ""
        if side not in ("left", "right"):
            raise OpError(f"Unknown truncation side: {side}")
        begins = [np.asarray(inputs[3 * i], np.int64).reshape(-1).copy() for i in range(k)]
        ends = [np.asarray(inputs[3 * i + 1], np.int64).reshape(-1).copy() for i in range(k)]
        if k == 1:
            length = np.minimum(ends[0] - begins[0], max_length)
            if side == "right":
                ends[0] = begins[0] + length
            else:
                begins[0] = ends[0] - length
        else:
            if mode not in ("only_first", "only_second", "longest_first"):
                raise OpError(f"Unknown truncation mode: {mode}")
            if not (begins[0].size == ends[0].size == begins[1].size == ends[1].size):
                raise OpError("Shapes of first and second tensors should be the same")
            self._pair(begins, ends, max_length, side, mode)
        out = []
        for i in range(k):
            shape = np.asarray(inputs[3 * i]).shape
            check_spans(begins[i], ends[i], np.asarray(inputs[3 * i + 2]).shape[0], "the truncated rows")
            out += [begins[i].astype(np.int32).reshape(shape), ends[i].astype(np.int32).reshape(shape),
                    np.asarray(inputs[3 * i + 2])]
        return out

    @staticmethod
    def _pair(begins, ends, mx: int, side: str, mode: str) -> None:
        """truncate.cpp's pair rules, row by row (C++ integer division: mx >= 0 here)."""
        half, odd = mx // 2, mx % 2
        for i in range(begins[0].size):
            l1, l2 = int(ends[0][i] - begins[0][i]), int(ends[1][i] - begins[1][i])
            if l1 + l2 <= mx:
                continue
            r1, r2 = odd * (l1 >= l2), odd * (l1 < l2)
            if mode == "only_first":
                new1, new2 = (mx if l1 > mx else l1), l2
            elif mode == "only_second":
                new1, new2 = l1, (mx if l2 > mx else l2)
            elif l1 >= half + odd and l2 <= half:
                new1, new2 = mx - l2, l2
            elif l1 < half + odd and l2 > half:
                new1, new2 = l1, mx - l1
            else:
                new1, new2 = half + r1, half + r2
            for j, new in ((0, new1), (1, new2)):
                if side == "right":
                    ends[j][i] = begins[j][i] + new
                else:
                    begins[j][i] = ends[j][i] - new


@register
class CombineSegments(Op):
    category = "text"
    type, version = "CombineSegments", "extension"
    spec = "https://github.com/openvinotoolkit/openvino_tokenizers/blob/master/src/combine_segments.cpp"
    num_inputs = (1, None)

    def infer(self, inputs):
        if (len(inputs) - 1) % 3:
            raise OpError(f"CombineSegments takes 3 inputs per segment and the ids, got {len(inputs)}")
        n = (len(inputs) - 1) // 3
        expect_types(inputs, 0, "ii." * n + "n", "CombineSegments inputs")
        kinds = {inputs[3 * i + 2].etype for i in range(n)} - {TYPES["dynamic"]}
        if len(kinds) > 1:
            raise OpError(f"the segments' elements differ in type: {', '.join(sorted(map(str, kinds)))}")
        shape = PartialShape(None)
        for i in range(n):
            s = inputs[3 * i].shape
            if s.rank:
                shape = s if shape.rank is None else PartialShape([DYN] * s.rank)
        et = inputs[2].etype if n else I32
        return ragged_out(shape, et) + ragged_out(shape, inputs[-1].etype)

    def run(self, *inputs):
        n = (len(inputs) - 1) // 3
        ids = np.asarray(inputs[-1]).reshape(-1)
        if ids.size != n:
            raise OpError(f"{n} segments but {ids.size} segment ids", port=f"input {len(inputs) - 1}")
        segs, shape, rows = [], (), 0
        for i in range(n):
            data = np.asarray(inputs[3 * i + 2])
            b, e = check_spans(inputs[3 * i], inputs[3 * i + 1], data.shape[0] if data.ndim else 0, "a segment")
            segs.append((b, e, data))
            if np.asarray(inputs[3 * i]).ndim > 0:
                shape = np.asarray(inputs[3 * i]).shape
            rows = max(rows, b.size)
        if int(np.prod(shape, dtype=np.int64)) != rows or any(b.size not in (1, rows) for b, _, _ in segs):
            raise OpError("the segments' row counts differ (only 1 row broadcasts)")
        total = sum(int((e - b).sum()) * (rows if b.size == 1 else 1) for b, e, _ in segs)
        dtype = segs[0][2].dtype if segs else np.dtype(np.int32)
        check_alloc((total,), dtype, "the combined segments")
        parts, kinds, begins, ends, off = [], [], [], [], 0
        for r in range(rows):
            begins.append(off)
            for j, (b, e, data) in enumerate(segs):
                k = 0 if b.size == 1 else r
                parts.append(data[b[k]:e[k]])
                kinds.append(np.full(e[k] - b[k], ids[j], ids.dtype))
                off += int(e[k] - b[k])
            ends.append(off)
        flat = np.concatenate(parts).astype(dtype) if parts else np.zeros(0, dtype)
        kind = np.concatenate(kinds) if kinds else np.zeros(0, ids.dtype)
        rb = np.array(begins, np.int32).reshape(shape)
        re_ = np.array(ends, np.int32).reshape(shape)
        return [rb, re_, flat, rb.copy(), re_.copy(), kind]


@register
class RaggedToDense(Op):
    category = "text"
    type, version = "RaggedToDense", "extension"
    spec = "https://github.com/openvinotoolkit/openvino_tokenizers/blob/master/src/ragged_to_dense.cpp"
    attrs = {"pad_right": Attr("bool", True), "m_pad_max_length": Attr("bool", False)}
    num_inputs = (5, 6)

    def infer(self, inputs):
        b, data, size = inputs[0], inputs[2], inputs[3]
        expect_types(inputs, 0, "ii.n." + "n" * (len(inputs) == 6), "RaggedToDense inputs")
        default = inputs[4].etype
        if not (default.is_dynamic or data.etype.is_dynamic or default == data.etype):
            raise OpError(f"the default value ({default}) and the data ({data.etype}) differ in type", port="input 4")
        if data.shape.rank == 0:
            raise OpError("the ragged data must have rank >= 1", port="input 2")
        if b.shape.rank is None or data.shape.rank is None:
            shape = PartialShape(None)
        else:
            target = DYN if size.value is None or size.value.size != 1 else max(0, scalar(size.value, 3))
            shape = PartialShape(list(b.shape) + [target] + list(data.shape)[1:])
        return [TensorInfo(data.etype, shape), TensorInfo(BOOL, shape)]

    def run(self, begins, ends, data, size, default, pad_right=None):
        data = np.asarray(data)
        b, e = check_spans(begins, ends, data.shape[0] if data.ndim else 0, "the ragged rows")
        target = scalar(size, 3)
        if target < 0:
            raise OpError(f"the target dense dimension is negative ({target})", port="input 3")
        right = self.pad_right if pad_right is None else bool(scalar(pad_right, 5))
        inner = data.shape[1:]
        out_shape = np.asarray(begins).shape + (target,) + inner
        check_alloc(out_shape, data.dtype, "the dense output")
        out = np.empty((b.size, target) + inner, data.dtype)
        fill = np.asarray(default).reshape(-1)
        if fill.size < 1:
            raise OpError("the default value is empty", port="input 4")
        out[...] = fill[0]
        mask = np.zeros((b.size, target) + inner, bool)
        for i in range(b.size):
            n = min(int(e[i] - b[i]), target) if not self.m_pad_max_length else target
            if b[i] + n > data.shape[0]:
                raise OpError("a row reaches past the data (m_pad_max_length)")
            sl = slice(0, n) if right else slice(target - n, target)
            out[i, sl] = data[b[i]:b[i] + n]
            mask[i, sl] = True
        return [out.reshape(out_shape), mask.reshape(out_shape)]
