"""When full-tournament forecasts are due: fail closed, and never after the stage's first kickoff."""

from __future__ import annotations

from datetime import timedelta

from collector.records import CompetitionFormat, EventStatus, Horizon
from collector.schedule.tournament_slots import answers_tournament, tournament_windows
from tests.collection_helpers import arena
from tests.factories import T0, archive_from_records
from tests.tournament_helpers import real_tournament, small_cup

KNOWN = T0 - timedelta(days=3)  # every pairing registered three days before the opener


def _windows(events, outcomes, complete=lambda e: KNOWN):
    archive = archive_from_records([small_cup(), *events, *outcomes.values()])
    return {w.horizon: w for w in tournament_windows(archive, arena(), small_cup(), events, complete)}


def test_both_horizons_before_their_first_kickoffs():
    events, outcomes = real_tournament()
    found = _windows(events, outcomes)
    first = min(e.kickoff_utc for e in events)
    semis = min(e.kickoff_utc for e in events if e.stage == "semi-final")
    opening, after = found[Horizon.STAGE_OPENING], found[Horizon.GROUPS_COMPLETE]
    assert opening.deadline == first and opening.closes == first - timedelta(minutes=60) and opening.opens == KNOWN
    last_group_result = max(outcomes[e.id].recorded_at for e in events if not e.knockout)
    assert after.deadline == semis and after.opens == max(KNOWN, last_group_result) and after.closes < semis


def test_a_postponed_opener_keeps_the_earlier_deadline():
    events, outcomes = real_tournament()
    first = min(e.kickoff_utc for e in events)
    moved = [e.model_copy(update={"status": EventStatus.POSTPONED}) if e.kickoff_utc == first else e for e in events]
    assert _windows(moved, outcomes)[Horizon.STAGE_OPENING].deadline == first  # never a later one


def test_fail_closed_without_every_result_or_registration():
    events, outcomes = real_tournament()
    missing = {k: v for k, v in outcomes.items() if k != events[0].id}
    assert Horizon.GROUPS_COMPLETE not in _windows(events, missing)
    assert _windows(events, outcomes, complete=lambda e: None) == {}  # stages not completely registered
    no_semis = [e for e in events if e.stage == "group"]
    assert set(_windows(no_semis, outcomes)) == {Horizon.STAGE_OPENING}


class _Forecaster:
    def __init__(self, tournament, league=True):
        self.answers_tournament, self.answers_league_table = tournament, league


def test_who_answers():
    cup = small_cup()
    league = cup.model_copy(update={"format": CompetitionFormat.LEAGUE})
    assert answers_tournament(_Forecaster(True), cup) and not answers_tournament(_Forecaster(False), cup)
    assert not answers_tournament(_Forecaster(True, league=False), league)
    assert not answers_tournament(object(), cup)  # only forecasters that say so
