"""The scheduler: windows, the hard kickoff guard, missed records, stage opening, overlapping ticks."""

from __future__ import annotations

import asyncio
import gc
from datetime import UTC, date, datetime, timedelta

import pytest

from collector.archive.reader import load_archive
from collector.archive.write.writer import ArchiveWriter
from collector.records import (
    Access,
    Competition,
    CompetitionFormat,
    Forecast,
    ForecasterType,
    ForecastStatus,
    Horizon,
    Stage,
    Strategy,
    Team,
)
from collector.schedule.scheduler import KeyLocks, plan
from collector.schedule.tick import next_due_after, run_tick_async
from tests.collection_helpers import (
    KICKOFF,
    T0,
    arena,
    knockout_event,
    make_event,
    world_cup,
)

CELL = ((Access.CLOSED_BOOK, Strategy.PROBABILISTIC_FORECAST),)


class Counting:
    """A forecaster that answers instantly (status invalid_json: final, never retried) and counts its calls."""

    type = ForecasterType.BASELINE
    version = "counting-1"
    conditions = CELL

    def __init__(self, id: str = "counting", delay: float = 0.0):
        self.id, self.delay, self.calls = id, delay, []

    async def forecast(self, task) -> Forecast:
        self.calls.append((task.target_id, task.horizon, task.now))
        await asyncio.sleep(self.delay)
        return Forecast(
            recorded_at=task.now, clock=task.clock, competition_id=task.competition.id,
            target_kind=task.target_kind, target_id=task.target_id, forecaster=self.id,
            forecaster_type=self.type, model_version=self.version, access=task.access, strategy=task.strategy,
            horizon=task.horizon, sample=task.sample, kickoff_utc=task.deadline, scheduled_at=task.scheduled_at,
            requested_at=task.now, status=ForecastStatus.INVALID_JSON,
        )  # fmt: skip


def wc_archive(root, *events):
    writer = ArchiveWriter(root)
    writer.write(world_cup())
    for event in events or (make_event(),):
        writer.write(event)
    return root


def tick(root, now, forecasters, config=None, **kw):
    config = config or arena(questions=False, horizons=["t_minus_24h", "t_minus_2h"])
    return asyncio.run(run_tick_async(config, root, now, None, forecasters=forecasters, sync=False, **kw))


def keys(root):
    return {(f.target_id, f.horizon.value, f.status.value) for f in load_archive(root).forecasts}


@pytest.mark.parametrize(
    ("offset", "due"),
    [
        (timedelta(hours=-24, seconds=-1), set()),
        (timedelta(hours=-24), {Horizon.T_MINUS_24H}),
        (timedelta(hours=-22, minutes=-31), {Horizon.T_MINUS_24H}),
        (timedelta(hours=-2), {Horizon.T_MINUS_2H}),
        (timedelta(minutes=-61), {Horizon.T_MINUS_2H}),
        (timedelta(minutes=-60), set()),
    ],
)
def test_offset_windows(archive_dir, offset, due):
    wc_archive(archive_dir)
    config = arena(questions=False, horizons=["t_minus_24h", "t_minus_2h"])
    p = plan(load_archive(archive_dir), config, [Counting()], KICKOFF + offset)
    assert {s.horizon for s in p.due} == due


def test_tick_after_kickoff_requests_nothing_and_records_missed_windows(archive_dir):
    wc_archive(archive_dir)
    f = Counting()
    report = tick(archive_dir, KICKOFF + timedelta(minutes=5), [f])
    assert f.calls == []
    assert keys(archive_dir) == {("mex-v-rsa", "t_minus_24h", "missed"), ("mex-v-rsa", "t_minus_2h", "missed")}
    missed = load_archive(archive_dir).forecasts[0]
    assert missed.requested_at is None and missed.attempts == () and missed.kickoff_utc == KICKOFF
    assert report.missed == 2 and report.manifest is not None


def test_no_missed_record_for_windows_closed_before_the_event_was_registered(archive_dir):
    late = make_event(recorded_at=KICKOFF - timedelta(hours=3), source_retrieved_at=KICKOFF - timedelta(hours=3))
    wc_archive(archive_dir, late)
    f = Counting()
    tick(archive_dir, KICKOFF - timedelta(hours=1, minutes=30), [f])
    assert keys(archive_dir) == {("mex-v-rsa", "t_minus_2h", "invalid_json")}  # no missed T-24h


def test_each_key_once_across_ticks(archive_dir):
    wc_archive(archive_dir)
    f = Counting()
    first = tick(archive_dir, KICKOFF - timedelta(hours=24), [f])
    second = tick(archive_dir, KICKOFF - timedelta(hours=23), [f])
    assert len(f.calls) == 1 and first.produced == 1
    assert second.written == [] and second.manifest is None


def test_overlapping_ticks_produce_each_key_once(archive_dir):
    events = [make_event(id=f"e{i}", home_team="mex", away_team="rsa") for i in range(12)]
    wc_archive(archive_dir, *events)
    f = Counting(delay=0.05)
    config = arena(questions=False, horizons=["t_minus_24h"])
    now = KICKOFF - timedelta(hours=24)

    async def both():
        return await asyncio.gather(
            run_tick_async(config, archive_dir, now, forecasters=[f], sync=False),
            run_tick_async(config, archive_dir, now + timedelta(minutes=1), forecasters=[f], sync=False),
        )

    a, b = asyncio.run(both())
    assert sorted(t for t, *_ in f.calls) == sorted(e.id for e in events)
    assert a.produced + b.produced == 12
    assert len(load_archive(archive_dir).forecasts) == 12


def test_a_held_claim_blocks_a_second_producer(archive_dir, tmp_path):
    wc_archive(archive_dir)
    config = arena(questions=False, horizons=["t_minus_24h"])
    now = KICKOFF - timedelta(hours=24)
    (slot,) = plan(load_archive(archive_dir), config, [Counting()], now).due
    locks = KeyLocks(tmp_path / "locks")
    assert locks.claim(slot) and not locks.claim(slot)
    f = Counting()
    report = tick(archive_dir, now, [f], config=config, lock_dir=tmp_path / "locks")
    assert f.calls == [] and report.locked == 1
    locks.release(slot)
    assert tick(archive_dir, now, [f], config=config, lock_dir=tmp_path / "locks").produced == 1


def league(n_teams: int = 4) -> Competition:
    teams = tuple(Team(id=f"t{i}", name=f"Team {i}") for i in range(n_teams))
    return Competition(
        recorded_at=T0, id="xx-1-2025-26", name="Test League", edition="2025/26", format=CompetitionFormat.LEAGUE,
        time_zone="UTC", teams=teams, stages=(Stage(id="regular-season", name="Regular season"),),
        stage_opening_by="matchday", source="test",
    )  # fmt: skip


def league_event(home, away, matchday, kickoff, recorded=T0):
    return make_event(competition_id="xx-1-2025-26", id=f"{home}-v-{away}", stage="regular-season", group=None,
                      matchday=matchday, home_team=home, away_team=away, kickoff_utc=kickoff,
                      kickoff_date=kickoff.date(), recorded_at=recorded)  # fmt: skip


def test_stage_opening_waits_for_every_pairing_of_the_matchday(archive_dir):
    writer = ArchiveWriter(archive_dir)
    writer.write(league())
    k = KICKOFF
    writer.write(league_event("t0", "t1", 1, k))
    config = arena(competitions=["xx-1-2025-26"], questions=False, horizons=["stage_opening"])
    now = k - timedelta(days=2)
    assert plan(load_archive(archive_dir), config, [Counting()], now).due == []  # 1 of 2 pairings
    writer.write(league_event("t2", "t3", 1, k + timedelta(hours=3), recorded=now - timedelta(hours=1)))
    due = plan(load_archive(archive_dir), config, [Counting()], now).due
    assert {s.target_id for s in due} == {"t0-v-t1", "t2-v-t3"}
    assert all(s.opens == now - timedelta(hours=1) for s in due)  # when the last pairing became known
    assert all(s.closes == k - timedelta(minutes=60) for s in due)  # before the matchday's first kickoff
    # too early: more than max_lead_hours (168 h) before the first kickoff
    assert plan(load_archive(archive_dir), config, [Counting()], k - timedelta(days=8)).due == []


def test_next_due_after_names_the_next_window_boundary(archive_dir):
    wc_archive(archive_dir)
    config = arena(questions=False, horizons=["t_minus_24h", "t_minus_2h"])
    start = KICKOFF - timedelta(days=3)
    assert next_due_after(config, archive_dir, start, [Counting()]) == KICKOFF - timedelta(hours=24)
    later = next_due_after(config, archive_dir, KICKOFF - timedelta(hours=24), [Counting()])
    assert later == KICKOFF - timedelta(hours=22, minutes=30)


def test_a_kickoff_known_only_as_a_date_counts_from_the_start_of_that_day_in_the_competition_zone(archive_dir):
    writer = ArchiveWriter(archive_dir)
    writer.write(world_cup().model_copy(update={"time_zone": "America/Mexico_City"}))
    writer.write(make_event(kickoff_utc=None, kickoff_date=date(2026, 6, 11), kickoff_source="2026-06-11"))
    day_start = datetime(2026, 6, 11, 6, tzinfo=UTC)  # 00:00 in Mexico City (UTC-6), the earliest it could be
    f = Counting()
    tick(archive_dir, day_start - timedelta(hours=24), [f])
    assert f.calls == [("mex-v-rsa", Horizon.T_MINUS_24H, day_start - timedelta(hours=24))]
    tick(archive_dir, day_start, [f])  # 13 hours before the real kickoff, but the time is not known: too late
    assert len(f.calls) == 1
    assert keys(archive_dir) == {("mex-v-rsa", "t_minus_24h", "invalid_json"), ("mex-v-rsa", "t_minus_2h", "missed")}
    view = load_archive(archive_dir)
    assert {(r.kickoff_utc, r.kickoff_time_known) for r in view.forecasts} == {(day_start, False)}
    assert view.events[("worldcup-2026", "mex-v-rsa")].kickoff_source == "2026-06-11"  # the source's string kept


def test_forecasts_of_a_timed_kickoff_say_its_time_was_known(archive_dir):
    wc_archive(archive_dir)
    tick(archive_dir, KICKOFF - timedelta(hours=24), [Counting()])
    assert [(r.kickoff_utc, r.kickoff_time_known) for r in load_archive(archive_dir).forecasts] == [(KICKOFF, True)]


def test_spending_cap_defers_the_rest_to_a_later_tick(archive_dir, monkeypatch):
    from tests.collection_helpers import FAKE_KEY
    from tests.fake_openrouter import FakeOpenRouter

    wc_archive(archive_dir, *[make_event(id=f"e{i}") for i in range(3)])
    now = KICKOFF - timedelta(hours=24)
    with FakeOpenRouter() as server:
        monkeypatch.setenv("OPENROUTER_API_KEY", FAKE_KEY)
        monkeypatch.setenv("OPENROUTER_BASE_URL", server.base_url)
        tight = arena(questions=False, horizons=["t_minus_24h"], concurrency=1, spending_cap_usd=0.003)
        first = asyncio.run(run_tick_async(tight, archive_dir, now, sync=False))
        assert (first.due, first.produced, first.deferred) == (12, 3, 9)  # each call costs 0.00123 USD
        assert first.spent_usd == pytest.approx(3 * 0.00123)
        assert len(server.seen) == 3 and len(load_archive(archive_dir).forecasts) == 3
        loose = arena(questions=False, horizons=["t_minus_24h"])
        second = asyncio.run(run_tick_async(loose, archive_dir, now + timedelta(minutes=15), sync=False))
        assert (second.due, second.produced) == (9, 9) and len(server.seen) == 12


def test_next_due_after_from_the_config_alone_needs_no_api_key(archive_dir, monkeypatch):
    monkeypatch.delenv("OPENROUTER_API_KEY", raising=False)
    wc_archive(archive_dir)
    config = arena(questions=False, horizons=["t_minus_2h"])
    assert next_due_after(config, archive_dir, KICKOFF - timedelta(days=1)) == KICKOFF - timedelta(hours=2)


def test_a_stale_lock_left_by_a_dead_tick_is_broken(archive_dir, tmp_path):
    import os

    wc_archive(archive_dir)
    config = arena(questions=False, horizons=["t_minus_24h"])
    (slot,) = plan(load_archive(archive_dir), config, [Counting()], KICKOFF - timedelta(hours=24)).due
    locks = KeyLocks(tmp_path / "locks", stale_after=60)
    assert locks.claim(slot)
    lock = tmp_path / "locks" / (slot.path + ".lock")
    assert not locks.claim(slot)  # this live process owns it: respected, however old
    os.utime(lock, (lock.stat().st_mtime - 120, lock.stat().st_mtime - 120))
    assert not locks.claim(slot)
    lock.write_text("unreadable owner\n")  # an owner that cannot be checked: broken once it is old
    os.utime(lock, (lock.stat().st_mtime - 120, lock.stat().st_mtime - 120))
    assert locks.claim(slot) and not locks.claim(slot)


def test_breaking_a_stale_lock_never_removes_the_fresh_lock_of_a_racing_tick(archive_dir, tmp_path):
    """Two ticks saw the same stale lock; the first broke it and claimed the key. The second must not."""
    wc_archive(archive_dir)
    config = arena(questions=False, horizons=["t_minus_24h"])
    (slot,) = plan(load_archive(archive_dir), config, [Counting()], KICKOFF - timedelta(hours=24)).due
    first, second = KeyLocks(tmp_path / "locks", stale_after=60), KeyLocks(tmp_path / "locks", stale_after=60)
    assert first.claim(slot)  # a fresh lock
    second._stale = lambda lock: True  # it judged the old lock stale just before `first` replaced it
    assert not second.claim(slot)
    lock = tmp_path / "locks" / (slot.path + ".lock")
    assert lock.exists() and [p.name for p in lock.parent.iterdir()] == [lock.name]  # put back, nothing left aside


def test_a_broken_file_at_a_key_is_reported_and_never_overwritten(archive_dir):
    wc_archive(archive_dir)
    config = arena(questions=False, horizons=["t_minus_24h"])
    now = KICKOFF - timedelta(hours=24)
    (slot,) = plan(load_archive(archive_dir), config, [Counting()], now).due
    broken = archive_dir / slot.path
    broken.parent.mkdir(parents=True)
    broken.write_text('{"kind": "forecast", "status": "valid"')
    f = Counting()
    report = tick(archive_dir, now, [f], config=config)
    assert f.calls == [] and broken.read_text() == '{"kind": "forecast", "status": "valid"'
    assert any(p.path == slot.path for p in report.problems)


def test_urgent_windows_go_first_and_the_tick_time_budget_defers(archive_dir):
    soon = make_event(id="soon", kickoff_utc=KICKOFF - timedelta(hours=22))  # its T-2h window is open
    wc_archive(archive_dir, make_event(), soon)
    now = KICKOFF - timedelta(hours=24)
    horizons = ["t_minus_24h", "t_minus_2h"]
    f = Counting()
    out_of_time = arena(questions=False, horizons=horizons, concurrency=1, max_tick_minutes=1e-6)
    report = tick(archive_dir, now, [f], config=out_of_time)
    assert f.calls == [] and report.deferred == 2
    assert keys(archive_dir) == {("soon", "t_minus_24h", "missed")}  # closed before `now`, owed
    report = tick(archive_dir, now, [f], config=arena(questions=False, horizons=horizons, concurrency=1))
    assert [c[:2] for c in f.calls] == [("soon", Horizon.T_MINUS_2H), ("mex-v-rsa", Horizon.T_MINUS_24H)]
    assert report.produced == 2


class WrongKey(Counting):
    async def forecast(self, task):
        record = await super().forecast(task)
        return record.model_copy(update={"sample": 7})


def test_a_record_for_another_key_is_refused_and_reported(archive_dir):
    wc_archive(archive_dir)
    report = tick(archive_dir, KICKOFF - timedelta(hours=24), [WrongKey()],
                  config=arena(questions=False, horizons=["t_minus_24h"]))  # fmt: skip
    assert report.produced == 0 and load_archive(archive_dir).forecasts == []
    assert any("not at the key asked for" in p.message for p in report.problems)


def test_a_matchday_with_a_postponed_or_undated_match_still_opens(archive_dir):
    from collector.records import EventStatus

    writer = ArchiveWriter(archive_dir)
    writer.write(league(6))  # three pairings per matchday
    writer.write(league_event("t0", "t1", 1, KICKOFF))
    writer.write(league_event("t2", "t3", 1, KICKOFF).model_copy(update={"kickoff_utc": None}))
    writer.write(league_event("t4", "t5", 1, KICKOFF).model_copy(update={"status": EventStatus.POSTPONED}))
    config = arena(competitions=["xx-1-2025-26"], questions=False, horizons=["stage_opening"])
    due = plan(load_archive(archive_dir), config, [Counting()], KICKOFF - timedelta(days=2)).due
    # every pairing is known; the postponed one is not asked, the undated one counts from the start of its day
    assert [s.target_id for s in due] == ["t0-v-t1", "t2-v-t3"]


def test_plan_invariants_over_random_times(tmp_path_factory):
    from hypothesis import given, settings
    from hypothesis import strategies as st

    root = tmp_path_factory.mktemp("inv") / "archive"
    wc_archive(root, make_event(), knockout_event(kickoff_utc=KICKOFF + timedelta(hours=5)))
    archive = load_archive(root)
    config = arena(questions=False)
    forecasters = [Counting("a"), Counting("b")]

    @settings(max_examples=200, deadline=None)
    @given(st.integers(min_value=-10 * 24 * 60, max_value=12 * 60))
    def check(minutes):
        now = KICKOFF + timedelta(minutes=minutes)
        p = plan(archive, config, forecasters, now)
        for slot in p.due:  # the hard guard: nothing due at or after its deadline or outside its window
            assert slot.opens <= now < slot.closes <= slot.deadline
        assert all(now >= s.closes or now >= s.deadline for s in p.missed)
        assert all(now < s.opens for s in p.upcoming)
        keys = [s.path for s in p.due + p.missed + p.upcoming]
        assert len(keys) == len(set(keys))

    check()


class FreezeWatching(Counting):
    """A forecaster that notes whether the heap older than the forecast phase is frozen while it answers."""

    async def forecast(self, task) -> Forecast:
        self.frozen = gc.get_freeze_count()
        return await super().forecast(task)


def test_the_forecast_phase_runs_with_the_older_heap_out_of_gc_passes(archive_dir):
    wc_archive(archive_dir)
    f = FreezeWatching()
    report = tick(archive_dir, KICKOFF - timedelta(hours=24), [f])
    assert report.produced == 1 and f.frozen > 0  # the loaded archive, roster and clients among them
    assert gc.get_freeze_count() == 0  # back in the collector's passes once the phase is over
