"""``irrun compare MODEL --reference openvino:DEVICE[,KEY=VALUE...]``: which layers an OpenVINO
device configuration (a GPU, an NPU, the CPU at ``INFERENCE_PRECISION_HINT=bf16``...) gets wrong,
with irrun's f32 run as the trusted side.

OpenVINO computes every port of the model on the device (:func:`~irrun.debug.openvino_reference.all_ports`
makes each one an output), irrun records the same ports at f32, and the IR-vs-IR attribution
(:mod:`irrun.debug.accuracy.attribute`) ranks the layers: a layer's **total** error is OpenVINO's
output against irrun's; the error it **adds** is OpenVINO's output against irrun's layer run on
*OpenVINO's* inputs — what the device's kernel for that layer does differently, with everything
upstream taken out; **inherited** is its inputs' total error. (Each metric is relative to the
OpenVINO side, as the IR-vs-IR report's is relative to the reference.)
"""
from __future__ import annotations

import numpy as np

from ...analysis.graph import inputs_of
from ..openvino_reference import Device, all_ports
from .attribute import Result, attribute_recordings
from .capture import Recording, record
from .match import Matching
from .metrics import ErrorStats, comparable


def device_recording(model, feeds: dict, ours: Recording, device: Device, timeout: float = 600) -> Recording:
    """OpenVINO's ports on ``device`` as a :class:`Recording` shaped like ``ours`` (same layers,
    same order; a port OpenVINO does not give, e.g. a Parameter, keeps irrun's array)."""
    dumped = all_ports(model, feeds, device, timeout=timeout)
    theirs = Recording(model, steps=ours.steps, order=ours.order, live=ours.live)
    g = model.dag
    for (n, i), arr in ours.arrays.items():
        pid = g.nodes[n]["layer"].outputs[i].id
        got = dumped.get(f"{n}:{pid}")
        theirs.arrays[(n, i)] = arr if got is None else np.asarray(got)
    for spec in model.outputs:
        (u, sp), = inputs_of(g, spec.node)
        if (u, sp) in theirs.arrays:
            theirs.outputs[spec.name] = theirs.arrays[(u, sp)]
    return theirs


def compare_device(model, feeds: dict, device: Device, timeout: float = 600) -> Result:
    """Rank the layers of ``model`` by the error ``device`` adds against irrun's f32 run."""
    with np.errstate(all="ignore"):
        ours = record(model, feeds)
    theirs = device_recording(model, feeds, ours, device, timeout)
    res = Result(f"{model.path} in irrun (f32)", device.label, None, 1, Matching())
    return attribute_recordings(res, ours, theirs)


def output_errors(model, feeds: dict, device: Device, trusted: dict, timeout: float = 600,
                  executed: dict[int, tuple[str, str]] | None = None) -> dict:
    """{output name: ErrorStats} of ``model`` compiled on ``device`` as it is (no outputs added:
    the plugin fuses as it does for a user) against ``trusted`` (irrun's f32 outputs);
    ``executed`` as :func:`~irrun.debug.openvino_reference.all_ports` fills it."""
    got = all_ports(model, feeds, device, timeout=timeout, every_port=False, executed=executed)
    out = {}
    for spec in model.outputs:
        (u, sp), = inputs_of(model.dag, spec.node)
        arr = got.get(f"{u}:{model.dag.nodes[u]['layer'].outputs[sp].id}")
        if arr is not None and spec.name in trusted and comparable(np.asarray(arr), trusted[spec.name]):
            s = out[spec.name] = ErrorStats()
            s.add(np.asarray(arr), trusted[spec.name])
    return out

