"""The fine-grained baseline on the WC 2026 replay: T2-T4 where truth exists, the composite with its N."""

from __future__ import annotations

import math

import numpy as np
import pytest

from builder.score import fine_grained_layers as fl
from builder.score.paper_tables import wca_table
from builder.score.scoring import score_archive
from collector.archive.reader import load_archive
from collector.cli import main


@pytest.fixture(scope="module")
def replayed(data_dir, tmp_path_factory):
    out = tmp_path_factory.mktemp("fg-replay") / "replay"
    code = main(["replay", "worldcup-2026", "--out", str(out), "--data-dir", str(data_dir), "--until",
                 "2026-06-16T00:00Z", "--baselines", "squad_form,elo"])
    assert code == 0
    archive = load_archive(out / "archive")
    return archive, score_archive(archive, inference_tests=False)


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
    elo = [r for r in scores.forecasts if r.forecaster == "elo"]
    assert elo and all(r.fine_tasks == {} and math.isnan(r.layers["T2"]) for r in elo)


def test_the_composite_column_has_its_n_and_is_eq2_of_the_layer_means_displayed_once(replayed):
    _, scores = replayed
    [row] = [b for b in scores.leaderboard if b.forecaster == "squad_form" and b.horizon == "t_minus_24h"]
    c = row.composite
    assert c["composite_n"] == row.n and c["T4_n"] == 0 and c["T4"] is None and 0 < c["T2_n"] <= row.n
    cell = [r for r in scores.forecasts if r.forecaster == "squad_form" and r.horizon == "t_minus_24h"]
    t2 = np.array([r.layers["T2"] for r in cell])
    assert c["T2_raw"] == pytest.approx(np.nanmean(t2)) and c["T2_n"] == int((~np.isnan(t2)).sum())
    by_hand = (0.35 * c["T1_raw"] + 0.25 * c["T2_raw"] + 0.15 * c["T3_raw"]) / 0.75  # T4, T5 unavailable
    assert c["composite_raw"] == pytest.approx(by_hand)
    assert c["composite"] == pytest.approx(fl.composite_display(by_hand))
    assert row.flat()["composite_n"] == row.n  # the --json / export row carries it
    [elo] = [b for b in scores.leaderboard if b.forecaster == "elo" and b.horizon == "t_minus_24h"]
    assert elo.composite["composite"] is None and elo.composite["T1_n"] == elo.n  # T1 only: no composite


def test_the_worldcuparena_table_uses_the_layer_composite_for_the_fine_grained_cell(replayed):
    _, scores = replayed
    table = wca_table([r for r in scores.forecasts if r.clock == "replay"])
    [row] = [r for r in table.rows if r[0] == "squad_form"]
    [board] = [b for b in scores.leaderboard if b.forecaster == "squad_form" and b.horizon == "t_minus_24h"]
    assert row[3] == f"{board.composite['composite']:.2f}"
