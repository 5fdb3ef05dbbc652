"""One scheduler pass: sync fixtures, register questions, produce due forecasts, write outcomes.

:func:`run_tick` is the conductor used by ``prematch tick`` and by replays (which
pass a simulated ``now`` and ``Clock.REPLAY``, and commit ``TickReport.written``).
:func:`next_due_after` tells a replay when anything becomes due next.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx

from collector.archive.layout import path_for
from collector.archive.memory import older_objects_frozen
from collector.archive.reader import Archive, load_archive
from collector.archive.write.writer import (
    ArchiveWriter,
    RecordTooLargeError,
    SecretInRecordError,
    remove_dead_temp_files,
)
from collector.competitions.kickoffs import effective_kickoff
from collector.competitions.loader import use_definitions_dir
from collector.config import ArenaConfig
from collector.errors import ArchiveError, PrematchError, Problem, RecordExistsError
from collector.fixtures.questions import missing_questions, register_questions
from collector.fixtures.sync import sync_fixtures, sync_outcomes
from collector.fixtures.sync_report import SyncReport
from collector.forecasters.llm.withheld import bare, withheld
from collector.forecasters.roster import Roster, build_roster, forecaster_specs
from collector.forecasters.tasks import Budget, Deferred, KnownResult, ScheduledTask
from collector.records import Clock, Forecast, ForecasterType, ForecastStatus
from collector.schedule.binary_events import collect_binary, resolve_binary
from collector.schedule.claims import Claim, claim_key
from collector.schedule.evidence_step import prepare_evidence
from collector.schedule.model_check import MISSED_PREFIX, check_models
from collector.schedule.odds import collect_odds, snapshots_for
from collector.schedule.scheduler import KeyLocks, Slot, missed_record, plan
from collector.schedule.scheduler import next_due_after as _next_due
from collector.schedule.statistics import fetch_statistics
from collector.schedule.tick_context import TickContext
from collector.schedule.tick_end import llm_failures, stamp_tick, write_manifest
from collector.schedule.tick_report import TickReport


def tick_clock(now: datetime):
    """A clock that starts at ``now`` and advances with real time (simulated in a replay)."""
    start = datetime.now(UTC)
    return lambda: now + (datetime.now(UTC) - start)


def run_tick(
    config: ArenaConfig, archive_root: Path | str, now: datetime | None = None, data_dir: Path | str | None = None,
    clock: Clock = Clock.LIVE, forecasters: Sequence | None = None, **options: Any,
) -> TickReport:  # fmt: skip
    """Run one tick synchronously (see :func:`run_tick_async`)."""
    return asyncio.run(run_tick_async(config, archive_root, now, data_dir, clock, forecasters, **options))


async def run_tick_async(
    config: ArenaConfig, archive_root: Path | str, now: datetime | None = None, data_dir: Path | str | None = None,
    clock: Clock = Clock.LIVE, forecasters: Sequence | None = None, *, sync: bool = True,
    transport: httpx.AsyncBaseTransport | None = None, lock_dir: Path | None = None,
    archive: Archive | None = None, schedule: str | None = None,
) -> TickReport:  # fmt: skip
    """Sync fixtures -> register questions -> forecasts due (concurrently) -> outcomes -> manifest -> tokens.

    The archive is read once; the writer keeps that in-memory view current with every record
    it writes. A caller that is the archive's only writer (a replay) may pass ``archive`` to
    carry the view from one tick to the next instead of re-reading the folder. ``schedule`` is the
    cron expression of the scheduled run that started the tick: the manifest records when it last
    fired and how late the tick began (:func:`~collector.schedule.tick_end.schedule_fields`).
    """
    now = now or datetime.now(UTC)
    if config.competitions_folder() is not None:  # a fork's definitions ([arena] competitions_dir)
        use_definitions_dir(config.competitions_folder())
    timer = tick_clock(now)  # started before the sync, so request times follow the wall clock
    root = Path(archive_root)
    report = TickReport(now)
    report.temp_removed = remove_dead_temp_files(root)
    if archive is None:
        archive = load_archive(root)
        report.problems += archive.problems
    tick = TickContext(
        config=config, archive=archive, writer=ArchiveWriter(root, archive, max_record_bytes=config.max_record_bytes), now=now, clock=clock, timer=timer,
        data_dir=data_dir, budget=Budget(config.spending_cap_usd),
        locks=KeyLocks(lock_dir or root.parent / ".prematch-locks"), gate=asyncio.Semaphore(config.concurrency),
        stop=now + timedelta(minutes=config.max_tick_minutes), report=report,
    )  # fmt: skip
    with report.phase("sync_fixtures"):
        if sync:
            _sync(tick, sync_fixtures)
    with report.phase("questions"):
        _register_questions(tick)
    if forecasters is None:
        roster = build_roster(config, budget=tick.budget, clock=tick.timer, data_dir=data_dir, transport=transport)
        report.problems += roster.problems
    elif isinstance(forecasters, Roster):  # forecasters with their client (a replay's LLMs: the demo)
        roster = forecasters
    else:
        roster = Roster(forecasters=list(forecasters))
    try:
        with report.phase("models"):  # a model the models API rejects sits out; the others go on
            check = await check_models(tick, roster.forecasters, roster.client)
        active = [f for f in roster.forecasters if f.id not in check.skipped()]
        with report.phase("odds"):  # before the forecasts: the market of a horizon reads its snapshot
            report.odds = await collect_odds(tick, active)
        with report.phase("forecasts"), older_objects_frozen():  # full GC passes skip the archive and clients
            planned = [f for f in roster.forecasters if f.id not in check.unchecked]
            await _forecasts(tick, planned, roster.client, check.rejected)
        with report.phase("binary_markets"):
            report.binary = await collect_binary(tick, active)
        if roster.client is not None:
            with report.phase("statistics"):
                report.statistics = await fetch_statistics(tick, roster.client)
    finally:
        await roster.aclose()
    report.problems += llm_failures(report, roster.forecasters)
    report.spent_usd = tick.budget.spent
    with report.phase("sync_outcomes"):
        if sync:
            _sync(tick, sync_outcomes)
        report.binary += resolve_binary(tick)
    write_manifest(tick, schedule)
    report.written = list(tick.writer.written)
    await stamp_tick(tick)
    report.ended_at = tick.timer()
    return report


def _sync(tick: TickContext, step: Callable[..., SyncReport]) -> None:
    """``sync_fixtures`` or ``sync_outcomes`` for every followed competition; a failure is a problem."""
    for cid in tick.config.competitions:
        try:
            result = step(tick.writer, tick.archive, cid, now=tick.now, data_dir=tick.data_dir, clock=tick.clock)
        except Exception as exc:  # noqa: BLE001 - a failed sync must not stop forecasts for known events
            tick.report.problems.append(Problem(cid, f"{step.__name__}: {type(exc).__name__}: {exc}"))
            continue
        tick.report.problems += list(result.problems)


def _register_questions(tick: TickContext) -> None:
    if tick.config.questions:
        for cid in tick.config.competitions:
            try:
                register_questions(tick.writer, tick.archive, cid, now=tick.now, clock=tick.clock)
            except ArchiveError as exc:  # a linked folder, a secret, a record too large: reported, never written
                tick.report.problems.append(Problem(cid, f"questions: {exc}"))
                continue
            missing = missing_questions(tick.archive, cid, tick.now)
            if missing is not None and missing[1]:
                tick.report.problems.append(Problem(cid, missing[0]))
            elif missing is not None:
                tick.report.notes.append(f"{cid}: {missing[0]}")


def _since(config: ArenaConfig, forecasters: Sequence) -> dict[str, datetime | None]:
    by_id = {f.id: f for f in config.forecasters}
    return {f.id: config.owes_since(by_id[f.id].since if f.id in by_id else None) for f in forecasters}


async def _forecasts(tick: TickContext, forecasters: Sequence, client=None, rejected: dict[str, str] | None = None) -> None:
    """Plan, write the missed records, then produce every due forecast; a forecaster in ``rejected``
    (id -> why, from the model check) is asked nothing: each of its due keys is recorded missed, except
    a retry of a transport failure, which keeps its failed record and is retried once the model passes."""
    if not forecasters:
        return
    report, rejected = tick.report, rejected or {}
    todo = plan(tick.archive, tick.config, forecasters, tick.now, _since(tick.config, forecasters))
    by_id = {f.id: f for f in forecasters}
    skipped = [s for s in todo.due if s.forecaster in rejected and not s.revision]
    for slot, reason in [(s, None) for s in todo.missed] + [(s, MISSED_PREFIX + rejected[s.forecaster]) for s in skipped]:
        if _write(tick, missed_record(slot, by_id[slot.forecaster], tick.now, tick.clock, reason)):
            report.missed += 1
    todo.due = [s for s in todo.due if s.forecaster not in rejected]
    report.due = len(todo.due)
    history = _history(tick.archive, tick.now)  # after the fixtures sync: what is known at `now`
    # the windows that close first are served first (gather starts coroutines in this order)
    due = sorted(todo.due, key=lambda s: (s.closes, s.path))
    report.evidence = await prepare_evidence(tick, due, client)  # the packages first, then any request
    await asyncio.gather(*(_produce(tick, slot, by_id[slot.forecaster], history) for slot in due))


async def _produce(tick: TickContext, slot: Slot, forecaster, history: dict[str, list[KnownResult]]) -> None:
    """Wait for a place (``tick.gate`` bounds the calls in flight), claim the key, ask the forecaster, write its record.

    A key is claimed when its turn comes, not all at the start of the phase: the first requests
    go out at once instead of after a lock file was made for every due key, and a killed tick
    holds at most ``concurrency`` claims. Either way a key is claimed before it is asked for.
    """
    report = tick.report
    release = None
    try:
        async with tick.gate:
            release = claim_key(tick.locks, slot, report)
            if release is None:
                return
            if (tick.writer.root / slot.path).exists():
                report.locked += 1
                return
            if tick.timer() >= min(slot.deadline, slot.closes, tick.stop):  # window closed, or the tick's time is up
                report.deferred += 1
                return
            record = await forecaster.forecast(_task(tick, slot, history))
        if not slot.kickoff_time_known:  # the deadline is the start of the kickoff's date (competitions.kickoffs)
            record = record.model_copy(update={"kickoff_time_known": False})
        if slot.revision:  # a retry of a transport failure: the next revision of the key, naming the failed one
            record = record.model_copy(update={"revision": slot.revision, "supersedes": slot.supersedes})
        if path_for(record) != slot.path:
            raise PrematchError(f"the record's key points at {path_for(record)}, not at the key asked for")
        # fsync off the loop and outside the gate; the claim is released in the same trip to the thread
        if await asyncio.to_thread(_write_and_release, tick, record, release):
            report.produced += 1
            report.retried += slot.revision > 0
    except Deferred:
        report.deferred += 1
    except Exception as exc:  # noqa: BLE001 - one forecaster's bug must not stop the others
        report.problems.append(Problem(slot.path, f"forecaster {slot.forecaster} failed: {type(exc).__name__}: {exc}"))
    finally:
        if release is not None:
            release()  # nothing if the writer thread released it


def _write_and_release(tick: TickContext, record, release: Claim) -> bool:
    """:func:`_write`, then release the key's claim: one trip to a writer thread, no unlink on the loop."""
    try:
        return _write(tick, record)
    finally:
        release()


_COUNT = threading.Lock()


_TRANSPORT_FAILURES = frozenset({ForecastStatus.API_ERROR, ForecastStatus.TIMEOUT})


def _write(tick: TickContext, record) -> bool:
    try:
        tick.writer.write(record)
    except RecordExistsError:
        with _COUNT:
            tick.report.locked += 1
        return False
    except ArchiveError as exc:  # a secret, too large, a linked folder: reported, never written as it is
        path = path_for(record)
        record = _write_withheld(tick, record, exc)
        message = str(exc).removeprefix(f"{path}: ")
        if record is not None:
            message = message.removesuffix("; not written") + "; written with the provider's texts withheld"
        with _COUNT:
            tick.report.problems.append(Problem(path, message))
        if record is None:
            return False
    with _COUNT:
        tick.report.statuses[record.status.value] += 1
        if record.forecaster_type is ForecasterType.LLM and record.attempts:
            tick.report.llm_records += 1
            tick.report.llm_failed += record.status in _TRANSPORT_FAILURES
    return True


def _write_withheld(tick: TickContext, record, exc: ArchiveError):
    """An LLM forecast the writer refused for a secret or its size, written without the provider's texts
    (:mod:`collector.forecasters.llm.withheld`): the record written, or None."""
    if not (isinstance(exc, SecretInRecordError | RecordTooLargeError) and isinstance(record, Forecast)
            and record.attempts):  # fmt: skip
        return None
    large = isinstance(exc, RecordTooLargeError)
    reason = "the record was over the size limit" if large else "it held a secret"
    for kept in (withheld(record, reason, large), bare(record, reason, large)):
        try:
            tick.writer.write(kept)
        except (SecretInRecordError, RecordTooLargeError):
            continue
        except ArchiveError:
            return None
        return kept
    return None


def _history(archive: Archive, now: datetime) -> dict[str, list[KnownResult]]:
    """Results knowable strictly before ``now``, per competition (baselines fit on them)."""
    out: dict[str, list[KnownResult]] = {}
    kickoffs: dict[tuple, datetime] = {}
    for key, outcome in archive.outcomes.items():
        event, competition = archive.events.get(key), archive.competitions.get(key[0])
        if event is None or competition is None or outcome.recorded_at >= now:
            continue
        kickoffs[key] = effective_kickoff(event, competition)  # a date alone: the start of that day
        if kickoffs[key] < now:
            out.setdefault(key[0], []).append(KnownResult(event, outcome))
    for results in out.values():
        results.sort(key=lambda r: kickoffs[(r.event.competition_id, r.event.id)])
    return out


def _task(tick: TickContext, slot: Slot, history: dict[str, list[KnownResult]]) -> ScheduledTask:
    archive, now, clock = tick.archive, tick.now, tick.clock
    cid = slot.competition_id
    event = archive.events.get((cid, slot.target_id)) if slot.target_kind == "match" else None
    question = archive.questions.get((cid, slot.target_id)) if slot.target_kind == "question" else None
    full_tournament = slot.target_kind == "tournament"
    fixtures = archive.events_of(cid) if question is not None or full_tournament else ()
    package = tick.evidence.get((cid, slot.target_id, slot.horizon))
    return ScheduledTask(
        competition=archive.competitions[cid], access=slot.access, strategy=slot.strategy, horizon=slot.horizon,
        sample=slot.sample, scheduled_at=slot.opens, now=now, deadline=slot.deadline, clock=clock,
        event=event, question=question, fixtures=fixtures, history=tuple(history.get(cid, ())),
        window_closes=slot.closes, evidence=package.record if package else None,
        evidence_ref=package.ref if package else None, full_tournament=full_tournament,
        odds=snapshots_for(archive, cid, slot.target_id, slot.horizon) if event else (),
    )  # fmt: skip


def next_due_after(
    config: ArenaConfig, archive_root: Path | str | Archive, after: datetime, forecasters: Sequence | None = None
) -> datetime | None:
    """The next time after ``after`` at which a forecast window opens or closes (None: nothing left).

    ``archive_root`` may be an already loaded :class:`Archive`.
    """
    archive = archive_root if isinstance(archive_root, Archive) else load_archive(archive_root)
    chosen = forecasters if forecasters is not None else forecaster_specs(config)
    return _next_due(archive, config, chosen, after, _since(config, chosen))
