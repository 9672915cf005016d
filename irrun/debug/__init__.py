"""Debugging: traces of every layer (:mod:`~irrun.debug.tracing`), dumps, layer-by-layer
comparison, extraction of a layer, ``info``/``graph``, profiling, OpenVINO as a reference and
the accuracy reports. Sits above the model: nothing below imports it."""
from ..io.dumps import load_tensors, save_tensors
from .tracing import (
    LayerRun,
    Trace,
    check_name_globs,
    check_op_types,
    find_layer,
    format_profile,
    port_key,
    port_name,
    selector,
    table,
    trace,
    type_version,
)

__all__ = [
    "LayerRun",
    "Trace",
    "check_name_globs",
    "check_op_types",
    "find_layer",
    "format_profile",
    "load_tensors",
    "port_key",
    "port_name",
    "save_tensors",
    "selector",
    "table",
    "trace",
    "type_version",
]
