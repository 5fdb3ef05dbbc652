"""Baselines' full-tournament forecasts: on the World Cup 2026 replay, directly, and for a league."""

from __future__ import annotations

from collections import defaultdict
from datetime import UTC, datetime, timedelta

import pytest

from builder.score.t5 import score_forecast, score_league
from collector.archive.reader import load_archive
from collector.audit.verify import verify_repository
from collector.forecasters.baselines import (  # every built-in baseline but the market
    BASELINES,
    build_baseline,
)
from collector.forecasters.baselines.backtest import played_matches
from collector.forecasters.tasks import ForecastTask
from collector.forecasters.tournament.bracket import derived_places, pairing_mismatches
from collector.records import Access, Clock, Horizon, Strategy, advancement_rounds
from collector.records.byteform import record_bytes
from collector.schedule.replay import replay
from tests.tournament_helpers import finished_league

UNTIL = datetime(2026, 6, 29, 6, 0, tzinfo=UTC)  # the group stage over, the first round of 32 match played


@pytest.fixture(scope="module")
def replayed(data_dir, tmp_path_factory):
    out = tmp_path_factory.mktemp("replay") / "wc"
    summary = replay("worldcup-2026", out, data_dir, until=UNTIL, baselines=BASELINES)
    return out, summary, load_archive(out / "archive")


def _tournament(archive):
    return {(f.forecaster, f.horizon): f for f in archive.forecasts if f.target_kind == "tournament"}


@pytest.mark.slow
def test_every_baseline_forecasts_the_whole_tournament_before_kickoff_and_again_after_the_groups(replayed):
    out, summary, archive = replayed
    assert not summary.problems and not archive.problems
    competition = archive.competitions["worldcup-2026"]
    events = archive.events_of("worldcup-2026")
    first_kickoff = min(e.kickoff_utc for e in events)
    group_results_at = max(archive.outcomes[("worldcup-2026", e.id)].recorded_at for e in events if not e.knockout)
    real_r32 = {e.match_number: (e.home_team, e.away_team) for e in events if e.stage == "round-of-32"}
    found = _tournament(archive)
    assert set(found) == {(b, h) for b in BASELINES for h in (Horizon.STAGE_OPENING, Horizon.GROUPS_COMPLETE)}
    for (forecaster, horizon), f in found.items():
        assert f.status.value == "valid" and f.target_id == "full-tournament", forecaster
        assert len(f.payload.knockout_matches) == 32
        if horizon is Horizon.STAGE_OPENING:
            assert f.requested_at < first_kickoff and f.kickoff_utc == first_kickoff
            assert len(f.payload.group_matches) == 72
            assert pairing_mismatches(competition, f.payload) == []  # its own bracket, exactly
        else:
            assert f.payload.group_matches == ()  # the real tables replace them
            assert group_results_at <= f.requested_at < min(e.kickoff_utc for e in events if e.stage == "round-of-32")
            pred = {m.match_number: (m.home, m.away) for m in f.payload.knockout_matches if m.stage == "round-of-32"}
            fixed = [s.match_number for s in competition.knockout_slots if s.stage == "round-of-32"
                     and not (s.home_rule.startswith("3") or s.away_rule.startswith("3"))]
            assert fixed and all(pred[m] == real_r32[m] for m in fixed)  # winners and runners-up: the real ones
            thirds = {t for m, pair in pred.items() if m not in fixed for t in pair}
            assert thirds == {t for m, pair in real_r32.items() if m not in fixed for t in pair}
    report = verify_repository(out)
    assert report.violations == [] and not [f for f in report.findings if f.code == "no_target"]


@pytest.mark.slow
def test_the_saved_forecasts_score_t5_at_the_stages_the_replay_reached(replayed):
    _, _, archive = replayed
    competition = archive.competitions["worldcup-2026"]
    events = archive.events_of("worldcup-2026")
    outcomes = {eid: o for (cid, eid), o in archive.outcomes.items() if cid == "worldcup-2026"}
    f = _tournament(archive)[("elo", Horizon.STAGE_OPENING)]
    scores = score_forecast(competition, f.payload, events, outcomes)
    assert [s.stage for s in scores] == ["groups"]  # the round of 32 is not over yet
    assert 0 <= scores[0].g <= 100 and set(scores[0].per_round) == {"round-of-32"} and scores[0].h is None
    assert scores[0].reach["round-of-32"][0] < 0.25  # Brier of the reach-R32 probabilities: better than 0.5 each


def _task(competition, now, horizon, fixtures, history=()):
    return ForecastTask(competition=competition, access=Access.CLOSED_BOOK, strategy=Strategy.PROBABILISTIC_FORECAST,
                        horizon=horizon, sample=0, scheduled_at=now, now=now, deadline=now + timedelta(hours=1),
                        clock=Clock.REPLAY, fixtures=tuple(fixtures), history=tuple(history), full_tournament=True)


@pytest.mark.slow
def test_modal_bracket_is_consistent_seeded_and_its_reach_probabilities_add_up(data_dir):
    competition, played = played_matches("worldcup-2026", data_dir)
    now = played[0].event.kickoff_utc - timedelta(days=1)
    fixtures = [p.event for p in played if not p.event.knockout]
    record = build_baseline("elo", data_dir, simulations=400, seed=3).forecast_now(
        _task(competition, now, Horizon.STAGE_OPENING, fixtures))
    payload = record.payload
    assert record.target_kind == "tournament" and pairing_mismatches(competition, payload) == []
    for m in payload.group_matches:  # the headline score has the most likely result
        probs = (m.home_win, m.draw, m.away_win)
        result = 0 if m.score.home > m.score.away else 1 if m.score.home == m.score.away else 2
        assert probs[result] == max(probs)
    reach = defaultdict(dict)
    for r in payload.reach:
        reach[r.stage][r.team] = r.probability
    rounds = advancement_rounds(competition)
    for stage in rounds:
        slots = sum(1 for s in competition.knockout_slots if s.stage == stage)
        assert sum(reach[stage].values()) == pytest.approx(2 * slots, abs=1e-4)
    for team in reach[rounds[0]]:
        chain = [reach[s].get(team, 0.0) for s in rounds]
        assert all(a >= b for a, b in zip(chain, chain[1:], strict=False)), team
    places = derived_places(competition, payload)
    final = next(m for m in payload.knockout_matches if m.stage == "final")
    assert places.champion == final.advances and places.runner_up in (final.home, final.away)
    assert len(places.semifinalists) == 4 and places.champion in places.semifinalists
    again = build_baseline("elo", data_dir, simulations=400, seed=3).forecast_now(
        _task(competition, now, Horizon.STAGE_OPENING, fixtures))
    assert record_bytes(again) == record_bytes(record)


def test_a_league_gets_a_final_table_scored_by_tau_rho_and_place_hits(data_dir):
    competition, played = played_matches("en-1-2025-26", data_dir)
    now = played[0].event.kickoff_utc - timedelta(days=1)
    fixtures = [p.event for p in played]
    record = build_baseline("elo", data_dir, simulations=200).forecast_now(
        _task(competition, now, Horizon.STAGE_OPENING, fixtures))
    table = record.payload.table
    assert [e.position for e in table] == list(range(1, len(competition.teams) + 1))
    assert all(a.points >= b.points for a, b in zip(table, table[1:], strict=False))
    events = [p.event for p in played]
    outcomes = {p.event.id: p.outcome for p in played}
    n = len(competition.teams)
    assert len(played) < n * (n - 1)  # the shared data stops mid-season
    assert score_league(competition, record.payload, events, outcomes) is None  # no final table: no score
    # A finished season: the real table is the one its results give, scored three ways.
    events, outcomes = finished_league(competition, [e.team for e in record.payload.table])
    perfect = score_league(competition, record.payload, events, outcomes)
    assert (perfect.kendall_tau, perfect.spearman_rho, perfect.champion, perfect.top_k, perfect.relegation) == \
        (pytest.approx(1.0), pytest.approx(1.0), 1.0, 1.0, 1.0)
    reversed_table = finished_league(competition, [e.team for e in reversed(record.payload.table)])
    worst = score_league(competition, record.payload, *reversed_table)
    assert (worst.kendall_tau, worst.spearman_rho, worst.champion) == (pytest.approx(-1.0), pytest.approx(-1.0), 0.0)
