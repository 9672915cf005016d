"""Stage 1, the IR format: the safe XML parser, the records a model is read into (``records.py``),
the two readers (the streaming fast path and the element-tree reader) behind
:func:`irrun.ir.reader.read_ir`, declared ports, the .bin weights,
and a builder that writes IR. Knows nothing of ops or kernels."""
