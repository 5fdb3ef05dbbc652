"""A replay of the Premier League matches in the shared data with football-data.co.uk-format odds
(a file written here, in the site's documented column layout) produces the market row at each
horizon, from odds snapshots that never hold a price from after their own time."""

from __future__ import annotations

from datetime import timedelta

import pytest

from builder.score.scoring import score_archive
from collector.archive.reader import load_archive
from collector.cli import main
from collector.records import ForecastStatus, Horizon, OddsSnapshot

# Matchday 1 of 2025/26 (the shared data's en.1.json); odds made up. Names as football-data.co.uk
# writes them where the definition knows them, else the club's name without "FC".
HEADER = ("Div,Date,Time,HomeTeam,AwayTeam,FTHG,FTAG,FTR,B365H,B365D,B365A,PSH,PSD,PSA,WHH,WHD,WHA,"
          "AvgH,AvgD,AvgA,MaxH,MaxD,MaxA,B365CH,B365CD,B365CA,PSCH,PSCD,PSCA,WHCH,WHCD,WHCA,AvgCH,AvgCD,AvgCA")
ROWS = [
    ("15/08/2025", "20:00", "Liverpool", "Bournemouth", "4,2,H"),
    ("16/08/2025", "12:30", "Aston Villa", "Newcastle United", "0,0,D"),
    ("16/08/2025", "15:00", "Brighton & Hove Albion", "Fulham", "1,1,D"),
    ("16/08/2025", "15:00", "Sunderland", "West Ham United", "3,0,H"),
    ("16/08/2025", "15:00", "Tottenham Hotspur", "Burnley", "3,0,H"),
    ("16/08/2025", "17:30", "Wolverhampton Wanderers", "Manchester City", "0,4,A"),
    ("17/08/2025", "14:00", "Nottingham Forest", "Brentford", "3,1,H"),
    ("17/08/2025", "14:00", "Chelsea", "Crystal Palace", "0,0,D"),
    ("17/08/2025", "16:30", "Manchester United", "Arsenal", "0,1,A"),
    ("18/08/2025", "20:00", "Leeds United", "Everton", "1,0,H"),
]
OPEN = "2.10,3.40,3.60,2.15,3.45,3.70,2.05,3.30,3.50,2.10,3.38,3.60,2.20,3.50,3.80"
CLOSE = "1.90,3.60,4.20,1.95,3.65,4.30,1.88,3.50,4.00,1.91,3.58,4.17"


def write_csv(path):
    lines = [HEADER] + [f"E0,{d},{t},{h},{a},{res},{OPEN},{CLOSE}" for d, t, h, a, res in ROWS]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


@pytest.mark.slow
def test_replay_with_football_data_csv_closing_odds_produces_the_market_row(tmp_path, data_dir, capsys):
    odds = tmp_path / "E0.csv"
    write_csv(odds)
    out = tmp_path / "epl"
    code = main(["replay", "en-1-2025-26", "--out", str(out), "--data-dir", str(data_dir), "--baselines", "uniform",
                 "--odds", str(odds), "--until", "2025-08-19T12:00Z"])
    assert code == 0, capsys.readouterr()
    archive = load_archive(out / "archive")
    assert archive.problems == []
    snaps = [r for r in archive.records.values() if isinstance(r, OddsSnapshot)]
    assert {s.horizon for s in snaps} == {Horizon.T_MINUS_24H, Horizon.T_MINUS_2H, Horizon.CLOSING}
    # Aston Villa v Newcastle kicks off Saturday 11:30 UTC: its T-24h window opens Friday 11:30,
    # before football-data.co.uk's Friday 12:00 collection, and the replay ticks as the window opens;
    # no price was knowable then, so no snapshot and the market's T-24h record is missed
    assert len(snaps) == 3 * len(ROWS) - 1
    villa = [f for f in archive.forecasts if f.forecaster == "market" and f.target_id.startswith("aston-villa")
             and f.horizon is Horizon.T_MINUS_24H]
    assert [f.status for f in villa] == [ForecastStatus.MISSED]
    for snap in snaps:
        assert snap.recorded_at < snap.kickoff_utc and snap.source == "football-data-co-uk"
        assert [q.bookmaker for q in snap.quotes] == ["bet365", "pinnacle", "williamhill"]  # Avg/Max are not books
        closing = snap.horizon is Horizon.CLOSING
        assert snap.quotes[0].prices[0].odds == (1.90 if closing else 2.10)
        assert ("B365CH" in snap.payload["row"]) is closing  # a pre-closing snapshot never holds closing odds
        assert "FTR" not in snap.payload["row"]
    market = [f for f in archive.forecasts if f.forecaster == "market"]
    closing = [f for f in market if f.horizon is Horizon.CLOSING]
    assert len(closing) == len(ROWS) and all(f.status is ForecastStatus.VALID for f in closing)
    for f in closing:
        assert f.kickoff_utc - timedelta(minutes=1) <= f.requested_at < f.kickoff_utc  # read at the closing tick
        assert f.inputs["buy_odds"] == [1.9, 3.6, 4.2] and f.inputs["margin_method"] == "proportional"
    liverpool = next(f for f in closing if f.target_id.startswith("liverpool"))
    fair = [[1 / o for o in book] for book in ((1.90, 3.60, 4.20), (1.95, 3.65, 4.30), (1.88, 3.50, 4.00))]
    median_home = sorted(b[0] / sum(b) for b in fair)[1]
    median = [sorted(b[k] / sum(b) for b in fair)[1] for k in range(3)]
    assert liverpool.payload.home_win_90 == pytest.approx(median_home / sum(median), abs=1e-6)
    scores = score_archive(archive)
    rows = {(r.forecaster, r.horizon): r for r in scores.leaderboard}
    assert rows[("market", "t_minus_24h")].n == len(ROWS) - 1
    for horizon in ("t_minus_2h", "closing"):
        assert rows[("market", horizon)].n == len(ROWS)
    uniform = rows[("uniform", "t_minus_2h")].market
    assert uniform["n"] == len(ROWS) and uniform["n_return"] == len(ROWS)
