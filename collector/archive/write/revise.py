"""Build the next revision of a record when the source changed, without touching the old one."""

from __future__ import annotations

from datetime import datetime
from typing import TypeVar

from collector.archive.layout import path_for
from collector.records import Revisable

R = TypeVar("R", bound=Revisable)


def next_revision(current: R, updated: R, *, reason: str, recorded_at: datetime) -> R:
    """Return ``updated`` as the revision after ``current``, naming it in ``supersedes``."""
    return updated.model_copy(
        update={
            "revision": current.revision + 1,
            "supersedes": path_for(current),
            "change_reason": reason,
            "recorded_at": recorded_at,
        }
    )

