"""Builders of fine-grained forecasts and match reports for the tests (valid by default)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from collector.records.fine_grained import FineGrainedForecast
from collector.records.match_report import MatchReport

AT = datetime(2026, 6, 12, 1, 0, tzinfo=UTC)
POSITIONS = ["GK"] + ["DF"] * 4 + ["MF"] * 3 + ["FW"] * 3


def eleven(prefix: str) -> list[dict[str, str]]:
    return [{"name": f"{prefix} Player{i}", "position": POSITIONS[i]} for i in range(11)]


def stats(**over: Any) -> dict[str, Any]:
    base = {"possession": {"home": 55.0, "away": 45.0}, "shots": {"home": 12.0, "away": 8.0},
            "shots_on_target": {"home": 5.0, "away": 3.0}, "corners": {"home": 6.0, "away": 4.0},
            "fouls": {"home": 11.0, "away": 13.0}, "offsides": {"home": 2.0, "away": 1.0},
            "yellow_cards": {"home": 2.0, "away": 3.0}, "red_cards": {"home": 0.0, "away": 0.0},
            "xg": {"home": 1.6, "away": 0.9}}
    base.update(over)
    return base


def forecast_dict(**over: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "home_lineup": {"formation": "4-3-3", "starting": eleven("Home")},
        "away_lineup": {"formation": "4-4-2", "starting": eleven("Away")},
        "scorers": [{"side": "home", "player": "Home Player9", "probability": 0.4},
                    {"side": "away", "player": "Away Player10", "probability": 0.3}],
        "assisters": [{"side": "home", "player": "Home Player7", "probability": 0.3}],
        "player_of_the_match": [{"side": "home", "player": "Home Player9", "probability": 0.2}],
        "goals": [{"side": "home", "player": "Home Player9", "minute": 30.0},
                  {"side": "away", "player": "Away Player10", "minute": 70.0}],
        "cards": [{"side": "away", "player": "Away Player3", "minute": 55.0, "colour": "yellow"}],
        "substitutions": [{"side": "home", "player_on": "Home Sub1", "player_off": "Home Player10",
                           "minute": 65.0}],
        "penalties": [],
        "own_goals": [],
        "statistics": stats(),
    }
    base.update(over)
    return base


def forecast(**over: Any) -> FineGrainedForecast:
    return FineGrainedForecast.model_validate_json(json.dumps(forecast_dict(**over)))


def report_dict(**over: Any) -> dict[str, Any]:
    """A report with every field, agreeing with :func:`forecast_dict` where a field can agree."""
    source = {"source": "test", "retrieved_at": AT.isoformat()}
    fc = forecast_dict()
    base: dict[str, Any] = {
        "competition_id": "worldcup-2026", "event_id": "m01", "recorded_at": AT.isoformat(),
        "home_lineup": {"starting": fc["home_lineup"]["starting"]},
        "away_lineup": {"starting": fc["away_lineup"]["starting"]},
        "home_formation": "4-3-3", "away_formation": "4-4-2",
        "goals": [{"side": "home", "player": "Home Player9", "minute": 30},
                  {"side": "away", "player": "Away Player10", "minute": 70}],
        "assists": [{"side": "home", "player": "Home Player7", "minute": 30}],
        "cards": [{"side": "away", "player": "Away Player3", "minute": 55, "colour": "yellow"}],
        "substitutions": [{"side": "home", "player_on": "Home Sub1", "player_off": "Home Player10", "minute": 65}],
        "penalties": [],
        "player_of_the_match": {"side": "home", "player": "Home Player9"},
        "statistics": stats(),
    }
    base.update(over)
    base.setdefault("sources", {k: source for k in (
        "home_lineup", "away_lineup", "home_formation", "away_formation", "goals", "assists", "cards",
        "substitutions", "penalties", "player_of_the_match", "statistics") if base.get(k) is not None})
    return base


def report(**over: Any) -> MatchReport:
    return MatchReport.model_validate_json(json.dumps(report_dict(**over), default=str))
