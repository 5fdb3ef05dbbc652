"""Monte Carlo of the remaining competition: real format, known results kept, seeded and reproducible."""

from __future__ import annotations

from datetime import timedelta

import pytest

from collector.competitions.standings import MatchResult, compute_table, table_for
from collector.fixtures.questions import league_questions, tournament_questions
from collector.forecasters.baselines import build_baseline
from collector.forecasters.baselines.backtest import played_matches
from collector.forecasters.baselines.simulate import assign_thirds
from collector.forecasters.tasks import ForecastTask, KnownResult
from collector.records import Access, Clock, Horizon, Strategy
from collector.records.byteform import record_bytes


@pytest.fixture(scope="module")
def world_cup(data_dir):
    competition, played = played_matches("worldcup-2026", data_dir)
    first = played[0].event.kickoff_utc
    questions = {q.id: q for q in tournament_questions(competition, first, first - timedelta(days=9), Clock.REPLAY)}
    return competition, played, questions


def _task(competition, question, now, fixtures, history=()):
    # questions close at the first kickoff; mid-competition tasks here exercise the simulation itself
    deadline = max(question.closes_at, now + timedelta(days=1))
    return ForecastTask(
        competition=competition, access=Access.CLOSED_BOOK, strategy=Strategy.PROBABILISTIC_FORECAST,
        horizon=Horizon.STAGE_OPENING, sample=0, scheduled_at=now, now=now, deadline=deadline,
        clock=Clock.REPLAY, question=question, fixtures=tuple(fixtures), history=tuple(history),
    )


def test_assign_thirds_respects_every_slot_rule():
    slots = [(74, "away", {"A", "B", "C", "D", "F"}), (77, "away", {"C", "D", "F", "G", "H"}),
             (79, "away", {"C", "E", "F", "H", "I"}), (80, "away", {"E", "H", "I", "J", "K"})]
    assigned = assign_thirds(slots, ["A", "F", "H", "K"])
    assert sorted(assigned.values()) == ["A", "F", "H", "K"]
    for match, side, allowed in slots:
        assert assigned[(match, side)] in allowed
    assert assigned[(80, "away")] == "K"  # the only slot that takes K


@pytest.mark.slow
def test_world_cup_questions_before_kickoff_are_seeded_and_coherent(world_cup, data_dir):
    competition, played, questions = world_cup
    fixtures = [p.event for p in played if not p.event.knockout]
    now = played[0].event.kickoff_utc - timedelta(days=1)
    forecaster = build_baseline("elo", data_dir, simulations=300, seed=11)
    champion = forecaster.forecast_now(_task(competition, questions["world_champion"], now, fixtures))
    semis = forecaster.forecast_now(_task(competition, questions["semifinalists"], now, fixtures))
    assert sum(c.probability for c in champion.payload.choices) == pytest.approx(1.0, abs=1e-6)
    # 48 probabilities k/300, each rounded to 6 decimals: their sum is 4 within 48 * 5e-7
    assert sum(c.probability for c in semis.payload.choices) == pytest.approx(4.0, abs=48 * 5e-7)
    assert semis.inputs["best_third_allocation"] == "the official table of the definition (495 combinations)"
    assert len(semis.payload.final_picks) == 4
    favourite = champion.payload.final_picks[0]
    assert favourite in semis.payload.final_picks  # the champion favourite is a semifinal favourite too
    probs = {c.team: c.probability for c in semis.payload.choices}
    assert probs["esp"] > probs["cpv"]
    # same seed, same record; another seed, other draws
    again = build_baseline("elo", data_dir, simulations=300, seed=11)
    assert record_bytes(again.forecast_now(_task(competition, questions["world_champion"], now, fixtures))) == \
        record_bytes(champion)
    other = build_baseline("elo", data_dir, simulations=300, seed=12)
    assert other.forecast_now(_task(competition, questions["world_champion"], now, fixtures)).payload != \
        champion.payload


@pytest.mark.slow
def test_known_results_are_kept(world_cup, data_dir):
    """With every group and quarter-final result known, the simulation reproduces what happened."""
    competition, played, questions = world_cup
    quarter_finals = [p for p in played if p.event.stage == "quarter-final"]
    now = max(p.ends for p in quarter_finals) + timedelta(hours=1)
    history = [KnownResult(p.event, p.outcome) for p in played if p.ends < now]
    fixtures = [p.event for p in played]
    forecaster = build_baseline("dixon_coles", data_dir, simulations=100)
    semis = forecaster.forecast_now(_task(competition, questions["semifinalists"], now, fixtures, history))
    real = {t for p in played if p.event.stage == "semi-final" for t in (p.event.home_team, p.event.away_team)}
    assert set(semis.payload.final_picks) == real
    assert all(c.probability == 1.0 for c in semis.payload.choices if c.team in real)
    group_a = [p for p in played if p.event.group == "A"]
    table = table_for(
        competition,
        competition.groups[0].teams,
        [MatchResult(p.event.home_team, p.event.away_team, p.outcome.score_90.home, p.outcome.score_90.away)
         for p in group_a],
    )
    winner = forecaster.forecast_now(_task(competition, questions["group_winner_a"], now, fixtures, history))
    assert winner.payload.final_picks == (table[0].team,)
    assert winner.payload.choices[0].probability == 1.0


def test_league_questions_mid_season(data_dir):
    competition, played = played_matches("en-1-2025-26", data_dir)
    now = played[200].ends + timedelta(hours=1)
    history = [KnownResult(p.event, p.outcome) for p in played if p.ends < now]
    # remaining fixtures: the played part after `now` stands in for the registered schedule
    fixtures = [p.event for p in played]
    questions = {q.id: q for q in league_questions(competition, played[0].event.kickoff_utc, now - timedelta(days=300),
                                                   Clock.REPLAY)}
    forecaster = build_baseline("elo", data_dir, simulations=200)
    for qid, total in (("champion", 1), ("top_four", 4), ("relegation", 3)):
        record = forecaster.forecast_now(_task(competition, questions[qid], now, fixtures, history))
        assert sum(c.probability for c in record.payload.choices) == pytest.approx(total, abs=1e-6), qid
        assert record.payload.choices[0].rank == 1 and record.payload.choices[0].is_final_pick


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from collector.forecasters.baselines.group_tables import rank_table  # noqa: E402
from collector.records import TieBreakers  # noqa: E402

FIFA_2026 = (TieBreakers.POINTS, TieBreakers.HEAD_TO_HEAD, TieBreakers.GOAL_DIFFERENCE, TieBreakers.GOALS_FOR,
             TieBreakers.FAIR_PLAY, TieBreakers.DRAWING_OF_LOTS)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3)), min_size=6, max_size=6),
       st.sampled_from([FIFA_2026, (TieBreakers.POINTS, TieBreakers.GOAL_DIFFERENCE, TieBreakers.GOALS_FOR)]),
       st.sampled_from([(3, 1), (2, 1)]))
def test_fast_group_ranking_agrees_with_collector_standings(goals, tie_breakers, points):
    """The simulation's tuple-based ranking is an independent implementation of compute_table's rule
    (three points a win, or two as before 1994)."""
    teams = ("bra", "hai", "mar", "sco")
    pairs = [(0, 1), (2, 3), (0, 2), (3, 1), (3, 0), (1, 2)]
    results = [(h, a, hg, ag) for (h, a), (hg, ag) in zip(pairs, goals, strict=True)]
    names = dict(enumerate(teams))
    fast = [names[i] for i in rank_table(4, results, tie_breakers, names, points)]
    slow = [row.team for row in compute_table(
        teams, [MatchResult(names[h], names[a], hg, ag) for h, a, hg, ag in results], tie_breakers, points)]
    assert fast == slow


@pytest.mark.slow
def test_question_forecast_ignores_later_results(world_cup, data_dir, tmp_path):
    """Leakage: rewriting every results.csv row that was not yet knowable leaves the simulation unchanged."""
    competition, played, questions = world_cup
    fixtures = [p.event for p in played if not p.event.knockout]
    now = played[0].event.kickoff_utc - timedelta(days=7)
    altered = tmp_path / "data" / "international-results"
    altered.mkdir(parents=True)
    lines = (data_dir / "international-results" / "results.csv").read_text(encoding="utf-8").splitlines()
    cutoff = (now - timedelta(hours=39)).date().isoformat()
    flipped = [",".join([*p[:3], p[4], p[3], *p[5:]]) if p[0] > cutoff else ",".join(p)
               for p in (line.split(",") for line in lines[1:])]
    assert sum(1 for a, b in zip(lines[1:], flipped, strict=True) if a != b) > 100
    (altered / "results.csv").write_text("\n".join([lines[0], *flipped]) + "\n", encoding="utf-8")
    task = _task(competition, questions["world_champion"], now, fixtures)
    original = build_baseline("ensemble", data_dir, simulations=200).forecast_now(task)
    again = build_baseline("ensemble", tmp_path / "data", simulations=200).forecast_now(task)
    assert record_bytes(original) == record_bytes(again)


@pytest.mark.slow
def test_uniform_answers_questions_before_any_result_with_equal_chances_and_declared_picks(world_cup):
    """No Monte Carlo noise picks the uniform baseline's champion: every candidate is k/N, the picks are
    the first k candidates in the question's order, and the record is the same at every run."""
    competition, played, questions = world_cup
    fixtures = [p.event for p in played if not p.event.knockout]
    now = played[0].event.kickoff_utc - timedelta(days=1)
    for question in questions.values():
        record = build_baseline("uniform").forecast_now(_task(competition, question, now, fixtures))
        n = len(question.candidates)
        assert {c.probability for c in record.payload.choices} == {round(question.k / n, 6)}
        assert record.payload.final_picks == tuple(question.candidates[: question.k])
        assert "tie-break" in record.payload.reasoning_summary
        again = build_baseline("uniform").forecast_now(_task(competition, question, now, fixtures))
        assert record_bytes(again) == record_bytes(record)
    history = [KnownResult(event=played[0].event, outcome=played[0].outcome)]  # then the seeded simulation
    later = build_baseline("uniform", simulations=200).forecast_now(
        _task(competition, questions["world_champion"], now + timedelta(days=2), fixtures, history))
    assert "Monte Carlo" in later.payload.reasoning_summary


def _league_task(competition, results):
    """A league task at the end of a season whose every result (home, away, goals, goals) is known."""
    from tests.factories import T0, make_event, make_outcome

    events, history = [], []
    for i, (home, away, hg, ag) in enumerate(results):
        event = make_event(home, away, event_id=f"m{i}-{home}-{away}", stage="league", kickoff=T0 + timedelta(days=i + 1))
        events.append(event)
        history.append(KnownResult(event, make_outcome(event, hg, ag)))
    now = T0 + timedelta(days=99)
    return ForecastTask(competition=competition, access=Access.CLOSED_BOOK, strategy=Strategy.PROBABILISTIC_FORECAST,
                        horizon=Horizon.T_MINUS_24H, sample=0, scheduled_at=now, now=now, deadline=now + timedelta(days=1),
                        clock=Clock.REPLAY, fixtures=events, history=history, full_tournament=True)


def _league(**changes):
    from collector.records import CompetitionFormat, Stage
    from tests.factories import make_competition

    return make_competition(teams=("aaa", "bbb", "ccc", "ddd"), format=CompetitionFormat.LEAGUE,
                            stages=(Stage(id="league", name="League"),), **changes)


# bbb and aaa end level on 9 points: bbb won their meeting 1-0 (the other 0-0), aaa has the better goal difference
LEVEL_ON_POINTS = [("bbb", "aaa", 1, 0), ("aaa", "ccc", 5, 0), ("aaa", "ddd", 1, 0), ("bbb", "ccc", 1, 0),
                   ("bbb", "ddd", 0, 0), ("ccc", "ddd", 0, 0), ("aaa", "bbb", 0, 0), ("ccc", "aaa", 0, 0),
                   ("ddd", "aaa", 0, 0), ("ccc", "bbb", 0, 0), ("ddd", "bbb", 1, 0), ("ddd", "ccc", 0, 0)]


@pytest.mark.parametrize("criteria, champion", [
    ((TieBreakers.POINTS, TieBreakers.HEAD_TO_HEAD, TieBreakers.GOAL_DIFFERENCE, TieBreakers.GOALS_FOR), "bbb"),
    ((TieBreakers.POINTS, TieBreakers.GOAL_DIFFERENCE, TieBreakers.GOALS_FOR, TieBreakers.HEAD_TO_HEAD), "aaa"),
])
def test_a_league_simulation_ranks_its_tables_by_the_competitions_tie_breakers(criteria, champion):
    """La Liga and Serie A put head to head before goal difference: the simulated tables (every result
    known here) give the champion the questions resolve to (table_for), not the goal-difference one."""
    import numpy as np

    from collector.forecasters.baselines.simulate import Sampler, league_answers

    competition = _league(tie_breakers=criteria, relegation_places=1)
    answers = league_answers(_league_task(competition, LEVEL_ON_POINTS), Sampler(None, np.random.default_rng(0)), 5)
    table = table_for(competition, [t.id for t in competition.teams], [MatchResult(*r) for r in LEVEL_ON_POINTS])
    assert table[0].team == champion
    assert answers["champion"] == [(champion,)] * 5
    assert answers["relegation"] == [(table[-1].team,)] * 5


def test_the_league_table_forecast_counts_the_competitions_points():
    from collector.forecasters.baselines.tournament import league_table

    results = [("aaa", "bbb", 1, 0), ("aaa", "ccc", 0, 1), ("aaa", "ddd", 0, 1), ("bbb", "ccc", 0, 0),
               ("bbb", "ddd", 0, 0), ("ccc", "ddd", 0, 0)]
    competition = _league(points_for_win=2)
    forecast = league_table(_league_task(competition, results), None, 1, 10)
    table = table_for(competition, [t.id for t in competition.teams], [MatchResult(*r) for r in results])
    assert {e.team: e.points for e in forecast.table} == {r.team: r.points for r in table} == \
        {"ccc": 4, "ddd": 4, "aaa": 2, "bbb": 2}  # two a win: ccc W1 D2, aaa W1 L2, bbb D2 L1


def test_the_backtest_knows_a_result_only_when_it_was_knowable(data_dir):
    """The offline backtest's tasks hold a result only once the match had ended by the fixtures' rule
    (kickoff + 2 h, 2 h 45 after extra time, 3 h 15 after a shoot-out): a quarter-final that went to
    penalties at 18:00 is not known to a forecast asked at 21:00."""
    from collector.fixtures.knowable import ALLOWANCE
    from collector.forecasters.baselines.backtest import tasks

    competition, played = played_matches("worldcup-2026", data_dir)
    checked = 0
    for task in tasks(competition, played):
        for known in task.history:
            o = known.outcome
            length = "penalties" if o.score_penalties else "extra_time" if o.score_extra_time else "regulation"
            assert known.event.kickoff_utc + ALLOWANCE[length] < task.now, (task.event.id, task.horizon, known.event.id)
            checked += 1
    assert checked > 10_000
