"""``elo``: World-Football-Elo-style ratings turned into a score grid by a Poisson goal model.

Ratings (eloratings.net method): expected result We = 1 / (10^(-dr/400) + 1) with
dr = R_home - R_away (+ home advantage H when not neutral); after a match
R' = R + K * G * (W - We), K by tournament (60 World Cup ... 20 friendly, see
``results.tournament_k``), G = 1 (margin <= 1), 1.5 (margin 2), (11 + N) / 8 (margin N >= 3).
Goals: log E[goals] = a + b * dr / 400 for each side (its own dr), fitted by Poisson
maximum likelihood on matches of the last ``window_years`` before the request date, with a
ridge prior towards (a0, b0) so a short club history still gives a sane model.
National teams: the whole ``international-results`` history; clubs: the league's own
earlier results this season (ratings start equal; early-season forecasts lean on the prior).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

import numpy as np

from .results import EPOCH, ResultTable, day_number
from .scoregrid import score_grid

HOME_ADVANTAGE = 100.0
INITIAL_RATING = 1500.0
PRIOR = (np.log(1.3), 0.9)  # a0 = log mean goals, b0 = log-rate change per 400 Elo points
WINDOW_YEARS = 4.0  # goal-model window (chosen on pre-2026 tournaments)
RHO = -0.1  # Dixon-Coles low-score correction on the Elo grid (chosen on pre-2026 tournaments)


def goal_multiplier(margin: np.ndarray) -> np.ndarray:
    """G = 1 for a margin <= 1, 1.5 for 2, (11 + N) / 8 for N >= 3."""
    margin = np.abs(margin)
    return np.where(margin <= 1, 1.0, np.where(margin == 2, 1.5, (11.0 + margin) / 8.0))


@dataclass(frozen=True)
class EloHistory:
    """Pre-match ratings of every row, and each team's rating timeline (computed once per table)."""

    table: ResultTable
    pre_home: np.ndarray
    pre_away: np.ndarray
    team_days: tuple[np.ndarray, ...]
    team_ratings: tuple[np.ndarray, ...]
    home_advantage: float

    def rating(self, team: int | None, when: date) -> tuple[float, int]:
        """(rating, matches played) from rows dated strictly before ``when``."""
        if team is None:
            return INITIAL_RATING, 0
        count = int(np.searchsorted(self.team_days[team], day_number(when), side="left"))
        return (float(self.team_ratings[team][count - 1]) if count else INITIAL_RATING), count


def elo_history(table: ResultTable, home_advantage: float = HOME_ADVANTAGE, k_scale: float = 1.0) -> EloHistory:
    """Run the rating updates over the table in date order (a causal pass: later rows never touch earlier ones)."""
    ratings = np.full(len(table.teams), INITIAL_RATING)
    n = len(table)
    pre_home, pre_away = np.empty(n), np.empty(n)
    edge = np.where(table.neutral, 0.0, home_advantage)
    margin = table.home_goals - table.away_goals
    result = np.where(margin > 0, 1.0, np.where(margin < 0, 0.0, 0.5))
    step = table.k_factor * k_scale * goal_multiplier(margin)
    days: list[list[int]] = [[] for _ in table.teams]
    after: list[list[float]] = [[] for _ in table.teams]
    home, away, day = table.home.tolist(), table.away.tolist(), table.day.tolist()
    for i in range(n):
        h, a = home[i], away[i]
        rh, ra = ratings[h], ratings[a]
        pre_home[i], pre_away[i] = rh, ra
        expected = 1.0 / (10.0 ** (-(rh - ra + edge[i]) / 400.0) + 1.0)
        change = step[i] * (result[i] - expected)
        ratings[h], ratings[a] = rh + change, ra - change
        days[h].append(day[i]), after[h].append(rh + change)
        days[a].append(day[i]), after[a].append(ra - change)
    return EloHistory(
        table,
        pre_home,
        pre_away,
        tuple(np.asarray(d, dtype=np.int64) for d in days),
        tuple(np.asarray(r) for r in after),
        home_advantage,
    )


def fit_goal_model(
    history: EloHistory, when: date, window_years: float = WINDOW_YEARS, prior_weight: float = 50.0
) -> tuple[float, float, int]:
    """(a, b, rows used): Poisson ML of goals on dr/400 over rows in [when - window, when), ridge prior to PRIOR.

    Newton-Raphson on l(a, b) = sum_i [y_i (a + b x_i) - exp(a + b x_i)] - w/2 |(a, b) - prior|^2.
    """
    table = history.table
    end = int(np.searchsorted(table.day, day_number(when), side="left"))
    start = int(np.searchsorted(table.day, day_number(when) - int(window_years * 365.25), side="left"))
    edge = np.where(table.neutral[start:end], 0.0, history.home_advantage)
    dr = (history.pre_home[start:end] - history.pre_away[start:end] + edge) / 400.0
    x = np.concatenate([dr, -dr])
    y = np.concatenate([table.home_goals[start:end], table.away_goals[start:end]]).astype(float)
    theta, prior = np.array(PRIOR, dtype=float), np.array(PRIOR, dtype=float)
    design = np.column_stack([np.ones_like(x), x])
    for _ in range(25):
        mu = np.exp(design @ theta)
        grad = design.T @ (y - mu) - prior_weight * (theta - prior)
        hess = -(design.T * mu) @ design - prior_weight * np.eye(2)
        delta = np.linalg.solve(hess, grad)
        theta = theta - delta
        if np.max(np.abs(delta)) < 1e-10:
            break
    return float(theta[0]), float(theta[1]), end - start


@dataclass(frozen=True)
class EloFit:
    """Ratings and the goal model as of one request date."""

    history: EloHistory
    when: date
    a: float
    b: float
    rows: int

    def rates(self, home: int | None, away: int | None, edge: int) -> tuple[float, float, dict]:
        rh, nh = self.history.rating(home, self.when)
        ra, na = self.history.rating(away, self.when)
        dr = (rh - ra + edge * self.history.home_advantage) / 400.0
        info = {"home_rating": round(rh, 1), "away_rating": round(ra, 1), "home_matches": nh, "away_matches": na}
        return float(np.exp(self.a + self.b * dr)), float(np.exp(self.a - self.b * dr)), info

    def grid(self, rate_home: float, rate_away: float) -> np.ndarray:
        return score_grid(rate_home, rate_away, RHO)

    def fitted_through(self) -> str | None:
        table = self.history.table
        end = int(np.searchsorted(table.day, day_number(self.when), side="left"))
        if end == 0:
            return None
        return date.fromordinal(EPOCH.toordinal() + int(table.day[end - 1])).isoformat()


CLUB_HOME_ADVANTAGE = 70.0
CLUB_K_SCALE = 1.0  # league rows carry K = results.LEAGUE_K
_HISTORIES: dict[tuple, EloHistory] = {}


def _history_for(source) -> EloHistory:
    if source.kind == "league":
        return elo_history(source.table, CLUB_HOME_ADVANTAGE, CLUB_K_SCALE)
    key = source.cache_key
    if key not in _HISTORIES:  # computed once per international table
        _HISTORIES[key] = elo_history(source.table)
    return _HISTORIES[key]


from .base import BaselineForecaster, Source  # noqa: E402
from .common import MatchView  # noqa: E402


class EloForecaster(BaselineForecaster):
    name = "elo"

    def fit(self, source: Source, when: date) -> EloFit:
        history = _history_for(source)
        a, b, rows = fit_goal_model(history, when)
        return EloFit(history, when, a, b, rows)

    def view(self, source: Source, fit: EloFit, home: str, away: str, edge: int) -> MatchView:
        rate_home, rate_away, info = fit.rates(source.team(home), source.team(away), edge)
        through = fit.fitted_through()
        venue = {1: "home advantage", 0: "neutral venue", -1: "away side at home"}[edge]
        return MatchView(
            grid=fit.grid(rate_home, rate_away),
            rate_home=rate_home,
            rate_away=rate_away,
            reason=(
                f"Elo {info['home_rating']:.0f} v {info['away_rating']:.0f} ({venue}) from {source.label} "
                f"through {through}; Poisson goal model on {fit.rows} matches."
            ),
            inputs={"source": source.label, "fitted_through": through, "goal_model_matches": fit.rows,
                    "goal_model": {"a": round(fit.a, 5), "b": round(fit.b, 5)}, "venue": venue, **info},
        )
