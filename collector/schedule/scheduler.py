"""Which forecast keys are due at ``now``, which windows closed unserved, and claiming keys once.

A *slot* is one forecast key with its window ``[opens, closes)`` and its deadline (the
kickoff, or the question's close). At ``now`` a slot without a record is

* due when ``opens <= now < closes`` and ``now < deadline`` (the hard guard: no request
  starts at or after kickoff);
* missed when ``now >= closes`` and the arena owed it: the target was registered, and the
  forecaster configured (``since``/``collect_from``), before the window closed.

A kickoff known only as a date counts as 00:00 of that date in the competition's time zone,
the earliest instant it could be (:mod:`collector.competitions.kickoffs`): windows and the
deadline count back from it, and its forecasts say ``kickoff_time_known = false``.

Stage opening (see :mod:`collector.config`): a stage (for leagues: a matchday) is complete
when all its pairings are registered: the group stage holds every pairing of each group,
a knockout stage one event per knockout slot, a matchday half as many events as teams.
Overlapping ticks are kept apart by claiming each key with an ``O_EXCL`` lock file; the
append-only writer refuses a second record for a key anyway.
"""

from __future__ import annotations

import os
import secrets
import time
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from pathlib import Path

from collector.archive.layout import event_path, forecast_path, question_path
from collector.archive.reader import Archive
from collector.archive.write.owner import Owner, owner_now
from collector.competitions.kickoffs import effective_kickoff
from collector.config import OFFSETS, ArenaConfig
from collector.forecasters.tasks import FULL_TOURNAMENT
from collector.records import (
    Access,
    Clock,
    Competition,
    Event,
    EventStatus,
    Forecast,
    ForecastStatus,
    Horizon,
    Question,
    Strategy,
    Validation,
)

from .tournament_slots import answers_tournament, tournament_windows


@dataclass(frozen=True)
class Slot:
    competition_id: str
    target_kind: str  # "match" | "question"
    target_id: str
    forecaster: str
    access: Access
    strategy: Strategy
    horizon: Horizon
    sample: int
    opens: datetime
    closes: datetime
    deadline: datetime
    owed_from: datetime  # the window is owed only if it closes after this
    revision: int = 0  # a retry of a transport failure: its revision, and the path it supersedes
    supersedes: str | None = None
    kickoff_time_known: bool = True  # False: the deadline is the start of the kickoff's date (kickoffs.py)

    @property
    def path(self) -> str:
        return forecast_path(
            self.competition_id, self.target_kind, self.target_id, self.forecaster,
            self.access.value, self.strategy.value, self.horizon.value, self.sample, self.revision,
        )  # fmt: skip

    def key(self) -> tuple[str, ...]:
        """The forecast key's identity in the archive view (as :func:`collector.archive.layout.identity`)."""
        return ("forecast", self.competition_id, self.target_kind, self.target_id, self.forecaster,
                self.access.value, self.strategy.value, self.horizon.value, str(self.sample))  # fmt: skip


@dataclass(frozen=True)
class Window:
    horizon: Horizon
    opens: datetime
    closes: datetime


@dataclass
class Plan:
    due: list[Slot]
    missed: list[Slot]
    upcoming: list[Slot]


def registered_at(archive: Archive, record: Event | Question) -> datetime:
    """When the arena first knew the target: revision 0's ``recorded_at``."""
    if isinstance(record, Event):
        first = archive.records.get(event_path(record.competition_id, record.id, 0))
    else:
        first = archive.records.get(question_path(record.competition_id, record.id, 0))
    return first.recorded_at if first is not None else record.recorded_at


def stage_key(competition: Competition, event: Event) -> tuple:
    if competition.stage_opening_by == "matchday":
        return (event.stage, event.matchday)
    return (event.stage,)


def expected_pairings(competition: Competition, key: tuple) -> int | None:
    if competition.stage_opening_by == "matchday":
        return len(competition.teams) // 2
    slots = sum(1 for s in competition.knockout_slots if s.stage == key[0])
    if slots:
        return slots
    try:
        knockout = competition.stage(key[0]).knockout
    except KeyError:
        knockout = False
    if competition.groups and not knockout:
        return sum(len(g.teams) * (len(g.teams) - 1) // 2 for g in competition.groups)
    return None


def stage_openings(archive: Archive, competition: Competition, events: Sequence[Event]) -> dict[tuple, tuple]:
    """Stage key -> (time all pairings were known or None, first kickoff of the stage)."""
    members: dict[tuple, list[Event]] = defaultdict(list)
    for event in events:
        members[stage_key(competition, event)].append(event)
    out = {}
    for key, group in members.items():  # every registered pairing counts; only scheduled ones set the kickoff
        kickoffs = [effective_kickoff(e, competition) for e in group if e.status is EventStatus.SCHEDULED]
        if not kickoffs:
            continue
        expected = expected_pairings(competition, key)
        complete = expected is None or len(group) >= expected
        known = max(registered_at(archive, e) for e in group) if complete else None
        out[key] = (known, min(kickoffs))
    return out


def event_windows(arena: ArenaConfig, event: Event, opening: tuple | None, kickoff: datetime | None = None) -> list[Window]:
    """The windows of ``event`` before ``kickoff`` (default: its own; a date-only event's earliest instant)."""
    kickoff = kickoff or event.kickoff_utc
    windows = []
    for horizon in arena.horizons:
        if horizon is Horizon.STAGE_OPENING:
            if opening is None:
                continue
            known, first = opening
            so = arena.windows.stage_opening
            closes = min(first - _minutes(so.close_before_minutes), kickoff)
            opens = closes if known is None else max(known, first - _hours(so.max_lead_hours))
            windows.append(Window(horizon, min(opens, closes), closes))
        else:
            opens = kickoff - OFFSETS[horizon]
            width = getattr(arena.windows, horizon.value).width()
            windows.append(Window(horizon, opens, min(opens + width, kickoff)))
    return windows


def question_window(arena: ArenaConfig, question: Question, known: datetime) -> Window:
    so = arena.windows.stage_opening
    closes = question.closes_at - _minutes(so.close_before_minutes)
    opens = max(known, question.closes_at - _hours(so.max_lead_hours))
    return Window(Horizon.STAGE_OPENING, min(opens, closes), closes)


def _minutes(value: float) -> timedelta:
    return timedelta(minutes=value)


def _hours(value: float) -> timedelta:
    return timedelta(hours=value)


def answers_questions(forecaster) -> bool:
    """Every forecaster answers tournament questions unless it sets ``answers_questions = False``."""
    return bool(getattr(forecaster, "answers_questions", True))


def slots_for(archive: Archive, arena: ArenaConfig, forecasters: Sequence, since: dict[str, datetime | None]):
    """Every slot of every followed competition (whatever its state at ``now``)."""
    for cid in arena.competitions:
        competition = archive.competitions.get(cid)
        if competition is None:
            continue
        registered = archive.events_of(cid)
        openings = stage_openings(archive, competition, registered)
        for event in registered:
            if event.status is not EventStatus.SCHEDULED:
                continue  # postponed or cancelled: nothing to ask
            known = registered_at(archive, event)
            kickoff = effective_kickoff(event, competition)  # a date alone: the start of that day
            windows = event_windows(arena, event, openings.get(stage_key(competition, event)), kickoff)
            cells = (c for w in windows
                     for c in _cells(arena, forecasters, since, cid, "match", event.id, w, kickoff, known))
            yield from (cells if event.kickoff_utc is not None else
                        (replace(c, kickoff_time_known=False) for c in cells))
        asking = [f for f in forecasters if answers_questions(f)]
        for question in archive.questions_of(cid):
            if Horizon.STAGE_OPENING not in arena.horizons:
                continue
            known = registered_at(archive, question)
            w = question_window(arena, question, known)
            yield from _cells(arena, asking, since, cid, "question", question.id, w, question.closes_at, known)
        yield from _tournament_cells(archive, arena, competition, registered, forecasters, since)


def _tournament_cells(archive, arena, competition, registered, forecasters, since) -> Iterable[Slot]:
    """The full-tournament slots (:mod:`collector.schedule.tournament_slots`) of one competition."""
    asking = [f for f in forecasters if answers_tournament(f, competition)]
    if not asking:
        return

    def complete(event: Event) -> datetime | None:
        key = stage_key(competition, event)
        members = [e for e in registered if stage_key(competition, e) == key]
        expected = expected_pairings(competition, key)
        if expected is not None and len(members) < expected:
            return None
        return max(registered_at(archive, e) for e in members)

    for w in tournament_windows(archive, arena, competition, registered, complete):
        yield from _cells(arena, asking, since, competition.id, "tournament", FULL_TOURNAMENT,
                          Window(w.horizon, w.opens, w.closes), w.deadline, w.opens)


def cell_applies(kind: str, access, strategy) -> bool:
    """Whether a condition is asked for a target kind: evidence packages are per event and horizon (no
    questions), ``fine_grained`` is a match-only strategy (players, events, statistics) with its own prompt,
    not combined with the evidence package's prompt."""
    if kind == "question":
        return access is not Access.EVIDENCE_PACKAGE and strategy != "fine_grained"
    return not (access is Access.EVIDENCE_PACKAGE and strategy == "fine_grained")


def _cells(arena, forecasters, since, cid, kind, target, window: Window, deadline, known) -> Iterable[Slot]:
    for f in forecasters:
        owed = max(t for t in (known, since.get(f.id)) if t is not None)
        for access, strategy in f.conditions:
            if not cell_applies(kind, access, strategy):
                continue
            for sample in range(arena.samples):
                yield Slot(cid, kind, target, f.id, access, strategy, window.horizon, sample,
                           window.opens, window.closes, deadline, owed)  # fmt: skip


def plan(archive: Archive, arena: ArenaConfig, forecasters: Sequence, now: datetime, since=None) -> Plan:
    """Split every unserved slot into due, missed (window closed, owed) and upcoming."""
    existing = set(archive.records)
    out = Plan([], [], [])
    for slot in slots_for(archive, arena, forecasters, since or {}):
        if slot.path in existing:
            slot = retry_slot(archive, slot, now)
            if slot is None:
                continue
        if now >= slot.closes or now >= slot.deadline:
            target = out.missed if slot.closes > slot.owed_from else None
        else:
            target = out.due if now >= slot.opens else out.upcoming
        # a file the reader rejected still occupies its key (the writer never overwrites it)
        if target is not None and (target is out.upcoming or not (archive.root / slot.path).exists()):
            target.append(slot)
    return out


RETRY_AFTER = timedelta(minutes=10)
"""The wait before retrying a failed key; it doubles with each failed revision (10, 20, 40 min, ...)."""


def retry_slot(archive: Archive, slot: Slot, now: datetime) -> Slot | None:
    """The next revision of a key whose effective record is a transport failure, while its window is open.

    A valid, normalised, repaired or invalid answer is final (the model's own failures are
    measured); so is a failure once the window has closed (it is not retried, nor missed).
    Revision ``n`` failed at ``recorded_at`` may be retried from ``recorded_at + RETRY_AFTER * 2**n``
    on, so a long outage costs a handful of records per key, not one per tick.
    """
    current = archive.effective_paths.get(slot.key())
    record = archive.records.get(current) if current is not None else None
    if not isinstance(record, Forecast) or not record.transport_failure:
        return None
    if not (slot.opens <= now < slot.closes and now < slot.deadline):
        return None
    if now < record.recorded_at + RETRY_AFTER * 2 ** min(record.revision, 16):
        return None
    return replace(slot, revision=record.revision + 1, supersedes=current)


def next_due_after(archive: Archive, arena: ArenaConfig, forecasters: Sequence, after: datetime, since=None):
    """The earliest time after ``after`` at which a slot opens or closes (for a replay's clock)."""
    times = []
    for slot in slots_for(archive, arena, forecasters, since or {}):
        if slot.path in archive.records:
            continue
        times.extend(t for t in (slot.opens, slot.closes) if t > after)
    return min(times) if times else None


def missed_record(slot: Slot, forecaster, now: datetime, clock: Clock, reason: str | None = None) -> Forecast:
    """The honest record of a window that closed without a forecast, or of a key not asked for
    (``reason``: why, kept as the record's ``validation.errors``)."""
    return Forecast(
        recorded_at=now, clock=clock, competition_id=slot.competition_id, target_kind=slot.target_kind,
        target_id=slot.target_id, forecaster=slot.forecaster, forecaster_type=forecaster.type,
        model=getattr(forecaster, "model", None), model_version=forecaster.version, access=slot.access,
        strategy=slot.strategy, horizon=slot.horizon, sample=slot.sample, kickoff_utc=slot.deadline,
        kickoff_time_known=slot.kickoff_time_known, scheduled_at=slot.opens, status=ForecastStatus.MISSED,
        validation=Validation(errors=(reason,)) if reason else Validation(),
    )  # fmt: skip


def abandoned(lock: Path, stale_after: float) -> bool:
    """Whether a lock was abandoned: its owner is provably gone, or (owner unknown) it is older than ``stale_after``."""
    try:
        text = lock.read_text(errors="replace")
        age = time.time() - lock.stat().st_mtime
    except FileNotFoundError:
        return True
    owner = Owner.parse(text)
    if owner is not None and owner.host == owner_now().host:
        return not owner.alive()
    return age > stale_after


class KeyLocks:
    """At-most-once claims: one ``O_EXCL`` lock file per forecast key under ``folder``.

    A lock file holds its owner (host, process id, process start time; see
    :mod:`collector.archive.write.owner`). A lock whose owner is provably gone (same host, no such
    process) was left by a tick that died and is taken over at once; a live owner's lock is
    respected. A lock whose owner cannot be checked (another host, an unreadable file) counts
    as abandoned only after ``stale_after`` seconds of wall-clock time.
    """

    def __init__(self, folder: Path, stale_after: float = 3600.0):
        self.folder = Path(folder)
        self.stale_after = stale_after
        self._made: set[Path] = set()

    def _lock(self, slot: Slot) -> Path:
        return self.folder / (slot.path + ".lock")

    def claim(self, slot: Slot) -> bool:
        lock = self._lock(slot)
        if lock.parent not in self._made:
            lock.parent.mkdir(parents=True, exist_ok=True)
            self._made.add(lock.parent)
        try:
            fd = os.open(lock, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:
            if not self._stale(lock) or not self._break(lock):
                return False
            try:
                fd = os.open(lock, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            except FileExistsError:
                return False
        os.write(fd, f"{owner_now().token()}\n".encode())
        os.close(fd)
        return True

    def _stale(self, lock: Path) -> bool:
        return abandoned(lock, self.stale_after)

    def _break(self, lock: Path) -> bool:
        """Move a stale lock aside; False if another tick broke it first or took the key meanwhile.

        Unlinking by name could remove a fresh lock that a racing tick made after both saw the
        stale one; a rename moves exactly one file, whose age is then checked (and a fresh one
        put back).
        """
        aside = lock.with_name(f"{lock.name}.{secrets.token_hex(6)}.stale")
        try:
            os.rename(lock, aside)
        except FileNotFoundError:
            return False
        try:
            if abandoned(aside, self.stale_after):  # the very file moved: a fresh lock is put back
                return True
            try:
                os.link(aside, lock)
            except FileExistsError:
                pass
            return False
        finally:
            aside.unlink(missing_ok=True)

    def release(self, slot: Slot) -> None:
        self._lock(slot).unlink(missing_ok=True)
