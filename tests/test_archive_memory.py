"""The garbage-collector pause: off inside the block, restored after it (errors and nesting too)."""

from __future__ import annotations

import gc

import pytest

from collector.archive.memory import paused_garbage_collector


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
