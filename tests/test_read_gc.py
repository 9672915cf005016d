"""Reading pauses Python's cyclic collector and hands what it made to the oldest generation
(irrun/heap.py): the collector is left as it was, the user's frozen objects stay frozen."""
from __future__ import annotations

import gc
from pathlib import Path

import irrun

MODEL = Path(__file__).parents[1] / "samples" / "shufflenet_block" / "model.xml"


def test_read_leaves_the_collector_enabled_with_young_generations_empty():
    assert gc.isenabled()
    m = irrun.read_model(MODEL)
    assert gc.isenabled() and gc.get_freeze_count() == 0
    layer = m.dag.nodes[m.order[0]]["layer"]
    assert any(o is layer for o in gc.get_objects(2))      # promoted, not waiting in generation 0
    assert not any(o is layer for o in gc.get_objects(0))


def test_read_leaves_a_disabled_collector_disabled():
    gc.disable()
    try:
        irrun.read_model(MODEL)
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_read_does_not_release_the_users_frozen_objects():
    kept = [[] for _ in range(10)]
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        assert frozen >= len(kept)
        irrun.read_model(MODEL)
        assert gc.get_freeze_count() == frozen and gc.isenabled()
    finally:
        gc.unfreeze()
