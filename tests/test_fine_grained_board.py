"""The fine-grained baseline on the WC 2026 replay: T2-T4 where truth exists, the composite with its N."""

from __future__ import annotations

import math

import numpy as np
import pytest

from builder.score import fine_grained_layers as fl
from builder.score.fine_grained_board import event_truth
from builder.score.paper_tables import wca_table
from builder.score.t5_layer import t5_layer

pytestmark = pytest.mark.slow  # each test here takes seconds (replays, builds); the full suite, pytest -m "", runs them


@pytest.fixture(scope="module")
def replayed(worldcup_scored):
    return worldcup_scored


def test_the_baseline_has_t2_and_t3_scores_where_openfootball_has_truth_and_t4_has_no_data(replayed):
    archive, scores = replayed
    rows = [r for r in scores.forecasts if r.forecaster == "squad_form"]
    assert rows and all(r.strategy == "fine_grained" for r in rows)
    reported = {e for (_, e) in archive.match_reports}
    assert {r.event_id for r in rows} <= reported  # every scored match has its openfootball report
    tasks = {k: np.array([r.fine_tasks[k] for r in rows]) for k in rows[0].fine_tasks}
    for known in ("goalscorers", "goal_minute", "own_goals", "penalty_events"):
        assert (~np.isnan(tasks[known])).any() and np.nanmin(tasks[known]) >= 0 and np.nanmax(tasks[known]) <= 100
    for unknown in ("starting_xi", "cards", "stat_shots", "player_of_the_match"):  # openfootball has no data
        assert np.isnan(tasks[unknown]).all()
    assert all(math.isnan(r.layers["T4"]) for r in rows) and not all(math.isnan(r.layers["T2"]) for r in rows)
    # elo forecast no fine-grained part: 0 on the layers with truth (never a free pass), NaN without truth
    elo = [r for r in scores.forecasts if r.forecaster == "elo"]
    truth = {e: event_truth(archive, e) for e in archive.match_reports}
    assert elo and all(r.fine_tasks == {} and math.isnan(r.layers["T4"]) for r in elo)
    with_goals = [r for r in elo if "goalscorers" in truth[(r.competition_id, r.event_id)]]
    assert with_goals and all(r.layers["T2"] == 0.0 and r.layers["T3"] == 0.0 for r in with_goals)


def test_truth_tasks_are_exactly_the_tasks_a_forecast_is_scored_on(replayed):
    """``truth_tasks`` (what a forecast without a fine-grained part scores 0 on) is the set of tasks
    ``task_scores`` scores for the fine-grained forecast of every reported match."""
    archive, scores = replayed
    rows = [r for r in scores.forecasts if r.forecaster == "squad_form"]
    for r in rows:
        scored = {task for task, value in r.fine_tasks.items() if not math.isnan(value)}
        assert scored == event_truth(archive, (r.competition_id, r.event_id)), r.event_id


def test_the_composite_column_has_its_n_and_is_eq2_of_the_layer_means_displayed_once(replayed):
    archive, scores = replayed
    [row] = [b for b in scores.leaderboard if b.forecaster == "squad_form" and b.horizon == "t_minus_24h"]
    c = row.composite
    assert c["composite_n"] == row.n and c["t4_n"] == 0 and c["t4"] is None and 0 < c["t2_n"] <= row.n
    cell = [r for r in scores.forecasts if r.forecaster == "squad_form" and r.horizon == "t_minus_24h"]
    t2 = np.array([r.layers["T2"] for r in cell])
    assert c["t2"] == pytest.approx(np.nanmean(t2)) and c["t2_n"] == int((~np.isnan(t2)).sum())
    # T5: the tournament is complete, squad_form's pre-tournament forecast at the final truth stage
    t5 = t5_layer(archive)
    assert c["t5_n"] == 1 and c["t5"] == pytest.approx(t5.scores[("squad_form", "closed_book", "replay",
                                                                  "worldcup-2026")])
    by_hand = (0.35 * c["t1"] + 0.25 * c["t2"] + 0.15 * c["t3"] + 0.10 * c["t5"]) / 0.85  # T4 has no truth
    assert c["composite_raw"] == pytest.approx(by_hand)
    assert c["composite"] == pytest.approx(fl.composite_display(by_hand))
    assert row.flat()["composite_n"] == row.n  # the --json / export row carries it


def test_a_t1_only_forecaster_ranks_below_one_with_t1_to_t3_of_the_same_t1(replayed):
    """elo forecasts result and score only; squad_form forecasts the same result and score (its T1
    is elo's) and players and events too. The layers elo did not forecast count 0 where the
    reports have truth, so its composite is below squad_form's; it still has one."""
    _, scores = replayed
    cells = {b.forecaster: b.composite for b in scores.leaderboard if b.horizon == "t_minus_24h"}
    elo, fine = cells["elo"], cells["squad_form"]
    assert elo["t1"] == pytest.approx(fine["t1"]) and elo["t1_n"] == fine["t1_n"]
    assert elo["t2"] == 0.0 and elo["t3"] == 0.0 and fine["t2"] > 0 and fine["t3"] > 0
    assert elo["t2_n"] == fine["t2_n"] and elo["t3_n"] == fine["t3_n"]  # the same matches with truth
    assert elo["composite"] is not None and elo["composite"] < fine["composite"]


def test_the_worldcuparena_table_uses_the_layer_composite_for_the_fine_grained_cell(replayed):
    _, scores = replayed
    table = wca_table([r for r in scores.forecasts if r.clock == "replay"], t5=t5_layer(replayed[0]))
    [row] = [r for r in table.rows if r[0] == "squad_form"]
    [board] = [b for b in scores.leaderboard if b.forecaster == "squad_form" and b.horizon == "t_minus_24h"]
    assert row[3] == f"{board.composite['composite']:.2f}"
