"""Effective revisions from record facts, by the reader's own rule.

Nearly every key has one record, revision 0: those are settled in bulk with numpy. The few
keys with revisions (a retried forecast, a corrected event) go through the reader's
:func:`~collector.archive.reader.effective_revision`, the one home of the chain rule, so
the effective rows and the problems (and their order) are those of ``load_archive``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from collector.archive.facts_columns import FactsRows
from collector.archive.reader import effective_revision
from collector.errors import Problem
from collector.records import TRANSPORT_FAILURES, ForecastStatus


class _Revision(NamedTuple):
    """What the chain rule reads of a record: its row, revision, what it supersedes and (forecasts) status."""

    row: int
    revision: int
    supersedes: str | None
    status: ForecastStatus | None

    @property
    def transport_failure(self) -> bool:
        return self.status is not None and self.status.value in TRANSPORT_FAILURES


def resolve(facts: FactsRows) -> tuple[np.ndarray, np.ndarray, list[Problem]]:
    """(effective, superseded, problems) over the rows of ``facts``, as the reader's ``_resolve`` decides."""
    c, ok = facts.columns, facts.ok
    forecast = ok & (c["kind"] == facts.code("forecast"))
    revisable = ok & c["revisable"]
    effective = ok & ~forecast & ~revisable  # a kind without revisions: every record stands
    superseded = np.zeros(len(facts), dtype=bool)
    problems: list[Problem] = []
    for mask, is_forecast in ((forecast, True), (revisable, False)):
        rows = np.flatnonzero(mask)
        keys = c["key"][rows]
        _, inverse, counts = np.unique(keys, return_inverse=True, return_counts=True)
        single = (counts[inverse] == 1) & (c["revision"][rows] == 0) & (c["supersedes"][rows] == -1)
        effective[rows[single]] = True
        for revisions in _chains(facts, rows[~single], is_forecast).values():
            found = effective_revision(revisions, problems, may_supersede=_retryable if is_forecast else None)
            if found is None:
                continue
            effective[found[1].row] = True
            if is_forecast:
                superseded[[revisions[r][1].row for r in sorted(revisions) if r < found[1].revision]] = True
    return effective, superseded, problems


def _retryable(old: _Revision) -> bool:
    return old.transport_failure


def _chains(facts: FactsRows, rows: np.ndarray, is_forecast: bool) -> dict[int, dict[int, tuple[str, _Revision]]]:
    """Key code -> {revision: (path, revision facts)}, keys in order of first appearance (the reader's)."""
    c, strings = facts.columns, facts.strings
    chains: dict[int, dict[int, tuple[str, _Revision]]] = {}
    for row in rows.tolist():
        supersedes = int(c["supersedes"][row])
        status = ForecastStatus(strings[int(c["status"][row])]) if is_forecast else None
        revision = int(c["revision"][row])
        entry = _Revision(row, revision, None if supersedes < 0 else strings[supersedes], status)
        chains.setdefault(int(c["key"][row]), {})[revision] = (facts.paths[row], entry)
    return chains
