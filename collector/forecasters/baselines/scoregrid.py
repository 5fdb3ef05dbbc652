"""Score matrices: Poisson grids, the Dixon-Coles low-score correction, and what follows from a grid.

A grid ``g[i, j]`` is the probability of the 90-minute score i-j (home-away), truncated at
``MAX_GOALS`` and renormalised. Every baseline's probabilities, expected goals and most
likely scores come from one grid, so they are consistent with each other.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import lgamma

import numpy as np

MAX_GOALS = 10
_GOALS = np.arange(MAX_GOALS + 1)
_LOG_FACT = np.array([lgamma(k + 1.0) for k in range(MAX_GOALS + 1)])
EXTRA_TIME_SHARE = 1.0 / 3.0  # 30 minutes of extra time at the 90-minute scoring rate


def poisson_pmf(rate: float) -> np.ndarray:
    """P(X = k) for k = 0..MAX_GOALS, X ~ Poisson(rate)."""
    rate = max(float(rate), 1e-9)
    return np.exp(_GOALS * np.log(rate) - rate - _LOG_FACT)


def dixon_coles_tau(rate_home: float, rate_away: float, rho: float) -> np.ndarray:
    """Dixon & Coles (1997) eq. 4.2 correction factors tau(x, y) on the grid (1 outside 0-0..1-1).

    tau(0,0) = 1 - l*m*rho, tau(0,1) = 1 + l*rho, tau(1,0) = 1 + m*rho, tau(1,1) = 1 - rho.
    """
    tau = np.ones((MAX_GOALS + 1, MAX_GOALS + 1))
    tau[0, 0] = 1.0 - rate_home * rate_away * rho
    tau[0, 1] = 1.0 + rate_home * rho
    tau[1, 0] = 1.0 + rate_away * rho
    tau[1, 1] = 1.0 - rho
    return np.clip(tau, 1e-9, None)


def score_grid(rate_home: float, rate_away: float, rho: float = 0.0) -> np.ndarray:
    """P(home = i, away = j) = tau(i, j) * Pois(i; l) * Pois(j; m), renormalised on the truncated grid."""
    grid = np.outer(poisson_pmf(rate_home), poisson_pmf(rate_away)) * dixon_coles_tau(rate_home, rate_away, rho)
    return grid / grid.sum()


def outcome_probabilities(grid: np.ndarray) -> tuple[float, float, float]:
    """(home win, draw, away win) = (sum below diagonal, trace, sum above diagonal)."""
    home = float(np.tril(grid, -1).sum())
    draw = float(np.trace(grid))
    return home, draw, max(0.0, 1.0 - home - draw)


def expected_goals(grid: np.ndarray) -> tuple[float, float]:
    return float(grid.sum(axis=1) @ _GOALS), float(grid.sum(axis=0) @ _GOALS)


def top_scores(grid: np.ndarray, n: int = 5) -> list[tuple[int, int, float]]:
    """The n most likely scores, most likely first; ties broken by fewer goals, then home goals."""
    flat = [(float(grid[i, j]), -(i + j), -i, i, j) for i in range(grid.shape[0]) for j in range(grid.shape[1])]
    flat.sort(reverse=True)
    return [(i, j, p) for p, _, _, i, j in flat[:n]]


@dataclass(frozen=True)
class KnockoutOdds:
    """After-extra-time probabilities and advancement for a knockout match."""

    home_full: float
    draw_full: float  # level after 120 minutes: decided on penalties
    away_full: float
    home_advances: float
    full_grid: np.ndarray  # cumulative score after extra time (if played)


def knockout_odds(
    grid: np.ndarray,
    rate_home: float,
    rate_away: float,
    probs_90: tuple[float, float, float] | None = None,
    penalty_home: float = 0.5,
    *,
    extra_time: bool,
) -> KnockoutOdds:
    """Extra time: independent Poisson at a third of the 90-minute rates, played only after a 90-minute draw.

    P(home full) = P90(home) + P90(draw) * PET(home); P(draw full) = P90(draw) * PET(draw);
    penalties split level games with ``penalty_home``. ``probs_90`` overrides the grid's split.
    ``extra_time``: the stage plays it (:meth:`Competition.plays_extra_time`); without it a level
    90 minutes goes straight to penalties (PET(draw) = 1).
    """
    et = score_grid(rate_home * EXTRA_TIME_SHARE, rate_away * EXTRA_TIME_SHARE)
    if not extra_time:
        et = np.zeros_like(et)
        et[0, 0] = 1.0  # no extra goals: the score after 90 minutes stands
    et_home, et_draw, et_away = outcome_probabilities(et)
    home90, draw90, away90 = probs_90 if probs_90 is not None else outcome_probabilities(grid)
    full = np.tril(grid, -1) + np.triu(grid, 1)
    size = grid.shape[0]
    for k in range(size):  # a level score k-k continues into extra time
        full[k:, k:] += grid[k, k] * et[: size - k, : size - k]
    home_full = home90 + draw90 * et_home
    draw_full = draw90 * et_draw
    away_full = away90 + draw90 * et_away
    return KnockoutOdds(home_full, draw_full, away_full, home_full + draw_full * penalty_home, full)
