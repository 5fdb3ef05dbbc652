"""``squad_form``: a simple fine-grained baseline (T1-T4) answering the ``fine_grained`` strategy.

T1 is the ``elo`` baseline's match forecast. The rest is built from the squads and the past
goals in ``international-results/goalscorers.csv`` (rows dated before the same knowledge date
as the Elo fit, the last :data:`WINDOW_YEARS` years):

* lineups: 4-3-3 from each squad in the squad file's order (first goalkeeper, four defenders,
  three midfielders, three forwards; a short line is filled from the next players listed);
* scorers: squad players ranked by international goals in the window; a player with g of his
  team's G goals scores in a match with expected goals x with probability 1 - exp(-x g / G);
  the top five per side are listed;
* goals: the most likely score's goals, one per goal given to the side's top scorers in
  rank order, at minutes spread evenly over the 90 (k-th of n at 90 k / (n + 1));
* assisters: the second and third ranked scorers, at half their scoring probability; player
  of the match: the favourite's top scorer; cards, substitutions, penalties, own goals: none;
* statistics: a fixed international prior (``PRIOR_STATISTICS``, Prematch's choice: no statistics
  file is in the shared data), possession tilted by 20 points per unit of (p_home - p_away),
  shots scaled by each side's expected goals, xG = the Elo model's expected goals.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections import Counter
from datetime import date, timedelta
from pathlib import Path

from collector.competitions.players import same_player
from collector.forecasters.squads import Squads, squads_of
from collector.forecasters.tasks import ForecastTask
from collector.records import Access, Forecast, MatchForecast, Strategy
from collector.records.fine_grained import FineGrainedForecast

from .base import knowledge_date, source_for
from .elo import EloForecaster
from .results import canonical, read_data_text

GOALSCORERS_CSV = "international-results/goalscorers.csv"
WINDOW_YEARS = 4
LINES = (("GK", 1), ("DF", 4), ("MF", 3), ("FW", 3))
PRIOR_STATISTICS = {"shots": 12.0, "shots_on_target": 4.0, "corners": 5.0, "fouls": 12.0, "offsides": 2.0,
                    "yellow_cards": 2.0, "red_cards": 0.0}
_GOALS: dict[str, list[tuple[date, str, str]]] = {}


def goalscorer_rows(data_dir: Path | str | None) -> list[tuple[date, str, str]]:
    """(date, canonical team name, scorer) of every non-own goal in goalscorers.csv (read once)."""
    key = str(data_dir)
    if key not in _GOALS:
        rows = []
        for row in csv.DictReader(io.StringIO(read_data_text(data_dir, GOALSCORERS_CSV))):
            if row.get("own_goal", "").upper() != "TRUE" and row.get("scorer") and row.get("date"):
                rows.append((date.fromisoformat(row["date"]), canonical(row["team"]), row["scorer"]))
        _GOALS[key] = rows
    return _GOALS[key]


def goal_counts(rows: list[tuple[date, str, str]], team_names: set[str], before: date) -> Counter:
    start = before - timedelta(days=365 * WINDOW_YEARS)
    return Counter(s for d, t, s in rows if start <= d < before and t in team_names)


def lineup(squad: list[tuple[str, str]]) -> dict:
    chosen: list[dict] = []
    for pos, k in LINES:
        line = [n for n, p in squad if p == pos and all(c["name"] != n for c in chosen)][:k]
        rest = [n for n, _ in squad if all(c["name"] != n for c in chosen) and n not in line]
        chosen += [{"name": n, "position": pos} for n in (line + rest)[:k]]
    return {"formation": "4-3-3", "starting": chosen}


def ranked_scorers(squad: list[tuple[str, str]], counts: Counter) -> list[tuple[str, int]]:
    """Squad players with their goals in the window, most first (squad order on ties)."""
    goals = [(name, sum(c for scorer, c in counts.items() if same_player(name, scorer))) for name, _ in squad]
    return sorted(goals, key=lambda t: -t[1])


class SquadFormForecaster(EloForecaster):
    name = "squad_form"
    revision = "1"
    conditions = ((Access.CLOSED_BOOK, Strategy.FINE_GRAINED),)

    def forecast_now(self, task: ForecastTask) -> Forecast:
        record = super().forecast_now(task)
        if task.event is None or record.payload is None:
            return record
        squads = squads_of(task.competition, self.data_dir)
        if not squads or task.event.home_team not in squads or task.event.away_team not in squads:
            return record.model_copy(update={"inputs": {**record.inputs, "fine_grained": "no squads: T1 only"}})
        source = source_for(task, self.data_dir, self._sources)
        when = knowledge_date(source, task.now)
        fg = self.fine_grained(task, record.payload, squads, when)
        payload = record.payload.model_copy(update={"fine_grained": fg})
        inputs = {**record.inputs, "goalscorers_dated_before": when.isoformat(),
                  "goalscorers_window_years": WINDOW_YEARS}
        return record.model_copy(update={"payload": payload, "inputs": inputs})

    def fine_grained(self, task: ForecastTask, match: MatchForecast, squads: Squads,
                     when: date) -> FineGrainedForecast:
        event, rows = task.event, goalscorer_rows(self.data_dir)
        xg = {"home": match.expected_home_goals_90, "away": match.expected_away_goals_90}
        score = {"home": match.most_likely_score_90.home, "away": match.most_likely_score_90.away}
        body: dict = {"scorers": [], "assisters": [], "goals": []}
        for side, team_id in (("home", event.home_team), ("away", event.away_team)):
            team = task.competition.team(team_id)
            counts = goal_counts(rows, {canonical(n) for n in (team.name, *team.aliases)}, when)
            ranked = ranked_scorers(squads[team_id], counts)
            total = sum(g for _, g in ranked) or 1
            probability = [(n, 1 - math.exp(-xg[side] * max(g, 0.1) / total)) for n, g in ranked]
            body[f"{side}_lineup"] = lineup(squads[team_id])
            body["scorers"] += [{"side": side, "player": n, "probability": round(p, 4)} for n, p in probability[:5]]
            body["assisters"] += [{"side": side, "player": n, "probability": round(p / 2, 4)}
                                  for n, p in probability[1:3]]
            n = score[side]
            body["goals"] += [{"side": side, "player": probability[k % max(1, min(3, len(probability)))][0],
                               "minute": round(90 * (k + 1) / (n + 1), 1)} for k in range(n)]
        favourite = "home" if match.home_win_90 >= match.away_win_90 else "away"
        top = next(s for s in body["scorers"] if s["side"] == favourite)
        body["player_of_the_match"] = [{**top, "probability": round(min(1.0, top["probability"] / 2), 4)}]
        body["statistics"] = statistics(match)
        return FineGrainedForecast.model_validate_json(json.dumps(body))


def statistics(match: MatchForecast) -> dict:
    tilt = max(-25.0, min(25.0, 20.0 * (match.home_win_90 - match.away_win_90)))
    xg = {"home": match.expected_home_goals_90, "away": match.expected_away_goals_90}
    mean = max((xg["home"] + xg["away"]) / 2, 0.1)
    out = {"possession": {"home": round(50 + tilt, 1), "away": round(50 - tilt, 1)},
           "xg": {s: round(v, 2) for s, v in xg.items()}}
    for name, value in PRIOR_STATISTICS.items():
        scale = name in ("shots", "shots_on_target", "corners")
        out[name] = {s: round(value * (xg[s] / mean if scale else 1.0), 1) for s in ("home", "away")}
    return out
