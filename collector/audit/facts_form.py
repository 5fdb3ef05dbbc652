"""The facts ``verify`` keeps of one record file, and their storage form in its caches.

Kept apart from :mod:`collector.audit.facts` (which reads them off validated records) so that a
verify answered from its caches never imports the record models.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, NamedTuple


class Facts(NamedTuple):
    """The fields of a record that the audit checks read (a tuple: cheap to build from the cache)."""

    kind: str
    replay: bool
    target: tuple[str, ...] | None = None  # (competition, "match" | "question", id) for timing checks
    identity: tuple[str, ...] | None = None  # revision chains: records sharing it are revisions
    revision: int | None = None
    supersedes: str | None = None
    moment: datetime | None = None  # event kickoff / question close / forecast's own kickoff_utc
    requested_at: datetime | None = None
    status: str | None = None  # forecast or outcome status
    settles: bool = False  # a scored outcome or a question resolution
    manifest: tuple[datetime, dict[str, str], str | None, str | None] | None = None
    evidence: tuple[str, ...] | None = None  # a forecast: (package path, SHA-256); a package: its late items
    cites: tuple[str, ...] | None = None  # a package: (odds snapshot path, SHA-256) of the market part it holds


_TIMES = (Facts._fields.index("moment"), Facts._fields.index("requested_at"))
_MANIFEST = Facts._fields.index("manifest")


def facts_to_list(facts: Facts) -> list[Any]:
    """Facts as a compact JSON list, in slot order (the cache's storage form)."""
    values: list[Any] = [getattr(facts, name) for name in Facts._fields]
    for i in _TIMES:
        if values[i] is not None:
            values[i] = values[i].isoformat()
    if values[_MANIFEST] is not None:
        tick, files, previous, previous_sha = values[_MANIFEST]
        values[_MANIFEST] = [tick.isoformat(), files, previous, previous_sha]
    return values


def facts_from_list(values: list[Any]) -> Facts:
    """The way back from :func:`facts_to_list`: one unpacking in slot order (a list of another length
    raises ValueError), written out because a cached verify rebuilds every record's facts."""
    kind, replay, target, ident, revision, supersedes, moment, requested, status, settles, manifest, used, cites = values
    return Facts(
        kind, replay, None if target is None else tuple(target), None if ident is None else tuple(ident),
        revision, supersedes, None if moment is None else datetime.fromisoformat(moment),
        None if requested is None else datetime.fromisoformat(requested), status, settles,
        None if manifest is None else (datetime.fromisoformat(manifest[0]), manifest[1], manifest[2], manifest[3]),
        None if used is None else tuple(used), None if cites is None else tuple(cites),
    )
