"""score_archive end to end: joining records, coverage, views, replay labels, questions, the CLI."""

from __future__ import annotations

from datetime import timedelta

import orjson
import pytest

from builder.cli import main as builder_main
from builder.score.scoring import score_archive
from collector.archive.reader import load_archive
from collector.records import (
    Access,
    Clock,
    ForecastStatus,
    Horizon,
    OutcomeStatus,
    Strategy,
)
from tests.factories import (
    T0,
    archive_from_records,
    make_competition,
    make_event,
    make_forecast,
    make_outcome,
    make_payload,
    make_question,
    make_question_forecast,
    make_resolution,
    synthetic_archive,
    write_records,
)

UNIFORM = (1 / 3, 1 / 3, 1 / 3)


def small_records():
    """Four group matches, a uniform baseline everywhere, an LLM with one failure, a market."""
    teams = ["mex", "rsa", "esp", "usa", "cze", "kor", "bra", "arg"]
    events = [make_event(teams[2 * i], teams[2 * i + 1], kickoff=T0 + timedelta(days=10 + i)) for i in range(4)]
    results = [(2, 0), (1, 1), (0, 3), (1, 0)]
    records = [make_competition(teams=teams)]
    for event, (h, a) in zip(events, results, strict=True):
        records += [event, make_outcome(event, h, a)]
        records.append(make_forecast(event, "uniform", make_payload(UNIFORM, (1, 1))))
        records.append(make_forecast(event, "market", make_payload((0.5, 0.3, 0.2), (1, 0)), horizon=Horizon.CLOSING,
                                     inputs={"buy_odds": [1.9, 3.2, 4.5]}))  # quoted: 6.1% margin
    records.append(make_forecast(events[0], "openai.gpt-5.5", make_payload((0.6, 0.3, 0.1), (2, 0))))
    records.append(make_forecast(events[1], "openai.gpt-5.5", make_payload((0.6, 0.3, 0.1), (2, 1))))
    records.append(make_forecast(events[2], "openai.gpt-5.5", None, status=ForecastStatus.API_ERROR))
    records.append(make_forecast(events[3], "openai.gpt-5.5", None, status=ForecastStatus.MISSED))
    return records


def find(rows, forecaster, **conditions):
    matches = [r for r in rows if r.forecaster == forecaster and all(getattr(r, k) == v for k, v in conditions.items())]
    assert len(matches) == 1, matches
    return matches[0]


def test_uniform_forecaster_scores_two_thirds_and_llm_is_scored_on_valid_records_only():
    scores = score_archive(archive_from_records(small_records()))
    uniform = find(scores.leaderboard, "uniform")
    assert uniform.n == 4 and uniform.coverage == 1.0 and uniform.ranked
    assert uniform.measures["brier"] == pytest.approx(2 / 3)
    assert uniform.measures["accuracy"] == pytest.approx(1 / 3)
    llm = find(scores.leaderboard, "openai.gpt-5.5")
    assert (llm.n, llm.scheduled, llm.eligible_events, llm.coverage) == (2, 4, 4, 0.5)
    # home win 2-0 forecast 0.6/0.3/0.1 with 2-0; draw 1-1 forecast 0.6/0.3/0.1 with 2-1
    assert llm.measures["brier"] == pytest.approx((0.16 + 0.09 + 0.01 + 0.36 + 0.49 + 0.01) / 2)
    assert llm.measures["exact"] == 0.5 and llm.measures["points"] == pytest.approx(2.5)
    assert llm.ranked  # 0.5 >= half of the best coverage (1.0)


def test_coverage_rule_unranks_sparse_forecasters_and_matched_view_uses_common_events():
    records = small_records()
    records.append(make_forecast(records[1], "tiny.model", make_payload((0.2, 0.3, 0.5), (0, 1))))
    scores = score_archive(archive_from_records(records))
    assert not find(scores.leaderboard, "tiny.model").ranked  # coverage 0.25 < 0.5
    matched = [r for r in scores.matched if r.horizon == "t_minus_24h"]
    assert {r.forecaster for r in matched} == {"uniform", "openai.gpt-5.5"}
    assert all(r.n == 2 and r.view == "matched" for r in matched)
    assert all(r.market["n"] == 2 for r in matched)  # the market comparison uses the matched events too
    assert find(matched, "uniform").measures["brier"] == pytest.approx(2 / 3)


def test_unscored_outcomes_are_not_scored():
    records = small_records()
    event = records[1]
    records = [r for r in records if not (getattr(r, "kind", "") == "outcome" and r.event_id == event.id)]
    records.append(make_outcome(event, 0, 0, status=OutcomeStatus.POSTPONED))
    scores = score_archive(archive_from_records(records))
    assert find(scores.leaderboard, "uniform").n == 3
    assert all(f.event_id != event.id for f in scores.forecasts)


def test_market_comparison_appears_on_rows_with_market_prices():
    scores = score_archive(archive_from_records(small_records()))
    row = find(scores.leaderboard, "uniform").market
    assert row["n"] == 4
    # uniform (1/3 each) vs the quoted odds 1.9, 3.2, 4.5 (prices 0.526, 0.3125, 0.222, margin
    # included): home is dearer than 1/3 and a bookmaker sells no "not home", so the stake is
    # kept (1); draw and away are backed at 3.2 and 4.5. Results: home, draw, away, home.
    per_event = [(1 + 0 + 0) / 3, (1 + 3.2 + 0) / 3, (1 + 0 + 4.5) / 3, (1 + 0 + 0) / 3]
    assert row["return"] == pytest.approx(sum(per_event) / 4) == pytest.approx(0.975)
    assert row["n_return"] == 4
    market_brier = [0.38, 0.25 + 0.49 + 0.04, 0.25 + 0.09 + 0.64, 0.38]
    assert row["brier_difference"] == pytest.approx(2 / 3 - sum(market_brier) / 4)
    test = next(t for t in scores.tests if t.a == "uniform" and t.family.startswith("market/"))
    assert test.n == 4 and test.estimate == pytest.approx(row["brier_difference"])


def test_replay_records_are_scored_but_stay_labelled():
    records = small_records()
    event = records[1]
    records.append(make_forecast(event, "elo", make_payload((0.7, 0.2, 0.1), (1, 0)), clock=Clock.REPLAY))
    scores = score_archive(archive_from_records(records))
    elo = find(scores.leaderboard, "elo")
    assert elo.clock == "replay" and elo.n == 1
    assert all(r.clock == "replay" for r in scores.forecasts if r.forecaster == "elo")
    assert all(r.clock == "live" for r in scores.leaderboard if r.forecaster != "elo")


def test_knockout_advancement_is_scored():
    event = make_event("esp", "usa", event_id="m073", stage="round-of-32", knockout=True)
    records = [make_competition(), event, make_outcome(event, 1, 1, advancing_team="usa"),
               make_forecast(event, "elo", make_payload((0.5, 0.3, 0.2), (1, 0), advances=0.7))]
    scores = score_archive(archive_from_records(records))
    row = find(scores.leaderboard, "elo")
    assert row.n_advancement == 1
    assert row.measures["advancement_brier"] == pytest.approx(2 * 0.49)
    assert row.measures["advancement_accuracy"] == 0.0


def test_an_advancing_team_outside_the_match_is_reported_not_scored_as_away():
    event = make_event("esp", "usa", event_id="m073", stage="round-of-32", knockout=True)
    records = [make_competition(), event, make_outcome(event, 1, 1, advancing_team="mex"),
               make_forecast(event, "elo", make_payload((0.5, 0.3, 0.2), (1, 0), advances=0.7))]
    scores = score_archive(archive_from_records(records))
    assert find(scores.leaderboard, "elo").n_advancement == 0
    assert any("'mex' advanced" in p and "m073" in p for p in scores.problems)


def test_question_forecasts_single_choice_and_fixed_k():
    champion = make_question("world_champion", ("mex", "rsa", "esp", "usa"))
    semis = make_question("semifinalists", ("mex", "rsa", "esp", "usa", "cze"), k=2)
    records = [
        make_competition(teams=["mex", "rsa", "esp", "usa", "cze"]), champion, semis,
        make_resolution(champion, ["esp"]), make_resolution(semis, ["esp", "usa"]),
        make_question_forecast(champion, {"esp": 0.5, "mex": 0.3, "usa": 0.2}),
        make_question_forecast(semis, {"esp": 0.9, "mex": 0.6, "usa": 0.4, "rsa": 0.1}),
    ]
    scores = score_archive(archive_from_records(records))
    single = next(q for q in scores.questions if q.question_id == "world_champion").measures
    assert single["brier"] == pytest.approx(0.25 + 0.09 + 0.04)  # rsa unlisted counts as 0
    assert single["accuracy"] == 1.0 and single["probability_realised"] == 0.5
    assert single["probability_sum_audit"] == pytest.approx(0.0)
    fixed = next(q for q in scores.questions if q.question_id == "semifinalists").measures
    assert fixed["exact_set"] == 0.0 and fixed["correct"] == 1.0  # picks esp, mex
    assert fixed["marginal_brier"] == pytest.approx((0.01 + 0.36 + 0.36 + 0.01 + 0) / 5)
    assert fixed["probability_sum_audit"] == pytest.approx(2.0 - 2)
    summary = {q.prediction_type: q for q in scores.question_summary}
    assert summary["single_choice"].n == 1 and summary["single_choice"].measures["brier"] == pytest.approx(0.38)
    assert summary["multi_choice_fixed_k"].measures["correct"] == 1.0


def test_synthetic_panel_has_every_part_of_the_analysis():
    scores = score_archive(synthetic_archive(n_events=24, n_models=3, knockout_from=16))
    assert {r.view for r in scores.leaderboard} == {"all"} and scores.matched and scores.ensemble
    assert {t.family.split("/")[0] for t in scores.tests} == {"model_pairs", "market", "access", "strategy", "horizon",
                                                                  "access_by_forecaster", "llm_vs_baseline",
                                                                  "ensemble", "ensemble_average", "stage"}
    assert scores.robustness and scores.robustness[0].primary is not None
    assert all(t.p_holm is None or t.p_holm >= t.p_value for t in scores.tests)
    assert scores.calibration and scores.confidence_groups and scores.diversity
    ops = {o.forecaster: o for o in scores.operations}
    assert ops["llm.model-1"].scheduled == 24 * 12 and ops["llm.model-1"].search_observed_rate is not None
    assert sum(ops["llm.model-1"].rates.values()) == pytest.approx(1.0)
    llm_rows = [r for r in scores.leaderboard if r.forecaster_type == "llm"]
    assert all(r.intervals["brier"][0] <= r.measures["brier"] <= r.intervals["brier"][1] for r in llm_rows)
    orjson.dumps(scores.to_dict())  # JSON-serialisable, no NaN


def test_scoring_is_reproducible():
    a = score_archive(synthetic_archive(n_events=16, n_models=2, knockout_from=12)).to_dict()
    b = score_archive(synthetic_archive(n_events=16, n_models=2, knockout_from=12)).to_dict()
    assert a == b


def test_score_command_json_matches_score_archive_and_leaves_the_archive_alone(archive_dir, capsys):
    write_records(archive_dir, small_records())
    before = sorted(p.relative_to(archive_dir) for p in archive_dir.rglob("*"))
    assert builder_main(["score", "--archive", str(archive_dir), "--json"]) == 0
    printed = orjson.loads(capsys.readouterr().out)
    expected = score_archive(load_archive(archive_dir)).leaderboard
    assert [r["forecaster"] for r in printed] == [r.forecaster for r in expected]
    uniform = next(r for r in printed if r["forecaster"] == "uniform")
    assert uniform["brier"] == pytest.approx(2 / 3) and uniform["n"] == 4
    assert {"brier_low", "brier_high", "log_loss", "rps", "accuracy", "exact", "points", "clock"} <= uniform.keys()
    assert len({frozenset(r) for r in printed}) == 1  # every row has the same keys (market ones null if absent)
    assert sorted(p.relative_to(archive_dir) for p in archive_dir.rglob("*")) == before


def test_score_command_table_and_filters(archive_dir, capsys):
    write_records(archive_dir, small_records())
    assert builder_main(["score", "--archive", str(archive_dir), "--horizon", "closing"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].startswith("forecaster") and "market" in out and "uniform" not in out


def test_score_command_reports_bad_files_and_scores_the_rest(archive_dir, capsys):
    write_records(archive_dir, small_records())
    bad = archive_dir / "worldcup-2026" / "events" / "mex-v-rsa" / "forecasts" / "uniform"
    (bad / "open_book.direct_score.t_minus_2h.s0.json").write_text("{not json")
    assert builder_main(["score", "--archive", str(archive_dir), "--json", "--strict"]) == 1
    captured = capsys.readouterr()
    assert "open_book.direct_score.t_minus_2h.s0.json" in captured.err
    assert any(r["forecaster"] == "uniform" for r in orjson.loads(captured.out))


def test_open_book_forecasts_form_their_own_cell():
    records = small_records()
    records.append(make_forecast(records[1], "openai.gpt-5.5", make_payload((0.6, 0.3, 0.1), (2, 0)),
                                 access=Access.OPEN_BOOK, strategy=Strategy.DIRECT_SCORE))
    scores = score_archive(archive_from_records(records))
    cell = find(scores.leaderboard, "openai.gpt-5.5", access="open_book")
    assert cell.n == 1 and cell.strategy == "direct_score"


def test_score_command_refuses_a_missing_archive_folder(tmp_path, capsys):
    assert builder_main(["score", "--archive", str(tmp_path / "nowhere"), "--json"]) == 2
    assert "nowhere" in capsys.readouterr().err


def test_score_command_all_prints_the_whole_analysis(archive_dir, capsys):
    write_records(archive_dir, small_records())
    assert builder_main(["score", "--archive", str(archive_dir), "--json", "--all"]) == 0
    document = orjson.loads(capsys.readouterr().out)
    assert {"forecasts", "leaderboard", "matched", "tests", "calibration", "operations", "notes"} <= document.keys()
    assert len(document["forecasts"]) == 4 + 4 + 2  # uniform, market, two valid LLM forecasts
    assert any(t["family"].startswith("market/") for t in document["tests"])


def test_market_price_at_the_same_horizon_is_preferred_to_closing():
    records = small_records()
    event = records[1]
    records.append(make_forecast(event, "market", make_payload(UNIFORM, (1, 1)), horizon=Horizon.T_MINUS_24H,
                                 inputs={"buy_odds": [2.85, 2.85, 2.85]}))
    scores = score_archive(archive_from_records(records))
    uniform = find(scores.leaderboard, "uniform").market
    # on the first event the uniform forecast now meets a t-24h price of 1/2.85 > 1/3 on every
    # outcome: no edge over the quoted price, every market abstains (1); against the closing
    # price it backed draw and away and lost both (1/3)
    assert uniform["n"] == 4
    assert uniform["return"] == pytest.approx((1.0 + 4.2 / 3 + 5.5 / 3 + 1 / 3) / 4)


def test_score_command_names_an_unknown_competition(archive_dir, capsys):
    write_records(archive_dir, small_records())
    assert builder_main(["score", "--archive", str(archive_dir), "--competition", "en-1-2025-26"]) == 2
    assert "en-1-2025-26" in capsys.readouterr().err
    assert builder_main(["score", "--archive", str(archive_dir), "--competition", "worldcup-2026", "--json"]) == 0
    assert len(orjson.loads(capsys.readouterr().out)) == 3
