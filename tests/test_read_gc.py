"""Reading pauses Python's cyclic collector (irrun/runtime/heap.py) and leaves it as it was."""
from __future__ import annotations

import gc
from pathlib import Path

import irrun

MODEL = Path(__file__).parents[1] / "samples" / "shufflenet_block" / "model.xml"


def test_read_leaves_the_collector_as_it_was():
    assert gc.isenabled()
    irrun.read_model(MODEL)
    assert gc.isenabled()
    gc.disable()
    try:
        irrun.read_model(MODEL)
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_models_dropped_in_a_loop_release_their_weights_file():
    """A model read and dropped is collected by the ordinary generational collections (its
    mapped .bin, an open descriptor, with it): reading must not leave its objects where only a
    rare full collection finds them."""
    import os
    fds = Path("/proc/self/fd")
    if not fds.is_dir():
        return
    before = len(os.listdir(fds))
    for _ in range(300):
        irrun.read_model(MODEL).run      # (a model is a cycle: the collector frees it)
    assert len(os.listdir(fds)) - before < 100
