"""The Prophet Arena table's returns are bought at the market's quoted prices of the horizon the
caption names: a replay of Premier League matchday 1 with three bookmakers' odds (a
football-data.co.uk-format file written here; the market forecast is their median consensus,
its record keeping the median quoted odds), checked against a recomputation that reads only
the archive's JSON files, and against edits of the market records of other horizons."""

from __future__ import annotations

import json
import shutil
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest

from builder.score.paper_table_pa import pa_cells
from builder.score.paper_tables import paper_tables
from builder.score.scoring import score_archive
from collector.archive.reader import load_archive
from collector.cli import main
from tests.test_odds_replay import HEADER, ROWS

pytestmark = pytest.mark.slow  # each test here takes seconds (replays, builds); the full suite, pytest -m "", runs them

SCORABLE = {"valid", "normalized", "repaired", "repaired_and_normalized"}
LABELS = {"t_minus_24h": "T-24h", "t_minus_2h": "T-2h", "closing": "closing"}


def book_odds(i: int, closing: bool) -> list[float]:
    """Home, draw, away odds of three books (bet365, pinnacle, williamhill) and Avg, Max for match i:
    different per match and per book, each book with its own margin."""
    home = 0.25 + 0.05 * ((i * 7) % 9) + (0.03 if closing else 0.0)
    draw = 0.24 + 0.01 * (i % 4)
    probs = np.array([home, draw, 1.0 - home - draw])
    books = [[round(float(o), 2) for o in 1.0 / (probs * (1.0 + margin) * tilt)]
             for margin, tilt in ((0.05, np.array([1.02, 0.99, 0.99])), (0.03, np.ones(3)),
                                  (0.07, np.array([0.98, 1.01, 1.01])))]
    average = [round(float(np.mean(c)), 2) for c in zip(*books, strict=True)]
    best = [max(c) for c in zip(*books, strict=True)]
    return [o for b in books for o in b] + average + ([] if closing else best)


def write_csv(path: Path) -> None:
    lines = [HEADER]
    for i, (d, t, h, a, res) in enumerate(ROWS):
        odds = book_odds(i, False) + book_odds(i, True)
        lines.append(f"E0,{d},{t},{h},{a},{res}," + ",".join(f"{o:.2f}" for o in odds))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


@pytest.fixture(scope="module")
def replay(tmp_path_factory, data_dir) -> Path:
    root = tmp_path_factory.mktemp("pa_prices")
    write_csv(root / "E0.csv")
    code = main(["replay", "en-1-2025-26", "--out", str(root / "epl"), "--data-dir", str(data_dir),
                 "--baselines", "uniform,elo", "--odds", str(root / "E0.csv"), "--until", "2025-08-19T12:00Z"])
    assert code == 0
    return root / "epl" / "archive"


def table_and_cells(archive_dir: Path):
    archive = load_archive(archive_dir)
    assert archive.problems == []
    rows = score_archive(archive, inference_tests=False).forecasts
    pa = next(t for t in paper_tables(rows) if t.key == "pa_table_2")
    _, _, _, cells = pa_cells([r for r in rows if r.clock == "replay"])
    return pa, {label: float(np.mean(list(ret.values()))) for label, _, ret in cells if ret}


def edited(replay: Path, tmp_path: Path, horizon: str) -> Path:
    """A copy of the archive whose market records at ``horizon`` quote other odds (home and away
    swapped, 30% longer) and forecast other probabilities (home and away swapped)."""
    copy = tmp_path / "archive"
    shutil.copytree(replay, copy)
    changed = 0
    for path in copy.glob(f"*/events/*/forecasts/market/*.{horizon}.s*.json"):
        record = json.loads(path.read_text())
        if record["payload"] is None:
            continue
        h, d, a = record["inputs"]["buy_odds"]
        record["inputs"]["buy_odds"] = [round(a * 1.3, 4), d, round(h * 1.3, 4)]
        for when in ("90", "full"):
            payload = record["payload"]
            payload[f"home_win_{when}"], payload[f"away_win_{when}"] = payload[f"away_win_{when}"], payload[f"home_win_{when}"]
        path.write_text(json.dumps(record))
        changed += 1
    assert changed >= 5
    return copy


def returns_of(pa) -> dict[str, str]:
    return {row[0]: row[3] for row in pa.rows}


def test_editing_the_t2h_market_records_changes_no_t24h_return(replay, tmp_path):
    before, before_means = table_and_cells(replay)
    after, after_means = table_and_cells(edited(replay, tmp_path / "t2h", "t_minus_2h"))
    shown, now = returns_of(before), returns_of(after)
    t24h = [label for label in shown if "(T-2h)" not in label]
    assert any("(closed_book" in label for label in t24h) and "market (T-24h)" in t24h
    for label in t24h:
        assert now[label] == shown[label] and after_means[label] == before_means[label], label
    assert after_means["market (T-2h)"] != before_means["market (T-2h)"]  # the edit reached the T-2h row
    # the same edit at T-24h moves the T-24h forecasts' returns: they are priced there
    _, moved = table_and_cells(edited(replay, tmp_path / "t24h", "t_minus_24h"))
    assert moved["elo (closed_book, probabilistic_forecast)"] != before_means["elo (closed_book, probabilistic_forecast)"]


def result_of(outcome: dict) -> int:
    h, a = outcome["score_90"]["home"], outcome["score_90"]["away"]
    return 0 if h > a else 1 if h == a else 2


def prophet_arena(p: list[float], odds: list[float], result: int) -> float:
    """Prophet Arena §3.1.3 / App. B.6 on each of the three markets at the quoted price q = 1 / odds:
    Yes (1/q shares) if p > q, else No (1/(1-q) shares); one unit each; the mean over the three."""
    payoffs = []
    for k in range(3):
        q, happened = 1.0 / odds[k], k == result
        payoffs.append((1.0 / q if happened else 0.0) if p[k] > q else (0.0 if happened else 1.0 / (1.0 - q)))
    return sum(payoffs) / 3


def recomputed(archive_dir: Path) -> dict[str, float]:
    """Each table row's average return from the archive's JSON files alone."""
    per_row: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for event_dir in archive_dir.glob("*/events/*"):
        outcomes = sorted(event_dir.glob("outcome.r*.json"))
        if not outcomes:
            continue
        result = result_of(json.loads(outcomes[-1].read_text()))
        records = [json.loads(p.read_text()) for p in event_dir.glob("forecasts/*/*.json")]
        quotes = {r["horizon"]: r["inputs"]["buy_odds"] for r in records
                  if r["forecaster_type"] == "market" and r["status"] in SCORABLE}
        for r in records:
            if r["status"] not in SCORABLE:
                continue
            market = r["forecaster_type"] == "market"
            horizon = r["horizon"] if market else "t_minus_24h"
            if (not market and r["horizon"] != "t_minus_24h") or horizon not in quotes:
                continue
            label = f"{r['forecaster']} ({LABELS[horizon]})" if market else \
                f"{r['forecaster']} ({r['access']}, {r['strategy']})"
            pl = r["payload"]
            p = [pl["home_win_90"], pl["draw_90"], pl["away_win_90"]]
            per_row[label][event_dir.name].append(prophet_arena(p, quotes[horizon], result))
    return {label: float(np.mean([np.mean(v) for v in events.values()])) for label, events in per_row.items()}


def test_each_return_is_prophet_arenas_rule_at_the_quoted_prices_recomputed_from_the_files(replay):
    pa, means = table_and_cells(replay)
    expected = recomputed(replay)
    assert set(expected) == set(means) and len(expected) >= 5  # elo, uniform, market at T-24h, T-2h, closing
    shown = returns_of(pa)
    for label, value in expected.items():
        assert means[label] == pytest.approx(value, abs=5e-5), label
        assert shown[label].split()[0] == f"{value:.3f}", label
    assert len({round(v, 4) for v in expected.values()}) == len(expected)  # the rows differ: prices and forecasts matter
    assert "priced at the market's T-24h quotes" in pa.caption and "margin included" in pa.caption


def test_the_command_prints_the_table_from_the_replay(replay, capsys):
    from builder.cli import main as builder

    assert builder(["paper-tables", "--archive", str(replay)]) == 0
    out = capsys.readouterr().out
    assert "Prophet Arena Table 2" in out and "market (T-24h)" in out and "market (closing)" in out
    assert "Return (Prophet Arena rule)" in out
