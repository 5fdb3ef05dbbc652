"""The sync conductor: register a competition's fixtures and write the outcomes that are due.

The scheduler calls :func:`sync_fixtures` and :func:`sync_outcomes` each tick; the ``sync``
command calls :func:`sync_competition` (both, then question resolutions). Everything is
relative to ``now`` (see :mod:`collector.knowable`), and idempotent: a second run with the
same source and ``now`` writes nothing. A change at the source becomes a new revision.
Problems (bad source matches, archive files that no longer validate, duplicates) are
collected in the :class:`SyncReport`; they never stop the other records.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, time
from pathlib import Path

from pydantic import ValidationError

from collector.competitions import Definition, competition_from_definition, load_definition
from collector.datasource import DataSource
from collector.errors import PrematchError, Problem
from collector.knowable import RESULT_STATUSES, Knowledge
from collector.match_records import OUTCOME_STATUS, build_event, build_outcome
from collector.question_resolution import resolve_questions
from collector.reader import Archive, describe_validation_error, load_archive
from collector.records import Clock, Competition
from collector.sources import Source, SourceBatch, SourceMatch, source_for
from collector.sync_report import SyncReport, write_or_revise
from collector.writer import ArchiveWriter


@dataclass
class _Context:
    definition: Definition
    competition: Competition
    batch: SourceBatch
    knowledge: Knowledge
    now: datetime
    clock: Clock


def _data(data_dir: Path | str | DataSource | None) -> DataSource:
    return data_dir if isinstance(data_dir, DataSource) else DataSource(data_dir)


def _context(archive: Archive, competition_id: str, now: datetime, data_dir, clock: Clock, source: Source | None) -> _Context:
    definition = load_definition(competition_id)
    competition = archive.competitions.get(competition_id) or competition_from_definition(definition, now, clock)
    adapter = source or source_for(definition, _data(data_dir))
    batch = adapter.fetch(competition)
    batch.retrieved_at = now  # the read happens at `now` (simulated time in a replay)
    return _Context(definition, competition, batch, Knowledge(competition, batch.matches), now, clock)


def sync_fixtures(
    writer: ArchiveWriter, archive: Archive, competition_id: str, *, now: datetime,
    data_dir: Path | str | DataSource | None = None, clock: Clock = Clock.LIVE, source: Source | None = None,
) -> SyncReport:
    """Register the competition (if absent or changed), new events and revisions of changed events."""
    report = SyncReport(competition_id)
    try:
        report.merge(_register_competition(writer, archive, competition_id, now, clock))
        ctx = _context(archive, competition_id, now, data_dir, clock, source)
    except PrematchError as exc:
        report.problems.append(Problem(competition_id, str(exc)))
        return report
    return report.merge(_fixtures(writer, archive, ctx))


def sync_outcomes(
    writer: ArchiveWriter, archive: Archive, competition_id: str, *, now: datetime,
    data_dir: Path | str | DataSource | None = None, clock: Clock = Clock.LIVE, source: Source | None = None,
) -> SyncReport:
    """Write outcomes of registered events that have finished by ``now``, then question resolutions."""
    report = SyncReport(competition_id)
    try:
        ctx = _context(archive, competition_id, now, data_dir, clock, source)
    except PrematchError as exc:
        report.problems.append(Problem(competition_id, str(exc)))
        return report
    report.merge(_outcomes(writer, archive, ctx))
    return report.merge(resolve_questions(writer, archive, ctx.competition, now=now, clock=clock))


def sync_competition(
    archive_root: Path | str, competition_id: str, *, now: datetime,
    data_dir: Path | str | DataSource | None = None, clock: Clock = Clock.LIVE,
    writer: ArchiveWriter | None = None, source: Source | None = None,
) -> SyncReport:
    """Fixtures, then outcomes and question resolutions, for one competition; archive problems included."""
    writer = writer or ArchiveWriter(archive_root)
    archive = load_archive(archive_root)
    report = SyncReport(competition_id, problems=list(archive.problems))
    try:
        report.merge(_register_competition(writer, archive, competition_id, now, clock))
        ctx = _context(archive, competition_id, now, data_dir, clock, source)  # one read of the source
    except PrematchError as exc:
        report.problems.append(Problem(competition_id, str(exc)))
        return report
    report.merge(_fixtures(writer, archive, ctx))
    report.merge(_outcomes(writer, archive, ctx))
    return report.merge(resolve_questions(writer, archive, ctx.competition, now=now, clock=clock))


def _register_competition(writer: ArchiveWriter, archive: Archive, competition_id: str, now: datetime, clock: Clock) -> SyncReport:
    report = SyncReport(competition_id)
    fresh = competition_from_definition(load_definition(competition_id), now, clock)
    write_or_revise(writer, archive, archive.competitions.get(competition_id), fresh, "competition", report, "definition changed")
    return report


def _fixtures(writer: ArchiveWriter, archive: Archive, ctx: _Context) -> SyncReport:
    report = SyncReport(ctx.competition.id, problems=list(ctx.batch.problems))
    for match in _unique(ctx.batch, report):
        if not ctx.knowledge.teams_known(match, ctx.now):
            continue
        event = _build(build_event, ctx.competition, match, ctx, report)
        if event is None:
            continue
        current = archive.events.get((ctx.competition.id, event.id))
        write_or_revise(writer, archive, current, event, "event", report, "changed at the source")
    return report


def _outcomes(writer: ArchiveWriter, archive: Archive, ctx: _Context) -> SyncReport:
    report = SyncReport(ctx.competition.id)
    for match in _unique(ctx.batch, SyncReport(ctx.competition.id)):
        event = archive.events.get((ctx.competition.id, match.event_id or ""))
        if event is None or not _outcome_due(match, ctx, report):
            continue
        outcome = _build(build_outcome, event, match, ctx, report)
        if outcome is None:
            continue
        current = archive.outcomes.get((ctx.competition.id, event.id))
        write_or_revise(writer, archive, current, outcome, "outcome", report, "result corrected at the source")
    return report


def _build(build, subject, match: SourceMatch, ctx: _Context, report: SyncReport):
    """``build(subject, match, ...)`` (an Event or Outcome), or None with a problem naming the match."""
    try:
        return build(subject, match, source=ctx.batch.source, retrieved_at=ctx.batch.retrieved_at, now=ctx.now,
                     clock=ctx.clock)
    except (PrematchError, ValueError) as exc:
        message = describe_validation_error(exc) if isinstance(exc, ValidationError) else str(exc)
        report.problems.append(Problem(f"{ctx.batch.source} {match.label}", message))
        return None


def _outcome_due(match: SourceMatch, ctx: _Context, report: SyncReport) -> bool:
    """Finished by ``now``; a live source giving a result for a future kickoff is a problem."""
    if match.status not in OUTCOME_STATUS:
        return False  # scheduled, in play, suspended, postponed: no outcome (yet)
    earliest = match.kickoff_utc or datetime.combine(match.kickoff_date, time(0), tzinfo=ctx.knowledge.tz)
    if earliest > ctx.now:
        if match.status in RESULT_STATUSES and ctx.clock is Clock.LIVE:
            report.problems.append(Problem(
                f"{ctx.batch.source} {match.label}",
                f"source gives a result for a match that kicks off at {earliest.isoformat()}, after now "
                f"({ctx.now.isoformat()}); not recorded",
            ))
        return False
    if match.status not in RESULT_STATUSES:
        return True  # abandoned or cancelled, and its day has come
    return ctx.knowledge.result_known(match, ctx.now)


def _unique(batch: SourceBatch, report: SyncReport) -> list[SourceMatch]:
    """Matches with a distinct event id; a duplicate fixture is reported and the first one kept."""
    seen: dict[str, SourceMatch] = {}
    out: list[SourceMatch] = []
    for match in batch.matches:
        key = match.event_id
        if key is None:
            out.append(match)
            continue
        if key in seen:
            report.problems.append(Problem(
                f"{batch.source} {match.label}",
                f"duplicate fixture: event {key} also given as {seen[key].label}; the first one is used",
            ))
            continue
        seen[key] = match
        out.append(match)
    return out
