"""The package's odds part: the latest odds snapshot of the match retrieved before the lock.

The tick's odds step (``collector/schedule/odds.py``) writes ``odds_snapshot`` records before
any forecast, so a package built later in the same tick can name a snapshot of its own horizon.
The part names the snapshot by archive path and the SHA-256 of its file's bytes (as ``verify``
reads them) and states the consensus the market forecaster would derive from it: per-book
proportional margin removal, the median across books, renormalised (LLM-SoccerArena App. E).
"""

from __future__ import annotations

import hashlib
from datetime import datetime

from collector.archive.layout import odds_path
from collector.archive.reader import Archive
from collector.archive.write.writer import read_no_follow
from collector.config_sections import ODDS_SOURCES
from collector.forecasters.baselines.consensus import consensus_probabilities
from collector.forecasters.baselines.market_snapshot import h2h_odds
from collector.records import Event, Horizon, OddsPart, OddsSnapshot

NO_ODDS = ("odds: no odds snapshot of this match was retrieved before the lock "
           "(no market source is configured, or none priced the match yet)")


def latest_snapshot(archive: Archive, event: Event, lock: datetime) -> tuple[str, OddsSnapshot] | None:
    """The event's snapshot with a complete 1X2 quote retrieved last at or before ``lock`` (ties: by path)."""
    paths = (odds_path(event.competition_id, event.id, source, horizon.value)
             for source in ODDS_SOURCES for horizon in Horizon)  # looked up by path, never a scan of the archive
    found = [(r.retrieved_at, p, r) for p in paths if isinstance(r := archive.records.get(p), OddsSnapshot)
             and r.retrieved_at <= lock and any(h2h_odds(q) is not None for q in r.quotes)]  # fmt: skip
    if not found:
        return None
    _, path, record = max(found, key=lambda item: (item[0], item[1]))
    return path, record


def odds_part(archive: Archive, event: Event, lock: datetime) -> tuple[OddsPart, str | None]:
    """The odds part and, when it is empty, the note saying why."""
    latest = latest_snapshot(archive, event, lock)
    if latest is None:
        return OddsPart(note=NO_ODDS), NO_ODDS
    path, snapshot = latest
    digest = archive.sha256.get(path) or hashlib.sha256(read_no_follow(archive.root, path)).hexdigest()
    books = [odds for odds in (h2h_odds(q) for q in snapshot.quotes) if odds is not None]
    probabilities = tuple(round(float(p), 6) for p in consensus_probabilities(books))
    return OddsPart(snapshot_path=path, snapshot_sha256=digest, source=snapshot.source,
                    retrieved_at=snapshot.retrieved_at, books=len(books), probabilities=probabilities), None
