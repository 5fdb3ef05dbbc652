"""A forecast key's claim during a tick: taken when the key's turn comes, released exactly once.

The lock files themselves (``O_EXCL``, named owner, stale takeover) are
:class:`collector.schedule.scheduler.KeyLocks`; this module holds how a tick uses them.
"""

from __future__ import annotations

import threading
from typing import Any

from collector.errors import Problem
from collector.schedule.scheduler import KeyLocks, Slot


class Claim:
    """One claimed key; calling it releases the claim once, from whichever thread asks first.

    The writer thread releases the key right after writing its record, and the forecast's
    coroutine asks again on every way out: a second release could remove a claim that another
    tick made after the first one.
    """

    def __init__(self, locks: KeyLocks, slot: Slot):
        self._locks, self._slot, self._once, self._done = locks, slot, threading.Lock(), False

    def __call__(self) -> None:
        with self._once:
            done, self._done = self._done, True
        if not done:
            self._locks.release(self._slot)


def claim_key(locks: KeyLocks, slot: Slot, report: Any) -> Claim | None:
    """The key's claim, or None when another tick holds it (counted in ``report.locked``) or its lock cannot
    be made (one of ``report.problems``); ``report`` is the tick's ``TickReport``."""
    try:
        claimed = locks.claim(slot)
    except OSError as exc:
        report.problems.append(Problem(slot.path, f"cannot claim the key: {exc}"))
        return None
    if not claimed:
        report.locked += 1
        return None
    return Claim(locks, slot)
