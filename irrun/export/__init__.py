"""Export an IR to other formats: ONNX (:mod:`irrun.export.onnx`), verified by onnxruntime
(:mod:`irrun.export.verify`).

irrun already knows each op's exact semantics, so each op's ONNX form is written from them: one
converter per op type (and version), kept by family in :mod:`~irrun.export.elementwise`,
:mod:`~irrun.export.movement`, :mod:`~irrun.export.nn` and :mod:`~irrun.export.sequence`, all
registered in the table of :mod:`irrun.export.table` (compressed-weight patterns:
:mod:`~irrun.export.compressed`). The ``onnx`` package is an extra
(``pip install irrun[onnx]``), imported only when an export runs.
"""
