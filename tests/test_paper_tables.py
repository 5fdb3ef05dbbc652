"""``python -m builder paper-tables``: the three papers' tables by hand on a tiny archive, and the command."""

from __future__ import annotations

import json

import numpy as np
import pytest

from builder.cli import main
from builder.score.metrics import (
    display_calibration,
    partial_credit_scoreline,
    scoreline_display,
)
from builder.score.paper_tables import paper_tables
from builder.score.scoring import score_archive
from builder.score.t1 import T1_WEIGHTS, t1_score
from collector.records import Event, Horizon, Score
from tests.factories import (
    archive_from_records,
    make_competition,
    make_event,
    make_forecast,
    make_outcome,
    make_payload,
    synthetic_records,
    write_records,
)


def tiny(priced: bool = False):
    """Two matches: a group match 1-0 and a final 1-1 after 90, 2-1 after extra time; ``priced``: the
    market quotes decimal odds at closing and also forecasts at T-24h, quoting other odds."""
    group = make_event("mex", "rsa")
    final = make_event("arg", "fra", stage="final", knockout=True)
    records = [make_competition(), group, final, make_outcome(group, 1, 0),
               make_outcome(final, 1, 1, score_extra_time=Score(home=2, away=1), score_penalties=None,
                            advancing_team="arg")]
    for event, a, b in ((group, (0.6, 0.3, 0.1), (0.4, 0.4, 0.2)), (final, (0.5, 0.3, 0.2), (0.3, 0.3, 0.4))):
        adv = 0.7 if event.knockout else None
        records.append(make_forecast(event, "alpha", make_payload(a, (2, 1), advances=adv)))
        records.append(make_forecast(event, "beta", make_payload(b, (1, 1), advances=0.4 if adv else None)))
        records.append(make_forecast(event, "market", make_payload((0.5, 0.3, 0.2), (1, 0),
                                                                   advances=0.5 if adv else None),
                                     horizon=Horizon.CLOSING, inputs={"buy_odds": [1.9, 3.4, 4.5]} if priced else {}))
        if priced:
            records.append(make_forecast(event, "market", make_payload((0.48, 0.30, 0.22), (1, 0)),
                                         inputs={"buy_odds": [2.0, 3.2, 4.0]}))
    return archive_from_records(records)


def table(tables, key):
    return next(t for t in tables if t.key == key)


def test_lsa_table_by_hand():
    tables = paper_tables(score_archive(tiny(), inference_tests=False).forecasts)
    lsa = table(tables, "lsa_table_2")
    assert lsa.columns[0] == "Model" and lsa.columns[-1] == "n"
    rows = {r[0]: r for r in lsa.rows}
    assert set(rows) == {"alpha", "beta"}  # the market forecasts at closing, not T-24h
    # alpha: Brier (0.16 + 0.09 + 0.01) = 0.26 and (0.25 + 0.49 + 0.04) = 0.78 -> mean 0.52
    assert rows["alpha"][1].startswith("0.520 ")
    # modal accuracy: home modal, home won; home modal, 90' draw -> 50.0 %
    assert rows["alpha"][3].startswith("50.0 ")
    # Scoring System: 2-1 v 1-0 -> 2 points (goal difference); 2-1 v 1-1 (90') -> 0 -> 1.00
    assert rows["alpha"][5].startswith("1.00 ") and rows["alpha"][6] == "2"
    assert [r[0] for r in lsa.rows] == ["alpha", "beta"]  # sorted by Brier: beta's is 0.36 + 0.60 / 2 = 0.58


def test_wca_table_uses_the_published_score_and_the_t1_composite():
    scores = score_archive(tiny(), inference_tests=False)
    wca = table(paper_tables(scores.forecasts), "wca_table_2")
    assert wca.columns == ("Model", "Setting", "N", "Composite", "Result (published score), %",
                           "Exact (published score), %", "Scoreline (WCA C₇₀)")
    assert wca.measures == ("", "", "", "composite", "result_wca", "exact_wca", "scoreline_wca_c70")
    rows = {r[0]: r for r in wca.rows}
    alpha = rows["alpha"]
    assert alpha[1] == "closed book (Prematch)" and alpha[2] == "2"  # no WorldCupArena setting (S1 is the evidence package)
    assert alpha[4] == "100.0"  # home modal twice; home won the group match and the final after extra time
    assert alpha[5] == "50.0"  # 2-1 equals the final's published 2-1, not the group match's 1-0
    sl = (partial_credit_scoreline(np.array([2]), np.array([1]), np.array([1]), np.array([0]))[0] + 100.0) / 2
    assert alpha[6] == f"{float(scoreline_display(sl)):.2f}"
    final = next(r for r in scores.forecasts if r.forecaster == "alpha" and r.knockout)
    # T1 of the final by hand: 0.55 * 100 (1 - 0.78/2) + 0.35 * 100 + 0.05 * 100 + 0.05 * 100 (1 - 0.09)
    by_hand = (0.55 * 61.0 + 0.35 * 100.0 + 0.05 * 100.0 + 0.05 * 91.0) / sum(T1_WEIGHTS.values())
    assert t1_score(final) == pytest.approx(by_hand)
    group = next(r for r in scores.forecasts if r.forecaster == "alpha" and not r.knockout)
    # no qualification task in a group match: weights renormalised over the three available tasks
    expected = (0.55 * 87.0 + 0.35 * group.measures["scoreline_wca"] + 0.05 * 100.0) / 0.95  # 2-1 v 1-0: e_d = 0
    assert t1_score(group) == pytest.approx(expected)
    composite = float(display_calibration(np.mean([by_hand, expected])))
    assert alpha[3] == f"{composite:.2f}"  # no match report, no tournament truth: T1 is the only layer with truth


def test_prophet_arena_table_by_hand():
    pa = table(paper_tables(score_archive(tiny(priced=True), inference_tests=False).forecasts), "pa_table_2")
    assert pa.columns == ("LLM", "Brier (per market) (95% CI) ↓", "ECE ↓", "Return (Prophet Arena rule) (95% CI) ↑")
    rows = {r[0]: r for r in pa.rows}
    assert set(rows) == {"alpha (closed_book, probabilistic_forecast)", "beta (closed_book, probabilistic_forecast)",
                         "market (T-24h)", "market (closing)"}  # one market row per horizon, named by it
    alpha = rows["alpha (closed_book, probabilistic_forecast)"]
    assert alpha[1].startswith(f"{0.52 / 3:.3f}")
    # alpha v the T-24h quotes q = 1 / (2.0, 3.2, 4.0) = (0.5, 0.3125, 0.25), Prophet Arena's rule (always bet).
    # Group 1-0: home 0.6 > 0.5 buys Yes -> 2; draw 0.3 < q buys No at 0.6875 -> 1/0.6875; away 0.1 buys No at
    # 0.75 -> 1/0.75. Final (draw after 90'): home 0.5 == q buys No (App. B.6) at 0.5 -> 2; draw No -> 0; away No
    # -> 1/0.75
    group, final = np.mean([2, 1 / 0.6875, 1 / 0.75]), np.mean([2, 0, 1 / 0.75])
    assert alpha[3].startswith(f"{(group + final) / 2:.3f}")
    # the market at T-24h, its own probabilities (0.48, 0.30, 0.22) v its own quotes: No on all three
    own = [np.mean([0, 1 / 0.6875, 1 / 0.75]), np.mean([2, 0, 1 / 0.75])]
    assert rows["market (T-24h)"][3].startswith(f"{np.mean(own):.3f}")
    # at closing q = 1 / (1.9, 3.4, 4.5) = (0.526, 0.294, 0.222); p = (0.5, 0.3, 0.2): No on home and away,
    # Yes on the draw. Group (home won): 0, 0, 1/(1 - q_away); final (draw): 1/(1 - q_home), 3.4, 1/(1 - q_away)
    q = 1 / np.array([1.9, 3.4, 4.5])
    closing = [np.mean([0, 0, 1 / (1 - q[2])]), np.mean([1 / (1 - q[0]), 1 / q[1], 1 / (1 - q[2])])]
    assert rows["market (closing)"][3].startswith(f"{np.mean(closing):.3f}")
    assert "priced at the market's T-24h quotes" in pa.caption and "closing = the market's last snapshot" in pa.caption


def quoting(records):
    """``records`` with every closing market record quoting decimal odds (a 5% margin on its
    probabilities) and a T-24h market record of the same probabilities and odds beside it."""
    events = {r.id: r for r in records if isinstance(r, Event)}
    out = []
    for r in records:
        if getattr(r, "forecaster", None) != "market" or r.payload is None:
            out.append(r)
            continue
        p = np.array([r.payload.home_win_90, r.payload.draw_90, r.payload.away_win_90])
        odds = [round(float(o), 4) for o in 1 / (1.05 * p)]
        out.append(r.model_copy(update={"inputs": {"buy_odds": odds}}))
        out.append(make_forecast(events[r.target_id], "market", r.payload, clock=r.clock, inputs={"buy_odds": odds}))
    return out


@pytest.mark.slow
def test_command_prints_every_table_without_an_empty_column(tmp_path, capsys):
    write_records(tmp_path / "archive", quoting(synthetic_records(n_events=20, n_models=2, knockout_from=16)))
    assert main(["paper-tables", "--archive", str(tmp_path / "archive")]) == 0
    out = capsys.readouterr().out
    for title in ("LLM-SoccerArena Table 2", "WorldCupArena Table 2", "Prophet Arena Table 2"):
        assert title in out
    assert main(["paper-tables", "--archive", str(tmp_path / "archive"), "--json"]) == 0
    tables = json.loads(capsys.readouterr().out)
    assert len(tables) == 3
    for t in tables:
        assert t["rows"]
        for j, column in enumerate(t["columns"]):
            assert any(row[j] not in ("", "-") for row in t["rows"]), (t["key"], column)


@pytest.mark.slow
def test_command_refuses_an_archive_without_scores_and_an_unknown_reference(tmp_path, capsys):
    write_records(tmp_path / "archive", [make_competition()])
    assert main(["paper-tables", "--archive", str(tmp_path / "archive")]) == 2
    assert "no scored match forecasts" in capsys.readouterr().err
    write_records(tmp_path / "b", synthetic_records(n_events=4, n_models=1, knockout_from=4))
    assert main(["paper-tables", "--archive", str(tmp_path / "b"), "--reference", "oracle"]) == 2


@pytest.mark.slow
def test_score_command_offers_the_earlier_choices(tmp_path, capsys):
    write_records(tmp_path / "archive", synthetic_records(n_events=12, n_models=2, knockout_from=10))
    runs = {}
    for choice in ("lsa", "prematch_v1"):
        assert main(["score", "--archive", str(tmp_path / "archive"), "--json", "--all", "--no-tests",
                     "--choices", choice]) == 0
        runs[choice] = json.loads(capsys.readouterr().out)
    assert {d["unit"] for d in runs["lsa"]["diversity"]} == {"nats"}
    assert {d["unit"] for d in runs["prematch_v1"]["diversity"]} == {"bits"}
    assert {g["group"] for g in runs["prematch_v1"]["confidence_groups"]} == {"low", "middle", "high"}


@pytest.mark.slow
def test_paper_tables_on_a_world_cup_replay(data_dir, tmp_path, capsys):
    """The real data, replayed by the collector itself through the first round of group matches."""
    from collector.cli import main as collector

    repo = tmp_path / "replay"
    assert collector(["replay", "worldcup-2026", "--out", str(repo), "--data-dir", str(data_dir),
                      "--until", "2026-06-19T00:00:00Z"]) == 0
    capsys.readouterr()
    assert main(["paper-tables", "--archive", str(repo / "archive"), "--json"]) == 0
    tables = json.loads(capsys.readouterr().out)
    assert [t["key"] for t in tables] == ["lsa_table_2", "wca_table_2", "pa_table_2"]
    for t in tables:
        assert t["rows"] and "Replay records" in t["caption"]
        for j, column in enumerate(t["columns"]):
            assert all(row[j] not in ("", "-") for row in t["rows"]), (t["key"], column)
    assert {row[0] for row in tables[0]["rows"]} >= {"elo", "dixon_coles", "uniform"}
