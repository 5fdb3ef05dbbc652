"""Keeping Python's cyclic garbage collector out of the way of large, acyclic heaps.

Loading, verifying, scoring and rendering an archive each build hundreds of thousands to
millions of small objects that live for the whole run and point at no cycle: records,
history entries, scores, page models. CPython's cyclic collector is triggered by
allocation counts, and every collection of the older generations rescans all tracked
objects, so as the heap grows its passes add up to more time than the work itself.
Reference counting still frees everything that
is not part of a cycle while the collector is paused; a cycle made meanwhile is collected
by the first collection after it resumes.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def paused_garbage_collector() -> Iterator[None]:
    """Pause the cyclic garbage collector for the block; restore it as it was (nesting is safe:
    an inner block leaves the collector paused for the outer one)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def promote_to_oldest_generation() -> None:
    """Move every tracked object straight into the oldest GC generation without scanning it.

    Otherwise the young generations would rescan a freshly loaded archive on the next
    collections. Cycles among them are still collected by the next full collection. Skipped
    when something else in the process has frozen objects (unfreeze would undo that).
    """
    if gc.get_freeze_count() == 0:
        gc.freeze()
        gc.unfreeze()


@contextmanager
def older_objects_frozen() -> Iterator[None]:
    """Leave every object that exists when the block starts out of the cyclic collector's passes
    until it ends (:func:`gc.freeze`, then :func:`gc.unfreeze`).

    For a phase that makes many short-lived objects on top of a heap that outlives it (a tick's
    forecasts over its loaded archive, roster and clients): the collector still runs as usual on
    what the phase makes, but its full passes no longer rescan the older heap each time. Nothing is
    freed later than it would be otherwise except a garbage cycle that holds an older object, which
    the first full collection after the block collects. Skipped when something else in the process
    has frozen objects (unfreezing would undo that).
    """
    if gc.get_freeze_count() != 0:
        yield
        return
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()
