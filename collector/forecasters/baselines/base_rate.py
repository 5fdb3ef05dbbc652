"""``base_rate``: historical home/draw/away frequencies, ignoring who plays.

National teams: matches of the last ``WINDOW_YEARS`` in ``international-results`` before the
request date, split by venue (neutral ground, or a side at home). Clubs: the league's
results so far this season, smoothed with ``PRIOR_WEIGHT`` pseudo-matches at typical
top-flight rates (home 0.44, draw 0.25, away 0.31; 1.5 - 1.2 goals). Scores: an
independent Poisson grid at the sample's mean goals.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

import numpy as np

from .base import BaselineForecaster, Source
from .common import MatchView
from .results import day_number
from .scoregrid import score_grid

WINDOW_YEARS = 10.0
PRIOR = (0.44, 0.25, 0.31, 1.5, 1.2)
PRIOR_WEIGHT = 20.0


@dataclass(frozen=True)
class Rates:
    home: float
    draw: float
    away: float
    goals_home: float
    goals_away: float
    matches: int


def frequencies(hg: np.ndarray, ag: np.ndarray, weight: float = 0.0) -> Rates:
    """Share of home wins, draws, away wins and mean goals, with ``weight`` pseudo-matches at PRIOR."""
    n = float(len(hg))
    counts = np.array([np.sum(hg > ag), np.sum(hg == ag), np.sum(hg < ag)], dtype=float)
    probs = (counts + weight * np.array(PRIOR[:3])) / max(n + weight, 1e-9)
    goals_home = (float(np.sum(hg)) + weight * PRIOR[3]) / max(n + weight, 1e-9)
    goals_away = (float(np.sum(ag)) + weight * PRIOR[4]) / max(n + weight, 1e-9)
    if n + weight == 0:
        return Rates(*PRIOR, 0)
    return Rates(*(float(p) for p in probs / probs.sum()), goals_home, goals_away, int(n))


class BaseRateForecaster(BaselineForecaster):
    name = "base_rate"

    def fit(self, source: Source, when: date) -> dict[str, Rates]:
        table = source.table.before(when)
        if source.kind == "league":
            rates = frequencies(table.home_goals, table.away_goals, PRIOR_WEIGHT)
            return {"home": rates, "neutral": rates, "through": table.last_day()}
        recent = table.day >= day_number(when) - int(WINDOW_YEARS * 365.25)
        neutral = recent & table.neutral
        home = recent & ~table.neutral
        return {
            "neutral": frequencies(table.home_goals[neutral], table.away_goals[neutral]),
            "home": frequencies(table.home_goals[home], table.away_goals[home]),
            "through": table.last_day(),
        }

    def view(self, source: Source, fit: dict, home: str, away: str, edge: int) -> MatchView:
        rates: Rates = fit["neutral" if edge == 0 else "home"]
        probs = (rates.home, rates.draw, rates.away)
        goals = (rates.goals_home, rates.goals_away)
        if edge < 0:  # the away side is at home: mirror the home-venue rates
            probs, goals = probs[::-1], goals[::-1]
        venue = {1: "home side at home", 0: "neutral venue", -1: "away side at home"}[edge]
        through = fit["through"].isoformat() if fit["through"] else None
        return MatchView(
            grid=score_grid(*goals),
            rate_home=goals[0],
            rate_away=goals[1],
            probs_90=probs,
            reason=(
                f"Base rate ({venue}): {rates.matches} earlier {source.label} matches through {through}; "
                f"teams are ignored."
            ),
            inputs={"source": source.label, "fitted_through": through, "matches_used": rates.matches,
                    "venue": venue},
        )
