"""Build, write and find the evidence package of one (event, horizon).

:func:`structured_package` assembles the parts knowable at the lock (form, head-to-head,
table, rest and travel, squads in live ticks, the latest odds snapshot retrieved before the lock;
every empty part has a note saying why);
:func:`ensure_packages` writes one record per (event, horizon) that a due ``evidence_package``
forecast needs, gathering the news digest first when a gatherer is configured, and returns
each package with its reference (path + SHA-256 of the file's bytes). A package already in the
archive (an earlier tick of the same window) is reused, never rebuilt: one per event and horizon.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from collector.archive.layout import evidence_path
from collector.archive.reader import Archive
from collector.archive.write.writer import ArchiveWriter, read_no_follow
from collector.config_sections import EvidenceSettings
from collector.errors import ArchiveError, PrematchError, Problem, RecordExistsError
from collector.evidence.odds import odds_part
from collector.evidence.structured import (
    league_parts,
    national_parts,
    squads,
    standings,
)
from collector.records import (
    RECORD_ADAPTER,
    Clock,
    Competition,
    CompetitionFormat,
    Event,
    Evidence,
    EvidenceRef,
    Horizon,
    NewsDigest,
)

NO_GATHERER = "news: no gatherer is configured ([evidence.gatherer]); the package holds the structured parts only"


@dataclass(frozen=True)
class Package:
    record: Evidence
    ref: EvidenceRef


def sha256_of(data: bytes) -> str:
    """The package's hash: SHA-256 of the record file's bytes exactly as written (and committed)."""
    return hashlib.sha256(data).hexdigest()


def structured_package(
    archive: Archive, competition: Competition, event: Event, horizon: Horizon, lock: datetime,
    settings: EvidenceSettings, data_dir: Path | str | None, clock: Clock, recorded_at: datetime,
    news: NewsDigest | None = None,
) -> Evidence:  # fmt: skip
    """The package for ``event`` at ``horizon`` from what is knowable at ``lock`` (SourceError: data unreadable)."""
    if competition.format is CompetitionFormat.TOURNAMENT:
        forms, h2h, rest = national_parts(competition, event, lock, data_dir, settings.recent_matches,
                                          settings.head_to_head, recorded_at)  # fmt: skip
    else:
        forms, h2h, rest = league_parts(archive, event, lock, settings.recent_matches, settings.head_to_head,
                                        recorded_at)  # fmt: skip
    squad_parts, squad_note = squads(competition, event, data_dir, clock, recorded_at)
    odds, odds_note = odds_part(archive, event, lock)
    notes = [n for n in (squad_note, odds_note) if n] + ([NO_GATHERER] if news is None else [])
    return Evidence(
        recorded_at=recorded_at, clock=clock, competition_id=competition.id, event_id=event.id, horizon=horizon,
        kickoff_utc=event.kickoff_utc, locks_at=lock, home_team=event.home_team, away_team=event.away_team,
        form=tuple(forms), head_to_head=h2h, standings=standings(archive, competition, event, lock, recorded_at),
        rest=tuple(rest), squads=tuple(squad_parts), odds=odds, news=news, notes=tuple(notes),
    )  # fmt: skip


def existing(writer: ArchiveWriter, competition_id: str, event_id: str, horizon: Horizon) -> Package | None:
    """The package already written for (event, horizon), hashed as it lies on disk; None when there is none.

    A file there that is not a valid evidence record raises :class:`ArchiveError` (never overwritten).
    """
    path = evidence_path(competition_id, event_id, horizon.value)
    if not os.path.lexists(writer.root / path):
        return None
    data = read_no_follow(writer.root, path)
    try:
        record = RECORD_ADAPTER.validate_json(data)
    except ValueError as exc:
        raise ArchiveError(f"{path}: not a valid evidence record ({str(exc).splitlines()[0]}); not overwritten") from None
    if not isinstance(record, Evidence):
        raise ArchiveError(f"{path}: holds a {record.kind} record, not evidence; not overwritten")
    if writer.archive is not None and path not in writer.archive.records:
        writer.archive.add(path, record)
    return Package(record, EvidenceRef(path=path, sha256=sha256_of(data)))


NewsFetch = Callable[[Competition, Event, Horizon, datetime], Awaitable[NewsDigest]]


async def ensure_packages(
    writer: ArchiveWriter, archive: Archive, needed: Iterable[tuple[str, str, Horizon]], *, lock: datetime,
    settings: EvidenceSettings, data_dir, clock: Clock, timer: Callable[[], datetime], news: NewsFetch | None,
    gate: asyncio.Semaphore | None = None,
) -> tuple[dict[tuple[str, str, Horizon], Package], list[Problem]]:  # fmt: skip
    """One package per needed (competition, event, horizon): found, or built and written now.

    Packages are built concurrently (``gate`` bounds the gatherer calls in flight); each is
    written as soon as its digest is in, and a failure of one is a problem of that one only.
    """
    packages, problems = {}, []
    gate = gate or asyncio.Semaphore(8)

    async def one(key: tuple[str, str, Horizon]) -> None:
        cid, event_id, horizon = key
        try:
            found = existing(writer, cid, event_id, horizon)
            if found is None:
                async with gate:
                    found = await _build_and_write(writer, archive, key, lock, settings, data_dir, clock, timer, news)
            packages[key] = found
        except (PrematchError, ValueError) as exc:  # fail closed: no package, no evidence_package forecast
            problems.append(Problem(evidence_path(cid, event_id, horizon.value),
                                    f"evidence package not written: {type(exc).__name__}: {exc}"))

    await asyncio.gather(*(one(key) for key in sorted(set(needed), key=lambda k: (k[0], k[1], k[2].value))))
    problems.sort(key=lambda p: p.path)
    return packages, problems


async def _build_and_write(writer, archive, key, lock, settings, data_dir, clock, timer, news) -> Package:
    cid, event_id, horizon = key
    competition, event = archive.competitions[cid], archive.events[(cid, event_id)]
    digest = await news(competition, event, horizon, lock) if news is not None else None
    record = structured_package(archive, competition, event, horizon, lock, settings, data_dir, clock, timer(),
                                digest)  # fmt: skip
    data = writer.checked_bytes(record)
    try:
        path = writer.write(record)
    except RecordExistsError:  # another tick wrote it a moment ago: that one stands
        return existing(writer, cid, event_id, horizon)
    return Package(record, EvidenceRef(path=path, sha256=sha256_of(data)))
