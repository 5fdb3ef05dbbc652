"""The garbage-collector pause: off inside the block, restored after it (errors and nesting too); the
older heap frozen for a block: out of its collections, back in them after it."""

from __future__ import annotations

import gc
import weakref

import pytest

from collector.archive.memory import older_objects_frozen, paused_garbage_collector


@pytest.fixture
def collector_state():
    before = gc.isenabled()
    yield
    if before:
        gc.enable()
    else:
        gc.disable()


def test_paused_inside_and_restored_after_even_on_error(collector_state):
    gc.enable()
    with pytest.raises(RuntimeError):
        with paused_garbage_collector():
            assert not gc.isenabled()
            with paused_garbage_collector():
                assert not gc.isenabled()
            assert not gc.isenabled()  # the inner block leaves the outer one paused
            raise RuntimeError("boom")
    assert gc.isenabled()


def test_a_collector_paused_before_stays_paused(collector_state):
    gc.disable()
    with paused_garbage_collector():
        assert not gc.isenabled()
    assert not gc.isenabled()


class Node:
    """An object in a reference cycle with itself (freed only by the cyclic collector)."""

    def __init__(self):
        self.me = self


def _cycle() -> weakref.ref:
    return weakref.ref(Node())


def test_older_objects_stay_out_of_collections_inside_the_block_and_rejoin_after_it():
    older = _cycle()  # made before the block, garbage already
    with older_objects_frozen():
        assert gc.get_freeze_count() > 0
        newer = _cycle()
        gc.collect()
        assert newer() is None  # what the block makes is collected as usual
        assert older() is not None  # the older heap is not scanned
    assert gc.get_freeze_count() == 0
    gc.collect()
    assert older() is None  # and is collected again after the block


def test_the_block_unfreezes_after_an_error_and_leaves_a_freeze_made_elsewhere_alone():
    with pytest.raises(RuntimeError):
        with older_objects_frozen():
            raise RuntimeError("boom")
    assert gc.get_freeze_count() == 0
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        with older_objects_frozen():
            pass
        assert gc.get_freeze_count() == frozen  # not undone by the block
    finally:
        gc.unfreeze()
